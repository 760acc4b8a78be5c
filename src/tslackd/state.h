/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tslackd wrote into the settings map, so that it can be undone: on
 * stop, when a session is active again, and by the next tslackd after one
 * was killed (the state file outlives it).
 */
#ifndef TSLACKD_STATE_H
#define TSLACKD_STATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "logind.h"
#include "record.h"

/* "min" and "max", by enum field: the map's field and the state file's word. */
extern const char *const field_name[];

/* A field of a cgroup's setting that tslackd wants to hold a value. */
struct want {
	uint64_t id;
	enum field field;
	uint64_t value;
	char path[PATH_MAX];
	char source[SOURCE_MAX];	/* who asked: record.h */
};

/* What tslackd holds: each field it wrote and the map has now. */
struct state {
	struct applied *a;
	int n;
};

/* Where state_reconcile() saves @st, with what tslackd --status shows. */
struct status {
	const char *file;
	const struct session *s;	/* the sessions, @n of them */
	const uint64_t *slack;		/* and their slack */
	int n;
};

/*
 * Make the map hold what @want says and undo what is no longer wanted,
 * under the writers' lock. A held field someone else wrote meanwhile
 * gets tslackd's value again and theirs is what is put back; one found
 * changed when it is let go is left as it is. Saved to @sv->file before
 * the map is written (what is about to be written, as each entry's next)
 * and after (what was): a value tslackd imposed is in the file before it
 * is in the map, whenever tslackd is killed; nothing is imposed if that
 * first save fails. A write that fails is not recorded as made (a field
 * not let go stays held). 0, or after logging why -ENOENT (tslack not
 * attached) or -1: then nothing was lost, a later call finishes the job.
 */
int state_reconcile(struct state *st, const struct want *want, int n,
		    const struct status *sv);

/*
 * Read @file as state_save() wrote it; none is fine. A line that is not
 * a record, and an entry whose path no longer names the cgroup of its id,
 * are logged and left out: only what tslackd wrote is ever undone. An
 * entry's field may have been written with its next value or not: the
 * first reconcile tells from the map. 0, or -1 after logging why (what
 * could be read is in @st).
 */
int state_load(const char *file, struct state *st);

/*
 * Take @a, read from line @no of @file, into @st if it is to be undone
 * (state_load()'s, for state.c's table). 0 or -1.
 */
int state_add_loaded(const char *file, unsigned int no, struct state *st,
		     const struct applied *a);

/*
 * Write @st and, for tslackd --status, the @n sessions and their slack
 * @slack, atomically to @file. 0, or -1 after logging why.
 */
int state_save(const char *file, const struct state *st, const struct session *s,
	       const uint64_t *slack, int n);

/* Print @file for people: sessions and settings; 0, or 1 if none. */
int state_print(const char *file);

#endif

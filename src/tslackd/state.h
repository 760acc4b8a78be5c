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

/* Each entry owns one field of a cgroup's setting; the other is not touched. */
enum field { FIELD_MIN, FIELD_MAX };

/* A field of a cgroup's setting that tslackd wants to hold a value. */
struct want {
	uint64_t id;
	enum field field;
	uint64_t value;
	char path[PATH_MAX];
};

struct applied {
	uint64_t id;
	enum field field;
	uint64_t prev;		/* the field before tslackd set it */
	uint64_t value;		/* what tslackd set */
	/*
	 * FIELD_MIN: the highest cgroup id in the subtree when it was set.
	 * Cgroup ids only grow, so a descendant with a higher id was made
	 * while it was set, and copied the minimum (the policy's mkdir
	 * program does): undoing the minimum undoes those copies too.
	 */
	uint64_t watermark;
	char path[PATH_MAX];
};

struct state {
	struct applied *a;
	int n;
};

/*
 * Make the map hold what @want says and undo what is no longer wanted,
 * under the writers' lock. A held field someone else wrote meanwhile
 * gets tslackd's value again and theirs is what is put back; one found
 * changed when it is let go is left as it is. 0, or after printing why
 * -ENOENT (tslack not attached) or -1: then nothing was lost, a later
 * call finishes the job.
 */
int state_reconcile(struct state *st, const struct want *want, int n);

/* Read @file as state_save() wrote it; none is fine. 0, or -1 after printing why. */
int state_load(const char *file, struct state *st);

/*
 * Write @st and, for tslackd --status, the @n sessions and their slack
 * @slack, atomically to @file. 0, or -1 after printing why.
 */
int state_save(const char *file, const struct state *st, const struct session *s,
	       const uint64_t *slack, int n);

/* Print @file for people: sessions and settings; 0, or 1 if none. */
int state_print(const char *file);

#endif

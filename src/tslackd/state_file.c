// SPDX-License-Identifier: GPL-2.0
/*
 * The state file: what tslackd holds in the map, and its sessions for
 * tslackd --status, loaded at start, saved atomically around each
 * reconcile (state.c), printed for people.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/cgroup.h"
#include "../lib/format.h"
#include "log.h"
#include "state.h"

/*
 * The state file cannot be written (/run full): said once, until a save
 * works again.
 */
static bool save_failing;

/*
 * Read line @no of @file (@len bytes with its newline) into @r; 0, or -1
 * after logging what it is (escaped: it may be anything).
 */
static int load_line(const char *file, unsigned int no, const char *line, ssize_t len,
		     struct record *r)
{
	char shown[256];
	char *copy;

	if (len > 0 && line[len - 1] == '\n' && !record_parse(line, len - 1, r))
		return 0;
	copy = strndup(line, len > 0 && line[len - 1] == '\n' ? len - 1 : len);
	log_err("%s:%u: not a record of this tslackd: ignored: '%s'", file, no,
		copy ? escape_name(shown, sizeof(shown), copy) : "?");
	free(copy);
	return -1;
}

int state_load(const char *file, struct state *st)
{
	struct record *r = malloc(sizeof(*r));
	char *line = NULL;
	unsigned int no = 0;
	int ret = 0;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	st->a = NULL;
	st->n = 0;
	f = fopen(file, "re");
	if (!f || !r) {
		free(r);
		if (!f && errno == ENOENT)
			return 0;
		log_err("%s: %m", file);
		if (f)
			fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (load_line(file, ++no, line, len, r)) {
			ret = -1;
		} else if (no == 1 && r->type != RECORD_HEADER) {
			ret = -1;
		} else if (r->type == RECORD_APPLIED && state_add_loaded(file, no, st, &r->a)) {
			ret = -1;
		}
		/* An older tslackd's file, raw paths and all, is not read at all. */
		if (no == 1 && ret) {
			log_err("%s: not written by this version of tslackd: not read (what it set stays: tslackctl list)",
				file);
			break;
		}
	}
	free(line);
	free(r);
	fclose(f);
	return ret;
}

/* The session records, for --status; 0 or -1. */
static int save_sessions(FILE *f, struct record *r, const struct session *s,
			 const uint64_t *slack, int n)
{
	int i;

	r->type = RECORD_SESSION;
	for (i = 0; i < n; i++) {
		memcpy(r->s.id, s[i].id, sizeof(r->s.id));
		memcpy(r->s.user, s[i].user, sizeof(r->s.user));
		r->s.uid = s[i].uid;
		r->s.idle = s[i].idle;
		r->s.locked = s[i].locked;
		r->s.active = s[i].active;
		r->s.slack = slack[i];
		memcpy(r->s.scope, s[i].scope_cg, sizeof(r->s.scope));
		if (record_write(f, r))
			return -1;
	}
	return 0;
}

static int save_records(FILE *f, const struct state *st, const struct session *s,
			const uint64_t *slack, int n)
{
	struct record *r = calloc(1, sizeof(*r));
	int i, ret = -1;

	if (!r)
		return -1;
	r->type = RECORD_HEADER;
	r->pid = getpid();
	if (record_write(f, r) || save_sessions(f, r, s, slack, n))
		goto out;
	r->type = RECORD_APPLIED;
	for (i = 0; i < st->n; i++) {
		r->a = st->a[i];
		if (record_write(f, r))
			goto out;
	}
	ret = 0;
out:
	free(r);
	return ret;
}

int state_save(const char *file, const struct state *st, const struct session *s,
	       const uint64_t *slack, int n)
{
	char tmp[4096];
	int err = 0;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "we");
	if (!f) {
		err = errno;
	} else {
		/* In order: each is done whatever the one before it said. */
		err = save_records(f, st, s, slack, n) ? errno ?: EIO : 0;
		if (fflush(f) && !err)
			err = errno;
		if (ferror(f) && !err)
			err = EIO;
		if (fclose(f) && !err)
			err = errno;
		if (!err && rename(tmp, file))
			err = errno;
		if (err)
			unlink(tmp);
	}
	/* Said when it starts failing and when it works again, not at each retry. */
	if (err && !save_failing)
		log_err("writing %s: %s (not logged again until it can be written)", file,
			strerror(err));
	else if (!err && save_failing)
		log_info("%s is written again", file);
	save_failing = err;
	return err ? -1 : 0;
}

static const char *session_state(const struct session_record *s)
{
	return s->locked ? "locked" : s->idle ? "idle" : !s->active ? "background" : "active";
}

/* One parsed line for people; the count of its kind in @seen. */
static void print_record(const struct record *r, int seen[3])
{
	char a[32], b[32], id[ESCAPED_NAME_MAX / 16], user[ESCAPED_NAME_MAX / 16];
	char p[ESCAPED_NAME_MAX];
	char src[4 * SOURCE_MAX];

	switch (r->type) {
	case RECORD_HEADER:
		if (kill(r->pid, 0) && errno == ESRCH)
			printf("tslackd (pid %d) is not running: what it set stays until it starts again\n",
			       r->pid);
		break;
	case RECORD_SESSION:
		if (!seen[RECORD_SESSION]++)
			printf("%-10s %-12s %-10s %-8s %s\n", "SESSION", "USER", "STATE",
			       "SLACK", "SCOPE");
		printf("%-10s %-12s %-10s %-8s %s\n", escape_name(id, sizeof(id), r->s.id),
		       escape_name(user, sizeof(user), r->s.user), session_state(&r->s),
		       format_ns(a, sizeof(a), r->s.slack),
		       *r->s.scope ? escape_name(p, sizeof(p), r->s.scope) : "-");
		break;
	case RECORD_APPLIED:
		if (!seen[RECORD_APPLIED]++)
			printf("%s%-6s %-8s %-8s %s\n%6s %s\n", seen[RECORD_SESSION] ? "\n" : "",
			       "FIELD", "SET", "WAS", "CGROUP", "", "SOURCE");
		printf("%-6s %-8s %-8s %s\n%6s %s\n", field_name[r->a.field],
		       format_ns(a, sizeof(a), r->a.value), format_ns(b, sizeof(b), r->a.prev),
		       escape_name(p, sizeof(p), r->a.path), "",
		       *r->a.source ? escape_name(src, sizeof(src), r->a.source) : "-");
		break;
	}
}

int state_print(const char *file)
{
	struct record *r = malloc(sizeof(*r));
	int seen[3] = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	f = r ? fopen(file, "re") : NULL;
	if (!f) {
		log_err("not running (%s: %m)", file);
		free(r);
		return 1;
	}
	/* Paths are printed escaped, as they are stored: a name is no terminal escape. */
	while ((len = getline(&line, &cap, f)) > 0)
		if (line[len - 1] == '\n' && !record_parse(line, len - 1, r))
			print_record(r, seen);
	if (!seen[RECORD_SESSION] && !seen[RECORD_APPLIED])
		printf("no sessions\n");
	free(line);
	free(r);
	fclose(f);
	return 0;
}

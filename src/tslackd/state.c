// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "../cgroup.h"
#include "../format.h"
#include "../policy.h"
#include "../settings.h"
#include "state.h"

static const char *const field_name[] = { "min", "max" };

static uint64_t get(const struct tslack_setting *v, enum field f)
{
	return f == FIELD_MIN ? v->min_slack_ns : v->max_slack_ns;
}

static void set(struct tslack_setting *v, enum field f, uint64_t ns)
{
	if (f == FIELD_MIN)
		v->min_slack_ns = ns;
	else
		v->max_slack_ns = ns;
}

/* Write @f of @id's setting; true if it changed. */
static bool write_field(int fd, uint64_t id, enum field f, uint64_t ns, const char *path)
{
	struct tslack_setting v;
	char a[32], b[32];
	uint64_t was;
	int err;

	settings_read(fd, id, &v);
	was = get(&v, f);
	if (was == ns)
		return false;
	set(&v, f, ns);
	err = settings_write_cgroup(fd, id, path, &v);
	if (err == -ENOENT)
		return false;	/* removed meanwhile, and its entry with it */
	if (err)
		fprintf(stderr, "tslackd: %s: setting %s_slack_ns: %s\n", path,
			field_name[f], strerror(-err));
	else
		fprintf(stderr, "tslackd: %s: %s_slack_ns %s (was %s)\n", path, field_name[f],
			format_ns(a, sizeof(a), ns), format_ns(b, sizeof(b), was));
	return !err;
}

struct born {
	int fd;
	const struct applied *a;
	uint64_t from, to;
	uint64_t max_id;
	bool changed;
};

/* Move the minimum a descendant made after @a was set copied from @from to @to. */
static int fix_born(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct born *b = data;
	struct tslack_setting v;

	if (cg->id > b->max_id)
		b->max_id = cg->id;
	if (!parent || !b->a || cg->id <= b->a->watermark)
		return 0;
	if (settings_read(b->fd, cg->id, &v) && v.min_slack_ns == b->from)
		b->changed |= write_field(b->fd, cg->id, FIELD_MIN, b->to, cg->path);
	return 0;
}

/* Walk @path's subtree with @b; the highest cgroup id seen in b->max_id. */
static void walk_subtree(const char *path, struct born *b)
{
	struct cgroup *top = malloc(sizeof(*top));

	if (top && !cgroup_by_path(path, top, NULL, 0))
		cgroup_walk(top, fix_born, b);
	free(top);
}

/* Undo @a if it still holds what tslackd set; true if the map changed. */
static bool restore(int fd, const struct applied *a)
{
	struct born b = { .fd = fd, .a = a, .from = a->value, .to = a->prev };
	struct tslack_setting v;

	if (!cgroup_is(a->path, a->id))
		return false;	/* removed: the policy deleted its setting */
	settings_read(fd, a->id, &v);
	if (get(&v, a->field) != a->value) {
		fprintf(stderr, "tslackd: %s: %s_slack_ns changed by someone else: left as it is\n",
			a->path, field_name[a->field]);
		return false;
	}
	b.changed = write_field(fd, a->id, a->field, a->prev, a->path);
	if (a->field == FIELD_MIN)
		walk_subtree(a->path, &b);
	return b.changed;
}

static struct applied *find(struct state *st, uint64_t id, enum field f)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (st->a[i].id == id && st->a[i].field == f)
			return &st->a[i];
	return NULL;
}

static bool wanted(const struct applied *a, const struct want *want, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (want[i].id == a->id && want[i].field == a->field)
			return true;
	return false;
}

/* Hold @w; true if the map changed. -1 in *@err when out of memory. */
static bool hold(int fd, struct state *st, const struct want *w, int *err)
{
	struct born b = { .fd = fd };
	struct tslack_setting v;
	struct applied *a, *p;
	uint64_t cur;

	if (!cgroup_is(w->path, w->id))
		return false;	/* removed since it was planned */
	settings_read(fd, w->id, &v);
	cur = get(&v, w->field);
	a = find(st, w->id, w->field);
	if (a && cur != a->value) {
		/* Set by someone else meanwhile: theirs comes back at the end. */
		a->prev = cur;
		a->value = cur;
	} else if (a && a->value != w->value && a->field == FIELD_MIN) {
		/* What descendants copied from us moves with us. */
		b.a = a;
		b.from = a->value;
		b.to = w->value;
		walk_subtree(a->path, &b);
	} else if (!a) {
		p = realloc(st->a, (st->n + 1) * sizeof(*p));
		if (!p) {
			*err = -1;
			return false;
		}
		st->a = p;
		a = &st->a[st->n++];
		memset(a, 0, sizeof(*a));
		a->id = w->id;
		a->field = w->field;
		a->prev = cur;
		snprintf(a->path, sizeof(a->path), "%s", w->path);
		if (w->field == FIELD_MIN) {
			walk_subtree(w->path, &b);
			a->watermark = b.max_id;
		}
	}
	a->value = w->value;
	return write_field(fd, w->id, w->field, w->value, w->path) || b.changed;
}

int state_reconcile(struct state *st, const struct want *want, int n)
{
	bool changed = false;
	int lock, fd, i, err = 0;

	lock = policy_lock_map(&fd);
	if (lock < 0)
		return lock;
	for (i = 0; i < st->n;) {
		if (wanted(&st->a[i], want, n)) {
			i++;
			continue;
		}
		changed |= restore(fd, &st->a[i]);
		st->a[i] = st->a[--st->n];
	}
	for (i = 0; i < n && !err; i++)
		changed |= hold(fd, st, &want[i], &err);
	close(fd);
	if (err)
		fprintf(stderr, "tslackd: out of memory\n");
	if (changed && policy_invalidate())
		err = -1;
	policy_unlock(lock);
	return err;
}

/*
 * The state file: one line per entry,
 *	applied FIELD ID PREV VALUE WATERMARK PATH
 * and for --status, one per session,
 *	session ID UID USER IDLE LOCKED ACTIVE SLACK SCOPE_CGROUP
 * after a first line "tslackd PID".
 */
int state_load(const char *file, struct state *st)
{
	char *line = NULL, field[8];
	struct applied a, *p;
	size_t cap = 0;
	int ret = 0, pos;
	FILE *f;

	st->a = NULL;
	st->n = 0;
	f = fopen(file, "re");
	if (!f)
		return errno == ENOENT ? 0 : (fprintf(stderr, "tslackd: %s: %m\n", file), -1);
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "applied ", 8))
			continue;
		memset(&a, 0, sizeof(a));
		if (sscanf(line, "applied %7s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %n",
			   field, &a.id, &a.prev, &a.value, &a.watermark, &pos) != 5 ||
		    (strcmp(field, "min") && strcmp(field, "max")) ||
		    line[pos] != '/' || strlen(line + pos) >= sizeof(a.path)) {
			fprintf(stderr, "tslackd: %s: cannot read '%s'\n", file, line);
			ret = -1;
			break;
		}
		a.field = strcmp(field, "min") ? FIELD_MAX : FIELD_MIN;
		strcpy(a.path, line + pos);
		p = realloc(st->a, (st->n + 1) * sizeof(*p));
		if (!p) {
			ret = -1;
			break;
		}
		st->a = p;
		st->a[st->n++] = a;
	}
	free(line);
	fclose(f);
	return ret;
}

int state_save(const char *file, const struct state *st, const struct session *s,
	       const uint64_t *slack, int n)
{
	char tmp[4096];
	FILE *f;
	int i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, "tslackd: %s: %m\n", tmp);
		return -1;
	}
	fprintf(f, "tslackd %d\n", (int)getpid());
	for (i = 0; i < n; i++)
		fprintf(f, "session %s %u %s %d %d %d %" PRIu64 " %s\n", s[i].id, s[i].uid,
			s[i].user, s[i].idle, s[i].locked, s[i].active, slack[i],
			*s[i].scope_cg ? s[i].scope_cg : "-");
	for (i = 0; i < st->n; i++)
		fprintf(f, "applied %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
			field_name[st->a[i].field], st->a[i].id, st->a[i].prev,
			st->a[i].value, st->a[i].watermark, st->a[i].path);
	if (fflush(f) || ferror(f) | fclose(f) || rename(tmp, file)) {
		fprintf(stderr, "tslackd: writing %s: %m\n", file);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static const char *session_state(int idle, int locked, int active)
{
	return locked ? "locked" : idle ? "idle" : !active ? "background" : "active";
}

int state_print(const char *file)
{
	char *line = NULL, id[64], user[64], field[8], path[PATH_MAX], a[32], b[32];
	int pid = 0, idle, locked, active, pos, sessions = 0, applied = 0;
	uint64_t ns, prev, watermark, cgid;
	size_t cap = 0;
	unsigned int uid;
	FILE *f;

	f = fopen(file, "re");
	if (!f) {
		fprintf(stderr, "tslackd: not running (%s: %m)\n", file);
		return 1;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "tslackd %d", &pid) == 1) {
			if (kill(pid, 0) && errno == ESRCH)
				printf("tslackd (pid %d) is not running: what it set stays until it starts again\n",
				       pid);
		} else if (sscanf(line, "session %63s %u %63s %d %d %d %" SCNu64 " %n", id, &uid,
				  user, &idle, &locked, &active, &ns, &pos) == 7) {
			if (!sessions++)
				printf("%-10s %-12s %-10s %-8s %s\n", "SESSION", "USER", "STATE",
				       "SLACK", "SCOPE");
			printf("%-10s %-12s %-10s %-8s %s\n", id, user,
			       session_state(idle, locked, active), format_ns(a, sizeof(a), ns),
			       line + pos);
		} else if (sscanf(line, "applied %7s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
				  " %4095s", field, &cgid, &prev, &ns, &watermark, path) == 6) {
			if (!applied++)
				printf("%s%-6s %-8s %-8s %s\n", sessions ? "\n" : "", "FIELD", "SET",
				       "WAS", "CGROUP");
			printf("%-6s %-8s %-8s %s\n", field, format_ns(a, sizeof(a), ns),
			       format_ns(b, sizeof(b), prev), path);
		}
	}
	if (!sessions && !applied)
		printf("no sessions\n");
	free(line);
	fclose(f);
	return 0;
}

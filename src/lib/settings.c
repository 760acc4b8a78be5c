// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bpffs.h"
#include "format.h"
#include "iter.h"
#include "map_keys.h"
#include "policy.h"
#include "settings.h"
#include "trial.h"

bool settings_read(int map_fd, uint64_t id, struct tslack_setting *val)
{
	__u64 key = id;

	if (!bpf_map_lookup_elem(map_fd, &key, val))
		return true;
	memset(val, 0, sizeof(*val));
	return false;
}

int settings_write(int map_fd, uint64_t id, const struct tslack_setting *val)
{
	__u64 key = id;

	if (val->min_slack_ns || val->max_slack_ns)
		return bpf_map_update_elem(map_fd, &key, val, BPF_ANY) ? -errno : 0;
	if (bpf_map_delete_elem(map_fd, &key) && errno != ENOENT)
		return -errno;
	return 0;
}

int settings_write_cgroup(int map_fd, uint64_t id, const char *path,
			  const struct tslack_setting *val)
{
	__u64 key = id;
	int err;

	err = settings_write(map_fd, id, val);
	/*
	 * The policy's rmdir program deletes the entry of a removed cgroup:
	 * if it runs after our write, all is well. If it ran before, the
	 * cgroup's directory was gone already (removed before the program
	 * runs), and still is: delete the entry here.
	 */
	if (err || cgroup_is(path, id))
		return err;
	bpf_map_delete_elem(map_fd, &key);
	return -ENOENT;
}

int settings_query_fd(struct tslack_err *e)
{
	int dir = open_pin_dir();

	if (dir == -E_UNSAFE)
		dir = -EPERM;
	if (dir < 0)
		return err_errno(e, -1, TSLACK_PIN_DIR, dir);
	return dir;
}

/* Run the iterator @prog as @info says; read at most @len bytes of it. */
static ssize_t iter_read(int prog, union bpf_iter_link_info *info, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n = 0;
	int iter;

	iter = iter_open(prog, info);
	if (iter < 0)
		return iter;
	while (got < len && (n = read(iter, (char *)buf + got, len - got)) > 0)
		got += n;
	n = n < 0 ? -errno : (ssize_t)got;
	close(iter);
	return n;
}

/*
 * The kernel finds by id only the cgroups inside the caller's cgroup
 * namespace; one outside it imposes on it all the same if it is one of
 * its root's ancestors, found by walking up from that root.
 */
static int query_ancestor(int prog, __u64 id, struct tslack_query *q)
{
	union bpf_iter_link_info info = {};
	struct tslack_query up[TSLACK_MAX_WALK + 1];
	struct cgroup root;
	char why[128];
	ssize_t n, i;

	if (cgroup_by_path("/", &root, why, sizeof(why)))
		return -ENOENT;
	info.cgroup.order = BPF_CGROUP_ITER_ANCESTORS_UP;
	info.cgroup.cgroup_id = root.id;
	n = iter_read(prog, &info, up, sizeof(up));
	if (n < 0)
		return n;
	for (i = 0; i < n / (ssize_t)sizeof(*up); i++) {
		if (up[i].cgroup_id == id) {
			*q = up[i];
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * One query iterator's record for cgroup @id (a cgroup iterator of that
 * cgroup alone) or thread @tid (a task iterator of that thread alone).
 */
static int query_one(int prog, __u64 id, int tid, struct tslack_query *q)
{
	union bpf_iter_link_info info = {};
	ssize_t n;

	if (tid) {
		info.task.tid = tid;
	} else {
		info.cgroup.order = BPF_CGROUP_ITER_SELF_ONLY;
		info.cgroup.cgroup_id = id;
	}
	n = iter_read(prog, &info, q, sizeof(*q));
	if (n == -ENOENT && !tid)
		return query_ancestor(prog, id, q);
	if (n < 0)
		return n;
	return n == sizeof(*q) ? 0 : tid ? -ESRCH : -ENOENT;
}

int settings_query(int query_fd, struct tslack_query *q)
{
	int prog, err;

	/* 0 would make the iterators visit every cgroup or thread. */
	if (q->tid < 0 || (!q->tid && !q->cgroup_id))
		return q->tid ? -ESRCH : -ENOENT;
	prog = get_at(query_fd, q->tid ? "query-task" : "query-cgroup");
	if (prog < 0)
		return prog;
	err = query_one(prog, q->cgroup_id, q->tid, q);
	close(prog);
	return err;
}

long settings_count(int map_fd)
{
	__u64 *keys;
	long n = map_keys(map_fd, &keys);

	if (n >= 0)
		free(keys);
	return n;
}

struct listing {
	struct settings_entry *e;
	long n;
};

static int cmp_entry_id(const void *a, const void *b)
{
	uint64_t x = ((const struct settings_entry *)a)->id;
	uint64_t y = ((const struct settings_entry *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_entry_path(const void *a, const void *b)
{
	const char *x = ((const struct settings_entry *)a)->path;
	const char *y = ((const struct settings_entry *)b)->path;

	if (!x || !y)
		return !!x - !!y;
	return strcmp(x, y);
}

/* Name the entry of @cg, if it has one. */
static int name_entry(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct settings_entry key = { .id = cg->id }, *e;
	struct listing *l = data;

	(void)parent;
	e = bsearch(&key, l->e, l->n, sizeof(*l->e), cmp_entry_id);
	if (e && !e->path)
		e->path = strdup(cg->path);
	return e && !e->path ? -1 : 0;
}

long settings_list(int map_fd, struct settings_entry **entries)
{
	struct cgroup *root = calloc(1, sizeof(*root));
	struct listing l = {};
	__u64 *keys = NULL;
	long n, i;
	int ret;

	n = map_keys(map_fd, &keys);
	if (!root || n < 0) {
		free(root);
		return n < 0 ? n : -ENOMEM;
	}
	l.e = calloc(n ? n : 1, sizeof(*l.e));
	if (!l.e)
		goto fail;
	/* In id order, as name_entry() looks them up. */
	for (i = 0; i < n; i++) {
		/* Removed meanwhile: skip it. */
		if (bpf_map_lookup_elem(map_fd, &keys[i], &l.e[l.n].val))
			continue;
		l.e[l.n].id = keys[i];
		l.e[l.n++].path = NULL;
	}
	free(keys);
	keys = NULL;
	errno = 0;
	if (cgroup_by_path("/", root, NULL, 0) || cgroup_walk(root, name_entry, &l))
		goto fail;
	qsort(l.e, l.n, sizeof(*l.e), cmp_entry_path);
	free(root);
	*entries = l.e;
	return l.n;
fail:
	ret = errno ? -errno : -EIO;
	free(keys);
	settings_list_free(l.e, l.n);
	free(root);
	return ret;
}

void settings_list_free(struct settings_entry *entries, long n)
{
	long i;

	for (i = 0; i < n; i++)
		free(entries[i].path);
	free(entries);
}

/*
 * Write @ns into @cg's field under the writers' lock; with @before (a
 * trial's), call it with the old value and record the trial first,
 * else end any trial of @cg's minimum that this setting replaces.
 */
static int apply(const struct cgroup *cg, bool max, uint64_t ns,
		 int (*before)(uint64_t old, void *data, struct tslack_err *e),
		 void *data, struct tslack_err *e)
{
	char shown[ESCAPED_NAME_MAX];
	struct tslack_setting val;
	__u64 *field;
	int lock, fd, err = 0;

	lock = policy_lock_map(&fd, e);
	if (lock < 0)
		return -1;
	settings_read(fd, cg->id, &val);
	field = max ? &val.max_slack_ns : &val.min_slack_ns;
	if (before && (before(*field, data, e) || trial_record(cg->id, ns, *field, e))) {
		close(fd);
		policy_unlock(lock);
		return -1;
	}
	*field = ns;
	err = settings_write_cgroup(fd, cg->id, cg->path, &val);
	close(fd);
	if (err == -ENOENT)
		err_set(e, 0, "%s: removed while its setting was written",
			escape_name(shown, sizeof(shown), cg->path));
	else if (err == -E2BIG)
		err_set(e, 0, "the map is full: detach, then attach with a larger --max-cgroups");
	else if (err)
		err_errno(e, 0, "writing the setting", err);
	else
		err = policy_invalidate(e);
	if (!err && !before && !max)
		trial_forget(cg->id);
	policy_unlock(lock);
	return err ? -1 : 0;
}

int settings_apply(const struct cgroup *cg, bool max, uint64_t ns, struct tslack_err *e)
{
	return apply(cg, max, ns, NULL, NULL, e);
}

int settings_apply_trial(const struct cgroup *cg, uint64_t trial,
			 int (*before)(uint64_t old, void *data, struct tslack_err *e),
			 void *data, struct tslack_err *e)
{
	return apply(cg, false, trial, before, data, e);
}

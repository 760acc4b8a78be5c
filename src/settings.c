// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "policy.h"
#include "settings.h"

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

int settings_effective(int map_fd, const struct cgroup *cg, uint64_t *ns)
{
	uint64_t min = 0, cap = TSLACK_KERNEL_MAX_NS;
	struct tslack_setting val;
	struct cgroup *cur, *up;
	int err = 0, n;

	cur = malloc(2 * sizeof(*cur));
	if (!cur)
		return -ENOMEM;
	up = cur + 1;
	*cur = *cg;
	/* As the policy walks: the cgroup and its ancestors, TSLACK_MAX_WALK in all. */
	for (n = 1;; n++) {
		settings_read(map_fd, cur->id, &val);
		if (val.min_slack_ns > min)
			min = val.min_slack_ns;
		if (val.max_slack_ns && val.max_slack_ns < cap)
			cap = val.max_slack_ns;
		if (!strcmp(cur->path, "/") || n == TSLACK_MAX_WALK)
			break;
		if (cgroup_parent(cur, up)) {
			err = -errno;	/* removed meanwhile */
			break;
		}
		*cur = *up;
	}
	free(cur);
	*ns = min < cap ? min : cap;
	return err;
}

long settings_count(int map_fd)
{
	__u64 key, next;
	long n = 0;
	int ret;

	for (ret = bpf_map_get_next_key(map_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(map_fd, &key, &next)) {
		key = next;
		n++;
	}
	return errno == ENOENT ? n : -errno;
}

struct listing {
	struct settings_entry *e;
	long n;
};

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const struct settings_entry *)a)->id;
	uint64_t y = ((const struct settings_entry *)b)->id;

	return x < y ? -1 : x > y;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct settings_entry *)a)->path,
		      ((const struct settings_entry *)b)->path);
}

/* Name the entry of @cg, if it has one. */
static int name_entry(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct settings_entry key = { .id = cg->id }, *e;
	struct listing *l = data;

	(void)parent;
	e = bsearch(&key, l->e, l->n, sizeof(*l->e), by_id);
	if (e)
		memcpy(e->path, cg->path, sizeof(e->path));
	return 0;
}

long settings_list(int map_fd, struct settings_entry **entries)
{
	struct cgroup *root = calloc(1, sizeof(*root));
	struct listing l = {};
	__u64 key, next;
	long cap = 0;
	void *p;
	int ret;

	if (!root)
		return -ENOMEM;
	for (ret = bpf_map_get_next_key(map_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(map_fd, &key, &next)) {
		key = next;
		if (l.n == cap) {
			cap = cap * 2 + 16;
			p = realloc(l.e, cap * sizeof(*l.e));
			if (!p)
				goto fail;
			l.e = p;
		}
		/* Removed meanwhile: skip it. */
		if (bpf_map_lookup_elem(map_fd, &key, &l.e[l.n].val))
			continue;
		l.e[l.n].id = key;
		l.e[l.n++].path[0] = '\0';
	}
	if (errno != ENOENT)
		goto fail;
	qsort(l.e, l.n, sizeof(*l.e), by_id);
	if (cgroup_by_path("/", root, NULL, 0) || cgroup_walk(root, name_entry, &l))
		goto fail;
	qsort(l.e, l.n, sizeof(*l.e), by_path);
	free(root);
	*entries = l.e;
	return l.n;
fail:
	ret = errno ? -errno : -EIO;
	free(l.e);
	free(root);
	return ret;
}

int settings_apply(const struct cgroup *cg, bool max, uint64_t ns)
{
	struct tslack_setting val;
	int lock, fd, err;

	lock = policy_lock_map(&fd);
	if (lock < 0)
		return -1;
	settings_read(fd, cg->id, &val);
	if (max)
		val.max_slack_ns = ns;
	else
		val.min_slack_ns = ns;
	err = settings_write_cgroup(fd, cg->id, cg->path, &val);
	close(fd);
	if (err == -ENOENT)
		fprintf(stderr, "%s: %s: removed while its setting was written\n",
			program_invocation_short_name, cg->path);
	else if (err == -E2BIG)
		fprintf(stderr, "%s: the map is full: detach, then attach with a larger --max-cgroups\n",
			program_invocation_short_name);
	else if (err)
		policy_explain("writing the setting", err);
	else
		err = policy_invalidate();
	policy_unlock(lock);
	return err ? -1 : 0;
}

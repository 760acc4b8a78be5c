// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "policy.h"
#include "settings.h"

struct planned {
	__u64 key;
	struct tslack_cgroup val;
	char *path;
};

/* The entries a "set" writes, computed before anything is written. */
struct plan {
	int map_fd;
	uint64_t min_ns, top_parent_eff;
	struct planned *items;
	size_t n, cap;
	__u64 *dels;
	size_t ndel, delcap;
	long missing;		/* entries to create */
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return true;
	q = realloc(*p, (*cap ? *cap * 2 : 64) * size);
	if (!q)
		return false;
	*p = q;
	*cap = *cap ? *cap * 2 : 64;
	return true;
}

/* Parents come first: parent->slack_ns holds the parent's new value. */
static int plan_one(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct plan *pl = data;
	struct tslack_cgroup old, val;
	__u64 key = cg->id;
	bool had;

	had = policy_lookup(pl->map_fd, key, &old);
	val.min_slack_ns = parent ? old.min_slack_ns : pl->min_ns;
	val.effective_slack_ns = max_u64(val.min_slack_ns,
					 parent ? parent->slack_ns : pl->top_parent_eff);
	cg->slack_ns = val.effective_slack_ns;

	if (!val.min_slack_ns && !val.effective_slack_ns) {
		if (!had)
			return 0;
		/* Written as zeros with the rest, dropped after. */
		if (!grow((void **)&pl->dels, &pl->delcap, pl->ndel, sizeof(*pl->dels)))
			return -1;
		pl->dels[pl->ndel++] = key;
	}
	if (had && !memcmp(&old, &val, sizeof(val)))
		return 0;
	if (!grow((void **)&pl->items, &pl->cap, pl->n, sizeof(*pl->items)))
		return -1;
	pl->items[pl->n].path = strdup(cg->path);
	if (!pl->items[pl->n].path)
		return -1;
	pl->items[pl->n].key = key;
	pl->items[pl->n++].val = val;
	pl->missing += !had;
	return 0;
}

static void plan_free(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		free(pl->items[i].path);
	free(pl->items);
	free(pl->dels);
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
	return errno == ENOENT ? n : -1;
}

/* Does the cgroup directory @path still hold cgroup @id? */
static bool cgroup_exists(const char *path, uint64_t id)
{
	char abs[PATH_MAX * 2];
	struct stat st;

	snprintf(abs, sizeof(abs), "%s%s", cgroup2_mount(), path);
	return !stat(abs, &st) && st.st_ino == id;
}

/* Serialize the writers of the map: each computes from what it reads. */
static int lock_map(void)
{
	int fd = open(TSLACK_PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* Without CONFIG_FILE_LOCKING, writers are on their own. */
	if (fd >= 0 && flock(fd, LOCK_EX) && errno != ENOSYS) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fprintf(stderr, "tslackctl: locking %s: %s\n", TSLACK_PIN_DIR,
			strerror(errno));
	return fd;
}

/* Write @pl's entries, and make them take effect, in one system call. */
static int write_plan(struct plan *pl)
{
	struct tslack_entry *entries = calloc(pl->n, sizeof(*entries));
	size_t i;
	int err;

	if (!entries) {
		fprintf(stderr, "tslackctl: %s\n", strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < pl->n; i++) {
		entries[i].id = pl->items[i].key;
		entries[i].val = pl->items[i].val;
	}
	err = policy_write(entries, pl->n);
	free(entries);
	return err;
}

static int apply(struct plan *pl, const struct cgroup *cg)
{
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	long used;
	size_t i;

	used = settings_count(pl->map_fd);
	if (used < 0 || bpf_map_get_info_by_fd(pl->map_fd, &info, &info_len)) {
		fprintf(stderr, "tslackctl: reading the map: %s\n", strerror(errno));
		return -1;
	}
	if (used + pl->missing > (long)info.max_entries) {
		fprintf(stderr,
			"tslackctl: the map is full: %s needs %ld new entries, %ld of %u are free; nothing changed\n",
			cg->path, pl->missing, (long)info.max_entries - used,
			info.max_entries);
		return -1;
	}
	if (pl->n && write_plan(pl))
		return -1;
	/* Entries of 0 and 0 mean what no entry means: drop them after. */
	for (i = 0; i < pl->ndel; i++)
		bpf_map_delete_elem(pl->map_fd, &pl->dels[i]);
	/* A cgroup removed meanwhile may have had its rmdir hook run first. */
	for (i = 0; i < pl->n; i++)
		if (!cgroup_exists(pl->items[i].path, pl->items[i].key))
			bpf_map_delete_elem(pl->map_fd, &pl->items[i].key);
	return 0;
}

int settings_set(int map_fd, const struct cgroup *cg, uint64_t min_ns)
{
	struct plan pl = { .map_fd = map_fd, .min_ns = min_ns };
	struct tslack_cgroup pval;
	struct cgroup top = *cg, parent;
	int lock, ret = -1;

	lock = lock_map();
	if (lock < 0)
		return -1;
	if (!cgroup_parent(cg, &parent)) {
		policy_lookup(map_fd, parent.id, &pval);
		pl.top_parent_eff = pval.effective_slack_ns;
	}
	if (cgroup_walk(&top, plan_one, &pl)) {
		fprintf(stderr, "tslackctl: reading %s: %s\n", cg->path, strerror(errno));
		goto out;
	}
	ret = apply(&pl, cg);
	/* Cgroups created during the walk copied their parent's old entry. */
	if (!ret && settings_check(map_fd, true) < 0)
		ret = -1;
out:
	plan_free(&pl);
	close(lock);
	return ret;
}

struct check {
	int map_fd;
	bool fix;
	long differences;
	__u64 *seen, *stale;
	size_t nseen, cap, nstale, stale_cap;
};

static int check_one(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct check *c = data;
	struct tslack_cgroup val, want;
	__u64 key = cg->id;
	bool had;

	had = policy_lookup(c->map_fd, key, &val);
	want.min_slack_ns = val.min_slack_ns;
	want.effective_slack_ns = max_u64(val.min_slack_ns, parent ? parent->slack_ns : 0);
	cg->slack_ns = want.effective_slack_ns;
	if (had) {
		if (!grow((void **)&c->seen, &c->cap, c->nseen, sizeof(*c->seen)))
			return -1;
		c->seen[c->nseen++] = key;
	}
	if (val.effective_slack_ns == want.effective_slack_ns)
		return 0;
	c->differences++;
	if (!c->fix)
		printf("%s (id %llu): effective_slack_ns %llu, want %llu\n", cg->path,
		       (unsigned long long)key, (unsigned long long)val.effective_slack_ns,
		       (unsigned long long)want.effective_slack_ns);
	else if (policy_write(&(struct tslack_entry){ key, want }, 1) == 0 && !had &&
		 grow((void **)&c->seen, &c->cap, c->nseen, sizeof(*c->seen)))
		c->seen[c->nseen++] = key;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return (x > y) - (x < y);
}

long settings_check(int map_fd, bool fix)
{
	struct check c = { .map_fd = map_fd, .fix = fix };
	struct cgroup root;
	char err[256];
	__u64 key, next;
	int ret;

	if (cgroup_by_path(".", &root, err, sizeof(err))) {
		fprintf(stderr, "tslackctl: %s\n", err);
		return -1;
	}
	if (cgroup_walk(&root, check_one, &c)) {
		fprintf(stderr, "tslackctl: reading the cgroup tree: %s\n", strerror(errno));
		free(c.seen);
		return -1;
	}
	/* Entries that no cgroup in the tree owns are stale. */
	qsort(c.seen, c.nseen, sizeof(*c.seen), cmp_u64);
	for (ret = bpf_map_get_next_key(map_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(map_fd, &key, &next)) {
		key = next;
		if (bsearch(&key, c.seen, c.nseen, sizeof(key), cmp_u64))
			continue;
		/* Or a cgroup created after the walk went past its parent. */
		if (!cgroup_by_id(key, &root, err, sizeof(err)))
			continue;
		c.differences++;
		if (fix) {
			if (!grow((void **)&c.stale, &c.stale_cap, c.nstale, sizeof(key)))
				break;
			c.stale[c.nstale++] = key;
		} else {
			printf("id %llu: stale entry, no such cgroup\n", (unsigned long long)key);
		}
	}
	/* Not while iterating: deleting would restart get_next_key. */
	while (c.nstale)
		bpf_map_delete_elem(map_fd, &c.stale[--c.nstale]);
	free(c.stale);
	free(c.seen);
	return c.differences;
}

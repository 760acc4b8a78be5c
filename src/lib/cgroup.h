/* SPDX-License-Identifier: GPL-2.0 */
/* Finding cgroup v2 directories by path or id, and walking subtrees. */
#ifndef TSLACK_CGROUP_H
#define TSLACK_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup {
	uint64_t id;		/* inode number of its cgroupfs directory */
	uint64_t slack_ns;	/* for a walk's callback, seen by the children */
	char path[PATH_MAX];	/* from the cgroup2 mount: "/", "/a/b" */
};

/* The cgroup2 mount point, from /proc/self/mountinfo; NULL if none. */
const char *cgroup2_mount(void);

/*
 * @path, from the mount ("/a/b"; "" or "/" for the root), as an absolute
 * path in @buf of @len bytes. 0, -ENOENT if cgroup2 is not mounted, or
 * -ENAMETOOLONG: never a truncated path, which could name another cgroup.
 */
int cgroup_abs_path(char *buf, size_t len, const char *path);

/*
 * Resolve @arg, absolute or relative to the cgroup2 mount, to a cgroup.
 * Returns 0, or -1 with a message for the user in @err.
 */
int cgroup_by_path(const char *arg, struct cgroup *cg, char *err, unsigned long errlen);

/*
 * Is cgroup @id still at @path (from the mount): not removed, not remade?
 * cgroup2 has no rename, so a cgroup that is not there is gone.
 */
bool cgroup_is(const char *path, uint64_t id);

/*
 * Is cgroup @id alive, wherever it is, also outside this cgroup namespace?
 * 1 yes, 0 removed (the kernel said ESTALE or ENOENT), or -errno when it
 * cannot tell (EPERM without CAP_DAC_READ_SEARCH, EMFILE...): never "gone"
 * for a failure, as check --fix deletes what is gone.
 */
int cgroup_alive(uint64_t id);

/* Find the cgroup with @id. Same contract. */
int cgroup_by_id(uint64_t id, struct cgroup *cg, char *err, unsigned long errlen);

/*
 * Call @fn for @top and then every cgroup below it, parents before their
 * children, with the parent's cgroup (NULL for @top) as @fn left it.
 * Stops at the first non-zero return of @fn and returns it; -1 when a
 * directory cannot be read.
 */
typedef int (*cgroup_walk_fn)(struct cgroup *cg, const struct cgroup *parent,
			      void *data);
int cgroup_walk(struct cgroup *top, cgroup_walk_fn fn, void *data);

#endif

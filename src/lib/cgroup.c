// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

/* include/linux/exportfs.h: a kernfs node by its 64-bit id. */
#define FILEID_KERNFS 0xfe

#include "cgroup.h"
#include "format.h"

const char *cgroup2_mount(void)
{
	static char mnt[PATH_MAX];
	char line[4096], point[PATH_MAX], *sep;
	FILE *f;

	if (mnt[0])
		return mnt;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return NULL;
	/* "36 25 0:30 / /sys/fs/cgroup rw,... - cgroup2 cgroup2 rw" */
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep, " - cgroup2 ", 11))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1) {
			snprintf(mnt, sizeof(mnt), "%s", point);
			break;
		}
	}
	fclose(f);
	return mnt[0] ? mnt : NULL;
}

int cgroup_abs_path(char *buf, size_t len, const char *path)
{
	const char *mnt = cgroup2_mount();

	if (!mnt)
		return -ENOENT;
	if ((size_t)snprintf(buf, len, "%s%s", mnt, path) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Fill @cg from the absolute, canonical path @abs inside the mount. */
static int cgroup_from_abs(const char *abs, struct cgroup *cg, char *err,
			   unsigned long errlen, const char *arg)
{
	const char *mnt = cgroup2_mount();
	size_t len = strlen(mnt);
	struct statfs sfs;
	struct stat st;
	char shown[ESCAPED_NAME_MAX];

	/* @arg may name a cgroup that a user made: escaped, in every message. */
	arg = escape_name(shown, sizeof(shown), arg);

	/* Also when it is removed meanwhile. */
	if (stat(abs, &st) || statfs(abs, &sfs)) {
		snprintf(err, errlen, "%s: %s", arg,
			 errno == ENOENT ? "no such cgroup" : strerror(errno));
		return -1;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC ||
	    strncmp(abs, mnt, len) || (abs[len] && abs[len] != '/')) {
		snprintf(err, errlen, "%s: not in the cgroup2 hierarchy (%s)", arg, mnt);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a cgroup (a cgroup is a directory)", arg);
		return -1;
	}
	cg->id = st.st_ino;
	snprintf(cg->path, sizeof(cg->path), "%s", abs[len] ? abs + len : "/");
	return 0;
}

/* Is the absolute path @path the cgroup2 mount @mnt or below it? */
static bool under_mount(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	return !strncmp(path, mnt, n) && (path[n] == '/' || !path[n]);
}

int cgroup_by_path(const char *arg, struct cgroup *cg, char *err, unsigned long errlen)
{
	const char *mnt = cgroup2_mount();
	char joined[PATH_MAX * 2], abs[PATH_MAX], cwd[PATH_MAX];
	int n;

	if (!mnt) {
		snprintf(err, errlen, "cgroup2 is not mounted");
		return -1;
	}
	if (!*arg) {
		snprintf(err, errlen, "empty cgroup path");
		return -1;
	}
	if (arg[0] == '/' && !under_mount(arg, mnt))
		/* A cgroup path, as tslackctl and /proc/PID/cgroup print it. */
		n = cgroup_abs_path(joined, sizeof(joined), arg) ? (int)sizeof(joined) : 0;
	else if (arg[0] == '/')
		n = snprintf(joined, sizeof(joined), "%s", arg);
	else if (getcwd(cwd, sizeof(cwd)) && under_mount(cwd, mnt))
		/* Relative to where the user stands, as for any file. */
		n = snprintf(joined, sizeof(joined), "%s/%s", cwd, arg);
	else
		n = snprintf(joined, sizeof(joined), "%s/%s", mnt, arg);
	/* Truncated, it could resolve to another cgroup. */
	if (n >= (int)sizeof(joined))
		errno = ENAMETOOLONG;
	if (n >= (int)sizeof(joined) || !realpath(joined, abs)) {
		snprintf(err, errlen, "%s: %s", escape_name(joined, sizeof(joined), arg),
			 errno == ENOENT ? "no such cgroup" : strerror(errno));
		return -1;
	}
	return cgroup_from_abs(abs, cg, err, errlen, arg);
}

struct find_id {
	uint64_t id;
	struct cgroup *found;
};

static int match_id(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct find_id *f = data;

	(void)parent;
	if (cg->id != f->id)
		return 0;
	*f->found = *cg;
	return 1;
}

/* A cgroupfs file handle is the kernfs id: ESTALE once it is removed. */
int cgroup_alive(uint64_t id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	struct stat st;
	int mnt, fd, ret;

	if (!cgroup2_mount())
		return -ENOENT;
	memcpy(h.fh.f_handle, &id, sizeof(id));
	mnt = open(cgroup2_mount(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		return -errno;
	fd = open_by_handle_at(mnt, &h.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		ret = errno == ESTALE || errno == ENOENT ? 0 : -errno;
	else if (fstat(fd, &st))
		ret = -errno;
	else	/* another node for the id: cannot be, so cannot tell */
		ret = st.st_ino == id ? 1 : -EIO;
	if (fd >= 0)
		close(fd);
	close(mnt);
	return ret;
}

bool cgroup_is(const char *path, uint64_t id)
{
	char abs[PATH_MAX * 2];
	struct stat st;

	return !cgroup_abs_path(abs, sizeof(abs), path) && !stat(abs, &st) && st.st_ino == id;
}

int cgroup_by_id(uint64_t id, struct cgroup *cg, char *err, unsigned long errlen)
{
	struct cgroup root = { .path = "/" };
	struct find_id f = { .id = id, .found = cg };
	struct stat st;
	int ret;

	if (!cgroup2_mount()) {
		snprintf(err, errlen, "cgroup2 is not mounted");
		return -1;
	}
	if (stat(cgroup2_mount(), &st)) {
		snprintf(err, errlen, "%s: %s", cgroup2_mount(), strerror(errno));
		return -1;
	}
	root.id = st.st_ino;
	ret = cgroup_walk(&root, match_id, &f);
	if (ret == 1)
		return 0;
	snprintf(err, errlen, "no cgroup has id %llu", (unsigned long long)id);
	return -1;
}

/*
 * The child directories of @path in *@names: for each, its inode number
 * (a uint64_t, unaligned) and its name with its NUL. How many, or -1.
 */
static long children(const char *path, char **names, size_t *len)
{
	struct dirent *de;
	struct stat st;
	uint64_t ino;
	long n = 0;
	char *abs;
	FILE *out;
	DIR *dir;

	/*
	 * On the heap, not cgroup_abs_path() into an array: this may be (and
	 * at -O2 is) inlined into walk(), whose frames stay as deep as the tree.
	 */
	if (asprintf(&abs, "%s%s", cgroup2_mount(), path) < 0)
		return -1;
	dir = opendir(abs);
	free(abs);
	if (!dir)
		return errno == ENOENT ? 0 : -1;	/* removed meanwhile */
	out = open_memstream(names, len);
	if (!out) {
		closedir(dir);
		return -1;
	}
	while ((de = readdir(dir))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;	/* removed meanwhile */
		ino = st.st_ino;
		fwrite(&ino, sizeof(ino), 1, out);
		fwrite(de->d_name, 1, strlen(de->d_name) + 1, out);
		n++;
	}
	closedir(dir);
	return fclose(out) ? -1 : n;
}

/*
 * Depth first, with no directory open and nothing big on the stack while
 * it recurses: a delegated subtree can be as deep as PATH_MAX allows
 * (2047 levels), and tslackd walks users' subtrees.
 */
static int walk(struct cgroup *top, const struct cgroup *parent,
		cgroup_walk_fn fn, void *data)
{
	struct cgroup *child = NULL;
	char *names = NULL, *p;
	size_t len = 0;
	uint64_t ino;
	long n, i;
	int ret;

	ret = fn(top, parent, data);
	if (ret)
		return ret;
	n = children(top->path, &names, &len);
	if (n > 0)
		child = malloc(sizeof(*child));
	if (n < 0 || (n > 0 && !child)) {
		free(names);
		return -1;
	}
	for (i = 0, p = names; i < n && !ret; i++, p += sizeof(ino) + strlen(p + sizeof(ino)) + 1) {
		memcpy(&ino, p, sizeof(ino));
		if (snprintf(child->path, sizeof(child->path), "%s/%s",
			     strcmp(top->path, "/") ? top->path : "",
			     p + sizeof(ino)) >= (int)sizeof(child->path))
			continue;	/* deeper than PATH_MAX: out of reach */
		child->id = ino;
		child->slack_ns = 0;
		ret = walk(child, top, fn, data);
	}
	free(child);
	free(names);
	return ret;
}

int cgroup_walk(struct cgroup *top, cgroup_walk_fn fn, void *data)
{
	return walk(top, NULL, fn, data);
}

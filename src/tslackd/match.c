// SPDX-License-Identifier: GPL-2.0
/*
 * A glob's components are matched one directory level at a time: a
 * literal one is looked up, a glob is matched against the entries of the
 * directories the components before it reached. So the cost is that of
 * the directories a rule's prefix can reach, not of the whole hierarchy;
 * and a user's subtree, where she may make as many cgroups as she likes,
 * costs at most MATCH_MAX_SEEN entries per rule and walk.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/cgroup.h"
#include "match.h"

struct walk {
	char **comp;
	int n;
	struct watch *w;
	match_fn fn;
	void *data;
	int found;
	int watched;
	long seen;
	bool cut;
	char path[PATH_MAX];	/* from the mount; "" is the root */
	char abs[PATH_MAX * 2];
};

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

static bool full(struct walk *k)
{
	if (k->seen >= MATCH_MAX_SEEN)
		k->cut = true;
	return k->cut;
}

static void descend(struct walk *k, int level);

/* Go down into @name below k->path, and back. */
static void enter(struct walk *k, int level, const char *name)
{
	size_t len = strlen(k->path);

	if (len + 1 + strlen(name) >= sizeof(k->path))
		return;
	k->path[len] = '/';
	strcpy(k->path + len + 1, name);
	descend(k, level + 1);
	k->path[len] = '\0';
}

static void descend(struct walk *k, int level)
{
	const char *comp = k->comp[level];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	if (full(k))
		return;
	if (level == k->n) {
		if (k->found >= MATCH_MAX) {
			k->cut = true;
			return;
		}
		k->found++;
		k->fn(*k->path ? k->path : "/", k->data);
		return;
	}
	/*
	 * A match below may appear here. Watches are root's, shared with
	 * systemd (fs.inotify.max_user_watches): a user's directories get
	 * at most MATCH_MAX_WATCH of them.
	 */
	if (k->watched++ >= MATCH_MAX_WATCH) {
		k->cut = true;
		return;
	}
	watch_dir(k->w, *k->path ? k->path : "/");
	snprintf(k->abs, sizeof(k->abs), "%s%s", cgroup2_mount(), k->path);
	if (!is_glob(comp)) {
		snprintf(k->abs, sizeof(k->abs), "%s%s/%s", cgroup2_mount(), k->path, comp);
		if (!stat(k->abs, &st) && S_ISDIR(st.st_mode))
			enter(k, level, comp);
		return;
	}
	dir = opendir(k->abs);
	if (!dir)
		return;		/* removed meanwhile */
	while (!full(k) && (de = readdir(dir))) {
		k->seen++;
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (!fnmatch(comp, de->d_name, FNM_PATHNAME))
			enter(k, level, de->d_name);
	}
	closedir(dir);
}

int match_cgroups(const char *glob, struct watch *w, match_fn fn, void *data, bool *cut)
{
	struct walk *k = calloc(1, sizeof(*k));
	char *copy = strdup(glob), *c, *save;
	int ret = -1;

	if (!k || !copy || !cgroup2_mount())
		goto out;
	k->comp = calloc(strlen(glob) / 2 + 2, sizeof(*k->comp));
	if (!k->comp)
		goto out;
	for (c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save))
		k->comp[k->n++] = c;
	k->w = w;
	k->fn = fn;
	k->data = data;
	descend(k, 0);
	*cut = k->cut;
	ret = k->found;
out:
	if (k)
		free(k->comp);
	free(k);
	free(copy);
	return ret;
}

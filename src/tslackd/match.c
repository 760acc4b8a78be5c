// SPDX-License-Identifier: GPL-2.0
/*
 * A glob's components are matched one directory level at a time: a
 * literal one is looked up, a glob is matched against the entries of the
 * directories the components before it reached. So the cost is that of
 * the directories a rule's prefix can reach, not of the whole hierarchy;
 * and a user's subtree, where she may make as many cgroups as she likes,
 * costs at most what a walk's budget allows (budget.h).
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
	struct budget *b;
	match_fn fn;
	void *data;
	int found;
	char path[PATH_MAX];	/* from the mount; "" is the root */
	char abs[PATH_MAX * 2];
};

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

static void descend(struct walk *k, int level);

/* "/" and @name after the string in @buf of @size bytes; false if too long. */
static bool append(char *buf, size_t size, const char *name)
{
	size_t len = strlen(buf);

	if (len + 1 + strlen(name) >= size)
		return false;
	buf[len] = '/';
	strcpy(buf + len + 1, name);
	return true;
}

/* Go down into @name below k->path, and back. */
static void enter(struct walk *k, int level, const char *name)
{
	size_t len = strlen(k->path);

	if (!append(k->path, sizeof(k->path), name))
		return;
	descend(k, level + 1);
	k->path[len] = '\0';
}

static void descend(struct walk *k, int level)
{
	const char *comp = k->comp[level];
	struct dirent *de;
	struct stat st;
	DIR *dir;

	if (k->b->cut)
		return;
	if (level == k->n) {
		if (!budget_set(k->b))
			return;
		k->found++;
		k->fn(*k->path ? k->path : "/", k->data);
		return;
	}
	/* A match below may appear here. */
	if (!budget_watch(k->b, k->w, *k->path ? k->path : "/"))
		return;
	if (cgroup_abs_path(k->abs, sizeof(k->abs), k->path))
		return;
	if (!is_glob(comp)) {
		/* Looked up, not listed; too long, it is out of reach. */
		if (append(k->abs, sizeof(k->abs), comp) && !stat(k->abs, &st) &&
		    S_ISDIR(st.st_mode))
			enter(k, level, comp);
		return;
	}
	dir = opendir(k->abs);
	if (!dir)
		return;		/* removed meanwhile */
	while (!k->b->cut && (de = readdir(dir)) && budget_see(k->b)) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (!fnmatch(comp, de->d_name, FNM_PATHNAME))
			enter(k, level, de->d_name);
	}
	closedir(dir);
}

int match_cgroups(const char *glob, struct watch *w, struct budget *b, match_fn fn, void *data)
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
	k->b = b;
	k->fn = fn;
	k->data = data;
	descend(k, 0);
	ret = k->found;
out:
	if (k)
		free(k->comp);
	free(k);
	free(copy);
	return ret;
}

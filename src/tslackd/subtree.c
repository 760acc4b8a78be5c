// SPDX-License-Identifier: GPL-2.0
/*
 * Depth first with one directory open per level: the depth is bounded, so
 * are the descriptors, and nothing is read ahead of the budget (a user's
 * directory of 20,000 cgroups costs what the budget allows, not a list of
 * all of them).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/cgroup.h"
#include "subtree.h"

struct subtree {
	struct watch *w;
	struct budget *b;
	match_fn fn;
	void *data;
	char path[PATH_MAX];	/* from the mount */
	char abs[PATH_MAX * 2];
};

static void down(struct subtree *t, int depth)
{
	size_t len = strlen(t->path);
	struct dirent *de;
	DIR *dir;

	if (!budget_watch(t->b, t->w, t->path))
		return;
	if (cgroup_abs_path(t->abs, sizeof(t->abs), t->path))
		return;
	dir = opendir(t->abs);
	if (!dir)
		return;		/* removed meanwhile */
	while (!t->b->cut && (de = readdir(dir)) && budget_see(t->b)) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, "..") ||
		    len + 1 + strlen(de->d_name) >= sizeof(t->path))
			continue;
		if (depth == WALK_MAX_DEPTH) {
			t->b->cut = true;
			break;
		}
		t->path[len] = '/';
		strcpy(t->path + len + 1, de->d_name);
		t->fn(t->path, t->data);
		down(t, depth + 1);
		t->path[len] = '\0';
	}
	closedir(dir);
}

void subtree_walk(const char *top, struct watch *w, struct budget *b, match_fn fn, void *data)
{
	struct subtree *t;

	if (!cgroup2_mount() || strlen(top) >= sizeof(t->path))
		return;
	t = malloc(sizeof(*t));
	if (!t) {
		b->cut = true;
		return;
	}
	t->w = w;
	t->b = b;
	t->fn = fn;
	t->data = data;
	snprintf(t->path, sizeof(t->path), "%s", top);
	down(t, 0);
	free(t);
}

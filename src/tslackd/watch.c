// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../cgroup.h"
#include "watch.h"

int watch_init(struct watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

struct adding {
	int fd;
	int *wd;
	int n;
};

static int add_dir(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	char abs[PATH_MAX * 2];
	struct adding *a = data;
	int wd, *p;

	(void)parent;
	snprintf(abs, sizeof(abs), "%s%s", cgroup2_mount(), cg->path);
	wd = inotify_add_watch(a->fd, abs, IN_CREATE | IN_ONLYDIR);
	if (wd < 0)
		return 0;	/* removed meanwhile */
	p = realloc(a->wd, (a->n + 1) * sizeof(*p));
	if (!p)
		return 0;	/* not watched: seen at the next change instead */
	a->wd = p;
	a->wd[a->n++] = wd;
	return 0;
}

void watch_subtrees(struct watch *w, const struct want *want, int n)
{
	struct adding a = { .fd = w->fd };
	struct cgroup *top = malloc(sizeof(*top));
	int i, j;

	for (i = 0; top && i < n; i++) {
		if (want[i].field == FIELD_MIN && !cgroup_by_path(want[i].path, top, NULL, 0))
			cgroup_walk(top, add_dir, &a);
	}
	free(top);
	/* A directory watched twice has one wd: drop only those not seen now. */
	for (i = 0; i < w->n; i++) {
		for (j = 0; j < a.n && a.wd[j] != w->wd[i]; j++)
			;
		if (j == a.n)
			inotify_rm_watch(w->fd, w->wd[i]);
	}
	free(w->wd);
	w->wd = a.wd;
	w->n = a.n;
}

bool watch_drain(struct watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	bool made = false;
	ssize_t len;
	char *p;

	while ((len = read(w->fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			made |= !!(ev->mask & IN_CREATE);
		}
	}
	return made;
}

void watch_free(struct watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->wd);
}

// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../lib/cgroup.h"
#include "watch.h"

int watch_init(struct watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

void watch_dir(struct watch *w, const char *path)
{
	char abs[PATH_MAX * 2];
	int wd, *p;

	if (cgroup_abs_path(abs, sizeof(abs), path))
		return;
	wd = inotify_add_watch(w->fd, abs, IN_CREATE | IN_ONLYDIR);
	if (wd < 0)
		return;		/* removed meanwhile */
	p = realloc(w->next, (w->n_next + 1) * sizeof(*p));
	if (!p)
		return;		/* not watched: seen at the next change instead */
	w->next = p;
	w->next[w->n_next++] = wd;
}

static int cmp_wd(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void watch_end(struct watch *w)
{
	int i;

	/* A directory watched twice has one wd: drop only those not seen now. */
	if (w->n_next)
		qsort(w->next, w->n_next, sizeof(*w->next), cmp_wd);
	for (i = 0; i < w->n; i++)
		if (!w->n_next ||
		    !bsearch(&w->wd[i], w->next, w->n_next, sizeof(*w->next), cmp_wd))
			inotify_rm_watch(w->fd, w->wd[i]);
	free(w->wd);
	w->wd = w->next;
	w->n = w->n_next;
	w->next = NULL;
	w->n_next = 0;
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
			/*
			 * The queue overflowed: events were lost, a cgroup
			 * made among them. Say so, and the subtrees are
			 * walked again.
			 */
			made |= !!(ev->mask & (IN_CREATE | IN_Q_OVERFLOW));
		}
	}
	return made;
}

void watch_free(struct watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->wd);
	free(w->next);
}

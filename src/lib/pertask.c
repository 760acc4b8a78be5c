// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a thread's own slack for per-task mode. A plan names a thread
 * by its number and start time; a number may be reused as soon as the
 * thread exits, by a process of anyone's. So the thread's /proc directory
 * is opened first (it holds the thread's struct pid: a later thread with
 * the number is not reached through it), checked to be the thread that
 * started then, and the slack is written through it, only if it is still
 * what the plan saw.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "iter.h"
#include "pertask.h"

/* Read the small file @name of @dir into @buf, NUL-terminated: 0 or -errno. */
static int read_at(int dir, const char *name, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

/*
 * The start time of thread @tid, of /proc directory @dir, in clock ticks.
 * From task/TID/stat, the thread's own: /proc/TID/stat is its process's,
 * which walks every thread of it (a pass over a process of N threads
 * would cost N^2).
 */
static int start_ticks(int dir, int tid, unsigned long long *ticks)
{
	char buf[1024], name[32], *p;
	int err, i;

	snprintf(name, sizeof(name), "task/%d/stat", tid);
	err = read_at(dir, name, buf, sizeof(buf));
	if (err)
		return err;
	/* The name, field 2, may hold anything: count from its last ')'. */
	p = strrchr(buf, ')');
	/* To the space before field 22, starttime; field 3 follows ") ". */
	for (i = 3; p && i <= 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", ticks) != 1)
		return -EINVAL;
	return 0;
}

/*
 * Is /proc directory @dir still the thread planned in @w, with its slack
 * what the plan saw? 1 yes, 0 no, -errno; its timerslack_ns open in *@fd.
 */
static int still_planned(int dir, const struct tslack_write *w, int *fd)
{
	unsigned long long ticks, cur;
	long hz = sysconf(_SC_CLK_TCK);
	char buf[32];
	ssize_t n;
	int err;

	/* /proc's start time is start_boottime in USER_HZ ticks (nsec_to_clock_t). */
	err = start_ticks(dir, w->tid, &ticks);
	if (err)
		return err;
	if (hz <= 0 || ticks != w->start_boottime / (1000000000ULL / hz))
		return 0;
	*fd = openat(dir, "timerslack_ns", O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	n = read(*fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return sscanf(buf, "%llu", &cur) == 1 && cur == w->expect;
}

int pertask_write(const struct tslack_write *w)
{
	char path[32], buf[32];
	int dir, fd = -1, ret;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d", w->tid);
	dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	ret = still_planned(dir, w, &fd);
	if (ret > 0) {
		n = snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)w->slack);
		/* A seq_file: no pwrite(), but it seeks. */
		if (lseek(fd, 0, SEEK_SET))
			ret = -errno;
		else
			ret = write(fd, buf, n) == n ? 1 : -errno;
	}
	if (fd >= 0)
		close(fd);
	close(dir);
	/* Gone meanwhile: nothing to do. */
	return ret == -ENOENT || ret == -ESRCH ? 0 : ret;
}

long pertask_pass(int prog_fd, int pid, int tid, int *failed, pertask_slice_fn *slice, void *ctx)
{
	union bpf_iter_link_info info = { .task.pid = pid, .task.tid = tid };
	/*
	 * A multiple of the record: the iterator plans no more threads than
	 * a read asks for, so none is planned and left unwritten.
	 */
	struct tslack_write w[PERTASK_SLICE];
	size_t have = 0, i;
	long written = 0;
	int iter, done, ret = 0;
	ssize_t n = 0;

	iter = iter_open(prog_fd, &info);
	if (iter < 0)
		return iter;
	while (!ret && (n = read(iter, (char *)w + have, sizeof(w) - have)) > 0) {
		have += n;
		for (i = 0; i < have / sizeof(*w); i++) {
			done = pertask_write(&w[i]);
			if (done > 0)
				written++;
			else if (done < 0 && !*failed)
				*failed = done;
		}
		/* Records may be split across reads: carry the rest over. */
		memmove(w, (char *)w + i * sizeof(*w), have % sizeof(*w));
		have %= sizeof(*w);
		ret = slice ? slice(ctx, i) : 0;
	}
	if (!ret && n < 0)
		ret = -errno;
	close(iter);
	return ret < 0 ? ret : written;
}

/* The initial namespace of @kind has this inode (include/linux/proc_ns.h). */
static bool in_init_ns(const char *kind, ino_t init)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
	/* A kernel without time namespaces has only the initial one. */
	if (stat(path, &st))
		return errno == ENOENT;
	return st.st_ino == init;
}

bool pertask_in_init_ns(void)
{
	return in_init_ns("pid", 0xEFFFFFFCU) && in_init_ns("time", 0xEFFFFFFAU);
}

/* A thread of ours that is not the main one: it says its tid, then waits. */
struct helper {
	int quit[2], ack[2];
	int tid;
};

static void *helper_run(void *arg)
{
	struct helper *h = arg;
	char c;

	h->tid = gettid();
	if (write(h->ack[1], "x", 1) == 1)
		while (read(h->quit[0], &c, 1) > 0)
			;
	return NULL;
}

/* Does the query iterator, filtered by thread @tid, find that thread alone? */
static int query_finds(int prog, int tid)
{
	union bpf_iter_link_info info = { .task.tid = tid };
	int iter, mine = 0, others = 0;
	struct tslack_query q;

	iter = iter_open(prog, &info);
	if (iter < 0)
		return iter;
	while (read(iter, &q, sizeof(q)) == sizeof(q)) {
		if (q.tid == tid)
			mine++;
		else
			others++;
	}
	close(iter);
	return mine == 1 && !others;
}

int pertask_tid_filter_works(int query_prog)
{
	struct helper h = { .quit = { -1, -1 }, .ack = { -1, -1 } };
	pthread_t thread;
	int ret, i;
	char c;

	if (pipe2(h.quit, O_CLOEXEC) || pipe2(h.ack, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	ret = -pthread_create(&thread, NULL, helper_run, &h);
	if (ret)
		goto out;
	ret = read(h.ack[0], &c, 1) == 1 ? query_finds(query_prog, h.tid) : -EIO;
	/* The helper's read sees the end of the pipe and returns. */
	close(h.quit[1]);
	h.quit[1] = -1;
	pthread_join(thread, NULL);
out:
	for (i = 0; i < 2; i++) {
		if (h.quit[i] >= 0)
			close(h.quit[i]);
		if (h.ack[i] >= 0)
			close(h.ack[i]);
	}
	return ret;
}

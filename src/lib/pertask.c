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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

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

/* The start time of the thread of /proc directory @dir, in clock ticks. */
static int start_ticks(int dir, unsigned long long *ticks)
{
	char buf[1024], *p;
	int err, i;

	err = read_at(dir, "stat", buf, sizeof(buf));
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
	err = start_ticks(dir, &ticks);
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

long pertask_pass(int prog_fd, int pid, int tid, int *failed)
{
	union bpf_iter_link_info info = {};
	LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = &info,
		    .iter_info_len = sizeof(info));
	struct tslack_write w[128];
	size_t have = 0, i;
	long written = 0;
	int link, iter, ret;
	ssize_t n;

	info.task.pid = pid;
	info.task.tid = tid;
	link = bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
	if (link < 0)
		return -errno;
	iter = bpf_iter_create(link);
	close(link);
	if (iter < 0)
		return -errno;
	/* Records may be split across reads: carry the rest over. */
	while ((n = read(iter, (char *)w + have, sizeof(w) - have)) > 0) {
		have += n;
		for (i = 0; i < have / sizeof(*w); i++) {
			ret = pertask_write(&w[i]);
			if (ret > 0)
				written++;
			else if (ret < 0 && !*failed)
				*failed = ret;
		}
		memmove(w, (char *)w + i * sizeof(*w), have % sizeof(*w));
		have %= sizeof(*w);
	}
	if (n < 0)
		written = -errno;
	close(iter);
	return written;
}

bool pertask_in_init_pidns(void)
{
	char buf[4096], *p, *end;
	int dir, err;

	dir = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return false;
	err = read_at(dir, "status", buf, sizeof(buf));
	close(dir);
	p = err ? NULL : strstr(buf, "\nNSpid:\t");
	end = p ? strchr(p + 1, '\n') : NULL;
	if (!end)
		return false;
	*end = '\0';
	/* One number per pid namespace, the process is in: one in the initial one. */
	return !strchr(p + strlen("\nNSpid:\t"), '\t');
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A trial's record is TSLACK_TRIAL_DIR/<cgroup id>, "<trial> <old>\n",
 * written to a temporary name and renamed into place: a reader sees the
 * whole record or none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trial.h"

/* The directory of records, made if @create; an fd or -errno. */
static int trial_dir(int create)
{
	int fd;

	if (create && mkdir("/run/tslack", 0755) && errno != EEXIST)
		return -errno;
	if (create && mkdir(TSLACK_TRIAL_DIR, 0700) && errno != EEXIST)
		return -errno;
	fd = open(TSLACK_TRIAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int trial_record(uint64_t id, uint64_t trial, uint64_t old, struct tslack_err *e)
{
	char name[32], tmp[40], line[64];
	int dir, fd, len, err = 0;

	dir = trial_dir(1);
	if (dir < 0)
		return err_errno(e, -1, "recording the trial in " TSLACK_TRIAL_DIR, dir);
	snprintf(name, sizeof(name), "%" PRIu64, id);
	snprintf(tmp, sizeof(tmp), ".%" PRIu64, id);
	len = snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 "\n", trial, old);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, len) != len || fsync(fd))
		err = -errno;
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (!err && renameat(dir, tmp, dir, name))
		err = -errno;
	if (err)
		unlinkat(dir, tmp, 0);
	close(dir);
	return err ? err_errno(e, -1, "recording the trial in " TSLACK_TRIAL_DIR, err) : 0;
}

void trial_forget(uint64_t id)
{
	char name[32];
	int dir = trial_dir(0);

	if (dir < 0)
		return;
	snprintf(name, sizeof(name), "%" PRIu64, id);
	unlinkat(dir, name, 0);
	close(dir);
}

uint64_t trial_underlying(uint64_t id, uint64_t cur)
{
	uint64_t trial, old;
	char name[32], line[64];
	int dir, fd;
	ssize_t n;

	dir = trial_dir(0);
	if (dir < 0)
		return cur;
	snprintf(name, sizeof(name), "%" PRIu64, id);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return cur;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return cur;
	line[n] = '\0';
	if (sscanf(line, "%" SCNu64 " %" SCNu64, &trial, &old) != 2 || trial != cur)
		return cur;
	return old;
}

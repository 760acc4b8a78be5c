// SPDX-License-Identifier: GPL-2.0
/*
 * tslack-probe's ways of running a command: as another user, without
 * capabilities, in a cgroup namespace, holding a lock, on a terminal,
 * killed after a delay, timed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe_run.h"
#include "sleep_paths.h"

/* Drop CAP_BPF and CAP_SYS_ADMIN from this process's sets too. */
static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	unsigned int i;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (i = 0; i < 2; i++) {
		uint32_t drop = 0;

		if (CAP_BPF / 32 == i)
			drop |= 1u << (CAP_BPF % 32);
		if (CAP_SYS_ADMIN / 32 == i)
			drop |= 1u << (CAP_SYS_ADMIN % 32);
		data[i].effective &= ~drop;
		data[i].permitted &= ~drop;
		data[i].inheritable &= ~drop;
	}
	return syscall(SYS_capset, &hdr, data);
}

int exec_without_caps(char **cmd)
{
	/* Root, but neither CAP_BPF nor CAP_SYS_ADMIN, also after exec. */
	if (prctl(PR_CAPBSET_DROP, CAP_BPF, 0, 0, 0) ||
	    prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) || drop_caps()) {
		perror("tslack-probe: dropping capabilities");
		return 1;
	}
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	return 127;
}

int exec_as_user(uid_t uid, char **cmd)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("tslack-probe: dropping privileges");
		return 1;
	}
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	return 127;
}

int exec_in_cgroupns(char **cmd)
{
	/* As a container sees it: its cgroup is the root of what it mounts. */
	if (unshare(CLONE_NEWCGROUP | CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    umount2("/sys/fs/cgroup", MNT_DETACH) ||
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL)) {
		perror("tslack-probe: a cgroup namespace");
		return 1;
	}
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	return 127;
}

int exec_locked(const char *path, char **cmd)
{
	/* As a user would hold tslack's lock: busybox has no flock(1). */
	int fd = open(path, O_RDONLY);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		perror(path);
		return 1;
	}
	execvp(cmd[0], cmd);
	perror(cmd[0]);
	return 127;
}

/*
 * Run COMMAND on a new terminal, type KEYS into it one every DELAY_MS
 * (after waiting DELAY_MS first), and copy what it shows to stdout until it
 * exits or 10 s pass; exit with its status (124 on the timeout).
 */
int on_pty(const char *keys, long delay_ms, char **cmd)
{
	struct pollfd pfd = { .events = POLLIN };
	char buf[4096];
	int status, master;
	long waited = 0;
	ssize_t n;
	pid_t pid;

	pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	pfd.fd = master;
	while (waited < 10000) {
		if (poll(&pfd, 1, 10) > 0) {
			n = read(master, buf, sizeof(buf));
			if (n <= 0)
				break;	/* EIO: the command exited */
			fwrite(buf, 1, n, stdout);
			continue;
		}
		waited += 10;
		if (*keys && waited % delay_ms == 0 && write(master, keys++, 1) != 1)
			break;
	}
	if (waited >= 10000) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 124;
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Start COMMAND with its output thrown away; its pid, or -1. */
static pid_t spawn_quiet(char **cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	return pid;
}

/*
 * SIGKILL COMMAND USECS after its fork, unless it exited before. Timed here
 * rather than with the shell's "cmd & usleep N; kill": the shell's own fork
 * and exec of usleep take longer than a short command under TCG.
 */
int kill_after(long us, char **cmd)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
	pid_t pid = spawn_quiet(cmd);

	if (pid < 0)
		return 1;
	nanosleep(&ts, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

/* Print how long COMMAND takes from fork to exit: the mean of COUNT runs, in us. */
int duration(long count, char **cmd)
{
	uint64_t t0 = monotonic_ns();
	long i;

	for (i = 0; i < count; i++) {
		pid_t pid = spawn_quiet(cmd);

		if (pid < 0 || waitpid(pid, NULL, 0) < 0)
			return 1;
	}
	printf("%llu\n", (unsigned long long)(monotonic_ns() - t0) / 1000 / count);
	return 0;
}

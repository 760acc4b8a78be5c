// SPDX-License-Identifier: GPL-2.0
/*
 * --unit=NAME: a systemd unit or slice named as users name it, found by
 * its cgroup as systemd has it (the ControlGroup property, which
 * systemctl set-property writes to as well). Asked of systemctl itself:
 * the names of units are systemd's to resolve, and a cgroup of that name
 * found elsewhere (a user's delegated subtree) would be the wrong one.
 * say() escapes the name as it prints it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tslackctl.h"

extern char **environ;

int unit_cgroup(const char *unit, char *path, size_t len)
{
	char *argv[] = { "systemctl", "show", "--property=ControlGroup", "--value", "--",
			 (char *)unit, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], status, err;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return fail_errno("systemctl", -errno);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	err = posix_spawnp(&pid, "systemctl", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (err) {
		close(fds[0]);
		return fail_errno("running systemctl", -err);
	}
	while (got < len - 1 && (n = read(fds[0], path + got, len - 1 - got)) > 0)
		got += n;
	close(fds[0]);
	path[got] = '\0';
	path[strcspn(path, "\n")] = '\0';
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		say("systemctl show %s failed", unit);
		return EXIT_RUNTIME;
	}
	if (!*path) {
		say("%s: no cgroup: no such unit, or it is not running", unit);
		return EXIT_RUNTIME;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "policy.h"
#include "settings.h"

static void __attribute__((noreturn)) guard_child(int fd, const struct cgroup *cg,
						  uint64_t trial)
{
	struct tslack_setting v;
	int lock, map;
	uint64_t old;
	char done;

	/* Nothing to do unless the trial was set and "done" never came. */
	if (read(fd, &old, sizeof(old)) != sizeof(old) || read(fd, &done, 1) == 1)
		_exit(0);
	lock = policy_lock_map(&map);
	if (lock < 0)
		_exit(1);
	settings_read(map, cg->id, &v);
	/* Unless someone has set another value since. */
	if (v.min_slack_ns == trial) {
		v.min_slack_ns = old;
		if (!settings_write_cgroup(map, cg->id, cg->path, &v))
			policy_invalidate();
	}
	close(map);
	policy_unlock(lock);
	_exit(0);
}

int guard_start(struct guard *g, const struct cgroup *cg, uint64_t trial)
{
	int p[2];

	g->fd = -1;
	g->pid = -1;
	if (pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, "%s: pipe: %m\n", program_invocation_short_name);
		return -1;
	}
	g->pid = fork();
	if (g->pid < 0) {
		fprintf(stderr, "%s: fork: %m\n", program_invocation_short_name);
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!g->pid) {
		close(p[1]);
		/* Out of the terminal's process group: its ^C is for the parent. */
		setsid();
		guard_child(p[0], cg, trial);
	}
	close(p[0]);
	g->fd = p[1];
	return 0;
}

void guard_arm(struct guard *g, uint64_t old)
{
	if (write(g->fd, &old, sizeof(old)) != sizeof(old))
		fprintf(stderr, "%s: guarding the trial setting: %m\n",
			program_invocation_short_name);
}

void guard_end(struct guard *g, bool restored)
{
	if (g->fd < 0)
		return;
	if (restored && write(g->fd, "", 1) != 1)
		fprintf(stderr, "%s: guarding the trial setting: %m\n",
			program_invocation_short_name);
	close(g->fd);
	g->fd = -1;
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

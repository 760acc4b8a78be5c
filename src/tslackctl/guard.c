// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/format.h"
#include "lib/policy.h"
#include "lib/settings.h"
#include "lib/trial.h"
#include "guard.h"
#include "tslackctl.h"

/*
 * Under the writers' lock, put @old back as @cg's min_slack_ns if it still
 * holds @trial: a value someone else wrote meanwhile is theirs to keep.
 * 0 restored, 1 left as it is, -1 after saying why it failed.
 */
static int restore_if_trial(const struct cgroup *cg, uint64_t trial, uint64_t old)
{
	struct tslack_err e = {};
	struct tslack_setting v;
	int lock, map, ret = 1;

	lock = policy_lock_map(&map, &e);
	if (lock < 0) {
		fail(&e);
		return -1;
	}
	settings_read(map, cg->id, &v);
	if (v.min_slack_ns == trial) {
		v.min_slack_ns = old;
		ret = settings_write_cgroup(map, cg->id, cg->path, &v) ||
		      policy_invalidate(&e) ? -1 : 0;
	}
	/* Put back, or someone else's now: no longer a trial either way. */
	if (ret >= 0)
		trial_forget(cg->id);
	close(map);
	policy_unlock(lock);
	if (ret < 0)
		fail(&e);
	return ret;
}

static void __noreturn guard_child(int fd, const struct cgroup *cg, uint64_t trial)
{
	uint64_t old;
	char done;

	/* Nothing to do unless the trial was armed and "done" never came. */
	if (read(fd, &old, sizeof(old)) != sizeof(old) || read(fd, &done, 1) == 1)
		_exit(0);
	_exit(restore_if_trial(cg, trial, old) < 0);
}

int guard_start(struct guard *g, const struct cgroup *cg, uint64_t trial)
{
	int p[2];

	g->fd = -1;
	g->pid = -1;
	if (pipe2(p, O_CLOEXEC)) {
		say("pipe: %m");
		return -1;
	}
	g->pid = fork();
	if (g->pid < 0) {
		say("fork: %m");
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

/* Arm the child with @old before the trial write: a SIGKILL after it finds it ready. */
static int arm(uint64_t old, void *data, struct tslack_err *e)
{
	struct guard *g = data;

	g->old = old;
	if (write(g->fd, &g->old, sizeof(g->old)) == sizeof(g->old))
		return 0;
	return err_errno(e, -1, "guarding the trial setting", errno);
}

int guard_set(struct guard *g, const struct cgroup *cg, uint64_t trial)
{
	struct tslack_err e = {};

	g->trial = trial;
	if (!settings_apply_trial(cg, trial, arm, g, &e))
		return 0;
	fail(&e);
	return -1;
}

int guard_restore(struct guard *g, const struct cgroup *cg)
{
	char shown[ESCAPED_NAME_MAX];
	int ret;

	ret = restore_if_trial(cg, g->trial, g->old);
	if (ret == 1)
		say("%s: min_slack_ns was changed during the trial: left as it is",
		    escape_name(shown, sizeof(shown), cg->path));
	return ret < 0 ? -1 : 0;
}

void guard_end(struct guard *g, bool restored)
{
	if (g->fd < 0)
		return;
	if (restored && write(g->fd, "", 1) != 1)
		say("guarding the trial setting: %m");
	close(g->fd);
	g->fd = -1;
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

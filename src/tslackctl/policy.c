// SPDX-License-Identifier: GPL-2.0
/* tslackctl attach, detach, status and supported: the policy itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "lib/json.h"
#include "lib/parse.h"
#include "lib/policy.h"
#include "lib/settings.h"
#include "follow.h"
#include "tslackctl.h"

int cmd_attach(int argc, char **argv __always_unused, const struct opts *o)
{
	uint64_t max = TSLACK_DEFAULT_MAX_CGROUPS;
	unsigned int flags = POLICY_FUTEX2;
	struct tslack_err e = {};
	char err[512];

	if (optind != argc)
		return usage_error("usage: tslackctl attach [--max-cgroups=N] [--no-futex2]");
	if (o->max_cgroups && parse_count(o->max_cgroups, 1 << 24, &max, err, sizeof(err)))
		return usage_error("--max-cgroups: %s", err);
	if (!may_change_policy())
		return EXIT_RUNTIME;
	if (o->no_futex2)
		flags &= ~POLICY_FUTEX2;
	return policy_attach(max, flags, &e) ? fail(&e) : 0;
}

int cmd_detach(int argc, char **argv __always_unused, const struct opts *o __always_unused)
{
	struct tslack_err e = {};

	if (optind != argc)
		return usage_error("usage: tslackctl detach");
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return policy_detach(&e) ? fail(&e) : 0;
}

/*
 * Per-task mode's follower, for root: 1 running (its pid and when it last
 * caught up, CLOCK_MONOTONIC ns, in *@who), 0 not, -1 unknown.
 */
static int follower_state(struct tslack_follower *who)
{
	__u32 zero = 0;
	int fd, running;

	running = follower_running();
	if (running < 0)
		return -1;
	fd = policy_obj_get("follower");
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, who))
		memset(who, 0, sizeof(*who));
	if (fd >= 0)
		close(fd);
	return running;
}

static double seconds_since(__u64 ns)
{
	return now() - ns / 1e9;
}

int cmd_status(int argc, char **argv __always_unused, const struct opts *o)
{
	struct tslack_follower who = {};
	int following = -1;
	struct bpf_map_info info = {};
	struct tslack_err e = {};
	__u32 len = sizeof(info);
	struct json_object *j;
	int fd, attached, flags = -1, mode = 0;
	bool hook = policy_kernel_mode() == POLICY_HOOK;
	long n = -1;

	if (optind != argc)
		return usage_error("usage: tslackctl status [--json]");
	attached = policy_attached(&e);
	if (attached < 0) {
		fail(&e);
		return EXIT_UNKNOWN;
	}
	if (attached) {
		/* Everyone may ask; only root may count. */
		fd = policy_obj_get("settings");
		if (fd >= 0) {
			n = settings_count(fd);
			if (n < 0 || bpf_map_get_info_by_fd(fd, &info, &len)) {
				fail_errno(TSLACK_MAP_PIN, n < 0 ? n : -errno);
				close(fd);
				return EXIT_RUNTIME;
			}
			close(fd);
		} else if (fd != -EACCES && fd != -EPERM) {
			return fail_errno(TSLACK_MAP_PIN, fd);
		}
		mode = policy_mode();
		/*
		 * Only the hook has flags: in per-task mode futex2 waits
		 * keep the slack the kernel gives them (README).
		 */
		if (mode == POLICY_HOOK)
			flags = policy_attached_flags();
		else if (mode == POLICY_PER_TASK)
			following = follower_state(&who);
	}
	if (o->json) {
		j = json_object_new_object();
		j = json_add(j, "attached", json_object_new_boolean(attached));
		j = json_add(j, "kernel_hook", json_object_new_boolean(hook));
		if (mode > 0)
			j = json_add(j, "mode", json_object_new_string(policy_mode_name(mode)));
		j = json_add(j, "pin_dir", json_object_new_string(TSLACK_PIN_DIR));
		j = json_add(j, "max_cache_age_ms", json_object_new_int(TSLACK_MAX_CACHE_AGE_MS));
		if (flags >= 0)
			j = json_add(j, "futex2_waits",
				     json_object_new_boolean(!!(flags & POLICY_FUTEX2)));
		if (n >= 0) {
			j = json_add(j, "settings", json_object_new_int64(n));
			j = json_add(j, "max_settings", json_object_new_int64(info.max_entries));
		}
		if (following >= 0)
			j = json_add(j, "follower_running", json_object_new_boolean(following));
		if (following > 0 && who.tgid)
			j = json_add(j, "follower_pid", json_object_new_int(who.tgid));
		if (following > 0 && who.caught_up_ns)
			j = json_add(j, "follower_caught_up_s_ago",
				     json_object_new_int64((int64_t)seconds_since(who.caught_up_ns)));
		if (show_json(j))
			return EXIT_RUNTIME;
	} else if (!attached) {
		printf("attached: no\n");
	} else {
		/* Per-task mode with nothing following: say it where it is seen first. */
		printf("attached: yes (%s)%s\n", TSLACK_PIN_DIR,
		       following ? "" : ", but nothing follows it: tslackctl follow is not running");
		if (mode > 0)
			printf("mode: %s\n", mode == POLICY_HOOK ? "hook" :
			       "per-task (no kernel hook; tslackctl follow writes each thread's slack)");
		if (flags >= 0)
			printf("futex2 waits: %s\n", flags & POLICY_FUTEX2 ? "yes" : "no");
		if (following > 0 && who.caught_up_ns)
			printf("follower: pid %u, last full pass %.0f s ago\n", who.tgid,
			       seconds_since(who.caught_up_ns));
		else if (following > 0)
			printf("follower: pid %u, first full pass not made yet\n", who.tgid);
		else if (!following)
			printf("follower: none: threads keep what it last wrote (systemctl status tslack-follow.service)\n");
		if (n >= 0)
			printf("cgroups with a setting: %ld of %u\n", n, info.max_entries);
	}
	return attached ? 0 : EXIT_NOT_ATTACHED;
}

/*
 * For the units' ExecCondition=: exit 0 if tslack can attach on this
 * kernel, through its hook or in per-task mode (status says which); with
 * --per-task, only in per-task mode (tslack-follow.service). Otherwise
 * the unit is skipped (exit 1 to 254) with this one line in the journal,
 * not failed. Anyone may ask: /sys/kernel/btf/vmlinux is world-readable.
 */
int cmd_supported(int argc, char **argv __always_unused, const struct opts *o)
{
	struct tslack_err e = {};
	int mode;

	if (optind != argc)
		return usage_error("usage: tslackctl supported [--per-task]");
	mode = policy_kernel_mode();
	if (mode < 0) {
		policy_unsupported(&e, 0, mode);
		return fail(&e);
	}
	if (o->per_task && mode == POLICY_HOOK) {
		say("this kernel has the hook: per-task mode is not needed");
		return EXIT_RUNTIME;
	}
	return 0;
}

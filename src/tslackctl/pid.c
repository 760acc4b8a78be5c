// SPDX-License-Identifier: GPL-2.0
/* tslackctl get --pid: each thread's own slack and what it sleeps with. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/format.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/policy.h"
#include "lib/settings.h"
#include "tslackctl.h"

/* Read a number from a /proc file; -1 on failure. */
static int read_proc_u64(const char *path, uint64_t *v)
{
	FILE *f;
	int ok;

	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Scheduling policy, field 41 of /proc/PID/task/TID/stat; -1 on failure. */
static int task_policy(const char *dir)
{
	char path[PATH_MAX], buf[4096], *p;
	int field, policy = -1;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces: count fields after its ')'. */
	p = strrchr(buf, ')');
	for (field = 2; p && field < 41; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%d", &policy);
	return policy;
}

/* The cgroup v2 path of the task whose /proc directory is @dir, as it shows it. */
static int task_cgroup(const char *dir, char *cg, size_t len)
{
	char path[PATH_MAX], line[PATH_MAX + 8];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = strlen(line + 3) < len;
		if (found)
			strcpy(cg, line + 3);
	}
	fclose(f);
	return found ? 0 : -1;
}

static const char *policy_name(int policy)
{
	static const char *const names[] = {
		"other", "fifo", "rr", "batch", "iso", "idle", "deadline", "ext",
	};

	return policy >= 0 && policy < (int)ARRAY_SIZE(names) ? names[policy] : "?";
}

struct thread_row {
	int tid, policy;
	uint64_t own, eff;
	char cg[PATH_MAX];
};

/*
 * One thread of a process: its slack, and what it sleeps with, which the
 * policy computes (@query_fd) if it is attached. Without a policy the
 * kernel uses the thread's own slack.
 */
static int read_thread(int query_fd, int pid, int tid, struct thread_row *t)
{
	struct tslack_query q = { .tid = tid };
	char dir[64], path[96];

	t->tid = tid;
	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", pid, tid);
	/* timerslack_ns is per process directory, and a tid has one. */
	snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", tid);
	if (task_cgroup(dir, t->cg, sizeof(t->cg)) || read_proc_u64(path, &t->own))
		return -1;
	t->policy = task_policy(dir);
	t->eff = t->own;
	if (query_fd < 0)
		return 0;
	if (settings_query(query_fd, &q))
		return -1;
	t->own = q.own;
	t->eff = q.effective;
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	return ((const struct thread_row *)a)->tid - ((const struct thread_row *)b)->tid;
}

static int print_threads_json(int pid, const struct thread_row *t, size_t n)
{
	struct json_object *threads = json_object_new_array(), *row;
	size_t i;

	for (i = 0; i < n; i++) {
		row = json_object_new_object();
		row = json_add(row, "tid", json_object_new_int(t[i].tid));
		row = json_add(row, "cgroup", json_name(t[i].cg));
		row = json_add(row, "policy", json_object_new_string(policy_name(t[i].policy)));
		row = json_add(row, "timerslack_ns", json_object_new_uint64(t[i].own));
		row = json_add(row, "effective_slack_ns", json_object_new_uint64(t[i].eff));
		threads = json_append(threads, row);
	}
	return show_json(json_add(json_add(json_object_new_object(), "pid",
					    json_object_new_int(pid)), "threads", threads));
}

static int print_threads(int pid, const struct thread_row *t, size_t n, bool json)
{
	char own[32], eff[32], name[ESCAPED_NAME_MAX];
	size_t i;

	if (json)
		return print_threads_json(pid, t, n);
	printf("%-8s %-8s %10s %10s  %s\n", "TID", "POLICY", "OWN", "EFFECTIVE", "CGROUP");
	for (i = 0; i < n; i++)
		printf("%-8d %-8s %10s %10s  %s\n", t[i].tid, policy_name(t[i].policy),
		       format_ns(own, sizeof(own), t[i].own),
		       format_ns(eff, sizeof(eff), t[i].eff), escape_name(name, sizeof(name), t[i].cg));
	return 0;
}

/*
 * Is /proc of our pid namespace? PID is a number in the caller's
 * namespace, and so is the thread the policy is asked about; a /proc of
 * another (a container given the host's, unshare --pid without
 * --mount-proc) would show another process under the same number.
 */
static bool proc_is_ours(void)
{
	char self[32];
	ssize_t n;

	n = readlink("/proc/self", self, sizeof(self) - 1);
	if (n < 0)
		return false;	/* not mounted, or we are not in its namespace */
	self[n] = '\0';
	return strtol(self, NULL, 10) == getpid();
}

int get_pid(const char *arg, bool json)
{
	struct thread_row *rows = NULL, *r;
	size_t n = 0, cap = 0;
	int query_fd = -1, attached, ret = 0;
	char dir[64], err[512];
	struct tslack_err e = {};
	struct dirent *de;
	uint64_t pid;
	DIR *d;

	if (parse_cgroup_id(arg, &pid, err, sizeof(err)) || pid > 1 << 30)
		return usage_error("'%s' is not a process id", arg);
	if (!proc_is_ours()) {
		say("/proc is not this pid namespace's (mount one, as unshare --mount-proc does): cannot find process %" PRIu64,
		    pid);
		return EXIT_RUNTIME;
	}
	snprintf(dir, sizeof(dir), "/proc/%" PRIu64 "/task", pid);
	d = opendir(dir);
	if (!d) {
		say("process %" PRIu64 ": %s", pid,
		    errno == ENOENT ? "no such process" : strerror(errno));
		return EXIT_RUNTIME;
	}
	attached = policy_attached(&e);
	if (attached > 0)
		query_fd = settings_query_fd(&e);
	if (attached < 0 || (attached > 0 && query_fd < 0)) {
		closedir(d);
		return fail(&e);
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap * 2 + 8;
			r = realloc(rows, cap * sizeof(*rows));
			if (!r) {
				ret = EXIT_RUNTIME;
				break;
			}
			rows = r;
		}
		/* A thread that exits meanwhile is left out. */
		if (!read_thread(query_fd, pid, atoi(de->d_name), &rows[n]))
			n++;
	}
	closedir(d);
	if (query_fd >= 0)
		close(query_fd);
	if (!ret && !n) {
		say("process %" PRIu64 ": cannot read its threads", pid);
		ret = EXIT_RUNTIME;
	}
	if (!ret) {
		qsort(rows, n, sizeof(*rows), cmp_tid);
		ret = print_threads(pid, rows, n, json) ? EXIT_RUNTIME : 0;
	}
	free(rows);
	return ret;
}


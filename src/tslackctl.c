// SPDX-License-Identifier: GPL-2.0
/*
 * tslackctl: attach the tslack timer slack policy and set the minimum
 * timer slack, or a cap on it, of cgroup v2 subtrees. See tslackctl(8).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgroup.h"
#include "compiler.h"
#include "format.h"
#include "json.h"
#include "parse.h"
#include "policy.h"
#include "settings.h"
#include "top.h"

#ifndef TSLACK_VERSION
#define TSLACK_VERSION "unknown"
#endif

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };
/* status answers like systemctl is-active (LSB): not running, unknown. */
enum { EXIT_NOT_ATTACHED = 3, EXIT_UNKNOWN = 4 };

static const char usage_text[] =
	"Usage: tslackctl [OPTION]... COMMAND [ARG]...\n"
	"Set the minimum timer slack of cgroup v2 subtrees with a BPF policy.\n"
	"\n"
	"Commands:\n"
	"  attach [--max-cgroups=N] [--no-align]\n"
	"                             load the policy and pin it in " TSLACK_PIN_DIR "\n"
	"  detach                     remove the policy and every setting\n"
	"  status [--json]            whether it is attached, how many settings\n"
	"  supported                  whether this kernel has the hook (exit 0),\n"
	"                             or not (exit 1, one line): for ExecCondition=\n"
	"  set [--max] CGROUP SLACK   set CGROUP's min_slack_ns (with --max, its\n"
	"                             max_slack_ns); 0 clears it\n"
	"  exempt CGROUP              max_slack_ns 1ns: its tasks keep their own slack\n"
	"  get [--json] CGROUP        print min, max and effective slack\n"
	"  get [--json] --pid PID     print each thread's own and effective slack\n"
	"  list [--json]              every cgroup with a setting\n"
	"  check [--json] [--fix]     find (and remove) settings of cgroups that do\n"
	"                             not exist\n"
	"  top [-b] [-n N] [-d DELAY] [--depth=N] [--sort=wakeups|path|slack] [--json]\n"
	"                             timed-sleep wakeups per second by cgroup, live\n"
	"  stats [--for=10s] [--slack=SLACK] [--json] CGROUP\n"
	"                             CGROUP's wakeups per second; with --slack, then\n"
	"                             as long again with that minimum, and restored\n"
	"\n"
	"Options:\n"
	"  -h, --help       print this help (also after a command) and exit\n"
	"  -V, --version    print the version and exit\n"
	"  -v, --verbose    print libbpf's debug messages\n"
	"\n"
	"CGROUP is a path below the cgroup2 mount (/sys/fs/cgroup/a), a cgroup\n"
	"path as list prints it (/a), a path relative to the current directory\n"
	"inside cgroup2 or else to its root (a), or --id=ID (the inode number of\n"
	"its directory). SLACK is a duration as systemd's TimerSlackNSec= takes\n"
	"it: nanoseconds, or with units (\"20ms\", \"1.5ms\", \"1min\", \"1s 500ms\"),\n"
	"at most 500ms.\n"
	"The slack imposed on a cgroup's tasks is the largest min_slack_ns of the\n"
	"cgroup and its ancestors, lowered to the smallest non-zero max_slack_ns\n"
	"among them; a task sleeps with the larger of that and its own slack,\n"
	"realtime and deadline tasks with none.\n"
	"\n"
	"Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error;\n"
	"status: 0 attached, 3 not attached, 4 cannot tell (like systemctl\n"
	"is-active); supported: 0 yes, 1 no.\n";

static bool verbose;

static __printf(1, 2) int usage_error(const char *fmt, ...);

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tslackctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'tslackctl --help'.\n", stderr);
	return EXIT_USAGE;
}

/* libbpf's warnings and errors, prefixed, on stderr; the rest with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_INFO && !verbose)
		return 0;
	fputs("tslackctl: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* What a command accepts, parsed by parse_options(). */
struct opts {
	bool json, max, batch, fix, no_align;
	const char *id, *pid, *max_cgroups, *iterations, *delay, *depth, *sort, *period, *slack;
};

enum {
	OPT_JSON = 'j', OPT_MAX = 'm', OPT_ID = 'i', OPT_PID = 'p', OPT_MAX_CGROUPS = 'c',
	OPT_BATCH = 'b', OPT_ITERATIONS = 'n', OPT_DELAY = 'd', OPT_DEPTH = 'D',
	OPT_SORT = 'S', OPT_FOR = 'F', OPT_SLACK = 's', OPT_FIX = 'x', OPT_NO_ALIGN = 'A',
};

static const struct option all_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "max", no_argument, NULL, OPT_MAX },
	{ "id", required_argument, NULL, OPT_ID },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "max-cgroups", required_argument, NULL, OPT_MAX_CGROUPS },
	{ "batch", no_argument, NULL, OPT_BATCH },
	{ "iterations", required_argument, NULL, OPT_ITERATIONS },
	{ "delay", required_argument, NULL, OPT_DELAY },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "for", required_argument, NULL, OPT_FOR },
	{ "slack", required_argument, NULL, OPT_SLACK },
	{ "fix", no_argument, NULL, OPT_FIX },
	{ "no-align", no_argument, NULL, OPT_NO_ALIGN },
	{ NULL, 0, NULL, 0 },
};

static const char *option_name(int val)
{
	const struct option *o;

	for (o = all_options; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* getopt_long() refused @arg, as the user typed it. */
static int bad_option(const char *arg)
{
	size_t n = strcspn(arg, "=");

	if (strncmp(arg, "--", 2))
		return usage_error("unknown option '-%c'", optopt);
	/* "--json=yes": a known option that takes no value. */
	if (arg[n] && optopt)
		return usage_error("option '%.*s' takes no value", (int)n, arg);
	return usage_error("unknown option '%.*s'", (int)n, arg);
}

/*
 * Parse the options of a command, which accepts those whose values are in
 * @allowed, and leave optind at its first operand. Options stop at the
 * first operand, so that "-5" is an operand. Returns -1 to go on, or an
 * exit status (0 after --help).
 */
static int parse_options(int argc, char **argv, const char *allowed, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* glibc: start afresh, reading the '+' again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hbn:d:", all_options, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == ':') {
			if (optopt == OPT_ID)
				return usage_error("--id needs a cgroup id");
			return usage_error("--%s needs a value", option_name(optopt));
		}
		if (c != '?' && !strchr(allowed, c))
			return usage_error("unknown option '--%s'", option_name(c));
		if (c == '?')
			return bad_option(argv[optind - 1]);
		switch (c) {
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_MAX:
			o->max = true;
			break;
		case OPT_ID:
			o->id = optarg;
			break;
		case OPT_PID:
			o->pid = optarg;
			break;
		case OPT_MAX_CGROUPS:
			o->max_cgroups = optarg;
			break;
		case OPT_NO_ALIGN:
			o->no_align = true;
			break;
		case OPT_BATCH:
			o->batch = true;
			break;
		case OPT_ITERATIONS:
			o->iterations = optarg;
			break;
		case OPT_DELAY:
			o->delay = optarg;
			break;
		case OPT_DEPTH:
			o->depth = optarg;
			break;
		case OPT_SORT:
			o->sort = optarg;
			break;
		case OPT_FOR:
			o->period = optarg;
			break;
		case OPT_SLACK:
			o->slack = optarg;
			break;
		case OPT_FIX:
			o->fix = true;
			break;
		}
	}
	return -1;
}

/*
 * The CGROUP of a command: --id=ID, or one path operand at argv[optind].
 * Usage errors only: the cgroup is found by find_cgroup(), after every
 * other argument is checked.
 */
static int check_cgroup_arg(int argc, char **argv, const struct opts *o, uint64_t *id)
{
	char err[512];

	if (o->id) {
		if (parse_cgroup_id(o->id, id, err, sizeof(err)))
			return usage_error("%s", err);
		return 0;
	}
	if (optind >= argc)
		return usage_error("missing CGROUP");
	optind++;
	(void)argv;
	return 0;
}

static int find_cgroup(const char *path, const struct opts *o, uint64_t id, struct cgroup *cg)
{
	char err[512];
	int ret;

	ret = o->id ? cgroup_by_id(id, cg, err, sizeof(err))
		    : cgroup_by_path(path, cg, err, sizeof(err));
	if (ret)
		fprintf(stderr, "tslackctl: %s\n", err);
	return ret ? EXIT_RUNTIME : 0;
}

/*
 * Pins and the map are files: a root without CAP_BPF and CAP_SYS_ADMIN
 * could still unlink or write them. Refuse what the kernel cannot.
 */
static bool may_change_policy(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	if (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)))
		return true;
	fprintf(stderr, "tslackctl: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)\n");
	return false;
}

static int cmd_attach(int argc, char **argv __always_unused, const struct opts *o)
{
	uint64_t max = TSLACK_DEFAULT_MAX_CGROUPS;
	char err[512];

	if (optind != argc)
		return usage_error("usage: tslackctl attach [--max-cgroups=N] [--no-align]");
	if (o->max_cgroups && parse_count(o->max_cgroups, 1 << 24, &max, err, sizeof(err)))
		return usage_error("--max-cgroups: %s", err);
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return policy_attach(max, !o->no_align) ? EXIT_RUNTIME : 0;
}

static int cmd_detach(int argc, char **argv __always_unused,
		      const struct opts *o __always_unused)
{

	if (optind != argc)
		return usage_error("usage: tslackctl detach");
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return policy_detach() ? EXIT_RUNTIME : 0;
}

static int cmd_status(int argc, char **argv __always_unused, const struct opts *o)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct json_object *j;
	int fd, attached;
	long n = -1;

	if (optind != argc)
		return usage_error("usage: tslackctl status [--json]");
	attached = policy_attached();
	if (attached < 0)
		return EXIT_UNKNOWN;
	if (attached) {
		/* Everyone may ask; only root may count. */
		fd = policy_obj_get("settings");
		if (fd >= 0) {
			n = settings_count(fd);
			if (n < 0 || bpf_map_get_info_by_fd(fd, &info, &len)) {
				policy_explain(TSLACK_MAP_PIN, n < 0 ? n : -errno);
				close(fd);
				return EXIT_RUNTIME;
			}
			close(fd);
		} else if (fd != -EACCES && fd != -EPERM) {
			policy_explain(TSLACK_MAP_PIN, fd);
			return EXIT_RUNTIME;
		}
	}
	if (o->json) {
		j = json_object_new_object();
		j = json_add(j, "attached", json_object_new_boolean(attached));
		j = json_add(j, "kernel_hook",
			     json_object_new_boolean(attached || policy_kernel_has_hook()));
		j = json_add(j, "pin_dir", json_object_new_string(TSLACK_PIN_DIR));
		j = json_add(j, "max_cache_age_ms", json_object_new_int(TSLACK_MAX_CACHE_AGE_MS));
		if (n >= 0) {
			j = json_add(j, "settings", json_object_new_int64(n));
			j = json_add(j, "max_settings", json_object_new_int64(info.max_entries));
		}
		if (json_print(j))
			return EXIT_RUNTIME;
	} else if (!attached && !policy_kernel_has_hook()) {
		printf("attached: no (this kernel has no timer_slack_ops)\n");
	} else if (!attached) {
		printf("attached: no\n");
	} else {
		printf("attached: yes (%s)\n", TSLACK_PIN_DIR);
		if (n >= 0)
			printf("cgroups with a setting: %ld of %u\n", n, info.max_entries);
	}
	return attached ? 0 : EXIT_NOT_ATTACHED;
}

/*
 * For the units' ExecCondition=: on a kernel without the hook they are
 * skipped (exit 1 to 254) with this one line in the journal, not failed.
 * Anyone may ask: /sys/kernel/btf/vmlinux is world-readable.
 */
static int cmd_supported(int argc, char **argv __always_unused,
			 const struct opts *o __always_unused)
{
	if (optind != argc)
		return usage_error("usage: tslackctl supported");
	if (policy_kernel_has_hook())
		return 0;
	policy_say_no_hook();
	return EXIT_RUNTIME;
}

static int set_field(int argc, char **argv, const struct opts *o, bool max, const char *slack)
{
	char err[512], buf[32];
	struct cgroup cg;
	uint64_t id = 0, ns;
	int ret, first;

	first = optind;
	ret = check_cgroup_arg(argc, argv, o, &id);
	if (ret)
		return ret;
	if (!slack) {
		if (optind >= argc)
			return usage_error("missing SLACK");
		slack = argv[optind++];
	}
	if (optind != argc)
		return usage_error("too many arguments");
	if (parse_duration_ns(slack, &ns, err, sizeof(err)))
		return usage_error("%s", err);
	if (ns > TSLACK_MAX_NS)
		return usage_error("'%s' is more than the %s a policy may impose", slack,
				   format_ns(buf, sizeof(buf), TSLACK_MAX_NS));
	ret = find_cgroup(argv[first], o, id, &cg);
	if (ret)
		return ret;
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return settings_apply(&cg, max, ns) ? EXIT_RUNTIME : 0;
}

static int cmd_set(int argc, char **argv, const struct opts *o)
{

	return set_field(argc, argv, o, o->max, NULL);
}

static int cmd_exempt(int argc, char **argv, const struct opts *o)
{

	return set_field(argc, argv, o, true, "1");
}

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
		row = json_add(row, "cgroup", json_object_new_string(t[i].cg));
		row = json_add(row, "policy", json_object_new_string(policy_name(t[i].policy)));
		row = json_add(row, "timerslack_ns", json_object_new_uint64(t[i].own));
		row = json_add(row, "effective_slack_ns", json_object_new_uint64(t[i].eff));
		threads = json_append(threads, row);
	}
	return json_print(json_add(json_add(json_object_new_object(), "pid",
					    json_object_new_int(pid)), "threads", threads));
}

static int print_threads(int pid, const struct thread_row *t, size_t n, bool json)
{
	char own[32], eff[32];
	size_t i;

	if (json)
		return print_threads_json(pid, t, n);
	printf("%-8s %-8s %10s %10s  %s\n", "TID", "POLICY", "OWN", "EFFECTIVE", "CGROUP");
	for (i = 0; i < n; i++)
		printf("%-8d %-8s %10s %10s  %s\n", t[i].tid, policy_name(t[i].policy),
		       format_ns(own, sizeof(own), t[i].own),
		       format_ns(eff, sizeof(eff), t[i].eff), t[i].cg);
	return 0;
}

static int get_pid(const char *arg, bool json)
{
	struct thread_row *rows = NULL, *r;
	size_t n = 0, cap = 0;
	int query_fd = -1, attached, ret = 0;
	char dir[64], err[512];
	struct dirent *de;
	uint64_t pid;
	DIR *d;

	if (parse_cgroup_id(arg, &pid, err, sizeof(err)) || pid > 1 << 30)
		return usage_error("'%s' is not a process id", arg);
	snprintf(dir, sizeof(dir), "/proc/%" PRIu64 "/task", pid);
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "tslackctl: process %" PRIu64 ": %s\n", pid,
			errno == ENOENT ? "no such process" : strerror(errno));
		return EXIT_RUNTIME;
	}
	attached = policy_attached();
	if (attached > 0)
		query_fd = settings_query_fd();
	if (attached < 0 || (attached > 0 && query_fd < 0)) {
		closedir(d);
		return EXIT_RUNTIME;
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
		fprintf(stderr, "tslackctl: process %" PRIu64 ": cannot read its threads\n", pid);
		ret = EXIT_RUNTIME;
	}
	if (!ret) {
		qsort(rows, n, sizeof(*rows), cmp_tid);
		ret = print_threads(pid, rows, n, json) ? EXIT_RUNTIME : 0;
	}
	free(rows);
	return ret;
}

/*
 * A cgroup and its setting, as get and list print it: @path NULL for
 * list's entry of a cgroup it could not find (null).
 */
static struct json_object *setting_json(const char *path, uint64_t id,
					const struct tslack_setting *val, uint64_t imposed)
{
	struct json_object *j = json_object_new_object();

	j = path ? json_add(j, "path", json_object_new_string(path)) : json_add_null(j, "path");
	j = json_add(j, "id", json_object_new_uint64(id));
	j = json_add(j, "min_slack_ns", json_object_new_uint64(val->min_slack_ns));
	j = json_add(j, "max_slack_ns", json_object_new_uint64(val->max_slack_ns));
	return json_add(j, "effective_slack_ns", json_object_new_uint64(imposed));
}

static int cmd_get(int argc, char **argv, const struct opts *o)
{
	struct tslack_setting val = {};
	struct tslack_query q = {};
	uint64_t id = 0;
	struct cgroup cg;
	int ret, fd, qfd, attached, first;

	if (o->pid) {
		if (o->id || optind != argc)
			return usage_error("usage: tslackctl get [--json] --pid PID");
		return get_pid(o->pid, o->json);
	}
	first = optind;
	ret = check_cgroup_arg(argc, argv, o, &id);
	if (ret)
		return ret;
	if (optind != argc)
		return usage_error("too many arguments");
	ret = find_cgroup(argv[first], o, id, &cg);
	if (ret)
		return ret;
	/* Not attached: no setting applies, and none is shown. */
	attached = policy_attached();
	if (attached < 0)
		return EXIT_RUNTIME;
	if (!attached && !policy_kernel_has_hook()) {
		policy_not_attached();
		return EXIT_RUNTIME;
	}
	if (attached) {
		fd = policy_map_fd();
		if (fd < 0)
			return EXIT_RUNTIME;
		settings_read(fd, cg.id, &val);
		close(fd);
		qfd = settings_query_fd();
		if (qfd < 0)
			return EXIT_RUNTIME;
		q.cgroup_id = cg.id;
		ret = settings_query(qfd, &q);
		close(qfd);
		if (ret) {
			policy_explain(cg.path, ret);
			return EXIT_RUNTIME;
		}
	}
	if (o->json) {
		if (json_print(setting_json(cg.path, cg.id, &val, q.imposed)))
			return EXIT_RUNTIME;
	} else {
		printf("min_slack_ns %llu\nmax_slack_ns %llu\neffective_slack_ns %llu\n",
		       val.min_slack_ns, val.max_slack_ns, q.imposed);
	}
	return 0;
}

/*
 * What list and check start with: no operand, the map (left open in
 * *@fd) and every setting in it. Returns -1 to go on, or an exit status.
 */
static int read_settings(int argc, const char *usage, int *fd, struct settings_entry **e,
			 long *n)
{
	if (optind != argc)
		return usage_error("%s", usage);
	*fd = policy_map_fd();
	if (*fd < 0)
		return EXIT_RUNTIME;
	*n = settings_list(*fd, e);
	if (*n < 0) {
		policy_explain("reading the settings", *n);
		close(*fd);
		return EXIT_RUNTIME;
	}
	return -1;
}

/* How list names an entry whose cgroup it could not find. */
static const char *unnamed(bool alive)
{
	return alive ? "(outside this cgroup namespace)" : "(none)";
}

static int cmd_list(int argc, char **argv __always_unused, const struct opts *o)
{
	struct settings_entry *e = NULL;
	char min[32], max[32], eff[32];
	struct json_object *all = NULL;
	struct tslack_query q;
	int fd = -1, qfd, ret;
	long n = 0, i;
	bool alive;

	ret = read_settings(argc, "usage: tslackctl list [--json]", &fd, &e, &n);
	if (ret >= 0)
		return ret;
	close(fd);
	qfd = settings_query_fd();
	if (qfd < 0) {
		settings_list_free(e, n);
		return EXIT_RUNTIME;
	}
	if (o->json)
		all = json_object_new_array();
	else
		printf("%-32s %10s %8s %8s %9s\n", "CGROUP", "ID", "MIN", "MAX", "EFFECTIVE");
	for (i = 0; i < n; i++) {
		q = (struct tslack_query){ .cgroup_id = e[i].id };
		/* -ENOENT: removed meanwhile, imposing nothing. */
		alive = !settings_query(qfd, &q);
		if (!alive)
			q.imposed = 0;
		if (o->json) {
			all = json_append(all, setting_json(alive ? e[i].path : NULL, e[i].id,
							    &e[i].val, q.imposed));
			continue;
		}
		printf("%-32s %10" PRIu64 " %8s %8s %9s\n",
		       e[i].path && alive ? e[i].path : unnamed(alive), e[i].id,
		       format_ns(min, sizeof(min), e[i].val.min_slack_ns),
		       e[i].val.max_slack_ns ? format_ns(max, sizeof(max), e[i].val.max_slack_ns) : "-",
		       format_ns(eff, sizeof(eff), q.imposed));
	}
	if (o->json)
		ret = json_print(all) ? EXIT_RUNTIME : 0;
	else
		ret = 0;
	settings_list_free(e, n);
	close(qfd);
	return ret;
}

/*
 * check's answer: the ids of the @stale first entries of @e, how many of
 * them were @removed, and how many settings there were (@n), named as
 * status names them.
 */
static int print_check_json(const struct settings_entry *e, long stale, long removed, long n)
{
	struct json_object *ids = json_object_new_array(), *j;
	long i;

	for (i = 0; i < stale; i++)
		ids = json_append(ids, json_object_new_uint64(e[i].id));
	j = json_add(json_object_new_object(), "stale", ids);
	j = json_add(j, "removed", json_object_new_int64(removed));
	return json_print(json_add(j, "settings", json_object_new_int64(n)));
}

static int cmd_check(int argc, char **argv __always_unused, const struct opts *o)
{
	struct settings_entry *e = NULL;
	long n = 0, i, stale = 0, removed = 0;
	int fd = -1, ret, lock = -1;

	ret = read_settings(argc, "usage: tslackctl check [--json] [--fix]", &fd, &e, &n);
	if (ret >= 0)
		return ret;
	/*
	 * Entries the walk did not name sort first; a cgroup outside this
	 * cgroup namespace is alive all the same: not stale.
	 */
	for (i = 0; i < n && !e[i].path; i++)
		if (!cgroup_alive(e[i].id))
			e[stale++].id = e[i].id;
	if (o->fix && stale) {
		if (!may_change_policy() || (lock = policy_lock()) < 0) {
			close(fd);
			settings_list_free(e, n);
			return EXIT_RUNTIME;
		}
		/* Removed cgroups stay removed: their ids are never reused. */
		for (i = 0; i < stale; i++)
			if (!settings_write(fd, e[i].id, &(struct tslack_setting){}))
				removed++;
		policy_unlock(lock);
	}
	close(fd);
	if (o->json) {
		ret = print_check_json(e, stale, removed, n);
		settings_list_free(e, n);
		return ret ? EXIT_RUNTIME : stale > removed ? EXIT_RUNTIME : 0;
	}
	for (i = 0; i < stale; i++)
		printf("id %" PRIu64 ": stale entry, no such cgroup%s\n", e[i].id,
		       o->fix ? ": removed" : "");
	if (stale && !o->fix)
		printf("%ld entries differ from the cgroup tree\n", stale);
	settings_list_free(e, n);
	return stale > removed ? EXIT_RUNTIME : 0;
}

static int cmd_top(int argc, char **argv __always_unused, const struct opts *o)
{
	static const char *const sorts[] = { "wakeups", "path", "slack" };
	struct top_config cfg = { .delay_ns = 1000000000, .depth = 3 };
	char err[512], secs[64];
	uint64_t v;
	unsigned int i;

	if (optind != argc)
		return usage_error("usage: tslackctl top [-b] [-n N] [-d DELAY] [--depth=N] "
				   "[--sort=KEY] [--json]");
	if (o->iterations) {
		if (parse_count(o->iterations, 1000000, &v, err, sizeof(err)))
			return usage_error("--iterations: %s", err);
		cfg.iterations = v;
	}
	if (o->delay) {
		/* Like top and systemd-cgtop: a bare number is seconds. */
		snprintf(secs, sizeof(secs), "%s%s", o->delay,
			 o->delay[strspn(o->delay, "0123456789.")] ? "" : "s");
		if (parse_duration_ns(secs, &cfg.delay_ns, err, sizeof(err)))
			return usage_error("--delay: %s", err);
		if (cfg.delay_ns < 100000000 || cfg.delay_ns > 3600000000000ULL)
			return usage_error("--delay: '%s' is not from 100ms to 1h", o->delay);
	}
	if (o->depth) {
		/* 0 folds everything into the root. */
		if (!strcmp(o->depth, "0"))
			cfg.depth = 0;
		else if (parse_count(o->depth, 64, &v, err, sizeof(err)))
			return usage_error("--depth: '%s' is not a number from 0 to 64", o->depth);
		else
			cfg.depth = v;
	}
	for (i = 0; o->sort && i < ARRAY_SIZE(sorts) && strcmp(o->sort, sorts[i]); i++)
		;
	if (o->sort && i == ARRAY_SIZE(sorts))
		return usage_error("--sort: '%s' is not wakeups, path or slack", o->sort);
	cfg.sort = o->sort ? (enum top_sort)i : TOP_SORT_WAKEUPS;
	cfg.batch = o->batch || o->json;
	cfg.json = o->json;
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return top_run(&cfg) ? EXIT_RUNTIME : 0;
}

static int cmd_stats(int argc, char **argv, const struct opts *o)
{
	uint64_t id = 0, ns = 10000000000ULL, slack;
	char err[512], buf[32];
	struct cgroup cg;
	int ret, first;

	first = optind;
	ret = check_cgroup_arg(argc, argv, o, &id);
	if (ret)
		return ret;
	if (optind != argc)
		return usage_error("too many arguments");
	if (o->period) {
		if (parse_duration_ns(o->period, &ns, err, sizeof(err)))
			return usage_error("--for: %s", err);
		if (ns < 100000000 || ns > 3600000000000ULL)
			return usage_error("--for: '%s' is not from 100ms to 1h", o->period);
	}
	if (o->slack) {
		if (parse_duration_ns(o->slack, &slack, err, sizeof(err)))
			return usage_error("--slack: %s", err);
		if (slack > TSLACK_MAX_NS)
			return usage_error("'%s' is more than the %s a policy may impose", o->slack,
					   format_ns(buf, sizeof(buf), TSLACK_MAX_NS));
	}
	ret = find_cgroup(argv[first], o, id, &cg);
	if (ret)
		return ret;
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return stats_run(&cg, ns, o->slack ? &slack : NULL, o->json) ? EXIT_RUNTIME : 0;
}

/* Each command, and the options it takes (their values in struct opts). */
static const struct {
	const char *name;
	const char *options;
	int (*fn)(int argc, char **argv, const struct opts *o);
} commands[] = {
	{ "attach", "cA", cmd_attach },	{ "detach", "", cmd_detach },
	{ "status", "j", cmd_status },	{ "set", "mi", cmd_set },
	{ "exempt", "i", cmd_exempt },	{ "get", "jip", cmd_get },
	{ "list", "j", cmd_list },	{ "check", "jx", cmd_check },
	{ "top", "jbndDS", cmd_top },	{ "stats", "jiFs", cmd_stats },
	{ "supported", "", cmd_supported },
};

/*
 * Output that could not be written (a full disk) is a failure; a reader
 * that went away (EPIPE) is not, as in util-linux's close_stdout().
 */
static void close_stdout(void)
{
	errno = 0;
	if (!fflush(stdout) && !ferror(stdout) && !fclose(stdout))
		return;
	if (errno == EPIPE)
		return;
	fprintf(stderr, "tslackctl: write error: %s\n", errno ? strerror(errno) : "I/O error");
	_exit(EXIT_RUNTIME);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int i;
	struct opts o;
	int c, ret;

	atexit(close_stdout);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hVv", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("tslackctl %s\n", TSLACK_VERSION);
			return 0;
		case 'v':
			verbose = true;
			break;
		default:
			return bad_option(argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("missing COMMAND");
	if (!strcmp(argv[optind], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		argc -= optind;
		argv += optind;
		ret = parse_options(argc, argv, commands[i].options, &o);
		if (ret >= 0)
			return ret;
		/*
		 * With --json, from here on an error is also a JSON object on
		 * stdout; a mistake in the options is not: --json may not
		 * have been read.
		 */
		if (o.json && json_errors_start())
			return EXIT_RUNTIME;
		ret = commands[i].fn(argc, argv, &o);
		if (o.json && ret)
			json_print_error();
		return ret;
	}
	return usage_error("unknown command '%s'", argv[optind]);
}

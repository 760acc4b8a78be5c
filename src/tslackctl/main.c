// SPDX-License-Identifier: GPL-2.0
/*
 * tslackctl: attach the tslack timer slack policy and set the minimum
 * timer slack, or a cap on it, of cgroup v2 subtrees. See tslackctl(8).
 *
 * This file: the command table, from which --help is made, the options,
 * and how messages are printed; one file per group of commands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

#include "lib/format.h"
#include "lib/json.h"
#include "lib/policy.h"
#include "tslackctl.h"

#ifndef TSLACK_VERSION
#define TSLACK_VERSION "unknown"
#endif

/*
 * Each command: the options it takes (their values in struct opts), its
 * lines of --help, in the order --help shows them, and its handler.
 */
static const struct command {
	const char *name;
	const char *options;
	const char *usage;
	cmd_fn *handler;
} commands[] = {
	{ "attach", "cf",
	  "  attach [--max-cgroups=N] [--no-futex2]\n"
	  "                             load the policy and pin it in " TSLACK_PIN_DIR ";\n"
	  "                             futex_waitv (Wine, Proton) takes its slack too\n",
	  cmd_attach },
	{ "detach", "",
	  "  detach                     remove the policy and every setting\n",
	  cmd_detach },
	{ "status", "j",
	  "  status [--json]            whether it is attached, how many settings\n",
	  cmd_status },
	{ "supported", "T",
	  "  supported [--per-task]     whether tslack can attach here (exit 0),\n"
	  "                             through the kernel's hook or per task; with\n"
	  "                             --per-task, only per task: for ExecCondition=\n",
	  cmd_supported },
	{ "follow", "",
	  "  follow                     per-task mode (no kernel hook): write each\n"
	  "                             thread's slack as the policy says, and follow\n"
	  "                             forks and moves, until detached or stopped\n",
	  cmd_follow },
	{ "set", "miu",
	  "  set [--max] CGROUP SLACK   set CGROUP's min_slack_ns (with --max, its\n"
	  "                             max_slack_ns); 0 clears it\n",
	  cmd_set },
	{ "exempt", "iu",
	  "  exempt CGROUP              max_slack_ns 1ns: its tasks keep their own slack\n",
	  cmd_exempt },
	{ "get", "jipu",
	  "  get [--json] CGROUP        print min, max and effective slack\n"
	  "  get [--json] --pid PID     print each thread's own and effective slack\n",
	  cmd_get },
	{ "list", "j",
	  "  list [--json]              every cgroup with a setting\n",
	  cmd_list },
	{ "check", "jx",
	  "  check [--json] [--fix]     find (and remove) settings of cgroups that do\n"
	  "                             not exist\n",
	  cmd_check },
	{ "top", "jbndDS",
	  "  top [-b] [-n N] [-d DELAY] [--depth=N] [--sort=wakeups|path|slack] [--json]\n"
	  "                             timed-sleep wakeups per second by cgroup, live\n",
	  cmd_top },
	{ "stats", "jiFsu",
	  "  stats [--for=10s] [--slack=SLACK] [--json] CGROUP\n"
	  "                             CGROUP's wakeups per second; with --slack, then\n"
	  "                             as long again with that minimum, and restored\n",
	  cmd_stats },
};

static const char usage_head[] =
	"Usage: tslackctl [OPTION]... COMMAND [ARG]...\n"
	"Set the minimum timer slack of cgroup v2 subtrees with a BPF policy.\n"
	"\n"
	"Commands:\n";

static const char usage_tail[] =
	"\n"
	"Options:\n"
	"  -h, --help       print this help (also after a command) and exit\n"
	"  -V, --version    print the version and exit\n"
	"  -v, --verbose    print libbpf's debug messages\n"
	"\n"
	"CGROUP is a path below the cgroup2 mount (/sys/fs/cgroup/a), a cgroup\n"
	"path as list prints it (/a), a path relative to the current directory\n"
	"inside cgroup2 or else to its root (a), --id=ID (the inode number of\n"
	"its directory), or --unit=NAME (a systemd unit or slice, by its cgroup).\n"
	"SLACK is a duration as systemd's TimerSlackNSec= takes it: nanoseconds,\n"
	"or with units (\"20ms\", \"1.5ms\", \"1min\", \"1s 500ms\"), at most 500ms.\n"
	"The slack imposed on a cgroup's tasks is the largest min_slack_ns of the\n"
	"cgroup and its ancestors, lowered to the smallest non-zero max_slack_ns\n"
	"among them; a task sleeps with the larger of that and its own slack,\n"
	"realtime and deadline tasks with none.\n"
	"\n"
	"Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error;\n"
	"status: 0 attached, 3 not attached, 4 cannot tell (like systemctl\n"
	"is-active); supported: 0 yes, 1 no.\n";

static int usage(void)
{
	unsigned int i;

	fputs(usage_head, stdout);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fputs(commands[i].usage, stdout);
	fputs(usage_tail, stdout);
	return 0;
}

bool may_change_policy(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	if (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)))
		return true;
	say("permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)");
	return false;
}

enum {
	OPT_JSON = 'j', OPT_MAX = 'm', OPT_ID = 'i', OPT_UNIT = 'u', OPT_PID = 'p', OPT_MAX_CGROUPS = 'c',
	OPT_BATCH = 'b', OPT_ITERATIONS = 'n', OPT_DELAY = 'd', OPT_DEPTH = 'D',
	OPT_SORT = 'S', OPT_FOR = 'F', OPT_SLACK = 's', OPT_FIX = 'x',
	OPT_NO_FUTEX2 = 'f', OPT_PER_TASK = 'T',
};

static const struct option all_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "max", no_argument, NULL, OPT_MAX },
	{ "id", required_argument, NULL, OPT_ID },
	{ "unit", required_argument, NULL, OPT_UNIT },
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
	{ "no-futex2", no_argument, NULL, OPT_NO_FUTEX2 },
	{ "per-task", no_argument, NULL, OPT_PER_TASK },
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
		if (c == 'h')
			return usage();
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
		case OPT_UNIT:
			o->unit = optarg;
			break;
		case OPT_PID:
			o->pid = optarg;
			break;
		case OPT_MAX_CGROUPS:
			o->max_cgroups = optarg;
			break;
		case OPT_NO_FUTEX2:
			o->no_futex2 = true;
			break;
		case OPT_PER_TASK:
			o->per_task = true;
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
	say("write error: %s", errno ? strerror(errno) : "I/O error");
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
			return usage();
		case 'V':
			printf("tslackctl %s\n", TSLACK_VERSION);
			return 0;
		case 'v':
			say_verbose();
			break;
		default:
			return bad_option(argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("missing COMMAND");
	if (!strcmp(argv[optind], "help"))
		return usage();
	say_setup();
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
		ret = commands[i].handler(argc, argv, &o);
		if (o.json && ret)
			say_json_error();
		return ret;
	}
	return usage_error("unknown command '%s'", argv[optind]);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tslackctl's commands share: their options, how they say what went
 * wrong, and how they find their CGROUP. main.c dispatches through its
 * command table to the handlers below, one file per group of commands.
 */
#ifndef TSLACKCTL_H
#define TSLACKCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "lib/cgroup.h"
#include "lib/compiler.h"
#include "lib/err.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };
/* status answers like systemctl is-active (LSB): not running, unknown. */
enum { EXIT_NOT_ATTACHED = 3, EXIT_UNKNOWN = 4 };

/* What a command accepts, parsed by main.c. */
struct opts {
	bool json, max, batch, fix, no_futex2, per_task;
	const char *id, *unit, *pid, *max_cgroups, *iterations, *delay, *depth, *sort, *period, *slack;
};

/*
 * Print "tslackctl: MESSAGE" on stderr. With --json, the first message
 * is also the error object printed when the command fails.
 */
void say(const char *fmt, ...) __printf(1, 2);

/* Messages from libbpf and the library through say(); libbpf's debug ones too. */
void say_setup(void);
void say_verbose(void);

/* Print {"error": MESSAGE} on stdout if something was said (--json). */
void say_json_error(void);

/* say() what @e holds (if anything); returns EXIT_RUNTIME. */
int fail(const struct tslack_err *e);

/* say() "@what: " and what @err (an errno) means; returns EXIT_RUNTIME. */
int fail_errno(const char *what, int err);

/* say() @fmt and "Try 'tslackctl --help'."; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __printf(1, 2);

/* json_print() @o, or say that it could not be built: 0 or -1. */
int show_json(struct json_object *o);

/*
 * Pins and the map are files: a root without CAP_BPF and CAP_SYS_ADMIN
 * could still unlink or write them. Refuse what the kernel cannot.
 */
bool may_change_policy(void);

/*
 * The CGROUP of a command: --id=ID (into *@id), --unit=NAME, or one path
 * operand at argv[optind], which it passes; with @last, nothing may
 * follow. Usage errors only: an exit status, or 0.
 */
int check_cgroup_arg(int argc, const struct opts *o, uint64_t *id, bool last);

/*
 * A SLACK (of option @opt, NULL for an operand) into *@ns: a duration no
 * more than the kernel's cap. 0, or the exit status of a usage error.
 */
int check_slack(const char *arg, const char *opt, uint64_t *ns);

/*
 * The cgroup of systemd unit @unit, as systemd has it (unit.c), into
 * @path of @len bytes: 0, or an exit status after saying why.
 */
int unit_cgroup(const char *unit, char *path, size_t len);

/*
 * Find the CGROUP check_cgroup_arg() checked; with @change, refuse a
 * caller who may not change its setting. 0 or an exit status.
 */
int find_cgroup(const char *path, const struct opts *o, uint64_t id, bool change,
		struct cgroup *cg);

/* The commands: argv[0] is the command, optind at its first operand. */
typedef int cmd_fn(int argc, char **argv, const struct opts *o);

cmd_fn cmd_attach, cmd_detach, cmd_status, cmd_supported;	/* policy.c */
cmd_fn cmd_follow;						/* follow.c */
cmd_fn cmd_set, cmd_exempt, cmd_get, cmd_list, cmd_check;	/* settings.c */
cmd_fn cmd_top;							/* top.c */
cmd_fn cmd_stats;						/* stats.c */

/* get --pid (pid.c): each thread of @arg, a process id. */
int get_pid(const char *arg, bool json);

#endif

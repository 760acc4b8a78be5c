// SPDX-License-Identifier: GPL-2.0
/* tslackctl set, exempt, get, list and check: the settings map. */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/format.h"
#include "lib/json.h"
#include "lib/parse.h"
#include "lib/policy.h"
#include "lib/settings.h"
#include "tslackctl.h"

/* The cgroup is found by find_cgroup(), after every other argument is checked. */
int check_cgroup_arg(int argc, const struct opts *o, uint64_t *id, bool last)
{
	char err[512];

	if (o->id && o->unit)
		return usage_error("--id and --unit both name the cgroup: give one");
	if (o->id) {
		if (parse_cgroup_id(o->id, id, err, sizeof(err)))
			return usage_error("%s", err);
	} else if (o->unit) {
		if (!*o->unit)
			return usage_error("--unit needs a unit name");
	} else if (optind++ >= argc) {
		return usage_error("missing CGROUP");
	}
	if (last && optind != argc)
		return usage_error("too many arguments");
	return 0;
}

int find_cgroup(const char *path, const struct opts *o, uint64_t id, bool change,
		struct cgroup *cg)
{
	char err[512], unit[PATH_MAX];
	int ret;

	if (o->unit) {
		ret = unit_cgroup(o->unit, unit, sizeof(unit));
		if (ret)
			return ret;
		path = unit;
	}
	ret = o->id ? cgroup_by_id(id, cg, err, sizeof(err))
		    : cgroup_by_path(path, cg, err, sizeof(err));
	if (ret)
		say("%s", err);
	else if (change && !may_change_policy())
		ret = -1;
	return ret ? EXIT_RUNTIME : 0;
}

int check_slack(const char *arg, const char *opt, uint64_t *ns)
{
	char err[512], buf[32];

	if (parse_duration_ns(arg, ns, err, sizeof(err)))
		return opt ? usage_error("%s: %s", opt, err) : usage_error("%s", err);
	if (*ns > TSLACK_MAX_NS)
		return usage_error("'%s' is more than the %s a policy may impose", arg,
				   format_ns(buf, sizeof(buf), TSLACK_MAX_NS));
	return 0;
}

static int set_field(int argc, char **argv, const struct opts *o, bool max, const char *slack)
{
	struct tslack_err e = {};
	struct cgroup cg;
	uint64_t id = 0, ns;
	int ret, first;

	first = optind;
	ret = check_cgroup_arg(argc, o, &id, false);
	if (ret)
		return ret;
	if (!slack) {
		if (optind >= argc)
			return usage_error("missing SLACK");
		slack = argv[optind++];
	}
	if (optind != argc)
		return usage_error("too many arguments");
	ret = check_slack(slack, NULL, &ns);
	if (ret)
		return ret;
	ret = find_cgroup(argv[first], o, id, true, &cg);
	if (ret)
		return ret;
	return settings_apply(&cg, max, ns, &e) ? fail(&e) : 0;
}

int cmd_set(int argc, char **argv, const struct opts *o)
{

	return set_field(argc, argv, o, o->max, NULL);
}

int cmd_exempt(int argc, char **argv, const struct opts *o)
{

	return set_field(argc, argv, o, true, "1");
}

/*
 * A cgroup and its setting, as get and list print it: @path NULL for
 * list's entry of a cgroup it could not find (null).
 */
static struct json_object *setting_json(const char *path, uint64_t id,
					const struct tslack_setting *val, uint64_t imposed)
{
	struct json_object *j = json_object_new_object();

	j = path ? json_add(j, "path", json_name(path)) : json_add_null(j, "path");
	j = json_add(j, "id", json_object_new_uint64(id));
	j = json_add(j, "min_slack_ns", json_object_new_uint64(val->min_slack_ns));
	j = json_add(j, "max_slack_ns", json_object_new_uint64(val->max_slack_ns));
	return json_add(j, "effective_slack_ns", json_object_new_uint64(imposed));
}

int cmd_get(int argc, char **argv, const struct opts *o)
{
	struct tslack_setting val = {};
	struct tslack_query q = {};
	char name[ESCAPED_NAME_MAX];
	struct tslack_err e = {};
	uint64_t id = 0;
	struct cgroup cg;
	int ret, fd, qfd, attached, first;

	if (o->pid) {
		if (o->id || optind != argc)
			return usage_error("usage: tslackctl get [--json] --pid PID");
		return get_pid(o->pid, o->json);
	}
	first = optind;
	ret = check_cgroup_arg(argc, o, &id, true);
	if (ret)
		return ret;
	ret = find_cgroup(argv[first], o, id, false, &cg);
	if (ret)
		return ret;
	/* Not attached: no setting applies, and none is shown. */
	attached = policy_attached(&e);
	if (attached < 0)
		return fail(&e);
	if (attached) {
		fd = policy_map_fd(&e);
		if (fd < 0)
			return fail(&e);
		settings_read(fd, cg.id, &val);
		close(fd);
		qfd = settings_query_fd(&e);
		if (qfd < 0)
			return fail(&e);
		q.cgroup_id = cg.id;
		ret = settings_query(qfd, &q);
		close(qfd);
		if (ret)
			return fail_errno(escape_name(name, sizeof(name), cg.path), ret);
	}
	if (o->json) {
		if (show_json(setting_json(cg.path, cg.id, &val, q.imposed)))
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
	struct tslack_err err = {};

	if (optind != argc)
		return usage_error("%s", usage);
	*fd = policy_map_fd(&err);
	if (*fd < 0)
		return fail(&err);
	*n = settings_list(*fd, e);
	if (*n < 0) {
		close(*fd);
		return fail_errno("reading the settings", *n);
	}
	return -1;
}

/* How list names an entry whose cgroup it could not find. */
static const char *unnamed(bool alive)
{
	return alive ? "(outside this cgroup namespace)" : "(none)";
}

int cmd_list(int argc, char **argv __always_unused, const struct opts *o)
{
	char min[32], max[32], eff[32], name[ESCAPED_NAME_MAX];
	struct settings_entry *e = NULL;
	struct json_object *all = NULL;
	struct tslack_err err = {};
	struct tslack_query q;
	int fd = -1, qfd, ret;
	long n = 0, i;
	bool alive;

	ret = read_settings(argc, "usage: tslackctl list [--json]", &fd, &e, &n);
	if (ret >= 0)
		return ret;
	close(fd);
	qfd = settings_query_fd(&err);
	if (qfd < 0) {
		settings_list_free(e, n);
		return fail(&err);
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
		       e[i].path && alive ? escape_name(name, sizeof(name), e[i].path) :
		       unnamed(alive), e[i].id,
		       format_ns(min, sizeof(min), e[i].val.min_slack_ns),
		       e[i].val.max_slack_ns ? format_ns(max, sizeof(max), e[i].val.max_slack_ns) : "-",
		       format_ns(eff, sizeof(eff), q.imposed));
	}
	if (o->json)
		ret = show_json(all) ? EXIT_RUNTIME : 0;
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
	return show_json(json_add(j, "settings", json_object_new_int64(n)));
}

int cmd_check(int argc, char **argv __always_unused, const struct opts *o)
{
	struct settings_entry *e = NULL;
	long n = 0, i, stale = 0, removed = 0, unsure = 0;
	int fd = -1, ret, lock = -1, alive;
	struct tslack_err err = {};

	ret = read_settings(argc, "usage: tslackctl check [--json] [--fix]", &fd, &e, &n);
	if (ret >= 0)
		return ret;
	/*
	 * Entries the walk did not name sort first; a cgroup outside this
	 * cgroup namespace is alive all the same: not stale. Only the kernel's
	 * "no such cgroup" makes one stale: EPERM or EMFILE say nothing of the
	 * cgroup, and --fix must not delete a live cgroup's setting.
	 */
	for (i = 0; i < n && !e[i].path; i++) {
		alive = cgroup_alive(e[i].id);
		if (!alive) {
			e[stale++].id = e[i].id;
		} else if (alive < 0) {
			say("id %" PRIu64 ": cannot tell whether its cgroup exists: %s", e[i].id,
			    strerror(-alive));
			unsure++;
		}
	}
	if (o->fix && stale) {
		if (!may_change_policy() || (lock = policy_lock(&err)) < 0) {
			close(fd);
			settings_list_free(e, n);
			return fail(&err);
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
		return ret || unsure || stale > removed ? EXIT_RUNTIME : 0;
	}
	for (i = 0; i < stale; i++)
		printf("id %" PRIu64 ": stale entry, no such cgroup%s\n", e[i].id,
		       o->fix ? ": removed" : "");
	if (stale && !o->fix)
		printf("%ld entries differ from the cgroup tree\n", stale);
	settings_list_free(e, n);
	return unsure || stale > removed ? EXIT_RUNTIME : 0;
}


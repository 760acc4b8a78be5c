// SPDX-License-Identifier: GPL-2.0
/*
 * tslackctl: attach the tslack timer slack policy and set the minimum
 * timer slack of cgroup v2 subtrees. See tslackctl(8).
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include "parse.h"
#include "policy.h"
#include "settings.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };
/* status answers like systemctl is-active (LSB): not running, unknown. */
enum { EXIT_NOT_ATTACHED = 3, EXIT_UNKNOWN = 4 };

static const char usage_text[] =
	"Usage: tslackctl COMMAND [ARG]...\n"
	"Set the minimum timer slack of cgroup v2 subtrees with a BPF policy.\n"
	"\n"
	"Commands:\n"
	"  attach [--max-cgroups N]  load the policy and pin it in " TSLACK_PIN_DIR "\n"
	"  detach                    remove the policy and every setting\n"
	"  status                    say whether it is attached, how many cgroups\n"
	"                            have a setting\n"
	"  set CGROUP SLACK          set CGROUP's min_slack_ns; 0 clears it\n"
	"  get [--json] CGROUP       print min_slack_ns and effective_slack_ns\n"
	"  get --pid PID             print a task's own and effective slack\n"
	"  list                      every cgroup with a setting\n"
	"  check                     verify the map against the cgroup tree\n"
	"\n"
	"CGROUP is a path below the cgroup2 mount (/sys/fs/cgroup/a), a cgroup\n"
	"path as list prints it (/a), a path relative to the current directory\n"
	"inside cgroup2 or else to its root (a), or --id ID (the inode number of\n"
	"its directory). SLACK is a whole number of nanoseconds, or one with a\n"
	"unit: ns, us, ms or s (\"20ms\").\n"
	"A cgroup's effective slack is the largest min_slack_ns of itself and its\n"
	"ancestors; a task sleeps with the larger of its own slack and its\n"
	"cgroup's effective slack, realtime and deadline tasks with none.\n"
	"\n"
	"Exit status: 0 on success, 1 on a runtime failure, 2 on a usage error;\n"
	"status: 0 attached, 3 not attached, 4 cannot tell (like systemctl\n"
	"is-active).\n";

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

/* libbpf prints only warnings and errors, prefixed, on stderr. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || level == LIBBPF_INFO)
		return 0;
	fputs("tslackctl: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/*
 * Resolve "PATH" or "--id ID" at argv[*i] to a cgroup. Returns 0, or an
 * exit status after printing why.
 */
static int resolve_cgroup(int argc, char **argv, int *i, struct cgroup *cg)
{
	char err[512];
	uint64_t id;

	if (*i >= argc)
		return usage_error("missing CGROUP");
	if (!strcmp(argv[*i], "--id")) {
		if (*i + 1 >= argc)
			return usage_error("--id needs a cgroup id");
		if (parse_cgroup_id(argv[*i + 1], &id, err, sizeof(err)))
			return usage_error("%s", err);
		*i += 2;
		if (cgroup_by_id(id, cg, err, sizeof(err)))
			goto fail;
		return 0;
	}
	if (argv[*i][0] == '-' && argv[*i][1])
		return usage_error("unknown option '%s'", argv[*i]);
	if (cgroup_by_path(argv[(*i)++], cg, err, sizeof(err)))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "tslackctl: %s\n", err);
	return EXIT_RUNTIME;
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

static int cmd_attach(int argc, char **argv)
{
	uint64_t max = TSLACK_DEFAULT_MAX_CGROUPS;
	char err[512];

	if (argc == 3 && !strcmp(argv[1], "--max-cgroups")) {
		if (parse_count(argv[2], 1 << 24, &max, err, sizeof(err)))
			return usage_error("--max-cgroups: %s", err);
	} else if (argc != 1) {
		return usage_error("usage: tslackctl attach [--max-cgroups N]");
	}
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return policy_attach(max) ? EXIT_RUNTIME : 0;
}

static int cmd_detach(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return usage_error("usage: tslackctl detach");
	if (!may_change_policy())
		return EXIT_RUNTIME;
	return policy_detach() ? EXIT_RUNTIME : 0;
}

static int cmd_status(int argc, char **argv)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd, attached;
	long n;

	(void)argv;
	if (argc != 1)
		return usage_error("usage: tslackctl status");
	attached = policy_attached();
	if (attached < 0)
		return EXIT_UNKNOWN;
	if (!attached) {
		printf("attached: no\n");
		return EXIT_NOT_ATTACHED;
	}
	printf("attached: yes (%s)\n", TSLACK_PIN_DIR);
	/* Everyone may ask; only root may count. */
	fd = bpf_obj_get(TSLACK_MAP_PIN);
	if (fd < 0 && (fd == -EACCES || fd == -EPERM))
		return 0;
	n = fd < 0 ? -1 : settings_count(fd);
	if (n < 0 || bpf_map_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "tslackctl: reading %s: %s\n", TSLACK_MAP_PIN,
			strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		return EXIT_RUNTIME;
	}
	printf("cgroups with a setting: %ld of %u\n", n, info.max_entries);
	close(fd);
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct cgroup cg;
	char err[512];
	uint64_t ns;
	int i = 1, ret, fd;

	/* Usage errors first: CGROUP is one argument, or two with --id. */
	if (argc > 1 && !strcmp(argv[1], "--id")) {
		if (argc == 2)
			return usage_error("--id needs a cgroup id");
		i = 2;
	}
	if (i + 1 >= argc)
		return usage_error(i >= argc ? "missing CGROUP" : "missing SLACK");
	if (i + 2 != argc)
		return usage_error("too many arguments");
	if (parse_duration_ns(argv[i + 1], &ns, err, sizeof(err)))
		return usage_error("%s", err);
	i = 1;
	ret = resolve_cgroup(argc - 1, argv, &i, &cg);
	if (ret)
		return ret;
	if (!may_change_policy())
		return EXIT_RUNTIME;
	fd = policy_map_fd();
	if (fd < 0)
		return EXIT_RUNTIME;
	ret = settings_set(fd, &cg, ns) ? EXIT_RUNTIME : 0;
	close(fd);
	return ret;
}

static void print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The cgroup's entry; zeros when the policy is not attached. */
static int read_setting(const struct cgroup *cg, struct tslack_cgroup *val)
{
	int fd, attached = policy_attached();

	memset(val, 0, sizeof(*val));
	if (attached <= 0)
		return attached;
	fd = policy_map_fd();
	if (fd < 0)
		return -1;
	policy_lookup(fd, cg->id, val);
	close(fd);
	return 0;
}

/* Read a number from a /proc file; -1 on failure. */
static int read_proc_u64(int pid, const char *file, uint64_t *v)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", (unsigned long long *)v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Scheduling policy, field 41 of /proc/PID/stat; -1 on failure. */
static int task_policy(int pid)
{
	char path[64], buf[4096], *p;
	int field, policy = -1;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
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

static int get_pid(const char *arg)
{
	char path[64], line[PATH_MAX + 8], err[512];
	struct tslack_cgroup val;
	struct cgroup cg;
	uint64_t own, pid, eff;
	int policy;
	FILE *f;

	if (parse_cgroup_id(arg, &pid, err, sizeof(err)) || pid > 1 << 30)
		return usage_error("'%s' is not a process id", arg);
	snprintf(path, sizeof(path), "/proc/%llu/cgroup", (unsigned long long)pid);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "tslackctl: process %llu: %s\n", (unsigned long long)pid,
			errno == ENOENT ? "no such process" : strerror(errno));
		return EXIT_RUNTIME;
	}
	cg.path[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			if (snprintf(cg.path, sizeof(cg.path), "%s", line + 3) >=
			    (int)sizeof(cg.path))
				cg.path[0] = '\0';
		}
	fclose(f);
	if (!cg.path[0] || cgroup_by_path(cg.path[1] ? cg.path + 1 : ".", &cg, err, sizeof(err))) {
		fprintf(stderr, "tslackctl: process %llu: cannot find its cgroup\n",
			(unsigned long long)pid);
		return EXIT_RUNTIME;
	}
	if (read_proc_u64(pid, "timerslack_ns", &own)) {
		fprintf(stderr, "tslackctl: process %llu: reading timerslack_ns: %s\n",
			(unsigned long long)pid, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (read_setting(&cg, &val))
		return EXIT_RUNTIME;
	policy = task_policy(pid);
	/* SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6: no slack at all. */
	if (policy == 1 || policy == 2 || policy == 6)
		eff = 0;
	else
		eff = own > val.effective_slack_ns ? own : val.effective_slack_ns;
	printf("pid %llu\ncgroup %s\ntimerslack_ns %llu\neffective_slack_ns %llu\n",
	       (unsigned long long)pid, cg.path, (unsigned long long)own,
	       (unsigned long long)eff);
	return 0;
}

static int cmd_get(int argc, char **argv)
{
	struct tslack_cgroup val;
	bool json = false;
	struct cgroup cg;
	int i = 1, ret;

	if (i < argc && !strcmp(argv[i], "--json")) {
		json = true;
		i++;
	}
	if (i < argc && !strcmp(argv[i], "--pid")) {
		if (json || argc != i + 2)
			return usage_error("usage: tslackctl get --pid PID");
		return get_pid(argv[i + 1]);
	}
	ret = resolve_cgroup(argc, argv, &i, &cg);
	if (ret)
		return ret;
	if (i != argc)
		return usage_error("too many arguments");
	if (read_setting(&cg, &val))
		return EXIT_RUNTIME;
	if (json) {
		printf("{\"path\": ");
		print_json_string(cg.path);
		printf(", \"id\": %llu, \"min_slack_ns\": %llu, \"effective_slack_ns\": %llu}\n",
		       (unsigned long long)cg.id, (unsigned long long)val.min_slack_ns,
		       (unsigned long long)val.effective_slack_ns);
	} else {
		printf("min_slack_ns %llu\neffective_slack_ns %llu\n",
		       (unsigned long long)val.min_slack_ns,
		       (unsigned long long)val.effective_slack_ns);
	}
	return 0;
}

struct list_row {
	char *path;
	uint64_t id;
	struct tslack_cgroup val;
};

struct list_ctx {
	int map_fd;
	struct list_row *rows;
	size_t n, cap;
};

static int list_one(struct cgroup *cg, const struct cgroup *parent, void *data)
{
	struct list_ctx *ctx = data;
	struct list_row *rows;
	struct tslack_cgroup val;
	__u64 key = cg->id;

	(void)parent;
	if (bpf_map_lookup_elem(ctx->map_fd, &key, &val))
		return 0;
	if (ctx->n == ctx->cap) {
		rows = realloc(ctx->rows, (ctx->cap * 2 + 16) * sizeof(*rows));
		if (!rows)
			return -1;
		ctx->rows = rows;
		ctx->cap = ctx->cap * 2 + 16;
	}
	ctx->rows[ctx->n] = (struct list_row){ strdup(cg->path), cg->id, val };
	return ctx->rows[ctx->n++].path ? 0 : -1;
}

static int cmp_rows(const void *a, const void *b)
{
	return strcmp(((const struct list_row *)a)->path, ((const struct list_row *)b)->path);
}

static int cmd_list(int argc, char **argv)
{
	struct list_ctx ctx = {};
	struct cgroup root;
	char err[512];
	int ret = 0;
	size_t i;

	(void)argv;
	if (argc != 1)
		return usage_error("usage: tslackctl list");
	ctx.map_fd = policy_map_fd();
	if (ctx.map_fd < 0)
		return EXIT_RUNTIME;
	if (cgroup_by_path(".", &root, err, sizeof(err))) {
		fprintf(stderr, "tslackctl: %s\n", err);
		ret = EXIT_RUNTIME;
	} else if (cgroup_walk(&root, list_one, &ctx)) {
		fprintf(stderr, "tslackctl: reading the cgroup tree: %s\n", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	if (!ret) {
		qsort(ctx.rows, ctx.n, sizeof(*ctx.rows), cmp_rows);
		printf("%-32s %10s %18s %18s\n", "PATH", "ID", "MIN_SLACK_NS",
		       "EFFECTIVE_SLACK_NS");
		for (i = 0; i < ctx.n; i++)
			printf("%-32s %10llu %18llu %18llu\n", ctx.rows[i].path,
			       (unsigned long long)ctx.rows[i].id,
			       (unsigned long long)ctx.rows[i].val.min_slack_ns,
			       (unsigned long long)ctx.rows[i].val.effective_slack_ns);
	}
	for (i = 0; i < ctx.n; i++)
		free(ctx.rows[i].path);
	free(ctx.rows);
	close(ctx.map_fd);
	return ret;
}

static int cmd_check(int argc, char **argv)
{
	long n;
	int fd;

	(void)argv;
	if (argc != 1)
		return usage_error("usage: tslackctl check");
	fd = policy_map_fd();
	if (fd < 0)
		return EXIT_RUNTIME;
	n = settings_check(fd, false);
	close(fd);
	if (n < 0)
		return EXIT_RUNTIME;
	/* The differences are on stdout: so is their count. */
	if (n)
		printf("%ld entries differ from the cgroup tree\n", n);
	return n ? EXIT_RUNTIME : 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "attach", cmd_attach }, { "detach", cmd_detach },
	{ "status", cmd_status }, { "set", cmd_set },
	{ "get", cmd_get },	  { "list", cmd_list },
	{ "check", cmd_check },
};

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2)
		return usage_error("missing COMMAND");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
	libbpf_set_print(libbpf_print);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}

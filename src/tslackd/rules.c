// SPDX-License-Identifier: GPL-2.0
/*
 * The rule files, read as sysctl.d's are: *.conf in /etc/tslack/slack.d,
 * /run/tslack/slack.d and /usr/lib/tslack/slack.d, a file masking those of
 * its name in the directories after its own, all read in the order of
 * their names. A line is "CGROUP MIN [MAX]"; '#' begins a comment line.
 * Every error is refused whole: a rule file is root's, and a typo must not
 * quietly drop a setting someone relies on.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/format.h"
#include "../lib/parse.h"
#include "../lib/settings.h"
#include "config.h"
#include "log.h"
#include "record.h"
#include "rules.h"

struct conf_file {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
};

void rules_free(struct rules *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		free(rs->r[i].glob);
	free(rs->r);
	rs->r = NULL;
	rs->n = 0;
}

/* A cgroup path as the state file writes them, and one that fits. */
static bool good_path(const char *p)
{
	return strlen(p) < PATH_MAX && record_path_canonical(p);
}

/* MIN or MAX: a duration up to 500ms, or "-" (0: none). */
static int slack_arg(const char *what, const char *s, uint64_t *ns, char *err, size_t len)
{
	char e[200];

	if (!strcmp(s, "-")) {
		*ns = 0;
		return 0;
	}
	if (parse_duration_ns(s, ns, e, sizeof(e))) {
		snprintf(err, len, "%s: %s", what, e);
		return -1;
	}
	if (*ns > TSLACK_MAX_NS) {
		snprintf(err, len, "%s '%s': at most 500ms, what the kernel allows", what, s);
		return -1;
	}
	return 0;
}

/* One line, cut into tokens in place, into @r; 1 if it is a rule, 0 if not. */
static int parse_line(char *line, struct rule *r, char *err, size_t len)
{
	char *tok[4], *save;
	int n = 0;

	while (n < 4 && (tok[n] = strtok_r(n ? NULL : line, " \t\r\n", &save)))
		n++;
	if (!n || tok[0][0] == '#')
		return 0;
	if (n < 2 || n > 3) {
		snprintf(err, len, "want 'CGROUP MIN [MAX]'");
		return -1;
	}
	if (!good_path(tok[0])) {
		snprintf(err, len, "'%s' is not a cgroup path (/a/b, globs allowed)", tok[0]);
		return -1;
	}
	if (slack_arg("MIN", tok[1], &r->min, err, len) ||
	    (n == 3 && slack_arg("MAX", tok[2], &r->max, err, len)))
		return -1;
	if (n == 2)
		r->max = 0;
	if (!r->min && !r->max) {
		snprintf(err, len, "neither MIN nor MAX: the line sets nothing");
		return -1;
	}
	if (r->min && r->max && r->min > r->max) {
		snprintf(err, len, "MIN above MAX: the cap would always win");
		return -1;
	}
	r->glob = strdup(tok[0]);
	if (!r->glob) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 1;
}

static int load_file(const char *path, struct rules *rs)
{
	char *line = NULL, err[256];
	unsigned int no = 0;
	struct rule r, *p;
	size_t cap = 0;
	int ret = 0, k;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		log_err("%s: %m", path);
		return -1;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		no++;
		memset(&r, 0, sizeof(r));
		k = parse_line(line, &r, err, sizeof(err));
		if (k < 0) {
			log_err("%s:%u: %s", path, no, err);
			ret = -1;
		} else if (k) {
			snprintf(r.where, sizeof(r.where), "rule:%s:%u", path, no);
			p = realloc(rs->r, (rs->n + 1) * sizeof(*p));
			if (!p) {
				free(r.glob);
				log_err("out of memory");
				ret = -1;
				break;
			}
			rs->r = p;
			rs->r[rs->n++] = r;
		}
	}
	if (!ret && ferror(f)) {
		log_err("%s: %m", path);
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

/* Add the files of @dir to @fs, but for names already there; 0 or -1. */
static int add_dir(const char *dir, struct conf_file **fs, int *n)
{
	struct dirent **names = NULL;
	struct conf_file *p;
	int i, j, k, ret = 0;

	k = scandir(dir, &names, config_is_conf_file, alphasort);
	if (k < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		log_err("%s: %m", dir);
		return -1;
	}
	for (i = 0; i < k; i++) {
		for (j = 0; j < *n && strcmp((*fs)[j].name, names[i]->d_name); j++)
			;
		if (j == *n && !ret) {
			p = realloc(*fs, (*n + 1) * sizeof(*p));
			if (!p) {
				log_err("out of memory");
				ret = -1;
			} else {
				*fs = p;
				snprintf(p[*n].name, sizeof(p[*n].name), "%s", names[i]->d_name);
				snprintf(p[*n].path, sizeof(p[*n].path), "%s/%s", dir,
					 names[i]->d_name);
				(*n)++;
			}
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name, ((const struct conf_file *)b)->name);
}

int rules_load(const char *etc_dir, struct rules *out)
{
	char etc[PATH_MAX];
	const char *dirs[] = { etc, RULES_RUN_DIR, RULES_LIB_DIR };
	struct conf_file *fs = NULL;
	int i, n = 0, ret = 0;

	out->r = NULL;
	out->n = 0;
	snprintf(etc, sizeof(etc), "%s/slack.d", etc_dir);
	for (i = 0; !ret && i < 3; i++)
		ret = add_dir(dirs[i], &fs, &n);
	if (!ret)
		qsort(fs, n, sizeof(*fs), by_name);
	for (i = 0; !ret && i < n; i++)
		ret = load_file(fs[i].path, out);
	free(fs);
	if (ret)
		rules_free(out);
	return ret;
}

/* @ns as the rule files take it, exactly; "-" for none. */
static const char *rule_ns(char *buf, size_t len, uint64_t ns)
{
	return ns ? format_ns_exact(buf, len, ns) : "-";
}

void rules_print(FILE *f, const struct rules *rs)
{
	char a[32], b[32];
	int i;

	for (i = 0; i < rs->n; i++)
		fprintf(f, "# %s\n%s %s%s%s\n", rs->r[i].where, rs->r[i].glob,
			rule_ns(a, sizeof(a), rs->r[i].min), rs->r[i].max ? " " : "",
			rs->r[i].max ? rule_ns(b, sizeof(b), rs->r[i].max) : "");
}

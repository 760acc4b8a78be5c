/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declared settings: the rule files of slack.d, lines "CGROUP MIN [MAX]",
 * that hold for every cgroup matching CGROUP whenever it exists.
 */
#ifndef TSLACKD_RULES_H
#define TSLACKD_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "record.h"

/* The runtime and vendor directories; the admin's is the config dir's slack.d. */
#define RULES_RUN_DIR "/run/tslack/slack.d"
#define RULES_LIB_DIR "/usr/lib/tslack/slack.d"

struct rule {
	char *glob;		/* a cgroup path from the cgroup2 mount, shell globs */
	uint64_t min;		/* 0: none ("-") */
	uint64_t max;		/* 0: none ("-") */
	char where[SOURCE_MAX];	/* "rule:FILE:LINE", its source */
	bool over_said;		/* its match limit was logged */
};

struct rules {
	struct rule *r;
	int n;
};

/*
 * Read the *.conf files of @etc_dir, RULES_RUN_DIR and RULES_LIB_DIR (a
 * name in an earlier directory masks the same name in a later one) in the
 * order of their names into @out. Missing directories are fine. 0, or -1
 * after logging FILE:LINE and what is wrong (@out is then empty).
 */
int rules_load(const char *etc_dir, struct rules *out);

void rules_free(struct rules *rs);

/* The rules as lines that rules_load() reads back, each after its source. */
void rules_print(FILE *f, const struct rules *rs);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* tslackd's configuration: tslackd.conf and its tslackd.conf.d drop-ins. */
#ifndef TSLACKD_CONFIG_H
#define TSLACKD_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#ifndef TSLACKD_CONFIG_DIR
#define TSLACKD_CONFIG_DIR "/etc/tslack"
#endif

struct tslackd_config {
	uint64_t idle_ns;	/* a session that is idle or in the background */
	uint64_t locked_ns;	/* a locked session */
	uint64_t active_ns;	/* every session, normally 0 */
	uint64_t power_saver_ns;	/* every session while the profile is power-saver */
	uint64_t on_battery_ns;	/* every session while on battery */
	char **exempt;		/* unit name globs, NULL-terminated */
	unsigned int n_exempt;
};

/*
 * Read @dir/tslackd.conf, then @dir/tslackd.conf.d/ *.conf in the order of
 * their names, over the built-in defaults; a missing file is fine.
 * 0, or -1 after printing the file, line and what is wrong.
 */
int config_load(const char *dir, struct tslackd_config *cfg);

void config_free(struct tslackd_config *cfg);

/* @cfg as a configuration file that config_load() reads back. */
void config_print(FILE *f, const struct tslackd_config *cfg);

struct dirent;
/* scandir() filter of drop-in directories: "*.conf", not hidden. */
int config_is_conf_file(const struct dirent *de);

#endif

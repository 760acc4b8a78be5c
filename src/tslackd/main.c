// SPDX-License-Identifier: GPL-2.0
/*
 * tslackd's command line: the daemon (tslackd.c), or --status,
 * --check-config, --set-idle and --set-locked. See tslackd(8).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "log.h"
#include "logind.h"
#include "rules.h"
#include "state.h"
#include "tslackd.h"

#ifndef TSLACK_VERSION
#define TSLACK_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tslackd [--config-dir DIR] [--state FILE]\n"
		"       tslackd --status | --check-config\n"
		"       tslackd --set-idle yes|no | --set-locked yes|no [--session ID]\n"
		"Raise the timer slack of the processes of the sessions that logind\n"
		"says are idle, locked or in the background (tslack must be attached).\n\n"
		"  --config-dir DIR    read DIR/tslackd.conf, DIR/tslackd.conf.d/*.conf and\n"
		"                      the rules of DIR/slack.d, %s\n"
		"                      and %s (default %s)\n"
		"  --state FILE        where the daemon records what it set (default %s)\n"
		"  --status            show the sessions and what the daemon set\n"
		"  --check-config      print the configuration and rules as read; exit 1 if\n"
		"                      they are wrong\n"
		"  --set-idle yes|no   set the idle hint of this session in logind, for a\n"
		"                      compositor's idle hook (swayidle, xss-lock)\n"
		"  --set-locked yes|no the same for the locked hint\n"
		"  --session ID        with --set-*: that session (root or its owner)\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n",
		RULES_RUN_DIR, RULES_LIB_DIR, TSLACKD_CONFIG_DIR, TSLACKD_STATE);
}

static int set_hint(const char *session, bool locked, const char *arg)
{
	sd_bus *bus = NULL;
	int r, on;

	on = !strcmp(arg, "yes") ? 1 : !strcmp(arg, "no") ? 0 : -1;
	if (on < 0) {
		log_err("--set-%s takes yes or no, not '%s'", locked ? "locked" : "idle", arg);
		return 2;
	}
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		log_err("the system bus: %s", strerror(-r));
		return 1;
	}
	r = logind_set_hint(bus, session, locked, on);
	sd_bus_flush_close_unref(bus);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	enum { OPT_CONFIG = 256, OPT_STATE, OPT_STATUS, OPT_CHECK, OPT_IDLE, OPT_LOCKED,
	       OPT_SESSION };
	static const struct option opts[] = {
		{ "config-dir", required_argument, NULL, OPT_CONFIG },
		{ "state", required_argument, NULL, OPT_STATE },
		{ "status", no_argument, NULL, OPT_STATUS },
		{ "check-config", no_argument, NULL, OPT_CHECK },
		{ "set-idle", required_argument, NULL, OPT_IDLE },
		{ "set-locked", required_argument, NULL, OPT_LOCKED },
		{ "session", required_argument, NULL, OPT_SESSION },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct daemon d = { .config_dir = TSLACKD_CONFIG_DIR, .state_file = TSLACKD_STATE,
			    .watch.fd = -1 };
	const char *session = "auto", *hint = NULL;
	int c, mode = 0, ret;

	while ((c = getopt_long(argc, argv, ":hV", opts, NULL)) != -1) {
		switch (c) {
		case OPT_CONFIG:
			d.config_dir = optarg;
			break;
		case OPT_STATE:
			d.state_file = optarg;
			break;
		case OPT_IDLE:
		case OPT_LOCKED:
			hint = optarg;
			/* fallthrough */
		case OPT_STATUS:
		case OPT_CHECK:
			if (mode && mode != c) {
				log_err("give one of --status, --check-config, --set-idle, --set-locked");
				return 2;
			}
			mode = c;
			break;
		case OPT_SESSION:
			session = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("tslackd %s\n", TSLACK_VERSION);
			return 0;
		case ':':
			log_err("%s needs an argument", argv[optind - 1]);
			return 2;
		default:
			log_err("unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	switch (mode) {
	case OPT_STATUS:
		return state_print(d.state_file);
	case OPT_IDLE:
	case OPT_LOCKED:
		return set_hint(session, mode == OPT_LOCKED, hint);
	}
	if (config_load(d.config_dir, &d.cfg))
		return 1;
	if (rules_load(d.config_dir, &d.rules)) {
		if (mode != OPT_CHECK)
			log_err("not started: fix the rule above, or remove its file");
		config_free(&d.cfg);
		return 1;
	}
	if (mode == OPT_CHECK) {
		config_print(stdout, &d.cfg);
		printf("\n# Rules: CGROUP MIN [MAX]\n");
		rules_print(stdout, &d.rules);
		ret = 0;
	} else {
		ret = run(&d);
	}
	rules_free(&d.rules);
	config_free(&d.cfg);
	return ret;
}

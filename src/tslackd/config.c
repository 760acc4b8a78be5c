// SPDX-License-Identifier: GPL-2.0
/*
 * The syntax is systemd's for unit files and drop-ins: [Section] headers,
 * Key=Value lines, # and ; comments. A later file overrides a value; a list
 * (Exempt's Units=) grows with each assignment and an empty one resets it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/format.h"
#include "../lib/parse.h"
#include "../lib/settings.h"
#include "config.h"
#include "log.h"

/* Audio must not be late: its servers are exempt unless configured otherwise. */
static const char *const default_exempt[] = {
	"pipewire.service", "pipewire-pulse.service", "wireplumber.service",
	"pulseaudio.service",
};

static int add_exempt(struct tslackd_config *cfg, const char *glob)
{
	char **p = realloc(cfg->exempt, (cfg->n_exempt + 2) * sizeof(*p));

	if (!p)
		return -1;
	cfg->exempt = p;
	p[cfg->n_exempt] = strdup(glob);
	if (!p[cfg->n_exempt])
		return -1;
	p[++cfg->n_exempt] = NULL;
	return 0;
}

static void clear_exempt(struct tslackd_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_exempt; i++)
		free(cfg->exempt[i]);
	free(cfg->exempt);
	cfg->exempt = NULL;
	cfg->n_exempt = 0;
}

void config_free(struct tslackd_config *cfg)
{
	clear_exempt(cfg);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* One Key=Value of [@section]; a message for the user in @err. */
static int set_key(struct tslackd_config *cfg, const char *section,
		   const char *key, char *value, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} slack[] = {
		{ "Idle", offsetof(struct tslackd_config, idle_ns) },
		{ "Locked", offsetof(struct tslackd_config, locked_ns) },
		{ "Active", offsetof(struct tslackd_config, active_ns) },
		{ "PowerSaver", offsetof(struct tslackd_config, power_saver_ns) },
		{ "OnBattery", offsetof(struct tslackd_config, on_battery_ns) },
	};
	char *glob, *save;
	uint64_t ns;
	unsigned int i;

	if (!strcmp(section, "Slack")) {
		for (i = 0; i < sizeof(slack) / sizeof(slack[0]); i++) {
			if (strcmp(key, slack[i].key))
				continue;
			if (parse_duration_ns(value, &ns, err, errlen))
				return -1;
			if (ns > TSLACK_MAX_NS) {
				snprintf(err, errlen, "%s=%s: at most 500ms, what the kernel allows",
					 key, value);
				return -1;
			}
			*(uint64_t *)((char *)cfg + slack[i].off) = ns;
			return 0;
		}
	} else if (!strcmp(section, "Exempt") && !strcmp(key, "Units")) {
		if (!*value) {
			clear_exempt(cfg);
			return 0;
		}
		for (glob = strtok_r(value, " \t", &save); glob;
		     glob = strtok_r(NULL, " \t", &save)) {
			if (add_exempt(cfg, glob)) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		}
		return 0;
	} else if (strcmp(section, "Exempt")) {
		snprintf(err, errlen, "unknown section [%s]", section);
		return -1;
	}
	snprintf(err, errlen, "unknown key '%s' in [%s]", key, section);
	return -1;
}

static int load_file(const char *path, struct tslackd_config *cfg)
{
	char *line = NULL, *s, *eq, section[64] = "", err[256];
	unsigned int lineno = 0;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		log_err("%s: %s", path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		lineno++;
		s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			eq = strchr(s, ']');
			if (!eq || eq[1] || eq - s - 1 >= (long)sizeof(section)) {
				snprintf(err, sizeof(err), "bad section header '%s'", s);
				ret = -1;
			} else {
				*eq = '\0';
				strcpy(section, s + 1);
			}
		} else if (!(eq = strchr(s, '='))) {
			snprintf(err, sizeof(err), "'%s' is not Key=Value", s);
			ret = -1;
		} else if (!*section) {
			snprintf(err, sizeof(err), "'%s' is outside any section", s);
			ret = -1;
		} else {
			*eq = '\0';
			ret = set_key(cfg, section, trim(s), trim(eq + 1), err, sizeof(err));
		}
	}
	if (ret)
		log_err("%s:%u: %s", path, lineno, err);
	free(line);
	fclose(f);
	return ret;
}

int config_is_conf_file(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".conf");
}

int config_load(const char *dir, struct tslackd_config *cfg)
{
	struct dirent **names = NULL;
	char path[4096];
	int i, n, ret;
	unsigned int d;

	memset(cfg, 0, sizeof(*cfg));
	cfg->idle_ns = 50000000;
	cfg->locked_ns = 100000000;
	/*
	 * The user chose power-saver (GNOME and KDE switch it, and do on low
	 * battery): 1ms is 20 times a process's own default slack, enough to
	 * coalesce most periodic timers, and well below a 60 Hz frame, so an
	 * active session's input and animations stay smooth. On battery alone
	 * is no such choice: off unless configured.
	 */
	cfg->power_saver_ns = 1000000;
	for (d = 0; d < sizeof(default_exempt) / sizeof(default_exempt[0]); d++)
		if (add_exempt(cfg, default_exempt[d]))
			goto nomem;

	snprintf(path, sizeof(path), "%s/tslackd.conf", dir);
	ret = load_file(path, cfg);
	snprintf(path, sizeof(path), "%s/tslackd.conf.d", dir);
	n = scandir(path, &names, config_is_conf_file, alphasort);
	if (n < 0 && errno != ENOENT) {
		log_err("%s: %s", path, strerror(errno));
		ret = -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/tslackd.conf.d/%s", dir, names[i]->d_name);
		if (!ret)
			ret = load_file(path, cfg);
		free(names[i]);
	}
	free(names);
	if (ret)
		config_free(cfg);
	return ret;
nomem:
	log_err("out of memory");
	config_free(cfg);
	return -1;
}

void config_print(FILE *f, const struct tslackd_config *cfg)
{
	char a[32], b[32], c[32], d[32], e[32];
	unsigned int i;

	fprintf(f, "[Slack]\nIdle=%s\nLocked=%s\nActive=%s\nPowerSaver=%s\nOnBattery=%s\n\n"
		"[Exempt]\nUnits=",
		format_ns_exact(a, sizeof(a), cfg->idle_ns),
		format_ns_exact(b, sizeof(b), cfg->locked_ns),
		format_ns_exact(c, sizeof(c), cfg->active_ns),
		format_ns_exact(d, sizeof(d), cfg->power_saver_ns),
		format_ns_exact(e, sizeof(e), cfg->on_battery_ns));
	for (i = 0; i < cfg->n_exempt; i++)
		fprintf(f, "%s%s", i ? " " : "", cfg->exempt[i]);
	fputc('\n', f);
}

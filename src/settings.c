// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "policy.h"
#include "settings.h"

struct set_ctx {
	int map_fd;
	const struct cgroup *top;
	uint64_t min_ns;
	uint64_t top_parent_eff;
	long missing;		/* cgroups in the subtree without an entry */
	int err;
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static int count_missing(const struct cgroup *cg, const struct cgroup *parent,
			 void *data)
{
	struct set_ctx *ctx = data;
	struct tslack_cgroup val;
	__u64 key = cg->id;

	(void)parent;
	if (bpf_map_lookup_elem(ctx->map_fd, &key, &val))
		ctx->missing++;
	return 0;
}

/* Parents come first, so a parent's entry is already up to date. */
static int update_one(const struct cgroup *cg, const struct cgroup *parent,
		      void *data)
{
	struct set_ctx *ctx = data;
	struct tslack_cgroup old, val;
	char abs[PATH_MAX * 2];
	__u64 key = cg->id;
	uint64_t parent_eff;
	struct stat st;
	bool had;

	had = !bpf_map_lookup_elem(ctx->map_fd, &key, &old);
	if (!had)
		memset(&old, 0, sizeof(old));
	if (parent) {
		policy_lookup(ctx->map_fd, parent->id, &val);
		parent_eff = val.effective_slack_ns;
	} else {
		parent_eff = ctx->top_parent_eff;
	}
	val.min_slack_ns = cg == ctx->top ? ctx->min_ns : old.min_slack_ns;
	val.effective_slack_ns = max_u64(val.min_slack_ns, parent_eff);

	if (!val.min_slack_ns && !val.effective_slack_ns) {
		if (had && bpf_map_delete_elem(ctx->map_fd, &key) && errno != ENOENT)
			goto fail;
		return 0;
	}
	if (bpf_map_update_elem(ctx->map_fd, &key, &val, BPF_ANY))
		goto fail;
	/*
	 * If the cgroup went away meanwhile, its rmdir hook may have run
	 * before our update: do its work.
	 */
	snprintf(abs, sizeof(abs), "%s%s", cgroup2_mount(), cg->path);
	if (stat(abs, &st) || st.st_ino != cg->id)
		bpf_map_delete_elem(ctx->map_fd, &key);
	return 0;
fail:
	ctx->err = errno;
	fprintf(stderr, "tslackctl: updating %s: %s\n", cg->path, strerror(errno));
	return -1;
}

long settings_count(int map_fd)
{
	__u64 key, next;
	long n = 0;
	int ret;

	for (ret = bpf_map_get_next_key(map_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(map_fd, &key, &next)) {
		key = next;
		n++;
	}
	return errno == ENOENT ? n : -1;
}

int settings_set(int map_fd, const struct cgroup *cg, uint64_t min_ns)
{
	struct set_ctx ctx = { .map_fd = map_fd, .top = cg, .min_ns = min_ns };
	struct tslack_cgroup pval;
	struct bpf_map_info info = {};
	__u32 info_len = sizeof(info);
	struct cgroup parent;
	long used;

	if (!cgroup_parent(cg, &parent)) {
		policy_lookup(map_fd, parent.id, &pval);
		ctx.top_parent_eff = pval.effective_slack_ns;
	}

	/* With a non-zero effective slack, every cgroup below needs an entry. */
	if (max_u64(min_ns, ctx.top_parent_eff)) {
		if (cgroup_walk(cg, count_missing, &ctx) < 0) {
			fprintf(stderr, "tslackctl: reading %s: %s\n", cg->path,
				strerror(errno));
			return -1;
		}
		used = settings_count(map_fd);
		if (used < 0 || bpf_map_get_info_by_fd(map_fd, &info, &info_len)) {
			fprintf(stderr, "tslackctl: reading the map: %s\n", strerror(errno));
			return -1;
		}
		if (used + ctx.missing > (long)info.max_entries) {
			fprintf(stderr,
				"tslackctl: the map is full: %s needs %ld new entries, %ld of %u are free; nothing changed\n",
				cg->path, ctx.missing, (long)info.max_entries - used,
				info.max_entries);
			return -1;
		}
	}
	return cgroup_walk(cg, update_one, &ctx) ? -1 : 0;
}

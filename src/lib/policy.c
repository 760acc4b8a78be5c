// SPDX-License-Identifier: GPL-2.0
/*
 * Reaching what attach pinned (attach.c), through the pin directory
 * checked by bpffs.c: whether it is attached, the writers' lock, the map,
 * the invalidation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "policy.h"

bool policy_kernel_has_hook(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	found = btf && btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

int policy_no_hook(struct tslack_err *e, int ret)
{
	return err_set(e, ret,
		       "this kernel has no timer_slack_ops: boot one with the tslack patches (CONFIG_TIMER_SLACK_BPF=y)");
}

int policy_not_attached(struct tslack_err *e, int ret)
{
	if (!policy_kernel_has_hook())
		return policy_no_hook(e, ret);
	return err_set(e, ret, "tslack is not attached: run 'tslackctl attach' first");
}

int policy_attached(struct tslack_err *e)
{
	int dir, ret;

	dir = open_pin_dir();
	ret = dir < 0 ? dir : has_link(dir);
	if (dir >= 0)
		close(dir);
	if (ret >= 0 || ret == -ENOENT)
		return ret > 0;
	/* systemd mounts bpffs 0700: then only root may even look. */
	return explain(e, -1, TSLACK_PIN_DIR, ret);
}

int policy_obj_get(const char *name)
{
	int dir, fd;

	dir = open_pin_dir();
	if (dir == -E_UNSAFE)
		return -EPERM;
	if (dir < 0)
		return dir;
	fd = get_at(dir, name);
	close(dir);
	return fd;
}

int policy_lock(struct tslack_err *e)
{
	int lock, err;

	lock = open_pin_dir();
	if (lock >= 0) {
		/* A detach that ran while we waited unpinned the link first. */
		err = flock(lock, LOCK_EX) ? -errno : has_link(lock);
		if (err <= 0) {
			close(lock);
			lock = err ? err : -ENOENT;
		}
	}
	if (lock == -ENOENT)
		return policy_not_attached(e, lock);
	if (lock < 0)
		return explain(e, -1, TSLACK_PIN_DIR, lock);
	return lock;
}

void policy_unlock(int lock)
{
	close(lock);
}

int policy_lock_map(int *map_fd, struct tslack_err *e)
{
	int lock;

	lock = policy_lock(e);
	if (lock < 0)
		return lock;
	/* The lock is the checked pin directory: get the map through it. */
	*map_fd = get_at(lock, "settings");
	if (*map_fd < 0) {
		policy_unlock(lock);
		return err_errno(e, -1, TSLACK_MAP_PIN, *map_fd);
	}
	return lock;
}

int policy_map_fd(struct tslack_err *e)
{
	int dir, fd;

	dir = open_pin_dir();
	fd = dir < 0 ? dir : has_link(dir);
	if (fd > 0) {
		fd = get_at(dir, "settings");
		if (fd < 0)
			err_errno(e, fd, TSLACK_MAP_PIN, fd);
	} else if (!fd || fd == -ENOENT) {
		fd = policy_not_attached(e, -ENOENT);
	} else {
		explain(e, fd, TSLACK_PIN_DIR, fd);
	}
	if (dir >= 0)
		close(dir);
	return fd < 0 ? -1 : fd;
}

int policy_invalidate(struct tslack_err *e)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int dir, fd, err;

	dir = open_pin_dir();
	fd = dir < 0 ? dir : get_at(dir, "invalidate");
	if (dir >= 0)
		close(dir);
	if (fd < 0)
		return explain(e, -1, TSLACK_INVALIDATE_PIN, fd);
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	if (err)
		return err_errno(e, -1, "making tasks use the new setting", err);
	return 0;
}

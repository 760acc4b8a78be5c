// SPDX-License-Identifier: GPL-2.0
/*
 * Reaching what attach pinned (attach.c), through the pin directory
 * checked by bpffs.c: whether it is attached, the writers' lock, the map,
 * the invalidation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "compiler.h"
#include "policy.h"

int policy_kernel_mode(void)
{
	libbpf_print_fn_t print;
	struct btf *btf;
	int mode;

	/* Without BTF, the caller says so in one line of its own. */
	print = libbpf_set_print(NULL);
	btf = btf__load_vmlinux_btf();
	libbpf_set_print(print);

	if (!btf)
		return -ENOENT;
	if (btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT) > 0 &&
	    btf__find_by_name_kind(btf, "timer_slack_ctx", BTF_KIND_STRUCT) > 0)
		mode = POLICY_HOOK;
	/* Filtered task iterators (Linux 6.1), which follow plans with. */
	else if (btf__find_by_name_kind(btf, "bpf_iter_task_type", BTF_KIND_ENUM) > 0)
		mode = POLICY_PER_TASK;
	else
		mode = -EOPNOTSUPP;
	btf__free(btf);
	return mode;
}

int policy_unsupported(struct tslack_err *e, int ret, int mode)
{
	struct utsname u;

	if (mode == -EOPNOTSUPP)
		return err_set(e, ret,
			       "per-task mode needs Linux 6.1 or later (its filtered task iterators); this kernel is %s",
			       uname(&u) ? "older" : u.release);
	return err_set(e, ret,
		       "this kernel has no BTF (/sys/kernel/btf/vmlinux): tslack needs CONFIG_DEBUG_INFO_BTF=y");
}

/*
 * The offset of the variable @name in the section @sec of the BTF @id, or
 * -ENOENT: found by name, so that another build's layout is never misread.
 */
static int datasec_var(__u32 id, const char *sec, const char *name)
{
	struct btf *btf = btf__load_from_kernel_by_id(id);
	const struct btf_var_secinfo *v;
	const struct btf_type *t;
	int i, s, off = -ENOENT;

	s = btf ? btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC) : -ENOENT;
	t = s > 0 ? btf__type_by_id(btf, s) : NULL;
	for (i = 0, v = t ? btf_var_secinfos(t) : NULL; v && i < btf_vlen(t); i++, v++) {
		if (!strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off),
			    name) && v->size == 1)
			off = v->offset;
	}
	btf__free(btf);
	return off;
}

int policy_attached_flags(void)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key = 0;
	char *config = NULL;
	int map, err, off = -ENOENT;

	map = policy_obj_get(PIN_CONFIG_NAME);
	if (map < 0)
		return map;
	err = bpf_map_get_info_by_fd(map, &info, &len) ? -errno : 0;
	if (!err)
		off = datasec_var(info.btf_id, ".rodata", "futex2_waits");
	if (!err && (off < 0 || (__u32)off >= info.value_size))
		err = -EPROTO;
	if (!err && !(config = calloc(1, info.value_size)))
		err = -ENOMEM;
	if (!err && bpf_map_lookup_elem(map, &key, config))
		err = -errno;
	close(map);
	if (!err)
		err = config[off] ? POLICY_FUTEX2 : 0;
	free(config);
	return err;
}

int policy_not_attached(struct tslack_err *e, int ret)
{
	return err_set(e, ret, "tslack is not attached: run 'tslackctl attach' first");
}

int policy_mode(void)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	int link, err;

	link = policy_obj_get(PIN_LINK_NAME);
	if (link < 0)
		return link;
	err = bpf_link_get_info_by_fd(link, &info, &len) ? -errno : 0;
	close(link);
	if (err)
		return err;
	return info.type == BPF_LINK_TYPE_STRUCT_OPS ? POLICY_HOOK : POLICY_PER_TASK;
}

const char *policy_mode_name(enum policy_mode mode)
{
	return mode == POLICY_HOOK ? "hook" : "per-task";
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
		err = lock_dir(lock, LOCK_EX);
		if (!err)
			err = has_link(lock);
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

/* The invalidate program, run once: 0 or -errno. */
static int run_invalidate(int fd)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	return bpf_prog_test_run_opts(fd, &opts);
}

int policy_invalidate_at(int dir)
{
	int fd, err;

	fd = get_at(dir, "invalidate");
	if (fd < 0)
		return fd;
	err = run_invalidate(fd);
	close(fd);
	return err;
}

int policy_invalidate(struct tslack_err *e)
{
	int dir, fd, err;

	dir = open_pin_dir();
	fd = dir < 0 ? dir : get_at(dir, "invalidate");
	if (dir >= 0)
		close(dir);
	if (fd < 0)
		return explain(e, -1, TSLACK_INVALIDATE_PIN, fd);
	err = run_invalidate(fd);
	close(fd);
	if (err)
		return err_errno(e, -1, "making tasks use the new setting", err);
	return 0;
}

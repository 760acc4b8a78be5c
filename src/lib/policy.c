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
	if (btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT) > 0)
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
 * Each of enum policy_flag by its enumerator in the kernel's enum
 * timer_slack_ops_flags: the kernel says which it has, and their values.
 */
static const struct {
	unsigned int flag;
	const char *name;
} kernel_flags[] = {
	{ POLICY_ALIGN, "TIMER_SLACK_ALIGN" },
	{ POLICY_FUTEX2, "TIMER_SLACK_FUTEX2" },
};

/* The value of the enumerator @name of @t, an enum of @btf; 0 if it has none. */
static __u64 enum_value(const struct btf *btf, const struct btf_type *t, const char *name)
{
	const struct btf_enum64 *e64 = btf_is_enum64(t) ? btf_enum64(t) : NULL;
	const struct btf_enum *e = btf_is_enum(t) ? btf_enum(t) : NULL;
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		if (e && !strcmp(btf__name_by_offset(btf, e[i].name_off), name))
			return (__u32)e[i].val;
		if (e64 && !strcmp(btf__name_by_offset(btf, e64[i].name_off), name))
			return btf_enum64_value(&e64[i]);
	}
	return 0;
}

/* The kernel's enum timer_slack_ops_flags in its BTF @btf; NULL if it has none. */
static const struct btf_type *flags_enum(const struct btf *btf)
{
	int id;

	id = btf__find_by_name_kind(btf, "timer_slack_ops_flags", BTF_KIND_ENUM);
	if (id < 0)
		id = btf__find_by_name_kind(btf, "timer_slack_ops_flags", BTF_KIND_ENUM64);
	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

/* The bits for @flags (enum policy_flag) in @t, flags_enum() of @btf: those it has. */
static __u64 kernel_bits(const struct btf *btf, const struct btf_type *t, unsigned int flags)
{
	__u64 bits = 0;
	unsigned int i;

	for (i = 0; t && i < ARRAY_SIZE(kernel_flags); i++) {
		if (flags & kernel_flags[i].flag)
			bits |= enum_value(btf, t, kernel_flags[i].name);
	}
	return bits;
}

__u64 policy_kernel_flags(unsigned int flags)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__u64 bits = btf ? kernel_bits(btf, flags_enum(btf), flags) : 0;

	btf__free(btf);
	return bits;
}

int btf_member_offset(const struct btf *btf, int id, const char *name, int *type)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	int i;

	for (i = 0, m = t && btf_is_struct(t) ? btf_members(t) : NULL; m && i < btf_vlen(t);
	     i++, m++) {
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name)) {
			*type = m->type;
			return btf_member_bit_offset(t, i) / 8;
		}
	}
	return -ENOENT;
}

/* The flags of the struct_ops map @map (its value: common, then data). */
static int ops_flags(const struct btf *btf, int map, __u64 *flags)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key = 0;
	int data = -ENOENT, off = -ENOENT, type;
	char *value = NULL;

	if (!bpf_map_get_info_by_fd(map, &info, &len))
		data = btf_member_offset(btf, info.btf_vmlinux_value_type_id, "data", &type);
	if (data >= 0)
		off = btf_member_offset(btf, type, "flags", &type);
	if (off >= 0 && data + off + sizeof(*flags) <= info.value_size)
		value = calloc(1, info.value_size);
	if (value && !bpf_map_lookup_elem(map, &key, value))
		memcpy(flags, value + data + off, sizeof(*flags));
	else if (off >= 0)
		off = -errno;
	free(value);
	return off < 0 ? off : 0;
}

int policy_attached_flags(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	const struct btf_type *t = btf ? flags_enum(btf) : NULL;
	unsigned int i, flags = 0;
	int link, map, err;
	__u64 ops = 0;

	/* On a kernel with none of them, no policy has one. */
	if (!kernel_bits(btf, t, ~0U)) {
		btf__free(btf);
		return 0;
	}
	link = policy_obj_get(PIN_LINK_NAME);
	err = link < 0 ? link : bpf_link_get_info_by_fd(link, &info, &len) ? -errno : 0;
	if (link >= 0)
		close(link);
	if (err) {
		btf__free(btf);
		return err;
	}
	/*
	 * A struct_ops link's map id is the first member of the union that
	 * ends the info (Linux 6.4's UAPI), which Debian 12's headers lack.
	 */
	memcpy(&map, (char *)&info + offsetof(struct bpf_link_info, raw_tracepoint), sizeof(map));
	map = bpf_map_get_fd_by_id(map);
	err = map < 0 ? -errno : ops_flags(btf, map, &ops);
	if (map >= 0)
		close(map);
	for (i = 0; !err && i < ARRAY_SIZE(kernel_flags); i++) {
		if (ops & kernel_bits(btf, t, kernel_flags[i].flag))
			flags |= kernel_flags[i].flag;
	}
	btf__free(btf);
	return err ? err : (int)flags;
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

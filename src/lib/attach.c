// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the policy and detaching it, safely on any bpffs (bpffs.h):
 * pins are made in a private directory and renamed into place, so that a
 * crash leaves either no policy or a complete one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "compiler.h"
#include "load.h"
#include "pertask.h"
#include "policy.h"
#include "tslack.skel.h"

enum pin_kind { PIN_LINK, PIN_MAP, PIN_PROG };

/* Which mode pins it (policy.h's enum policy_mode as bits). */
#define HOOK (1 << POLICY_HOOK)
#define PER_TASK (1 << POLICY_PER_TASK)

#define PIN(name, kind, field, modes) { name, kind, offsetof(struct tslack_bpf, field), modes }

/*
 * What attach pins: a name, where its libbpf object is in the skeleton
 * and in which modes. The link pinned as "policy" comes first: detach
 * unpins it first, so that tslack is detached as soon as a detach
 * starts, even if it is killed. Detach removes whatever else the
 * directory holds, so the pins of an older or newer table go too.
 * Per-task mode's "policy" is its prctl link, the one whose loss alone
 * changes nothing (tslackctl follow stops when it is gone).
 */
static const struct pin {
	const char *name;
	enum pin_kind kind;
	size_t off;
	unsigned int modes;
} pins[] = {
	PIN(PIN_LINK_NAME, PIN_LINK, links.tslack, HOOK),
	PIN(PIN_LINK_NAME, PIN_LINK, links.tslack_prctl, PER_TASK),
	PIN("settings", PIN_MAP, maps.settings, HOOK | PER_TASK),
	PIN(PIN_CONFIG_NAME, PIN_MAP, maps.rodata, HOOK),
	PIN("rmdir", PIN_LINK, links.tslack_cgroup_rmdir, HOOK | PER_TASK),
	PIN("invalidate", PIN_PROG, progs.tslack_invalidate, HOOK | PER_TASK),
	PIN("query-cgroup", PIN_PROG, progs.tslack_query_cgroup, HOOK | PER_TASK),
	PIN("query-task", PIN_PROG, progs.tslack_query_task, HOOK | PER_TASK),
	PIN("fork", PIN_LINK, links.tslack_fork, PER_TASK),
	PIN("move", PIN_LINK, links.tslack_attach_task, PER_TASK),
	PIN("apply", PIN_PROG, progs.tslack_apply, PER_TASK),
	PIN("restore", PIN_PROG, progs.tslack_restore, PER_TASK),
	PIN("events", PIN_MAP, maps.events, PER_TASK),
	PIN("events-lost", PIN_MAP, maps.events_lost, PER_TASK),
	PIN("follower", PIN_MAP, maps.follower, PER_TASK),
	PIN("map-write", PIN_LINK, links.tslack_map_write, PER_TASK),
	/* Where the kernel has them (load.c): no link otherwise, no pin. */
	PIN("prctl32", PIN_LINK, links.tslack_prctl32, PER_TASK),
	PIN("proc-write", PIN_LINK, links.tslack_proc_write, PER_TASK),
};

#define ATTACHING_PREFIX "tslack-attaching-"

/* The pid in the name of an attach's private directory, or 0. */
static int attaching_pid(const char *name)
{
	const char *p = name + strlen(ATTACHING_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, ATTACHING_PREFIX, strlen(ATTACHING_PREFIX)) ||
	    *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	return *end || errno || pid > INT_MAX ? 0 : pid;
}

/*
 * An attach killed before its rename leaves its pins in a directory named
 * after its pid, and with them maybe an attached policy: remove them. A
 * name like theirs that tslack did not make is left alone.
 */
static void remove_dead_attaches(int bpffs, const struct stat *root)
{
	struct dirent *de;
	char why[64];
	int fd, pid, dir;
	DIR *d;

	fd = fcntl(bpffs, F_DUPFD_CLOEXEC, 0);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		/* Skip those of attaches still running (ours is not made yet). */
		pid = attaching_pid(de->d_name);
		if (!pid || !kill(pid, 0) || errno != ESRCH)
			continue;
		dir = open_ours(bpffs, root, de->d_name, why, sizeof(why));
		if (dir == -E_FOREIGN)
			say_foreign(NULL, 0, de->d_name, why, "left alone");
		if (dir < 0)
			continue;
		unpin_dir(bpffs, de->d_name, dir);
		close(dir);
	}
	closedir(d);
}

/*
 * Before an attach: whatever has the pin directory's name must go. What a
 * detach killed after unpinning the link left is removed; an attached
 * policy, or what someone else made, is refused. 0 or -1.
 */
static int clear_pin_dir(int bpffs, const struct stat *root, struct tslack_err *e)
{
	char why[64];
	int dir, err;

	dir = open_ours(bpffs, root, TSLACK_PIN_NAME, why, sizeof(why));
	if (dir == -ENOENT)
		return 0;
	if (dir == -E_FOREIGN)
		return say_foreign(e, -1, TSLACK_PIN_NAME, why, "remove it and attach again");
	if (dir < 0)
		return explain(e, -1, TSLACK_PIN_DIR, dir);
	err = lock_dir(dir, LOCK_EX);
	if (!err)
		err = has_link(dir);
	if (err > 0)
		err_set(e, 0, "already attached (%s exists); 'tslackctl detach' first",
			TSLACK_LINK_PIN);
	else if (!err)
		err = unpin_dir(bpffs, TSLACK_PIN_NAME, dir);
	if (err < 0)
		explain(e, 0, TSLACK_PIN_DIR, err);
	close(dir);
	return err ? -1 : 0;
}

/*
 * Make the private directory @name, in @bpffs, that an attach pins in and
 * return it. One of ours with that name is what an attach with our pid
 * left, and is removed; one made by a user (who can guess our pid) is
 * refused. -1 then.
 */
static int make_attach_dir(int bpffs, const struct stat *root, const char *name,
			   struct tslack_err *e)
{
	char why[64], path[128];
	int dir, err = 0;

	dir = open_ours(bpffs, root, name, why, sizeof(why));
	if (dir >= 0) {
		err = unpin_dir(bpffs, name, dir);
		close(dir);
	} else if (dir != -ENOENT) {
		err = dir;
	}
	if (!err && mkdirat(bpffs, name, 0700))
		err = -errno;
	/* Whatever has the name now, it is used only if it passes the check. */
	if (!err || err == -EEXIST)
		err = open_ours(bpffs, root, name, why, sizeof(why));
	if (err == -E_FOREIGN) {
		say_foreign(e, 0, name, why, "remove it and attach again");
	} else if (err < 0) {
		snprintf(path, sizeof(path), "%s/%s", TSLACK_BPFFS, name);
		explain(e, 0, path, err);
	}
	return err < 0 ? -1 : err;
}

/* The libbpf object of @p: a pointer of its own type, read as any pointer. */
static void *pin_object(const struct tslack_bpf *skel, const struct pin *p)
{
	void *obj;

	memcpy(&obj, (const char *)skel + p->off, sizeof(obj));
	return obj;
}

static int pin_fd(const struct tslack_bpf *skel, const struct pin *p)
{
	switch (p->kind) {
	case PIN_LINK:
		return bpf_link__fd(pin_object(skel, p));
	case PIN_MAP:
		return bpf_map__fd(pin_object(skel, p));
	default:
		return bpf_program__fd(pin_object(skel, p));
	}
}

/* Pin what @mode pins in the checked directory @dir. 0, or -errno. */
static int pin_all(const struct tslack_bpf *skel, enum policy_mode mode, int dir)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(pins); i++) {
		if (pins[i].modes & (1 << mode) && pin_object(skel, &pins[i]))
			err = pin_at(pin_fd(skel, &pins[i]), dir, pins[i].name);
	}
	return err;
}

/* Load, attach and pin in @bpffs's private directory @tmp; 0, or -1. */
static int load_and_pin(int bpffs, const struct stat *root, const char *tmp,
			enum policy_mode mode, unsigned int max_cgroups, unsigned int flags,
			struct tslack_err *e)
{
	struct tslack_bpf *skel;
	unsigned int i;
	int dir = -1, err;

	skel = policy_load(mode, max_cgroups, flags, e);
	if (!skel)
		return -1;
	err = tslack_bpf__attach(skel);
	if (err == -EBUSY) {
		err_set(e, 0, "attaching: another timer slack policy is attached");
		goto out;
	} else if (err) {
		err_errno(e, 0, "attaching the policy", err);
		goto out;
	}
	dir = make_attach_dir(bpffs, root, tmp, e);
	if (dir < 0) {
		err = -1;
		goto out;
	}
	err = pin_all(skel, mode, dir);
	if (err) {
		err_errno(e, 0, "pinning the policy", err);
		goto out;
	}
	/*
	 * Into place only now, so that a crash leaves either no policy or a
	 * complete one; never over what has taken the name meanwhile: that
	 * is refused, or cleared if a detach left it, and then once more.
	 */
	err = renameat2(bpffs, tmp, bpffs, TSLACK_PIN_NAME, RENAME_NOREPLACE) ? -errno : 0;
	if (err == -EEXIST) {
		if (clear_pin_dir(bpffs, root, e))
			goto out;
		err = renameat2(bpffs, tmp, bpffs, TSLACK_PIN_NAME, RENAME_NOREPLACE) ? -errno : 0;
	}
	if (err)
		err_errno(e, 0, "pinning the policy", err);
out:
	if (dir >= 0) {
		if (err)
			unpin_dir(bpffs, tmp, dir);
		close(dir);
	}
	/* Once pinned, the pins keep the links: only drop our references. */
	for (i = 0; !err && i < ARRAY_SIZE(pins); i++) {
		if (pins[i].kind == PIN_LINK && pins[i].modes & (1 << mode) &&
		    pin_object(skel, &pins[i]))
			bpf_link__disconnect(pin_object(skel, &pins[i]));
	}
	tslack_bpf__destroy(skel);
	return err ? -1 : 0;
}

int policy_attach(unsigned int max_cgroups, unsigned int flags, struct tslack_err *e)
{
	char tmp[64];
	struct stat root;
	int bpffs, err, mode;

	bpffs = bpffs_open(&root);
	if (bpffs == -ENODEV)
		return err_set(e, -1,
			       "%s: not a bpf file system: mount one (mount -t bpf -o mode=700 bpf %s)",
			       TSLACK_BPFFS, TSLACK_BPFFS);
	if (bpffs < 0)
		return explain(e, -1, TSLACK_PIN_DIR, bpffs);
	err = clear_pin_dir(bpffs, &root, e);
	mode = policy_kernel_mode();
	/* Before libbpf would say it in many lines of its own. */
	if (!err && mode < 0)
		err = policy_unsupported(e, -1, mode);
	if (!err) {
		remove_dead_attaches(bpffs, &root);
		/* bpffs refuses dots in names. */
		snprintf(tmp, sizeof(tmp), ATTACHING_PREFIX "%d", getpid());
		err = load_and_pin(bpffs, &root, tmp, mode, max_cgroups, flags, e);
	}
	close(bpffs);
	return err;
}

/*
 * Per-task mode: give every thread whose slack it raised its own back,
 * under the lock, before anything is unpinned (tslackctl follow waits).
 * A thread forked meanwhile inherits what is known of its parent's, so
 * passes go on until one finds nothing to write (a few at most).
 */
static int restore_own_slack(int dir, struct tslack_err *e)
{
	int prog, i, failed = 0;
	long n = 1;

	prog = get_at(dir, "restore");
	if (prog == -ENOENT)
		return 0;	/* the hook's, or an attach killed before */
	if (prog < 0)
		return explain(e, -1, "detaching", prog);
	/* The plans name threads as those namespaces do: none would match. */
	if (!pertask_in_init_ns()) {
		close(prog);
		return err_set(e, -1,
			       "detaching in per-task mode: only from the initial pid and time namespaces, where threads can be given their own slack back");
	}
	for (i = 0; i < 4 && n > 0; i++)
		n = pertask_pass(prog, 0, 0, &failed, NULL, NULL);
	close(prog);
	/* What could not be written stays raised: say so, and detach all the same. */
	if (n < 0 || failed)
		warn_say("detaching: threads whose slack was raised may keep it: %s",
			 strerror(n < 0 ? (int)-n : -failed));
	/* Wake tslackctl follow: past our lock, it finds the policy gone and stops. */
	policy_invalidate_at(dir);
	return 0;
}

int policy_detach(struct tslack_err *e)
{
	struct stat root;
	int bpffs, dir, err;
	char why[64];

	bpffs = bpffs_open(&root);
	if (bpffs == -ENODEV)
		return 0;
	if (bpffs < 0)
		return explain(e, -1, "detaching", bpffs);
	remove_dead_attaches(bpffs, &root);
	dir = open_ours(bpffs, &root, TSLACK_PIN_NAME, why, sizeof(why));
	if (dir == -E_FOREIGN) {
		/* Nothing of tslack's is attached, and that one is not ours to remove. */
		say_foreign(NULL, 0, TSLACK_PIN_NAME, why, "left alone");
		err = 0;
	} else if (dir == -ENOENT) {
		err = 0;
	} else if (dir < 0) {
		err = dir;
	} else {
		err = lock_dir(dir, LOCK_EX);
		if (!err && restore_own_slack(dir, e)) {
			close(dir);
			close(bpffs);
			return -1;
		}
		if (!err)
			err = unpin_dir(bpffs, TSLACK_PIN_NAME, dir);
		close(dir);
	}
	close(bpffs);
	if (err)
		return explain(e, -1, "detaching", err);
	return 0;
}

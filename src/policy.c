// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "compiler.h"
#include "policy.h"
#include "tslack.skel.h"

/*
 * What attach pins, the policy's link first: detach unpins in this order,
 * so that tslack is detached as soon as it starts, even if it is killed.
 */
static const char *const pins[] = {
	"policy", "settings", "mkdir", "rmdir", "invalidate",
};

void policy_explain(const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		fprintf(stderr,
			"%s: %s: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)\n",
			program_invocation_short_name, what);
	else
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
			strerror(err));
}

bool policy_kernel_has_hook(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	found = btf && btf__find_by_name_kind(btf, "timer_slack_ops", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

static const char no_hook[] =
	"%s: this kernel has no timer_slack_ops: boot one with the tslack patches (CONFIG_TIMER_SLACK_BPF=y)\n";

void policy_not_attached(void)
{
	if (!policy_kernel_has_hook())
		fprintf(stderr, no_hook, program_invocation_short_name);
	else
		fprintf(stderr, "%s: tslack is not attached: run 'tslackctl attach' first\n",
			program_invocation_short_name);
}

int policy_attached(void)
{
	struct stat st;

	if (!stat(TSLACK_LINK_PIN, &st))
		return 1;
	if (errno == ENOENT)
		return 0;
	/* systemd mounts bpffs 0700: then only root may even look. */
	policy_explain(TSLACK_PIN_DIR, errno);
	return -1;
}

/* Remove a pin directory and what is pinned in it; missing is fine. */
static int unpin_dir(const char *dir)
{
	char path[256];
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i]);
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	if (rmdir(dir) && errno != ENOENT)
		err = -errno;
	return err;
}

#define ATTACHING_PREFIX "tslack-attaching-"

/*
 * An attach killed before its rename leaves its pins in a directory named
 * after its pid, and with them maybe an attached policy: remove them.
 */
static void remove_dead_attaches(void)
{
	char dir[300];
	struct dirent *de;
	DIR *d;
	int pid;

	d = opendir("/sys/fs/bpf");
	if (!d)
		return;
	while ((de = readdir(d))) {
		/* Skip ours-to-be and those of attaches still running. */
		if (sscanf(de->d_name, ATTACHING_PREFIX "%d", &pid) != 1 ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(dir, sizeof(dir), "/sys/fs/bpf/%s", de->d_name);
		unpin_dir(dir);
	}
	closedir(d);
}

/* The pin directory, locked; -ENOENT if there is none. */
static int lock_pin_dir(void)
{
	int fd;

	fd = open(TSLACK_PIN_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* What a detach killed after unpinning the link left; none is fine. */
static int remove_dead_detach(void)
{
	int lock, err;

	lock = lock_pin_dir();
	if (lock == -ENOENT)
		return 0;
	if (lock < 0)
		return lock;
	err = faccessat(lock, "policy", F_OK, AT_SYMLINK_NOFOLLOW) ? -errno : -EEXIST;
	if (err == -ENOENT)
		err = unpin_dir(TSLACK_PIN_DIR);
	close(lock);
	return err;
}

static int pin_all(struct tslack_bpf *skel, const char *dir)
{
	struct bpf_link *links[] = {
		skel->links.tslack, NULL,
		skel->links.tslack_cgroup_mkdir, skel->links.tslack_cgroup_rmdir,
	};
	char path[256];
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(pins); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pins[i]);
		if (i == 1)
			err = bpf_map__pin(skel->maps.settings, path);
		else if (i < ARRAY_SIZE(links))
			err = bpf_link__pin(links[i], path);
		else
			err = bpf_program__pin(skel->progs.tslack_invalidate, path);
	}
	return err;
}

int policy_attach(unsigned int max_cgroups)
{
	struct tslack_bpf *skel;
	char tmpdir[64];
	int err, ret;

	ret = policy_attached();
	if (ret < 0)
		return -1;
	if (ret) {
		fprintf(stderr,
			"tslackctl: already attached (%s exists); 'tslackctl detach' first\n",
			TSLACK_LINK_PIN);
		return -1;
	}
	/* Before libbpf would say it in many lines of its own. */
	if (!policy_kernel_has_hook()) {
		fprintf(stderr, no_hook, program_invocation_short_name);
		return -1;
	}
	remove_dead_attaches();
	err = remove_dead_detach();
	if (err) {
		policy_explain(TSLACK_PIN_DIR, err == -EEXIST ? EBUSY : err);
		return -1;
	}
	skel = tslack_bpf__open();
	if (!skel) {
		policy_explain("opening the policy", errno);
		return -1;
	}
	err = bpf_map__set_max_entries(skel->maps.settings, max_cgroups);
	if (!err)
		err = tslack_bpf__load(skel);
	if (err) {
		policy_explain("loading the policy", err);
		goto out;
	}
	err = tslack_bpf__attach(skel);
	if (err == -EBUSY) {
		fprintf(stderr, "tslackctl: attaching: another timer slack policy is attached\n");
		goto out;
	} else if (err) {
		policy_explain("attaching the policy", err);
		goto out;
	}

	/*
	 * Pin in a private directory, then rename it into place, so that a
	 * crash leaves either no policy or a complete one. bpffs refuses
	 * dots in names.
	 */
	snprintf(tmpdir, sizeof(tmpdir), "/sys/fs/bpf/" ATTACHING_PREFIX "%d", getpid());
	unpin_dir(tmpdir);
	if (mkdir(tmpdir, 0700)) {
		err = -errno;
		policy_explain(tmpdir, err);
		goto out;
	}
	err = pin_all(skel, tmpdir);
	if (!err && rename(tmpdir, TSLACK_PIN_DIR))
		err = -errno;
	if (err) {
		policy_explain("pinning the policy", err);
		unpin_dir(tmpdir);
	}
out:
	/* Once pinned, the pins keep the links: only drop our references. */
	if (!err) {
		bpf_link__disconnect(skel->links.tslack);
		bpf_link__disconnect(skel->links.tslack_cgroup_mkdir);
		bpf_link__disconnect(skel->links.tslack_cgroup_rmdir);
	}
	tslack_bpf__destroy(skel);
	return err ? -1 : 0;
}

int policy_detach(void)
{
	int lock, err;

	remove_dead_attaches();
	lock = lock_pin_dir();
	if (lock == -ENOENT)
		return 0;
	err = lock < 0 ? lock : unpin_dir(TSLACK_PIN_DIR);
	if (lock >= 0)
		close(lock);
	if (err) {
		policy_explain("detaching", err);
		return -1;
	}
	return 0;
}

int policy_lock(void)
{
	int lock;

	lock = lock_pin_dir();
	if (lock >= 0 && faccessat(lock, "policy", F_OK, AT_SYMLINK_NOFOLLOW)) {
		/* A detach ran while we waited: it unpins the link first. */
		close(lock);
		lock = -errno;
	}
	if (lock == -ENOENT)
		policy_not_attached();
	else if (lock < 0)
		policy_explain(TSLACK_PIN_DIR, lock);
	return lock < 0 && lock != -ENOENT ? -1 : lock;
}

void policy_unlock(int lock)
{
	close(lock);
}

int policy_lock_map(int *map_fd)
{
	int lock;

	lock = policy_lock();
	if (lock < 0)
		return lock;
	*map_fd = bpf_obj_get(TSLACK_MAP_PIN);
	if (*map_fd < 0) {
		policy_explain(TSLACK_MAP_PIN, *map_fd);
		policy_unlock(lock);
		return -1;
	}
	return lock;
}

int policy_map_fd(void)
{
	int fd, ret;

	ret = policy_attached();
	if (ret < 0)
		return -1;
	if (!ret) {
		policy_not_attached();
		return -1;
	}
	fd = bpf_obj_get(TSLACK_MAP_PIN);
	if (fd < 0)
		policy_explain(TSLACK_MAP_PIN, fd);
	return fd;
}

int policy_invalidate(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd, err;

	fd = bpf_obj_get(TSLACK_INVALIDATE_PIN);
	if (fd < 0) {
		policy_explain(TSLACK_INVALIDATE_PIN, fd);
		return -1;
	}
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	if (err) {
		policy_explain("making tasks use the new setting", err);
		return -1;
	}
	return 0;
}

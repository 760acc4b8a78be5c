// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compiler.h"
#include "policy.h"
#include "tslack.skel.h"

/* The map, the links in the order policy_attach() makes them, the program. */
static const char *const pins[] = {
	"cgroups", "policy", "mkdir", "rmdir", "write",
};

#define NLINKS 3

static void explain(const char *what, int err)
{
	err = err < 0 ? -err : err;
	if (err == EPERM || err == EACCES)
		fprintf(stderr,
			"tslackctl: %s: permission denied (needs root: CAP_BPF and CAP_SYS_ADMIN)\n",
			what);
	else
		fprintf(stderr, "tslackctl: %s: %s\n", what, strerror(err));
}

int policy_attached(void)
{
	struct stat st;

	if (!stat(TSLACK_PIN_DIR, &st))
		return 1;
	if (errno == ENOENT)
		return 0;
	/* systemd mounts bpffs 0700: then only root may even look. */
	explain(TSLACK_PIN_DIR, errno);
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

int policy_attach(unsigned int max_cgroups)
{
	char tmpdir[64], path[256];
	struct bpf_link *links[NLINKS] = {};
	struct tslack_bpf *skel;
	unsigned int i;
	int err, ret;

	ret = policy_attached();
	if (ret < 0)
		return -1;
	if (ret) {
		fprintf(stderr,
			"tslackctl: already attached (%s exists); 'tslackctl detach' first\n",
			TSLACK_PIN_DIR);
		return -1;
	}
	remove_dead_attaches();
	skel = tslack_bpf__open();
	if (!skel) {
		explain("opening the policy", errno);
		return -1;
	}
	err = bpf_map__set_max_entries(skel->maps.cgroups, max_cgroups);
	if (!err)
		err = tslack_bpf__load(skel);
	if (err) {
		explain("loading the policy", err);
		tslack_bpf__destroy(skel);
		return -1;
	}
	links[0] = bpf_map__attach_struct_ops(skel->maps.tslack);
	if (!links[0]) {
		err = -errno;
		if (err == -EBUSY)
			fprintf(stderr,
				"tslackctl: attaching: another timer slack policy is attached\n");
		else
			explain("attaching the policy", err);
		goto out;
	}
	links[1] = bpf_program__attach(skel->progs.tslack_cgroup_mkdir);
	links[2] = bpf_program__attach(skel->progs.tslack_cgroup_rmdir);
	if (!links[1] || !links[2]) {
		err = -errno;
		explain("attaching the cgroup hooks", err);
		goto out;
	}

	/*
	 * Pin in a private directory, then rename it into place, so that a
	 * crash leaves either no policy or a complete one.
	 */
	/* bpffs refuses dots in names. */
	snprintf(tmpdir, sizeof(tmpdir), "/sys/fs/bpf/" ATTACHING_PREFIX "%d", getpid());
	unpin_dir(tmpdir);
	if (mkdir(tmpdir, 0700)) {
		err = -errno;
		explain(tmpdir, err);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, pins[0]);
	err = bpf_map__pin(skel->maps.cgroups, path);
	for (i = 0; !err && i < NLINKS; i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, pins[i + 1]);
		err = bpf_link__pin(links[i], path);
	}
	if (!err) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, pins[NLINKS + 1]);
		err = bpf_program__pin(skel->progs.tslack_write, path);
	}
	if (!err && rename(tmpdir, TSLACK_PIN_DIR))
		err = -errno;
	if (err) {
		explain("pinning the policy", err);
		unpin_dir(tmpdir);
	}
out:
	/* Once pinned, the pins keep the links: only drop our references. */
	for (i = 0; i < NLINKS; i++) {
		if (!err)
			bpf_link__disconnect(links[i]);
		bpf_link__destroy(links[i]);
	}
	tslack_bpf__destroy(skel);
	return err ? -1 : 0;
}

int policy_detach(void)
{
	int err;

	remove_dead_attaches();
	err = unpin_dir(TSLACK_PIN_DIR);
	if (err) {
		explain("detaching", err);
		return -1;
	}
	return 0;
}

int policy_map_fd(void)
{
	int fd, ret;

	ret = policy_attached();
	if (ret < 0)
		return -1;
	if (!ret) {
		fprintf(stderr,
			"tslackctl: tslack is not attached: run 'tslackctl attach' first\n");
		return -1;
	}
	fd = bpf_obj_get(TSLACK_MAP_PIN);
	if (fd < 0)
		explain(TSLACK_MAP_PIN, fd);
	return fd;
}

bool policy_lookup(int map_fd, uint64_t id, struct tslack_cgroup *val)
{
	__u64 key = id;

	if (!bpf_map_lookup_elem(map_fd, &key, val))
		return true;
	memset(val, 0, sizeof(*val));
	return false;
}

int policy_write(const struct tslack_entry *entries, size_t n)
{
	struct tslack_write_args args = {
		.entries = (unsigned long)entries,
		.n = n,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .ctx_in = &args,
		    .ctx_size_in = sizeof(args));
	int fd, err;

	fd = bpf_obj_get(TSLACK_WRITE_PIN);
	if (fd < 0) {
		explain(TSLACK_WRITE_PIN, fd);
		return -1;
	}
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	/* The program's own error, a negative errno, comes as its retval. */
	if (!err)
		err = (int)opts.retval;
	if (err) {
		explain("updating the map", err);
		return -1;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A container's root may not attach a timer slack policy: the kernel asks
 * for CAP_SYS_ADMIN in the initial user namespace, and a BPF token, which
 * can delegate CAP_BPF and CAP_PERFMON with every command, map, program
 * and attach type, does not give it. The series' own test (selftests/bpf
 * timer_slack) checks a process without CAP_SYS_ADMIN; this is the token
 * case, as a container manager would set it up: the container makes a
 * bpffs context in its user namespace, the host configures its
 * delegation and mounts it, the container loads a policy through the
 * token and tries to attach it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mount.h>

#include <bpf/libbpf.h>

#include "const_slack.skel.h"
#include "harness.h"
#include "lib/compiler.h"
#include "timer_slack.h"

#define OWN_SLACK 50000
/* The container's exit status when the kernel has no user namespaces. */
#define NO_USERNS 77

static int send_fd(int sock, int fd)
{
	char buf[CMSG_SPACE(sizeof(int))] = {}, byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char buf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = buf, .msg_controllen = sizeof(buf) };
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * The container's side: root of a user namespace of its own. Exit 0 if
 * the policy loaded through the token and its attach was refused with
 * EPERM, leaving this task's sleeps their own slack.
 */
static int container(int sock)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct const_slack_bpf *skel;
	struct bpf_link *link;
	char path[64];
	int fd, ret = 1;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return errno == EINVAL ? NO_USERNS : 1;
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 1;
	/* Only the host may delegate: it configures the context and mounts it. */
	fd = syscall(SYS_fsopen, "bpf", 0);
	if (fd < 0 || send_fd(sock, fd))
		return 1;
	close(fd);
	fd = recv_fd(sock);
	if (fd < 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	opts.bpf_token_path = path;
	skel = const_slack_bpf__open_opts(&opts);
	if (!skel)
		return 1;
	if (const_slack_bpf__load(skel)) {
		printf("# load with the token: %s\n", strerror(errno));
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.const_slack);
	if (link || errno != EPERM) {
		printf("# attach with the token: %s\n", link ? "attached" : strerror(errno));
		bpf_link__destroy(link);
		goto out;
	}
	ret = sleep_slack() == OWN_SLACK ? 0 : 1;
out:
	const_slack_bpf__destroy(skel);
	return ret;
}

/* The host's side: a bpffs for that namespace, delegating everything. */
static int delegate_bpffs(int sock)
{
	static const char *const keys[] = {
		"delegate_cmds", "delegate_maps", "delegate_progs", "delegate_attachs",
	};
	int fs_fd = recv_fd(sock), mnt_fd = -1, ok = fs_fd >= 0;
	unsigned int i;

	for (i = 0; ok && i < ARRAY_SIZE(keys); i++)
		ok = !syscall(SYS_fsconfig, fs_fd, FSCONFIG_SET_STRING, keys[i], "any", 0);
	ok = ok && !syscall(SYS_fsconfig, fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	if (ok)
		mnt_fd = syscall(SYS_fsmount, fs_fd, 0, 0);
	ok = mnt_fd >= 0 && !send_fd(sock, mnt_fd);
	if (!ok)
		printf("# delegating a bpffs: %s\n", strerror(errno));
	if (mnt_fd >= 0)
		close(mnt_fd);
	if (fs_fd >= 0)
		close(fs_fd);
	return ok ? 0 : -1;
}

int main(void)
{
	int sv[2], status, delegated;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	harness_plan(2);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		harness_fatal("token/socketpair", "%s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(container(sv[1]));
	}
	close(sv[1]);
	if (pid < 0)
		harness_fatal("token/fork", "%s", strerror(errno));
	delegated = delegate_bpffs(sv[0]);
	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid)
		harness_fatal("token/wait", "%s", strerror(errno));
	report("token/delegated", !delegated, "the host could not delegate a bpffs");
	report("token/attach_refused", WIFEXITED(status) && !WEXITSTATUS(status),
	       "the container's attach through a token was not refused with EPERM, or its sleeps lost their own slack (status %#x%s)",
	       status, WIFEXITED(status) && WEXITSTATUS(status) == NO_USERNS ?
	       ": no user namespaces" : "");
	return harness_exit_status();
}

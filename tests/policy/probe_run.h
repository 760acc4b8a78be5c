/* SPDX-License-Identifier: GPL-2.0 */
/* tslack-probe's ways of running a command (probe_run.c). */
#ifndef TSLACK_PROBE_RUN_H
#define TSLACK_PROBE_RUN_H

#include <sys/types.h>

/* exec @cmd as root without CAP_BPF and CAP_SYS_ADMIN; returns only on failure. */
int exec_without_caps(char **cmd);
/* exec @cmd as user and group @uid, without supplementary groups. */
int exec_as_user(uid_t uid, char **cmd);
/* exec @cmd in a cgroup namespace of its own, with its own cgroup2 mount. */
int exec_in_cgroupns(char **cmd);
/* exec @cmd holding an exclusive flock() on @path. */
int exec_locked(const char *path, char **cmd);

/*
 * Run @cmd on a new terminal, type @keys into it one every @delay_ms
 * (after waiting @delay_ms first), and copy what it shows to stdout until
 * it exits or 10 s pass: its exit status, 124 on the timeout.
 */
int on_pty(const char *keys, long delay_ms, char **cmd);
/* SIGKILL @cmd @us after its fork, unless it exited before. 0 or 1. */
int kill_after(long us, char **cmd);
/* Print how long @cmd takes from fork to exit: the mean of @count runs, in us. */
int duration(long count, char **cmd);

#endif

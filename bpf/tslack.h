/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tslack map, shared by the BPF policy and tslackctl.
 *
 * One entry per cgroup v2 whose timer slack is raised, keyed by the cgroup
 * id (the inode number of its cgroupfs directory). effective_slack_ns is
 * kept equal to the max of the cgroup's own min_slack_ns and its parent's
 * effective_slack_ns, so asking the policy costs one lookup at any depth
 * (the kernel then reuses the answer until invalidated). tslackctl
 * maintains it on "set"; the policy copies the parent's entry when a
 * cgroup is created and deletes the entry when it is removed.
 */
#ifndef TSLACK_H
#define TSLACK_H

struct tslack_cgroup {
	__u64 min_slack_ns;
	__u64 effective_slack_ns;
};

/*
 * tslackctl writes the map through the tslack_write program, which stores
 * @n entries read from the user address @entries and then makes every
 * task ask the policy again: one system call, so a kill cannot leave
 * tasks with the old slack and the map with the new one.
 */
struct tslack_entry {
	__u64 id;
	struct tslack_cgroup val;
};

struct tslack_write_args {
	__u64 entries;
	__u32 n;
	__u32 pad;
};

/* Cgroups with a raised slack the map holds, unless attach says otherwise. */
#define TSLACK_DEFAULT_MAX_CGROUPS 16384

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching the tslack BPF policy and reaching its pinned map. */
#ifndef TSLACK_POLICY_H
#define TSLACK_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "../bpf/tslack.h"

#define TSLACK_PIN_DIR "/sys/fs/bpf/tslack"
#define TSLACK_MAP_PIN TSLACK_PIN_DIR "/cgroups"
#define TSLACK_WRITE_PIN TSLACK_PIN_DIR "/write"

/*
 * Load, attach and pin the policy, with room for @max_cgroups entries.
 * 0, or -1 after printing why.
 */
int policy_attach(unsigned int max_cgroups);

/*
 * Unpin everything, also what a killed attach left; the kernel then
 * detaches. Not attached is fine. 0, or -1 after printing why.
 */
int policy_detach(void);

/* 1 if attached, 0 if not, -1 after printing why it cannot be told. */
int policy_attached(void);

/* A file descriptor of the pinned map, or -1 after printing why. */
int policy_map_fd(void);

/*
 * Store @n entries in the map and make every task ask the policy again
 * (the kernel reuses each task's answer until then), in one system call.
 * 0, or -1 after printing why; entries before a failing one are stored.
 */
int policy_write(const struct tslack_entry *entries, size_t n);

/* Read @id's entry; a missing entry reads as zeros. True if it exists. */
bool policy_lookup(int map_fd, uint64_t id, struct tslack_cgroup *val);

#endif

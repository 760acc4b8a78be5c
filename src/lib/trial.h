/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trial minimums, told apart from settings. tslackctl stats --slack
 * writes a trial min_slack_ns into the map for a while; another writer
 * that reads it meanwhile (tslackd, holding a session's cgroup) must not
 * take it for someone's setting and put it back later, when the trial is
 * long over. So a trial is recorded, under the writers' lock, before it
 * is written: the record says which value is the trial and what it stands
 * in for, until the trial is put back or replaced by a setting.
 */
#ifndef TSLACK_TRIAL_H
#define TSLACK_TRIAL_H

#include <stdint.h>

#include "err.h"

/* Root's alone: only root writes the map. Gone at reboot, as trials are. */
#define TSLACK_TRIAL_DIR "/run/tslack/trial"

/*
 * Under the writers' lock, before the write: @id's min_slack_ns is about
 * to be @trial in place of @old. 0, or -1 with why in @e: then the trial
 * must not be written.
 */
int trial_record(uint64_t id, uint64_t trial, uint64_t old, struct tslack_err *e);

/* Under the lock: @id's trial is over (put back, or a setting replaced it). */
void trial_forget(uint64_t id);

/*
 * What @cur, read from @id's min_slack_ns under the lock, stands for: the
 * value it replaced if it is @id's trial in progress, else @cur itself.
 */
uint64_t trial_underlying(uint64_t id, uint64_t cur);

#endif

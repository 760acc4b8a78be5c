/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading the policy's object for a mode: what each mode runs, and what
 * the loader sets before and after the load. attach.c attaches and pins it.
 */
#ifndef TSLACK_LOAD_H
#define TSLACK_LOAD_H

#include "err.h"
#include "policy.h"
#include "tslack.skel.h"

/*
 * Open and load the policy for @mode with a settings map of
 * @max_cgroups entries and, for the hook, @flags (enum policy_flag):
 * the skeleton, not yet attached, or NULL after saying why in @e.
 */
struct tslack_bpf *policy_load(enum policy_mode mode, unsigned int max_cgroups,
			       unsigned int flags, struct tslack_err *e);

#endif

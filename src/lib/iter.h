/* SPDX-License-Identifier: GPL-2.0 */
/* Running one of the policy's iterators (bpf_iter), as its pinned program. */
#ifndef TSLACK_ITER_H
#define TSLACK_ITER_H

#include <bpf/bpf.h>

/*
 * A read()able fd of the iterator program @prog, filtered as @info says
 * (NULL: none), or -errno. The link it is made from is not kept.
 */
int iter_open(int prog, union bpf_iter_link_info *info);

#endif

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <unistd.h>

#include "iter.h"

int iter_open(int prog, union bpf_iter_link_info *info)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = info,
		    .iter_info_len = info ? sizeof(*info) : 0);
	int link, iter;

	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, &opts);
	if (link < 0)
		return -errno;
	iter = bpf_iter_create(link);
	if (iter < 0)
		iter = -errno;
	close(link);
	return iter;
}

// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <bpf/bpf.h>

#include "map_keys.h"

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

long map_keys(int map_fd, __u64 **keys)
{
	__u64 *out = NULL, *p, key, next;
	long n = 0, cap = 0;
	int ret;

	for (ret = bpf_map_get_next_key(map_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(map_fd, &key, &next)) {
		key = next;
		if (n == cap) {
			cap = cap * 2 + 64;
			p = realloc(out, cap * sizeof(*out));
			if (!p) {
				free(out);
				return -ENOMEM;
			}
			out = p;
		}
		out[n++] = next;
	}
	if (errno != ENOENT) {
		ret = -errno;
		free(out);
		return ret;
	}
	qsort(out, n, sizeof(*out), cmp_u64);
	*keys = out;
	return n;
}

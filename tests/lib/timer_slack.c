// SPDX-License-Identifier: GPL-2.0
/*
 * The slack this thread's sleeps are armed with, as the kernel arms them:
 * a clock_nanosleep() until a time long past, seen by the hrtimer_start
 * tracepoint through a perf event on this thread. Its timer's hard expiry
 * minus its soft one is the slack the sleep got: the hook's answer, or
 * the thread's own slack on a kernel without it. Nothing else of the
 * kernel's tells (the series has no prctl for it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "timer_slack.h"

#define EVENT_DIR "/events/timer/hrtimer_start/"
#define RING_PAGES 2
/* The soft expiry of the sleep: one nanosecond after boot, long past. */
#define PAST_NS 1

struct trace {
	pid_t tid;
	int fd;
	char *ring;
	size_t page;
	int off_expires, off_soft;
};

static struct trace self = { .fd = -1 };

static int read_file(const char *name, char *buf, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	unsigned int i;
	ssize_t n = -1;
	int fd;

	for (i = 0; i < 2 && n < 0; i++) {
		snprintf(path, sizeof(path), "%s" EVENT_DIR "%s", roots[i], name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The offset of the field named @name in the event's format, or -1. */
static int field_offset(const char *format, const char *name)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s;\toffset:", name);
	p = strstr(format, pat);
	return p ? atoi(p + strlen(pat)) : -1;
}

/*
 * The event's id and its two fields, from tracefs, or when it is not
 * readable (as a user) from TSLACK_HRTIMER_START="ID EXPIRES SOFTEXPIRES",
 * which a test sets as root (tslack-probe trace-spec).
 */
static int event_spec(int *id, int *off_expires, int *off_soft)
{
	char buf[4096];
	const char *env;

	if (!read_file("id", buf, sizeof(buf))) {
		*id = atoi(buf);
		if (read_file("format", buf, sizeof(buf)))
			return -1;
		*off_expires = field_offset(buf, "expires");
		*off_soft = field_offset(buf, "softexpires");
	} else if ((env = getenv("TSLACK_HRTIMER_START"))) {
		if (sscanf(env, "%d %d %d", id, off_expires, off_soft) != 3)
			return -1;
	} else {
		return -1;
	}
	return *id > 0 && *off_expires > 0 && *off_soft > 0 ? 0 : -1;
}

int hrtimer_start_spec(char *buf, size_t len)
{
	int id, e, s;

	if (event_spec(&id, &e, &s))
		return -1;
	snprintf(buf, len, "%d %d %d", id, e, s);
	return 0;
}

static int trace_open(struct trace *t)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
	};
	int id;

	if (event_spec(&id, &t->off_expires, &t->off_soft)) {
		fprintf(stderr, "timer_slack: no hrtimer_start event in tracefs\n");
		return -1;
	}
	attr.config = id;
	t->fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (t->fd < 0) {
		perror("timer_slack: perf_event_open(hrtimer_start)");
		return -1;
	}
	t->page = sysconf(_SC_PAGESIZE);
	t->ring = mmap(NULL, (RING_PAGES + 1) * t->page, PROT_READ | PROT_WRITE, MAP_SHARED,
		       t->fd, 0);
	if (t->ring == MAP_FAILED) {
		perror("timer_slack: mmap");
		close(t->fd);
		t->fd = -1;
		return -1;
	}
	t->tid = gettid();
	return 0;
}

/* Copy @len bytes at @pos of the ring, which may wrap, to @dst. */
static void ring_copy(struct trace *t, uint64_t pos, void *dst, size_t len)
{
	size_t size = RING_PAGES * t->page, off = pos % size, first = size - off;
	const char *data = t->ring + t->page;

	if (first > len)
		first = len;
	memcpy(dst, data + off, first);
	memcpy((char *)dst + first, data, len - first);
}

/* The slack of the last sleep with soft expiry PAST_NS in the ring, or -1. */
static long ring_slack(struct trace *t)
{
	struct perf_event_mmap_page *meta = (void *)t->ring;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = meta->data_tail;
	struct perf_event_header h;
	char raw[256];
	int64_t hard, soft;
	long slack = -1;
	uint32_t size;

	while (pos < head) {
		ring_copy(t, pos, &h, sizeof(h));
		if (h.type == PERF_RECORD_SAMPLE && h.size > sizeof(h) + sizeof(size)) {
			ring_copy(t, pos + sizeof(h), &size, sizeof(size));
			if (size > sizeof(raw))
				size = sizeof(raw);
			ring_copy(t, pos + sizeof(h) + sizeof(size), raw, size);
			if ((uint32_t)t->off_soft + 8 <= size && (uint32_t)t->off_expires + 8 <= size) {
				memcpy(&hard, raw + t->off_expires, 8);
				memcpy(&soft, raw + t->off_soft, 8);
				if (soft == PAST_NS)
					slack = hard - soft;
			}
		}
		if (!h.size)
			break;
		pos += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	return slack;
}

long sleep_slack(void)
{
	struct timespec past = { 0, PAST_NS };
	long slack;

	/* Per thread: a child or another thread opens its own. */
	if (self.fd >= 0 && self.tid != gettid()) {
		munmap(self.ring, (RING_PAGES + 1) * self.page);
		close(self.fd);
		self.fd = -1;
	}
	if (self.fd < 0 && trace_open(&self))
		return -1;
	ring_slack(&self);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL);
	slack = ring_slack(&self);
	if (slack < 0)
		fprintf(stderr, "timer_slack: the sleep's hrtimer_start was not seen\n");
	return slack;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Built 32-bit (-m32): lower this program's own timer slack to NS with
 * prctl() and wait until tslackctl follow raises it again, as it does for
 * 64-bit programs (tslack_prctl32). Prints "MICROSECONDS SLACK"; exits 1
 * if nothing raised it within 5 s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long ns = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	struct timespec nap = { 0, 200000 };
	double t0;
	long cur;

	if (prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0)) {
		perror("prctl");
		return 1;
	}
	t0 = now();
	while ((cur = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)) == (long)ns && now() - t0 < 5)
		nanosleep(&nap, NULL);
	printf("%.0f %ld\n", (now() - t0) * 1e6, cur);
	return cur == (long)ns;
}

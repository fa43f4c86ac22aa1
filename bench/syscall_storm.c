// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A load for scripts/bench_trace.sh: getppid() as fast as possible on one
 * CPU for a while, so that `perfring trace -e syscalls:sys_enter_getppid`
 * sees a flat-out event stream. Prints how many calls it made: the events
 * produced, against which the trace's received and lost counts are read.
 *   syscall_storm SECONDS CPU
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

int main(int argc, char **argv)
{
	uint64_t end, calls = 0;
	double secs;
	int i;

	if (argc != 3 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: syscall_storm SECONDS CPU\n");
		return 2;
	}
	if (bench_pin_cpu(atoi(argv[2])))
		return 1;
	prctl(PR_SET_NAME, "syscall_storm", 0, 0, 0);
	end = bench_now_ns() + (uint64_t)(secs * 1e9);
	while (bench_now_ns() < end) {
		for (i = 0; i < 256; i++)
			syscall(SYS_getppid);
		calls += 256;
	}
	printf("storm_calls %llu\n", (unsigned long long)calls);
	return 0;
}

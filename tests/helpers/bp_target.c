// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The breakpoint tests' target (tests/cli/record_events.sh): writes the
 * global bp_target_var N times (argv[1], default 100) from bp_target_write,
 * so that `record -e mem:ADDR:w` (ADDR from nm; built -no-pie, the address
 * is the one at run time) has exactly N user-space hits to compare.
 */
#include <stdio.h>
#include <stdlib.h>

volatile long bp_target_var;

__attribute__((noinline)) void bp_target_write(long v);

__attribute__((noinline)) void bp_target_write(long v)
{
	bp_target_var = v;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 100;

	for (i = 0; i < n; i++)
		bp_target_write(i);
	printf("%ld\n", (long)bp_target_var);
	return 0;
}

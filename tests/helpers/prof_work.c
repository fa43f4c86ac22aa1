// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A CPU-bound program with known functions and call chains, for the export
 * tests (tests/cli/export.sh records it with perf record -g): main ->
 * work_loop -> work_mid -> work_leaf_a (about 3/4 of the time) and
 * work_leaf_b (1/4), and work_io reading /dev/zero (kernel frames under
 * read()). Built with frame pointers (perf's default -g unwinds
 * with them), never inlined or cloned, so every function is its own frame.
 *
 *   prof_work [MS]   run for MS milliseconds of its own CPU time (default 300): a
 *                    loaded machine stretches the run, not the number of samples
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__ /* noclone is gcc's (clang builds: the sanitizer suite) */
#define WORK_FN __attribute__((noinline, used))
#else
#define WORK_FN __attribute__((noinline, noclone, used))
#endif

volatile uint64_t work_sink;

void work_leaf_a(void);
void work_leaf_b(void);
void work_io(void);
void work_mid(int n);
void work_loop(long ms);

WORK_FN void work_leaf_a(void)
{
	for (uint64_t i = 0; i < 2000; i++)
		work_sink += i * i;
}

WORK_FN void work_leaf_b(void)
{
	for (uint64_t i = 0; i < 2000; i++)
		work_sink ^= i + (work_sink >> 3);
}

static int zero_fd = -1;

WORK_FN void work_io(void)
{
	static char buf[1 << 20];

	if (zero_fd >= 0 && read(zero_fd, buf, sizeof(buf)) > 0)
		work_sink += (uint64_t)buf[7];
}

WORK_FN void work_mid(int n)
{
	work_io();
	for (int i = 0; i < n; i++) {
		work_leaf_a();
		if (i % 3 == 0)
			work_leaf_b();
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

WORK_FN void work_loop(long ms)
{
	double end = now_ms() + (double)ms;

	while (now_ms() < end)
		work_mid(100);
}

int main(int argc, char **argv)
{
	zero_fd = open("/dev/zero", O_RDONLY);
	work_loop(argc > 1 ? atol(argv[1]) : 300);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A CPU-bound program whose hot code is inlined, for the exports' --inline
 * test (tests/cli/export_inline.sh): built -O2 -g with frame pointers,
 * main -> inl_outer (a real function) runs inl_mix, forced inline into
 * inl_outer, which runs inl_step, forced inline into inl_mix; inl_step now
 * and then calls inl_callee, a real function. The samples fall in inl_step's
 * and inl_mix's code, the symbol table naming it inl_outer (DWARF's inlined
 * subroutines name the other two), and in inl_callee, whose caller frame is
 * a return address inside inl_step.
 *
 *   inline_work [MS]   run for MS milliseconds (default 300)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#ifdef __clang__
#define OUTER_FN __attribute__((noinline, used))
#else
#define OUTER_FN __attribute__((noinline, noclone, used))
#endif

volatile uint64_t inl_sink;

uint64_t inl_callee(uint64_t x);

static void inl_nop(void)
{
}

/* Called through a volatile pointer: inl_callee is then no leaf function, and
 * gcc gives it a frame pointer (it omits it in leaf functions even with
 * -fno-omit-frame-pointer), so that the call chains hold inl_callee's caller. */
void (*volatile inl_hook)(void) = inl_nop;

/* A real function called from inside the inlined code: its caller's frame is
 * a return address in inl_step, inlined twice. */
OUTER_FN uint64_t inl_callee(uint64_t x)
{
	for (int i = 0; i < 300; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	inl_hook();
	return x;
}

static inline __attribute__((always_inline)) uint64_t inl_step(uint64_t x)
{
	/* xorshift: a chain of dependent operations the compiler cannot fold */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	if ((x & 63) == 0)
		x = inl_callee(x);
	return x;
}

static inline __attribute__((always_inline)) uint64_t inl_mix(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = inl_step(x) + (uint64_t)i;
	return x;
}

void inl_outer(uint64_t seed);

OUTER_FN void inl_outer(uint64_t seed)
{
	uint64_t x = seed | 1;

	for (int i = 0; i < 1000; i++)
		x = inl_mix(x);
	inl_sink = x;
}

/* Its own CPU time: a loaded machine stretches the run, not the number of samples. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	uint64_t end = now_ms() + (uint64_t)ms, n = 0;

	while (now_ms() < end)
		inl_outer(++n);
	return 0;
}

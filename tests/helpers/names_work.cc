// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A CPU-bound program for tests/cli/dwarf_names.sh: the names DWARF gives
 * functions, as perf (through addr2line) shows them in --call-graph dwarf
 * call chains. Built -O2 -g with frame pointers:
 * - C++: main -> names::spin<names::Mixer> (a template) -> names::Mixer::run,
 *   into which names::Mixer::step is forced inline: DWARF names them by
 *   their mangled linkage names, shown demangled;
 * - every other round under names::descend, 24 frames of over 512 bytes:
 *   deeper than the stack perf copies (8 KiB), unwinding runs out of it;
 * - names::clocks reads the clock: samples in the vDSO, unwound through it;
 * - assembly (names_asm.S): names_asm_loop has three names (names_asm_loop,
 *   __names_asm_loop, __GI_names_asm_loop, as glibc's syscall wrappers
 *   have), the assembler writes a DWARF subprogram for each, and addr2line
 *   takes the last.
 *
 *   names_work [ROUNDS]   run ROUNDS rounds (default 900: about 300 ms here)
 */
#include <cstdint>
#include <cstdlib>
#include <ctime>

extern "C" uint64_t names_asm_loop(uint64_t n);

namespace names {
struct Mixer {
	uint64_t v;
	__attribute__((always_inline)) inline void step(uint64_t i)
	{
		v = v * 6364136223846793005ull + i;
		v ^= v >> 13;
	}
	__attribute__((noinline)) void run(uint64_t n)
	{
		for (uint64_t i = 0; i < n; i++)
			step(i);
	}
};

template <typename T> __attribute__((noinline)) uint64_t spin(T &m, uint64_t n)
{
	m.run(n);
	return m.v + names_asm_loop(n);
}

/* The clock read in a loop: samples in the vDSO, unwound through its image
 * (perf's copy in its build-id cache, or the running kernel's). */
__attribute__((noinline)) uint64_t clocks(long n)
{
	struct timespec ts;
	uint64_t sum = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (uint64_t)ts.tv_nsec;
	}
	return sum;
}

/* spin() under depth frames of 512 bytes and more: deeper than the 8 KiB of
 * stack perf record --call-graph dwarf copies, so that the unwinding runs
 * out of stack. */
__attribute__((noinline)) uint64_t descend(Mixer &m, int depth, uint64_t n)
{
	volatile char pad[512];

	pad[0] = (char)depth;
	if (depth == 0)
		return spin(m, n);
	return descend(m, depth - 1, n) + (uint64_t)pad[0];
}
} // namespace names

volatile uint64_t names_sink;


/* A number of rounds, not a time: main reads no clock, so that no sample
 * falls in clock_gettime called from code inlined into main, whose caller's
 * address ended an inlined range where bfd (addr2line, perf) and libdw
 * disagree (names::clocks is a function of its own). */
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], nullptr, 10) : 900;
	names::Mixer m{1};

	for (long i = 0; i < rounds; i++) {
		names_sink = (i % 2 ? names::descend(m, 24, 200000) : names::spin(m, 200000)) + names::clocks(2000);
	}
	return 0;
}

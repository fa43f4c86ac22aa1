// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A CPU-bound program for tests/cli/dwarf_names.sh: the names DWARF gives
 * functions, as perf (through addr2line) shows them in --call-graph dwarf
 * call chains. Built -O2 -g with frame pointers:
 * - C++: main -> names::spin<names::Mixer> (a template) -> names::Mixer::run,
 *   into which names::Mixer::step is forced inline: DWARF names them by
 *   their mangled linkage names, shown demangled;
 * - assembly (names_asm.S): names_asm_loop has three names (names_asm_loop,
 *   __names_asm_loop, __GI_names_asm_loop, as glibc's syscall wrappers
 *   have), the assembler writes a DWARF subprogram for each, and addr2line
 *   takes the last.
 *
 *   names_work [MS]   run for MS milliseconds (default 300)
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
} // namespace names

static double now_ms()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

volatile uint64_t names_sink;

int main(int argc, char **argv)
{
	double ms = argc > 1 ? strtod(argv[1], nullptr) : 300, end = now_ms() + ms;
	names::Mixer m{1};

	while (now_ms() < end)
		names_sink = names::spin(m, 200000);
	return 0;
}

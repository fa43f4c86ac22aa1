// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The oracle's C program (tests/cli/oracle.sh): a shared library
 * (c_lib.c) calling back into the program, recursion, always-inline
 * functions, glibc's qsort with a comparison callback, and page faults
 * (fresh memory touched). A number of rounds, not a time: the same work on a
 * busy machine.  c_main [ROUNDS] */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t (*oracle_fn)(uint64_t);
uint64_t oracle_lib_apply(oracle_fn fn, uint64_t n);
uint64_t oracle_lib_recurse(oracle_fn fn, int depth, uint64_t n);

volatile uint64_t oracle_sink;

static inline __attribute__((always_inline)) uint64_t mix(uint64_t v)
{
	v ^= v >> 17;
	v *= 0xed5ad4bbu;
	return v ^ (v >> 11);
}

__attribute__((noinline)) uint64_t callback(uint64_t i)
{
	return mix(i) & 0xff;
}

__attribute__((noinline)) uint64_t fib(int n)
{
	return n < 2 ? (uint64_t)n : fib(n - 1) + fib(n - 2);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void sort_some(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = mix(i * 2654435761u);
	qsort(v, n, sizeof(*v), cmp_u64);
	oracle_sink += v[n / 2];
	free(v);
}

__attribute__((noinline)) void touch_pages(size_t pages)
{
	char *p = malloc(pages * 4096);

	memset(p, 1, pages * 4096);
	oracle_sink += (uint64_t)p[4096];
	free(p);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 20;

	for (long r = 0; r < rounds; r++) {
		oracle_sink += oracle_lib_apply(callback, 200000);
		oracle_sink += oracle_lib_recurse(callback, 6, 100000);
		oracle_sink += fib(22);
		sort_some(40000);
		touch_pages(256);
	}
	return 0;
}

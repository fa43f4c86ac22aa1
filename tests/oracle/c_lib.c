// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The shared library of the oracle's C program (tests/oracle/c_main.c): a
 * callback called from the library, and recursion inside it. */
#include <stdint.h>

typedef uint64_t (*oracle_fn)(uint64_t);

__attribute__((noinline)) uint64_t oracle_lib_apply(oracle_fn fn, uint64_t n)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s += fn(i);
	return s;
}

__attribute__((noinline)) uint64_t oracle_lib_recurse(oracle_fn fn, int depth, uint64_t n)
{
	if (depth == 0)
		return oracle_lib_apply(fn, n);
	return oracle_lib_recurse(fn, depth - 1, n) + (uint64_t)depth;
}

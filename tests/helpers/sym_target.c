// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program with known functions, for the symbolizer's tests
 * (tests/unit/symbol_elf.c): built with -g and -rdynamic (its global
 * functions are in .dynsym too, so a stripped copy still names them), never
 * inlined or cloned, so that `nm` gives each one's address and size. One
 * static function (only in .symtab) and one always-inlined function (only in
 * DWARF: its frames) complete the set. Run with no argument it calls each
 * once and exits 0.
 */
#include <stdio.h>
#include <string.h>

#define SYMT_FN __attribute__((noinline, noclone, used))

volatile int symt_sink;

int symt_alpha(int x);
int symt_beta(int x);
int symt_gamma(const char *s);
int symt_outer(int x);

SYMT_FN int symt_alpha(int x)
{
	int i;

	for (i = 0; i < x; i++)
		symt_sink += i * 7;
	return symt_sink;
}

SYMT_FN int symt_beta(int x)
{
	symt_sink ^= x;
	symt_sink += symt_alpha(x & 3);
	return symt_sink * 3;
}

SYMT_FN int symt_gamma(const char *s)
{
	int n = 0;

	while (*s) {
		n += *s++;
		symt_sink += n;
	}
	return n;
}

static SYMT_FN int symt_local(int x)
{
	symt_sink += x;
	symt_sink *= 5;
	symt_sink -= x >> 1;
	return symt_sink;
}

static inline __attribute__((always_inline)) int symt_inlined(int x)
{
	symt_sink += x * 11;
	symt_sink ^= 0x5a5a;
	return symt_sink;
}

SYMT_FN int symt_outer(int x)
{
	int r;

	symt_sink++;
	r = symt_inlined(x);
	symt_sink--;
	return r + 1;
}

int main(int argc, char **argv)
{
	int r = symt_alpha(3) + symt_beta(4) + symt_gamma("perfring") + symt_local(5) + symt_outer(6);

	if (argc > 1 && !strcmp(argv[1], "print"))
		printf("%d\n", r);
	return 0;
}

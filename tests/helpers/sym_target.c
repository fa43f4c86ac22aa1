// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program with known functions, for the symbolizer's tests
 * (tests/unit/symbol_elf.c): built with -g and -rdynamic (its global
 * functions are in .dynsym too, so a stripped copy still names them), never
 * inlined or cloned, so that `nm` gives each one's address and size. One
 * static function (only in .symtab) and one always-inlined function (only in
 * DWARF: its frames) complete the set, with two data objects. Run with no argument it calls each
 * once and exits 0; with "spin SECONDS" it calls them in a loop for that
 * long, with libc (qsort, memset) and system calls (write to /dev/null) in
 * between, for the tests that profile it (tests/cli/script_oracle.sh); with
 * "clock SECONDS" it calls clock_gettime (the vDSO) in a loop.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __clang__ /* noclone is gcc's (clang builds: the sanitizer suite) */
#define SYMT_FN __attribute__((noinline, used))
#else
#define SYMT_FN __attribute__((noinline, noclone, used))
#endif

volatile unsigned int symt_sink; /* unsigned: spinning wraps it (no signed overflow for UBSan) */
/* Data objects (STT_OBJECT), which name addresses as perf names them. */
__attribute__((used)) const unsigned char symt_table[256] = { 1, 2, 3 };
__attribute__((used)) unsigned long symt_data[8] = { 7 };

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

static int symt_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Known functions, libc and the kernel, for `seconds`. */
static SYMT_FN void symt_spin(double seconds)
{
	struct timespec t0, t;
	static int v[2048];
	char buf[8192];
	int fd = open("/dev/null", O_WRONLY), i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		symt_alpha(20000);
		symt_beta(7);
		symt_gamma("perfring symbolizes this string");
		symt_local(3);
		symt_outer(5);
		for (i = 0; i < 2048; i++)
			v[i] = (i * 7919) % 2048;
		qsort(v, 2048, sizeof(v[0]), symt_cmp);
		memset(buf, symt_sink, sizeof(buf));
		if (fd >= 0 && write(fd, buf, sizeof(buf)) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	if (fd >= 0)
		close(fd);
}

/* The vDSO's clock_gettime for `seconds`: most samples in [vdso]. */
static SYMT_FN void symt_clock(double seconds)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	int r;

	if (argc > 2 && !strcmp(argv[1], "spin")) {
		symt_spin(atof(argv[2]));
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "clock")) {
		symt_clock(atof(argv[2]));
		return 0;
	}
	r = symt_alpha(3) + symt_beta(4) + symt_gamma("perfring") + symt_local(5) + symt_outer(6);
	if (argc > 1 && !strcmp(argv[1], "print"))
		printf("%d\n", r);
	return 0;
}

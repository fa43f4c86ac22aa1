// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the kernel symbol table reader (src/symbol/sym_kernel.c,
 * pr_kallsyms_load(): lines "ADDR TYPE NAME[\t[MODULE]]" parsed by hand,
 * sorted by merging their ascending runs): the input is a kallsyms file,
 * damaged at will, written to a memfd and named as the symbolizer's
 * opts.kallsyms. Kernel addresses are symbolized: sixteen spread over the
 * addresses the input's first lines name, and those its last 64 bytes
 * name. Nothing may crash or read out of bounds, and results keep the
 * API's promises (a name and an offset inside the function's (or data
 * object's) size, known flags, or NULL with a reason; every string
 * readable). Seeds: tests/fuzz/corpus/kallsyms/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include <perfring/symbol.h>

static int memfd = -1;

static void finding(const char *what, long long a)
{
	fprintf(stderr, "kallsyms_fuzz: FINDING: %s (%lld)\n", what, a);
	abort();
}

static void check(int rc, const struct perfring_sym_result *r)
{
	volatile size_t sink = 0;

	if (rc == 0) {
		if (!r->name)
			finding("success without a name", rc);
		if (r->sym_size && r->offset >= r->sym_size)
			finding("offset past the function's size", (long long)r->offset);
		if (r->flags & ~PERFRING_SYM_OBJECT)
			finding("unknown flags", (long long)r->flags);
		sink += strlen(r->name) + (r->binary ? strlen(r->binary) : 0);
	} else {
		if (rc > 0)
			finding("positive return", rc);
		if (r->name || !r->reason || !*r->reason)
			finding("failure with a name or without a reason", rc);
		sink += strlen(r->reason);
	}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .jit_dir = "");
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	uint64_t lo = UINT64_MAX, hi = 0, a;
	char path[64];
	size_t k;
	const uint8_t *p = data, *end = data + size;

	if (memfd < 0 && (memfd = memfd_create("kallsyms_fuzz", MFD_CLOEXEC)) < 0)
		return 0;
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	o.kallsyms = path;
	/* the range the first lines' addresses span */
	for (k = 0; k < 64 && p < end; k++) {
		char line[32];
		size_t n = 0;

		while (p < end && *p != '\n' && n < sizeof(line) - 1)
			line[n++] = (char)*p++;
		line[n] = '\0';
		while (p < end && *p++ != '\n')
			;
		a = strtoull(line, NULL, 16);
		if (a) {
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	s = perfring_symbolizer_new(&o);
	if (!s)
		return 0;
	for (k = 0; k < 16 && lo <= hi; k++) {
		a = lo + (hi - lo) / 16 * k + k;
		check(perfring_symbolize(s, NULL, 0, a, PERF_RECORD_MISC_KERNEL, &r), &r);
	}
	for (k = 0; k + 8 <= 64 && k + 8 <= size; k += 8) {
		memcpy(&a, data + size - 8 - k, 8);
		check(perfring_symbolize(s, NULL, 0, a, PERF_RECORD_MISC_KERNEL, &r), &r);
	}
	perfring_symbolizer_free(s);
	return 0;
}

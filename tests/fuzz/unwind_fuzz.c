// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the DWARF unwinder of recorded user stacks
 * (tools/shared/unwind.c, perf record --call-graph dwarf): the input is
 * a sample's user registers (17 words: perf's x86-64 AX..R15 with IP and SP)
 * and its stack copy, damaged at will. The process is this one (its maps
 * from /proc), the IP is moved into this binary's text, so that libdwfl
 * reads real call frame information and then follows the fuzzed stack.
 * Nothing may crash, read outside the copy or loop: the frames are at most
 * the number asked for. Seeds: tests/fuzz/corpus/unwind/ (a real stack of
 * this target, and damaged ones).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <perfring/record.h>
#include <perfring/symbol.h>

#include "shared/unwind.h"

#define NREGS 24 /* perf's x86-64 registers AX..R15 (bits 0-23, 16 of them not 9-15) */

static struct perfring_procs *procs;
static struct unwinder *unwinder;

static void finding(const char *what, long long a)
{
	fprintf(stderr, "unwind_fuzz: FINDING: %s (%lld)\n", what, a);
	abort();
}

static __attribute__((noinline)) int anchor(int x)
{
	return x * 3 + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t regs[NREGS] = { 0 }, ips[64], mask = 0;
	struct perfring_sample s;
	size_t i, n, nregs = 0, max;

	if (!procs) {
		procs = perfring_procs_new(NULL);
		unwinder = unwinder_new();
		if (!procs || !unwinder || perfring_procs_load_proc(procs, (uint32_t)getpid()))
			abort();
	}
	if (size < 17 * 8 + 8)
		return 0;
	/* perf's mask of AX..DI, BP, SP, IP, FLAGS..GS, R8..R15: the values in bit order */
	for (i = 0; i < NREGS; i++) {
		mask |= 1ull << i;
		memcpy(&regs[nregs++], data + 8 * (i % 17), 8);
	}
	/* IP (bit 8) inside this binary's text, SP (bit 7) the copy's start as the sample says */
	regs[8] = (uint64_t)(uintptr_t)anchor + regs[8] % 64;
	memset(&s, 0, sizeof(s));
	s.present = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	s.pid = s.tid = (uint32_t)getpid();
	s.regs_user.abi = 2;
	s.regs_user.mask = mask;
	s.regs_user.regs.data = regs;
	s.regs_user.regs.nr = nregs;
	s.stack_user.data = data + 17 * 8;
	s.stack_user.size = size - 17 * 8;
	/* the kernel's dyn_size: what it copied, at most the size (here up to 15 bytes less) */
	s.stack_user.dyn_size = s.stack_user.size - data[size - 1] % 16 % (s.stack_user.size + 1);
	max = 1 + data[0] % 64;
	n = unwind_stack(unwinder, procs, &s, ips, max);
	if (n > max)
		finding("more frames than asked for", (long long)n);
	/* the binary is this one, mapped: the first frame is the sampled pc itself
	 * (when the kernel copied anything: else there is nothing to unwind) */
	if (s.stack_user.dyn_size && (!n || ips[0] != regs[8]))
		finding("the first frame is not the sampled pc", (long long)n);
	(void)anchor(0);
	return 0;
}

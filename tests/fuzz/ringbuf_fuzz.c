// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the BPF ring buffer layer: a memory ring buffer with
 * hostile positions and length words, consumed with budgets, early stops
 * and callback errors.
 *
 * Input: a 24-byte prefix, then the data area's bytes (repeated to fill it).
 *   [0]     bits 0-2 budget (0: none, else 1 << (v - 1)), bit 3 stop at the
 *           k-th record ([2]), bit 4 fail at it, bit 5 discard after an error
 *   [1]     log2 of the data area size, & 15, at least 3 (8 bytes .. 32 KiB)
 *   [2]     k
 *   [8..15] consumer_pos, [16..23] producer_pos (free-running)
 * The mapping (consumer page, producer page, data area twice, as the kernel
 * maps it) is heap memory of exactly its length, so ASan sees any read
 * outside it. The harness checks ringbuf.h's promises: every payload lies
 * inside the two copies of the data area and is no longer than the ring,
 * the count returned equals the callbacks that consumed, consumer_pos
 * never passes producer_pos, at most budget records per call, and the walk
 * ends (a bounded number of calls drains or reports it); it aborts after a
 * "ringbuf_fuzz: FINDING:" line when one breaks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/ringbuf.h>

#define PAGE 64u

static void finding(const char *what, unsigned long long a, unsigned long long b)
{
	fprintf(stderr, "ringbuf_fuzz: FINDING: %s (%llu, %llu)\n", what, a, b);
	abort();
}

struct ctx {
	const uint8_t *area; /* first copy of the data area */
	uint64_t size;
	int calls, consumed, stop_at, fail_at;
	unsigned sum;
};

static int on_record(void *arg, const void *data, size_t size)
{
	struct ctx *c = arg;
	const uint8_t *p = data;
	size_t i;

	if (p < c->area || p + size > c->area + 2 * c->size)
		finding("payload outside the data area's two copies", (unsigned long long)(p - c->area), size);
	if (size + 8 > c->size)
		finding("payload longer than the ring", size, c->size);
	for (i = 0; i < size; i++) /* touch every byte: ASan checks the bounds */
		c->sum += p[i];
	c->calls++;
	if (c->calls == c->fail_at)
		return -EIO;
	c->consumed++;
	return c->calls == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	struct perfring_ringbuf *rb;
	struct ctx c;
	uint64_t size, cons, prod, *mem;
	size_t len, budget, i;
	uint8_t *base;
	int round, ret;

	if (n < 24)
		return 0;
	size = 1ull << ((in[1] & 15) < 3 ? 3 : (in[1] & 15));
	len = 2 * PAGE + 2 * size;
	mem = malloc(len);
	if (!mem)
		return 0;
	base = (uint8_t *)mem;
	memset(base, 0, 2 * PAGE);
	memcpy(&cons, in + 8, 8);
	memcpy(&prod, in + 16, 8);
	memcpy(base, &cons, 8);
	memcpy(base + PAGE, &prod, 8);
	for (i = 0; i < size; i++)
		base[2 * PAGE + i] = n > 24 ? in[24 + i % (n - 24)] : 0;
	memcpy(base + 2 * PAGE + size, base + 2 * PAGE, size); /* the second mapping */
	rb = perfring_ringbuf_new_mem(base, len, PAGE, NULL);
	if (!rb)
		finding("a valid memory ring buffer was refused", size, 0);
	memset(&c, 0, sizeof(c));
	c.area = base + 2 * PAGE;
	c.size = size;
	c.stop_at = (in[0] & 8) ? in[2] : -1;
	c.fail_at = (in[0] & 16) ? in[2] : -1;
	budget = (in[0] & 7) ? (size_t)1 << ((in[0] & 7) - 1) : 0;
	for (round = 0; round < 64; round++) {
		uint64_t before, after;
		int consumed0 = c.consumed;

		before = *(volatile uint64_t *)base;
		ret = perfring_ringbuf_consume(rb, budget, on_record, &c);
		after = *(volatile uint64_t *)base;
		if (ret >= 0 && ret != c.consumed - consumed0)
			finding("returned count differs from the records consumed", (unsigned)ret,
				(unsigned)(c.consumed - consumed0));
		if (budget && ret > (int)budget)
			finding("more records than the budget", (unsigned)ret, budget);
		if (after != before && (prod - after) > (prod - before))
			finding("consumer_pos moved backwards or past producer_pos", before, after);
		if (ret < 0 && (in[0] & 32))
			perfring_ringbuf_discard(rb);
		if (ret == 0 && c.calls == c.consumed)
			break;
		if (c.calls > (int)(size / 8) * 64 + 64)
			finding("more callbacks than records could fit", (unsigned)c.calls, size);
	}
	perfring_ringbuf_free(rb);
	free(mem);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the BPF ring buffer layer: a memory ring buffer with
 * hostile positions and length words, consumed with budgets, early stops
 * and callback errors; and a twin of it (the same bytes in a second
 * mapping) drained with the inline cursor (perfring_ringbuf_cursor_next()),
 * which must agree with perfring_ringbuf_consume() round by round: the same
 * records (offset and size), the same count or error, the same
 * consumer_pos and error offset.
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
	uint64_t where; /* a hash of each record's offset and size, in order */
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
	c->where = c->where * 1000003u + (uint64_t)(p - c->area) * 131u + size;
	c->calls++;
	if (c->calls == c->fail_at)
		return -EIO;
	c->consumed++;
	return c->calls == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

/*
 * One round on the twin with the cursor, as perfring_ringbuf_consume(budget)
 * with on_record(): a record the callback fails is not consumed (the cursor
 * is put back on its header, after the DISCARD records skipped before it, as
 * consume does: the harness reaches into the cursor's private fields), a
 * PERFRING_STOP ends the batch after it.
 */
static int cursor_round(struct perfring_ringbuf *rb, struct ctx *c, size_t budget)
{
	struct perfring_rb_cursor cur;
	const void *d;
	uint32_t size;
	int64_t avail = perfring_ringbuf_cursor(rb, &cur);
	int n = 0, ret = 0;

	if (avail < 0) {
		if (cur.err != (int)avail)
			finding("cursor: the set-up error differs from c.err", (unsigned)-avail, (unsigned)-cur.err);
		return (int)avail;
	}
	while (!budget || (size_t)n < budget) {
		d = perfring_ringbuf_cursor_next(&cur, &size);
		if (!d)
			break;
		ret = on_record(c, d, size);
		if (ret < 0) {
			cur.p = (const uint8_t *)d - 8;
			cur.n--;
			break;
		}
		n++;
		if (ret == PERFRING_STOP) {
			ret = 0;
			break;
		}
	}
	perfring_ringbuf_cursor_commit(rb, &cur);
	if (ret < 0)
		return ret;
	return cur.err ? cur.err : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	struct perfring_ringbuf *rb, *rb2;
	struct ctx c, c2;
	uint64_t size, cons, prod, *mem, *mem2;
	size_t len, budget, i;
	uint8_t *base, *base2;
	int round, ret, ret2;

	if (n < 24)
		return 0;
	size = 1ull << ((in[1] & 15) < 3 ? 3 : (in[1] & 15));
	len = 2 * PAGE + 2 * size;
	mem = malloc(len);
	mem2 = malloc(len);
	if (!mem || !mem2) {
		free(mem);
		free(mem2);
		return 0;
	}
	base = (uint8_t *)mem;
	memset(base, 0, 2 * PAGE);
	memcpy(&cons, in + 8, 8);
	memcpy(&prod, in + 16, 8);
	memcpy(base, &cons, 8);
	memcpy(base + PAGE, &prod, 8);
	for (i = 0; i < size; i++)
		base[2 * PAGE + i] = n > 24 ? in[24 + i % (n - 24)] : 0;
	memcpy(base + 2 * PAGE + size, base + 2 * PAGE, size); /* the second mapping */
	base2 = (uint8_t *)mem2;
	memcpy(base2, base, len);
	rb = perfring_ringbuf_new_mem(base, len, PAGE, NULL);
	rb2 = perfring_ringbuf_new_mem(base2, len, PAGE, NULL);
	if (!rb || !rb2)
		finding("a valid memory ring buffer was refused", size, 0);
	memset(&c, 0, sizeof(c));
	c.area = base + 2 * PAGE;
	c.size = size;
	c.stop_at = (in[0] & 8) ? in[2] : -1;
	c.fail_at = (in[0] & 16) ? in[2] : -1;
	budget = (in[0] & 7) ? (size_t)1 << ((in[0] & 7) - 1) : 0;
	c2 = c;
	c2.area = base2 + 2 * PAGE;
	for (round = 0; round < 64; round++) {
		uint64_t before, after;
		int consumed0 = c.consumed;

		before = *(volatile uint64_t *)base;
		ret = perfring_ringbuf_consume(rb, budget, on_record, &c);
		after = *(volatile uint64_t *)base;
		ret2 = cursor_round(rb2, &c2, budget);
		if (ret2 != ret)
			finding("cursor and consume return differently", (unsigned)ret, (unsigned)ret2);
		if (*(volatile uint64_t *)base2 != after)
			finding("cursor and consume leave consumer_pos differently", after, *(volatile uint64_t *)base2);
		if (c2.calls != c.calls || c2.consumed != c.consumed || c2.sum != c.sum || c2.where != c.where)
			finding("cursor and consume deliver different records", (unsigned)c.calls, (unsigned)c2.calls);
		if (ret < 0 && perfring_ringbuf_error_offset(rb) != perfring_ringbuf_error_offset(rb2))
			finding("cursor and consume report different error offsets", perfring_ringbuf_error_offset(rb),
				perfring_ringbuf_error_offset(rb2));
		if (ret >= 0 && ret != c.consumed - consumed0)
			finding("returned count differs from the records consumed", (unsigned)ret,
				(unsigned)(c.consumed - consumed0));
		if (budget && ret > (int)budget)
			finding("more records than the budget", (unsigned)ret, budget);
		if (after != before && (prod - after) > (prod - before))
			finding("consumer_pos moved backwards or past producer_pos", before, after);
		if (ret < 0 && (in[0] & 32)) {
			perfring_ringbuf_discard(rb);
			perfring_ringbuf_discard(rb2);
		}
		if (ret == 0 && c.calls == c.consumed)
			break;
		if (c.calls > (int)(size / 8) * 64 + 64)
			finding("more callbacks than records could fit", (unsigned)c.calls, size);
	}
	perfring_ringbuf_free(rb);
	perfring_ringbuf_free(rb2);
	free(mem);
	free(mem2);
	return 0;
}

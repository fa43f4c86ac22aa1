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
 * With bit 6 of [0], the ring is an overwrite ring (BPF_F_RB_OVERWRITE),
 * overwrite_pos = producer_pos - [4..7] in its producer page: it is read
 * newest first, as copies, with budgets, stops and failures as above
 * (every copy no longer than the ring, fully readable, a bounded number of
 * callbacks, the walk ends), and, on a fresh twin, read whole in one call
 * it must give exactly the records a forward read from max(consumer_pos,
 * overwrite_pos) gives, in reverse, or fail where that one fails.
 *
 * Input: a 24-byte prefix, then the data area's bytes (repeated to fill it).
 *   [0]     bits 0-2 budget (0: none, else 1 << (v - 1)), bit 3 stop at the
 *           k-th record ([2]), bit 4 fail at it, bit 5 discard after an
 *           error, bit 6 overwrite ring
 *   [1]     log2 of the data area size, & 15, at least 3 (8 bytes .. 32 KiB)
 *   [2]     k
 *   [4..7]  overwrite: how far overwrite_pos is behind producer_pos (u32)
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

/* ---- overwrite rings ---- */

#define OW_MAX 4097 /* records of a 32 KiB ring, at least 8 bytes each */

struct ow_ctx {
	uint64_t ring_size;
	int calls, consumed, stop_at, fail_at;
	unsigned sum;
	uint64_t rec[OW_MAX]; /* a hash of each record (size, bytes), in delivery order */
	int n;
};

static uint64_t rec_hash(const uint8_t *p, size_t size)
{
	uint64_t h = 1469598103934665603ull ^ size;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int ow_record(void *arg, const void *data, size_t size)
{
	struct ow_ctx *c = arg;
	const uint8_t *p = data;

	if (size + 8 > c->ring_size)
		finding("overwrite: payload longer than the ring", size, c->ring_size);
	if (c->n < OW_MAX)
		c->rec[c->n++] = rec_hash(p, size); /* reads every byte: ASan checks the copy */
	c->calls++;
	if (c->calls == c->fail_at)
		return -EIO;
	c->consumed++;
	return c->calls == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

/* A fresh memory ring: consumer page, producer page (producer_pos, and
 * overwrite_pos at byte 16), the data area twice. */
static uint8_t *ow_mem(const uint8_t *in, size_t n, uint64_t size, uint64_t cons, uint64_t prod, uint64_t over)
{
	uint8_t *base = malloc(2 * PAGE + 2 * size);
	uint64_t i;

	if (!base)
		return NULL;
	memset(base, 0, 2 * PAGE);
	memcpy(base, &cons, 8);
	memcpy(base + PAGE, &prod, 8);
	memcpy(base + PAGE + 16, &over, 8);
	for (i = 0; i < size; i++)
		base[2 * PAGE + i] = n > 24 ? in[24 + i % (n - 24)] : 0;
	memcpy(base + 2 * PAGE + size, base + 2 * PAGE, size);
	return base;
}

static void overwrite_case(const uint8_t *in, size_t n, uint64_t size, uint64_t cons, uint64_t prod)
{
	struct perfring_ringbuf_opts o = { .sz = sizeof(o), .overwrite = true };
	struct perfring_rb_cursor cur;
	struct perfring_ringbuf *rb, *fw;
	struct ow_ctx *c, *f;
	uint64_t over, lo;
	uint32_t dist;
	uint8_t *m1, *m2, *m3;
	size_t budget = (in[0] & 7) ? (size_t)1 << ((in[0] & 7) - 1) : 0;
	int round, ret, ret_fw, i;
	bool full;

	memcpy(&dist, in + 4, 4);
	over = prod - dist;
	m1 = ow_mem(in, n, size, cons, prod, over);
	m2 = ow_mem(in, n, size, cons, prod, over);
	lo = (int64_t)(over - cons) < 0 ? cons : over; /* where a snapshot starts */
	m3 = ow_mem(in, n, size, lo, prod, 0);
	c = calloc(1, sizeof(*c));
	f = calloc(1, sizeof(*f));
	if (!m1 || !m2 || !m3 || !c || !f)
		goto out;
	/* Rounds with budgets, stops and failures. */
	rb = perfring_ringbuf_new_mem(m1, 2 * PAGE + 2 * size, PAGE, &o);
	if (!rb)
		finding("a valid memory overwrite ring buffer was refused", size, 0);
	if (perfring_ringbuf_cursor(rb, &cur) != -EOPNOTSUPP)
		finding("the cursor took an overwrite ring", 0, 0);
	c->ring_size = size;
	c->stop_at = (in[0] & 8) ? in[2] : -1;
	c->fail_at = (in[0] & 16) ? in[2] : -1;
	for (round = 0; round < 64; round++) {
		int consumed0 = c->consumed;

		c->n = 0;
		ret = perfring_ringbuf_consume(rb, budget, ow_record, c);
		if (ret >= 0 && ret != c->consumed - consumed0)
			finding("overwrite: returned count differs from the records consumed", (unsigned)ret,
				(unsigned)(c->consumed - consumed0));
		if (budget && ret > (int)budget)
			finding("overwrite: more records than the budget", (unsigned)ret, budget);
		if (ret < 0 && (in[0] & 32))
			perfring_ringbuf_discard(rb);
		if (ret == 0 && c->calls == c->consumed)
			break;
		if (c->calls > (int)(size / 8) * 64 + 64)
			finding("overwrite: more callbacks than records could fit", (unsigned)c->calls, size);
	}
	perfring_ringbuf_free(rb);

	/* One whole read against a forward read from where it starts. */
	rb = perfring_ringbuf_new_mem(m2, 2 * PAGE + 2 * size, PAGE, &o);
	fw = perfring_ringbuf_new_mem(m3, 2 * PAGE + 2 * size, PAGE, NULL);
	if (!rb || !fw)
		finding("a valid memory ring buffer was refused", size, 1);
	memset(c, 0, sizeof(*c));
	memset(f, 0, sizeof(*f));
	c->ring_size = f->ring_size = size;
	c->stop_at = c->fail_at = f->stop_at = f->fail_at = -1;
	ret = perfring_ringbuf_consume(rb, 0, ow_record, c);
	ret_fw = perfring_ringbuf_consume(fw, 0, ow_record, f);
	/* A record that close to a full ring behind producer_pos may have had
	 * its header rewritten by a reservation in flight: the overwrite read
	 * drops it (the kernel never lets it come to that), unless it is a
	 * DISCARD record anyway. */
	full = prod - lo + 8 > size;
	if (prod & 7) { /* the forward walk may stop at a BUSY word first */
		if (ret >= 0)
			finding("overwrite read with a misaligned producer_pos", prod, (unsigned)ret);
	} else if ((int64_t)(prod - over) < 0) { /* overwrite_pos is ahead: -EAGAIN, or corrupt */
		if (ret >= 0)
			finding("overwrite_pos ahead of producer_pos was read", over, prod);
	} else if (ret_fw < 0) {
		if (ret >= 0)
			finding("overwrite read succeeded where the forward read failed", (unsigned)ret,
				(unsigned)-ret_fw);
	} else {
		if (ret != ret_fw && !(full && ret == ret_fw - 1))
			finding("overwrite and forward reads differ in count", (unsigned)ret, (unsigned)ret_fw);
		for (i = 0; i < c->n && i < f->n; i++)
			if (c->rec[i] != f->rec[f->n - 1 - i])
				finding("overwrite read is not the forward read reversed", (unsigned)i, (unsigned)c->n);
	}
	perfring_ringbuf_free(rb);
	perfring_ringbuf_free(fw);
out:
	free(m1);
	free(m2);
	free(m3);
	free(c);
	free(f);
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
	if (in[0] & 64) {
		free(mem);
		free(mem2);
		overwrite_case(in, n, size, cons, prod);
		return 0;
	}
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

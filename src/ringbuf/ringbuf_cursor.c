// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The out-of-line half of the ring buffer's inline cursor (ringbuf.h):
 * batch set-up, the records the inline path leaves (BUSY, DISCARD, a
 * length that is not possible, the end of the batch) and the commit; and
 * pr_rb_corrupt(), where every check of the layer ends (the bottom file of
 * src/ringbuf/: ringbuf.c -> ringbuf_overwrite.c -> ringbuf_cursor.c).
 *
 * Why the inline path cannot overrun: the batch [start, producer_pos) is
 * at most data_size bytes and starts inside the first copy of the data
 * area, which is mapped twice in a row, so the whole batch, and the length
 * word right after it, lie inside the mapping and a record never wraps.
 * The inline path takes a record only if its rounded size fits before
 * limit, which is never past the snapshot and never more than 2^30 bytes
 * ahead: a length word with BUSY (bit 31) or DISCARD (bit 30) set then
 * always fails the test, as does any length beyond the snapshot, so every
 * unusual word lands here, where it is checked against the snapshot itself.
 */
#include <string.h>

#include "ringbuf/ringbuf_internal.h"

/* A corrupt length word or position at pos, from the walk of
 * ringbuf_internal.h, the cursor or an overwrite snapshot: counted, and
 * said. */
int pr_rb_corrupt(struct perfring_ringbuf *rb, uint64_t pos, const char *why)
{
	rb->error_offset = pos;
	pr_counter_add(&rb->stats.corrupt, 1);
	if (rb->fd >= 0)
		return pr_fail(PERFRING_ECORRUPT,
			       "BPF ring buffer (map fd %d) is corrupt at position %llu: %s; records before it were "
			       "delivered, perfring_ringbuf_discard() drops the rest to go on",
			       rb->fd, (unsigned long long)pos, why);
	return pr_fail(PERFRING_ECORRUPT,
		       "BPF ring buffer (memory) is corrupt at position %llu: %s; records before it were delivered, "
		       "perfring_ringbuf_discard() drops the rest to go on",
		       (unsigned long long)pos, why);
}

#define CURSOR_SPAN (1ull << 30) /* the most limit may run ahead of p */

/* Let the inline path run from p to the snapshot, at most CURSOR_SPAN. */
static void cursor_limit(struct perfring_rb_cursor *c)
{
	uint64_t left = (uint64_t)(c->end - c->p);

	c->limit = c->p + (left < CURSOR_SPAN ? left : CURSOR_SPAN);
}

/* The position of the cursor's next record. */
static uint64_t cursor_pos(const struct perfring_rb_cursor *c)
{
	return c->start + (uint64_t)(c->p - c->first);
}

/* End the batch at p: the inline path and the slow path both stop there. */
static void cursor_stop(struct perfring_rb_cursor *c)
{
	c->end = c->p;
	c->limit = c->p;
}

/* What a cursor without a ring points at: next() reads a length word
 * wherever p points, so p must always be readable. */
static const uint64_t no_ring_word;

/* A batch that cannot start (no ring, an overwrite ring, corrupt
 * positions): err set, and an empty batch at an address next() may read. */
static int64_t cursor_refused(struct perfring_ringbuf *rb, struct perfring_rb_cursor *c, uint64_t start)
{
	memset(c, 0, sizeof(*c));
	c->rb = rb;
	c->first = c->p = c->end = c->limit = (const uint8_t *)&no_ring_word;
	if (!rb) {
		c->err = pr_fail(EINVAL, "perfring_ringbuf_cursor: ring buffer is NULL");
		return c->err;
	}
	if (rb->overwrite) {
		c->err = pr_fail(EOPNOTSUPP, "perfring_ringbuf_cursor: an overwrite ring buffer is read newest first, "
					     "as copies: use perfring_ringbuf_consume()");
		return c->err;
	}
	c->start = start;
	c->first = c->p = c->end = c->limit = rb->data;
	if (start & 7) {
		c->err = pr_rb_corrupt(rb, start, "consumer_pos is not 8-byte aligned");
		return c->err;
	}
	c->first = c->p = c->end = c->limit = rb->data + (start & rb->mask);
	c->err = pr_rb_corrupt(rb, start, "producer_pos is more than the ring size ahead of consumer_pos");
	return c->err;
}

/* The set-up runs once per batch, often for a record or two when the
 * consumer keeps up: the fields are set once each, the failures apart. */
int64_t perfring_ringbuf_cursor(struct perfring_ringbuf *rb, struct perfring_rb_cursor *c)
{
	uint64_t start, left;
	const uint8_t *p;

	if (!c)
		return pr_fail(EINVAL, "perfring_ringbuf_cursor: cursor is NULL");
	if (PR_UNLIKELY(!rb || rb->overwrite))
		return cursor_refused(rb, c, 0);
	start = rb->cons;
	left = pr_rb_load_producer(rb->producer_pos) - start;
	if (PR_UNLIKELY((start & 7) || left > rb->data_size))
		return cursor_refused(rb, c, start);
	p = rb->data + (start & rb->mask);
	c->first = c->p = p;
	c->end = p + left;
	c->limit = p + (left < CURSOR_SPAN ? left : CURSOR_SPAN);
	c->start = start;
	c->n = 0;
	c->rb = rb;
	c->err = 0;
	return (int64_t)left;
}

const void *perfring_ringbuf_cursor_next_slow(struct perfring_rb_cursor *c, uint32_t *size)
{
	struct perfring_ringbuf *rb = c->rb;

	if (c->err || !rb)
		return NULL;
	while (c->p != c->end) {
		const uint8_t *p = c->p;
		uint32_t len = pr_rb_load_len((const volatile uint32_t *)p);
		uint64_t rec = ((uint64_t)(len & ~(PR_RB_BUSY | PR_RB_DISCARD)) + PR_RB_HDR + 7) & ~(uint64_t)7;

		if (len & PR_RB_BUSY) {
			cursor_stop(c); /* reserved, not yet submitted: the rest waits */
			return NULL;
		}
		if (PR_UNLIKELY(rec > (uint64_t)(c->end - p))) {
			uint64_t pos = cursor_pos(c);

			cursor_stop(c);
			c->err = pr_rb_corrupt(rb, pos,
					       rec > rb->data_size ? "a record longer than the ring" :
								     "a record reaching beyond producer_pos");
			return NULL;
		}
		c->p = p + rec;
		if (len & PR_RB_DISCARD) {
			rb->discarded++;
			continue;
		}
		cursor_limit(c);
		c->n++;
		*size = len;
		return p + PR_RB_HDR;
	}
	return NULL;
}

void perfring_ringbuf_cursor_commit(struct perfring_ringbuf *rb, struct perfring_rb_cursor *c)
{
	uint64_t pos;

	if (!rb || !c || c->rb != rb)
		return;
	pos = cursor_pos(c);
	pr_rb_commit(rb, c->start, pos, (int)c->n);
	/* A second commit of the same cursor adds nothing. */
	c->start = pos;
	c->first = c->p;
	c->n = 0;
}

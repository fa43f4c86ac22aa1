// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The out-of-line half of the inline cursor (ring.h): batch set-up, the
 * records the inline path leaves (end of a stretch, wrapped records, types
 * other than SAMPLE, bad sizes), and the commit.
 *
 * The batch [commit_pos, end) is walked as contiguous stretches of the data
 * area: the inline path only compares a record against the stretch's end,
 * so it cannot read past the data area or past head. A stretch ends at
 * head or at the end of the data area, whichever comes first.
 */
#include <errno.h>
#include <string.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "ring/ring_internal.h"

/* Position (free-running) of the cursor's next record. */
static uint64_t cursor_pos(const struct perfring_cursor *c)
{
	return c->stretch_pos + (uint64_t)(c->p - c->stretch);
}

/* Point the cursor at the stretch starting at ring position pos. */
static void cursor_stretch(struct perfring_cursor *c, uint64_t pos)
{
	struct perfring_ring *r = c->ring;
	uint64_t off = pos & r->mask, len = r->data_size - off;

	if (c->end - pos < len)
		len = c->end - pos;
	c->stretch_pos = pos;
	c->stretch = r->data + off;
	c->p = c->stretch;
	c->limit = c->stretch + len;
}

int64_t perfring_ring_cursor(struct perfring_ring *r, struct perfring_cursor *c)
{
	int64_t avail;

	memset(c, 0, sizeof(*c));
	c->ring = r;
	if (r->overwrite) {
		c->err = -EOPNOTSUPP;
		return pr_fail(EOPNOTSUPP, "the cursor reads forward rings only; use perfring_ring_consume() "
					   "for an overwrite ring");
	}
	avail = perfring_ring_begin(r);
	c->end = r->batch_end;
	if (r->bogus_head) {
		/* Nothing is iterated; the first next() reports the corruption. */
		c->end = r->commit_pos;
	}
	cursor_stretch(c, r->commit_pos);
	return avail;
}

const struct perfring_header *perfring_cursor_next_slow(struct perfring_cursor *c)
{
	struct perfring_ring *r = c->ring;
	struct perfring_ring_record rec;
	uint64_t pos;
	int ret;

	if (c->err)
		return NULL;
	if (r->bogus_head) {
		c->err = pr_ring_bad_head(r);
		return NULL;
	}
	pos = cursor_pos(c);
	if (pos == c->end)
		return NULL;
	/* Validate (and linearise, if it straddles) with the ring layer. */
	ret = pr_ring_peek_at(r, pos, c->end, &rec);
	if (ret <= 0) {
		c->err = ret;
		return NULL;
	}
	if (rec.len2) {
		const void *lin = perfring_ring_linear(r, &rec);

		if (!lin) {
			c->err = pr_fail(ENOMEM, "out of memory for the ring's 64 KiB scratch buffer");
			return NULL;
		}
		rec.data = lin;
	}
	if (rec.type == PERF_RECORD_LOST && rec.size >= 24) {
		uint64_t lost;

		memcpy(&lost, (const uint8_t *)rec.data + 16, sizeof(lost));
		r->pend_lost += lost;
		r->pend_lost_records++;
	}
	c->n++;
	/* Wherever the record lay (end of a stretch, across the wrap), the
	 * next stretch starts right after it. */
	cursor_stretch(c, pos + rec.size);
	return (const struct perfring_header *)rec.data;
}

void perfring_ring_cursor_commit(struct perfring_ring *r, struct perfring_cursor *c)
{
	uint64_t pos;

	if (c->ring != r || r->overwrite)
		return;
	pos = cursor_pos(c);
	r->read_pos = pos;
	r->pend_records = c->n;
	r->pend_bytes = pos - r->commit_pos;
	perfring_ring_commit(r);
	/* A second commit of the same cursor adds nothing. */
	c->n = 0;
	cursor_stretch(c, pos);
}

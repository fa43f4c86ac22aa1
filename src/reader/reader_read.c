// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Copy-out draining: perfring_reader_read() (entry in reader_poll.c)
 * returns one record per call, copied into the caller's reusable buffer.
 *
 * Records are taken in passes. A pass starts when the rings have data (or a
 * flush asks for everything) and serves the rings round-robin, one record
 * at a time, each ring only up to where its head was when the pass reached
 * it: a busy ring cannot starve the others, and a pass always ends. A
 * forward ring's tail is committed as soon as its record is copied, so the
 * producer gets the space back while the caller works. An overwrite ring is
 * read newest first, paused, from one snapshot until its batch ends.
 *
 * Calls (downward only): reader_drain.c (record helpers, overwrite pause),
 * reader_owed.c (pr_rd_ring_has_data), reader_ringbuf_drain.c (ring buffers).
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

void perfring_msg_buf_release(struct perfring_msg_buf *rec)
{
	if (!rec)
		return;
	free(rec->data);
	memset(rec, 0, sizeof(*rec));
}

static int copy_bytes(struct perfring_msg_buf *out, const struct perfring_ring_record *rec, size_t off,
		      size_t len)
{
	int ret = pr_rd_msg_buf_reserve(out, len);

	if (ret)
		return ret;
	out->size = len;
	if (len && perfring_ring_record_copy(rec, off, out->data, len))
		return pr_fail(ERANGE, "perfring_reader_read: record of %u bytes shorter than expected", rec->size);
	return 0;
}

static int copy_out(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		    struct perfring_msg_buf *out)
{
	size_t off, len;
	int ret;

	out->cpu = r->cpu;
	out->type = rec->type;
	out->lost = 0;
	out->remaining = rec->remaining;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		ret = pr_rd_sample_span(rd, r, rec, &off, &len);
		if (ret)
			return ret;
		out->kind = PERFRING_MSG_SAMPLE;
		return copy_bytes(out, rec, off, len);
	case PERF_RECORD_LOST:
		ret = pr_rd_lost_count(r, rec, &out->lost);
		if (ret)
			return ret;
		out->kind = PERFRING_MSG_LOST;
		if (rd->is_bpf) {
			out->size = 0;
			return 0;
		}
		return copy_bytes(out, rec, 0, rec->size);
	default:
		out->kind = PERFRING_MSG_OTHER;
		return copy_bytes(out, rec, 0, rec->size);
	}
}

/* One record of a forward ring: 1 copied, 0 nothing more in this pass, or an error. */
static int read_forward(struct perfring_reader *rd, struct pr_rd_ring *r, struct perfring_msg_buf *out)
{
	struct perfring_ring_record rec;
	int64_t avail;
	int ret;

	/* next() even when begin() finds nothing: a head that cannot be
	 * trusted reads as empty, and next() is what reports it corrupt. */
	avail = perfring_ring_begin(r->ring);
	if (avail < 0)
		return (int)avail;
	ret = perfring_ring_next(r->ring, &rec);
	if (ret == -PERFRING_ECORRUPT)
		return pr_rd_corrupt(r, perfring_ring_error_offset(r->ring), "invalid record header");
	if (ret <= 0)
		return ret;
	if (r->pass_state == PR_PASS_NEW) {
		r->pass_end = rec.offset + (uint64_t)avail;
		r->pass_state = PR_PASS_ACTIVE;
	} else if (rec.offset >= r->pass_end) {
		/* Written after the pass reached this ring: next pass (not
		 * committed, so it is delivered again then). */
		return 0;
	}
	ret = copy_out(rd, r, &rec, out);
	if (ret)
		return ret; /* not committed: the record stays */
	perfring_ring_commit(r->ring);
	return 1;
}

static void overwrite_end(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	perfring_ring_commit(r->ring);
	r->ow_seen_head = r->ow_pass_head;
	pr_rd_ow_resume(rd, r);
	r->pass_state = PR_PASS_DONE;
}

static int read_overwrite(struct perfring_reader *rd, struct pr_rd_ring *r, struct perfring_msg_buf *out)
{
	struct perfring_ring_record rec;
	int ret;

	if (r->pass_state == PR_PASS_NEW) {
		if (!pr_rd_ring_has_data(r))
			return 0;
		pr_rd_ow_pause(rd, r);
		r->ow_pass_head = pr_rd_ow_head(r);
		perfring_ring_begin(r->ring);
		r->pass_state = PR_PASS_ACTIVE;
	}
	ret = perfring_ring_next(r->ring, &rec);
	if (ret == 1) {
		/* A failed copy loses this record: an overwrite batch cannot
		 * be rewound. */
		ret = copy_out(rd, r, &rec, out);
		return ret ? ret : 1;
	}
	overwrite_end(rd, r);
	if (ret == -PERFRING_ECORRUPT)
		return pr_rd_corrupt(r, perfring_ring_error_offset(r->ring), "invalid record header");
	return ret;
}

/* The next record of the pass: 1, 0 at its end, or an error. The pass
 * ends when every ring in turn has nothing more for it. */
int pr_rd_pass_next(struct perfring_reader *rd, struct perfring_msg_buf *out)
{
	int cnt = rd->ring_cnt, tried;

	for (tried = 0; tried < cnt; tried++) {
		struct pr_rd_ring *r = rd->rings[rd->pass.next];
		int ret;

		if (r->pass_state != PR_PASS_DONE) {
			ret = r->rb ? pr_rd_rb_read(rd, r, out) :
			      r->overwrite ? read_overwrite(rd, r, out) : read_forward(rd, r, out);
			if (ret < 0)
				return ret; /* the same ring is tried first next time */
			if (ret == 1) {
				/* Round-robin; but an overwrite batch is read in
				 * one go, to keep its ring paused briefly. */
				if (!r->overwrite)
					rd->pass.next = (rd->pass.next + 1) % cnt;
				return 1;
			}
			r->pass_state = PR_PASS_DONE;
		}
		rd->pass.next = (rd->pass.next + 1) % cnt;
	}
	return 0;
}

/* Another kind of call (poll, consume, wait) takes over mid-pass: leave no
 * ring paused. */
void pr_rd_pass_abandon(struct perfring_reader *rd)
{
	int i;

	for (i = 0; i < rd->ring_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[i];

		if (r->overwrite && r->pass_state == PR_PASS_ACTIVE)
			overwrite_end(rd, r);
		r->pass_state = PR_PASS_NEW;
	}
	rd->pass.active = false;
}

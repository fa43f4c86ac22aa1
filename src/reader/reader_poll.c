// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The delivery entry points, where every call that hands records to the
 * caller starts: poll, consume, consume_ring, wait, read, consume_samples,
 * consume_n and consume_ring_n. Each checks its arguments, asks the waiting
 * layer whether and when records are due, and has the draining layer hand
 * them over; the copy-out pass of read is started here too.
 *
 * Calls (downward only): reader_wait.c (enter, gate, deadline, flush and
 * max_delay bookkeeping), reader_owed.c (by report or not), reader_order.c
 * (time-ordered drain), and the drains: reader_drain.c, reader_read.c,
 * reader_samples.c.
 */
#include <errno.h>
#include <stdint.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

int perfring_reader_poll(struct perfring_reader *rd, int64_t timeout_ns, perfring_msg_fn fn, void *ctx)
{
	struct pr_wait w;
	bool stopped;
	int ret, n;

	if (!rd || !fn)
		return pr_fail(EINVAL, "perfring_reader_poll: %s is NULL", rd ? "fn" : "reader");
	ret = pr_rd_enter(rd);
	if (ret)
		return ret;
	if (rd->pass.active)
		pr_rd_pass_abandon(rd);
	pr_wait_init(&w, timeout_ns);
	for (;;) {
		uint64_t t;

		ret = pr_rd_gate(rd, &w);
		if (ret < 0)
			return ret;
		t = pr_rd_drain_begin(rd);
		if (rd->order)
			n = pr_rd_order_drain(rd, fn, ctx, ret == PR_GO_FLUSH, &stopped);
		else if (ret == PR_GO_DATA && pr_rd_by_report(rd))
			n = pr_rd_drain_owed(rd, fn, ctx, &stopped); /* the rings announced */
		else
			n = pr_rd_drain_all(rd, fn, ctx, &stopped);
		if (n < 0)
			return n;
		if (!stopped)
			pr_rd_drained(rd, t);
		if (ret == PR_GO_FLUSH && !stopped) {
			/* Everything written before the flush is delivered. */
			pr_rd_flush_done(rd, w.flush_snap);
			return pr_rd_enter(rd);
		}
		if (n > 0) {
			pr_rd_note_deadline(rd);
			return n;
		}
		/* Nothing after all (an overwrite ring moved without a
		 * readable record): go on to the timeout. */
		w.skip_data = true;
	}
}

int perfring_reader_consume(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx)
{
	bool stopped;

	if (!rd || !fn)
		return pr_fail(EINVAL, "perfring_reader_consume: %s is NULL", rd ? "fn" : "reader");
	if (rd->pass.active)
		pr_rd_pass_abandon(rd);
	if (rd->order)
		return pr_rd_order_drain(rd, fn, ctx, false, &stopped);
	return pr_rd_drain_all(rd, fn, ctx, &stopped);
}

int perfring_reader_consume_ring(struct perfring_reader *rd, int idx, perfring_msg_fn fn, void *ctx)
{
	bool stopped = false;

	if (!rd || !fn)
		return pr_fail(EINVAL, "perfring_reader_consume_ring: %s is NULL", rd ? "fn" : "reader");
	if (idx < 0 || idx >= rd->ring_cnt)
		return pr_fail(EINVAL, "perfring_reader_consume_ring: no ring %d (the reader has %d)", idx,
			       rd->ring_cnt);
	if (rd->order)
		return pr_fail(EINVAL, "perfring_reader_consume_ring: the reader delivers in time order "
				       "(order_window_ns): use perfring_reader_poll() or _consume()");
	return pr_rd_drain_ring(rd, rd->rings[idx], fn, ctx, &stopped);
}

int perfring_reader_wait(struct perfring_reader *rd, int64_t timeout_ns)
{
	struct pr_wait w;
	int ret, n;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_wait: reader is NULL");
	ret = pr_rd_enter(rd);
	if (ret)
		return ret;
	if (rd->pass.active)
		pr_rd_pass_abandon(rd);
	pr_wait_init(&w, timeout_ns);
	for (;;) {
		ret = pr_rd_gate(rd, &w);
		if (ret < 0)
			return ret;
		n = pr_rd_rings_with_data(rd);
		if (n > 0)
			return n;
		/* Held records of the time order are due: consume releases them. */
		if (pr_rd_order_due(rd) != UINT64_MAX)
			return 1;
		if (ret == PR_GO_FLUSH) {
			/* The rings were emptied by the caller's consume calls. */
			pr_rd_flush_done(rd, w.flush_snap);
			return pr_rd_enter(rd);
		}
		w.skip_data = true;
	}
}

static void pass_start(struct perfring_reader *rd, bool flush, uint64_t snap)
{
	int i;

	for (i = 0; i < rd->ring_cnt; i++)
		rd->rings[i]->pass_state = PR_PASS_NEW;
	rd->pass.active = true;
	rd->pass.flush = flush;
	rd->pass.flush_snap = snap;
	rd->pass.t_begin = pr_rd_drain_begin(rd);
	if (rd->pass.next >= rd->ring_cnt)
		rd->pass.next = 0;
	/* Started after the deadline: report it when the pass ends. */
	rd->pass.deadline = false;
	if (__atomic_load_n(&rd->deadline_ns, __ATOMIC_RELAXED)) {
		pr_rd_note_deadline(rd);
		rd->pass.deadline = rd->deadline_report;
		rd->deadline_report = false;
	}
}

int perfring_reader_read(struct perfring_reader *rd, struct perfring_msg_buf *rec, int64_t timeout_ns)
{
	struct pr_wait w;
	int ret, i;

	if (!rd || !rec)
		return pr_fail(EINVAL, "perfring_reader_read: %s is NULL", rd ? "rec" : "reader");
	if (rd->order)
		return pr_fail(EINVAL, "perfring_reader_read: the reader delivers in time order (order_window_ns): "
				       "use perfring_reader_poll() or _consume()");
	ret = pr_rd_enter(rd);
	if (ret)
		return ret;
	pr_wait_init(&w, timeout_ns);
	for (;;) {
		if (rd->pass.active) {
			ret = pr_rd_pass_next(rd, rec);
			if (ret > 0)
				return 0;
			if (ret < 0)
				return ret;
			rd->pass.active = false;
			/* Every ring was read to where its head was when the
			 * pass reached it: what the kernel announced is out. */
			for (i = 0; i < rd->ring_cnt; i++)
				rd->rings[i]->owed = false;
			pr_rd_drained(rd, rd->pass.t_begin);
			if (rd->pass.flush) {
				pr_rd_flush_done(rd, rd->pass.flush_snap);
				return pr_rd_enter(rd);
			}
			if (rd->pass.deadline)
				return -ETIMEDOUT;
		}
		ret = pr_rd_gate(rd, &w);
		if (ret < 0)
			return ret;
		pass_start(rd, ret == PR_GO_FLUSH, w.flush_snap);
		/* A data pass that yields nothing must not spin. */
		w.skip_data = ret == PR_GO_DATA;
	}
}

/* A budget over every ring: the user's callback, stopping after budget records. */
struct budget_ctx {
	perfring_msg_fn fn;
	void *ctx;
	size_t left;
};

static int budget_deliver(const struct perfring_msg *ev, void *arg)
{
	struct budget_ctx *bc = arg;
	int ret = bc->fn(ev, bc->ctx);

	if (ret < 0)
		return ret;
	if (--bc->left == 0)
		return PERFRING_STOP; /* this one is consumed; the rest waits */
	return ret;
}

int perfring_reader_consume_n(struct perfring_reader *rd, size_t budget, perfring_msg_fn fn, void *ctx)
{
	struct budget_ctx bc = { fn, ctx, budget };

	if (!budget)
		return perfring_reader_consume(rd, fn, ctx);
	if (!rd || !fn)
		return pr_fail(EINVAL, "perfring_reader_consume_n: %s is NULL", rd ? "fn" : "reader");
	return perfring_reader_consume(rd, budget_deliver, &bc);
}

int perfring_reader_consume_ring_n(struct perfring_reader *rd, int idx, size_t budget, perfring_msg_fn fn,
				   void *ctx)
{
	struct budget_ctx bc = { fn, ctx, budget };

	if (!budget)
		return perfring_reader_consume_ring(rd, idx, fn, ctx);
	if (!rd || !fn)
		return pr_fail(EINVAL, "perfring_reader_consume_ring_n: %s is NULL", rd ? "fn" : "reader");
	return perfring_reader_consume_ring(rd, idx, budget_deliver, &bc);
}

int perfring_reader_consume_samples(struct perfring_reader *rd, perfring_sample_fn sample_fn,
				    perfring_lost_fn lost_fn, void *ctx)
{
	if (!rd || !sample_fn)
		return pr_fail(EINVAL, "perfring_reader_consume_samples: %s is NULL", rd ? "sample_fn" : "reader");
	if (rd->order)
		return pr_fail(EINVAL, "perfring_reader_consume_samples: the reader delivers in time order "
				       "(order_window_ns): use perfring_reader_poll() or _consume()");
	if (rd->pass.active)
		pr_rd_pass_abandon(rd);
	return pr_rd_samples_drain(rd, sample_fn, lost_fn, ctx);
}

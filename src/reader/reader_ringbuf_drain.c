// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF ring buffers' side of every delivery path (zero-copy drain,
 * copy-out read, consume_samples, the wait's data check), each built on
 * pr_rb_walk() of the ring buffer layer. Losses counted by
 * perfring_ringbuf.bpf.h are delivered as PERFRING_MSG_LOST after a drain.
 * The bottom of the draining layer: called by reader_drain.c,
 * reader_read.c, reader_samples.c and reader_wait.c.
 *
 * Calls: nothing else of the reader (the ring buffer layer, and
 * pr_rd_msg_init() of reader_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/sys.h"
#include "reader/reader_internal.h"
#include "ringbuf/ringbuf_internal.h"

/* The lost map is read (a syscall) after a drain that found records, at
 * most this often, and on every flush (so that a flush accounts for every
 * loss before it). */
#define PR_RB_LOST_INTERVAL_NS 1000000ull

/*
 * Something to consume: a record at our position that is not BUSY. A BUSY
 * one (reserved, not yet submitted; a sleepable program may hold it long)
 * is not data: waiting on it, the reader sleeps until the kernel commits
 * it, which wakes the ring buffer's waiters because it is at consumer_pos.
 */
bool pr_rd_rb_has_data(const struct pr_rd_ring *r)
{
	const struct perfring_ringbuf *rb = r->rb;

	/* The check before sleeping: ordered after our last store of
	 * consumer_pos (barrier.h, (S)). */
	pr_rb_fence_before_check();
	if (rb->overwrite)
		return pr_rb_ow_has_data(rb);
	if (!pr_rb_avail(rb))
		return false;
	return !(pr_rb_load_len((const volatile uint32_t *)(rb->data + (pr_rb_cons(rb) & rb->mask))) & PR_RB_BUSY);
}

/* Whether our consumer position moved since the last call (noted). */
bool pr_rd_rb_moved(struct pr_rd_ring *r)
{
	uint64_t cons = pr_rb_cons(r->rb);

	if (cons == r->rb_cons_seen)
		return false;
	r->rb_cons_seen = cons;
	return true;
}

/* Whether the lost map is due a read: after records, at most once per
 * interval, or at once while a flush is being served. */
static bool lost_due(struct perfring_reader *rd, struct perfring_ringbuf *rb, int n)
{
	uint64_t now;

	if (rb->lost_fd < 0)
		return false;
	if (__atomic_load_n(&rd->flush_req, __ATOMIC_ACQUIRE) != rd->flush_done)
		return true;
	if (n <= 0)
		return false;
	now = pr_now_ns();
	if (now - rb->lost_check_ns < PR_RB_LOST_INTERVAL_NS)
		return false;
	rb->lost_check_ns = now;
	return true;
}

/* New losses since the last report (0: none, or the map could not be read). */
static uint64_t lost_delta(struct perfring_ringbuf *rb, uint64_t *total)
{
	if (pr_rb_read_lost(rb, total) || *total <= rb->lost_seen)
		return 0;
	return *total - rb->lost_seen;
}

static void lost_reported(struct perfring_ringbuf *rb, uint64_t total, uint64_t delta)
{
	rb->lost_seen = total;
	pr_counter_add(&rb->stats.lost, delta);
	pr_counter_add(&rb->stats.lost_records, 1);
}

struct rb_msg_ctx {
	struct perfring_msg ev;
	struct perfring_msg_src src; /* no perf record: rec NULL */
	perfring_msg_fn fn;
	void *ctx;
};

static int rb_msg_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_msg_ctx *mc = arg;

	mc->ev.data = data;
	mc->ev.size = len;
	mc->src.remaining = remaining;
	return mc->fn(&mc->ev, mc->ctx);
}

/* One drain's records, up to the ring's budget: newest first from an
 * overwrite ring's snapshot, else the forward walk. Inline, so that each
 * caller's deliver stays a direct call in the walk. */
static inline __attribute__((always_inline)) int rb_records(struct perfring_ringbuf *rb, pr_rb_deliver_fn deliver,
							    void *arg, bool *stopped)
{
	return rb->overwrite ? pr_rb_ow_read(rb, rb->budget, deliver, arg, stopped, false) :
			       pr_rb_walk(rb, rb->budget, deliver, arg, stopped);
}

/* The losses to report after a drain that gave n (0: none, or not due). */
static uint64_t lost_after(struct perfring_reader *rd, struct perfring_ringbuf *rb, int n, bool stopped,
			   uint64_t *total)
{
	if (n < 0 || stopped || !lost_due(rd, rb, n))
		return 0;
	return lost_delta(rb, total);
}

/* The libbpf-shaped path (rd->cb_call): a record straight to the ring's
 * ring_buffer callback, counted as libbpf counts (no perfring_msg, no
 * adapter: the port drains at the layer's cost). */
struct rb_cb_ctx {
	const struct pr_rd_ring *r;
	struct pr_cb_call *call;
};

static int rb_cb_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_cb_ctx *cc = arg;

	(void)remaining;
	return pr_cb_call_count(cc->call, cc->r->rb_sample(cc->r->rb_ctx, (void *)data, len));
}

int pr_rd_rb_drain(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx, bool *stopped)
{
	struct perfring_ringbuf *rb = r->rb;
	struct rb_msg_ctx mc;
	uint64_t total, delta;
	int n, ret;

	mc.fn = fn;
	mc.ctx = ctx;
	pr_rd_msg_init(&mc.ev, &mc.src, r, false); /* no perf record: perfring_msg_record() is NULL */
	if (r->rb_sample && rd->cb_call) {
		struct rb_cb_ctx cc = { r, rd->cb_call };

		n = rb_records(rb, rb_cb_deliver, &cc, stopped);
	} else {
		n = rb_records(rb, rb_msg_deliver, &mc, stopped);
	}
	delta = lost_after(rd, rb, n, *stopped, &total);
	if (!delta)
		return n;
	mc.ev.kind = PERFRING_MSG_LOST;
	mc.ev.data = NULL;
	mc.ev.size = 0;
	mc.ev.lost = delta;
	mc.src.remaining = 0;
	ret = fn(&mc.ev, ctx);
	if (ret < 0)
		return ret; /* reported again next time */
	lost_reported(rb, total, delta);
	if (ret > 0)
		*stopped = true;
	return n + 1;
}

struct rb_samples_ctx {
	perfring_sample_fn fn;
	void *ctx;
	int cpu;
};

static int rb_samples_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_samples_ctx *sc = arg;

	(void)remaining;
	return sc->fn(sc->ctx, sc->cpu, data, len);
}

int pr_rd_rb_samples(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_sample_fn sample_fn,
		     perfring_lost_fn lost_fn, void *ctx, bool *stopped)
{
	struct rb_samples_ctx sc = { sample_fn, ctx, r->cpu };
	struct perfring_ringbuf *rb = r->rb;
	uint64_t total, delta;
	int n;

	n = rb_records(rb, rb_samples_deliver, &sc, stopped);
	delta = lost_after(rd, rb, n, *stopped, &total);
	if (!delta)
		return n;
	if (lost_fn)
		lost_fn(ctx, r->cpu, delta);
	lost_reported(rb, total, delta);
	return n + 1;
}

/* Copy-out: one record per call, within the pass's snapshot of producer_pos. */
struct rb_copy_ctx {
	struct perfring_msg_buf *out;
	int err;
};

static int rb_copy_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_copy_ctx *cc = arg;
	struct perfring_msg_buf *out = cc->out;
	int ret = pr_rd_msg_buf_reserve(out, len);

	if (ret)
		return cc->err = ret;
	memcpy(out->data, data, len);
	out->size = len;
	out->remaining = remaining;
	return PERFRING_CONTINUE;
}

int pr_rd_rb_read(struct perfring_reader *rd, struct pr_rd_ring *r, struct perfring_msg_buf *out)
{
	struct perfring_ringbuf *rb = r->rb;
	struct rb_copy_ctx cc = { out, 0 };
	uint64_t total, delta;
	bool stopped = false, fresh = r->pass_state == PR_PASS_NEW;
	int n;

	if (fresh) {
		r->pass_end = pr_rb_load_producer(rb->producer_pos);
		r->pass_state = PR_PASS_ACTIVE;
	}
	out->cpu = r->cpu;
	out->lost = 0;
	if (rb->overwrite) {
		/* One snapshot per pass, newest first; the pass goes through
		 * it even if the producer writes on (that is the next pass). */
		out->kind = PERFRING_MSG_SAMPLE;
		out->type = 9; /* PERF_RECORD_SAMPLE */
		n = pr_rb_ow_read(rb, 1, rb_copy_deliver, &cc, &stopped, !fresh);
		if (n != 0)
			return n;
	} else if ((int64_t)(rb->cons - r->pass_end) < 0) {
		/* Written after the pass reached this ring: next pass. */
		out->kind = PERFRING_MSG_SAMPLE;
		out->type = 9; /* PERF_RECORD_SAMPLE */
		n = pr_rb_walk(rb, 1, rb_copy_deliver, &cc, &stopped);
		if (n != 0)
			return n; /* 1, or the error (a failed copy leaves its record) */
	}
	/* The end of this ring's pass: any new losses, as one LOST. */
	if (!lost_due(rd, rb, 1))
		return 0;
	delta = lost_delta(rb, &total);
	if (!delta)
		return 0;
	lost_reported(rb, total, delta);
	out->kind = PERFRING_MSG_LOST;
	out->type = 2; /* PERF_RECORD_LOST */
	out->lost = delta;
	out->size = 0;
	out->remaining = 0;
	return 1;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The libbpf-shaped path, so that code written for libbpf's perf_buffer and
 * ring_buffer ports by renaming its calls:
 *   perf_buffer__new   -> perfring_reader_new_perf_buffer()
 *   ring_buffer__new   -> perfring_reader_new_ring_buffer()
 *   ring_buffer__add   -> perfring_reader_add_ring_buffer()
 *   *__poll            -> perfring_reader_poll_ms()
 *   *__consume(_n)     -> perfring_reader_consume_cb(_n)()
 * The reader keeps libbpf's callbacks (perf_buffer's in the reader, a
 * ring_buffer's in its ring); poll_ms and consume_cb hand each record to
 * the one it belongs to and count as libbpf counts: records consumed, 0 on
 * timeout, a ring_buffer callback's negative value ends the call and is its
 * result. Built on the native reader: nothing here touches a ring directly.
 *
 * Calls (downward only): reader_bpf.c (the perf_buffer constructor),
 * reader.c (perfring_reader_new), reader_ringbuf.c (adding a ring buffer),
 * reader_poll.c (poll, consume), reader_drain.c (perfring_msg_record).
 */
#include <limits.h>
#include <string.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

struct perfring_reader *perfring_reader_new_perf_buffer(int map_fd, size_t page_cnt, perfring_pb_sample_fn sample_cb,
							perfring_pb_lost_fn lost_cb, void *ctx,
							const struct perfring_reader_opts *opts)
{
	struct perfring_reader_opts o;
	struct perfring_reader *rd;

	if (!sample_cb)
		return pr_fail_null(EINVAL, "perfring_reader_new_perf_buffer: sample_cb is NULL");
	memset(&o, 0, sizeof(o));
	if (opts) {
		/* A newer caller's larger struct: its unknown bytes must be 0. */
		if (pr_opts_check(opts, opts->sz, sizeof(o), "perfring_reader_opts"))
			return pr_errno_null(EINVAL);
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	o.sz = sizeof(o);
	if (page_cnt) {
		if (o.data_pages || o.data_bytes)
			return pr_fail_null(EINVAL, "perfring_reader_new_perf_buffer: page_cnt %zu and opts.%s "
					    "are both set: give one of them", page_cnt,
					    o.data_pages ? "data_pages" : "data_bytes");
		o.data_pages = page_cnt;
	}
	rd = perfring_reader_new_bpf(map_fd, &o);
	if (!rd)
		return NULL;
	rd->pb_sample = sample_cb;
	rd->pb_lost = lost_cb;
	rd->pb_ctx = ctx;
	rd->is_pb = true;
	return rd;
}

/* Add map_fd as perfring_reader_add_ringbuf() does and give its ring sample_cb. */
static int add_rb(struct perfring_reader *rd, int map_fd, perfring_rb_sample_fn sample_cb, void *ctx,
		  const struct perfring_ringbuf_opts *opts, const char *who)
{
	struct pr_rd_ring *r;
	int idx;

	if (!rd)
		return pr_fail(EINVAL, "%s: reader is NULL", who);
	if (!sample_cb)
		return pr_fail(EINVAL, "%s: sample_cb is NULL", who);
	idx = perfring_reader_add_ringbuf(rd, map_fd, opts);
	if (idx < 0)
		return idx;
	/* Set-up only (not concurrent with reads), as add_ringbuf itself. */
	r = rd->rings[idx];
	r->rb_sample = sample_cb;
	r->rb_ctx = ctx;
	rd->has_rb_cb = true;
	return 0;
}

struct perfring_reader *perfring_reader_new_ring_buffer(int map_fd, perfring_rb_sample_fn sample_cb, void *ctx,
							const struct perfring_ringbuf_opts *opts)
{
	struct perfring_reader *rd;
	int err;

	if (!sample_cb)
		return pr_fail_null(EINVAL, "perfring_reader_new_ring_buffer: sample_cb is NULL");
	rd = perfring_reader_new(NULL);
	if (!rd)
		return NULL;
	err = add_rb(rd, map_fd, sample_cb, ctx, opts, "perfring_reader_new_ring_buffer");
	if (err) {
		perfring_reader_free(rd);
		return pr_errno_null(-err); /* message set by the add */
	}
	return rd;
}

int perfring_reader_add_ring_buffer(struct perfring_reader *rd, int map_fd, perfring_rb_sample_fn sample_cb,
				    void *ctx)
{
	return add_rb(rd, map_fd, sample_cb, ctx, NULL, "perfring_reader_add_ring_buffer");
}

/* One poll_ms or consume_cb call: its reader and its counts. */
struct cb_call {
	struct perfring_reader *rd;
	struct pr_cb_call c;
};

/* A perf ring's record (or a ring buffer's without a callback of its own)
 * into the perf_buffer callbacks; straddling payloads linearised. */
static int pb_deliver(struct perfring_reader *rd, const struct perfring_msg *ev)
{
	const struct perfring_ring_record *rec;
	const char *lin;

	switch (ev->kind) {
	case PERFRING_MSG_SAMPLE:
		if (!ev->size2) {
			rd->pb_sample(rd->pb_ctx, ev->cpu, (void *)ev->data, (uint32_t)ev->size);
			return PERFRING_CONTINUE;
		}
		rec = perfring_msg_record(ev);
		lin = perfring_ring_linear(perfring_reader_ring(rd, ev->ring_idx), rec);
		if (!lin)
			return -ENOMEM; /* message set by perfring_ring_linear() */
		/* The payload sits at the same offset in the copy as in the record. */
		rd->pb_sample(rd->pb_ctx, ev->cpu, (void *)(lin + ((const char *)ev->data - (const char *)rec->data)),
			      (uint32_t)(ev->size + ev->size2));
		return PERFRING_CONTINUE;
	case PERFRING_MSG_LOST:
		if (rd->pb_lost)
			rd->pb_lost(rd->pb_ctx, ev->cpu, ev->lost);
		return PERFRING_CONTINUE;
	default:
		return PERFRING_CONTINUE;
	}
}

static int cb_adapter(const struct perfring_msg *ev, void *arg)
{
	struct cb_call *call = arg;
	struct perfring_reader *rd = call->rd;
	const struct pr_rd_ring *r = rd->rings[ev->ring_idx];
	int ret;

	if (r->rb_sample) {
		/* Only losses come here: the ring buffers' drain hands the
		 * records to rb_sample itself (rd->cb_call, pr_rd_rb_drain()).
		 * libbpf's ring_buffer has no callback for losses: those
		 * counted by perfring_ringbuf.bpf.h stay in the stats. */
		return PERFRING_CONTINUE;
	} else if (rd->pb_sample) {
		ret = pb_deliver(rd, ev);
		if (ret < 0)
			return ret;
	} else {
		return pr_fail(EINVAL, "ring %d of the reader has no libbpf callback (it was added with "
				       "perfring_reader_add() or _add_ringbuf()): add ring buffers with "
				       "perfring_reader_add_ring_buffer(), or read with perfring_reader_poll()",
			       ev->ring_idx);
	}
	return pr_cb_call_count(&call->c, PERFRING_CONTINUE);
}

/*
 * One libbpf-shaped call: wait up to timeout_ns (wait) or not, at most left
 * records. The result as libbpf gives it: a callback's error first (the
 * records before it were delivered, as libbpf's), else the count, capped;
 * a timeout is 0.
 */
static int cb_run(struct perfring_reader *rd, bool wait, int64_t timeout_ns, size_t left, const char *who)
{
	struct cb_call call;
	int ret;

	if (!rd)
		return pr_fail(EINVAL, "%s: reader is NULL", who);
	if (!rd->is_pb && !rd->has_rb_cb)
		return pr_fail(EINVAL, "%s: the reader has no libbpf callbacks (it was not made by "
				       "perfring_reader_new_perf_buffer() or perfring_reader_new_ring_buffer()); use "
				       "perfring_reader_poll()",
			       who);
	if (!left)
		return 0;
	memset(&call, 0, sizeof(call));
	call.rd = rd;
	call.c.left = left;
	/* The ring buffers' drain hands records to their callbacks itself
	 * while this is set (reader thread only, this call only). */
	rd->cb_call = &call.c;
	ret = wait ? perfring_reader_poll(rd, timeout_ns, cb_adapter, &call)
		   : perfring_reader_consume(rd, cb_adapter, &call);
	rd->cb_call = NULL;
	if (call.c.cb_err)
		return call.c.cb_err;
	if (ret == -ETIMEDOUT)
		return 0;
	if (ret < 0)
		return ret;
	return call.c.cnt > INT_MAX ? INT_MAX : (int)call.c.cnt;
}

int perfring_reader_poll_ms(struct perfring_reader *rd, int timeout_ms)
{
	return cb_run(rd, true, timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000, SIZE_MAX,
		      "perfring_reader_poll_ms");
}

int perfring_reader_consume_cb(struct perfring_reader *rd)
{
	return cb_run(rd, false, 0, SIZE_MAX, "perfring_reader_consume_cb");
}

int perfring_reader_consume_cb_n(struct perfring_reader *rd, size_t n)
{
	return cb_run(rd, false, 0, n, "perfring_reader_consume_cb_n");
}

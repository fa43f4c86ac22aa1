// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The libbpf-shaped path: perfring_reader_new_perf_buffer() keeps libbpf's
 * callbacks in the reader, perfring_reader_poll_ms() waits in milliseconds
 * and reports a timeout as 0, as perf_buffer__poll() does. Built on the
 * native reader: nothing here touches a ring directly.
 *
 * Calls (downward only): reader_bpf.c (the constructor), reader.c (accessors),
 * reader_poll.c (poll), reader_drain.c (perfring_msg_record).
 */
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

/* A perfring_msg into libbpf's callbacks; straddling payloads linearised. */
static int pb_adapter(const struct perfring_msg *ev, void *arg)
{
	struct perfring_reader *rd = arg;
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

int perfring_reader_poll_ms(struct perfring_reader *rd, int timeout_ms)
{
	int ret;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_poll_ms: reader is NULL");
	if (!rd->is_pb)
		return pr_fail(EINVAL, "perfring_reader_poll_ms: the reader was not made by "
				       "perfring_reader_new_perf_buffer(); use perfring_reader_poll()");
	ret = perfring_reader_poll(rd, timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000, pb_adapter, rd);
	return ret == -ETIMEDOUT ? 0 : ret;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The drain of perfring_reader_consume_samples() (entry in reader_poll.c),
 * with libbpf-shaped callbacks (ctx, cpu, data, size). Nothing is built per record: the header is
 * checked, the payload located, and the user's callback called, with no
 * struct filled in between. Records the inline loop does not take (a wrap,
 * LOST, other types, a bad size, overwrite rings) go through the general
 * path of reader_drain.c, one at a time.
 *
 * Calls (downward only): reader_drain.c (the general drain of one ring, record
 * helpers), reader_ringbuf_drain.c (ring buffers).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "common/prefetch.h"
#include "reader/reader_internal.h"
#include "ring/ring_internal.h"

struct samples_cb {
	perfring_sample_fn sample_fn;
	perfring_lost_fn lost_fn;
	void *ctx;
	struct perfring_reader *rd;
};

/* A perfring_msg turned into the typed callbacks; payloads linearised. */
static int samples_adapter(const struct perfring_msg *ev, void *arg)
{
	struct samples_cb *cb = arg;
	const struct perfring_ring_record *rec;
	const char *lin;

	switch (ev->kind) {
	case PERFRING_MSG_SAMPLE:
		if (!ev->size2)
			return cb->sample_fn(cb->ctx, ev->cpu, ev->data, ev->size);
		rec = perfring_msg_record(ev);
		lin = perfring_ring_linear(cb->rd->rings[ev->ring_idx]->ring, rec);
		if (!lin)
			return pr_fail(ENOMEM, "cannot allocate the scratch buffer of ring %d to linearize a sample",
				       ev->ring_idx);
		/* The payload sits at the same offset in the copy as in the record. */
		return cb->sample_fn(cb->ctx, ev->cpu, lin + ((const char *)ev->data - (const char *)rec->data),
				     ev->size + ev->size2);
	case PERFRING_MSG_LOST:
		if (cb->lost_fn)
			cb->lost_fn(cb->ctx, ev->cpu, ev->lost);
		return PERFRING_CONTINUE;
	default:
		return PERFRING_CONTINUE;
	}
}

/*
 * The inline loop over [p, limit): samples that lie wholly inside it. Stops
 * at limit, at the first record it does not take (left for
 * pr_rd_deliver_slow(), or for the next call), or when the callback returns
 * non-zero (*ret). Only six values live across the call (next, limit, n, fn,
 * ctx, cpu), so nothing is reloaded per record. With ahead, limit is at
 * least PR_PREFETCH_AHEAD bytes before the stretch's end, so the line that
 * far ahead of any record taken is inside the stretch: asked for with no
 * test.
 */
static inline __attribute__((always_inline)) const uint8_t *
samples_walk(const uint8_t *p, const uint8_t *limit, perfring_sample_fn fn, void *ctx, int cpu,
	     const unsigned int hdr_len, int *n_io, int *ret, const bool ahead)
{
	int n = *n_io;

	while (p != limit) {
		const uint8_t *next;
		uint64_t hv;
		unsigned int size;
		uint32_t len;
		int r;

		memcpy(&hv, p, sizeof(hv)); /* struct perf_event_header: type, misc, size */
		size = (unsigned int)(hv >> 48);
		if (PR_UNLIKELY((uint32_t)hv != PERF_RECORD_SAMPLE || size < 16 || (size & 7) ||
				size > (size_t)(limit - p)))
			break;
		len = size - 8;
		if (hdr_len == 12)
			memcpy(&len, p + 8, sizeof(len));
		if (PR_UNLIKELY(len > size - hdr_len))
			break;
		next = p + size;
		if (ahead)
			__builtin_prefetch(p + PR_PREFETCH_AHEAD);
		r = fn(ctx, cpu, p + hdr_len, len);
		if (PR_UNLIKELY(r)) {
			if (r > 0) { /* PERFRING_STOP: this one counts as consumed */
				p = next;
				n++;
			}
			*ret = r;
			break;
		}
		p = next;
		n++;
	}
	*n_io = n;
	return p;
}

/*
 * One contiguous stretch [p, limit) of the data area: first the records
 * that end PR_PREFETCH_AHEAD bytes or more before its end (with a prefetch
 * that far ahead, inside the stretch and so inside the batch), then the rest.
 */
static inline __attribute__((always_inline)) const uint8_t *
samples_stretch(const uint8_t *p, const uint8_t *limit, perfring_sample_fn fn, void *ctx, int cpu,
		const unsigned int hdr_len, int *n_io, int *ret)
{
	if ((size_t)(limit - p) > PR_PREFETCH_AHEAD) {
		p = samples_walk(p, limit - PR_PREFETCH_AHEAD, fn, ctx, cpu, hdr_len, n_io, ret, true);
		if (*ret)
			return p;
	}
	return samples_walk(p, limit, fn, ctx, cpu, hdr_len, n_io, ret, false);
}

/* A forward ring up to end (a trusted head snapshot). */
static int samples_forward(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t end, struct samples_cb *cb,
			   bool *stopped)
{
	struct perfring_ring *ring = r->ring;
	const uint8_t *data = ring->data;
	const uint64_t mask = ring->mask, data_size = ring->data_size, start = ring->commit_pos;
	const bool bpf = rd->is_bpf;
	uint64_t pos = start, lost = 0, lost_records = 0;
	int n = 0, ret = 0;

	while (pos != end) {
		uint64_t off = pos & mask, stretch = data_size - off < end - pos ? data_size - off : end - pos;
		const uint8_t *p0 = data + off, *p;
		uint64_t one_lost = 0;
		unsigned int size;
		uint32_t type;

		if (bpf)
			p = samples_stretch(p0, p0 + stretch, cb->sample_fn, cb->ctx, r->cpu, 12, &n, &ret);
		else
			p = samples_stretch(p0, p0 + stretch, cb->sample_fn, cb->ctx, r->cpu, 8, &n, &ret);
		pos += (uint64_t)(p - p0);
		if (ret || pos == end)
			break;
		if ((uint64_t)(p - p0) == stretch)
			continue; /* the stretch ended at the end of the data area */
		/* A record the stretch did not take: wrapped, LOST, other, bad. */
		memcpy(&type, p, sizeof(type));
		ret = pr_rd_deliver_slow(rd, r, pos, end, samples_adapter, cb, &size, &one_lost);
		if (ret < 0)
			break; /* not consumed: delivered again next time */
		pos += size;
		n++;
		if (type == PERF_RECORD_LOST) {
			lost += one_lost;
			lost_records++;
		}
		if (ret > 0)
			break;
	}
	if (ret > 0) {
		*stopped = true;
		ret = 0;
	}
	pr_rd_commit_forward(r, start, pos, n, lost, lost_records);
	return ret < 0 ? ret : n;
}

/* A record the inline loop does not take: the ring's general drain, with
 * the typed callbacks behind samples_adapter(); its early stop is its own
 * (the ring stays owed), as for perfring_reader_consume_ring(). */
static int ring_adapted(struct perfring_reader *rd, struct pr_rd_ring *r, struct samples_cb *cb)
{
	bool stopped = false;

	return pr_rd_drain_ring(rd, r, samples_adapter, cb, &stopped);
}

/* Every ring once, from where the last early stop left off: the loop of
 * perfring_reader_consume_samples() (reader_poll.c checks the arguments). */
int pr_rd_samples_drain(struct perfring_reader *rd, perfring_sample_fn sample_fn, perfring_lost_fn lost_fn,
			void *ctx)
{
	struct samples_cb cb = { .sample_fn = sample_fn, .lost_fn = lost_fn, .ctx = ctx, .rd = rd };
	int cnt, i, total = 0, ret;
	bool stopped = false;

	cnt = rd->ring_cnt;
	if (rd->drain_start >= cnt)
		rd->drain_start = 0;
	for (i = 0; i < cnt; i++) {
		int idx = (rd->drain_start + i) % cnt;
		struct pr_rd_ring *r = rd->rings[idx];
		uint64_t end;

		if (r->rb) {
			ret = pr_rd_rb_samples(rd, r, sample_fn, lost_fn, ctx, &stopped);
		} else if (!r->overwrite) {
			end = pr_load_head(&r->ring->meta->data_head);
			if (end == r->ring->commit_pos)
				continue;
			if (end - r->ring->commit_pos <= r->ring->data_size && !(end & 7)) {
				ret = samples_forward(rd, r, end, &cb, &stopped);
				/* What is left after an early stop is due at once. */
				if (ret >= 0 && stopped)
					pr_rd_owe(rd, r);
				else if (ret >= 0)
					r->owed = false;
			} else
				ret = ring_adapted(rd, r, &cb);
		} else {
			ret = ring_adapted(rd, r, &cb);
		}
		if (ret < 0)
			return ret;
		total += ret;
		if (stopped) {
			rd->drain_start = (idx + 1) % cnt;
			break;
		}
	}
	return total;
}

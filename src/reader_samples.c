// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_consume_samples(): the drain with libbpf-shaped callbacks
 * (ctx, cpu, data, size). Nothing is built per record: the header is
 * checked, the payload located, and the user's callback called, with no
 * struct filled in between. Records the inline loop does not take (a wrap,
 * LOST, other types, a bad size, overwrite rings) go through the general
 * path of reader_consume.c, one at a time.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "barrier.h"
#include "internal.h"
#include "reader_internal.h"
#include "ring_internal.h"

struct samples_cb {
	perfring_sample_fn sample_fn;
	perfring_lost_fn lost_fn;
	void *ctx;
	struct perfring_reader *rd;
};

/* A perfring_event turned into the typed callbacks; payloads linearised. */
static int samples_adapter(const struct perfring_event *ev, void *arg)
{
	struct samples_cb *cb = arg;
	const char *lin;

	switch (ev->kind) {
	case PERFRING_EVENT_SAMPLE:
		if (!ev->size2)
			return cb->sample_fn(cb->ctx, ev->cpu, ev->data, ev->size);
		lin = perfring_ring_linear(perfring_reader_ring(cb->rd, ev->ring_idx), ev->rec);
		if (!lin)
			return pr_fail(ENOMEM, "cannot allocate the scratch buffer of ring %d to linearize a sample",
				       ev->ring_idx);
		/* The payload sits at the same offset in the copy as in the record. */
		return cb->sample_fn(cb->ctx, ev->cpu, lin + ((const char *)ev->data - (const char *)ev->rec->data),
				     ev->size + ev->size2);
	case PERFRING_EVENT_LOST:
		if (cb->lost_fn)
			cb->lost_fn(cb->ctx, ev->cpu, ev->lost);
		return PERFRING_CONTINUE;
	default:
		return PERFRING_CONTINUE;
	}
}

/* One record the inline loop did not take. Sets *size and *lost. */
static int sample_slow(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t pos, uint64_t end,
		       struct samples_cb *cb, unsigned int *size, uint64_t *lost)
{
	struct perfring_record rec;
	struct perfring_event ev;
	int ret;

	ret = pr_ring_peek_at(r->ring, pos, end, &rec);
	if (ret < 0)
		return ret;
	ret = pr_rd_fill_event(rd, r, &rec, &ev);
	if (ret < 0)
		return ret;
	*size = rec.size;
	*lost = ev.kind == PERFRING_EVENT_LOST ? ev.lost : 0;
	return samples_adapter(&ev, cb);
}

/* A forward ring up to end (a trusted head snapshot). */
static int samples_forward(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t end, struct samples_cb *cb,
			   bool *stopped)
{
	struct perfring_ring *ring = r->ring;
	const uint8_t *data = ring->data;
	const uint64_t mask = ring->mask, data_size = ring->data_size, start = ring->commit_pos;
	const perfring_sample_fn sample_fn = cb->sample_fn;
	void *const ctx = cb->ctx;
	const unsigned int hdr_len = rd->is_bpf ? 12 : 8; /* BPF samples carry a u32 size */
	const int cpu = r->cpu;
	uint64_t pos = start, lost = 0, lost_records = 0;
	int n = 0, ret = 0;

	while (pos != end) {
		uint64_t off = pos & mask, one_lost = 0;
		const uint8_t *rec = data + off;
		/* The bytes up to head and up to the end of the data area. */
		uint64_t room = data_size - off < end - pos ? data_size - off : end - pos;
		struct perf_event_header h;
		unsigned int size;
		uint32_t len;

		memcpy(&h, rec, sizeof(h));
		size = h.size;
		if (PR_LIKELY(h.type == PERF_RECORD_SAMPLE && size >= 16 && size <= room && !(size & 7))) {
			len = size - 8;
			if (hdr_len == 12)
				memcpy(&len, rec + 8, sizeof(len));
			if (PR_LIKELY(len <= size - hdr_len)) {
				ret = sample_fn(ctx, cpu, rec + hdr_len, len);
				if (PR_LIKELY(!ret)) {
					pos += size;
					n++;
					continue;
				}
				if (ret < 0)
					break;
				pos += size;
				n++;
				*stopped = true;
				ret = 0;
				break;
			}
		}
		ret = sample_slow(rd, r, pos, end, cb, &size, &one_lost);
		if (ret < 0)
			break;
		pos += size;
		n++;
		if (h.type == PERF_RECORD_LOST) {
			lost += one_lost;
			lost_records++;
		}
		if (ret > 0) {
			*stopped = true;
			ret = 0;
			break;
		}
	}
	if (pos != start) {
		pr_store_tail(&ring->meta->data_tail, pos);
		ring->commit_pos = ring->read_pos = ring->batch_end = pos;
		pr_counter_add(&ring->stats.records, (uint64_t)n);
		pr_counter_add(&ring->stats.bytes, pos - start);
		if (lost_records) {
			pr_counter_add(&ring->stats.lost, lost);
			pr_counter_add(&ring->stats.lost_records, lost_records);
		}
	}
	return ret < 0 ? ret : n;
}

int perfring_reader_consume_samples(struct perfring_reader *rd, perfring_sample_fn sample_fn,
				    perfring_lost_fn lost_fn, void *ctx)
{
	struct samples_cb cb = { .sample_fn = sample_fn, .lost_fn = lost_fn, .ctx = ctx, .rd = rd };
	int cnt, i, total = 0, ret;
	bool stopped = false;

	if (!rd || !sample_fn)
		return pr_fail(EINVAL, "perfring_reader_consume_samples: %s is NULL", rd ? "sample_fn" : "reader");
	if (rd->pass.active)
		pr_rd_pass_abandon(rd);
	cnt = rd->ring_cnt;
	if (rd->drain_start >= cnt)
		rd->drain_start = 0;
	for (i = 0; i < cnt; i++) {
		int idx = (rd->drain_start + i) % cnt;
		struct pr_rd_ring *r = rd->rings[idx];
		uint64_t end;

		if (!r->overwrite) {
			end = pr_load_head(&r->ring->meta->data_head);
			if (end == r->ring->commit_pos)
				continue;
			if (end - r->ring->commit_pos <= r->ring->data_size && !(end & 7))
				ret = samples_forward(rd, r, end, &cb, &stopped);
			else
				ret = perfring_reader_consume_ring(rd, idx, samples_adapter, &cb);
		} else {
			ret = perfring_reader_consume_ring(rd, idx, samples_adapter, &cb);
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

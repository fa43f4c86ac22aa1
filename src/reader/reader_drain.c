// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Zero-copy draining: every record of every ring handed to the caller's
 * callback as a view into the ring, the tail committed once per ring and
 * batch (perfring_ring_consume()); the entry points are in reader_poll.c.
 * Also the helpers every drain shares: records into messages
 * (pr_rd_fill_event, perfring_msg_record), the tail commit of a forward
 * batch, the pause of an overwrite ring.
 *
 * Calls (downward only): reader_owed.c (which rings have data, which are
 * owed a look), reader_ringbuf_drain.c (ring buffers).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "common/prefetch.h"
#include "reader/reader_internal.h"
#include "ring/ring_internal.h"

int pr_rd_corrupt(struct pr_rd_ring *r, uint64_t offset, const char *why)
{
	return pr_fail(PERFRING_ECORRUPT,
		       "ring %d (CPU %d) is corrupt at offset %llu: %s; records before it were delivered, "
		       "perfring_ring_discard(perfring_reader_ring(rd, %d)) drops the rest to go on",
		       r->idx, r->cpu, (unsigned long long)offset, why, r->idx);
}

/*
 * Where the payload of a SAMPLE lies in its record: for a BPF reader the
 * bytes after the u32 raw size, as many as it says (never more than the
 * record holds); otherwise the whole body after the header.
 */
int pr_rd_sample_span(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		      size_t *off, size_t *len)
{
	uint32_t raw;

	if (!rd->is_bpf) {
		*off = 8;
		*len = rec->size - 8u;
		return 0;
	}
	if (rec->size < 12)
		return pr_rd_corrupt(r, rec->offset, "a BPF sample record too short to hold its size");
	/* Records are 8-byte aligned: the u32 at byte 8 is in the first span,
	 * or starts the second when the header ends the data area. */
	if (rec->len >= 12)
		memcpy(&raw, (const char *)rec->data + 8, sizeof(raw));
	else if (rec->len == 8 && rec->len2 >= 4)
		memcpy(&raw, rec->data2, sizeof(raw));
	else if (perfring_ring_record_copy(rec, 8, &raw, sizeof(raw)))
		return pr_rd_corrupt(r, rec->offset, "a BPF sample record too short to hold its size");
	if (raw > rec->size - 12u)
		return pr_rd_corrupt(r, rec->offset, "a BPF sample claims more payload than its record holds");
	*off = 12;
	*len = raw;
	return 0;
}

int pr_rd_lost_count(struct pr_rd_ring *r, const struct perfring_ring_record *rec, uint64_t *lost)
{
	/* struct { header; u64 id; u64 lost; sample_id } */
	if (rec->size < 24 || perfring_ring_record_copy(rec, 16, lost, sizeof(*lost)))
		return pr_rd_corrupt(r, rec->offset, "a PERF_RECORD_LOST too short to hold its count");
	return 0;
}

/* Point ev at bytes [off, off + len) of rec, as one or two spans. */
static int set_spans(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		     size_t off, size_t len, struct perfring_msg *ev)
{
	ev->data2 = NULL;
	ev->size2 = 0;
	if (off >= rec->len) {
		ev->data = (const char *)rec->data2 + (off - rec->len);
		ev->size = len;
	} else if (off + len <= rec->len) {
		ev->data = (const char *)rec->data + off;
		ev->size = len;
	} else if (rd->cfg.linearize) {
		const char *p = perfring_ring_linear(r->ring, rec);

		if (!p)
			return pr_fail(ENOMEM, "cannot allocate the scratch buffer of ring %d to linearize a record",
				       r->idx);
		ev->data = p + off;
		ev->size = len;
	} else {
		ev->data = (const char *)rec->data + off;
		ev->size = rec->len - off;
		ev->data2 = rec->data2;
		ev->size2 = len - ev->size;
	}
	return 0;
}

int pr_rd_fill_event(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		     struct perfring_msg *ev, struct perfring_msg_src *src)
{
	size_t off, len;
	int ret;

	src->rec = rec;
	src->remaining = rec->remaining;
	src->fast = false;
	ev->src = src;
	ev->cpu = r->cpu;
	ev->ring_idx = r->idx;
	ev->lost = 0;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		ev->kind = PERFRING_MSG_SAMPLE;
		ret = pr_rd_sample_span(rd, r, rec, &off, &len);
		if (ret)
			return ret;
		return set_spans(rd, r, rec, off, len, ev);
	case PERF_RECORD_LOST:
		ev->kind = PERFRING_MSG_LOST;
		ret = pr_rd_lost_count(r, rec, &ev->lost);
		if (ret)
			return ret;
		break;
	default:
		/* Never fatal: the caller may know the type, or skip it. */
		ev->kind = PERFRING_MSG_OTHER;
		break;
	}
	return set_spans(rd, r, rec, 8, rec->size - 8u, ev);
}

struct deliver_ctx {
	struct perfring_reader *rd;
	struct pr_rd_ring *r;
	perfring_msg_fn fn;
	void *ctx;
	int delivered;
	bool stopped;
	bool own_error; /* the error came from us, with its message set */
};

static int deliver_record(const struct perfring_ring_record *rec, void *arg)
{
	struct deliver_ctx *dc = arg;
	struct perfring_msg_src src;
	struct perfring_msg ev;
	int ret;

	ret = pr_rd_fill_event(dc->rd, dc->r, rec, &ev, &src);
	if (ret) {
		dc->own_error = true;
		return ret;
	}
	ret = dc->fn(&ev, dc->ctx);
	if (ret < 0)
		return ret;
	dc->delivered++;
	if (ret > 0) {
		dc->stopped = true;
		return PERFRING_STOP;
	}
	return PERFRING_CONTINUE;
}

/*
 * Anything the fast loop does not take (a wrapped record, LOST, another type,
 * a bad size): validated by the ring layer, decoded by pr_rd_fill_event().
 * Returns the callback's value, or our own negative error; sets *size, and
 * *lost for a LOST record.
 */
int pr_rd_deliver_slow(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t pos, uint64_t end,
		       perfring_msg_fn fn, void *ctx, unsigned int *size, uint64_t *lost)
{
	struct perfring_ring_record rec;
	struct perfring_msg_src src;
	struct perfring_msg ev;
	int ret;

	ret = pr_rd_event_at(rd, r, pos, end, &rec, &ev, &src);
	if (ret < 0)
		return ret;
	*size = rec.size;
	*lost = ev.kind == PERFRING_MSG_LOST ? ev.lost : 0;
	return fn(&ev, ctx);
}

int pr_rd_event_at(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t pos, uint64_t end,
		   struct perfring_ring_record *rec, struct perfring_msg *ev, struct perfring_msg_src *src)
{
	int ret = pr_ring_peek_at(r->ring, pos, end, rec);

	if (ret < 0)
		return ret;
	return pr_rd_fill_event(rd, r, rec, ev, src);
}

/* The header of a record msg_stretch() delivered: its payload starts after
 * the header and the u32 raw size. */
static const uint8_t *fast_header(const struct perfring_msg *ev)
{
	return (const uint8_t *)ev->data - 12;
}

const struct perfring_ring_record *perfring_msg_record(const struct perfring_msg *ev)
{
	struct perfring_msg_src *src = ev ? ev->src : NULL;
	struct perfring_ring_record *rec;
	const uint8_t *h;

	if (!src)
		return NULL;
	if (!src->fast)
		return src->rec;
	h = fast_header(ev);
	rec = &src->scratch;
	memcpy(&rec->type, h, sizeof(rec->type));
	memcpy(&rec->misc, h + 4, sizeof(rec->misc));
	memcpy(&rec->size, h + 6, sizeof(rec->size));
	rec->data = h;
	rec->len = rec->size;
	rec->data2 = NULL;
	rec->len2 = 0;
	rec->offset = (uintptr_t)h + src->to_pos;
	rec->remaining = src->batch_end - (uintptr_t)h - rec->size;
	return rec;
}

uint64_t perfring_msg_remaining(const struct perfring_msg *ev)
{
	const struct perfring_msg_src *src = ev ? ev->src : NULL;
	const uint8_t *h;
	uint16_t size;

	if (!src)
		return 0;
	if (!src->fast)
		return src->remaining;
	h = fast_header(ev);
	memcpy(&size, h + 6, sizeof(size));
	return src->batch_end - (uintptr_t)h - size;
}

void pr_rd_commit_forward(struct pr_rd_ring *r, uint64_t start, uint64_t pos, int n, uint64_t lost,
			  uint64_t lost_records)
{
	struct perfring_ring *ring = r->ring;

	if (pos == start)
		return;
	pr_store_tail(&ring->meta->data_tail, pos);
	ring->commit_pos = ring->read_pos = ring->batch_end = pos;
	pr_counter_add(&ring->stats.records, (uint64_t)n);
	pr_counter_add(&ring->stats.bytes, pos - start);
	if (lost_records) {
		pr_counter_add(&ring->stats.lost, lost);
		pr_counter_add(&ring->stats.lost_records, lost_records);
	}
}

/* What msg_stretch() works with, behind one pointer: the loop body then
 * keeps only that pointer and the record position in registers, and every
 * other value is a one-instruction memory operand (the callback may be
 * given &ev, so the compiler reloads them after each call anyway). */
struct msg_run {
	struct perfring_msg ev;
	perfring_msg_fn fn;
	void *ctx;
	const uint8_t *last; /* the last position with room for a header and a raw size */
	int n;               /* records delivered and consumed, added up per stretch */
	int ret;             /* the callback's non-zero value, or 0 */
};

/*
 * Deliver the BPF samples from p on that end at or before m->last. Per
 * record it validates the header and the raw size, stores the payload's two
 * words into the event (its constant fields, and what perfring_msg_record()
 * and perfring_msg_remaining() derive the rest from, are set once per
 * stretch by the caller) and calls the callback. Stops at the first record
 * it does not take (not a good sample, or ending after m->last), or after
 * the callback returns non-zero (*r_out, that record not counted). A record
 * is read only at or before m->last, which leaves 16 bytes (header and raw
 * size), so the raw size may be read before the record's size is checked;
 * the raw size check also refuses sizes below 16. With ahead, m->last is at
 * least PR_PREFETCH_AHEAD bytes before the stretch's end, so the line that
 * far ahead of any record delivered is inside the stretch (and the batch):
 * it is asked for with no test.
 */
static inline __attribute__((always_inline)) const uint8_t *msg_records(struct msg_run *m, const uint8_t *p,
									 int *n_io, int *r_out, const bool ahead)
{
	int n = *n_io, r = 0;

	for (;;) {
		const uint8_t *next;
		uint32_t type, raw;
		uint16_t size;

		memcpy(&type, p, sizeof(type)); /* struct perf_event_header: type, misc, size */
		memcpy(&size, p + 6, sizeof(size));
		if (PR_UNLIKELY(type != PERF_RECORD_SAMPLE || (size & 7)))
			break;
		memcpy(&raw, p + 8, sizeof(raw));
		if (PR_UNLIKELY((uint64_t)raw + 12 > size))
			break;
		next = p + size;
		if (PR_UNLIKELY(next > m->last))
			break;
		if (ahead)
			__builtin_prefetch(p + PR_PREFETCH_AHEAD);
		m->ev.data = p + 12;
		m->ev.size = raw;
		r = m->fn(&m->ev, m->ctx);
		if (PR_UNLIKELY(r))
			break;
		p = next;
		n++; /* a register: the count is not behind m, whose fields the callback may reach */
	}
	*n_io = n;
	*r_out = r;
	return p;
}

/*
 * The loop over one contiguous stretch [p, limit) of the data area: BPF
 * samples that lie wholly inside it, delivered by msg_records(), first (with
 * a prefetch PR_PREFETCH_AHEAD bytes ahead) those ending that far before
 * the stretch's end, then the others but the last, which ends after
 * limit - 16 and so needs its own end test; the common path has no
 * separate one. Stops at the end of the stretch, at the first record it
 * does not take (left for pr_rd_deliver_slow()), or when the callback
 * returns non-zero (m->ret).
 */
static __attribute__((noinline)) const uint8_t *msg_stretch(struct msg_run *m, const uint8_t *p,
							     const uint8_t *limit)
{
	uint32_t type, raw;
	uint16_t size;
	int n = 0, r = 0;

	m->ret = 0;
	if ((uintptr_t)(limit - p) < 16)
		return p;
	if ((uintptr_t)(limit - p) > PR_PREFETCH_AHEAD + 16) {
		m->last = limit - PR_PREFETCH_AHEAD;
		p = msg_records(m, p, &n, &r, true);
	}
	if (!r) {
		m->last = limit - 16;
		p = msg_records(m, p, &n, &r, false);
	}
	if (!r) {
		/* p <= limit - 16: the last record of the stretch, or one that
		 * msg_records() did not take (it checks again). */
		memcpy(&type, p, sizeof(type));
		memcpy(&size, p + 6, sizeof(size));
		memcpy(&raw, p + 8, sizeof(raw));
		if (type != PERF_RECORD_SAMPLE || (size & 7) || (uint64_t)raw + 12 > size ||
		    size > (uintptr_t)(limit - p))
			goto out;
		m->ev.data = p + 12;
		m->ev.size = raw;
		r = m->fn(&m->ev, m->ctx);
	}
	m->ret = r;
	if (r >= 0) { /* 0 (the stretch's last record) or PERFRING_STOP: consumed */
		memcpy(&size, p + 6, sizeof(size));
		p += size;
		n++;
	}
out:
	m->n += n;
	return p;
}

/*
 * Drain a forward ring of a BPF reader up to end (a head snapshot). The
 * common record, a sample that does not straddle the end of the ring, is
 * handled by msg_stretch(): the user's callback is the only indirect call,
 * and the event's constant fields are set once per batch. Anything else
 * goes through pr_rd_deliver_slow(), one record at a time, and the loop goes on.
 * The tail is stored once, at the end.
 */
static int drain_fast(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t end, perfring_msg_fn fn,
		      void *ctx, bool *stopped)
{
	struct perfring_ring *ring = r->ring;
	const uint8_t *data = ring->data;
	const uint64_t mask = ring->mask, data_size = ring->data_size;
	const uint64_t start = ring->commit_pos;
	uint64_t pos = start, lost = 0, lost_records = 0;
	struct perfring_msg_src src;
	struct msg_run m;
	int ret = 0;

	pr_rd_msg_init(&m.ev, &src, r, true);
	m.fn = fn;
	m.ctx = ctx;
	m.n = 0;
	while (pos != end) {
		uint64_t off = pos & mask, stretch = data_size - off < end - pos ? data_size - off : end - pos;
		const uint8_t *p0 = data + off, *p;
		uint64_t one_lost = 0;
		unsigned int size;
		uint32_t type;

		src.batch_end = (uintptr_t)p0 + (uintptr_t)(end - pos);
		src.to_pos = (uintptr_t)pos - (uintptr_t)p0;
		p = msg_stretch(&m, p0, p0 + stretch);
		ret = m.ret;
		pos += (uint64_t)(p - p0);
		if (ret || pos == end)
			break;
		if ((uint64_t)(p - p0) == stretch)
			continue; /* the stretch ended at the end of the data area */
		/* A record the stretch did not take: wrapped, LOST, other, bad. */
		memcpy(&type, p, sizeof(type));
		ret = pr_rd_deliver_slow(rd, r, pos, end, fn, ctx, &size, &one_lost);
		if (ret < 0)
			break; /* not consumed: delivered again next time */
		pos += size;
		m.n++;
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
	pr_rd_commit_forward(r, start, pos, m.n, lost, lost_records);
	return ret < 0 ? ret : m.n;
}

static int drain_ring_once(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx,
			   bool *stopped);

/* Drain one ring to its head. Returns records delivered or an error. A ring
 * drained to its head owes nothing more; one left by an early stop owes the
 * rest at once (reader_wait.c). */
int pr_rd_drain_ring(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx,
		     bool *stopped)
{
	bool stop = false;
	int ret = drain_ring_once(rd, r, fn, ctx, &stop);

	if (stop) {
		*stopped = true;
		pr_rd_owe(rd, r);
	} else if (ret >= 0) {
		r->owed = false;
	}
	return ret;
}

static int drain_ring_once(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx,
			   bool *stopped)
{
	struct deliver_ctx dc = { .rd = rd, .r = r, .fn = fn, .ctx = ctx };
	uint64_t head = 0;
	int ret;

	if (r->rb)
		return pr_rd_rb_drain(rd, r, fn, ctx, stopped);
	if (!r->overwrite) {
		uint64_t end = pr_load_head(&r->ring->meta->data_head);
		uint64_t tail = r->ring->commit_pos;

		if (rd->is_bpf && end - tail <= r->ring->data_size && !(end & 7))
			return drain_fast(rd, r, end, fn, ctx, stopped);
		if (rd->is_bpf) {
			/* A head not to be trusted: the ring layer reports it. */
			ret = pr_ring_consume_to(r->ring, end, deliver_record, &dc);
		} else {
			if (!perfring_ring_bytes_available(r->ring))
				return 0;
			ret = perfring_ring_consume(r->ring, deliver_record, &dc);
		}
	} else {
		if (pr_rd_ow_head(r) == r->ow_seen_head)
			return 0;
		pr_rd_ow_pause(rd, r);
		head = pr_rd_ow_head(r);
		ret = perfring_ring_consume(r->ring, deliver_record, &dc);
		pr_rd_ow_resume(rd, r);
		if (ret >= 0 && !dc.stopped)
			r->ow_seen_head = head;
	}
	if (dc.stopped)
		*stopped = true;
	if (ret == -PERFRING_ECORRUPT && !dc.own_error)
		return pr_rd_corrupt(r, perfring_ring_error_offset(r->ring), "invalid record header");
	return ret < 0 ? ret : dc.delivered;
}

/* Drain every ring, starting where the last early stop left off. */
int pr_rd_drain_all(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx, bool *stopped)
{
	int cnt = rd->ring_cnt, i, total = 0, ret;

	*stopped = false;
	if (rd->drain_start >= cnt)
		rd->drain_start = 0;
	for (i = 0; i < cnt; i++) {
		int idx = (rd->drain_start + i) % cnt;

		ret = pr_rd_drain_ring(rd, rd->rings[idx], fn, ctx, stopped);
		if (ret < 0)
			return ret;
		total += ret;
		if (*stopped) {
			/* Serve the other rings first next time. */
			rd->drain_start = (idx + 1) % cnt;
			break;
		}
	}
	return total;
}

/* Drain the owed rings in the order of the list (reader_owed.c): each to
 * its head, or to an early stop, after which the ring that stopped goes
 * to the end of the list so that the others are served first next time.
 * The list keeps the rings still owed and those not reached. */
int pr_rd_drain_owed(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx, bool *stopped)
{
	int *list = rd->owed_list, cnt = rd->owed_cnt, i, j = 0, total = 0, err = 0, last = -1;

	*stopped = false;
	for (i = 0; i < cnt; i++) {
		struct pr_rd_ring *r = rd->rings[list[i]];
		int ret;

		if (!r->owed) {
			r->listed = false;
			continue;
		}
		if (*stopped || err) {
			list[j++] = r->idx;
			continue;
		}
		ret = pr_rd_drain_ring(rd, r, fn, ctx, stopped);
		if (ret < 0)
			err = ret;
		else
			total += ret;
		if (*stopped)
			last = r->idx;
		else if (r->owed)
			list[j++] = r->idx;
		else
			r->listed = false;
	}
	if (last >= 0)
		list[j++] = last;
	rd->owed_cnt = j;
	return err ? err : total;
}

/* Overwrite rings are read only while their output is paused. */
void pr_rd_ow_pause(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	pthread_mutex_lock(&rd->lock);
	r->draining = true;
	perfring_ring_pause(r->ring);
	pthread_mutex_unlock(&rd->lock);
}

void pr_rd_ow_resume(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	pthread_mutex_lock(&rd->lock);
	r->draining = false;
	/* A caller-fd reader paused or closed meanwhile keeps it paused (a BPF
	 * reader pauses through the map, independently of the ring). */
	if (rd->is_bpf || (!rd->paused && !r->paused && !__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)))
		perfring_ring_resume(r->ring);
	pthread_mutex_unlock(&rd->lock);
}

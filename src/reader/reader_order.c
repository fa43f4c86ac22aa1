// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records of all rings in time order (opts.order_window_ns), as perf
 * record, simpleperf and Orbit do in user space: a k-way merge over the
 * rings, each ring being in time order by itself (one CPU writes it).
 *
 * A drain first reads the time of every new record, to know the newest
 * time seen (max_seen), then merges: the ring whose next record is oldest
 * goes first, as long as that record is at least window older than
 * max_seen (a record written later on an idle CPU is newer than that, up to
 * the window). Released records are handed over in place, zero copy; the
 * rest must wait, and is copied into its ring's queue so that the producer
 * gets the space back at once: a queue holds at most the ring's size, and
 * when one would overflow everything is released (counted as forced).
 * Records that arrive older than one already delivered (later than the
 * window allowed for) are delivered anyway and counted as late. When no
 * record arrives for a window, everything held is released; a flush or a
 * passed deadline releases everything too. A record without a time (a LOST
 * notice of a BPF reader, a payload too short, no sample_id) goes out as
 * soon as the merge reaches it.
 *
 * Queued records keep their ring offset (perfring_msg_record(ev)->offset)
 * and come out of one ring in ring order; perfring_msg_remaining(ev) is 0
 * in this mode.
 *
 * Calls (downward only): reader_drain.c (records into messages, tail commit).
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "reader/reader_internal.h"
#include "ring/ring_internal.h"

#define NO_TIME UINT64_MAX
#define ENTRY_HDR 16 /* u64 time, u64 ring offset, then the record */

struct order_q {
	uint8_t *buf;
	size_t cap, head, tail;
};

/* Per ring, during a drain: what left the ring (delivered or queued), for
 * the tail commit and the ring's counters. */
struct order_took {
	uint64_t records, lost, lost_records;
};

/* Per ring, during a drain. */
struct order_cur {
	uint64_t pos, end, t;
	struct perfring_ring_record rec;
	bool have; /* rec/t hold the ring record at pos */
};

struct pr_order {
	uint64_t window;
	uint32_t time_off;      /* BPF payloads */
	int sample_pos;         /* caller events: offset of the time in a SAMPLE body (-1: none) */
	int trailer_back;       /* ... from the end of other records (0: none) */
	uint64_t (*time_fn)(const struct perfring_msg *ev, void *ctx);
	void *time_ctx;
	uint64_t max_seen, last_out, last_arrival;
	bool stopped; /* an early stop: released records wait for the next call */
	struct order_q *q;
	uint64_t *seen; /* per ring: position up to which times were read */
	struct order_cur *cur; /* per ring, for one drain (kept: no allocation per drain) */
	struct order_took *consumed;
	int cur_cnt;
	int q_cnt;
	size_t q_max;
	/* counters, read by other threads */
	uint64_t late, forced, held, held_bytes;
};


int pr_rd_order_init(struct perfring_reader *rd, const struct perfring_reader_opts *opts)
{
	uint64_t window = PR_OPT(opts, order_window_ns, 0), st;
	struct pr_order *o;
	int n;

	if (!window)
		return 0;
	if (rd->cfg.overwrite)
		return pr_fail(EINVAL, "order_window_ns: time order needs forward rings, not overwrite ones");
	o = calloc(1, sizeof(*o));
	if (!o)
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	o->window = window;
	o->time_off = PR_OPT(opts, order_time_offset, 0);
	o->time_fn = PR_OPT(opts, order_time_fn, NULL);
	o->time_ctx = PR_OPT(opts, order_time_ctx, NULL);
	st = PR_OPT(opts, order_sample_type, 0);
	o->sample_pos = -1;
	if (!rd->is_bpf && !o->time_fn) {
		if (!(st & PERF_SAMPLE_TIME)) {
			free(o);
			return pr_fail(EINVAL, "order_window_ns: give order_sample_type (the events' attr.sample_type, "
					       "with PERF_SAMPLE_TIME) or order_time_fn, so that the reader finds "
					       "each record's time");
		}
		n = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID);
		o->sample_pos = 8 * n;
		if (PR_OPT(opts, order_sample_id_all, false))
			o->trailer_back = 8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
					       !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
	}
	o->q_max = rd->cfg.data_bytes;
	rd->order = o;
	return 0;
}

void pr_rd_order_free(struct perfring_reader *rd)
{
	struct pr_order *o = rd->order;
	int i;

	if (!o)
		return;
	for (i = 0; i < o->q_cnt; i++)
		free(o->q[i].buf);
	free(o->q);
	free(o->seen);
	free(o->cur);
	free(o->consumed);
	free(o);
	rd->order = NULL;
}

/* The per-drain arrays, kept from one drain to the next. */
static int grow_cur(struct pr_order *o, int cnt)
{
	struct order_cur *cur;
	struct order_took *consumed;

	if (cnt <= o->cur_cnt)
		return 0;
	cur = calloc((size_t)cnt, sizeof(*cur));
	consumed = calloc((size_t)cnt, sizeof(*consumed));
	if (!cur || !consumed) {
		free(cur);
		free(consumed);
		return pr_fail(ENOMEM, "perfring reader: out of memory for the time-order merge");
	}
	free(o->cur);
	free(o->consumed);
	o->cur = cur;
	o->consumed = consumed;
	o->cur_cnt = cnt;
	return 0;
}

static int grow_rings(struct pr_order *o, int cnt)
{
	struct order_q *q;
	uint64_t *seen;

	if (cnt <= o->q_cnt)
		return grow_cur(o, cnt);
	q = realloc(o->q, (size_t)cnt * sizeof(*q));
	if (!q)
		return pr_fail(ENOMEM, "perfring reader: out of memory for the time-order queues");
	o->q = q;
	seen = realloc(o->seen, (size_t)cnt * sizeof(*seen));
	if (!seen)
		return pr_fail(ENOMEM, "perfring reader: out of memory for the time-order queues");
	o->seen = seen;
	memset(q + o->q_cnt, 0, (size_t)(cnt - o->q_cnt) * sizeof(*q));
	memset(seen + o->q_cnt, 0, (size_t)(cnt - o->q_cnt) * sizeof(*seen));
	o->q_cnt = cnt;
	return grow_cur(o, cnt);
}

static uint64_t time_of(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec)
{
	struct pr_order *o = rd->order;
	uint64_t t;
	uint32_t raw;

	if (o->time_fn) {
		struct perfring_msg_src src;
		struct perfring_msg ev;

		if (pr_rd_fill_event(rd, r, rec, &ev, &src))
			return NO_TIME;
		return o->time_fn(&ev, o->time_ctx);
	}
	if (rd->is_bpf) {
		if (rec->type != PERF_RECORD_SAMPLE || perfring_ring_record_copy(rec, 8, &raw, sizeof(raw)) ||
		    (uint64_t)o->time_off + 8 > raw || perfring_ring_record_copy(rec, 12 + o->time_off, &t, sizeof(t)))
			return NO_TIME;
		return t;
	}
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (perfring_ring_record_copy(rec, 8 + (size_t)o->sample_pos, &t, sizeof(t)))
			return NO_TIME;
		return t;
	}
	if (!o->trailer_back || rec->size < 8u + (unsigned)o->trailer_back ||
	    perfring_ring_record_copy(rec, rec->size - (size_t)o->trailer_back, &t, sizeof(t)))
		return NO_TIME;
	return t;
}

static const uint8_t *q_front(const struct order_q *q, uint64_t *t)
{
	if (q->head == q->tail)
		return NULL;
	memcpy(t, q->buf + q->head, sizeof(*t));
	return q->buf + q->head;
}

static void q_pop(struct pr_order *o, struct order_q *q, unsigned size)
{
	q->head += ENTRY_HDR + size;
	if (q->head == q->tail)
		q->head = q->tail = 0;
	__atomic_store_n(&o->held, o->held - 1, __ATOMIC_RELAXED);
	__atomic_store_n(&o->held_bytes, o->held_bytes - size, __ATOMIC_RELAXED);
}

/* Copy rec into q; false if the queue is full (q_max bytes of records). */
static bool q_push(struct pr_order *o, struct order_q *q, const struct perfring_ring_record *rec, uint64_t t)
{
	size_t need = ENTRY_HDR + rec->size, used = q->tail - q->head;

	if (used + need > o->q_max + o->q_max / 2)
		return false;
	if (q->tail + need > q->cap) {
		if (q->head) {
			memmove(q->buf, q->buf + q->head, used);
			q->head = 0;
			q->tail = used;
		}
		if (pr_grow(&q->buf, &q->cap, q->tail + need, 1))
			return false;
	}
	memcpy(q->buf + q->tail, &t, 8);
	memcpy(q->buf + q->tail + 8, &rec->offset, 8);
	perfring_ring_record_copy(rec, 0, q->buf + q->tail + ENTRY_HDR, rec->size);
	q->tail += need;
	__atomic_store_n(&o->held, o->held + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&o->held_bytes, o->held_bytes + rec->size, __ATOMIC_RELAXED);
	return true;
}

/* Read the ring record at cur->pos (and its time) unless already there. */
static int cur_load(struct perfring_reader *rd, struct pr_rd_ring *r, struct order_cur *c)
{
	int ret;

	if (c->have || c->pos == c->end)
		return 0;
	ret = pr_ring_peek_at(r->ring, c->pos, c->end, &c->rec);
	if (ret < 0)
		return ret;
	if (ret == 0) { /* an overwrite-style end cannot happen on forward rings */
		c->end = c->pos;
		return 0;
	}
	c->rec.remaining = 0;
	c->t = time_of(rd, r, &c->rec);
	c->have = true;
	return 0;
}

/* Hand one record over. */
static int deliver(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		   uint64_t t, perfring_msg_fn fn, void *ctx)
{
	struct pr_order *o = rd->order;
	struct perfring_msg_src src;
	struct perfring_msg ev;
	int ret;

	ret = pr_rd_fill_event(rd, r, rec, &ev, &src);
	if (ret)
		return ret;
	src.remaining = 0;
	ret = fn(&ev, ctx);
	if (ret < 0)
		return ret;
	if (t != NO_TIME) {
		if (t < o->last_out)
			__atomic_add_fetch(&o->late, 1, __ATOMIC_RELAXED);
		else
			o->last_out = t;
	}
	return ret;
}

static void q_record(const uint8_t *e, struct perfring_ring_record *rec)
{
	struct perf_event_header h;

	memcpy(&rec->offset, e + 8, 8);
	memcpy(&h, e + ENTRY_HDR, sizeof(h));
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	rec->data = e + ENTRY_HDR;
	rec->len = h.size;
	rec->data2 = NULL;
	rec->len2 = 0;
	rec->remaining = 0;
}

/* The record at c->pos leaves its ring (delivered, or copied into its
 * queue): count it, and a LOST record's count, which the ring's counters
 * (perfring_reader_stats()) add up at the commit as an unordered drain's do. */
static void took(struct order_took *t, struct order_cur *c)
{
	uint64_t lost;

	t->records++;
	if (c->rec.type == PERF_RECORD_LOST && c->rec.size >= 24 &&
	    perfring_ring_record_copy(&c->rec, 16, &lost, sizeof(lost)) == 0) {
		t->lost += lost;
		t->lost_records++;
	}
	c->pos += c->rec.size;
	c->have = false;
}

/*
 * The merge: release records oldest first while the oldest is at most
 * bound. Returns records delivered or an error; *stopped on an early stop.
 */
static int merge(struct perfring_reader *rd, struct order_cur *cur, int cnt, uint64_t bound, perfring_msg_fn fn,
		 void *ctx, struct order_took *consumed, bool *stopped)
{
	struct pr_order *o = rd->order;
	int n = 0, i, ret;

	for (;;) {
		struct perfring_ring_record qrec;
		const uint8_t *e;
		uint64_t best_t = 0, t;
		int best = -1;
		bool from_q = false;

		for (i = 0; i < cnt; i++) {
			bool q = false;

			e = q_front(&o->q[i], &t);
			if (e) {
				q = true;
			} else {
				ret = cur_load(rd, rd->rings[i], &cur[i]);
				if (ret < 0)
					return ret;
				if (!cur[i].have)
					continue;
				t = cur[i].t;
			}
			/* No time: out as soon as it is reached. */
			if (t == NO_TIME)
				t = 0;
			if (best < 0 || t < best_t) {
				best = i;
				best_t = t;
				from_q = q;
			}
		}
		if (best < 0 || best_t > bound)
			return n;
		if (from_q) {
			e = q_front(&o->q[best], &t);
			q_record(e, &qrec);
			ret = deliver(rd, rd->rings[best], &qrec, t, fn, ctx);
			if (ret < 0)
				return ret; /* stays queued */
			q_pop(o, &o->q[best], qrec.size);
		} else {
			ret = deliver(rd, rd->rings[best], &cur[best].rec, cur[best].t, fn, ctx);
			if (ret < 0)
				return ret; /* stays in the ring */
			took(&consumed[best], &cur[best]);
		}
		n++;
		if (ret > 0) {
			*stopped = true;
			return n;
		}
	}
}

int pr_rd_order_drain(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx, bool release_all, bool *stopped)
{
	struct pr_order *o = rd->order;
	int cnt = rd->ring_cnt, i, n = 0, err = 0;
	struct order_cur *cur;
	struct order_took *consumed;
	uint64_t now, bound, dl;
	bool arrived = false, full = false;

	*stopped = false;
	o->stopped = false;
	if (!cnt)
		return 0;
	if (grow_rings(o, cnt))
		return -ENOMEM;
	cur = o->cur;
	consumed = o->consumed;
	memset(cur, 0, (size_t)cnt * sizeof(*cur));
	memset(consumed, 0, (size_t)cnt * sizeof(*consumed));
	now = pr_now_ns();
	dl = __atomic_load_n(&rd->deadline_ns, __ATOMIC_ACQUIRE);
	if (dl && now >= dl)
		release_all = true;
	/* The newest time of the new records. */
	for (i = 0; i < cnt; i++) {
		struct pr_rd_ring *r = rd->rings[i];
		struct perfring_ring_record rec;
		uint64_t pos, t;
		int ret;

		cur[i].pos = r->ring->commit_pos;
		cur[i].end = pr_load_head(&r->ring->meta->data_head);
		if (cur[i].end - cur[i].pos > r->ring->data_size || (cur[i].end & 7)) {
			err = pr_ring_bad_head(r->ring);
			goto out;
		}
		if (o->seen[i] - cur[i].pos > cur[i].end - cur[i].pos)
			o->seen[i] = cur[i].pos; /* a consume_ring() or discard moved the tail */
		for (pos = o->seen[i]; pos != cur[i].end; pos += rec.size) {
			ret = pr_ring_peek_at(r->ring, pos, cur[i].end, &rec);
			if (ret <= 0) {
				err = ret;
				goto out;
			}
			t = time_of(rd, r, &rec);
			if (t != NO_TIME && t > o->max_seen)
				o->max_seen = t;
			arrived = true;
		}
		o->seen[i] = cur[i].end;
	}
	if (arrived)
		o->last_arrival = now;
	else if (o->held && now - o->last_arrival >= o->window)
		release_all = true;
	bound = release_all ? UINT64_MAX - 1 : (o->max_seen > o->window ? o->max_seen - o->window : 0);
	n = merge(rd, cur, cnt, bound, fn, ctx, consumed, stopped);
	if (n < 0) {
		err = n;
		goto out;
	}
	/* The rest waits, copied out. */
	for (i = 0; i < cnt && !full; i++) {
		while (!full && cur[i].pos != cur[i].end) {
			err = cur_load(rd, rd->rings[i], &cur[i]);
			if (err)
				goto out;
			if (!cur[i].have)
				break;
			if (!q_push(o, &o->q[i], &cur[i].rec, cur[i].t)) {
				full = true;
				break;
			}
			took(&consumed[i], &cur[i]);
		}
	}
	if (full && !*stopped) {
		/* A queue would overflow: release everything. */
		int m;

		__atomic_add_fetch(&o->forced, 1, __ATOMIC_RELAXED);
		m = merge(rd, cur, cnt, UINT64_MAX - 1, fn, ctx, consumed, stopped);
		if (m < 0) {
			err = m;
			goto out;
		}
		n += m;
	}
	if (*stopped)
		o->stopped = true;
out:
	for (i = 0; i < cnt; i++) {
		struct pr_rd_ring *r = rd->rings[i];

		if (cur[i].pos != r->ring->commit_pos) {
			pr_rd_commit_forward(r, r->ring->commit_pos, cur[i].pos, (int)consumed[i].records,
					     consumed[i].lost, consumed[i].lost_records);
			if (o->seen[i] - cur[i].pos > cur[i].end - cur[i].pos)
				o->seen[i] = cur[i].pos;
		}
		/* What is left in a ring is its own concern again. */
		if (cur[i].pos != cur[i].end)
			pr_rd_owe(rd, r);
		else
			r->owed = false;
	}
	return err ? err : n;
}

uint64_t pr_rd_order_due(const struct perfring_reader *rd)
{
	const struct pr_order *o = rd->order;

	if (!o || (!o->held && !o->stopped))
		return UINT64_MAX;
	if (o->stopped)
		return 0;
	return o->last_arrival + o->window;
}

int perfring_reader_order_stats(const struct perfring_reader *rd, struct perfring_reader_order *st)
{
	const struct pr_order *o;

	if (!rd || !st)
		return pr_fail(EINVAL, "perfring_reader_order_stats: %s is NULL", rd ? "st" : "reader");
	o = rd->order;
	memset(st, 0, sizeof(*st));
	if (!o)
		return 0;
	st->active = true;
	st->late = __atomic_load_n(&o->late, __ATOMIC_RELAXED);
	st->forced = __atomic_load_n(&o->forced, __ATOMIC_RELAXED);
	st->held = __atomic_load_n(&o->held, __ATOMIC_RELAXED);
	st->held_bytes = __atomic_load_n(&o->held_bytes, __ATOMIC_RELAXED);
	return 0;
}

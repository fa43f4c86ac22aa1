// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data records: the data section (or the pipe) in file order, the user
 * records the reader consumes itself (attrs, features, names, ids of pipe
 * mode), zstd-compressed records expanded after the record that carried
 * them, and, with opts.ordered, the time order perf delivers (its
 * ordered_events: a FINISHED_ROUND releases what is older than the newest
 * record of the round before, so `perf report -D` is the reference).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

#if defined(__has_include)
#if __has_include(<zstd.h>)
#include <zstd.h>
#define PD_HAVE_ZSTD 1
#endif
#endif

/*
 * Compressed records are expanded as they are read, a piece at a time, as
 * every other input is: a zip bomb holds at most a window, not what it
 * expands to. The window starts at PD_DWIN and grows only to hold one
 * record whole; a record inside a stream is at most PD_DREC_MAX bytes (the
 * kernel's are at most 64 KiB, and perf writes its payload records,
 * TRACING_DATA and AUXTRACE, uncompressed). zstd's own window is bounded by
 * the library's default limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT: 128 MiB).
 */
#define PD_DWIN (256u << 10)
#define PD_DREC_MAX (16u << 20)
/* The compressed bytes of one record: header.size is a u16. */
#define PD_ZIN_MAX 65536u

static int rec_fail(struct perfring_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int rec_fail(struct perfring_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return pd_fail_at(pd, off, err, "record: %s", msg);
}

/*
 * One piece of the stream into the window, after what is not yet delivered
 * (moved to its start). need: the bytes the record at dpos needs whole (0
 * while its header is incomplete); the window grows to hold it. 0, with
 * pd->zmore false once the input is spent and zstd holds no more, or an error.
 */
static int expand(struct perfring_perfdata *pd, size_t need)
{
#ifdef PD_HAVE_ZSTD
	ZSTD_inBuffer in = { pd->zin, pd->zin_len, pd->zin_pos };
	ZSTD_outBuffer out;
	size_t want = need > PD_DWIN ? need : PD_DWIN, ret;

	if (pd->dpos) {
		memmove(pd->dbuf, pd->dbuf + pd->dpos, pd->dlen - pd->dpos);
		pd->dlen -= pd->dpos;
		pd->dpos = 0;
	}
	if (pr_grow(&pd->dbuf, &pd->dcap, want, 1))
		return rec_fail(pd, pd->dsrc_off, ENOMEM, "no memory for %zu decompressed bytes", want);
	/* need > dlen whenever more is asked for: there is room */
	out.dst = pd->dbuf;
	out.size = pd->dcap;
	out.pos = pd->dlen;
	ret = ZSTD_decompressStream(pd->zstd, &out, &in);
	if (ZSTD_isError(ret))
		return rec_fail(pd, pd->dsrc_off, PERFRING_EBADREC, "zstd: %s", ZSTD_getErrorName(ret));
	pd->zin_pos = in.pos;
	/* zstd flushes what it can: with the input spent and room left, it holds nothing */
	pd->zmore = in.pos < in.size || out.pos == out.size;
	pd->decompressed += out.pos - pd->dlen;
	pd->dlen = out.pos;
	if (pd->decompressed > pd->max_decompressed)
		return rec_fail(pd, pd->dsrc_off, E2BIG,
				"compressed records expand to more than %llu bytes in all "
				"(perfring_perfdata_opts.max_decompressed)",
				(unsigned long long)pd->max_decompressed);
	return 0;
#else
	(void)need;
	return rec_fail(pd, pd->dsrc_off, ENOTSUP, "zstd-compressed records: this build has no zstd");
#endif
}

/*
 * A COMPRESSED record's bytes, expanded as the records inside are read
 * (next_decompressed()). The previous record's are spent: the file's next
 * record is read only when nothing of the stream is pending. A record may
 * continue from one compressed record into the next (the zstd context and
 * the undelivered tail are kept).
 */
static int decompress(struct perfring_perfdata *pd, uint64_t off, const uint8_t *src, size_t n)
{
#ifdef PD_HAVE_ZSTD
	if (!pd->zstd) {
		pd->zstd = ZSTD_createDCtx();
		if (!pd->zstd)
			return rec_fail(pd, off, ENOMEM, "no memory for a zstd context");
	}
	if (!pd->zin) {
		pd->zin = malloc(PD_ZIN_MAX);
		if (!pd->zin)
			return rec_fail(pd, off, ENOMEM, "no memory for compressed bytes");
	}
	memcpy(pd->zin, src, n);
	pd->zin_len = n;
	pd->zin_pos = 0;
	pd->zmore = true;
	pd->dsrc_off = off;
	/* The first piece now: a stream broken from its start fails with the
	 * record that carries it, before that record is delivered. */
	return expand(pd, 0);
#else
	(void)src;
	(void)n;
	return rec_fail(pd, off, ENOTSUP, "zstd-compressed records: this build has no zstd");
#endif
}

/* The user records the reader learns from. */
static int consume(struct perfring_perfdata *pd, uint64_t off, const uint8_t *p, uint32_t type, uint32_t size)
{
	switch (type) {
	case PERFRING_RECORD_HEADER_ATTR: {
		struct perf_event_attr attr;
		uint32_t file_size, alen;
		int err = pd_attr_decode(pd, p + 8, size - 8, &attr, &file_size);

		if (err)
			return rec_fail(pd, off, -err, "HEADER_ATTR: attr does not fit the record");
		alen = file_size ? file_size : PD_ATTR_SIZE_VER0;
		if ((size - 8 - alen) % 8)
			return rec_fail(pd, off, PERFRING_EBADREC, "HEADER_ATTR: %u bytes of ids, not a multiple of 8",
					size - 8 - alen);
		err = pd_attr_add(pd, &attr, file_size, p + 8 + alen, (size - 8 - alen) / 8);
		return err < 0 ? err : 0;
	}
	case PERFRING_RECORD_HEADER_FEATURE:
		if (size < 16)
			return rec_fail(pd, off, PERFRING_EBADREC, "HEADER_FEATURE: size %u below 16", size);
		return pd_feature_set(pd, (int)(pd64(pd, p + 8) < PD_FEAT_BITS ? pd64(pd, p + 8) : PD_FEAT_BITS),
				      p + 16, size - 16, true);
	case PERFRING_RECORD_EVENT_UPDATE: {
		int idx;

		if (size < 24)
			return rec_fail(pd, off, PERFRING_EBADREC, "EVENT_UPDATE: size %u below 24", size);
		/* PERF_EVENT_UPDATE__NAME = 2 */
		if (pd64(pd, p + 8) != 2)
			return 0;
		idx = pd_attr_find_id(pd, pd64(pd, p + 16));
		return idx < 0 ? 0 : pd_attr_set_name(pd, idx, (const char *)p + 24, size - 24);
	}
	case PERFRING_RECORD_ID_INDEX: {
		uint64_t nr, i;

		if (size < 16)
			return rec_fail(pd, off, PERFRING_EBADREC, "ID_INDEX: size %u below 16", size);
		nr = pd64(pd, p + 8);
		if (nr > (size - 16) / 32)
			return rec_fail(pd, off, PERFRING_EBADREC, "ID_INDEX: nr %llu entries do not fit %u bytes",
					(unsigned long long)nr, size);
		for (i = 0; i < nr; i++) {
			uint64_t id = pd64(pd, p + 16 + 32 * i), idx = pd64(pd, p + 24 + 32 * i);
			int err;

			if (idx < (uint64_t)pd->nr_attrs && pd_attr_find_id(pd, id) < 0 &&
			    (err = pd_attr_add_id(pd, (int)idx, id)))
				return err;
		}
		return 0;
	}
	case PERFRING_RECORD_COMPRESSED:
		return decompress(pd, off, p + 8, size - 8);
	case PERFRING_RECORD_COMPRESSED2: {
		uint64_t n;

		if (size < 16)
			return rec_fail(pd, off, PERFRING_EBADREC, "COMPRESSED2: size %u below 16", size);
		n = pd64(pd, p + 8);
		if (n > size - 16)
			return rec_fail(pd, off, PERFRING_EBADREC, "COMPRESSED2: data_size %llu exceeds the record's %u bytes",
					(unsigned long long)n, size - 16);
		return decompress(pd, off, p + 16, (size_t)n);
	}
	default:
		return 0;
	}
}

/* The record at p, whose header says type and size. */
static inline void fill(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec, uint64_t off,
			const uint8_t *p, uint32_t type, uint16_t size, bool from_compressed)
{
	int idx = type < PERFRING_RECORD_HEADER_ATTR ? pd_attr_idx_for_record(pd, p, type, size) : -1;

	rec->offset = off;
	rec->from_compressed = from_compressed;
	rec->type = type;
	rec->misc = pd16(pd, p + 4);
	rec->size = size;
	rec->data = p;
	rec->payload = NULL;
	rec->payload_len = 0;
	rec->attr = idx < 0 ? NULL : &pd->attrs[idx]->pub;
}

/*
 * The bytes the record at the window's start needs whole (header and
 * payload), as far as its header is there (0 before 8 bytes); *err on an
 * impossible header.
 */
static uint64_t decompressed_need(struct perfring_perfdata *pd, int *err)
{
	size_t left = pd->dlen - pd->dpos;
	const uint8_t *p = pd->dbuf + pd->dpos;
	uint64_t payload;
	uint32_t type, hdr;
	uint16_t size;

	*err = 0;
	if (left < 8)
		return 0;
	size = pd16(pd, p + 6);
	type = pd32(pd, p);
	if (size < 8) {
		*err = rec_fail(pd, pd->dsrc_off, PERFRING_EBADREC, "decompressed record %zu bytes into the stream has size %u",
				pd->dpos, size);
		return 0;
	}
	if (type == PERFRING_RECORD_COMPRESSED || type == PERFRING_RECORD_COMPRESSED2) {
		*err = rec_fail(pd, pd->dsrc_off, PERFRING_EBADREC, "a compressed record inside a compressed record");
		return 0;
	}
	/* perf writes these uncompressed, but their payload is well defined */
	if (type != PERFRING_RECORD_HEADER_TRACING_DATA && type != PERFRING_RECORD_AUXTRACE)
		return size;
	hdr = type == PERFRING_RECORD_AUXTRACE ? 16 : 12;
	if (size < hdr) {
		*err = rec_fail(pd, pd->dsrc_off, PERFRING_EBADREC, "decompressed record of type %u: size %u", type, size);
		return 0;
	}
	if (left < size)
		return size;
	payload = type == PERFRING_RECORD_AUXTRACE ? pd64(pd, p + 8) : pd32(pd, p + 8);
	return payload > UINT64_MAX - size ? UINT64_MAX : size + payload;
}

/* A complete record out of the compressed stream: 1, 0 when none (the
 * stream spent), or an error. */
static int next_decompressed(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	const uint8_t *p;
	uint64_t need;
	uint32_t type;
	uint16_t size;
	int err;

	for (;;) {
		/* Before the first compressed record dbuf is NULL: no pointer
		 * arithmetic on it (undefined even with offset 0; clang's UBSan says so). */
		need = pd->dlen - pd->dpos >= 8 ? decompressed_need(pd, &err) : 0;
		if (need == 0 && pd->dlen - pd->dpos >= 8)
			return err;
		if (need > PD_DREC_MAX)
			return rec_fail(pd, pd->dsrc_off, PERFRING_EBADREC,
					"a record of %llu bytes inside the compressed stream (at most %u)",
					(unsigned long long)need, PD_DREC_MAX);
		if (need && need <= pd->dlen - pd->dpos)
			break;
		if (!pd->zmore)
			return 0; /* at the end, a partial record is the caller's error */
		err = expand(pd, (size_t)need);
		if (err)
			return err;
	}
	p = pd->dbuf + pd->dpos;
	size = pd16(pd, p + 6);
	type = pd32(pd, p);
	pd->dpos += need;
	err = consume(pd, pd->dsrc_off, p, type, size);
	if (err)
		return err;
	fill(pd, rec, pd->dsrc_off, p, type, size, true);
	if (need > size) {
		rec->payload = p + size;
		rec->payload_len = need - size;
	}
	return 1;
}

#ifndef PD_PREFETCH_AHEAD
#define PD_PREFETCH_AHEAD 2048
#endif
/* While ordering delivers a round, the next round is prefetched: at most
 * this far ahead, PD_PREFETCH_STEP bytes per record delivered. */
#ifndef PD_PREFETCH_ROUND
#define PD_PREFETCH_ROUND (256u << 10)
#endif
#ifndef PD_PREFETCH_STEP
#define PD_PREFETCH_STEP 256
#endif

/* Populate the mapping up to want, keeping what the reader holds: the next
 * record and the records ordering queued (the first queued that is not a
 * copy is the oldest: the queue is in arrival order). */
static __attribute__((noinline)) void populate(struct perfring_perfdata *pd, uint64_t want)
{
	uint64_t keep = pd->pos;
	size_t i;

	for (i = 0; i < pd->nr_queue; i++)
		if (!pd->queue[i].in_arena) {
			uint64_t at = (uint64_t)(pd->queue[i].at.data - pd->in.buf) + pd->in.base;

			keep = at < keep ? at : keep;
			break;
		}
	if (pd->reading_ahead) { /* and what the batches not yet delivered point at */
		size_t held = pd_ra_held(pd);

		keep = held < keep ? held : keep;
	}
	pd_input_populate(pd, want, keep);
}

/*
 * Ask for the input's cache lines up to want (clamped to the input), each
 * line once. A reader that only looks at a record's header and time
 * (ordering, counting) skips most of its bytes, and the hardware's
 * prefetcher does not follow such a walk: every header was a miss to
 * memory. Prefetching cannot fault; only bytes of the input are asked for.
 */
static inline void prefetch_to(struct perfring_perfdata *pd, uint64_t want)
{
	uint64_t have = pd->in.base + pd->in.len;

	if (pd->prefetched < pd->pos)
		pd->prefetched = pd->pos;
	if (want > have)
		want = have;
	if (PR_UNLIKELY(want > pd->in.populated))
		populate(pd, want);
	for (; pd->prefetched < want; pd->prefetched += 64)
		__builtin_prefetch(pd->in.buf + (pd->prefetched - pd->in.base));
}

/* The common case: a kernel record wholly inside a file held in memory, no
 * decompressed records pending. Small, so that it needs few registers; the
 * rest is raw_next_slow(). 1 with *rec filled, 0 when it does not apply. */
static inline int raw_next_fast(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	uint64_t off = pd->pos;
	const uint8_t *p;
	uint32_t type;
	uint16_t size;

	if (off >= pd->fast_end || pd->fast_end - off < 8 || pd_decomp_pending(pd))
		return 0;
	p = pd->in.buf + off;
	type = pd32(pd, p);
	size = pd16(pd, p + 6);
	if (type >= PERFRING_RECORD_HEADER_ATTR || size < 8 || pd->fast_end - off < size)
		return 0;
	prefetch_to(pd, off + PD_PREFETCH_AHEAD);
	fill(pd, rec, off, p, type, size, false);
	pd->pos = off + size;
	return 1;
}

/*
 * The record at pd->pos is one the reader only passes on, wholly in memory
 * with nothing decompressed still to deliver before it: a kernel record,
 * or a user record the reader learns nothing from and that carries no
 * payload. The readahead thread reads these only.
 */
bool pd_next_is_plain(const struct perfring_perfdata *pd)
{
	uint64_t off = pd->pos;
	const uint8_t *p;
	uint32_t type;
	uint16_t size;

	if (pd_decomp_pending(pd) || off >= pd->fast_end || pd->fast_end - off < 8)
		return false;
	p = pd->in.buf + (off - pd->in.base);
	type = pd32(pd, p);
	size = pd16(pd, p + 6);
	if (size < 8 || size > pd->fast_end - off)
		return false;
	switch (type) {
	case PERFRING_RECORD_HEADER_ATTR:
	case PERFRING_RECORD_HEADER_TRACING_DATA:
	case PERFRING_RECORD_ID_INDEX:
	case PERFRING_RECORD_AUXTRACE:
	case PERFRING_RECORD_EVENT_UPDATE:
	case PERFRING_RECORD_HEADER_FEATURE:
	case PERFRING_RECORD_COMPRESSED:
	case PERFRING_RECORD_COMPRESSED2:
		return false;
	default:
		return true;
	}
}

static __attribute__((noinline)) int raw_next_slow(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	uint64_t off = pd->pos, payload = 0;
	const uint8_t *p;
	uint32_t type;
	uint16_t size;
	int r;

	/* The readahead thread leaves the rest, and anything wrong, to the
	 * caller's thread: errors and the reader's own decisions come from there. */
	if (pd->reading_ahead && !pd_next_is_plain(pd))
		return PD_NEXT_HANDBACK;
	r = next_decompressed(pd, rec);
	if (r)
		return r;
	if (off >= pd->end)
		goto at_end;
	pd_input_discard(pd, off);
	r = pd_input_ensure(pd, off, 8, &p);
	if (r < 0)
		return r;
	if (r == 1) {
		if (pd->pipe && pd->in.base + pd->in.len == off)
			goto at_end;
		return rec_fail(pd, off, PERFRING_ETRUNC, "the file ends inside the record header");
	}
	if (pd->end - off < 8)
		return rec_fail(pd, off, PERFRING_ETRUNC, "the header crosses the end of the data section");
	type = pd32(pd, p);
	size = pd16(pd, p + 6);
	if (size < 8)
		return rec_fail(pd, off, PERFRING_EBADREC, "header.size %u is below 8 (type %u)", size, type);
	if (pd->end - off < size)
		return rec_fail(pd, off, PERFRING_ETRUNC, "size %u crosses the end of the data section at %llu", size,
				(unsigned long long)pd->end);
	if (type == PERFRING_RECORD_HEADER_TRACING_DATA || type == PERFRING_RECORD_AUXTRACE) {
		r = pd_input_ensure(pd, off, size, &p);
		if (r)
			return r < 0 ? r : rec_fail(pd, off, PERFRING_ETRUNC, "the file ends inside the record");
		if (size < (type == PERFRING_RECORD_AUXTRACE ? 16 : 12))
			return rec_fail(pd, off, PERFRING_EBADREC, "%s: size %u too small",
					type == PERFRING_RECORD_AUXTRACE ? "AUXTRACE" : "HEADER_TRACING_DATA", size);
		payload = type == PERFRING_RECORD_AUXTRACE ? pd64(pd, p + 8) : pd32(pd, p + 8);
		if (pd->end - off - size < payload)
			return rec_fail(pd, off, PERFRING_ETRUNC, "payload of %llu bytes crosses the end of the data",
					(unsigned long long)payload);
	}
	r = pd_input_ensure(pd, off, size + payload, &p);
	if (r)
		return r < 0 ? r : rec_fail(pd, off, PERFRING_ETRUNC, "the file ends inside the record (size %u + %llu)",
					    size, (unsigned long long)payload);
	r = consume(pd, off, p, type, size);
	if (r)
		return r;
	fill(pd, rec, off, p, type, size, false);
	if (payload) {
		rec->payload = p + size;
		rec->payload_len = payload;
	}
	pd->pos = off + size + payload;
	if (!pd->in.stream) /* populates and releases the mapping as the fast path does */
		prefetch_to(pd, pd->pos + PD_PREFETCH_AHEAD);
	return 1;

at_end:
	if (pd->dlen > pd->dpos) {
		pd->error_offset = pd->dsrc_off;
		return pr_fail(PERFRING_ETRUNC,
			       "perf.data: the compressed stream ends inside a record (%zu bytes left, from offset %llu)",
			       pd->dlen - pd->dpos, (unsigned long long)pd->dsrc_off);
	}
	return 0;
}

/* The next record in file order: 1, 0 at the end, or an error. */
static inline int raw_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	return raw_next_fast(pd, rec) ? 1 : raw_next_slow(pd, rec);
}

/* ---- time order, perf's way (tools/perf/util/ordered-events.c) ---- */

/*
 * Sort q[0, n) by time, stably (equal times keep their arrival order), with
 * a natural merge sort: merge neighbouring ascending runs, pass after pass,
 * until one is left. A round of perf.data is a few long runs (one per ring
 * the recorder read, plus what the last flush left, already sorted), so
 * this is a few linear passes over 32-byte entries; the records themselves
 * never move. Returns whichever of q and tmp holds the result.
 */
static struct pd_queued *natural_sort(struct pd_queued *q, struct pd_queued *tmp, size_t n)
{
	for (;;) {
		size_t i = 0, out = 0, runs = 0;
		struct pd_queued *swap;

		while (i < n) {
			size_t e1 = i + 1, e2, x = i, y;

			while (e1 < n && q[e1 - 1].time <= q[e1].time)
				e1++;
			if (i == 0 && e1 == n)
				return q; /* already in order */
			e2 = e1 < n ? e1 + 1 : e1;
			while (e2 < n && q[e2 - 1].time <= q[e2].time)
				e2++;
			y = e1;
			while (x < e1 && y < e2)
				tmp[out++] = q[y].time < q[x].time ? q[y++] : q[x++];
			memcpy(tmp + out, q + x, (e1 - x) * sizeof(*q));
			out += e1 - x;
			memcpy(tmp + out, q + y, (e2 - y) * sizeof(*q));
			out += e2 - y;
			i = e2;
			runs++;
		}
		swap = q;
		q = tmp;
		tmp = swap;
		if (runs <= 1)
			return q;
	}
}

/* Room for one more queued record (the queue and the sort's second half
 * grow together: one capacity, grown from the same start, for both). */
static int queue_reserve(struct perfring_perfdata *pd)
{
	size_t cap = pd->cap_queue, tmp_cap = pd->cap_queue;

	if (pd->nr_queue < pd->cap_queue)
		return 0;
	if (pr_grow(&pd->queue, &cap, pd->nr_queue + 1, sizeof(*pd->queue)) ||
	    pr_grow(&pd->queue_tmp, &tmp_cap, pd->nr_queue + 1, sizeof(*pd->queue_tmp)))
		return pr_fail(ENOMEM, "perf.data: no memory to order %zu records", pd->nr_queue + 1);
	pd->cap_queue = cap;
	return 0;
}

/* Room for n more bytes of copies (the arena and its spare grow together). */
static int arena_reserve(struct perfring_perfdata *pd, size_t n)
{
	size_t cap = pd->arena_cap, spare_cap = pd->arena_cap;

	if (pd->arena_cap - pd->arena_len >= n)
		return 0;
	if (pr_grow(&pd->arena, &cap, pd->arena_len + n, 1) ||
	    pr_grow(&pd->arena_spare, &spare_cap, pd->arena_len + n, 1))
		return pr_fail(ENOMEM, "perf.data: no memory to order records (%zu bytes)", pd->arena_len + n);
	pd->arena_cap = cap;
	return 0;
}

static int enqueue(struct perfring_perfdata *pd, const struct perfring_perfdata_record *rec, int attr_idx,
		   uint64_t time)
{
	/* Bytes of a file held whole stay valid as long as the reader; bytes
	 * of a stream or of a decompression buffer are reused. */
	bool copy = pd->in.stream || rec->from_compressed;
	struct pd_queued *q;
	int err;

	err = queue_reserve(pd);
	if (!err && copy)
		err = arena_reserve(pd, rec->size);
	if (err)
		return err;
	q = &pd->queue[pd->nr_queue++];
	q->time = time;
	q->offset = rec->offset;
	q->size = (uint16_t)rec->size;
	q->misc = rec->misc;
	q->type = rec->type;
	q->attr_idx = (uint32_t)attr_idx;
	q->in_arena = copy;
	q->from_compressed = rec->from_compressed;
	if (copy) {
		q->at.arena_off = pd->arena_len;
		memcpy(pd->arena + pd->arena_len, rec->data, rec->size);
		pd->arena_len += rec->size;
	} else {
		q->at.data = rec->data;
	}
	if (time > pd->max_time)
		pd->max_time = time;
	return 0;
}

/* What ordering holds for the records queued now: their entries (and the
 * sort's second half), and their copies (and the spare the rest moves to).
 * The arrays grow by doubling, so what is allocated stays within twice this. */
static uint64_t queue_bytes(const struct perfring_perfdata *pd)
{
	return (uint64_t)pd->nr_queue * 2 * sizeof(struct pd_queued) + 2 * (uint64_t)pd->arena_len;
}

/* Deliver, in time order, the queued records up to limit, at most max_cnt:
 * find the queue's ascending runs; the delivery merges them. */
static void start_flush(struct perfring_perfdata *pd, uint64_t limit, size_t max_cnt)
{
	const struct pd_queued *q = pd->queue;
	size_t i = 0, e, n = pd->nr_queue;

	pd->nr_runs = 0;
	while (i < n) {
		for (e = i + 1; e < n && q[e - 1].time <= q[e].time; e++)
			;
		if (pd->nr_runs == PD_MAX_RUNS) {
			/* many rings, or a disorderly file: one sorted run */
			struct pd_queued *sorted = natural_sort(pd->queue, pd->queue_tmp, n);

			if (sorted != pd->queue) {
				pd->queue_tmp = pd->queue;
				pd->queue = sorted;
			}
			pd->runs[0].pos = 0;
			pd->runs[0].end = n;
			pd->nr_runs = 1;
			break;
		}
		pd->runs[pd->nr_runs].pos = i;
		pd->runs[pd->nr_runs++].end = e;
		i = e;
	}
	pd->flush_limit = limit;
	pd->flush_left = max_cnt;
	pd->flushing = true;
}

/* The oldest queued record the flush still delivers (the first run's on a
 * tie: runs are in arrival order), or NULL when the flush is done. */
static const struct pd_queued *flush_next(struct perfring_perfdata *pd)
{
	const struct pd_queued *q = pd->queue, *best;
	int r, b = 0;

	if (!pd->flush_left || !pd->nr_runs)
		return NULL;
	best = &q[pd->runs[0].pos];
	for (r = 1; r < pd->nr_runs; r++)
		if (q[pd->runs[r].pos].time < best->time) {
			best = &q[pd->runs[r].pos];
			b = r;
		}
	if (best->time > pd->flush_limit)
		return NULL;
	pd->flush_left--;
	if (++pd->runs[b].pos == pd->runs[b].end) { /* the run is spent */
		memmove(&pd->runs[b], &pd->runs[b + 1], (size_t)(pd->nr_runs - b - 1) * sizeof(pd->runs[0]));
		pd->nr_runs--;
	}
	return best;
}

/* Drop the delivered records: what is left of each run moves to the front
 * of the queue, in arrival order still, and the copied bytes among them to
 * the arena's spare, which becomes the arena. */
static void end_flush(struct perfring_perfdata *pd)
{
	struct pd_queued *q = pd->queue;
	size_t rest = 0, i, off = 0;
	uint8_t *swap;
	int r;

	pd->flushing = false;
	for (r = 0; r < pd->nr_runs; r++) {
		size_t len = pd->runs[r].end - pd->runs[r].pos;

		if (rest != pd->runs[r].pos)
			memmove(q + rest, q + pd->runs[r].pos, len * sizeof(*q));
		rest += len;
	}
	pd->nr_runs = 0;
	pd->nr_queue = rest;
	if (!pd->arena_len)
		return;
	for (i = 0; i < rest; i++) {
		uint16_t size = q[i].size;

		if (!q[i].in_arena)
			continue;
		memcpy(pd->arena_spare + off, pd->arena + q[i].at.arena_off, size);
		q[i].at.arena_off = off;
		off += size;
	}
	swap = pd->arena;
	pd->arena = pd->arena_spare;
	pd->arena_spare = swap;
	pd->arena_len = off;
}

/* A queued record, delivered. */
static void deliver(struct perfring_perfdata *pd, const struct pd_queued *q, struct perfring_perfdata_record *rec)
{
	const uint8_t *p = q->in_arena ? pd->arena + q->at.arena_off : q->at.data;

	/* Memory is idle while the consumer works on a round: bring in
	 * the next one, a few lines per record delivered. */
	if (!pd->in.stream && pd->prefetched < pd->pos + PD_PREFETCH_ROUND)
		prefetch_to(pd, pd->prefetched + PD_PREFETCH_STEP);

	rec->offset = q->offset;
	rec->from_compressed = q->from_compressed;
	rec->type = q->type;
	rec->misc = q->misc;
	rec->size = q->size;
	rec->data = p;
	rec->payload = NULL;
	rec->payload_len = 0;
	rec->attr = &pd->attrs[q->attr_idx]->pub;
}

/*
 * The common case of ordering a file held in memory: the next record is a
 * kernel record wholly in memory, of a known attr, with a time, and the
 * queue has room for it within its bound. It is queued without being
 * described to anyone (it is read again when delivered): true when it was,
 * false (nothing done) when next_ordered()'s general path must look at it.
 * Same decisions as that path, made in the same order.
 */
static inline bool queue_next_fast(struct perfring_perfdata *pd)
{
	uint64_t off = pd->pos, time;
	struct pd_queued *q;
	const uint8_t *p;
	uint32_t type;
	uint16_t size;
	int idx;

	if (off >= pd->fast_end || pd->fast_end - off < 8 || pd_decomp_pending(pd) || pd->nr_queue == pd->cap_queue ||
	    queue_bytes(pd) + 2 * sizeof(*q) > pd->max_queue_bytes)
		return false;
	p = pd->in.buf + off;
	type = pd32(pd, p);
	size = pd16(pd, p + 6);
	if (type >= PERFRING_RECORD_HEADER_ATTR || size < 8 || pd->fast_end - off < size)
		return false;
	idx = pd_attr_idx_for_record(pd, p, type, size);
	if (idx < 0 || !pd_field(pd, &pd->attrs[idx]->time_at, p, type, size, &time) || time == 0 ||
	    time == UINT64_MAX)
		return false;
	prefetch_to(pd, off + PD_PREFETCH_AHEAD);
	q = &pd->queue[pd->nr_queue++];
	q->time = time;
	q->offset = off;
	q->size = size;
	q->misc = pd16(pd, p + 4);
	q->type = type;
	q->attr_idx = (uint32_t)idx;
	q->in_arena = false;
	q->from_compressed = false;
	q->at.data = p;
	if (time > pd->max_time)
		pd->max_time = time;
	pd->pos = off + size;
	return true;
}

/*
 * perf's ordered delivery: a kernel record with a time (not 0, not ~0) is
 * queued; everything else is delivered at once. A FINISHED_ROUND is
 * delivered, then the queued records up to the largest time the previous
 * round had are (sorted by time, stably); the end of the input (or an
 * error) delivers all of them.
 */
static int next_ordered(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	for (;;) {
		const struct pd_attr *a;
		uint64_t time;
		int r;

		if (pd->flushing) {
			const struct pd_queued *q = flush_next(pd);

			if (q) {
				deliver(pd, q, rec);
				return 1;
			}
			end_flush(pd);
		}
		if (pd->at_eof) {
			/* the consumer ran between (symbolizing what the flush
			 * delivered, say), and may have set a message of its own */
			if (pd->sticky_err < 0)
				return pr_fail(-pd->sticky_err, "%s", pd->sticky_msg ? pd->sticky_msg : "");
			return pd->sticky_err;
		}
		while (queue_next_fast(pd))
			;
		r = raw_next(pd, rec);
		if (r == PD_NEXT_HANDBACK)
			return r;
		if (r <= 0) {
			pd->at_eof = true;
			pd->sticky_err = r;
			if (r < 0 && !pd->sticky_msg)
				pd->sticky_msg = strdup(perfring_errmsg()); /* NULL: an empty message later */
			start_flush(pd, UINT64_MAX, SIZE_MAX);
			continue;
		}
		if (rec->type == PERFRING_RECORD_FINISHED_ROUND) {
			start_flush(pd, pd->next_flush, SIZE_MAX);
			pd->next_flush = pd->max_time;
			return 1;
		}
		if (!rec->attr)
			return 1;
		a = (const struct pd_attr *)rec->attr;
		if (!pd_field(pd, &a->time_at, rec->data, rec->type, (uint16_t)rec->size, &time) || time == 0 ||
		    time == UINT64_MAX)
			return 1;
		r = enqueue(pd, rec, a->idx, time);
		if (r)
			return r;
		if (queue_bytes(pd) > pd->max_queue_bytes) {
			/* perf's OE_FLUSH__HALF: the oldest half goes now. */
			size_t half = pd->nr_queue / 2 ? pd->nr_queue / 2 : 1;

			start_flush(pd, UINT64_MAX, half);
			if (pd->early_flushed)
				;
			else if (pd->reading_ahead) /* said when the caller's thread gets there */
				pd->early_warn = rec->offset + 1;
			else
				pd_warn_early_flush(pd, rec->offset);
			__atomic_store_n(&pd->early_flushed, pd->early_flushed + half, __ATOMIC_RELAXED);
		}
	}
}

void pd_warn_early_flush(const struct perfring_perfdata *pd, uint64_t offset)
{
	pr_log(PERFRING_LOG_WARN,
	       "perf.data: at offset 0x%llx: time ordering reached its %llu-byte bound "
	       "without a FINISHED_ROUND; delivering the oldest records early",
	       (unsigned long long)offset, (unsigned long long)pd->max_queue_bytes);
}

static inline int next_step(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	return pd->ordered ? next_ordered(pd, rec) : raw_next(pd, rec);
}

int pd_next_step(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	return next_step(pd, rec);
}

int perfring_perfdata_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	if (!pd || !rec)
		return pr_fail(EINVAL, "perfring_perfdata_next: %s is NULL", !pd ? "pd" : "rec");
	if (pd->ra || pd->use_ra) {
		int r = pd_readahead_next(pd, rec);

		if (r != PD_NEXT_HANDBACK)
			return r;
	}
	return next_step(pd, rec);
}

void pd_next_free(struct perfring_perfdata *pd)
{
#ifdef PD_HAVE_ZSTD
	if (pd->zstd)
		ZSTD_freeDCtx(pd->zstd);
#endif
	free(pd->zin);
	free(pd->dbuf);
	free(pd->queue);
	free(pd->queue_tmp);
	free(pd->arena);
	free(pd->arena_spare);
	free(pd->sticky_msg);
}

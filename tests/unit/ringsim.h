/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ringsim: fake perf rings in memory, for the ring layer's unit tests.
 *
 * A fake ring is what the kernel maps: one metadata page (struct
 * perf_event_mmap_page with data_offset/data_size/data_head/data_tail) and a
 * data area of 2^n bytes. The "producer" functions write records the way the
 * kernel does: forward rings at head, advancing it; backward
 * (write_backward) rings at head - size, moving head down. Record bodies
 * carry a pattern derived from a seed, so a test can check every byte.
 *
 * The allocation is aligned_alloc'd heap memory of exactly page + data bytes,
 * so that AddressSanitizer reports any read past the ring.
 *
 * A collector (rs_collect) records what a consume callback saw: the header
 * fields, the span pointers and a copy of the bytes rebuilt from the spans
 * (without going through the library), and the ring's data_tail at the time
 * of the callback (to check that the tail is not committed mid-batch).
 */
#ifndef PERFRING_TESTS_RINGSIM_H
#define PERFRING_TESTS_RINGSIM_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <perfring/ring.h>

struct ringsim {
	uint8_t *base;      /* metadata page, then the data area */
	size_t page_size;
	size_t data_size;   /* power of two */
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t wpos;      /* the producer's head (free-running) */
	bool backward;
};

static inline size_t rs_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* A zeroed fake ring whose head and tail both start at start. Returns 0 or -ENOMEM. */
static inline int rs_init_at(struct ringsim *rs, size_t data_size, bool backward, uint64_t start)
{
	size_t page = rs_page();

	memset(rs, 0, sizeof(*rs));
	rs->base = aligned_alloc(page, page + data_size);
	if (!rs->base)
		return -ENOMEM;
	memset(rs->base, 0, page + data_size);
	rs->page_size = page;
	rs->data_size = data_size;
	rs->meta = (struct perf_event_mmap_page *)rs->base;
	rs->data = rs->base + page;
	rs->backward = backward;
	rs->meta->data_offset = page;
	rs->meta->data_size = data_size;
	rs->meta->data_head = start;
	rs->meta->data_tail = start;
	rs->wpos = start;
	return 0;
}

static inline int rs_init(struct ringsim *rs, size_t data_size, bool backward)
{
	return rs_init_at(rs, data_size, backward, 0);
}

static inline void rs_fini(struct ringsim *rs)
{
	free(rs->base);
	rs->base = NULL;
}

static inline size_t rs_len(const struct ringsim *rs)
{
	return rs->page_size + rs->data_size;
}

/* A perfring ring over the fake ring. */
static inline struct perfring_ring *rs_ring(struct ringsim *rs, bool linearize)
{
	struct perfring_ring_opts opts = PERFRING_OPTS_INIT(perfring_ring_opts, .overwrite = rs->backward,
							    .linearize = linearize);

	return perfring_ring_new_mem(rs->base, rs_len(rs), rs->page_size, &opts);
}

static inline uint64_t rs_head(const struct ringsim *rs)
{
	return __atomic_load_n(&rs->meta->data_head, __ATOMIC_ACQUIRE);
}

static inline uint64_t rs_tail(const struct ringsim *rs)
{
	return __atomic_load_n(&rs->meta->data_tail, __ATOMIC_ACQUIRE);
}

static inline void rs_set_head(struct ringsim *rs, uint64_t head)
{
	__atomic_store_n(&rs->meta->data_head, head, __ATOMIC_RELEASE);
}

/* Copy len bytes to/from free-running position pos, wrapping at the end of the data area. */
static inline void rs_poke(struct ringsim *rs, uint64_t pos, const void *src, size_t len)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		rs->data[(pos + i) & (rs->data_size - 1)] = s[i];
}

static inline void rs_peek(const struct ringsim *rs, uint64_t pos, void *dst, size_t len)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = rs->data[(pos + i) & (rs->data_size - 1)];
}

/* Byte i (counted from the start of the record, i >= 8) of a record with this seed. */
static inline uint8_t rs_pattern(uint64_t seed, size_t i)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;

	x ^= x >> 29;
	return (uint8_t)(x ^ (x >> 17));
}

/* The full bytes (header + body) of a record, written into out (size bytes). */
static inline void rs_make(uint8_t *out, uint32_t type, uint16_t misc, uint16_t size, uint64_t seed)
{
	struct perf_event_header hdr = { .type = type, .misc = misc, .size = size };
	size_t i;

	memcpy(out, &hdr, sizeof(hdr));
	for (i = sizeof(hdr); i < size; i++)
		out[i] = rs_pattern(seed, i);
}

/* Write a record with a pattern body at pos, without touching head. */
static inline void rs_place(struct ringsim *rs, uint64_t pos, uint32_t type, uint16_t misc, uint16_t size,
			    uint64_t seed)
{
	uint8_t buf[65536];

	rs_make(buf, type, misc, size, seed);
	rs_poke(rs, pos, buf, size);
}

/* Write raw bytes as one record the way the kernel does, then publish head.
 * Returns the record's free-running position. */
static inline uint64_t rs_put_raw(struct ringsim *rs, const void *bytes, size_t size)
{
	uint64_t pos;

	if (rs->backward) {
		rs->wpos -= size;
		pos = rs->wpos;
	} else {
		pos = rs->wpos;
		rs->wpos += size;
	}
	rs_poke(rs, pos, bytes, size);
	rs_set_head(rs, rs->wpos);
	return pos;
}

/* Write a pattern record and publish head. Returns its position. */
static inline uint64_t rs_put(struct ringsim *rs, uint32_t type, uint16_t misc, uint16_t size, uint64_t seed)
{
	uint8_t buf[65536];

	rs_make(buf, type, misc, size, seed);
	return rs_put_raw(rs, buf, size);
}

/* A PERF_RECORD_LOST {header; u64 id; u64 lost}. */
static inline uint64_t rs_put_lost(struct ringsim *rs, uint64_t id, uint64_t lost)
{
	struct {
		struct perf_event_header hdr;
		uint64_t id;
		uint64_t lost;
	} rec = { { PERF_RECORD_LOST, 0, sizeof(rec) }, id, lost };

	return rs_put_raw(rs, &rec, sizeof(rec));
}

/* A header only (e.g. a corrupt one) at the producer position, advancing it
 * by adv bytes and publishing head. Returns its position. */
static inline uint64_t rs_put_header(struct ringsim *rs, uint32_t type, uint16_t size, uint64_t adv)
{
	struct perf_event_header hdr = { .type = type, .misc = 0, .size = size };
	uint64_t pos;

	if (rs->backward) {
		rs->wpos -= adv;
		pos = rs->wpos;
	} else {
		pos = rs->wpos;
		rs->wpos += adv;
	}
	rs_poke(rs, pos, &hdr, sizeof(hdr));
	rs_set_head(rs, rs->wpos);
	return pos;
}

/* ---- what a consume callback saw ---- */

struct rs_rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint64_t offset;
	uint64_t remaining;
	const void *data;
	size_t len;
	const void *data2;
	size_t len2;
	uint64_t tail_seen;  /* data_tail of the fake page during the callback */
	size_t bytes_at;     /* index of the record's bytes in the arena */
};

#define RS_MAX_RECS 8192
#define RS_ARENA (4u << 20)

struct rs_collect {
	struct ringsim *rs;  /* to read data_tail during callbacks; may be NULL */
	struct rs_rec *recs;
	size_t n;            /* records collected (consumed) */
	size_t calls;        /* callback invocations */
	uint8_t *arena;
	size_t arena_used;
	size_t stop_after;   /* return PERFRING_STOP when n reaches this (0: never) */
	size_t fail_call;    /* return fail_err on this call number, 1-based (0: never) */
	int fail_err;
	bool bad_spans;      /* some record's spans were inconsistent */
	/* Called for each record before it is collected (e.g. to produce more). */
	void (*hook)(struct rs_collect *c, const struct perfring_ring_record *rec);
	void *hook_ctx;
};

static inline int rs_collect_init(struct rs_collect *c, struct ringsim *rs)
{
	memset(c, 0, sizeof(*c));
	c->rs = rs;
	c->recs = calloc(RS_MAX_RECS, sizeof(*c->recs));
	c->arena = malloc(RS_ARENA);
	if (!c->recs || !c->arena)
		return -ENOMEM;
	return 0;
}

static inline void rs_collect_reset(struct rs_collect *c)
{
	c->n = 0;
	c->calls = 0;
	c->arena_used = 0;
	c->stop_after = 0;
	c->fail_call = 0;
	c->fail_err = 0;
	c->bad_spans = false;
	c->hook = NULL;
}

static inline void rs_collect_fini(struct rs_collect *c)
{
	free(c->recs);
	free(c->arena);
	c->recs = NULL;
	c->arena = NULL;
}

/* Rebuild a record's bytes from its spans (without the library). Returns
 * false if the spans are inconsistent with the header. */
static inline bool rs_span_bytes(const struct perfring_ring_record *rec, uint8_t *out)
{
	if (rec->len + rec->len2 != rec->size || rec->len < sizeof(struct perf_event_header))
		return false;
	if ((rec->len2 == 0) != (rec->data2 == NULL))
		return false;
	memcpy(out, rec->data, rec->len);
	if (rec->len2)
		memcpy(out + rec->len, rec->data2, rec->len2);
	return true;
}

static inline void rs_note(struct rs_collect *c, const struct perfring_ring_record *rec)
{
	struct rs_rec *r;

	if (c->n >= RS_MAX_RECS || c->arena_used + rec->size > RS_ARENA) {
		c->bad_spans = true;
		return;
	}
	r = &c->recs[c->n++];
	r->type = rec->type;
	r->misc = rec->misc;
	r->size = rec->size;
	r->offset = rec->offset;
	r->remaining = rec->remaining;
	r->data = rec->data;
	r->len = rec->len;
	r->data2 = rec->data2;
	r->len2 = rec->len2;
	r->tail_seen = c->rs ? rs_tail(c->rs) : 0;
	r->bytes_at = c->arena_used;
	if (rec->size >= sizeof(struct perf_event_header) && rs_span_bytes(rec, c->arena + c->arena_used))
		c->arena_used += rec->size;
	else
		c->bad_spans = true;
}

static inline int rs_collect_cb(const struct perfring_ring_record *rec, void *ctx)
{
	struct rs_collect *c = ctx;

	c->calls++;
	if (c->fail_call && c->calls == c->fail_call)
		return c->fail_err;
	if (c->hook)
		c->hook(c, rec);
	rs_note(c, rec);
	if (c->stop_after && c->n == c->stop_after)
		return PERFRING_STOP;
	return PERFRING_CONTINUE;
}

static inline const uint8_t *rs_bytes(const struct rs_collect *c, size_t i)
{
	return c->arena + c->recs[i].bytes_at;
}

/* Does collected record i carry exactly the header and pattern body given? */
static inline bool rs_rec_is(const struct rs_collect *c, size_t i, uint32_t type, uint16_t misc, uint16_t size,
			     uint64_t seed)
{
	uint8_t want[65536];

	if (i >= c->n)
		return false;
	if (c->recs[i].type != type || c->recs[i].misc != misc || c->recs[i].size != size)
		return false;
	rs_make(want, type, misc, size, seed);
	return memcmp(rs_bytes(c, i), want, size) == 0;
}

/* Do the record's spans lie inside the fake ring's data area? */
static inline bool rs_spans_inside(const struct ringsim *rs, const struct rs_rec *r)
{
	const uint8_t *lo = rs->data, *hi = rs->data + rs->data_size;
	const uint8_t *d = r->data, *d2 = r->data2;

	if (d < lo || d + r->len > hi)
		return false;
	if (r->len2 && (d2 != lo || r->len2 > rs->data_size))
		return false;
	return true;
}

static inline struct perfring_ring_stats rs_stats(const struct perfring_ring *ring)
{
	struct perfring_ring_stats st;

	memset(&st, 0xa5, sizeof(st));
	perfring_ring_stats(ring, &st);
	return st;
}

/* A small deterministic generator (xorshift64*) for sizes and types. */
static inline uint64_t rs_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif /* PERFRING_TESTS_RINGSIM_H */

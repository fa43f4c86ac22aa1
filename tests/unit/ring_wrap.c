// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records that straddle the end of the data area: at every 8-byte offset of
 * a 4 KiB ring, as two spans and linearized; perfring_ring_linear() and
 * perfring_ring_record_copy(); a long stream over many laps across the wrap of
 * the 64-bit counters.
 */
#include "harness.h"
#include "ringsim.h"

#define DATA_SZ 4096u

static const uint16_t wrap_sizes[] = { 8, 16, 24, 56, 264, 1000, 2048, 4080, 4088 };

/* Check one record returned by the iterator against what was written. */
static void check_wrapped(struct perfring_ring *ring, const struct ringsim *rs, const struct perfring_ring_record *rec,
			  uint64_t pos, uint32_t type, uint16_t size, uint64_t seed, bool linearize)
{
	static uint8_t want[65536], got[65536];
	size_t o = pos & (DATA_SZ - 1);
	bool straddles = o + size > DATA_SZ;
	const void *lin;
	size_t off, n;

	rs_make(want, type, 0, size, seed);
	CHECKF(rec->offset == pos, "pos %#" PRIx64 ": offset %#" PRIx64, pos, rec->offset);
	CHECKF(rec->type == type && rec->size == size && rec->misc == 0, "pos %#" PRIx64 " size %u: header %u/%u/%u",
	       pos, size, rec->type, rec->misc, rec->size);
	if (rec->size != size)
		return;
	if (linearize) {
		CHECKF(rec->len == size && rec->len2 == 0 && rec->data2 == NULL,
		       "linearized, offset %zu size %u: spans %zu + %zu", o, size, rec->len, rec->len2);
		if (straddles)
			CHECKF((const uint8_t *)rec->data + size <= rs->data ||
				       (const uint8_t *)rec->data >= rs->data + DATA_SZ,
			       "linearized straddling record at %zu points into the ring", o);
		else
			CHECKF(rec->data == rs->data + o, "linearized non-straddling record at %zu was copied", o);
	} else if (straddles) {
		CHECKF(rec->data == rs->data + o && rec->len == DATA_SZ - o, "offset %zu size %u: first span %p+%zu",
		       o, size, rec->data, rec->len);
		CHECKF(rec->data2 == rs->data && rec->len2 == size - (DATA_SZ - o),
		       "offset %zu size %u: second span %p+%zu", o, size, rec->data2, rec->len2);
	} else {
		CHECKF(rec->data == rs->data + o && rec->len == size && rec->data2 == NULL && rec->len2 == 0,
		       "offset %zu size %u: spans %zu + %zu", o, size, rec->len, rec->len2);
	}
	if (rs_span_bytes(rec, got))
		CHECKF(memcmp(got, want, size) == 0, "offset %zu size %u: span bytes differ", o, size);
	else
		CHECKF(0, "offset %zu size %u: inconsistent spans", o, size);

	/* A full copy, and a piece across the wrap point (or the middle). */
	memset(got, 0, size);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, 0, got, size), 0);
	CHECKF(memcmp(got, want, size) == 0, "offset %zu size %u: record_copy bytes differ", o, size);
	off = rec->len >= 4 ? rec->len - 4 : 0;
	if (off > size)
		off = 0;
	n = size - off < 12 ? size - off : 12;
	memset(got, 0, n);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, off, got, n), 0);
	CHECKF(memcmp(got, want + off, n) == 0, "offset %zu size %u: partial copy at %zu differs", o, size, off);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, size, got, 0), 0);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, 0, got, (size_t)size + 1), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, size - 7u, got, 8), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(rec, (size_t)size + 1, got, 0), -ERANGE);

	lin = perfring_ring_linear(ring, rec);
	REQUIREF(lin != NULL, "offset %zu size %u: perfring_ring_linear failed", o, size);
	CHECKF(memcmp(lin, want, size) == 0, "offset %zu size %u: linear bytes differ", o, size);
	if (!straddles || linearize)
		CHECKF(lin == rec->data, "offset %zu size %u: linear copied a contiguous record", o, size);
}

/* Record A of size at ring offset o, then a small record B; read both with the iterator. */
static void wrap_case(struct ringsim *rs, size_t o, uint16_t size, bool linearize)
{
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	uint64_t start = 0x5a5a0000ull * DATA_SZ + o, pos_a, pos_b;
	uint16_t size_b = DATA_SZ - size < 24 ? (uint16_t)(DATA_SZ - size) : 24;

	memset(rs->data, 0xee, DATA_SZ);
	rs->meta->data_head = start;
	rs->meta->data_tail = start;
	rs->wpos = start;
	pos_a = rs_put(rs, 0x1234, 0, size, size * 7919u + o);
	pos_b = size_b ? rs_put(rs, PERF_RECORD_SAMPLE, 0, size_b, o) : 0;
	ring = rs_ring(rs, linearize);
	REQUIRE(ring);

	CHECKF(perfring_ring_begin(ring) == (int64_t)(size + size_b), "offset %zu size %u: begin", o, size);
	if (perfring_ring_next(ring, &rec) == 1)
		check_wrapped(ring, rs, &rec, pos_a, 0x1234, size, size * 7919u + o, linearize);
	else
		CHECKF(0, "offset %zu size %u: record A missing", o, size);
	if (size_b) {
		if (perfring_ring_next(ring, &rec) == 1)
			check_wrapped(ring, rs, &rec, pos_b, PERF_RECORD_SAMPLE, size_b, o, linearize);
		else
			CHECKF(0, "offset %zu size %u: record B missing", o, size);
	}
	CHECKF(perfring_ring_next(ring, &rec) == 0, "offset %zu size %u: extra record", o, size);
	perfring_ring_commit(ring);
	CHECKF(rs_tail(rs) == start + size + size_b, "offset %zu size %u: tail %#" PRIx64, o, size, rs_tail(rs));
	perfring_ring_free(ring);
}

static void wrap_every_offset(bool linearize)
{
	struct ringsim rs;
	size_t o, k;
	int failed_before = th_failed_now;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	for (o = 0; o < DATA_SZ && th_failed_now == failed_before; o += 8)
		for (k = 0; k < sizeof(wrap_sizes) / sizeof(wrap_sizes[0]); k++)
			wrap_case(&rs, o, wrap_sizes[k], linearize);
	rs_fini(&rs);
}

TEST(ring_wrap_every_offset_two_spans)
{
	wrap_every_offset(false);
}

TEST(ring_wrap_every_offset_linearized)
{
	wrap_every_offset(true);
}

/* A record as large as the data area: legal, and straddles unless at 0. */
TEST(ring_record_as_large_as_ring)
{
	static const size_t offs[] = { 0, 8, 2048, DATA_SZ - 8 };
	struct ringsim rs;
	size_t i;
	int lin;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	for (lin = 0; lin < 2; lin++)
		for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
			wrap_case(&rs, offs[i], DATA_SZ, lin);
	rs_fini(&rs);
}

TEST(ring_record_copy_out_of_range)
{
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	uint8_t buf[64];

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, DATA_SZ - 16) == 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 48, 1); /* 16 bytes, then 32 at the start */
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	REQUIRE(perfring_ring_begin(ring) == 48);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.len, 16);
	CHECK_EQ_U64(rec.len2, 32);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 0, buf, 48), 0);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 40, buf, 8), 0);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 48, buf, 0), 0);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 0, buf, 49), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 41, buf, 8), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 49, buf, 0), -ERANGE);
	/* off + len overflowing size_t must not pass the check. */
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, SIZE_MAX, buf, 2), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 8, buf, SIZE_MAX), -ERANGE);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, SIZE_MAX - 7, buf, 16), -ERANGE);
	perfring_ring_commit(ring);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/*
 * A producer and a consumer taking turns over many laps of a 4 KiB ring,
 * starting just below 2^64 so that the counters wrap, with random record
 * sizes and random early stops. Every record must arrive once, in order,
 * intact, and the tail must follow exactly.
 */
static void stream(bool linearize)
{
	enum { SLOTS = 1024 };
	static uint64_t pos[SLOTS];
	static uint16_t size[SLOTS];
	static uint32_t type[SLOTS];
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	uint64_t rnd = linearize ? 0x1234567 : 0x7654321, written = 0, read = 0, consumed_bytes = 0;
	uint64_t start = UINT64_MAX - 10 * DATA_SZ + 1 - 8 * 37;
	unsigned rounds = 0;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, start) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, linearize);
	REQUIRE(ring);
	while (consumed_bytes < 300 * 1024 && th_failed_now == 0) {
		unsigned burst = (unsigned)(rs_rand(&rnd) % 12) + 1, j;
		size_t i;
		int ret;

		for (j = 0; j < burst; j++) {
			/* Mostly small records, one in three up to 1600 bytes. */
			uint64_t units = rs_rand(&rnd) % 3 ? 1 + rs_rand(&rnd) % 16 : 1 + rs_rand(&rnd) % 200;
			uint16_t sz = (uint16_t)(8 * units);

			if (rs.wpos + sz - rs_tail(&rs) > DATA_SZ)
				break;
			size[written % SLOTS] = sz;
			type[written % SLOTS] = (uint32_t)(rs_rand(&rnd) % 300);
			pos[written % SLOTS] = rs_put(&rs, type[written % SLOTS], 0, sz, written);
			written++;
		}
		rs_collect_reset(&c);
		c.stop_after = rs_rand(&rnd) % 4 == 0 ? (size_t)(rs_rand(&rnd) % 3) + 1 : 0;
		ret = perfring_ring_consume(ring, rs_collect_cb, &c);
		REQUIREF(ret >= 0 && (size_t)ret == c.n, "round %u: consume returned %d for %zu records", rounds, ret,
			 c.n);
		for (i = 0; i < c.n; i++, read++) {
			const struct rs_rec *r = &c.recs[i];

			REQUIREF(read < written, "round %u: more records than written", rounds);
			CHECKF(r->offset == pos[read % SLOTS], "record %" PRIu64 ": offset %#" PRIx64 " != %#" PRIx64,
			       read, r->offset, pos[read % SLOTS]);
			CHECKF(rs_rec_is(&c, i, type[read % SLOTS], 0, size[read % SLOTS], read),
			       "record %" PRIu64 " (size %u at %#" PRIx64 ") differs", read, size[read % SLOTS],
			       pos[read % SLOTS]);
			if (linearize)
				CHECKF(r->len2 == 0, "record %" PRIu64 ": linearized record has a second span", read);
			consumed_bytes += r->size;
		}
		CHECK(!c.bad_spans);
		CHECKF(rs_tail(&rs) == (read < written ? pos[read % SLOTS] : rs.wpos),
		       "round %u: tail %#" PRIx64, rounds, rs_tail(&rs));
		rounds++;
	}
	CHECKF(rs.wpos < start, "the counters did not wrap (head %#" PRIx64 ")", rs.wpos);
	CHECK_EQ_U64(rs_stats(ring).records, read);
	CHECK_EQ_U64(rs_stats(ring).bytes, consumed_bytes);
	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_stream_many_laps_counter_wrap)
{
	stream(false);
}

TEST(ring_stream_many_laps_linearized)
{
	stream(true);
}

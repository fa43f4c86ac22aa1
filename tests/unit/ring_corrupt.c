// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Corrupt forward rings: bad header sizes (0, not a multiple of 8, below 8,
 * reaching beyond head, larger than the ring), heads that lie about how much
 * was written. The reader must deliver and commit what precedes the bad
 * header, report -PERFRING_ECORRUPT with its offset, not spin, recover with
 * perfring_ring_discard(), and never read outside the ring (run under ASan).
 */
#include "harness.h"
#include "ringsim.h"

#define DATA_SZ 4096u

struct bad_case {
	const char *name;
	uint16_t size; /* the bad header's size */
	uint64_t adv;  /* bytes published for it (head moves this far) */
};

static const struct bad_case bad_cases[] = {
	{ "size 0", 0, 64 },
	{ "size 12 (not a multiple of 8)", 12, 64 },
	{ "size 4 (below the header)", 4, 64 },
	{ "size 60 (not a multiple of 8)", 60, 64 },
	{ "size 64 beyond head (32 published)", 64, 32 },
	{ "size 16 beyond head (8 published)", 16, 8 },
	{ "size 0xfff8 beyond head", 0xfff8, 64 },
};

/* 3 good records, the bad header, then (with start) everything at a ring offset near the end. */
static void corrupt_case(const struct bad_case *bc, uint64_t start)
{
	static const uint16_t good[] = { 24, 40, 16 };
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_stats st;
	uint64_t pos[3], bad, head, dropped;
	size_t i;
	int ret;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, start) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	for (i = 0; i < 3; i++)
		pos[i] = rs_put(&rs, PERF_RECORD_SAMPLE, 0, good[i], i);
	bad = rs_put_header(&rs, PERF_RECORD_SAMPLE, bc->size, bc->adv);
	head = rs_head(&rs);

	/* The records before it are delivered and committed. */
	ret = perfring_ring_consume(ring, rs_collect_cb, &c);
	CHECKF(ret == -PERFRING_ECORRUPT, "%s: consume returned %d", bc->name, ret);
	CHECKF(c.n == 3, "%s: %zu records delivered before the bad header", bc->name, c.n);
	for (i = 0; i < 3 && i < c.n; i++)
		CHECKF(c.recs[i].offset == pos[i] && rs_rec_is(&c, i, PERF_RECORD_SAMPLE, 0, good[i], i),
		       "%s: good record %zu differs", bc->name, i);
	CHECKF(rs_tail(&rs) == bad, "%s: tail %#" PRIx64 " != bad header %#" PRIx64, bc->name, rs_tail(&rs), bad);
	CHECKF(perfring_ring_error_offset(ring) == bad, "%s: error offset %#" PRIx64 " != %#" PRIx64, bc->name,
	       perfring_ring_error_offset(ring), bad);
	st = rs_stats(ring);
	CHECKF(st.corrupt == 1, "%s: corrupt counter %" PRIu64, bc->name, st.corrupt);
	CHECKF(st.records == 3, "%s: records counter %" PRIu64, bc->name, st.records);

	/* Again: the same error at once, nothing delivered, nothing committed. */
	rs_collect_reset(&c);
	ret = perfring_ring_consume(ring, rs_collect_cb, &c);
	CHECKF(ret == -PERFRING_ECORRUPT, "%s: second consume returned %d", bc->name, ret);
	CHECKF(c.calls == 0, "%s: second consume called back %zu times", bc->name, c.calls);
	CHECKF(rs_tail(&rs) == bad, "%s: second consume moved the tail", bc->name);
	CHECKF(perfring_ring_error_offset(ring) == bad, "%s: second error offset", bc->name);
	CHECKF(perfring_ring_bytes_available(ring) == head - bad, "%s: bytes available %" PRIu64, bc->name,
	       perfring_ring_bytes_available(ring));

	/* Recovery: everything up to head is dropped and counted. */
	dropped = perfring_ring_discard(ring);
	CHECKF(dropped == head - bad, "%s: discard returned %" PRIu64 " != %" PRIu64, bc->name, dropped,
	       head - bad);
	CHECKF(rs_tail(&rs) == head, "%s: tail after discard %#" PRIx64, bc->name, rs_tail(&rs));
	CHECKF(perfring_ring_bytes_available(ring) == 0, "%s: bytes left after discard", bc->name);
	CHECKF(rs_stats(ring).dropped_bytes == head - bad, "%s: dropped_bytes %" PRIu64, bc->name,
	       rs_stats(ring).dropped_bytes);

	/* Later records are read normally. */
	pos[0] = rs_put(&rs, PERF_RECORD_SAMPLE, 7, 32, 70);
	pos[1] = rs_put(&rs, PERF_RECORD_LOST, 0, 24, 71);
	rs_collect_reset(&c);
	ret = perfring_ring_consume(ring, rs_collect_cb, &c);
	CHECKF(ret == 2, "%s: consume after discard returned %d", bc->name, ret);
	CHECKF(c.n == 2 && c.recs[0].offset == pos[0] && rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 7, 32, 70) &&
		       c.recs[1].offset == pos[1],
	       "%s: records after discard differ", bc->name);
	CHECKF(rs_tail(&rs) == rs_head(&rs), "%s: tail after recovery", bc->name);
	CHECKF(rs_stats(ring).records == 5, "%s: records counter after recovery", bc->name);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_corrupt_sizes_stop_commit_and_recover)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		corrupt_case(&bad_cases[i], 0);
}

/* The same with the good records straddling the end and the bad header past it. */
TEST(ring_corrupt_sizes_after_wrap)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		corrupt_case(&bad_cases[i], 3 * DATA_SZ - 48);
}

TEST(ring_corrupt_first_header)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, 4096 + 128) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_put_header(&rs, 9, 0, 256);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), -PERFRING_ECORRUPT);
	CHECK_EQ_U64(c.calls, 0);
	CHECK_EQ_U64(rs_tail(&rs), 4096 + 128);
	CHECK_EQ_U64(perfring_ring_error_offset(ring), 4096 + 128);
	CHECK_EQ_U64(perfring_ring_discard(ring), 256);
	CHECK_EQ_U64(rs_tail(&rs), 4096 + 128 + 256);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 0);
	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_corrupt_iterator_commits_good_records)
{
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	uint64_t bad;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 1);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 2);
	bad = rs_put_header(&rs, PERF_RECORD_SAMPLE, 20, 32);
	CHECK_EQ_INT(perfring_ring_begin(ring), 96);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, 32);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), -PERFRING_ECORRUPT);
	/* Asking again does not move on past the bad header. */
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), -PERFRING_ECORRUPT);
	CHECK_EQ_U64(perfring_ring_error_offset(ring), bad);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), bad);
	CHECK_EQ_INT(perfring_ring_begin(ring), 32);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), -PERFRING_ECORRUPT);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), bad);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* Reads every byte of each delivered record (ASan catches a span outside the ring). */
static void touch_record(struct rs_collect *c, const struct perfring_ring_record *rec)
{
	static uint8_t buf[65536];
	const void *lin;

	if (rec->len > DATA_SZ || rec->len2 > DATA_SZ || rec->size > DATA_SZ) {
		c->bad_spans = true;
		return;
	}
	if (perfring_ring_record_copy(rec, 0, buf, rec->size) != 0)
		c->bad_spans = true;
	lin = perfring_ring_linear(c->hook_ctx, rec);
	if (!lin || memcmp(lin, buf, rec->size) != 0)
		c->bad_spans = true;
}

static void check_in_bounds(const struct rs_collect *c, const char *what)
{
	uint64_t bytes = 0;
	size_t i;

	CHECKF(!c->bad_spans, "%s: a record's spans were inconsistent or too large", what);
	for (i = 0; i < c->n; i++) {
		CHECKF(rs_spans_inside(c->rs, &c->recs[i]), "%s: record %zu lies outside the ring", what, i);
		bytes += c->recs[i].size;
	}
	CHECKF(bytes <= DATA_SZ, "%s: %" PRIu64 " bytes delivered from a %u-byte ring", what, bytes, DATA_SZ);
}

/*
 * head - tail larger than the ring (the kernel never does this). Not listed
 * by ring.h; a careful reader either refuses (-PERFRING_ECORRUPT) or reads
 * at most one ring's worth, and in no case reads outside the ring or loops.
 */
TEST(ring_lying_head_valid_records)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i;
	int ret, round;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	for (i = 0; i < DATA_SZ / 64; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 64, i);
	rs_set_head(&rs, 5 * DATA_SZ);

	for (round = 0; round < 3; round++) {
		rs_collect_reset(&c);
		c.hook = touch_record;
		c.hook_ctx = ring;
		ret = perfring_ring_consume(ring, rs_collect_cb, &c);
		CHECKF(ret == -PERFRING_ECORRUPT || (ret >= 0 && (size_t)ret == c.n),
		       "round %d: consume returned %d (%zu records)", round, ret, c.n);
		check_in_bounds(&c, "lying head");
		if (round == 0)
			CHECKF(ret == -PERFRING_ECORRUPT || ret == (int)(DATA_SZ / 64),
			       "first consume returned %d, want -PERFRING_ECORRUPT or one ring's worth", ret);
	}
	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

/* A header claiming more than the ring holds while head says there is more still. */
TEST(ring_lying_head_record_larger_than_ring)
{
	static const uint16_t sizes[] = { DATA_SZ + 8, 2 * DATA_SZ, 0xfff8 };
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		REQUIRE(rs_init_at(&rs, DATA_SZ, false, DATA_SZ - 8 * i) == 0);
		REQUIRE(rs_collect_init(&c, &rs) == 0);
		ring = rs_ring(&rs, false);
		REQUIRE(ring);
		memset(rs.data, 0x41, DATA_SZ);
		rs_put_header(&rs, PERF_RECORD_SAMPLE, sizes[i], 0x20000);
		c.hook = touch_record;
		c.hook_ctx = ring;
		ret = perfring_ring_consume(ring, rs_collect_cb, &c);
		CHECKF(ret == -PERFRING_ECORRUPT, "size %u, head 128 KiB ahead: consume returned %d", sizes[i], ret);
		CHECKF(c.calls == 0, "size %u: a record larger than the ring was delivered", sizes[i]);
		check_in_bounds(&c, "record larger than ring");
		CHECK_EQ_U64(perfring_ring_error_offset(ring), DATA_SZ - 8 * i);
		perfring_ring_free(ring);
		rs_collect_fini(&c);
		rs_fini(&rs);
	}
}

/* head behind tail: head - tail is then close to 2^64. */
TEST(ring_head_behind_tail)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i;
	int ret;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, 8 * DATA_SZ) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	for (i = 0; i < DATA_SZ / 32; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, i);
	rs.meta->data_tail = 8 * DATA_SZ + 64;
	rs_set_head(&rs, 8 * DATA_SZ);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	c.hook = touch_record;
	c.hook_ctx = ring;
	ret = perfring_ring_consume(ring, rs_collect_cb, &c);
	CHECKF(ret == -PERFRING_ECORRUPT || (ret >= 0 && (size_t)ret == c.n), "consume returned %d", ret);
	check_in_bounds(&c, "head behind tail");
	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Overwritable (write_backward) rings in memory. The fake kernel writes
 * towards lower addresses: head starts at 0 and decreases by each record's
 * size, the record being at [head, head + size). The reader must give the
 * records written since its previous call, newest first; once more than the
 * data area was written, only the window [head, head + data_size) survives
 * and its oldest record may be partly overwritten: that one is dropped (and
 * counted in dropped_bytes), never misread. The ring is never written to
 * (a real overwrite ring is mapped read-only).
 *
 * Readings chosen where ring.h is loose: dropped_bytes grows by every byte
 * written since the previous call that was not delivered, i.e. the partly
 * overwritten oldest record of the window and everything older that was
 * overwritten before it could be read (ring.h says "partly overwritten
 * records"; counting only those would report 0 after whole records were
 * lost, which no user wants); rec->remaining of a backward batch is the
 * bytes of the older records still to come in that batch.
 */
#include "harness.h"
#include "ringsim.h"

#define DATA_SZ 4096u

/* What the fake kernel wrote, and where the reader's previous call left off. */
struct model {
	uint64_t pos[65536];
	uint16_t size[65536];
	uint32_t type[65536];
	size_t n;
	size_t first_new;    /* first record written since the previous consume */
	uint64_t prev_head;  /* head at the previous consume (the kernel starts at 0) */
	uint64_t dropped;    /* expected dropped_bytes */
};

#define NEG(x) ((uint64_t)0 - (uint64_t)(x))

static void model_put(struct ringsim *rs, struct model *m, uint32_t type, uint16_t size)
{
	m->type[m->n] = type;
	m->size[m->n] = size;
	m->pos[m->n] = rs_put(rs, type, 0, size, m->n);
	m->n++;
}

/* Expected records of the next consume, newest first, into idx; returns their count. */
static size_t model_expect(const struct ringsim *rs, struct model *m, size_t *idx)
{
	uint64_t head = rs_head(rs), delivered = 0;
	size_t k, n = 0;

	for (k = m->n; k-- > m->first_new;) {
		uint64_t d = m->pos[k] - head;

		if (d >= DATA_SZ)
			break; /* wholly overwritten */
		if (d + m->size[k] > DATA_SZ)
			break; /* partly overwritten */
		idx[n++] = k;
		delivered += m->size[k];
	}
	m->dropped += (m->prev_head - head) - delivered;
	m->prev_head = head;
	m->first_new = m->n;
	return n;
}

/* Consume and compare with the model; returns the number of records delivered. */
static size_t consume_check(struct perfring_ring *ring, struct ringsim *rs, struct model *m, struct rs_collect *c,
			    const char *what)
{
	static size_t idx[65536];
	static uint8_t before[DATA_SZ + 65536];
	size_t n = model_expect(rs, m, idx), i;
	struct perfring_ring_stats st;
	int ret;

	memcpy(before, rs->base, rs_len(rs));
	rs_collect_reset(c);
	ret = perfring_ring_consume(ring, rs_collect_cb, c);
	CHECKF(ret == (int)n, "%s: consume returned %d, want %zu", what, ret, n);
	CHECKF(c->n == n, "%s: %zu records delivered, want %zu", what, c->n, n);
	CHECKF(!c->bad_spans, "%s: inconsistent spans", what);
	for (i = 0; i < n && i < c->n; i++) {
		size_t k = idx[i];

		CHECKF(c->recs[i].offset == m->pos[k], "%s: record #%zu (seq %zu): offset %#" PRIx64 " != %#" PRIx64,
		       what, i, k, c->recs[i].offset, m->pos[k]);
		CHECKF(rs_rec_is(c, i, m->type[k], 0, m->size[k], k), "%s: record #%zu (seq %zu, size %u) differs",
		       what, i, k, m->size[k]);
		CHECKF(rs_spans_inside(rs, &c->recs[i]) || c->recs[i].len2 == 0,
		       "%s: record #%zu: spans outside the ring", what, i);
	}
	CHECKF(memcmp(before, rs->base, rs_len(rs)) == 0, "%s: the reader wrote into an overwrite ring", what);
	st = rs_stats(ring);
	CHECKF(st.dropped_bytes == m->dropped, "%s: dropped_bytes %" PRIu64 ", want %" PRIu64, what,
	       st.dropped_bytes, m->dropped);
	CHECKF(st.corrupt == 0, "%s: corrupt counter %" PRIu64, what, st.corrupt);
	return c->n;
}

static struct model the_model;

static struct perfring_ring *setup(struct ringsim *rs, struct rs_collect *c, bool linearize)
{
	memset(&the_model, 0, sizeof(the_model));
	if (rs_init(rs, DATA_SZ, true) != 0 || rs_collect_init(c, rs) != 0)
		return NULL;
	return rs_ring(rs, linearize);
}

static void teardown(struct perfring_ring *ring, struct ringsim *rs, struct rs_collect *c)
{
	perfring_ring_free(ring);
	rs_collect_fini(c);
	rs_fini(rs);
}

TEST(ring_backward_empty)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);

	REQUIRE(ring);
	CHECK(perfring_ring_is_overwrite(ring));
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 0);
	CHECK_EQ_U64(c.calls, 0);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 0);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_not_full_newest_first)
{
	static const uint16_t sizes[] = { 24, 40, 64, 16, 8 };
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 5; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, sizes[i]);
	CHECK_EQ_U64(rs_head(&rs), NEG(152));
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "not full"), 5);
	/* Newest first: seq 4 at head, then 3, 2, 1, 0. */
	for (i = 0; i < 5 && i < c.n; i++) {
		CHECK_EQ_U64(c.recs[i].offset, m->pos[4 - i]);
		CHECK(c.recs[i].data == rs.data + (m->pos[4 - i] & (DATA_SZ - 1)));
	}
	CHECK_EQ_U64(c.recs[0].offset, NEG(152));
	CHECK_EQ_U64(c.recs[0].remaining, 152 - 8);
	CHECK_EQ_U64(c.recs[1].remaining, 152 - 8 - 16);
	CHECK_EQ_U64(c.recs[4].remaining, 0);
	CHECK_EQ_U64(rs_stats(ring).records, 5);
	CHECK_EQ_U64(rs_stats(ring).bytes, 152);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 0);
	teardown(ring, &rs, &c);
}

/* ring.h: for an overwrite ring, the bytes written since the previous read,
 * capped at the data area size. */
TEST(ring_backward_bytes_available_counts_new_bytes)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	for (i = 0; i < 5; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 32);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 5 * 32);
	for (i = 0; i < 200; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 32);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), perfring_ring_data_size(ring));
	consume_check(ring, &rs, m, &c, "bytes available");
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	model_put(&rs, m, PERF_RECORD_SAMPLE, 32);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 32);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_exactly_full)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < DATA_SZ / 64; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 64);
	CHECK_EQ_U64(rs_head(&rs), NEG(DATA_SZ));
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "exactly full"), DATA_SZ / 64);
	CHECK_EQ_U64(c.recs[0].offset, NEG(DATA_SZ));
	CHECK_EQ_U64(c.recs[DATA_SZ / 64 - 1].offset, (uint64_t)-64);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 0);
	teardown(ring, &rs, &c);
}

/* Mixed sizes summing to exactly the data area, then one record more. */
TEST(ring_backward_full_then_one_more)
{
	static const uint16_t sizes[] = { 1000, 8, 2048, 512, 520, 8 };
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 6; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, sizes[i]);
	CHECK_EQ_U64(rs_head(&rs), NEG(DATA_SZ));
	/* No read yet: one more 16-byte record overwrites the first 16 bytes of
	 * the oldest (seq 0, 1000 bytes): it is dropped, the other 6 come. */
	model_put(&rs, m, PERF_RECORD_SAMPLE, 16);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "full + 1"), 6);
	CHECK_EQ_U64(c.recs[0].size, 16);
	CHECK_EQ_U64(c.recs[5].size, 8);
	CHECK_EQ_U64(c.recs[5].offset, m->pos[1]);
	CHECK_EQ_U64(m->dropped, 1000);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_overwritten_aligned_records)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 100; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 64);
	/* The window holds exactly seq 99..36; nothing is partial, 36 records
	 * were wholly overwritten. */
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "aligned"), 64);
	CHECK_EQ_U64(c.recs[0].offset, m->pos[99]);
	CHECK_EQ_U64(c.recs[63].offset, m->pos[36]);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 36 * 64);
	teardown(ring, &rs, &c);
}

/* Many laps of random sizes, read once: the window minus its partial oldest record. */
static void overwritten_many(uint64_t seed, bool linearize)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, linearize);
	uint64_t rnd = seed, total = 0;
	char what[64];
	size_t i;

	REQUIRE(ring);
	while (total < 13 * DATA_SZ + seed * 8) {
		uint16_t sz = (uint16_t)(8 * (1 + rs_rand(&rnd) % 64));

		model_put(&rs, m, (uint32_t)(rs_rand(&rnd) % 100), sz);
		total += sz;
	}
	snprintf(what, sizeof(what), "overwritten, seed %" PRIu64 "%s", seed, linearize ? ", linearized" : "");
	consume_check(ring, &rs, m, &c, what);
	CHECKF(m->dropped == total - (rs_stats(ring).bytes), "%s: model", what);
	if (linearize)
		for (i = 0; i < c.n; i++)
			CHECKF(c.recs[i].len2 == 0, "%s: record #%zu not linearized", what, i);
	/* Nothing new since: nothing delivered, nothing more dropped. */
	consume_check(ring, &rs, m, &c, what);
	CHECK_EQ_U64(c.n, 0);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_overwritten_many_times)
{
	uint64_t seed;

	for (seed = 1; seed <= 40 && th_failed_now == 0; seed++)
		overwritten_many(seed, false);
}

TEST(ring_backward_overwritten_linearized)
{
	uint64_t seed;

	for (seed = 1; seed <= 20 && th_failed_now == 0; seed++)
		overwritten_many(seed, true);
}

TEST(ring_backward_successive_calls_only_new_records)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 3; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 32);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "first 3"), 3);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "nothing new"), 0);

	for (i = 0; i < 4; i++)
		model_put(&rs, m, PERF_RECORD_MMAP, 48);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "4 more"), 4);
	CHECK_EQ_U64(c.recs[0].type, PERF_RECORD_MMAP);
	CHECK_EQ_U64(c.recs[3].offset, m->pos[3]);

	/* 3840 new bytes: the window also holds older, already read records. */
	for (i = 0; i < 60; i++)
		model_put(&rs, m, PERF_RECORD_COMM, 64);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "60 more"), 60);
	CHECK_EQ_U64(c.recs[59].offset, m->pos[7]);

	/* 8000 new bytes: 102 whole records in the window, the 103rd partial. */
	for (i = 0; i < 200; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 40);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "200 more"), 102);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 8000 - 102 * 40);

	for (i = 0; i < 2; i++)
		model_put(&rs, m, PERF_RECORD_LOST, 24);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "2 more"), 2);
	CHECK_EQ_U64(rs_stats(ring).records, 3 + 4 + 60 + 102 + 2);
	teardown(ring, &rs, &c);
}

/* Random bursts (some shorter than the ring, some many laps) and reads in turn. */
TEST(ring_backward_random_bursts)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	uint64_t rnd = 0xfeedface;
	unsigned round;
	char what[48];

	REQUIRE(ring);
	for (round = 0; round < 300 && th_failed_now == 0; round++) {
		uint64_t limit = rs_rand(&rnd) % 4 ? rs_rand(&rnd) % DATA_SZ : rs_rand(&rnd) % (5 * DATA_SZ);
		uint64_t burst = 0;

		while (burst < limit && m->n < 60000) {
			uint16_t sz = (uint16_t)(8 * (1 + rs_rand(&rnd) % 40));

			model_put(&rs, m, (uint32_t)(rs_rand(&rnd) % 100), sz);
			burst += sz;
		}
		snprintf(what, sizeof(what), "round %u", round);
		consume_check(ring, &rs, m, &c, what);
	}
	CHECKF(rs_head(&rs) < NEG(20 * DATA_SZ), "too little written: head %#" PRIx64, rs_head(&rs));
	teardown(ring, &rs, &c);
}

/*
 * Records present before the ring object is created (a ring mapped
 * elsewhere): the first call has no previous call, so everything in the
 * window is "written since". Reading chosen: the first call starts from the
 * kernel's initial head, 0.
 */
TEST(ring_backward_records_before_ring_created)
{
	struct model *m = &the_model;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i;

	memset(m, 0, sizeof(*m));
	REQUIRE(rs_init(&rs, DATA_SZ, true) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	for (i = 0; i < 10; i++)
		model_put(&rs, m, PERF_RECORD_SAMPLE, 72);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	CHECK_EQ_U64(consume_check(ring, &rs, m, &c, "pre-filled"), 10);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_corrupt_header)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	uint64_t bad;

	memset(&the_model, 0, sizeof(the_model));
	REQUIRE(rs_init(&rs, DATA_SZ, true) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 0);
	bad = rs_put_header(&rs, PERF_RECORD_SAMPLE, 12, 32); /* older than the next two */
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 2);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 3);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), -PERFRING_ECORRUPT);
	CHECK_EQ_U64(c.n, 2);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 32, 3));
	CHECK(rs_rec_is(&c, 1, PERF_RECORD_SAMPLE, 0, 32, 2));
	CHECK_EQ_U64(perfring_ring_error_offset(ring), bad);
	CHECK_EQ_U64(rs_stats(ring).corrupt, 1);
	teardown(ring, &rs, &c);
}

/*
 * Early stop on an overwrite ring. ring.h's callback contract is the same
 * for both kinds of ring: PERFRING_STOP consumes the record it is returned
 * for, a negative value consumes nothing more. Reading chosen: what was not
 * consumed (the older records of the batch) comes with the next call, as
 * on a forward ring; it is not silently dropped, and what was consumed is
 * not delivered twice. The ring is paused meanwhile: nothing new is written.
 */
TEST(ring_backward_stop_rest_comes_next_call)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 5; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, i);
	c.stop_after = 2;
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 2);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 32, 4));
	CHECK(rs_rec_is(&c, 1, PERF_RECORD_SAMPLE, 0, 32, 3));
	rs_collect_reset(&c);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 3);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 32, 2));
	CHECK(rs_rec_is(&c, 2, PERF_RECORD_SAMPLE, 0, 32, 0));
	CHECK_EQ_U64(rs_stats(ring).records, 5);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 0);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_callback_error_no_duplicates)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 5; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, i);
	c.fail_call = 3; /* seq 4 and 3 consumed, seq 2 refused */
	c.fail_err = -EIO;
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), -EIO);
	CHECK_EQ_U64(c.n, 2);
	rs_collect_reset(&c);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 3);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 32, 2));
	CHECK(rs_rec_is(&c, 2, PERF_RECORD_SAMPLE, 0, 32, 0));
	CHECK_EQ_U64(rs_stats(ring).records, 5);
	teardown(ring, &rs, &c);
}

TEST(ring_backward_iterator_partial_commit)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring = setup(&rs, &c, false);
	struct perfring_ring_record rec = { 0 };
	uint64_t pos[4];
	size_t i;

	REQUIRE(ring);
	for (i = 0; i < 4; i++)
		pos[i] = rs_put(&rs, PERF_RECORD_SAMPLE, 0, 64, i);
	/* begin() without commit() restarts at the newest record. */
	CHECK_EQ_INT(perfring_ring_begin(ring), 256);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, pos[3]);
	CHECK_EQ_INT(perfring_ring_begin(ring), 256);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, pos[3]);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, pos[2]);
	perfring_ring_commit(ring);
	/* The two older records were not returned: they come next. */
	CHECK_EQ_INT(perfring_ring_begin(ring), 128);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, pos[1]);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, pos[0]);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);
	perfring_ring_commit(ring);
	CHECK_EQ_INT(perfring_ring_begin(ring), 0);
	CHECK_EQ_U64(rs_stats(ring).records, 4);
	CHECK_EQ_U64(rs_stats(ring).dropped_bytes, 0);
	teardown(ring, &rs, &c);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ring layer on forward in-memory rings: empty ring, record fields and
 * bodies, LOST and unknown records, early stop and callback errors, the
 * iterator API, remaining bytes, and when the tail is committed.
 */
#include "harness.h"
#include "ringsim.h"

#define DATA_SZ 4096u

/* What the producer wrote, to compare with what the reader saw. */
struct wrote {
	uint64_t pos[RS_MAX_RECS];
	uint16_t size[RS_MAX_RECS];
	uint32_t type[RS_MAX_RECS];
	uint16_t misc[RS_MAX_RECS];
	size_t n;
};

static void put(struct ringsim *rs, struct wrote *w, uint32_t type, uint16_t misc, uint16_t size)
{
	w->type[w->n] = type;
	w->misc[w->n] = misc;
	w->size[w->n] = size;
	w->pos[w->n] = rs_put(rs, type, misc, size, w->n);
	w->n++;
}

/* Records c->recs[from..] are w's records first..first+count-1, fields and bytes. */
static void check_seq(const struct rs_collect *c, size_t from, const struct wrote *w, size_t first,
		      size_t count, int line)
{
	size_t i;

	for (i = 0; i < count; i++) {
		size_t k = first + i;
		const struct rs_rec *r = &c->recs[from + i];

		CHECKF(from + i < c->n, "line %d: record %zu missing", line, k);
		if (from + i >= c->n)
			return;
		CHECKF(r->offset == w->pos[k], "line %d: record %zu offset %" PRIu64 " != %" PRIu64, line, k,
		       r->offset, w->pos[k]);
		CHECKF(rs_rec_is(c, from + i, w->type[k], w->misc[k], w->size[k], k),
		       "line %d: record %zu: type/misc/size/bytes differ (got type %u misc %u size %u)", line, k,
		       r->type, r->misc, r->size);
	}
}

TEST(ring_empty_delivers_nothing)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	struct perfring_ring_stats st;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 0);
	CHECK_EQ_U64(c.calls, 0);
	CHECK_EQ_INT(perfring_ring_begin(ring), 0);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	CHECK_EQ_U64(rs_tail(&rs), 0);
	st = rs_stats(ring);
	CHECK_EQ_U64(st.records, 0);
	CHECK_EQ_U64(st.bytes, 0);
	CHECK_EQ_U64(st.lost, 0);
	CHECK_EQ_U64(st.lost_records, 0);
	CHECK_EQ_U64(st.corrupt, 0);
	CHECK_EQ_U64(st.dropped_bytes, 0);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_one_record_fields)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_stats st;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0x4002, 40, 7);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 1);
	REQUIRE(c.n == 1);
	CHECK_EQ_U64(c.recs[0].type, PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(c.recs[0].misc, 0x4002);
	CHECK_EQ_U64(c.recs[0].size, 40);
	CHECK_EQ_U64(c.recs[0].offset, 0);
	CHECK_EQ_U64(c.recs[0].remaining, 0);
	CHECK(c.recs[0].data == rs.data);
	CHECK_EQ_U64(c.recs[0].len, 40);
	CHECK(c.recs[0].data2 == NULL);
	CHECK_EQ_U64(c.recs[0].len2, 0);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0x4002, 40, 7));
	CHECK_EQ_U64(rs_tail(&rs), 40);
	st = rs_stats(ring);
	CHECK_EQ_U64(st.records, 1);
	CHECK_EQ_U64(st.bytes, 40);
	CHECK_EQ_U64(st.lost, 0);
	CHECK_EQ_U64(st.corrupt, 0);

	/* Nothing new: nothing delivered, tail unchanged. */
	rs_collect_reset(&c);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 0);
	CHECK_EQ_U64(c.calls, 0);
	CHECK_EQ_U64(rs_tail(&rs), 40);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_many_records_in_order)
{
	static struct wrote w;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_stats st;
	uint64_t total = 0;
	size_t i;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	/* 60 records of 8..120 bytes (3720 bytes: fits without wrapping). */
	for (i = 0; i < 60; i++) {
		uint16_t size = (uint16_t)(8 + 8 * (i % 15));

		put(&rs, &w, (uint32_t)(i % 20), (uint16_t)(i * 3), size);
		total += size;
	}
	REQUIRE(total <= DATA_SZ);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 60);
	CHECK_EQ_U64(c.n, 60);
	CHECK(!c.bad_spans);
	check_seq(&c, 0, &w, 0, 60, __LINE__);
	for (i = 0; i < c.n; i++) {
		CHECK(c.recs[i].data == rs.data + w.pos[i]);
		CHECK_EQ_U64(c.recs[i].len, w.size[i]);
		CHECK_EQ_U64(c.recs[i].len2, 0);
	}
	CHECK_EQ_U64(rs_tail(&rs), total);
	st = rs_stats(ring);
	CHECK_EQ_U64(st.records, 60);
	CHECK_EQ_U64(st.bytes, total);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_header_only_and_large_bodies_intact)
{
	static const uint16_t sizes[] = { 8, 16, 1024, 8, 2040, 8 };
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i, n = sizeof(sizes) / sizeof(sizes[0]);

	REQUIRE(rs_init(&rs, 8192, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	for (i = 0; i < n; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, sizes[i], 100 + i);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), (int)n);
	REQUIRE(c.n == n);
	for (i = 0; i < n; i++)
		CHECKF(rs_rec_is(&c, i, PERF_RECORD_SAMPLE, 0, sizes[i], 100 + i), "record %zu (size %u) differs",
		       i, sizes[i]);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_lost_records_delivered_and_counted)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_stats st;
	uint64_t lost_pos, v[2];

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 1);
	lost_pos = rs_put_lost(&rs, 42, 5);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 2);
	rs_put_lost(&rs, 42, 1000000007ull);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 4);
	REQUIRE(c.n == 4);
	CHECK_EQ_U64(c.recs[1].type, PERF_RECORD_LOST);
	CHECK_EQ_U64(c.recs[1].size, 24);
	CHECK_EQ_U64(c.recs[1].offset, lost_pos);
	memcpy(v, rs_bytes(&c, 1) + 8, sizeof(v));
	CHECK_EQ_U64(v[0], 42);
	CHECK_EQ_U64(v[1], 5);
	CHECK_EQ_U64(c.recs[3].type, PERF_RECORD_LOST);
	CHECK(rs_rec_is(&c, 2, PERF_RECORD_SAMPLE, 0, 32, 2));
	st = rs_stats(ring);
	CHECK_EQ_U64(st.lost, 5 + 1000000007ull);
	CHECK_EQ_U64(st.lost_records, 2);
	CHECK_EQ_U64(st.records, 4);
	CHECK_EQ_U64(st.bytes, 32 + 24 + 32 + 24);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_unknown_types_delivered)
{
	static const uint32_t types[] = { 200, 0xffff, PERF_RECORD_SAMPLE, 0xffffffffu, 64, 0x10000 };
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	struct perfring_ring_stats st;
	size_t i, n = sizeof(types) / sizeof(types[0]);

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	for (i = 0; i < n; i++)
		rs_put(&rs, types[i], 0xffff, 48, i);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), (int)n);
	REQUIRE(c.n == n);
	for (i = 0; i < n; i++)
		CHECKF(rs_rec_is(&c, i, types[i], 0xffff, 48, i), "record %zu of type %u differs", i, types[i]);
	CHECK_EQ_U64(rs_tail(&rs), 48 * n);
	st = rs_stats(ring);
	CHECK_EQ_U64(st.records, n);
	CHECK_EQ_U64(st.corrupt, 0);
	CHECK_EQ_U64(st.lost_records, 0);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

/* Callback returns PERFRING_STOP after k records: k consumed, tail past them. */
static void stop_after_k(size_t k)
{
	static struct wrote w;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i, n = 10;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < n; i++)
		put(&rs, &w, PERF_RECORD_SAMPLE, 0, (uint16_t)(16 + 8 * i));

	c.stop_after = k;
	CHECKF(perfring_ring_consume(ring, rs_collect_cb, &c) == (int)k, "k=%zu: consume did not return k", k);
	CHECKF(c.n == k && c.calls == k, "k=%zu: %zu records, %zu calls", k, c.n, c.calls);
	check_seq(&c, 0, &w, 0, k, __LINE__);
	CHECKF(rs_tail(&rs) == (k < n ? w.pos[k] : rs_head(&rs)), "k=%zu: tail %" PRIu64, k, rs_tail(&rs));
	CHECKF(perfring_ring_bytes_available(ring) == rs_head(&rs) - rs_tail(&rs), "k=%zu: bytes available",
	       k);
	CHECK_EQ_U64(rs_stats(ring).records, k);

	rs_collect_reset(&c);
	CHECKF(perfring_ring_consume(ring, rs_collect_cb, &c) == (int)(n - k), "k=%zu: second consume", k);
	CHECK_EQ_U64(c.n, n - k);
	check_seq(&c, 0, &w, k, n - k, __LINE__);
	CHECK_EQ_U64(rs_tail(&rs), rs_head(&rs));
	CHECK_EQ_U64(rs_stats(ring).records, n);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_stop_consumes_exactly_k)
{
	stop_after_k(1);
	stop_after_k(3);
	stop_after_k(9);
	stop_after_k(10);
}

TEST(ring_callback_error_redelivers_record)
{
	static struct wrote w;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	size_t i;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 10; i++)
		put(&rs, &w, PERF_RECORD_SAMPLE, 0, 24);

	/* The 5th call fails: records 0..3 consumed, record 4 not. */
	c.fail_call = 5;
	c.fail_err = -EIO;
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), -EIO);
	CHECK_EQ_U64(c.n, 4);
	CHECK_EQ_U64(c.calls, 5);
	check_seq(&c, 0, &w, 0, 4, __LINE__);
	CHECK_EQ_U64(rs_tail(&rs), w.pos[4]);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 6 * 24);

	/* Failing on the very first record consumes nothing. */
	rs_collect_reset(&c);
	c.fail_call = 1;
	c.fail_err = -PERFRING_ECALLBACK;
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), -PERFRING_ECALLBACK);
	CHECK_EQ_U64(c.n, 0);
	CHECK_EQ_U64(rs_tail(&rs), w.pos[4]);

	rs_collect_reset(&c);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 6);
	check_seq(&c, 0, &w, 4, 6, __LINE__);
	CHECK_EQ_U64(rs_tail(&rs), 240);
	/* Each record counted once although record 4 was shown three times. */
	CHECK_EQ_U64(rs_stats(ring).records, 10);
	CHECK_EQ_U64(rs_stats(ring).bytes, 240);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_iterator_without_commit_restarts)
{
	static struct wrote w;
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	size_t i;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 5; i++)
		put(&rs, &w, PERF_RECORD_SAMPLE, 0, (uint16_t)(32 + 8 * i));

	CHECK_EQ_INT(perfring_ring_begin(ring), 32 + 40 + 48 + 56 + 64);
	for (i = 0; i < 3; i++) {
		REQUIRE(perfring_ring_next(ring, &rec) == 1);
		CHECK_EQ_U64(rec.offset, w.pos[i]);
	}
	/* No commit: the next begin restarts at the first record. */
	CHECK_EQ_U64(rs_tail(&rs), 0);
	CHECK_EQ_INT(perfring_ring_begin(ring), 240);
	for (i = 0; i < 5; i++) {
		REQUIRE(perfring_ring_next(ring, &rec) == 1);
		CHECK_EQ_U64(rec.offset, w.pos[i]);
		CHECK_EQ_U64(rec.size, w.size[i]);
		CHECK(rec.data == rs.data + w.pos[i]);
	}
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);
	CHECK_EQ_U64(rs_tail(&rs), 0);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), 240);
	CHECK_EQ_INT(perfring_ring_begin(ring), 0);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);

	perfring_ring_free(ring);
	rs_fini(&rs);
}

TEST(ring_iterator_partial_commit)
{
	static struct wrote w;
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	size_t i;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 4; i++)
		put(&rs, &w, PERF_RECORD_MMAP, 1, 64);

	CHECK_EQ_INT(perfring_ring_begin(ring), 256);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.type, PERF_RECORD_MMAP);
	CHECK_EQ_U64(rec.misc, 1);
	CHECK_EQ_U64(rec.remaining, 192);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.remaining, 128);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), 128);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 128);

	/* Records written after begin() are not part of the batch. */
	CHECK_EQ_INT(perfring_ring_begin(ring), 128);
	put(&rs, &w, PERF_RECORD_MMAP, 1, 64);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.offset, 128);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.offset, 192);
	CHECK_EQ_U64(rec.remaining, 0);
	CHECK_EQ_INT(perfring_ring_next(ring, &rec), 0);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), 256);
	CHECK_EQ_INT(perfring_ring_begin(ring), 64);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.offset, 256);
	perfring_ring_commit(ring);
	CHECK_EQ_U64(rs_tail(&rs), 320);

	perfring_ring_free(ring);
	rs_fini(&rs);
}

TEST(ring_remaining_and_bytes_available)
{
	static struct wrote w;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	uint64_t head;
	size_t i;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, 1000 * 4096 + 512) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	for (i = 0; i < 30; i++)
		put(&rs, &w, PERF_RECORD_SAMPLE, 0, (uint16_t)(8 + 16 * (i % 7)));
	head = rs_head(&rs);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), head - (1000 * 4096 + 512));

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 30);
	REQUIRE(c.n == 30);
	for (i = 0; i < 30; i++)
		CHECKF(c.recs[i].remaining == head - (w.pos[i] + w.size[i]),
		       "record %zu: remaining %" PRIu64 " != %" PRIu64, i, c.recs[i].remaining,
		       head - (w.pos[i] + w.size[i]));
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	CHECK_EQ_U64(rs_tail(&rs), head);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_tail_committed_once_after_batch)
{
	static struct wrote w;
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	uint64_t start = 77 * 4096 + 4000, end;
	size_t i;

	REQUIRE(rs_init_at(&rs, DATA_SZ, false, start) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < 40; i++)
		put(&rs, &w, PERF_RECORD_SAMPLE, 0, 80);
	end = rs_head(&rs);

	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 40);
	/* During the batch the tail stayed where it was... */
	for (i = 0; i < c.n; i++)
		CHECKF(c.recs[i].tail_seen == start, "tail moved to %" PRIu64 " during record %zu",
		       c.recs[i].tail_seen, i);
	/* ...and after it, it is exactly past the last consumed record. */
	CHECK_EQ_U64(rs_tail(&rs), end);
	CHECK_EQ_U64(rs_tail(&rs), w.pos[39] + 80);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

/* The producer writes two more records while the first is being delivered. */
static void produce_during_batch(struct rs_collect *c, const struct perfring_ring_record *rec)
{
	if (c->calls == 1) {
		rs_put(c->rs, PERF_RECORD_SAMPLE, 0, 16, 900);
		rs_put(c->rs, PERF_RECORD_SAMPLE, 0, 16, 901);
	}
}

TEST(ring_batch_ends_at_head_snapshot)
{
	struct ringsim rs;
	struct rs_collect c;
	struct perfring_ring *ring;
	uint64_t head;
	size_t i;

	REQUIRE(rs_init(&rs, DATA_SZ, false) == 0);
	REQUIRE(rs_collect_init(&c, &rs) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	for (i = 0; i < 3; i++)
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, i);
	head = rs_head(&rs);

	c.hook = produce_during_batch;
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 3);
	CHECK_EQ_U64(c.recs[0].remaining, 64);
	CHECK_EQ_U64(c.recs[2].remaining, 0);
	CHECK_EQ_U64(rs_tail(&rs), head);

	rs_collect_reset(&c);
	CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 2);
	CHECK(rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 16, 900));
	CHECK(rs_rec_is(&c, 1, PERF_RECORD_SAMPLE, 0, 16, 901));
	CHECK_EQ_U64(rs_tail(&rs), head + 32);

	perfring_ring_free(ring);
	rs_collect_fini(&c);
	rs_fini(&rs);
}

TEST(ring_memory_ring_accessors)
{
	struct ringsim rs;
	struct perfring_ring *ring;

	REQUIRE(rs_init(&rs, 16384, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	CHECK_EQ_INT(perfring_ring_fd(ring), -EBADF);
	CHECK_EQ_U64(perfring_ring_data_size(ring), 16384);
	/* Undocumented for a memory ring: the library mapped nothing (0), or
	 * the ring's memory (page + data). Either is a fair reading. */
	CHECKF(perfring_ring_mmap_size(ring) == 0 || perfring_ring_mmap_size(ring) == rs_len(&rs),
	       "mmap_size %zu", perfring_ring_mmap_size(ring));
	CHECK(!perfring_ring_is_overwrite(ring));
	CHECK(perfring_ring_meta(ring) == (const void *)rs.base);
	CHECK_EQ_INT(perfring_ring_pause(ring), -ENOTTY);
	CHECK_EQ_INT(perfring_ring_resume(ring), -ENOTTY);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

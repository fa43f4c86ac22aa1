// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The inline cursor (perfring_ring_cursor / perfring_cursor_next) against
 * perfring_ring_consume() on the same bytes: the same records in the same
 * order with the same contents, the same tail, the same counters, for
 * every start offset, every mix of record types and sizes, wrapped records,
 * early commits, and corrupt headers.
 */
#include <linux/perf_event.h>

#include "harness.h"
#include "ringsim.h"

#define DATA_SIZE 4096

/* One record as seen by a reader: type, size, and a checksum of its bytes. */
struct seen {
	uint32_t type;
	uint16_t size;
	uint64_t sum;
};

static uint64_t bytes_sum(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

struct consume_log {
	struct seen rec[1024];
	size_t n;
};

static int log_record(const struct perfring_ring_record *rec, void *ctx)
{
	struct consume_log *log = ctx;
	uint8_t buf[65536];

	perfring_ring_record_copy(rec, 0, buf, rec->size);
	log->rec[log->n].type = rec->type;
	log->rec[log->n].size = rec->size;
	log->rec[log->n].sum = bytes_sum(buf, rec->size);
	log->n++;
	return PERFRING_CONTINUE;
}

/* Fill two identical fake rings starting at start with a seeded mix. */
static size_t fill_pair(struct ringsim *a, struct ringsim *b, uint64_t start, unsigned seed, size_t budget)
{
	static const uint16_t sizes[] = { 16, 24, 32, 80, 96, 200, 1000, 8, 40 };
	size_t used = 0, n = 0;

	for (;;) {
		unsigned k = (seed = seed * 1103515245u + 12345u) >> 16;
		uint16_t size = sizes[k % 9];
		uint32_t type = (k / 9) % 7 == 0 ? 200 + k % 3 : PERF_RECORD_SAMPLE;

		if (type == PERF_RECORD_SAMPLE && size < 16)
			size = 16;
		if ((k / 63) % 11 == 0) {
			if (used + 24 > budget)
				break;
			rs_put_lost(a, k, k % 100 + 1);
			rs_put_lost(b, k, k % 100 + 1);
			used += 24;
			n++;
			continue;
		}
		if (used + size > budget)
			break;
		rs_put(a, type, (uint16_t)k, size, seed);
		rs_put(b, type, (uint16_t)k, size, seed);
		used += size;
		n++;
	}
	(void)start;
	return n;
}

static bool same_stats(struct perfring_ring *a, struct perfring_ring *b)
{
	struct perfring_ring_stats x, y;

	perfring_ring_stats(a, &x);
	perfring_ring_stats(b, &y);
	return x.records == y.records && x.bytes == y.bytes && x.lost == y.lost && x.lost_records == y.lost_records;
}

TEST(cursor_matches_consume_at_every_offset)
{
	uint64_t start;
	unsigned seed;

	for (start = 0; start < DATA_SIZE; start += 8) {
		for (seed = 1; seed <= 3; seed++) {
			struct ringsim ra, rb;
			struct perfring_ring *a, *b;
			struct consume_log log = { .n = 0 };
			struct perfring_cursor c;
			const struct perfring_header *h;
			size_t n, i = 0;
			int ret;

			REQUIRE(rs_init_at(&ra, DATA_SIZE, false, start) == 0);
			REQUIRE(rs_init_at(&rb, DATA_SIZE, false, start) == 0);
			a = rs_ring(&ra, false);
			b = rs_ring(&rb, false);
			REQUIRE(a && b);
			n = fill_pair(&ra, &rb, start, seed * 7919u + (unsigned)start, DATA_SIZE - 8);
			ret = perfring_ring_consume(a, log_record, &log);
			CHECK_EQ_INT(ret, (int)n);
			CHECK_EQ_INT(perfring_ring_cursor(b, &c), (int)(rs_head(&rb) - start));
			while ((h = perfring_cursor_next(&c))) {
				REQUIREF(i < log.n, "start %llu: cursor gave more records than consume",
					 (unsigned long long)start);
				CHECKF(h->type == log.rec[i].type && h->size == log.rec[i].size &&
					       bytes_sum((const uint8_t *)h, h->size) == log.rec[i].sum,
				       "start %llu seed %u record %zu: type %u size %u differs", (unsigned long long)start,
				       seed, i, h->type, h->size);
				i++;
			}
			CHECK_EQ_INT(c.err, 0);
			CHECK_EQ_U64(i, log.n);
			perfring_ring_cursor_commit(b, &c);
			CHECK_EQ_U64(rs_tail(&rb), rs_tail(&ra));
			CHECK_EQ_U64(rs_tail(&rb), rs_head(&rb));
			CHECK(same_stats(a, b));
			perfring_ring_free(a);
			perfring_ring_free(b);
			rs_fini(&ra);
			rs_fini(&rb);
		}
	}
}

TEST(cursor_bpf_sample_payload)
{
	struct ringsim rs;
	struct perfring_ring *r;
	struct perfring_cursor c;
	const struct perfring_header *h;
	uint8_t rec[32] = { 0 };
	struct perf_event_header hdr = { PERF_RECORD_SAMPLE, 0, 32 };
	uint32_t raw = 20, size = 0;
	const uint8_t *payload;
	int i;

	REQUIRE(rs_init_at(&rs, DATA_SIZE, false, DATA_SIZE - 16) == 0); /* the second one wraps */
	memcpy(rec, &hdr, 8);
	memcpy(rec + 8, &raw, 4);
	for (i = 12; i < 32; i++)
		rec[i] = (uint8_t)i;
	rs_put_raw(&rs, rec, 32);
	rs_put_raw(&rs, rec, 32);
	raw = 21; /* claims more than the record holds */
	memcpy(rec + 8, &raw, 4);
	rs_put_raw(&rs, rec, 32);
	r = rs_ring(&rs, false);
	REQUIRE(r);
	perfring_ring_cursor(r, &c);
	for (i = 0; i < 2; i++) {
		h = perfring_cursor_next(&c);
		REQUIRE(h);
		payload = perfring_bpf_sample(h, &size);
		REQUIRE(payload);
		CHECK_EQ_U64(size, 20);
		CHECK(payload[0] == 12 && payload[19] == 31);
	}
	h = perfring_cursor_next(&c);
	REQUIRE(h);
	CHECK(perfring_bpf_sample(h, &size) == NULL);
	CHECK(perfring_cursor_next(&c) == NULL);
	perfring_ring_cursor_commit(r, &c);
	CHECK_EQ_U64(rs_tail(&rs), rs_head(&rs));
	perfring_ring_free(r);
	rs_fini(&rs);
}

TEST(cursor_early_commit_resumes)
{
	struct ringsim rs;
	struct perfring_ring *r;
	struct perfring_cursor c;
	const struct perfring_header *h;
	uint64_t pos[10];
	int i;

	REQUIRE(rs_init_at(&rs, DATA_SIZE, false, 3 * DATA_SIZE - 200) == 0);
	for (i = 0; i < 10; i++)
		pos[i] = rs_put(&rs, PERF_RECORD_SAMPLE, 0, 80, (uint64_t)i);
	r = rs_ring(&rs, false);
	REQUIRE(r);
	perfring_ring_cursor(r, &c);
	for (i = 0; i < 4; i++)
		REQUIRE(perfring_cursor_next(&c));
	perfring_ring_cursor_commit(r, &c);
	CHECK_EQ_U64(rs_tail(&rs), pos[4]);
	perfring_ring_cursor_commit(r, &c); /* twice: nothing more */
	CHECK_EQ_U64(rs_tail(&rs), pos[4]);
	perfring_ring_cursor(r, &c);
	for (i = 4; i < 10; i++) {
		uint8_t want[80];

		h = perfring_cursor_next(&c);
		REQUIREF(h, "record %d missing", i);
		rs_make(want, PERF_RECORD_SAMPLE, 0, 80, (uint64_t)i);
		CHECKF(memcmp(h, want, 80) == 0, "record %d bytes differ", i);
	}
	CHECK(perfring_cursor_next(&c) == NULL);
	perfring_ring_cursor_commit(r, &c);
	CHECK_EQ_U64(rs_tail(&rs), rs_head(&rs));
	{
		struct perfring_ring_stats st;

		perfring_ring_stats(r, &st);
		CHECK_EQ_U64(st.records, 10);
		CHECK_EQ_U64(st.bytes, 800);
	}
	perfring_ring_free(r);
	rs_fini(&rs);
}

TEST(cursor_corrupt_headers)
{
	static const uint16_t bad[] = { 0, 4, 12, 60 };
	size_t k;

	for (k = 0; k < sizeof(bad) / sizeof(bad[0]) + 2; k++) {
		struct ringsim rs;
		struct perfring_ring *r;
		struct perfring_cursor c;
		uint64_t bad_pos;
		int n = 0;

		REQUIRE(rs_init_at(&rs, DATA_SIZE, false, DATA_SIZE - 24) == 0);
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 16, 1);
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 16, 2);
		if (k < sizeof(bad) / sizeof(bad[0]))
			bad_pos = rs_put_header(&rs, PERF_RECORD_SAMPLE, bad[k], 16);
		else if (k == sizeof(bad) / sizeof(bad[0]))
			bad_pos = rs_put_header(&rs, PERF_RECORD_SAMPLE, 64, 16); /* beyond head */
		else {
			bad_pos = rs.wpos;
			rs_set_head(&rs, rs.wpos + 2 * DATA_SIZE); /* a lying head */
		}
		r = rs_ring(&rs, false);
		REQUIRE(r);
		perfring_ring_cursor(r, &c);
		while (perfring_cursor_next(&c))
			n++;
		CHECK_EQ_INT(c.err, -PERFRING_ECORRUPT);
		CHECK_EQ_INT(n, k <= sizeof(bad) / sizeof(bad[0]) ? 2 : 0);
		if (k <= sizeof(bad) / sizeof(bad[0]))
			CHECK_EQ_U64(perfring_ring_error_offset(r), bad_pos);
		CHECK(perfring_cursor_next(&c) == NULL); /* stays ended */
		perfring_ring_cursor_commit(r, &c);
		CHECK_EQ_U64(rs_tail(&rs), k <= sizeof(bad) / sizeof(bad[0]) ? bad_pos : DATA_SIZE - 24);
		CHECK(perfring_errmsg()[0] != '\0');
		perfring_ring_free(r);
		rs_fini(&rs);
	}
}

TEST(cursor_refuses_overwrite_rings)
{
	struct ringsim rs;
	struct perfring_ring *r;
	struct perfring_cursor c;

	REQUIRE(rs_init(&rs, DATA_SIZE, true) == 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 16, 1);
	r = rs_ring(&rs, false);
	REQUIRE(r);
	CHECK_EQ_INT(perfring_ring_cursor(r, &c), -EOPNOTSUPP);
	CHECK(perfring_cursor_next(&c) == NULL);
	CHECK_EQ_INT(c.err, -EOPNOTSUPP);
	perfring_ring_free(r);
	rs_fini(&rs);
}

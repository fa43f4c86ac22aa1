// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer's inline cursor on a real BPF_MAP_TYPE_RINGBUF fed by a
 * real BPF program (tests/bpf/rb_producer.bpf.c under BPF_PROG_TEST_RUN on a
 * pinned CPU), reached through a reader (perfring_reader_ringbuf()): every
 * payload intact and each sequence number once (the producer's counters are
 * the oracle), records that wrap the end of the data area contiguous (many
 * laps of sizes that do not divide the ring), DISCARDed records skipped,
 * consumer_pos stored at the commit (the reader then sees nothing pending,
 * and a reader drain after a cursor that stopped early takes the rest).
 */
#include "rbtest.h"

/* Drain the reader's ring buffer idx with the cursor, at most max records
 * (0: all); each into c. Returns the count or c.err. */
static int cursor_drain(struct perfring_reader *rd, int idx, int max, struct rb_collect *c)
{
	struct perfring_ringbuf *rb = perfring_reader_ringbuf(rd, idx);
	struct perfring_rb_cursor cur;
	const void *data;
	uint32_t size;
	int n = 0;

	if (!rb)
		return -errno;
	if (perfring_ringbuf_cursor(rb, &cur) < 0)
		return cur.err;
	while ((!max || n < max) && (data = perfring_ringbuf_cursor_next(&cur, &size))) {
		c->rb_samples++;
		rb_collect_sample(c, data, size, false, idx);
		n++;
	}
	perfring_ringbuf_cursor_commit(rb, &cur);
	return cur.err ? cur.err : n;
}

static struct perfring_reader *rb_reader(struct rbtest *rt)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .lost_map_fd = rt->lost_fd);
	struct perfring_reader *rd = perfring_reader_new(NULL);

	if (rd && perfring_reader_add_ringbuf(rd, rt->rb_fd, &o) != 0) {
		perfring_reader_free(rd);
		return NULL;
	}
	return rd;
}

TEST(rb_cursor_payloads_many_laps)
{
	static const uint32_t lens[] = { 16, 17, 100, 1000, 4093, 24, 333 };
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	uint64_t want = 0, bytes = 0;
	int round, ret;

	RBTEST_SETUP(&rt, 16384); /* small: 300 rounds go round it many times */
	rd = rb_reader(&rt);
	REQUIREF(rd, "%s", perfring_errmsg());
	rb_collect_init(&c, 300 * 8, 0);
	for (round = 0; round < 300; round++) {
		uint32_t len = lens[round % 7], n = 1 + (uint32_t)round % 3;

		rt.skel->data->payload_len = len;
		REQUIRE(rbtest_run(rt.skel->progs.produce, 0, n) == n);
		want += n;
		bytes += n * (((uint64_t)len + 8 + 7) & ~7ull);
		ret = cursor_drain(rd, 0, 0, &c);
		CHECKF(ret == (int)n, "round %d: cursor took %d of %u (%s)", round, ret, n, perfring_errmsg());
		if (ret != (int)n)
			break;
	}
	CHECK_EQ_U64(rt.skel->bss->out_ok, want);
	CHECK(bytes > 8 * 16384); /* many laps of the data area */
	CHECK_EQ_U64(c.rb_samples, want);
	CHECK_EQ_U64(rb_collect_once(&c, want), want);
	RB_CHECK_COLLECT(&c);
	/* The commits stored consumer_pos: nothing left, the stats count all. */
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(perfring_reader_ringbuf(rd, 0)), 0);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);
	REQUIRE(perfring_ringbuf_stats(perfring_reader_ringbuf(rd, 0), &st) == 0);
	CHECK_EQ_U64(st.records, want);
	CHECK_EQ_U64(st.bytes, bytes);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_cursor_discard_then_reader)
{
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt);
	REQUIREF(rd, "%s", perfring_errmsg());
	RBTEST_PRODUCE_DISCARDING(&rt);
	rb_collect_init(&c, 300, 64);
	/* The cursor takes 50 and commits; the reader's drain takes the rest. */
	CHECK_EQ_INT(cursor_drain(rd, 0, 50, &c), 50);
	CHECK_EQ_INT(perfring_reader_pending(rd), 1);
	ret = perfring_reader_consume(rd, rb_collect_fn, &c);
	CHECKF(ret == 150, "consume after the cursor: %d (%s)", ret, perfring_errmsg());
	RB_CHECK_DISCARDED(&c);
	/* Empty: the cursor returns nothing and commits nothing. */
	CHECK_EQ_INT(cursor_drain(rd, 0, 0, &c), 0);
	errno = 0;
	CHECK(!perfring_reader_ringbuf(rd, 1) && errno == EINVAL);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* A ring filled to the brim (what fits, exactly), drained in one batch. */
TEST(rb_cursor_full_ring)
{
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	uint32_t fit = 16384 / 72; /* 64-byte payloads: 72 bytes a record */
	int ret;

	RBTEST_SETUP(&rt, 16384);
	rd = rb_reader(&rt);
	REQUIREF(rd, "%s", perfring_errmsg());
	rt.skel->data->payload_len = 64;
	/* Start part way round, so the full batch wraps the data area. */
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 100) == 100);
	rb_collect_init(&c, 100 + fit + 1, 64);
	CHECK_EQ_INT(cursor_drain(rd, 0, 0, &c), 100);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, fit + 1) == fit + 1);
	CHECK_EQ_U64(rt.skel->bss->out_ok, 100 + fit); /* the last one did not fit */
	ret = cursor_drain(rd, 0, 0, &c);
	CHECKF(ret == (int)fit, "cursor: %d of %u (%s)", ret, fit, perfring_errmsg());
	CHECK_EQ_U64(rb_collect_once(&c, 100 + fit), 100 + fit);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Overwrite (BPF_F_RB_OVERWRITE) ring buffers read newest first, on
 * in-memory rings whose producer does what the kernel's does in that mode
 * (tests/unit/rbsim.h: overwrite_pos moved over whole records, a BUSY
 * record never overwritten): a ring not yet wrapped, one wrapped many
 * times, records across the end of the data area (the double mapping),
 * BUSY and DISCARD records, budgets and early stops (the rest goes on only
 * if nothing new was written), records overwritten while being delivered
 * (dropped, never delivered torn), corrupt length words and positions
 * (-PERFRING_ECORRUPT with the position, the way on with discard), and the
 * API's edges. The oracle for what must come back is the simulated
 * producer's own overwrite_pos: exactly the records from it to
 * producer_pos, newest first. The concurrent writer is in
 * ringbuf_overwrite_thread.c.
 */
#include <errno.h>

#include "harness.h"
#include "unit/rbsim.h"

#define SZ 4096u
#define MAXREC 4096

struct owc {
	uint32_t seq[MAXREC];
	uint32_t len[MAXREC];
	int n;
	int bad;      /* payloads that are not what their seq wrote */
	int stop_at;  /* PERFRING_STOP at this record (-1: never) */
	int fail_at;  /* -EIO at this record (-1: never) */
	struct rbsim *s;
	/* In the callback of record hook_at: write hook_n more records of hook_len. */
	int hook_at, hook_n;
	uint32_t hook_len, hook_seq;
};

static int on_rec(void *ctx, const void *data, size_t size)
{
	struct owc *c = ctx;
	uint32_t seq = 0;
	int i;

	if (c->n == c->fail_at) {
		c->fail_at = -1;
		return -EIO;
	}
	if (size >= 4)
		memcpy(&seq, data, 4);
	if (!rbs_check(data, size, (uint32_t)size, seq))
		c->bad++;
	if (c->n < MAXREC) {
		c->seq[c->n] = seq;
		c->len[c->n] = (uint32_t)size;
	}
	if (c->n == c->hook_at)
		for (i = 0; i < c->hook_n; i++)
			rbs_ow_put(c->s, c->hook_len, c->hook_seq++);
	c->n++;
	return c->n - 1 == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

static void owc_init(struct owc *c, struct rbsim *s)
{
	memset(c, 0, sizeof(*c));
	c->stop_at = c->fail_at = c->hook_at = -1;
	c->s = s;
}

static uint64_t dropped(struct perfring_ringbuf *rb)
{
	struct perfring_ring_stats st;

	memset(&st, 0, sizeof(st));
	perfring_ringbuf_stats(rb, &st);
	return st.dropped_bytes;
}

/* The seqs of the records from overwrite_pos to producer_pos, newest first,
 * read back from the simulated ring (the test's oracle); their count. */
static int live_seqs(struct rbsim *s, uint64_t from, uint32_t *out, int max)
{
	uint64_t p = from, prod = *s->prod;
	uint32_t tmp[MAXREC];
	int n = 0, i;

	while (p != prod && n < MAXREC) {
		uint32_t w = rbs_len_at(s, p), seq = 0;

		if (w & RBS_BUSY)
			break;
		if (!(w & RBS_DISCARD)) {
			memcpy(&seq, s->data + (p & (s->size - 1)) + 8, 4);
			tmp[n++] = seq;
		}
		p += rbs_total(w & ~RBS_DISCARD);
	}
	for (i = 0; i < n && i < max; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

TEST(ow_not_wrapped_newest_first)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	struct perfring_ring_stats st;
	uint64_t before;
	int i;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIREF(rb, "%s", perfring_errmsg());
	CHECK(perfring_ringbuf_is_overwrite(rb));
	CHECK(!perfring_ringbuf_is_overwrite(NULL));
	owc_init(&c, &s);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	for (i = 0; i < 10; i++)
		REQUIRE(rbs_ow_put(&s, 5 + (uint32_t)i * 9, (uint32_t)i) != UINT64_MAX);
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), *s.prod);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 10);
	CHECK_EQ_INT(c.bad, 0);
	for (i = 0; i < 10; i++) {
		CHECK_EQ_INT(c.seq[i], 9 - i);
		CHECK_EQ_INT(c.len[i], 5 + (9 - i) * 9);
	}
	/* Seen: consumer_pos at producer_pos, nothing available, nothing again. */
	CHECK_EQ_U64(*s.cons, *s.prod);
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), 0);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	/* Only what is new comes next, newest first. */
	before = *s.prod;
	for (i = 10; i < 13; i++)
		rbs_ow_put(&s, 16, (uint32_t)i);
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), *s.prod - before);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 3);
	CHECK_EQ_INT(c.seq[10], 12);
	CHECK_EQ_INT(c.seq[12], 10);
	CHECK_EQ_INT(perfring_ringbuf_stats(rb, &st), 0);
	CHECK_EQ_U64(st.records, 13);
	CHECK_EQ_U64(st.bytes, *s.prod);
	CHECK_EQ_U64(st.dropped_bytes, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

/* Wrapped many times, with records across the end: exactly the records the
 * producer has not overwritten come back, newest first, intact; the rest is
 * counted dropped. Run at several start positions, sizes and ring sizes. */
TEST(ow_wrapped_many_times)
{
	static const struct {
		size_t size;
		uint64_t start;
		uint32_t min_len, spread;
		int count;
	} cases[] = {
		{ 4096, 0, 4, 200, 3000 },
		{ 4096, 4096 - 24, 30, 97, 777 },         /* records straddle the end */
		{ 8192, (1ull << 63) - 40, 4, 60, 3000 },  /* positions over 2^63 */
		{ 65536, 123 * 8, 100, 3000, 500 },
		{ 4096, UINT64_MAX - 15, 4, 20, 2000 },    /* positions wrap 2^64 */
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rbsim s;
		struct owc c;
		struct perfring_ringbuf *rb;
		uint32_t want[MAXREC];
		uint64_t over;
		int i, n, nwant;

		REQUIRE(rbs_init(&s, cases[k].size) == 0);
		rbs_ow_set_pos(&s, cases[k].start);
		rb = rbs_ow_ring(&s);
		REQUIRE(rb);
		owc_init(&c, &s);
		for (i = 0; i < cases[k].count; i++) {
			uint32_t len = cases[k].min_len + (uint32_t)((i * 7919u) % (cases[k].spread + 1));

			if (rbs_total(len) > cases[k].size / 2)
				len = (uint32_t)cases[k].size / 2 - 8;
			REQUIRE(rbs_ow_put(&s, len, (uint32_t)i) != UINT64_MAX);
		}
		over = *rbs_over(&s);
		CHECKF(over != cases[k].start, "case %zu: the ring never wrapped", k);
		nwant = live_seqs(&s, over, want, MAXREC);
		CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), *s.prod - over);
		n = perfring_ringbuf_consume(rb, 0, on_rec, &c);
		CHECKF(n == nwant, "case %zu: %d records, want %d (%s)", k, n, nwant, n < 0 ? perfring_errmsg() : "");
		CHECK_EQ_INT(c.bad, 0);
		for (i = 0; i < n && i < nwant; i++)
			if (c.seq[i] != want[i]) {
				CHECKF(0, "case %zu: record %d is seq %u, want %u", k, i, c.seq[i], want[i]);
				break;
			}
		CHECK_EQ_INT(c.seq[0], cases[k].count - 1);
		CHECK_EQ_U64(dropped(rb), over - cases[k].start);
		CHECK_EQ_U64(*s.cons, *s.prod);
		perfring_ringbuf_free(rb);
		rbs_free(&s);
	}
}

TEST(ow_busy_newest_waits)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	uint64_t busy;
	uint8_t *p;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	rbs_ow_put(&s, 16, 0);
	rbs_ow_put(&s, 24, 1);
	rbs_ow_put(&s, 8, 2);
	p = rbs_ow_reserve(&s, 40, &busy); /* the newest, reserved, not submitted */
	REQUIRE(p);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 3);
	CHECK_EQ_INT(c.seq[0], 2);
	CHECK_EQ_INT(c.seq[2], 0);
	CHECK_EQ_U64(*s.cons, busy); /* seen up to the BUSY record */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	rbs_ow_fill(p, 40, 3);
	rbs_submit(&s, busy, 40, 0);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 1);
	CHECK_EQ_INT(c.seq[3], 3);
	CHECK_EQ_INT(c.bad, 0);

	/* A BUSY record in the middle: the records after it wait with it. */
	rbs_ow_put(&s, 8, 4);
	p = rbs_ow_reserve(&s, 8, &busy);
	REQUIRE(p);
	rbs_ow_put(&s, 8, 6);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 1);
	CHECK_EQ_INT(c.seq[4], 4);
	rbs_ow_fill(p, 8, 5);
	rbs_submit(&s, busy, 8, 0);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	CHECK_EQ_INT(c.seq[5], 6);
	CHECK_EQ_INT(c.seq[6], 5);
	CHECK_EQ_U64(dropped(rb), 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

/* The producer does not overwrite a BUSY record: it refuses instead, and
 * the records newer than the BUSY one are all still there. */
TEST(ow_busy_oldest_blocks_producer)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	uint64_t busy;
	uint8_t *p;
	int i, put = 0;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	p = rbs_ow_reserve(&s, 8, &busy);
	REQUIRE(p);
	for (i = 1; i < 200; i++)
		put += rbs_ow_put(&s, 24, (uint32_t)i) != UINT64_MAX;
	CHECK_EQ_INT(put, (SZ - 16) / 32); /* then the BUSY record is in the way */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	rbs_ow_fill(p, 8, 0);
	rbs_submit(&s, busy, 8, 0);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), put + 1);
	CHECK_EQ_INT(c.seq[0], put);
	CHECK_EQ_INT(c.seq[put], 0);
	CHECK_EQ_INT(c.bad, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(ow_discard_skipped)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	uint64_t pos;
	int i;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	rbs_ow_put(&s, 16, 0);
	REQUIRE(rbs_ow_reserve(&s, 24, &pos));
	rbs_submit(&s, pos, 24, 1);
	rbs_ow_put(&s, 16, 2);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	CHECK_EQ_INT(c.seq[0], 2);
	CHECK_EQ_INT(c.seq[1], 0);
	/* Wrapping over DISCARD records: overwrite_pos steps over them too. */
	for (i = 3; i < 300; i++) {
		REQUIRE(rbs_ow_reserve(&s, 8, &pos));
		rbs_submit(&s, pos, 8, 1);
		rbs_ow_put(&s, 12, (uint32_t)i);
	}
	c.n = 0;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), SZ / 40);
	CHECK_EQ_INT(c.seq[0], 299);
	CHECK_EQ_INT(c.bad, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

/* Budget, early stop and callback errors: the rest goes on, older, if
 * nothing was written meanwhile; otherwise the new records come and the
 * rest is dropped (as an overwrite perf ring). */
TEST(ow_budget_stop_and_rest)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	int i;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	for (i = 0; i < 10; i++)
		rbs_ow_put(&s, 16, (uint32_t)i);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 3, on_rec, &c), 3);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 3, on_rec, &c), 3);
	c.stop_at = 7;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	c.fail_at = 8;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), -EIO);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2); /* the failed one again, then the last */
	CHECK_EQ_INT(c.n, 10);
	for (i = 0; i < 10; i++)
		CHECK_EQ_INT(c.seq[i], 9 - i);
	CHECK_EQ_U64(dropped(rb), 0);

	/* New records while a rest is pending: they come, the rest is dropped. */
	for (i = 10; i < 20; i++)
		rbs_ow_put(&s, 16, (uint32_t)i);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 4, on_rec, &c), 4); /* 19..16 */
	rbs_ow_put(&s, 16, 20);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 1);
	CHECK_EQ_INT(c.seq[14], 20);
	CHECK_EQ_U64(dropped(rb), 6 * 24); /* 15..10 */
	/* discard drops a pending rest too. */
	for (i = 21; i < 25; i++)
		rbs_ow_put(&s, 16, (uint32_t)i);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 1, on_rec, &c), 1);
	CHECK_EQ_U64(perfring_ringbuf_discard(rb), 3 * 24);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

/* The producer overwrites while records are delivered (from the callback,
 * deterministically): the records it reached are dropped, not delivered,
 * and what is delivered is intact. */
TEST(ow_overwritten_while_reading)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;
	int i, n;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	for (i = 0; i < 300; i++)
		rbs_ow_put(&s, 24, (uint32_t)i); /* 32 bytes each */
	c.hook_at = 0;
	c.hook_n = 10; /* overwrite the 10 oldest of the snapshot */
	c.hook_len = 24;
	c.hook_seq = 1000;
	/* 127 records of 32 bytes live (173..299); 173..182 are overwritten
	 * while 299 is delivered: 299..183 come, 182..173 are dropped. */
	n = perfring_ringbuf_consume(rb, 0, on_rec, &c);
	CHECK_EQ_INT(n, 117);
	CHECK_EQ_INT(c.bad, 0);
	CHECK_EQ_INT(c.seq[0], 299);
	CHECK_EQ_INT(c.seq[116], 183);
	CHECK_EQ_U64(dropped(rb), 173 * 32 + 10 * 32);
	/* The new records come with the next read. */
	c.hook_at = -1;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 10);
	CHECK_EQ_INT(c.seq[117], 1009);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

static void expect_corrupt(struct rbsim *s, struct perfring_ringbuf *rb, uint64_t pos, const char *why)
{
	struct owc c;
	char want[32];
	int ret;

	owc_init(&c, s);
	ret = perfring_ringbuf_consume(rb, 0, on_rec, &c);
	CHECK_EQ_INT(ret, -PERFRING_ECORRUPT);
	CHECK_EQ_INT(c.n, 0); /* nothing delivered from a snapshot that could not be walked */
	CHECK_EQ_U64(perfring_ringbuf_error_offset(rb), pos);
	snprintf(want, sizeof(want), "position %llu", (unsigned long long)pos);
	CHECKF(strstr(perfring_errmsg(), want) && strstr(perfring_errmsg(), why), "%s (want \"%s\", \"%s\")",
	       perfring_errmsg(), want, why);
	/* Reported again, never spun on; discard is the way on. */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), -PERFRING_ECORRUPT);
	perfring_ringbuf_discard(rb);
	CHECK_EQ_U64(*s->cons, *s->prod & ~(uint64_t)7);
	ret = perfring_ringbuf_consume(rb, 0, on_rec, &c);
	CHECKF(ret == 0, "%d: %s", ret, perfring_errmsg());
	rbs_ow_set_pos(s, *s->cons); /* the simulated producer starts afresh there */
	rbs_ow_put(s, 8, 77);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 1);
	CHECK_EQ_INT(c.seq[0], 77);
}

/* A ring whose positions are cons, prod, over at creation: corrupt at pos. */
static void corrupt_positions(uint64_t cons, uint64_t prod, uint64_t over, uint64_t pos, const char *why)
{
	struct rbsim s;
	struct perfring_ringbuf *rb;

	REQUIRE(rbs_init(&s, SZ) == 0);
	*s.cons = cons;
	*s.prod = prod;
	*rbs_over(&s) = over;
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	expect_corrupt(&s, rb, pos, why);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(ow_corrupt_lengths_and_positions)
{
	static const struct {
		uint32_t word;
		uint64_t adv;
		const char *why;
	} words[] = {
		{ 5000, 16, "longer than the ring" },
		{ 64, 40, "beyond producer_pos" },
		{ RBS_DISCARD | 0x3ffffff8u, 16, "longer than the ring" },
	};
	struct rbsim s;
	struct perfring_ringbuf *rb;
	uint64_t bad;
	size_t k;

	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
		REQUIRE(rbs_init(&s, SZ) == 0);
		rbs_ow_set_pos(&s, SZ - 16);
		rb = rbs_ow_ring(&s);
		REQUIRE(rb);
		rbs_ow_put(&s, 8, 1);
		bad = rbs_put_raw(&s, words[k].word, words[k].adv);
		expect_corrupt(&s, rb, bad, words[k].why);
		perfring_ringbuf_free(rb);
		rbs_free(&s);
	}

	/* overwrite_pos misaligned, more than a ring behind producer_pos,
	 * consumer_pos ahead of producer_pos or misaligned. */
	corrupt_positions(0, 64, 12, 12, "overwrite_pos is not 8-byte aligned");
	corrupt_positions(0, 3 * SZ, SZ, SZ, "more than the ring size behind");
	corrupt_positions(4096, 64, 0, 4096, "consumer_pos is ahead of producer_pos");
	corrupt_positions(12, 64, 0, 12, "consumer_pos is not 8-byte aligned");
}

/* overwrite_pos beyond producer_pos that never settles: -EAGAIN, bounded. */
TEST(ow_overwrite_pos_ahead)
{
	struct rbsim s;
	struct owc c;
	struct perfring_ringbuf *rb;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	owc_init(&c, &s);
	*s.prod = 64;
	*rbs_over(&s) = 128;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), -EAGAIN);
	CHECKF(strstr(perfring_errmsg(), "overwrite_pos (128) stayed ahead of producer_pos (64)"), "%s",
	       perfring_errmsg());
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(ow_api_edges)
{
	static uint64_t buf[2048];
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .overwrite = true);
	struct perfring_rb_cursor cur;
	struct perfring_ringbuf *rb;
	const void *d;
	uint32_t size;
	struct rbsim s;

	/* The producer page must hold overwrite_pos (byte 16). */
	errno = 0;
	CHECK(!perfring_ringbuf_new_mem(buf, 2 * 16 + 64, 16, &o));
	CHECK_EQ_INT(errno, EINVAL);
	CHECKF(strstr(perfring_errmsg(), "overwrite_pos"), "%s", perfring_errmsg());
	rb = perfring_ringbuf_new_mem(buf, 2 * 64 + 128, 64, &o);
	REQUIREF(rb, "%s", perfring_errmsg());
	CHECK(perfring_ringbuf_is_overwrite(rb));
	perfring_ringbuf_free(rb);

	/* The inline cursor is for forward rings. */
	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	rbs_ow_put(&s, 8, 1);
	CHECK_EQ_INT(perfring_ringbuf_cursor(rb, &cur), -EOPNOTSUPP);
	CHECK_EQ_INT(cur.err, -EOPNOTSUPP);
	CHECKF(strstr(perfring_errmsg(), "perfring_ringbuf_consume"), "%s", perfring_errmsg());
	d = perfring_ringbuf_cursor_next(&cur, &size);
	CHECK(!d);
	perfring_ringbuf_cursor_commit(rb, &cur);
	CHECK_EQ_U64(*s.cons, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

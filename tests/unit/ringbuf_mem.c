// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF ring buffer layer on in-memory rings laid out as the kernel maps
 * them (tests/unit/rbsim.h: the data area mapped twice): payloads intact
 * and in order, BUSY ends the batch, DISCARD is skipped, records across the
 * end of the data area come contiguous through the double mapping,
 * consumer_pos stored once per batch, budget, early stop, callback errors,
 * and corrupt length words / positions reported with the position, never
 * read out of bounds (ASan) and never spun on.
 */
#include <errno.h>

#include "harness.h"
#include "unit/rbsim.h"

#define SZ 4096u

struct collect {
	uint32_t seq[1024];
	uint32_t len[1024];
	int n;
	int stop_at;   /* return PERFRING_STOP at this record (-1: never) */
	int fail_at;   /* return -EIO at this record (-1: never) */
	int bad;       /* payloads that did not match their seq */
	struct rbsim *s;
	uint64_t cons_seen[1024]; /* consumer_pos as each callback saw it */
};

static int on_rec(void *ctx, const void *data, size_t size)
{
	struct collect *c = ctx;
	uint32_t seq = 0;

	if (c->n == c->fail_at)
		return -EIO;
	if (size >= 4)
		memcpy(&seq, data, 4);
	if (!rbs_check(data, size, (uint32_t)size, seq))
		c->bad++;
	c->seq[c->n] = seq;
	c->len[c->n] = (uint32_t)size;
	c->cons_seen[c->n] = *c->s->cons;
	c->n++;
	return c->n - 1 == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

static void collect_init(struct collect *c, struct rbsim *s)
{
	memset(c, 0, sizeof(*c));
	c->stop_at = c->fail_at = -1;
	c->s = s;
}

TEST(rb_order_and_payloads)
{
	struct rbsim s;
	struct collect c;
	struct perfring_ringbuf *rb;
	struct perfring_ring_stats st;
	uint64_t start;
	int i, ret;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIREF(rb, "%s", perfring_errmsg());
	CHECK_EQ_U64(perfring_ringbuf_data_size(rb), SZ);
	CHECK_EQ_INT(perfring_ringbuf_fd(rb), -1);
	collect_init(&c, &s);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	start = *s.cons;
	for (i = 0; i < 20; i++)
		REQUIRE(rbs_put(&s, 4 + (uint32_t)i * 3, (uint32_t)i) != UINT64_MAX);
	CHECK(perfring_ringbuf_bytes_available(rb) > 0);
	ret = perfring_ringbuf_consume(rb, 0, on_rec, &c);
	CHECK_EQ_INT(ret, 20);
	CHECK_EQ_INT(c.bad, 0);
	for (i = 0; i < 20; i++) {
		CHECK_EQ_INT(c.seq[i], i);
		CHECK_EQ_INT(c.len[i], 4 + i * 3);
		/* consumer_pos is stored once per batch: no callback saw it move */
		CHECK_EQ_U64(c.cons_seen[i], start);
	}
	CHECK_EQ_U64(*s.cons, *s.prod);
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), 0);
	CHECK_EQ_INT(perfring_ringbuf_stats(rb, &st), 0);
	CHECK_EQ_U64(st.records, 20);
	CHECK_EQ_U64(st.bytes, *s.prod - start);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(rb_busy_ends_batch)
{
	struct rbsim s;
	struct collect c;
	struct perfring_ringbuf *rb;
	uint64_t busy_pos, p;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	collect_init(&c, &s);
	rbs_put(&s, 16, 1);
	REQUIRE(rbs_reserve(&s, 24, &busy_pos)); /* reserved, not submitted */
	rbs_put(&s, 16, 3);                      /* committed after it: must wait */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 1);
	CHECK_EQ_U64(*s.cons, busy_pos);
	/* Still busy: nothing, and no spin. */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 0);
	memcpy(s.data + (busy_pos & (SZ - 1)) + 8, &(uint32_t){ 2 }, 4);
	for (p = 4; p < 24; p++)
		s.data[(busy_pos & (SZ - 1)) + 8 + p] = (uint8_t)(2 * 7 + p);
	rbs_submit(&s, busy_pos, 24, 0);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	CHECK_EQ_INT(c.n, 3);
	CHECK_EQ_INT(c.seq[1], 2);
	CHECK_EQ_INT(c.seq[2], 3);
	CHECK_EQ_INT(c.bad, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(rb_discard_skipped)
{
	struct rbsim s;
	struct collect c;
	struct perfring_ringbuf *rb;
	uint64_t pos;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	collect_init(&c, &s);
	rbs_put(&s, 8, 1);
	REQUIRE(rbs_reserve(&s, 40, &pos));
	rbs_submit(&s, pos, 40, 1);
	rbs_put(&s, 8, 3);
	REQUIRE(rbs_reserve(&s, 16, &pos));
	rbs_submit(&s, pos, 16, 1); /* a discarded record ends the ring */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	CHECK_EQ_INT(c.seq[0], 1);
	CHECK_EQ_INT(c.seq[1], 3);
	CHECK_EQ_U64(*s.cons, *s.prod);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

/* Records across the end of the data area, at every 8-byte start offset near it. */
TEST(rb_wrap_double_mapping)
{
	uint64_t start;

	for (start = SZ - 64; start <= SZ + 8; start += 8) {
		struct rbsim s;
		struct collect c;
		struct perfring_ringbuf *rb;
		uint32_t i, total = 0;

		REQUIRE(rbs_init(&s, SZ) == 0);
		rbs_set_pos(&s, start + 5 * (uint64_t)SZ); /* positions far past one lap, too */
		rb = rbs_ring(&s, NULL);
		REQUIRE(rb);
		collect_init(&c, &s);
		for (i = 0; i < 6; i++)
			REQUIRE(rbs_put(&s, 20 + i * 8, i) != UINT64_MAX);
		CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 6);
		CHECK_EQ_INT(c.bad, 0);
		/* Fill and drain many laps with a big record straddling the end. */
		for (i = 0; i < 200; i++) {
			uint32_t len = 100 + (i * 37) % 900;

			if (rbs_put(&s, len, 1000 + i) == UINT64_MAX) {
				total += (uint32_t)perfring_ringbuf_consume(rb, 0, on_rec, &c) > 0;
				c.n = 0;
				REQUIRE(rbs_put(&s, len, 1000 + i) != UINT64_MAX);
			}
			if (c.n > 900)
				c.n = 0;
		}
		CHECK(perfring_ringbuf_consume(rb, 0, on_rec, &c) > 0);
		CHECK_EQ_INT(c.bad, 0);
		CHECK(total > 10);
		perfring_ringbuf_free(rb);
		rbs_free(&s);
	}
}

TEST(rb_budget_and_stop)
{
	struct rbsim s;
	struct collect c;
	struct perfring_ringbuf *rb;
	int i;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	collect_init(&c, &s);
	for (i = 0; i < 10; i++)
		rbs_put(&s, 12, (uint32_t)i);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 3, on_rec, &c), 3);
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 3, on_rec, &c), 3);
	c.stop_at = 7; /* the 8th record stops: it is consumed */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	c.fail_at = 8; /* an error leaves its record */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), -EIO);
	c.fail_at = -1;
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &c), 2);
	for (i = 0; i < 10; i++)
		CHECK_EQ_INT(c.seq[i], i);
	CHECK_EQ_U64(*s.cons, *s.prod);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

static void expect_corrupt(struct rbsim *s, struct perfring_ringbuf *rb, struct collect *c, int good, uint64_t at)
{
	struct perfring_ring_stats st;
	int ret, i;

	ret = perfring_ringbuf_consume(rb, 0, on_rec, c);
	CHECK_EQ_INT(ret, -PERFRING_ECORRUPT);
	CHECK_EQ_INT(c->n, good);
	CHECK_EQ_U64(perfring_ringbuf_error_offset(rb), at);
	CHECKF(strstr(perfring_errmsg(), "corrupt at position"), "%s", perfring_errmsg());
	/* The good ones were consumed; again: the same error, no spin. */
	for (i = 0; i < 3; i++)
		CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, c), -PERFRING_ECORRUPT);
	CHECK_EQ_INT(c->n, good);
	CHECK_EQ_INT(perfring_ringbuf_stats(rb, &st), 0);
	CHECK_EQ_U64(st.corrupt, 4);
	CHECK(perfring_ringbuf_discard(rb) > 0);
	CHECK_EQ_U64(*s->cons, *s->prod);
	/* A misaligned producer_pos stays corrupt after the discard. */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, c), (*s->prod & 7) ? -PERFRING_ECORRUPT : 0);
}

TEST(rb_corrupt_lengths)
{
	static const struct {
		uint32_t word;
		uint64_t adv;
	} cases[] = {
		{ 64, 32 },                /* beyond producer_pos */
		{ SZ, SZ - 64 },           /* as long as the ring */
		{ 0x3fffffffu, 64 },       /* huge, DISCARD clear */
		{ RBS_DISCARD | 0x3ffffff8u, 64 }, /* a huge discarded one */
		{ 8, 4 },                  /* producer_pos not aligned */
	};
	size_t k;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct rbsim s;
		struct collect c;
		struct perfring_ringbuf *rb;
		uint64_t bad;

		REQUIRE(rbs_init(&s, SZ) == 0);
		rbs_set_pos(&s, SZ - 16); /* the bad word near the end of the area */
		rb = rbs_ring(&s, NULL);
		REQUIRE(rb);
		collect_init(&c, &s);
		rbs_put(&s, 8, 1);
		rbs_put(&s, 16, 2);
		bad = rbs_put_raw(&s, cases[k].word, cases[k].adv);
		expect_corrupt(&s, rb, &c, 2, bad);
		perfring_ringbuf_free(rb);
		rbs_free(&s);
	}
}

TEST(rb_corrupt_positions)
{
	struct rbsim s;
	struct collect c;
	struct perfring_ringbuf *rb;

	/* A producer more than a ring ahead. */
	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	collect_init(&c, &s);
	*s.prod = 2 * SZ;
	expect_corrupt(&s, rb, &c, 0, 0);
	perfring_ringbuf_free(rb);
	rbs_free(&s);

	/* A misaligned consumer position at creation. */
	REQUIRE(rbs_init(&s, SZ) == 0);
	*s.cons = 12;
	*s.prod = 64;
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	collect_init(&c, &s);
	expect_corrupt(&s, rb, &c, 0, 12);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(rb_mem_errors)
{
	static uint64_t buf[4096];
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .lost_map_fd = 5);

	errno = 0;
	CHECK(!perfring_ringbuf_new_mem(NULL, 8192, 4096, NULL));
	CHECK_EQ_INT(errno, EINVAL);
	/* data area of 3000 bytes: not a power of two */
	CHECK(!perfring_ringbuf_new_mem(buf, 2 * 4096 + 6000, 4096, NULL));
	CHECKF(strstr(perfring_errmsg(), "power of two"), "%s", perfring_errmsg());
	CHECK(!perfring_ringbuf_new_mem((char *)buf + 4, 2 * 4096 + 2048, 4096, NULL));
	CHECK(!perfring_ringbuf_new_mem(buf, 2 * 4096 + 2048, 4096, &o));
	CHECK_EQ_INT(perfring_ringbuf_consume(NULL, 0, on_rec, NULL), -EINVAL);
	CHECK_EQ_INT(perfring_ringbuf_stats(NULL, NULL), -EINVAL);
	CHECK_EQ_INT(perfring_ringbuf_fd(NULL), -EINVAL);
	perfring_ringbuf_free(NULL);
}


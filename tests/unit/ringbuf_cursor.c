// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer's inline cursor (perfring_ringbuf_cursor_next()) against
 * perfring_ringbuf_consume(), the oracle: two in-memory rings (rbsim.h, the
 * data area mapped twice) get the same producer operations from the same
 * seed, at many start positions (records across the end of the data area,
 * positions past many laps), with BUSY records submitted later, DISCARD
 * records, batches cut short (budget vs an early commit) and corrupt length
 * words and positions; after each drain both must have delivered the same
 * records (length and payload), returned the same count or error, stored
 * the same consumer_pos and counted the same stats. Also a 2 GiB ring
 * (sparse) where a batch runs more than 2^30 bytes ahead, so that the
 * inline path's single test must still leave DISCARD words to the slow path.
 */
#include <errno.h>

#include "harness.h"
#include "unit/rbsim.h"

#define SZ 4096u
#define MAXREC 2048

struct got {
	int n;
	uint32_t len[MAXREC];
	uint64_t hash[MAXREC];
};

static uint64_t fnv(const void *data, size_t size)
{
	const uint8_t *p = data;
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int on_rec(void *ctx, const void *data, size_t size)
{
	struct got *g = ctx;

	if (g->n < MAXREC) {
		g->len[g->n] = (uint32_t)size;
		g->hash[g->n] = fnv(data, size);
	}
	g->n++;
	return PERFRING_CONTINUE;
}

/* Drain with the cursor as consume(budget) would: at most budget records
 * (0: no limit), commit. Returns the count or c.err. */
static int cursor_drain(struct perfring_ringbuf *rb, size_t budget, struct got *g)
{
	struct perfring_rb_cursor c;
	const void *d;
	uint32_t size;
	int64_t avail = perfring_ringbuf_cursor(rb, &c);
	int n = 0;

	if (avail < 0) {
		CHECK_EQ_INT(c.err, (int)avail);
		return c.err;
	}
	while ((!budget || (size_t)n < budget) && (d = perfring_ringbuf_cursor_next(&c, &size))) {
		on_rec(g, d, size);
		n++;
	}
	perfring_ringbuf_cursor_commit(rb, &c);
	/* A second commit adds nothing. */
	perfring_ringbuf_cursor_commit(rb, &c);
	return c.err ? c.err : n;
}

static uint32_t rng(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

struct pend {
	uint64_t pos[64];
	uint32_t len[64];
	int n;
};

/* One burst of producer operations from rng state *st: puts of random
 * lengths, DISCARDed records, records left BUSY (in *pd), and, when
 * corrupt, a length word that is not possible to end it. */
static void produce(struct rbsim *s, uint64_t *st, struct pend *pd, int corrupt)
{
	int i, ops = 1 + (int)(rng(st) % 24);

	for (i = 0; i < ops; i++) {
		uint32_t r = rng(st) % 16, len = rng(st) % 7 == 0 ? rng(st) % 900 : rng(st) % 90;
		uint64_t pos;

		if (r < 10) {
			if (rbs_put(s, len, rng(st)) == UINT64_MAX)
				break;
		} else if (r < 13) {
			if (!rbs_reserve(s, len, &pos))
				break;
			rbs_submit(s, pos, len, 1);
		} else if (pd->n < 64) {
			if (!rbs_reserve(s, len, &pos))
				break;
			pd->pos[pd->n] = pos;
			pd->len[pd->n++] = len;
		}
	}
	if (corrupt) {
		static const struct { uint32_t word; uint64_t adv; } bad[] = {
			{ 200, 16 },                 /* beyond producer_pos */
			{ SZ + 1, SZ - 64 },         /* longer than the ring */
			{ 0x3fffffffu, 64 },         /* huge */
			{ RBS_DISCARD | 100, 32 },   /* a DISCARD beyond producer_pos */
			{ RBS_DISCARD | (SZ * 2), 64 },
			{ 16, 4 },                   /* producer_pos not aligned */
			{ 8, SZ + 8 },               /* producer_pos more than the ring ahead */
		};
		uint32_t k = rng(st) % (uint32_t)(sizeof(bad) / sizeof(bad[0]));

		if (*s->prod - *s->cons + 64 <= s->size || bad[k].adv > s->size)
			rbs_put_raw(s, bad[k].word, bad[k].adv);
	}
}

/* Submit (or discard) some of the BUSY records, oldest first or not. */
static void submit_some(struct rbsim *s, uint64_t *st, struct pend *pd)
{
	int i, k = pd->n ? (int)(rng(st) % (uint32_t)(pd->n + 1)) : 0;

	for (i = 0; i < k; i++) {
		int j = (int)(rng(st) % (uint32_t)pd->n);

		rbs_submit(s, pd->pos[j], pd->len[j], rng(st) % 4 == 0);
		pd->pos[j] = pd->pos[pd->n - 1];
		pd->len[j] = pd->len[pd->n - 1];
		pd->n--;
	}
}

static int same_got(const struct got *a, const struct got *b)
{
	int i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n && i < MAXREC; i++)
		if (a->len[i] != b->len[i] || a->hash[i] != b->hash[i])
			return 0;
	return 1;
}

/* One scenario: start position, seed; both rings driven in lockstep. */
static void differential(uint64_t start, uint64_t seed, int *records, int *corrupts)
{
	struct rbsim s[2];
	struct perfring_ringbuf *rb[2];
	struct pend pd[2];
	uint64_t st[2], ctl = ~seed;
	int round, k;

	for (k = 0; k < 2; k++) {
		REQUIRE(rbs_init(&s[k], SZ) == 0);
		rbs_set_pos(&s[k], start);
		rb[k] = rbs_ring(&s[k], NULL);
		REQUIRE(rb[k]);
		memset(&pd[k], 0, sizeof(pd[k]));
		st[k] = seed;
	}
	for (round = 0; round < 40; round++) {
		struct got g[2];
		struct perfring_ring_stats ss[2];
		/* The drain's choices come from their own state, the same for both. */
		int corrupt = round > 5 && rng(&ctl) % 13 == 0;
		size_t budget = rng(&ctl) % 3 == 0 ? 1 + rng(&ctl) % 6 : 0;
		int ret[2];

		for (k = 0; k < 2; k++) {
			produce(&s[k], &st[k], &pd[k], corrupt);
			memset(&g[k], 0, sizeof(g[k]));
		}
		ret[0] = perfring_ringbuf_consume(rb[0], budget, on_rec, &g[0]);
		ret[1] = cursor_drain(rb[1], budget, &g[1]);
		CHECKF(ret[0] == ret[1], "start %llu seed %llu round %d: consume %d, cursor %d",
		       (unsigned long long)start, (unsigned long long)seed, round, ret[0], ret[1]);
		CHECKF(same_got(&g[0], &g[1]), "start %llu seed %llu round %d: records differ (%d vs %d)",
		       (unsigned long long)start, (unsigned long long)seed, round, g[0].n, g[1].n);
		CHECK_EQ_U64(*s[0].cons, *s[1].cons);
		CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb[0]), perfring_ringbuf_bytes_available(rb[1]));
		perfring_ringbuf_stats(rb[0], &ss[0]);
		perfring_ringbuf_stats(rb[1], &ss[1]);
		CHECK_EQ_U64(ss[0].records, ss[1].records);
		CHECK_EQ_U64(ss[0].bytes, ss[1].bytes);
		CHECK_EQ_U64(ss[0].corrupt, ss[1].corrupt);
		*records += g[0].n;
		if (ret[0] == -PERFRING_ECORRUPT) {
			(*corrupts)++;
			CHECK_EQ_U64(perfring_ringbuf_error_offset(rb[0]), perfring_ringbuf_error_offset(rb[1]));
			/* The way on: drop the rest, both; the BUSY ones went with it. */
			for (k = 0; k < 2; k++) {
				perfring_ringbuf_discard(rb[k]);
				pd[k].n = 0;
				if (*s[k].prod & 7) /* a misaligned producer: start over aligned */
					rbs_set_pos(&s[k], (*s[k].prod + 7) & ~(uint64_t)7);
			}
			if (*s[0].prod != *s[1].prod)
				break;
			/* The ring layer keeps its own consumer position: a reset
			 * of the positions needs a new ring over the same memory. */
			for (k = 0; k < 2; k++) {
				perfring_ringbuf_free(rb[k]);
				rb[k] = rbs_ring(&s[k], NULL);
				REQUIRE(rb[k]);
			}
		}
		for (k = 0; k < 2; k++)
			submit_some(&s[k], &st[k], &pd[k]);
	}
	for (k = 0; k < 2; k++) {
		perfring_ringbuf_free(rb[k]);
		rbs_free(&s[k]);
	}
}

TEST(rb_cursor_matches_consume)
{
	int records = 0, corrupts = 0;
	uint64_t seed;

	for (seed = 1; seed <= 60; seed++) {
		uint64_t start = (seed % 5 == 0 ? 0 : (SZ - 8 * (seed % 40))) + (seed % 3) * 7 * (uint64_t)SZ;

		differential(start, seed, &records, &corrupts);
	}
	/* The scenarios did exercise what they are for. */
	CHECKF(records > 2000, "only %d records compared", records);
	CHECKF(corrupts > 10, "only %d corrupt batches compared", corrupts);
}

TEST(rb_cursor_busy_discard_wrap)
{
	struct rbsim s;
	struct perfring_ringbuf *rb;
	struct perfring_rb_cursor c;
	const void *d;
	uint32_t size, seq;
	uint64_t pos, busy;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rbs_set_pos(&s, 3 * (uint64_t)SZ + SZ - 24); /* the second record crosses the end */
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	rbs_put(&s, 8, 1);
	rbs_put(&s, 100, 2); /* across the end of the data area, contiguous */
	REQUIRE(rbs_reserve(&s, 24, &pos));
	rbs_submit(&s, pos, 24, 1); /* DISCARD: skipped */
	rbs_put(&s, 4, 4);
	REQUIRE(rbs_reserve(&s, 16, &busy)); /* BUSY: ends the batch */
	rbs_put(&s, 12, 6);
	CHECK_EQ_INT((int)perfring_ringbuf_cursor(rb, &c), (int)(*s.prod - *s.cons));
	d = perfring_ringbuf_cursor_next(&c, &size);
	REQUIRE(d);
	CHECK(rbs_check(d, size, 8, 1));
	d = perfring_ringbuf_cursor_next(&c, &size);
	REQUIRE(d);
	CHECK(rbs_check(d, size, 100, 2));
	d = perfring_ringbuf_cursor_next(&c, &size);
	REQUIRE(d);
	memcpy(&seq, d, 4);
	CHECK_EQ_INT(seq, 4);
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	CHECK(!perfring_ringbuf_cursor_next(&c, &size)); /* stays ended */
	CHECK_EQ_INT(c.err, 0);
	perfring_ringbuf_cursor_commit(rb, &c);
	CHECK_EQ_U64(*s.cons, busy); /* consumed up to the BUSY record */
	rbs_submit(&s, busy, 16, 0);
	perfring_ringbuf_cursor(rb, &c);
	CHECK(perfring_ringbuf_cursor_next(&c, &size) && size == 16);
	CHECK(perfring_ringbuf_cursor_next(&c, &size) && size == 12);
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	perfring_ringbuf_cursor_commit(rb, &c);
	CHECK_EQ_U64(*s.cons, *s.prod);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

TEST(rb_cursor_corrupt_and_null)
{
	struct rbsim s;
	struct perfring_ringbuf *rb;
	struct perfring_rb_cursor c;
	uint32_t size;
	uint64_t bad;

	REQUIRE(rbs_init(&s, SZ) == 0);
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	rbs_put(&s, 8, 1);
	bad = rbs_put_raw(&s, SZ, 64); /* a length longer than the ring */
	perfring_ringbuf_cursor(rb, &c);
	CHECK(perfring_ringbuf_cursor_next(&c, &size));
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	CHECK_EQ_INT(c.err, -PERFRING_ECORRUPT);
	CHECKF(strstr(perfring_errmsg(), "longer than the ring"), "%s", perfring_errmsg());
	CHECK_EQ_U64(perfring_ringbuf_error_offset(rb), bad);
	CHECK(!perfring_ringbuf_cursor_next(&c, &size)); /* no spin, no retry */
	perfring_ringbuf_cursor_commit(rb, &c);
	CHECK_EQ_U64(*s.cons, bad); /* the record before it is consumed */
	perfring_ringbuf_discard(rb);
	perfring_ringbuf_free(rb);
	/* consumer_pos not aligned: corrupt at set-up. */
	*s.cons = *s.prod = 4;
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	CHECK_EQ_INT((int)perfring_ringbuf_cursor(rb, &c), -PERFRING_ECORRUPT);
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	perfring_ringbuf_cursor_commit(rb, &c);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
	CHECK_EQ_INT((int)perfring_ringbuf_cursor(NULL, &c), -EINVAL);
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	CHECK_EQ_INT((int)perfring_ringbuf_cursor(NULL, NULL), -EINVAL);
	perfring_ringbuf_cursor_commit(NULL, NULL);
}

TEST(rb_cursor_batch_over_2_30)
{
	struct rbsim s;
	struct perfring_ringbuf *rb;
	struct perfring_rb_cursor c;
	const void *d;
	uint32_t size;
	uint64_t pos, busy;
	const uint32_t huge = (1u << 30) - 8; /* the longest length without a flag bit */

	/* 2 GiB data area, sparse: only the headers are touched. */
	if (rbs_init(&s, (size_t)1 << 31)) {
		SKIP("cannot map a sparse 2 GiB ring twice (address space)");
		return;
	}
	rb = rbs_ring(&s, NULL);
	REQUIRE(rb);
	REQUIRE(rbs_reserve(&s, 8, &pos));
	rbs_submit(&s, pos, 8, 1);          /* DISCARD, with more than 2^30 bytes after it */
	REQUIRE(rbs_reserve(&s, huge, &pos)); /* 1 GiB, payload never touched */
	rbs_submit(&s, pos, huge, 0);
	rbs_put(&s, 16, 7);
	REQUIRE(rbs_reserve(&s, 8, &busy));
	rbs_put(&s, 16, 8);
	perfring_ringbuf_cursor(rb, &c);
	d = perfring_ringbuf_cursor_next(&c, &size);
	CHECK(d && size == huge);
	d = perfring_ringbuf_cursor_next(&c, &size);
	CHECK(d && rbs_check(d, size, 16, 7));
	CHECK(!perfring_ringbuf_cursor_next(&c, &size));
	CHECK_EQ_INT(c.err, 0);
	perfring_ringbuf_cursor_commit(rb, &c);
	CHECK_EQ_U64(*s.cons, busy);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An overwrite ring buffer read while a writer thread overwrites it flat
 * out (tests/unit/rbsim.h's overwrite producer, as the kernel's): every
 * record delivered is intact (never a torn copy), each read is newest
 * first and newer than everything read before, and every byte written is
 * accounted for: delivered or counted in dropped_bytes. Run under TSan by
 * the tsan suite ("thread" in the name).
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "harness.h"
#include "unit/rbsim.h"

struct writer {
	struct rbsim *s;
	int stop;      /* atomic */
	uint32_t seq;  /* records written (atomic once the writer has stopped) */
};

static void *write_loop(void *arg)
{
	struct writer *w = arg;
	uint32_t seq = 0;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		uint32_t len = 4 + (seq * 2654435761u) % 300;

		if (rbs_ow_put(w->s, len, seq) == UINT64_MAX)
			break; /* cannot happen: nothing stays BUSY */
		seq++;
	}
	__atomic_store_n(&w->seq, seq, __ATOMIC_RELEASE);
	return NULL;
}

struct reads {
	int bad, order, n;          /* torn payloads, out-of-order seqs, records this read */
	uint32_t prev;              /* the previous seq of this read */
	int64_t newest_before;      /* the newest seq of all earlier reads (-1: none) */
	uint32_t first;             /* this read's first (newest) seq */
	uint64_t records;
};

static int on_rec(void *ctx, const void *data, size_t size)
{
	struct reads *r = ctx;
	uint32_t seq;

	memcpy(&seq, data, 4);
	if (!rbs_check(data, size, 4 + (seq * 2654435761u) % 300, seq))
		r->bad++;
	if (r->n && seq >= r->prev)
		r->order++; /* not newest first */
	if (r->n == 0 && (int64_t)seq <= r->newest_before)
		r->order++; /* not newer than what earlier reads gave */
	if (r->n == 0)
		r->first = seq;
	r->prev = seq;
	r->n++;
	r->records++;
	return PERFRING_CONTINUE;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(ow_thread_overwrites_while_reading)
{
	struct perfring_ring_stats st;
	struct perfring_ringbuf *rb;
	struct writer w;
	struct reads r;
	struct rbsim s;
	pthread_t t;
	double end;
	int reads = 0, again = 0, ret;

	REQUIRE(rbs_init(&s, 16384) == 0);
	rb = rbs_ow_ring(&s);
	REQUIRE(rb);
	memset(&w, 0, sizeof(w));
	w.s = &s;
	memset(&r, 0, sizeof(r));
	r.newest_before = -1;
	REQUIRE(pthread_create(&t, NULL, write_loop, &w) == 0);
	end = now_s() + 0.5;
	while (now_s() < end) {
		r.n = 0;
		ret = perfring_ringbuf_consume(rb, 0, on_rec, &r);
		if (ret == -EAGAIN) { /* lapped while walking: allowed, counted */
			again++;
			continue;
		}
		CHECKF(ret >= 0, "read %d: %d %s", reads, ret, perfring_errmsg());
		if (ret < 0)
			break;
		/* This read's newest (its first) bounds the next reads. */
		if (r.n)
			r.newest_before = r.first;
		reads++;
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	/* One more record once the writer stopped: the loop's last read may
	 * have taken everything the writer wrote, and the read below must
	 * still start with a new newest record. */
	{
		uint32_t seq = __atomic_load_n(&w.seq, __ATOMIC_ACQUIRE);

		REQUIRE(rbs_ow_put(&s, 4 + (seq * 2654435761u) % 300, seq) != UINT64_MAX);
		__atomic_store_n(&w.seq, seq + 1, __ATOMIC_RELEASE);
	}
	/* What is left, read once the writer stopped: all of it, and then
	 * every byte written is delivered or dropped. */
	r.n = 0;
	ret = perfring_ringbuf_consume(rb, 0, on_rec, &r);
	CHECKF(ret >= 0, "%d %s", ret, perfring_errmsg());
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, on_rec, &r), 0);
	CHECK_EQ_INT(perfring_ringbuf_stats(rb, &st), 0);
	CHECK_EQ_INT(r.bad, 0);
	CHECK_EQ_INT(r.order, 0);
	CHECK(reads > 0);
	CHECK(r.records > 0);
	CHECK_EQ_U64(st.records, r.records);
	CHECKF(st.bytes + st.dropped_bytes == *s.prod, "delivered %llu + dropped %llu != written %llu",
	       (unsigned long long)st.bytes, (unsigned long long)st.dropped_bytes, (unsigned long long)*s.prod);
	/* The last read, writer stopped, starts with the newest record written. */
	CHECK(r.n > 0);
	CHECK_EQ_INT(r.first, __atomic_load_n(&w.seq, __ATOMIC_ACQUIRE) - 1);
	printf("# %d reads (%d lapped), %llu of %u records delivered, %llu bytes dropped\n", reads, again,
	       (unsigned long long)r.records, __atomic_load_n(&w.seq, __ATOMIC_ACQUIRE),
	       (unsigned long long)st.dropped_bytes);
	perfring_ringbuf_free(rb);
	rbs_free(&s);
}

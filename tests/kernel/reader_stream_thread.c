// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Streaming: the producer runs flat out on CPU 0 while a reader thread on
 * CPU 1 polls with a watermark and a max_delay bound. Every sequence number
 * must be accounted for: received once, in order, or reported lost by the
 * kernel, and each gap in the received sequence must be exactly the LOST
 * count reported in it.
 */
#include "ktest.h"

#define STREAM_MAX 200000u
#define STREAM_CHUNK 10000u
#define STREAM_BUDGET_NS 2000000000ull

struct stream {
	struct perfring_reader *rd;
	struct ktest_collect c;
	uint64_t gap_errors;
	uint64_t prev_seq;
	bool have_prev;
	uint64_t lost_since_prev;
	char gap_error[256];
	int polls, final_ret, pin_err;
};

/* Wraps the checking collector: also checks each gap against the LOST counts. */
static int stream_fn(const struct perfring_msg *ev, void *ctx)
{
	struct stream *st = ctx;
	uint64_t seq;

	if (ev->kind == PERFRING_MSG_LOST) {
		st->lost_since_prev += ev->lost;
	} else if (ev->kind == PERFRING_MSG_SAMPLE && ev->size + ev->size2 >= 8) {
		unsigned char b[8];
		size_t i;

		for (i = 0; i < 8; i++)
			b[i] = i < ev->size ? ((const unsigned char *)ev->data)[i] :
					      ((const unsigned char *)ev->data2)[i - ev->size];
		memcpy(&seq, b, sizeof(seq));
		/* All samples come from CPU 0: between two received ones, exactly the
		 * ones in the LOST records seen between them are missing. */
		if ((st->have_prev ? st->prev_seq + 1 : 0) + st->lost_since_prev != seq) {
			if (!st->gap_errors++)
				snprintf(st->gap_error, sizeof(st->gap_error),
					 "seq %llu after seq %llu with %llu reported lost in between",
					 (unsigned long long)seq, (unsigned long long)st->prev_seq,
					 (unsigned long long)st->lost_since_prev);
		}
		st->have_prev = true;
		st->prev_seq = seq;
		st->lost_since_prev = 0;
	}
	return ktest_collect_fn(ev, &st->c);
}

static void *reader_thread(void *arg)
{
	struct stream *st = arg;
	int ret;

	st->pin_err = ktest_pin_self(1);
	for (;;) {
		ret = perfring_reader_poll(st->rd, -1, stream_fn, st);
		st->polls++;
		if (ret < 0 && ret != -ETIMEDOUT)
			break;
	}
	st->final_ret = ret;
	return NULL;
}

TEST(stream_watermark_all_accounted)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 16,
							      .wakeup_bytes = 16384, .max_delay_ns = 2000000);
	struct ktest_counts c0, c1;
	struct stream *st;
	struct ktest kt;
	pthread_t th;
	uint64_t start, produced = 0, tries;
	int ri;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	st = calloc(1, sizeof(*st));
	REQUIRE(st);
	st->rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(st->rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&st->c, st->rd, 64);
	st->c.want_cpu = 0;
	st->c.seq_cap = STREAM_MAX + 1000;
	st->c.seqs = calloc(st->c.seq_cap, sizeof(uint64_t));
	REQUIRE(st->c.seqs);
	ktest_set_len(&kt, 64);
	c0 = ktest_counts(&kt);
	REQUIRE(pthread_create(&th, NULL, reader_thread, st) == 0);

	/* Flat out on CPU 0, for at most STREAM_MAX records or about 2 s. */
	start = ktest_now_ns();
	while (produced < STREAM_MAX && ktest_now_ns() - start < STREAM_BUDGET_NS) {
		int64_t n = ktest_produce(&kt, 0, STREAM_CHUNK);

		if (n != STREAM_CHUNK) {
			CHECKF(0, "producing: %lld", (long long)n);
			break;
		}
		produced += (uint64_t)n;
	}
	/* If the end was lost, the count only comes out with the next record
	 * that fits: write single records until one gets in. */
	for (tries = 0; tries < 100000; tries++) {
		struct ktest_counts b = ktest_counts(&kt);

		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		if (ktest_counts(&kt).ok > b.ok)
			break;
		ktest_sleep_ns(100000);
	}
	perfring_reader_flush(st->rd);
	REQUIRE(pthread_join(th, NULL) == 0);
	c1 = ktest_counts(&kt);

	CHECK_EQ_INT(st->pin_err, 0);
	CHECKF(st->final_ret == -PERFRING_EFLUSHED, "reader thread ended with %d (%s)", st->final_ret,
	       perfring_strerror(st->final_ret));
	KTEST_CHECK_COLLECT(&st->c);
	CHECKF(st->gap_errors == 0, "%llu gaps not matched by LOST counts, first: %s",
	       (unsigned long long)st->gap_errors, st->gap_error);
	CHECK_EQ_U64(c1.other - c0.other, 0);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 0);
	CHECK_EQ_U64(st->c.samples, c1.ok - c0.ok);
	CHECK_EQ_U64(st->c.lost, c1.enospc - c0.enospc);
	CHECK_EQ_U64(st->c.samples + st->c.lost, c1.seq - c0.seq);
	/* The last record produced is the last received (it got in). */
	CHECK(st->have_prev && st->prev_seq == c1.seq - 1);
	CHECK_EQ_U64(st->lost_since_prev, 0);
	/* Everything was on CPU 0's ring. */
	ri = perfring_reader_cpu_ring(st->rd, 0);
	REQUIRE(ri >= 0);
	CHECK_EQ_U64(st->c.ring[ri].samples, st->c.samples);
	printf("# %llu produced in %.2f s, %llu received, %llu lost, %d polls\n",
	       (unsigned long long)(c1.seq - c0.seq), (double)(ktest_now_ns() - start) / 1e9,
	       (unsigned long long)st->c.samples, (unsigned long long)st->c.lost, st->polls);
	perfring_reader_free(st->rd);
	free(st->c.seqs);
	free(st);
	ktest_teardown(&kt);
}

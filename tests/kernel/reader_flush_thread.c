// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_flush(): a blocked (or the next) poll drains everything
 * written before the flush, even records below the wakeup threshold that
 * the kernel never announced, then returns -PERFRING_EFLUSHED, once per
 * flush.
 */
#include <semaphore.h>

#include "ktest.h"

#define GIVE_UP_NS 5000000000ull

/* A threshold no test reaches: only a flush (or consume) brings records out. */
static struct perfring_reader *quiet_reader(struct ktest *kt)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 100000);

	return perfring_reader_new_bpf(kt->map_fd, &opts);
}

TEST(flush_thread_blocked_poll_drains)
{
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	struct ktest_call *k;
	struct ktest kt;
	uint64_t t_flush;
	int ret;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = quiet_reader(&kt);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	ktest_set_len(&kt, 80);
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_POLL, -1, true, 80) == 0);
	ktest_sleep_ns(30000000);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 10) == 10);
	REQUIRE(ktest_produce(&kt, 1, 7) == 7);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 17);
	ktest_sleep_ns(30000000);
	/* Below the threshold, without max_delay: still waiting. */
	CHECKF(__atomic_load_n(&k->calls, __ATOMIC_RELAXED) == 0, "poll returned before the flush");
	t_flush = ktest_now_ns();
	perfring_reader_flush(rd);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "blocked poll did not return within 5 s of a flush");
		return;
	}
	CHECKF(k->ret == -PERFRING_EFLUSHED, "blocked poll returned %d (%s)", k->ret, perfring_strerror(k->ret));
	CHECKF(k->t_end - t_flush < 500000000ull, "returned %.1f ms after the flush",
	       (double)(k->t_end - t_flush) / 1e6);
	CHECK_EQ_U64(k->c.samples, 17);
	CHECK_EQ_U64(k->c.ring[perfring_reader_cpu_ring(rd, 0)].samples, 10);
	CHECK_EQ_U64(k->c.ring[perfring_reader_cpu_ring(rd, 1)].samples, 7);
	CHECK_EQ_U64(k->c.ring[perfring_reader_cpu_ring(rd, 0)].last_seq, c0.seq + 9);
	CHECK_EQ_U64(k->c.ring[perfring_reader_cpu_ring(rd, 1)].last_seq, c0.seq + 16);
	KTEST_CHECK_COLLECT(&k->c);

	/* Reported once per flush. */
	ret = perfring_reader_poll(rd, 20000000ll, ktest_collect_fn, &k->c);
	CHECKF(ret == -ETIMEDOUT, "poll after the flush was reported: %d (%s)", ret, perfring_strerror(ret));

	/* A flush with nobody blocked applies to the next call. */
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 5) == 5);
	perfring_reader_flush(rd);
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_POLL, -1, true, 80) == 0);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "poll after a flush did not return within 5 s");
		return;
	}
	CHECKF(k->ret == -PERFRING_EFLUSHED, "poll after a flush returned %d (%s)", k->ret, perfring_strerror(k->ret));
	CHECK_EQ_U64(k->c.samples, 5);
	CHECK_EQ_U64(k->c.ring[perfring_reader_cpu_ring(rd, 0)].last_seq, c0.seq + 4);
	KTEST_CHECK_COLLECT(&k->c);

	/* A flush with nothing pending: -PERFRING_EFLUSHED at once, nothing delivered. */
	perfring_reader_flush(rd);
	ret = perfring_reader_poll(rd, 2000000000ll, ktest_collect_fn, &k->c);
	CHECKF(ret == -PERFRING_EFLUSHED, "poll after a flush with nothing pending: %d (%s)", ret,
	       perfring_strerror(ret));
	perfring_reader_free(rd);
	free(k);
	ktest_teardown(&kt);
}

/* perfring_reader_read() flushes the same way, one record per call. */
TEST(flush_thread_read)
{
	struct perfring_msg_buf rr;
	struct perfring_reader *rd;
	struct ktest_counts c0;
	struct ktest kt;
	int i, ret;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	rd = quiet_reader(&kt);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_set_len(&kt, 40);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	perfring_reader_flush(rd);
	for (i = 0; i < 3; i++) {
		ret = perfring_reader_read(rd, &rr, 2000000000ll);
		REQUIREF(ret == 0, "read %d after a flush: %d (%s)", i, ret, perfring_strerror(ret));
		CHECK_EQ_INT(rr.kind, PERFRING_MSG_SAMPLE);
		CHECK_EQ_U64(rr.size, ktest_padded(40));
		if (rr.size >= 8)
			CHECK_EQ_U64(*(uint64_t *)rr.data, c0.seq + (uint64_t)i);
	}
	ret = perfring_reader_read(rd, &rr, 2000000000ll);
	CHECKF(ret == -PERFRING_EFLUSHED, "read after the flushed records: %d (%s)", ret, perfring_strerror(ret));
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/*
 * Rounds of "write, flush" from this thread while a reader thread polls
 * without timeout: at each -PERFRING_EFLUSHED the reader has everything
 * written so far.
 */
struct flush_rounds {
	struct perfring_reader *rd;
	struct ktest_collect c;
	sem_t flushed;
	uint64_t delivered_at_flush; /* samples when the last EFLUSHED came */
	int end_ret;
	int stop;
};

static void *flush_reader(void *arg)
{
	struct flush_rounds *f = arg;
	int ret;

	for (;;) {
		ret = perfring_reader_poll(f->rd, -1, ktest_collect_fn, &f->c);
		if (ret == -PERFRING_EFLUSHED) {
			f->delivered_at_flush = f->c.samples;
			sem_post(&f->flushed);
			continue;
		}
		if (ret < 0)
			break;
	}
	f->end_ret = ret;
	return NULL;
}

TEST(flush_thread_rounds)
{
	struct flush_rounds *f;
	struct ktest_counts c0;
	struct ktest kt;
	pthread_t th;
	uint64_t produced = 0;
	unsigned int seed = 12345;
	int r;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	f = calloc(1, sizeof(*f));
	REQUIRE(f);
	f->rd = quiet_reader(&kt);
	REQUIREF(f->rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&f->c, f->rd, 24);
	REQUIRE(sem_init(&f->flushed, 0, 0) == 0);
	ktest_set_len(&kt, 24);
	c0 = ktest_counts(&kt);
	REQUIRE(pthread_create(&th, NULL, flush_reader, f) == 0);
	for (r = 0; r < 30; r++) {
		uint32_t n = (uint32_t)(rand_r(&seed) % 50);
		struct timespec ts;

		if (n)
			REQUIRE(ktest_produce(&kt, r % 2, n) == n);
		produced += n;
		perfring_reader_flush(f->rd);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 5;
		if (sem_timedwait(&f->flushed, &ts)) {
			CHECKF(0, "round %d: no -PERFRING_EFLUSHED within 5 s", r);
			return; /* the reader thread still runs: leak it */
		}
		CHECKF(f->delivered_at_flush == produced, "round %d: flushed with %llu of %llu delivered", r,
		       (unsigned long long)f->delivered_at_flush, (unsigned long long)produced);
	}
	perfring_reader_close(f->rd);
	pthread_join(th, NULL);
	CHECK_EQ_INT(f->end_ret, -PERFRING_ECLOSED);
	CHECK_EQ_U64(f->c.samples, ktest_counts(&kt).ok - c0.ok);
	CHECK_EQ_U64(f->c.lost, 0);
	KTEST_CHECK_COLLECT(&f->c);
	perfring_reader_free(f->rd);
	sem_destroy(&f->flushed);
	free(f);
	ktest_teardown(&kt);
}

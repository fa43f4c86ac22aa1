// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * max_delay_ns without waking while idle (reader_arm.c): a batching BPF
 * reader (a 16 KiB watermark) with a 5 ms bound, a thread polling without
 * timeout. While nothing is written it sleeps (a handful of wakeups in
 * 300 ms, where a reader that looks every bound would wake 60 times);
 * isolated records still come out promptly; a burst goes back to batching
 * and every record arrives; after pause/resume the reader is woken again.
 */
#include <sys/resource.h>

#include "ktest.h"

#define BOUND_NS 5000000ull
#define PROMPT_NS 500000000ull /* a loaded VM: well above the bound, far below never */

struct armrun {
	struct perfring_reader *rd;
	struct ktest_collect c;
	int stop;
	uint64_t t_last;    /* atomic: when the last sample was delivered */
	uint64_t delivered; /* atomic: samples delivered (c is the poller's own) */
	long nvcsw;      /* the poller's voluntary switches, sampled on request */
	int sample_req, sample_done;
};

static int count_fn(const struct perfring_msg *ev, void *ctx)
{
	struct armrun *a = ctx;
	int ret = ktest_collect_fn(ev, &a->c);

	__atomic_store_n(&a->t_last, ktest_now_ns(), __ATOMIC_RELEASE);
	if (ev->kind == PERFRING_MSG_SAMPLE)
		__atomic_add_fetch(&a->delivered, 1, __ATOMIC_RELEASE);
	return ret;
}

static void *poller(void *arg)
{
	struct armrun *a = arg;

	ktest_pin_self(1);
	while (!__atomic_load_n(&a->stop, __ATOMIC_ACQUIRE)) {
		int ret = perfring_reader_poll(a->rd, -1, count_fn, a);

		if (__atomic_load_n(&a->sample_req, __ATOMIC_ACQUIRE)) {
			struct rusage ru;

			getrusage(RUSAGE_THREAD, &ru);
			a->nvcsw = ru.ru_nvcsw;
			__atomic_store_n(&a->sample_req, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&a->sample_done, 1, __ATOMIC_RELEASE);
		}
		if (ret < 0 && ret != -PERFRING_EWOKEN)
			break;
	}
	return NULL;
}

/* The poller's voluntary context switches so far (it is woken to tell). */
static long switches(struct armrun *a)
{
	__atomic_store_n(&a->sample_done, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&a->sample_req, 1, __ATOMIC_RELEASE);
	perfring_reader_wakeup(a->rd);
	while (!__atomic_load_n(&a->sample_done, __ATOMIC_ACQUIRE))
		ktest_sleep_ns(100000);
	return a->nvcsw;
}

static bool wait_samples(struct armrun *a, uint64_t want, uint64_t limit_ns)
{
	uint64_t end = ktest_now_ns() + limit_ns;

	while (__atomic_load_n(&a->delivered, __ATOMIC_ACQUIRE) < want)
		if (ktest_now_ns() > end)
			return false;
		else
			ktest_sleep_ns(200000);
	return true;
}

TEST(arm_thread_idle_sleeps_and_bound_holds)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_bytes = 16384,
							      .max_delay_ns = BOUND_NS);
	struct armrun *a;
	struct ktest kt;
	pthread_t th;
	long s0, s1;
	uint64_t t, worst = 0, want = 0;
	int i;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	a = calloc(1, sizeof(*a));
	REQUIRE(a);
	ktest_set_len(&kt, 64);
	a->rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(a->rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&a->c, a->rd, 64);
	REQUIRE(pthread_create(&th, NULL, poller, a) == 0);

	/* Idle: after two bounds it stops looking. */
	ktest_sleep_ns(50000000);
	s0 = switches(a);
	ktest_sleep_ns(300000000);
	s1 = switches(a);
	printf("# idle 300 ms: %ld wakeups (a reader looking every bound: about 60)\n", s1 - s0);
	CHECKF(s1 - s0 < 20, "the idle reader woke %ld times in 300 ms", s1 - s0);

	/* Isolated records, 30 ms apart: each delivered promptly. */
	for (i = 0; i < 10; i++) {
		ktest_sleep_ns(30000000);
		t = ktest_now_ns();
		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		want++;
		CHECKF(wait_samples(a, want, 2000000000ull), "record %d not delivered within 2 s", i);
		if (__atomic_load_n(&a->t_last, __ATOMIC_ACQUIRE) - t > worst)
			worst = __atomic_load_n(&a->t_last, __ATOMIC_ACQUIRE) - t;
	}
	printf("# isolated records: worst delivery %.2f ms (bound %.0f ms)\n", (double)worst / 1e6,
	       (double)BOUND_NS / 1e6);
	CHECKF(worst < PROMPT_NS, "an isolated record took %.1f ms", (double)worst / 1e6);

	/* A burst: batching again, everything arrives. */
	REQUIRE(ktest_produce(&kt, 0, 3000) == 3000);
	want += 3000;
	CHECKF(wait_samples(a, want, 3000000000ull), "burst: %llu of %llu delivered",
	       (unsigned long long)__atomic_load_n(&a->delivered, __ATOMIC_ACQUIRE), (unsigned long long)want);

	/* Quiet again, paused and resumed meanwhile: a record still wakes it. */
	ktest_sleep_ns(100000000);
	CHECK_EQ_INT(perfring_reader_pause(a->rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(a->rd), 0);
	ktest_sleep_ns(30000000);
	t = ktest_now_ns();
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	want++;
	CHECKF(wait_samples(a, want, 2000000000ull), "after pause/resume: record not delivered within 2 s");
	t = __atomic_load_n(&a->t_last, __ATOMIC_ACQUIRE) - t;
	CHECKF(t < PROMPT_NS, "after pause/resume: %.1f ms", (double)t / 1e6);

	__atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
	perfring_reader_wakeup(a->rd);
	REQUIRE(pthread_join(th, NULL) == 0);
	KTEST_CHECK_COLLECT(&a->c);
	CHECK_EQ_U64(a->c.samples, want);
	CHECK_EQ_U64(a->c.lost, 0);
	perfring_reader_free(a->rd);
	free(a);
	ktest_teardown(&kt);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_close() from another thread ends a call blocked without a
 * timeout, promptly, with -PERFRING_ECLOSED; every later call says the same
 * without blocking, and the program's output stops (close pauses).
 */
#include "ktest.h"

#define PROMPT_NS 500000000ull /* generous: a noisy VM, maybe under TSan */
#define GIVE_UP_NS 5000000000ull

static void close_blocked(enum ktest_call_kind kind)
{
	static const char *names[] = { "poll", "read", "wait" };
	struct perfring_reader *rd;
	struct ktest_call *k, *later;
	struct ktest_counts c0;
	struct ktest kt;
	uint64_t t_close;
	int i;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	k = calloc(1, sizeof(*k));
	later = calloc(1, sizeof(*later));
	REQUIRE(k && later);
	REQUIRE(ktest_call_start(k, rd, kind, -1, false, 0) == 0);
	ktest_sleep_ns(50000000); /* let it block */
	t_close = ktest_now_ns();
	perfring_reader_close(rd);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "%s blocked without timeout did not return within 5 s of close", names[kind]);
		return; /* the reader is leaked: a thread still uses it */
	}
	CHECKF(k->ret == -PERFRING_ECLOSED, "blocked %s returned %d (%s)", names[kind], k->ret,
	       perfring_strerror(k->ret));
	CHECKF(k->t_end - t_close < PROMPT_NS, "blocked %s returned %.1f ms after close", names[kind],
	       (double)(k->t_end - t_close) / 1e6);
	CHECK_EQ_U64(k->c.events, 0);

	/* Later calls, blocking or not: -PERFRING_ECLOSED at once. */
	for (i = 0; i < 3; i++) {
		REQUIRE(ktest_call_start(later, rd, (enum ktest_call_kind)i, -1, false, 0) == 0);
		if (!ktest_call_join(later, GIVE_UP_NS)) {
			CHECKF(0, "%s(-1) on a closed reader blocked", names[i]);
			return;
		}
		CHECKF(later->ret == -PERFRING_ECLOSED, "%s on a closed reader: %d", names[i], later->ret);
		CHECKF(later->t_end - later->t_start < PROMPT_NS, "%s on a closed reader took %.1f ms", names[i],
		       (double)(later->t_end - later->t_start) / 1e6);
	}
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, ktest_collect_fn, &later->c), -PERFRING_ECLOSED);
	perfring_reader_close(rd); /* idempotent */
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, ktest_collect_fn, &later->c), -PERFRING_ECLOSED);

	/* Close paused output: the program finds no fd. */
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 4) == 4);
	CHECK_EQ_U64(ktest_counts(&kt).enoent - c0.enoent, 4);

	perfring_reader_free(rd);
	free(k);
	free(later);
	ktest_teardown(&kt);
}

TEST(close_thread_blocked_poll)
{
	close_blocked(KTEST_CALL_POLL);
}

TEST(close_thread_blocked_read)
{
	close_blocked(KTEST_CALL_READ);
}

TEST(close_thread_blocked_wait)
{
	close_blocked(KTEST_CALL_WAIT);
}

/* Close while a producer keeps writing and a reader keeps reading: the
 * reader ends with -PERFRING_ECLOSED, and everything it got was intact. */
struct busy_producer {
	struct ktest *kt;
	int stop;
	int64_t produced;
};

static void *produce_until_stopped(void *arg)
{
	struct busy_producer *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		int64_t n = ktest_produce(p->kt, 0, 200);

		if (n < 0)
			break;
		p->produced += n;
	}
	return NULL;
}

TEST(close_thread_while_streaming)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 16,
							      .max_delay_ns = 1000000);
	struct busy_producer prod = { 0 };
	struct perfring_reader *rd;
	struct ktest_call *k;
	pthread_t th;
	struct ktest kt;
	uint64_t t_close;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	ktest_set_len(&kt, 64);
	prod.kt = &kt;
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_POLL, -1, true, 64) == 0);
	REQUIRE(pthread_create(&th, NULL, produce_until_stopped, &prod) == 0);
	ktest_sleep_ns(200000000);
	t_close = ktest_now_ns();
	perfring_reader_close(rd);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "the reading thread did not return within 5 s of close");
		__atomic_store_n(&prod.stop, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		return;
	}
	__atomic_store_n(&prod.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	CHECKF(k->ret == -PERFRING_ECLOSED, "reading thread ended with %d (%s)", k->ret, perfring_strerror(k->ret));
	CHECKF(k->t_end - t_close < PROMPT_NS, "returned %.1f ms after close", (double)(k->t_end - t_close) / 1e6);
	CHECK(k->c.samples > 0);
	CHECK(prod.produced > 0);
	CHECK(k->c.samples + k->c.lost <= (uint64_t)prod.produced);
	KTEST_CHECK_COLLECT(&k->c);
	perfring_reader_free(rd);
	free(k);
	ktest_teardown(&kt);
}

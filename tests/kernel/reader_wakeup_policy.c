// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Wakeup policies. With wakeup_events = N or a watermark, the kernel wakes
 * the reader only at the threshold: records below it are never announced.
 * max_delay_ns bounds how long they wait: a blocked poll delivers them
 * anyway. Without it they wait (here: a 100 ms poll is not woken for them),
 * but perfring_reader_consume() finds them.
 */
#include "ktest.h"

#define PROMPT_NS 1000000000ull /* "promptly" on a noisy VM: far below the 3 s timeout */

struct waiter {
	struct perfring_reader *rd;
	struct ktest_collect c;
	uint64_t want;
	int ret, started;
	uint64_t t_done;
};

static void *wait_for_records(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	w->ret = ktest_poll_until(w->rd, &w->c, w->want, 3000000000ull);
	w->t_done = ktest_now_ns();
	return NULL;
}

/* A poll blocked before n records are written must deliver them promptly. */
static void check_prompt(struct ktest *kt, struct perfring_reader *rd, uint32_t n, const char *what)
{
	struct waiter *w = calloc(1, sizeof(*w));
	uint64_t t_prod;
	pthread_t th;

	REQUIRE(w);
	w->rd = rd;
	w->want = n;
	ktest_collect_init(&w->c, rd, 64);
	w->c.want_cpu = 0;
	REQUIRE(pthread_create(&th, NULL, wait_for_records, w) == 0);
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE))
		ktest_sleep_ns(100000);
	ktest_sleep_ns(20000000); /* blocked by now */
	REQUIRE(ktest_produce(kt, 0, n) == n);
	t_prod = ktest_now_ns();
	REQUIRE(pthread_join(th, NULL) == 0);
	CHECKF(w->ret == 0, "%s: %u records: poll loop ended with %d (%s) after %llu samples", what, n, w->ret,
	       perfring_strerror(w->ret), (unsigned long long)w->c.samples);
	CHECK_EQ_U64(w->c.samples, n);
	CHECKF(w->t_done < t_prod + PROMPT_NS, "%s: %u records delivered %.1f ms after they were written", what, n,
	       ((double)w->t_done - (double)t_prod) / 1e6);
	KTEST_CHECK_COLLECT(&w->c);
	free(w);
}

/* Records written below the threshold while a 100 ms poll blocks do not end
 * it early; consume() then has them all. */
static void check_not_woken(struct ktest *kt, struct perfring_reader *rd, uint32_t n, const char *what)
{
	struct ktest_call *k = calloc(1, sizeof(*k));
	uint64_t in_poll;
	int ret;

	REQUIRE(k);
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_POLL, 100000000ll, false, 64) == 0);
	ktest_sleep_ns(20000000);
	REQUIRE(ktest_produce(kt, 0, n) == n);
	REQUIRE(ktest_call_join(k, 5000000000ull));
	CHECKF(k->t_end - k->t_start >= 100000000ull, "%s: %u records below the threshold ended a 100 ms poll after "
	       "%.1f ms", what, n, (double)(k->t_end - k->t_start) / 1e6);
	/* Either reported as a timeout, or drained when the timeout passed. */
	CHECKF(k->ret == -ETIMEDOUT || k->ret == (int)n, "%s: 100 ms poll returned %d (%s)", what, k->ret,
	       perfring_strerror(k->ret));
	in_poll = k->c.samples;
	ret = perfring_reader_consume(rd, ktest_collect_fn, &k->c);
	CHECK_EQ_INT(ret, (int)(n - in_poll));
	CHECK_EQ_U64(k->c.samples, n);
	KTEST_CHECK_COLLECT(&k->c);
	printf("# %s: the 100 ms poll returned %d after %.1f ms\n", what, k->ret,
	       (double)(k->t_end - k->t_start) / 1e6);
	free(k);
}

static struct perfring_reader *policy_reader(struct ktest *kt, uint32_t events, uint32_t bytes, uint64_t delay)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = events,
							      .wakeup_bytes = bytes, .max_delay_ns = delay);
	struct perfring_reader *rd = perfring_reader_new_bpf(kt->map_fd, &opts);

	if (!rd)
		fprintf(stderr, "perfring_reader_new_bpf: %s\n", perfring_errmsg());
	return rd;
}

TEST(policy_events_max_delay)
{
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	uint64_t t0;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 64);
	rd = policy_reader(&kt, 64, 0, 5000000);
	REQUIRE(rd);
	/* Written before the poll starts. */
	REQUIRE(ktest_produce(&kt, 0, 10) == 10);
	ktest_collect_init(&c, rd, 64);
	t0 = ktest_now_ns();
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 10, 3000000000ull), 0);
	CHECK_EQ_U64(c.samples, 10);
	CHECKF(ktest_now_ns() - t0 < PROMPT_NS, "10 pending records took %.1f ms",
	       (double)(ktest_now_ns() - t0) / 1e6);
	KTEST_CHECK_COLLECT(&c);
	/* Written while it blocks. */
	check_prompt(&kt, rd, 10, "wakeup_events 64, max_delay 5 ms");
	check_prompt(&kt, rd, 1, "wakeup_events 64, max_delay 5 ms");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

TEST(policy_events_no_delay)
{
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 64);
	rd = policy_reader(&kt, 64, 0, 0);
	REQUIRE(rd);
	/* The threshold itself wakes it: the 64th record (had it been crossed
	 * earlier in the batch, the rest would sit below the next threshold). */
	check_prompt(&kt, rd, 64, "wakeup_events 64 reached");
	/* The count starts again: 10 are below it. */
	check_not_woken(&kt, rd, 10, "wakeup_events 64, no max_delay");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* 80-byte records: 10 are 800 bytes, below a 4 KiB watermark; 60 pass it. */
TEST(policy_watermark_max_delay)
{
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 64);
	rd = policy_reader(&kt, 0, 4096, 5000000);
	REQUIRE(rd);
	check_prompt(&kt, rd, 10, "watermark 4096, max_delay 5 ms");
	check_prompt(&kt, rd, 60, "watermark 4096, max_delay 5 ms");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

TEST(policy_watermark_no_delay)
{
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 64);
	rd = policy_reader(&kt, 0, 4096, 0);
	REQUIRE(rd);
	/* The kernel wakes once more than 4096 bytes were written since the
	 * last wakeup point: the last of these records crosses it. */
	check_prompt(&kt, rd, (uint32_t)(4096 / ktest_record_size(64) + 1), "watermark 4096 reached");
	/* The next wakeup point is 4096 bytes on: 10 more stay below it. */
	check_not_woken(&kt, rd, 10, "watermark 4096, no max_delay");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* The default, one wakeup per record: a single record ends a blocked poll. */
TEST(policy_default_every_record)
{
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 64);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	check_prompt(&kt, rd, 1, "default policy");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/*
 * Records already in the ring when a call starts wait for the threshold as
 * well (cilium's Read does the same): one record below it and a timeout
 * give -ETIMEDOUT with nothing; the record that reaches it brings out both;
 * a flush or the deadline brings out one. rb->events of the kernel counts
 * on across our drains, so the steps below keep its count in mind.
 */
static void poll_expect(struct perfring_reader *rd, int64_t timeout_ns, int want_ret, uint64_t want_samples,
			const char *what)
{
	struct ktest_collect c;
	int ret;

	ktest_collect_init(&c, rd, 0);
	c.want_cpu = 0;
	ret = perfring_reader_poll(rd, timeout_ns, ktest_collect_fn, &c);
	CHECKF(ret == want_ret, "%s: poll returned %d (%s), expected %d (%s)", what, ret, perfring_strerror(ret),
	       want_ret, perfring_strerror(want_ret));
	CHECKF(c.samples == want_samples, "%s: %llu records delivered, expected %llu", what,
	       (unsigned long long)c.samples, (unsigned long long)want_samples);
	KTEST_CHECK_COLLECT(&c);
}

static void read_expect(struct perfring_reader *rd, int64_t timeout_ns, int want_ret, const char *what)
{
	struct perfring_msg_buf b;
	int ret;

	memset(&b, 0, sizeof(b));
	ret = perfring_reader_read(rd, &b, timeout_ns);
	CHECKF(ret == want_ret, "%s: read returned %d (%s), expected %d (%s)", what, ret, perfring_strerror(ret),
	       want_ret, perfring_strerror(want_ret));
	if (ret == 0)
		CHECKF(b.kind == PERFRING_MSG_SAMPLE && b.cpu == 0, "%s: read gave kind %d cpu %d", what, (int)b.kind,
		       b.cpu);
	perfring_msg_buf_release(&b);
}

#define SHORT_NS 60000000ll /* a poll that must time out */

/* One record below the threshold, then the one that reaches it. */
static void check_pending_waits(struct ktest *kt, struct perfring_reader *rd, const char *what)
{
	char step[160];

	REQUIRE(ktest_produce(kt, 0, 1) == 1);
	snprintf(step, sizeof(step), "%s: one record below the threshold", what);
	poll_expect(rd, SHORT_NS, -ETIMEDOUT, 0, step);
	poll_expect(rd, 0, -ETIMEDOUT, 0, step);
	CHECK_EQ_INT(perfring_reader_wait(rd, SHORT_NS), -ETIMEDOUT);
	REQUIRE(ktest_produce(kt, 0, 1) == 1);
	snprintf(step, sizeof(step), "%s: the second record reaches it", what);
	poll_expect(rd, 1000000000ll, 2, 2, step);
	/* Below the threshold again: a flush brings it out. */
	REQUIRE(ktest_produce(kt, 0, 1) == 1);
	snprintf(step, sizeof(step), "%s: one record, then a flush", what);
	poll_expect(rd, SHORT_NS, -ETIMEDOUT, 0, step);
	perfring_reader_flush(rd);
	poll_expect(rd, -1, -PERFRING_EFLUSHED, 1, step);
}

TEST(policy_threshold_holds_pending_records)
{
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	ktest_set_len(&kt, 24); /* 40-byte records */
	rd = policy_reader(&kt, 2, 0, 0);
	REQUIRE(rd);
	check_pending_waits(&kt, rd, "wakeup_events 2");
	/* The kernel counted 1 (the flushed one): even it out. */
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	poll_expect(rd, 1000000000ll, 1, 1, "wakeup_events 2: the kernel's count reached 2");
	/* The copy-out path waits too. */
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	read_expect(rd, SHORT_NS, -ETIMEDOUT, "read, one record below the threshold");
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	read_expect(rd, 1000000000ll, 0, "read, threshold reached (1st)");
	read_expect(rd, 1000000000ll, 0, "read, threshold reached (2nd)");
	read_expect(rd, 0, -ETIMEDOUT, "read, nothing left");
	/* A passed deadline brings out what waits, then reports itself. */
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	poll_expect(rd, SHORT_NS, -ETIMEDOUT, 0, "deadline: before it");
	perfring_reader_set_deadline(rd, ktest_now_ns());
	poll_expect(rd, -1, 1, 1, "deadline passed: the waiting record");
	poll_expect(rd, -1, -ETIMEDOUT, 0, "deadline passed: reported");
	perfring_reader_set_deadline(rd, 0);
	perfring_reader_free(rd);

	/* A watermark: 40 bytes wait below 64, 80 pass it. */
	rd = policy_reader(&kt, 0, 64, 0);
	REQUIRE(rd);
	check_pending_waits(&kt, rd, "wakeup_bytes 64");
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

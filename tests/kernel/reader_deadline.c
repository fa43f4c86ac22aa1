// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Timeouts and deadlines: pending records are delivered before a passed
 * deadline is reported; an idle call returns -ETIMEDOUT no earlier than
 * asked, with sub-millisecond precision (a 1.5 ms timeout is not 1 ms), and
 * not much later (bounds generous for a noisy VM).
 */
#include "ktest.h"

#define LATE_NS 250000000ull /* upper bound on lateness: a noisy VM */

TEST(deadline_past_delivers_pending_first)
{
	struct perfring_msg_buf rr;
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest_counts c0;
	struct ktest kt;
	uint64_t t0;
	int ret;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 32);
	ktest_set_len(&kt, 32);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	perfring_reader_set_deadline(rd, ktest_now_ns() - 1000000);

	t0 = ktest_now_ns();
	ret = perfring_reader_poll(rd, -1, ktest_collect_fn, &c);
	CHECKF(ret == 5, "poll with a passed deadline and 5 records pending: %d (%s)", ret, perfring_strerror(ret));
	CHECK_EQ_U64(c.samples, 5);
	ret = perfring_reader_poll(rd, -1, ktest_collect_fn, &c);
	CHECKF(ret == -ETIMEDOUT, "next poll: %d (%s)", ret, perfring_strerror(ret));
	CHECKF(ktest_now_ns() - t0 < LATE_NS, "took %.1f ms", (double)(ktest_now_ns() - t0) / 1e6);
	KTEST_CHECK_COLLECT(&c);

	/* The same through read(), one record at a time. */
	REQUIRE(ktest_produce(&kt, 0, 2) == 2);
	for (int i = 0; i < 2; i++) {
		ret = perfring_reader_read(rd, &rr, -1);
		CHECKF(ret == 0, "read %d with a passed deadline and records pending: %d (%s)", i, ret,
		       perfring_strerror(ret));
		if (ret == 0 && rr.size >= 8)
			CHECK_EQ_U64(*(uint64_t *)rr.data, c0.seq + 5 + (uint64_t)i);
	}
	ret = perfring_reader_read(rd, &rr, -1);
	CHECKF(ret == -ETIMEDOUT, "read with nothing left: %d (%s)", ret, perfring_strerror(ret));
	ret = perfring_reader_wait(rd, -1);
	CHECKF(ret == -ETIMEDOUT, "wait with nothing left: %d (%s)", ret, perfring_strerror(ret));

	/* Cleared: poll(0) does not block and says -ETIMEDOUT. */
	perfring_reader_set_deadline(rd, 0);
	t0 = ktest_now_ns();
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, ktest_collect_fn, &c), -ETIMEDOUT);
	CHECKF(ktest_now_ns() - t0 < LATE_NS, "poll(0) took %.1f ms", (double)(ktest_now_ns() - t0) / 1e6);
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* Idle calls: never early, never very late, below a millisecond too. */
TEST(deadline_idle_precision)
{
	static const int64_t waits[] = { 2000000, 1500000, 300000, 2700000, 1000000 };
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	size_t i;
	int rep, ret;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 0);
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		for (rep = 0; rep < 10; rep++) {
			uint64_t t0 = ktest_now_ns(), el, dl;

			/* A timeout. */
			ret = perfring_reader_poll(rd, waits[i], ktest_collect_fn, &c);
			el = ktest_now_ns() - t0;
			CHECKF(ret == -ETIMEDOUT, "poll(%lld ns): %d", (long long)waits[i], ret);
			CHECKF(el >= (uint64_t)waits[i] && el < (uint64_t)waits[i] + LATE_NS,
			       "poll(%.3f ms) returned after %.3f ms", waits[i] / 1e6, el / 1e6);
			if (el < (uint64_t)waits[i])
				break;

			/* wait() and read() use the same clock. */
			t0 = ktest_now_ns();
			ret = perfring_reader_wait(rd, waits[i]);
			el = ktest_now_ns() - t0;
			CHECKF(ret == -ETIMEDOUT && el >= (uint64_t)waits[i] && el < (uint64_t)waits[i] + LATE_NS,
			       "wait(%.3f ms): %d after %.3f ms", waits[i] / 1e6, ret, el / 1e6);

			/* A deadline with no timeout: returns once CLOCK_MONOTONIC is past it. */
			dl = ktest_now_ns() + (uint64_t)waits[i];
			perfring_reader_set_deadline(rd, dl);
			ret = perfring_reader_poll(rd, -1, ktest_collect_fn, &c);
			el = ktest_now_ns();
			perfring_reader_set_deadline(rd, 0);
			CHECKF(ret == -ETIMEDOUT, "poll with a deadline %.3f ms ahead: %d", waits[i] / 1e6, ret);
			CHECKF(el >= dl && el < dl + LATE_NS, "deadline %.3f ms ahead: returned %+.3f ms from it",
			       waits[i] / 1e6, ((double)el - (double)dl) / 1e6);
			if (el < dl)
				break;
		}
	}
	CHECK_EQ_U64(c.events, 0);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* With both a timeout and a deadline, the earlier ends the call. */
TEST(deadline_earlier_of_timeout_and_deadline)
{
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	uint64_t t0, dl;
	int ret;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 0);

	/* Deadline first. */
	t0 = ktest_now_ns();
	dl = t0 + 5000000;
	perfring_reader_set_deadline(rd, dl);
	ret = perfring_reader_poll(rd, 3000000000ll, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, -ETIMEDOUT);
	CHECKF(ktest_now_ns() >= dl, "returned before the deadline");
	CHECKF(ktest_now_ns() - t0 < 1000000000ull, "a 5 ms deadline with a 3 s timeout took %.1f ms",
	       (double)(ktest_now_ns() - t0) / 1e6);

	/* Timeout first. */
	t0 = ktest_now_ns();
	perfring_reader_set_deadline(rd, t0 + 3000000000ull);
	ret = perfring_reader_poll(rd, 5000000, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, -ETIMEDOUT);
	CHECKF(ktest_now_ns() - t0 >= 5000000ull, "a 5 ms timeout returned after %.3f ms",
	       (double)(ktest_now_ns() - t0) / 1e6);
	CHECKF(ktest_now_ns() - t0 < 1000000000ull, "a 5 ms timeout with a 3 s deadline took %.1f ms",
	       (double)(ktest_now_ns() - t0) / 1e6);
	perfring_reader_set_deadline(rd, 0);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Interrupting a blocked call from another thread: perfring_reader_wakeup()
 * makes it return -PERFRING_EWOKEN (once), and perfring_reader_set_deadline()
 * applies at once to a call already blocked.
 */
#include "ktest.h"

#define PROMPT_NS 500000000ull
#define GIVE_UP_NS 5000000000ull

static const char *call_names[] = { "poll", "read", "wait" };

static void wakeup_blocked(enum ktest_call_kind kind)
{
	struct perfring_reader *rd;
	struct ktest_call *k;
	struct ktest kt;
	uint64_t t_wake;
	int ret;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	REQUIRE(ktest_call_start(k, rd, kind, -1, false, 0) == 0);
	ktest_sleep_ns(50000000);
	CHECKF(__atomic_load_n(&k->calls, __ATOMIC_ACQUIRE) == 0, "%s(-1) returned with nothing to do",
	       call_names[kind]);
	t_wake = ktest_now_ns();
	perfring_reader_wakeup(rd);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "blocked %s did not return within 5 s of a wakeup", call_names[kind]);
		return;
	}
	CHECKF(k->ret == -PERFRING_EWOKEN, "blocked %s returned %d (%s)", call_names[kind], k->ret,
	       perfring_strerror(k->ret));
	CHECKF(k->t_end - t_wake < PROMPT_NS, "returned %.1f ms after the wakeup", (double)(k->t_end - t_wake) / 1e6);

	/* Reported once: the next call times out normally, after its timeout. */
	ret = perfring_reader_poll(rd, 20000000ll, ktest_collect_fn, &k->c);
	CHECKF(ret == -ETIMEDOUT, "poll after the wakeup was reported: %d (%s)", ret, perfring_strerror(ret));

	/* And the reader still works. */
	ktest_collect_init(&k->c, rd, 64);
	ktest_set_len(&kt, 64);
	REQUIRE(ktest_produce(&kt, 0, 2) == 2);
	CHECK_EQ_INT(ktest_poll_until(rd, &k->c, 2, 5000000000ull), 0);
	CHECK_EQ_U64(k->c.samples, 2);
	KTEST_CHECK_COLLECT(&k->c);
	perfring_reader_free(rd);
	free(k);
	ktest_teardown(&kt);
}

TEST(wakeup_thread_blocked_poll)
{
	wakeup_blocked(KTEST_CALL_POLL);
}

TEST(wakeup_thread_blocked_read)
{
	wakeup_blocked(KTEST_CALL_READ);
}

TEST(wakeup_thread_blocked_wait)
{
	wakeup_blocked(KTEST_CALL_WAIT);
}

/* A deadline set from another thread ends a poll blocked without timeout
 * when it passes, not before. */
TEST(deadline_thread_set_while_blocked)
{
	struct perfring_reader *rd;
	struct ktest_call *k;
	struct ktest kt;
	uint64_t deadline;
	int ret;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_POLL, -1, false, 0) == 0);
	ktest_sleep_ns(50000000);
	deadline = ktest_now_ns() + 30000000;
	perfring_reader_set_deadline(rd, deadline);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "poll blocked without timeout ignored a deadline set while it waited");
		return;
	}
	CHECKF(k->ret == -ETIMEDOUT, "poll returned %d (%s)", k->ret, perfring_strerror(k->ret));
	CHECKF(k->t_end >= deadline, "returned %.3f ms before the deadline", (double)(deadline - k->t_end) / 1e6);
	CHECKF(k->t_end - deadline < PROMPT_NS, "returned %.1f ms after the deadline",
	       (double)(k->t_end - deadline) / 1e6);

	/* A deadline in the past, set while blocked: returns at once. */
	perfring_reader_set_deadline(rd, 0);
	REQUIRE(ktest_call_start(k, rd, KTEST_CALL_WAIT, -1, false, 0) == 0);
	ktest_sleep_ns(30000000);
	CHECKF(__atomic_load_n(&k->calls, __ATOMIC_ACQUIRE) == 0, "wait(-1) returned after the deadline was cleared");
	deadline = ktest_now_ns();
	perfring_reader_set_deadline(rd, deadline - 1000000);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "wait blocked without timeout ignored a past deadline set while it waited");
		return;
	}
	CHECKF(k->ret == -ETIMEDOUT, "wait returned %d (%s)", k->ret, perfring_strerror(k->ret));
	CHECKF(k->t_end - deadline < PROMPT_NS, "returned %.1f ms after a past deadline was set",
	       (double)(k->t_end - deadline) / 1e6);

	/* Cleared again: the poll's own timeout governs. */
	perfring_reader_set_deadline(rd, 0);
	deadline = ktest_now_ns();
	ret = perfring_reader_poll(rd, 20000000ll, ktest_collect_fn, &k->c);
	CHECK_EQ_INT(ret, -ETIMEDOUT);
	CHECKF(ktest_now_ns() - deadline >= 20000000ull, "a 20 ms poll returned after %.3f ms",
	       (double)(ktest_now_ns() - deadline) / 1e6);
	perfring_reader_free(rd);
	free(k);
	ktest_teardown(&kt);
}

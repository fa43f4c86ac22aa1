// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * reader.h promises that perfring_reader_wakeup(), _flush() and
 * _set_deadline() are async-signal-safe. Each is called here from a signal
 * handler (SIGUSR1 raised in the test thread, SIGALRM from an interval
 * timer) while another thread, with those signals blocked, is blocked in
 * poll/read/wait without timeout; the blocked call must return the code of
 * what the handler did: -PERFRING_EWOKEN, -PERFRING_EFLUSHED, -ETIMEDOUT.
 */
#include <signal.h>
#include <sys/time.h>

#include "ktest.h"

#define GIVE_UP_NS 5000000000ull

enum action { ACT_WAKEUP, ACT_FLUSH, ACT_DEADLINE };

static struct perfring_reader *volatile g_rd;
static volatile sig_atomic_t g_action;
static volatile sig_atomic_t g_fired;

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	switch (g_action) {
	case ACT_WAKEUP:
		perfring_reader_wakeup(g_rd);
		break;
	case ACT_FLUSH:
		perfring_reader_flush(g_rd);
		break;
	case ACT_DEADLINE: {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
		perfring_reader_set_deadline(g_rd, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
		break;
	}
	}
	g_fired = 1;
	errno = saved;
}

static void from_handler(enum ktest_call_kind kind, enum action act, int sig, int want)
{
	struct sigaction sa;
	struct ktest_call *k;
	sigset_t block, old;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	g_rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(g_rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	REQUIRE(sigaction(sig, &sa, NULL) == 0);
	g_action = act;
	g_fired = 0;
	k = calloc(1, sizeof(*k));
	REQUIRE(k);

	/* The blocked thread inherits a mask without sig: the handler runs in
	 * this thread, as it would in a program's main thread. */
	sigemptyset(&block);
	sigaddset(&block, sig);
	REQUIRE(pthread_sigmask(SIG_BLOCK, &block, &old) == 0);
	REQUIRE(ktest_call_start(k, g_rd, kind, -1, false, 0) == 0);
	REQUIRE(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0);
	ktest_sleep_ns(30000000);
	CHECKF(__atomic_load_n(&k->calls, __ATOMIC_ACQUIRE) == 0, "the call returned with nothing to do");

	if (sig == SIGALRM) {
		struct itimerval it = { .it_value = { .tv_usec = 20000 } };

		REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
		while (!g_fired)
			ktest_sleep_ns(1000000);
	} else {
		raise(sig);
	}
	CHECK(g_fired);
	if (!ktest_call_join(k, GIVE_UP_NS)) {
		CHECKF(0, "the blocked call did not return within 5 s of the handler");
		return; /* thread left running: leak the reader */
	}
	CHECKF(k->ret == want, "returned %d (%s), want %d (%s)", k->ret, perfring_strerror(k->ret), want,
	       perfring_strerror(want));
	signal(sig, SIG_DFL);
	perfring_reader_free(g_rd);
	g_rd = NULL;
	free(k);
	ktest_teardown(&kt);
}

TEST(signal_wakeup_poll)
{
	from_handler(KTEST_CALL_POLL, ACT_WAKEUP, SIGUSR1, -PERFRING_EWOKEN);
}

TEST(signal_wakeup_read)
{
	from_handler(KTEST_CALL_READ, ACT_WAKEUP, SIGALRM, -PERFRING_EWOKEN);
}

TEST(signal_flush_wait)
{
	from_handler(KTEST_CALL_WAIT, ACT_FLUSH, SIGUSR1, -PERFRING_EFLUSHED);
}

TEST(signal_flush_poll)
{
	from_handler(KTEST_CALL_POLL, ACT_FLUSH, SIGALRM, -PERFRING_EFLUSHED);
}

TEST(signal_deadline_poll)
{
	from_handler(KTEST_CALL_POLL, ACT_DEADLINE, SIGALRM, -ETIMEDOUT);
}

TEST(signal_deadline_read)
{
	from_handler(KTEST_CALL_READ, ACT_DEADLINE, SIGUSR1, -ETIMEDOUT);
}

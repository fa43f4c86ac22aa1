// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The external event loop pattern reader.h documents: the reader's epoll
 * fd sits in the program's own epoll instance (here with a timerfd that
 * ends the loop); the loop waits with a timeout of max_delay and calls
 * perfring_reader_consume() after every wait, readable or not, until it
 * returns 0. The epoll fd is readable only once per kernel wakeup, so
 * records below the wakeup threshold, and records left by a callback that
 * stopped early, would be stranded by a loop that consumed only when the
 * fd was readable; with the pattern every record arrives.
 */
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "ktest.h"

#define MAX_DELAY_MS 10

struct stopper {
	struct ktest_collect c;
	int stop_every; /* return PERFRING_STOP after this many records in one call */
	int in_call;
	int stops;
};

static int stop_early_fn(const struct perfring_msg *ev, void *ctx)
{
	struct stopper *s = ctx;
	int ret = ktest_collect_fn(ev, &s->c);

	if (ret != PERFRING_CONTINUE)
		return ret;
	if (++s->in_call >= s->stop_every) {
		s->stops++;
		return PERFRING_STOP;
	}
	return PERFRING_CONTINUE;
}

/* One round of the program's loop: wait, then drain (bounded per call by
 * the early stop, until consume says there is nothing more). */
static int loop_until_timer(int ep, int tfd, struct perfring_reader *rd, struct stopper *s, bool drain_always)
{
	for (;;) {
		struct epoll_event evs[4];
		bool timer = false, reader = false;
		int i, n = epoll_wait(ep, evs, 4, MAX_DELAY_MS);

		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd == tfd)
				timer = true;
			else
				reader = true;
		}
		if (reader || drain_always) {
			int got;

			do {
				s->in_call = 0;
				got = perfring_reader_consume(rd, stop_early_fn, s);
				if (got < 0)
					return got;
			} while (got > 0 && drain_always);
		}
		if (timer)
			return 0;
	}
}

static void external_loop(bool drain_always, uint64_t *got_samples, int *stops, uint32_t produce)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 1000,
							       .max_delay_ns = MAX_DELAY_MS * 1000000ull);
	struct itimerspec its = { .it_value = { .tv_nsec = 300000000 } };
	struct epoll_event ev = { .events = EPOLLIN };
	struct perfring_reader *rd;
	struct stopper s;
	struct ktest kt;
	int ep, tfd;

	*got_samples = 0;
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	REQUIRE(ep >= 0 && tfd >= 0);
	ev.data.fd = perfring_reader_epoll_fd(rd);
	REQUIRE(epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev) == 0);
	ev.data.fd = tfd;
	REQUIRE(epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) == 0);

	memset(&s, 0, sizeof(s));
	ktest_collect_init(&s.c, rd, 0);
	s.stop_every = 5;
	/* Below the wakeup threshold (1000): the kernel never wakes the reader. */
	REQUIRE(ktest_produce(&kt, 0, produce) == produce);
	REQUIRE(timerfd_settime(tfd, 0, &its, NULL) == 0);
	CHECK_EQ_INT(loop_until_timer(ep, tfd, rd, &s, drain_always), 0);
	KTEST_CHECK_COLLECT(&s.c);
	*got_samples = s.c.samples;
	*stops = s.stops;
	close(tfd);
	close(ep);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* The documented pattern receives every record, below the threshold and
 * past early stops. */
TEST(external_loop_gets_everything)
{
	uint64_t got;
	int stops;

	external_loop(true, &got, &stops, 23);
	CHECK_EQ_U64(got, 23);
	CHECKF(stops >= 4, "the callback stopped early only %d times", stops);
}

/* The reason for the pattern: consuming only when the fd is readable
 * strands them (the fd never becomes readable below the threshold). */
TEST(external_loop_readable_only_strands)
{
	uint64_t got;
	int stops;

	external_loop(false, &got, &stops, 23);
	CHECKF(got < 23, "got all %llu records without the pattern: the header's warning is wrong",
	       (unsigned long long)got);
}

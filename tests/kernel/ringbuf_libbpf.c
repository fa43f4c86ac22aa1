// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf's ring_buffer API ported by renaming, against a real BPF ring
 * buffer (bpf/rb_producer.bpf.c under BPF_PROG_TEST_RUN):
 * perfring_reader_new_ring_buffer() takes a handler of libbpf's exact
 * ring_buffer_sample_fn type, and perfring_reader_poll_ms(),
 * _consume_cb() and _consume_cb_n() return what ring_buffer__poll(),
 * __consume() and __consume_n() return: records consumed, 0 on timeout,
 * -EINTR for a signal, a callback's negative value (its record consumed,
 * the rest left for the next call; positive values go on).
 */
#include <signal.h>
#include <sys/epoll.h>
#include <sys/time.h>

#include "rbtest.h"

/* The handler type is libbpf's, not merely convertible. */
_Static_assert(__builtin_types_compatible_p(ring_buffer_sample_fn, perfring_rb_sample_fn),
	       "perfring_rb_sample_fn is libbpf's ring_buffer_sample_fn");

struct port_seen {
	struct rb_collect c;
	int calls;
	int fail_at; /* > 0: return fail_ret from this call on... once */
	int fail_ret;
	int ret;     /* the return value otherwise (libbpf goes on for >= 0) */
};

static int handle_event(void *ctx, void *data, size_t size)
{
	struct port_seen *s = ctx;

	if (++s->calls == s->fail_at)
		return s->fail_ret;
	rb_collect_sample(&s->c, data, size, false, 0);
	return s->ret;
}

static void seen_init(struct port_seen *s, uint64_t max_seq)
{
	memset(s, 0, sizeof(*s));
	rb_collect_init(&s->c, max_seq, 0);
}

/* poll_ms until want records (at most 50 polls); returns their sum or the first error. */
static int poll_until(struct perfring_reader *rd, int want)
{
	int got = 0, ret, i;

	for (i = 0; i < 50 && got < want; i++) {
		ret = perfring_reader_poll_ms(rd, 100);
		if (ret < 0)
			return ret;
		got += ret;
	}
	return got;
}

TEST(ring_buffer_poll_ms)
{
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	uint32_t lens[] = { 16, 17, 100, 4093 };
	uint64_t t0, dt;
	size_t k;
	int ret;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 100);
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "perfring_reader_new_ring_buffer: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK(perfring_reader_ringbuf(rd, 0) != NULL); /* ring_buffer__ring(rb, 0) */
	CHECK(perfring_reader_epoll_fd(rd) >= 0);

	/* A timeout is 0, in milliseconds. */
	t0 = ktest_now_ns();
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 100), 0);
	dt = ktest_now_ns() - t0;
	CHECKF(dt >= 90000000ull, "poll_ms(100) returned after %.3f ms", (double)dt / 1e6);
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 0), 0);

	/* Records already there come at once, each with ctx, its exact bytes
	 * and size (no padding), in order. */
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		rt.skel->data->payload_len = lens[k];
		REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 5) == 5);
	}
	t0 = ktest_now_ns();
	ret = perfring_reader_poll_ms(rd, 5000);
	dt = ktest_now_ns() - t0;
	CHECKF(ret == 20, "poll_ms: %d (%s)", ret, perfring_errmsg());
	CHECKF(dt < 1000000000ull, "poll_ms took %.3f ms with 20 records waiting", (double)dt / 1e6);
	CHECK_EQ_INT(s.calls, 20);
	CHECK_EQ_U64(rb_collect_once(&s.c, 20), 20);
	RB_CHECK_COLLECT(&s.c);
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 10), 0);

	/* A positive return is not a stop (libbpf counts and goes on). */
	s.ret = 3;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 6) == 6);
	CHECK_EQ_INT(poll_until(rd, 6), 6);
	CHECK_EQ_INT(s.calls, 26);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(ring_buffer_callback_error)
{
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	int i;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 100);
	s.fail_at = 4;
	s.fail_ret = -7777;
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 10) == 10);
	/* The 4th record's callback fails: the poll returns its value, the 3
	 * before were delivered, the 4th is consumed (libbpf stores the
	 * consumer position past it), the 6 after it wait. */
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 1000), -7777);
	CHECK_EQ_INT(s.calls, 4);
	CHECK_EQ_U64(s.c.samples, 3);
	CHECK(s.c.seen[0] == 1 && s.c.seen[2] == 1 && s.c.seen[3] == 0 && s.c.seen[4] == 0);
	/* The rest comes with the next call, at once, and seq 3 never. */
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 0), 6);
	CHECK_EQ_INT(s.calls, 10);
	CHECK_EQ_U64(s.c.samples, 9);
	for (i = 4; i < 10; i++)
		CHECK(s.c.seen[i] == 1);
	CHECK(s.c.seen[3] == 0);
	RB_CHECK_COLLECT(&s.c);

	/* The same through consume: the value comes back, the record is gone. */
	s.fail_at = s.calls + 2;
	s.fail_ret = -EIO;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 5) == 5);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), -EIO);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 3);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 0);
	CHECK_EQ_U64(s.c.samples, 13);
	CHECK_EQ_U64(rb_collect_once(&s.c, 15), 13);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(ring_buffer_consume)
{
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	uint64_t t0;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 100);
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	/* Nothing there: 0 at once, no wait. */
	t0 = ktest_now_ns();
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 0);
	CHECK(ktest_now_ns() - t0 < 50000000ull);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 12) == 12);
	CHECK_EQ_INT(perfring_reader_consume_cb_n(rd, 5), 5);
	CHECK_EQ_INT(s.calls, 5);
	CHECK_EQ_INT(perfring_reader_consume_cb_n(rd, 0), 0);
	CHECK_EQ_INT(s.calls, 5);
	CHECK_EQ_INT(perfring_reader_consume_cb_n(rd, 100), 7);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 0);
	CHECK_EQ_U64(rb_collect_once(&s.c, 12), 12);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 4) == 4);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 4);
	CHECK_EQ_U64(rb_collect_once(&s.c, 16), 16);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* Losses counted by perfring_ringbuf.bpf.h (opts.lost_map_fd): libbpf's
 * ring_buffer has no callback for them, so they are not records of the
 * count; the stats have them. */
TEST(ring_buffer_losses_in_stats)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	int ret;

	RBTEST_SETUP(&rt, 16384);
	seen_init(&s, 100);
	o.lost_map_fd = rt.lost_fd;
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, &o);
	REQUIREF(rd, "%s", perfring_errmsg());
	rt.skel->data->payload_len = 500;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 100) == 100);
	REQUIRE(rt.skel->bss->out_fail > 0);
	ret = perfring_reader_consume_cb(rd);
	CHECKF(ret == (int)rt.skel->bss->out_ok, "consume_cb: %d, %llu written", ret,
	       (unsigned long long)rt.skel->bss->out_ok);
	CHECK_EQ_U64((uint64_t)s.calls, rt.skel->bss->out_ok);
	REQUIRE(perfring_reader_stats(rd, 0, &st) == 0);
	CHECK_EQ_U64(st.lost, rt.skel->bss->out_fail);
	CHECK_EQ_U64(s.c.samples + st.lost, 100);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* ring_buffer__add: a second map with its own callback and ctx. */
TEST(ring_buffer_two_maps)
{
	struct perfring_reader *rd;
	struct port_seen a, b;
	struct rbtest rt;
	uint32_t key = 0;
	int inner, ret;

	RBTEST_SETUP(&rt, 0);
	inner = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_cpu0", 0, 0, 64 * 1024, NULL);
	REQUIREF(inner >= 0, "bpf_map_create: %s", strerror(errno));
	REQUIRE(bpf_map_update_elem(rt.outer_fd, &key, &inner, BPF_ANY) == 0);
	seen_init(&a, 100);
	seen_init(&b, 100);
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &a, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	ret = perfring_reader_add_ring_buffer(rd, inner, handle_event, &b);
	CHECKF(ret == 0, "add_ring_buffer: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 2);
	CHECK(perfring_reader_ringbuf(rd, 1) != NULL);

	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 7) == 7);
	REQUIRE(rbtest_run(rt.skel->progs.produce_percpu, 0, 4) == 4);
	CHECK_EQ_INT(poll_until(rd, 11), 11);
	CHECK_EQ_INT(a.calls, 7);
	CHECK_EQ_INT(b.calls, 4);
	CHECK_EQ_U64(rb_collect_once(&a.c, 7), 7);
	CHECK_EQ_U64(rb_collect_once(&b.c, 11) - rb_collect_once(&b.c, 7), 4); /* seq 7..10 */

	/* A budget over both rings counts records, not rings. */
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 5) == 5);
	REQUIRE(rbtest_run(rt.skel->progs.produce_percpu, 0, 5) == 5);
	CHECK_EQ_INT(perfring_reader_consume_cb_n(rd, 8), 8);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 2);
	CHECK_EQ_INT(a.calls + b.calls, 21);
	CHECK_EQ_INT(a.calls, 12);
	RB_CHECK_COLLECT(&a.c);
	RB_CHECK_COLLECT(&b.c);
	rb_collect_free(&a.c);
	rb_collect_free(&b.c);
	perfring_reader_free(rd);
	close(inner);
	rbtest_teardown(&rt);
}

/* An external loop, as libbpf code with ring_buffer__epoll_fd() writes it:
 * wait on the epoll fd, then consume. */
TEST(ring_buffer_epoll_fd_loop)
{
	struct perfring_reader *rd;
	struct epoll_event ev;
	struct port_seen s;
	struct rbtest rt;
	int efd, got = 0, i;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 100);
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	efd = perfring_reader_epoll_fd(rd);
	REQUIRE(efd >= 0);
	CHECK_EQ_INT(epoll_wait(efd, &ev, 1, 20), 0);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 9) == 9);
	for (i = 0; i < 10 && got < 9; i++) {
		CHECK_EQ_INT(epoll_wait(efd, &ev, 1, 1000), 1);
		got += perfring_reader_consume_cb(rd);
	}
	CHECK_EQ_INT(got, 9);
	CHECK_EQ_INT(s.calls, 9);
	/* Drained: not readable until the next record. */
	CHECK_EQ_INT(epoll_wait(efd, &ev, 1, 20), 0);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 1) == 1);
	CHECK_EQ_INT(epoll_wait(efd, &ev, 1, 1000), 1);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 1);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Ctrl-C in a libbpf tool: the poll returns -EINTR, which its loop checks. */
TEST(ring_buffer_poll_eintr)
{
	struct sigaction sa, old;
	struct itimerval it = { .it_value = { .tv_usec = 50000 } };
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	uint64_t t0, dt;
	int ret;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 10);
	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART; /* epoll waits are never restarted */
	REQUIRE(sigaction(SIGALRM, &sa, &old) == 0);
	REQUIRE(setitimer(ITIMER_REAL, &it, NULL) == 0);
	t0 = ktest_now_ns();
	ret = perfring_reader_poll_ms(rd, 5000);
	dt = ktest_now_ns() - t0;
	sigaction(SIGALRM, &old, NULL);
	CHECK_EQ_INT(ret, -EINTR);
	CHECKF(dt < 2000000000ull, "the signal ended the wait after %.3f ms", (double)dt / 1e6);
	CHECK_EQ_INT(s.calls, 0);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

static int pb_samples;
static void pb_handler(void *ctx, int cpu, void *data, __u32 size)
{
	(void)ctx;
	(void)data;
	if (cpu >= 0 && size >= 48)
		pb_samples++;
}

/* A perf_buffer reader and a ring buffer with its own callback under one
 * poll_ms: each record goes to its own map's callback. */
TEST(ring_buffer_with_perf_buffer)
{
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	struct ktest kt;

	RBTEST_SETUP(&rt, 0);
	KTEST_SETUP(&kt, 0);
	seen_init(&s, 100);
	pb_samples = 0;
	rd = perfring_reader_new_perf_buffer(kt.map_fd, 8, pb_handler, NULL, NULL, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_add_ring_buffer(rd, rt.rb_fd, handle_event, &s) == 0);
	ktest_set_len(&kt, 48);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 7) == 7);
	REQUIRE(ktest_produce(&kt, 0, 5) == 5);
	CHECK_EQ_INT(poll_until(rd, 12), 12);
	CHECK_EQ_INT(pb_samples, 5);
	CHECK_EQ_INT(s.calls, 7);
	/* perf_buffer__consume() too: both kinds, no wait. */
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 3) == 3);
	REQUIRE(ktest_produce(&kt, 0, 2) == 2);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), 5);
	CHECK_EQ_INT(pb_samples, 7);
	CHECK_EQ_INT(s.calls, 10);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	rbtest_teardown(&rt);
}

TEST(ring_buffer_errors)
{
	struct perfring_reader *rd;
	struct port_seen s;
	struct rbtest rt;
	int pea;

	RBTEST_SETUP(&rt, 0);
	seen_init(&s, 10);
	errno = 0;
	CHECK(perfring_reader_new_ring_buffer(rt.rb_fd, NULL, NULL, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	/* A map of another type: refused, named. */
	pea = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "not_rb", 4, 4, 1, NULL);
	REQUIREF(pea >= 0, "bpf_map_create: %s", strerror(errno));
	errno = 0;
	CHECK(perfring_reader_new_ring_buffer(pea, handle_event, &s, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECKF(strstr(perfring_errmsg(), "not_rb") != NULL, "message: %s", perfring_errmsg());
	errno = 0;
	CHECK(perfring_reader_new_ring_buffer(-1, handle_event, &s, NULL) == NULL);
	CHECK(errno != 0);

	rd = perfring_reader_new_ring_buffer(rt.rb_fd, handle_event, &s, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_add_ring_buffer(rd, pea, handle_event, &s), -EINVAL);
	CHECK_EQ_INT(perfring_reader_add_ring_buffer(rd, rt.rb_fd, NULL, &s), -EINVAL);
	CHECK_EQ_INT(perfring_reader_add_ring_buffer(NULL, rt.rb_fd, handle_event, &s), -EINVAL);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	/* A ring without a libbpf callback in such a reader: said, not dropped. */
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) == 1);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 1) == 1);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "perfring_reader_add_ring_buffer") != NULL, "message: %s", perfring_errmsg());
	perfring_reader_free(rd);

	CHECK_EQ_INT(perfring_reader_poll_ms(NULL, 0), -EINVAL);
	CHECK_EQ_INT(perfring_reader_consume_cb(NULL), -EINVAL);
	CHECK_EQ_INT(perfring_reader_consume_cb_n(NULL, 1), -EINVAL);
	/* A native reader has no libbpf callbacks. */
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) == 0);
	CHECK_EQ_INT(perfring_reader_consume_cb(rd), -EINVAL);
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 0), -EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_reader_new_ring_buffer") != NULL);
	perfring_reader_free(rd);
	close(pea);
	rb_collect_free(&s.c);
	rbtest_teardown(&rt);
}

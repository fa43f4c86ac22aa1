// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF ring buffers under threads: a flat-out BPF producer on another CPU
 * (a thread running tests/bpf/rb_producer.bpf.c under BPF_PROG_TEST_RUN) while
 * the reader polls: every sequence number is delivered once or counted
 * lost, received + lost == produced; and flush, wakeup, close and a
 * deadline from another thread end a poll blocked on a ring buffer reader
 * (also one mixed with a perf event array).
 */
#include "rbtest.h"

#define GIVE_UP_NS 5000000000ull

struct producer_arg {
	struct rbtest *rt;
	int cpu;
	uint32_t n;
	int64_t done;
	int finished;
};

static void *producer_thread(void *p)
{
	struct producer_arg *a = p;

	a->done = rbtest_run(a->rt->skel->progs.produce, a->cpu, a->n);
	__atomic_store_n(&a->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Another thread watching the reader as the contract allows (any thread,
 * any time): pending, stats, ring info, the ring buffer's bytes. */
struct observer {
	struct perfring_reader *rd;
	int stop;
	uint64_t looks, bad;
};

static void *observer_thread(void *p)
{
	struct observer *ob = p;

	while (!__atomic_load_n(&ob->stop, __ATOMIC_ACQUIRE)) {
		struct perfring_reader_ring_info info = { .sz = sizeof(info) };
		struct perfring_ring_stats st;

		if (perfring_reader_pending(ob->rd) < 0 || perfring_reader_stats(ob->rd, 0, &st) ||
		    perfring_reader_ring_info(ob->rd, 0, &info) || info.kind != PERFRING_RING_BPF_RINGBUF ||
		    perfring_ringbuf_bytes_available(perfring_reader_ringbuf(ob->rd, 0)) > info.data_size)
			ob->bad++;
		ob->looks++;
		ktest_sleep_ns(100000);
	}
	return NULL;
}

static void stream_case(uint32_t rb_size, uint32_t len, uint32_t n)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader *rd;
	struct producer_arg a;
	struct observer ob = { 0 };
	struct rb_collect c;
	struct rbtest rt;
	pthread_t th, oth;
	uint64_t produced, t0;
	int ret;

	RBTEST_SETUP(&rt, rb_size);
	RBTEST_NEED_CPUS(&rt, 2);
	rt.skel->data->payload_len = len;
	o.lost_map_fd = rt.lost_fd;
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	REQUIREF(perfring_reader_add_ringbuf(rd, rt.rb_fd, &o) == 0, "%s", perfring_errmsg());
	rb_collect_init(&c, n, len);
	REQUIRE(ktest_pin_self(0) == 0);
	memset(&a, 0, sizeof(a));
	a.rt = &rt;
	a.cpu = 1;
	a.n = n;
	REQUIRE(pthread_create(&th, NULL, producer_thread, &a) == 0);
	ob.rd = rd;
	REQUIRE(pthread_create(&oth, NULL, observer_thread, &ob) == 0);
	t0 = ktest_now_ns();
	while (!__atomic_load_n(&a.finished, __ATOMIC_ACQUIRE) && ktest_now_ns() - t0 < 60 * GIVE_UP_NS) {
		ret = perfring_reader_poll(rd, 100000000ll, rb_collect_fn, &c);
		if (ret < 0 && ret != -ETIMEDOUT) {
			CHECKF(0, "poll: %d (%s)", ret, perfring_errmsg());
			break;
		}
	}
	pthread_join(th, NULL);
	__atomic_store_n(&ob.stop, 1, __ATOMIC_RELEASE);
	pthread_join(oth, NULL);
	CHECKF(ob.looks > 0 && ob.bad == 0, "observer: %llu looks, %llu bad", (unsigned long long)ob.looks,
	       (unsigned long long)ob.bad);
	REQUIREF(a.done == n, "producer: %lld", (long long)a.done);
	perfring_reader_flush(rd);
	do
		ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
	while (ret > 0);
	CHECKF(ret == -PERFRING_EFLUSHED, "poll after the flush: %d (%s)", ret, perfring_errmsg());
	produced = rt.skel->bss->seq_next;
	CHECK_EQ_U64(produced, n);
	CHECK_EQ_U64(c.samples, rt.skel->bss->out_ok);
	CHECK_EQ_U64(c.lost, rt.skel->bss->out_fail);
	CHECKF(c.samples + c.lost == produced, "received %llu + lost %llu != produced %llu",
	       (unsigned long long)c.samples, (unsigned long long)c.lost, (unsigned long long)produced);
	CHECK_EQ_U64(rb_collect_once(&c, n), c.samples);
	RB_CHECK_COLLECT(&c);
	printf("     %u-byte ring, %u-byte samples: %llu received, %llu lost of %llu\n", rb_size, len,
	       (unsigned long long)c.samples, (unsigned long long)c.lost, (unsigned long long)produced);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_stream_thread_flat_out_small_ring)
{
	stream_case(16384, 256, 200000);
}

TEST(rb_stream_thread_flat_out_large_ring)
{
	stream_case(4 << 20, 64, 300000);
}

struct blocked {
	struct perfring_reader *rd;
	struct rb_collect c;
	int ret;
	int done;
	pthread_t th;
};

static void *blocked_poll(void *p)
{
	struct blocked *b = p;

	b->ret = perfring_reader_poll(b->rd, -1, rb_collect_fn, &b->c);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool wait_done(struct blocked *b)
{
	uint64_t t0 = ktest_now_ns();

	while (!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
		if (ktest_now_ns() - t0 > GIVE_UP_NS)
			return false;
		else
			ktest_sleep_ns(1000000);
	pthread_join(b->th, NULL);
	return true;
}

static void start_blocked(struct blocked *b, struct perfring_reader *rd)
{
	memset(b, 0, sizeof(*b));
	b->rd = rd;
	rb_collect_init(&b->c, 1000, 0);
	REQUIRE(pthread_create(&b->th, NULL, blocked_poll, b) == 0);
	ktest_sleep_ns(30000000);
	CHECKF(!__atomic_load_n(&b->done, __ATOMIC_ACQUIRE), "poll returned %d without cause", b->ret);
}

TEST(rb_control_thread_flush_wakeup_deadline_close)
{
	struct perfring_reader *rd;
	struct blocked b;
	struct rbtest rt;
	struct ktest kt;

	RBTEST_SETUP(&rt, 0);
	KTEST_SETUP(&kt, 0);
	/* A mixed reader: the perf array's rings and the ring buffer. */
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) >= 0);

	/* Data wakes it: the ring buffer's map fd is in the epoll set. */
	start_blocked(&b, rd);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 3) == 3);
	REQUIREF(wait_done(&b), "a blocked poll did not see ring buffer records");
	CHECKF(b.ret >= 1 && b.c.rb_samples >= 1, "poll: %d, %llu samples", b.ret, (unsigned long long)b.c.rb_samples);
	while (perfring_reader_consume(rd, rb_collect_fn, &b.c) > 0)
		;
	RB_CHECK_COLLECT(&b.c);
	rb_collect_free(&b.c);

	start_blocked(&b, rd);
	perfring_reader_flush(rd);
	REQUIREF(wait_done(&b), "flush did not end a blocked poll");
	CHECK_EQ_INT(b.ret, -PERFRING_EFLUSHED);
	rb_collect_free(&b.c);

	start_blocked(&b, rd);
	perfring_reader_wakeup(rd);
	REQUIREF(wait_done(&b), "wakeup did not end a blocked poll");
	CHECK_EQ_INT(b.ret, -PERFRING_EWOKEN);
	rb_collect_free(&b.c);

	start_blocked(&b, rd);
	perfring_reader_set_deadline(rd, ktest_now_ns() + 20000000);
	REQUIREF(wait_done(&b), "a deadline did not end a blocked poll");
	CHECK_EQ_INT(b.ret, -ETIMEDOUT);
	perfring_reader_set_deadline(rd, 0);
	rb_collect_free(&b.c);

	start_blocked(&b, rd);
	perfring_reader_close(rd);
	REQUIREF(wait_done(&b), "close did not end a blocked poll");
	CHECK_EQ_INT(b.ret, -PERFRING_ECLOSED);
	rb_collect_free(&b.c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	rbtest_teardown(&rt);
}

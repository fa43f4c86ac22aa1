// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer's inline cursor against a producer running at the same
 * time: a thread on CPU 0 runs tests/bpf/rb_producer.bpf.c flat out
 * (BPF_PROG_TEST_RUN) into a small ring while this thread, on CPU 1, drains
 * it with the cursor. The cursor's acquire loads of the length words are
 * what makes each payload visible whole once its BUSY bit reads clear: every
 * payload must be intact, each sequence number delivered at most once, and
 * what was received plus the losses counted by perfring_ringbuf.bpf.h must
 * be what the program produced.
 */
#include "rbtest.h"

struct prod {
	struct rbtest *rt;
	uint32_t runs, per_call;
	int64_t err;
	int done;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	uint32_t i;

	for (i = 0; i < p->runs && !p->err; i++) {
		int64_t r = rbtest_run(p->rt->skel->progs.produce, 0, p->per_call);

		if (r < 0)
			p->err = r;
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

TEST(rb_cursor_thread_concurrent_producer)
{
	struct perfring_ringbuf_opts o;
	struct perfring_reader *rd;
	struct perfring_ringbuf *rb;
	struct rb_collect c;
	struct rbtest rt;
	struct prod p;
	pthread_t th;
	cpu_set_t one;
	uint64_t lost = 0, produced;
	int done = 0, bad = 0, batches = 0;

	RBTEST_SETUP(&rt, 65536);
	RBTEST_NEED_CPUS(&rt, 2);
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.lost_map_fd = rt.lost_fd;
	rd = perfring_reader_new(NULL);
	REQUIRE(rd && perfring_reader_add_ringbuf(rd, rt.rb_fd, &o) == 0);
	rb = perfring_reader_ringbuf(rd, 0);
	REQUIRE(rb);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one)) {
		perfring_reader_free(rd);
		rbtest_teardown(&rt);
		SKIP("cannot pin to CPU 1 (offline?)");
	}
	rt.skel->data->payload_len = 100;
	memset(&p, 0, sizeof(p));
	p.rt = &rt;
	p.runs = 200;
	p.per_call = 1000;
	rb_collect_init(&c, (uint64_t)p.runs * p.per_call, 100);
	REQUIRE(pthread_create(&th, NULL, producer, &p) == 0);
	while (!done) {
		struct perfring_rb_cursor cur;
		const void *data;
		uint32_t size;

		/* Read done before the batch: the batch after it sees every record. */
		done = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);
		perfring_ringbuf_cursor(rb, &cur);
		while ((data = perfring_ringbuf_cursor_next(&cur, &size))) {
			c.rb_samples++;
			rb_collect_sample(&c, data, size, false, 0);
		}
		batches += cur.n > 0;
		perfring_ringbuf_cursor_commit(rb, &cur);
		if (cur.err && !bad++)
			CHECKF(0, "cursor: %s", perfring_errmsg());
	}
	pthread_join(th, NULL);
	CHECKF(p.err == 0, "producer: %s", strerror((int)-p.err));
	produced = (uint64_t)p.runs * p.per_call;
	REQUIRE(perfring_ringbuf_lost(rb, &lost) == 0);
	CHECK_EQ_U64(rt.skel->bss->out_ok, c.rb_samples);
	CHECKF(c.rb_samples + lost == produced, "received %llu + lost %llu != produced %llu",
	       (unsigned long long)c.rb_samples, (unsigned long long)lost, (unsigned long long)produced);
	/* Drained while the producer ran, not in one go at the end. */
	CHECKF(batches > 10, "only %d batches with records", batches);
	CHECK_EQ_U64(perfring_ringbuf_bytes_available(rb), 0);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

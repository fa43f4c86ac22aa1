// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fault injection over BPF ring buffers in a reader (tests/bpf/rb_producer.bpf.c
 * fills the ring before each run): new, add_ringbuf with the lost map,
 * consume_n, read, consume_samples, flush + poll, free, with each allocation, mmap and
 * read the library makes failing in turn (tests/unit/fault.h). Each run
 * succeeds or returns the documented error (NULL + errno, negative errno)
 * with a fresh perfring_errmsg(); the ASan and valgrind suites check that no
 * run leaks.
 */
#include "kernel/rbtest.h"
#include "unit/fault_sweep.h"

static struct rbtest rt;

static int count_msg(const struct perfring_msg *ev, void *ctx)
{
	(*(unsigned *)ctx)++;
	return 0;
}

static int count_sample(void *ctx, int cpu, const void *data, size_t size)
{
	(*(unsigned *)ctx)++;
	return 0;
}

/* 0, or a negative errno. */
static int sc_ringbuf(void)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .lost_map_fd = rt.lost_fd);
	struct perfring_msg_buf m = { 0 };
	struct perfring_reader *rd;
	unsigned n = 0;
	int ret;

	rd = perfring_reader_new(NULL);
	if (!rd)
		return errno ? -errno : -EINVAL;
	ret = perfring_reader_add_ringbuf(rd, rt.rb_fd, &o);
	if (ret >= 0)
		ret = perfring_reader_consume_n(rd, 5, count_msg, &n);
	if (ret >= 0) {
		ret = perfring_reader_read(rd, &m, 0);
		if (ret == -ETIMEDOUT)
			ret = 0;
	}
	if (ret >= 0)
		ret = perfring_reader_consume_samples(rd, count_sample, NULL, &n);
	if (ret >= 0) {
		perfring_reader_flush(rd);
		ret = perfring_reader_poll(rd, 0, count_msg, &n);
		if (ret == -PERFRING_EFLUSHED || ret == -ETIMEDOUT)
			ret = 0;
	}
	perfring_msg_buf_release(&m);
	perfring_reader_free(rd);
	return ret < 0 ? ret : 0;
}

static void refill(void)
{
	rt.skel->data->payload_len = 100;
	rbtest_run(rt.skel->progs.produce, 0, 20);
}

TEST(fault_ringbuf)
{
	RBTEST_SETUP(&rt, 0);
	fault_sweep("ringbuf", sc_ringbuf, refill);
	rbtest_teardown(&rt);
}

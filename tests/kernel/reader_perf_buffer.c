// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The libbpf-shaped path: handlers written with libbpf's exact types (__u32
 * size, __u64 count, void return) are taken by
 * perfring_reader_new_perf_buffer() without a cast (this file builds with
 * -Wall -Wextra, and -Werror in the port check), and
 * perfring_reader_poll_ms() behaves as perf_buffer__poll(): 0 on timeout,
 * the count of records otherwise, every record consumed.
 */
#include <linux/types.h>

#include "ktest.h"

struct seen {
	unsigned samples;
	__u64 lost;
	__u32 bad;
};

static void handle_event(void *ctx, int cpu, void *data, __u32 size)
{
	struct seen *s = ctx;

	(void)data;
	if (cpu < 0 || size < 48)
		s->bad++;
	s->samples++;
}

static void handle_lost(void *ctx, int cpu, __u64 cnt)
{
	struct seen *s = ctx;

	(void)cpu;
	s->lost += cnt;
}

TEST(perf_buffer_poll_ms)
{
	struct perfring_reader *rd;
	struct seen s = { 0 };
	struct ktest kt;
	uint64_t t0;
	int ret, got = 0;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_perf_buffer(kt.map_fd, 8, handle_event, handle_lost, &s, NULL);
	REQUIREF(rd, "perfring_reader_new_perf_buffer: %s", perfring_errmsg());
	CHECK_EQ_U64(perfring_reader_data_size(rd), 8 * (uint64_t)sysconf(_SC_PAGESIZE));

	/* A timeout is 0, in milliseconds: 100 means 100 ms, not 100 ns. */
	t0 = ktest_now_ns();
	ret = perfring_reader_poll_ms(rd, 100);
	CHECK_EQ_INT(ret, 0);
	CHECKF(ktest_now_ns() - t0 >= 90000000ull, "poll_ms(100) returned after %.3f ms",
	       (double)(ktest_now_ns() - t0) / 1e6);

	ktest_set_len(&kt, 48);
	REQUIRE(ktest_produce(&kt, 0, 9) == 9);
	for (int i = 0; i < 50 && got < 9; i++) {
		ret = perfring_reader_poll_ms(rd, 100);
		REQUIREF(ret >= 0, "poll_ms: %d (%s)", ret, perfring_errmsg());
		got += ret;
	}
	CHECK_EQ_INT(got, 9);
	CHECK_EQ_INT((int)s.samples, 9);
	CHECK_EQ_INT((int)s.bad, 0);
	CHECK_EQ_U64(s.lost, 0);
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 0), 0);

	CHECK_EQ_INT(perfring_reader_poll_ms(NULL, 0), -EINVAL);
	perfring_reader_free(rd);

	/* poll_ms on a native reader is a misuse, said. */
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_poll_ms(rd, 0), -EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_reader_new_perf_buffer") != NULL);
	perfring_reader_free(rd);

	errno = 0;
	CHECK(perfring_reader_new_perf_buffer(kt.map_fd, 8, NULL, NULL, NULL, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	errno = 0;
	CHECK(perfring_reader_new_perf_buffer(kt.map_fd, 3, handle_event, NULL, NULL, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	ktest_teardown(&kt);
}

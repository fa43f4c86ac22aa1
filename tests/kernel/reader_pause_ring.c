// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_pause_ring()/_resume_ring(): pausing one CPU of a BPF
 * reader deletes only that CPU's map slot (its bpf_perf_event_output()
 * gets -ENOENT, the other CPU still delivers); resume_ring restores it;
 * bad index -EINVAL, closed -PERFRING_ECLOSED, both with a message. And
 * perfring_reader_pending(): the rings with unread data, 0 once drained.
 */
#include "ktest.h"

TEST(pause_one_cpu)
{
	struct ktest_counts c0, c1;
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	int r0, r1;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	r0 = perfring_reader_cpu_ring(rd, 0);
	r1 = perfring_reader_cpu_ring(rd, 1);
	REQUIRE(r0 >= 0 && r1 >= 0);
	ktest_collect_init(&c, rd, 0);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);

	CHECK_EQ_INT(perfring_reader_pause_ring(rd, r0), 0);
	CHECK_EQ_INT(perfring_reader_pause_ring(rd, r0), 0); /* idempotent */
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 6) == 6);
	REQUIRE(ktest_produce(&kt, 1, 4) == 4);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 6);
	CHECK_EQ_U64(c1.ok - c0.ok, 4);
	/* Only CPU 1's ring has data. */
	CHECK_EQ_INT(perfring_reader_pending(rd), 1);
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 4, 5000000000ull), 0);
	CHECK_EQ_U64(c.ring[r1].events, 4);
	CHECK_EQ_U64(c.ring[r0].events, 0);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);

	CHECK_EQ_INT(perfring_reader_resume_ring(rd, r0), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 3);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 0);
	CHECK_EQ_INT(perfring_reader_pending(rd), 1);
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 7, 5000000000ull), 0);
	CHECK_EQ_U64(c.ring[r0].events, 3);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);
	KTEST_CHECK_COLLECT(&c);

	/* A whole-reader resume also resumes a ring paused alone. */
	CHECK_EQ_INT(perfring_reader_pause_ring(rd, r1), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 2);

	CHECK_EQ_INT(perfring_reader_pause_ring(rd, perfring_reader_ring_cnt(rd)), -EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_reader_pause_ring") != NULL);
	CHECK_EQ_INT(perfring_reader_resume_ring(rd, -1), -EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_reader_resume_ring") != NULL);
	perfring_reader_close(rd);
	CHECK_EQ_INT(perfring_reader_pause_ring(rd, r0), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_resume_ring(rd, r0), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_pending(NULL), -EINVAL);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pausing a BPF reader removes its fds from the map: the program's
 * bpf_perf_event_output() gets -ENOENT (nothing written, nothing counted as
 * lost), records already in the rings stay readable; resuming restores
 * delivery. Both are idempotent.
 */
#include "ktest.h"

TEST(pause_enoent_and_resume)
{
	struct ktest_counts c0, c1;
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	uint64_t base;
	int ret;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 48);
	c.seq_cap = 64;
	c.seqs = calloc(c.seq_cap, sizeof(*c.seqs));
	REQUIRE(c.seqs);
	ktest_set_len(&kt, 48);

	/* Written before the pause. */
	base = ktest_counts(&kt).seq;
	REQUIRE(ktest_produce(&kt, 0, 5) == 5);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);

	/* While paused: -ENOENT on both CPUs, nothing written. */
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 7) == 7);
	REQUIRE(ktest_produce(&kt, 1, 7) == 7);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 14);
	CHECK_EQ_U64(c1.ok - c0.ok, 0);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 0);
	CHECK_EQ_U64(c1.other - c0.other, 0);

	/* The 5 from before are still readable while paused, and nothing else. */
	ret = perfring_reader_poll(rd, 1000000000ll, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, 5);
	CHECK_EQ_U64(c.nseq, 5);
	if (c.nseq == 5)
		for (int i = 0; i < 5; i++)
			CHECK_EQ_U64(c.seqs[i], base + (uint64_t)i);
	ret = perfring_reader_poll(rd, 20000000ll, ktest_collect_fn, &c);
	CHECKF(ret == -ETIMEDOUT, "poll of a paused, drained reader: %d (%s)", ret, perfring_strerror(ret));

	/* Resume (twice): delivered again, on both CPUs. */
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 4) == 4);
	REQUIRE(ktest_produce(&kt, 1, 3) == 3);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 7);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 0);
	c.nseq = 0;
	CHECK_EQ_INT(ktest_poll_until(rd, &c, c.events + 7, 5000000000ull), 0);
	CHECK_EQ_U64(c.nseq, 7);
	CHECK_EQ_U64(c.ring[perfring_reader_cpu_ring(rd, 0)].last_seq, c0.seq + 3);
	CHECK_EQ_U64(c.ring[perfring_reader_cpu_ring(rd, 1)].last_seq, c0.seq + 6);
	CHECK_EQ_U64(c.lost, 0);
	KTEST_CHECK_COLLECT(&c);

	/* A second pause/resume cycle behaves the same. */
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 2) == 2);
	CHECK_EQ_U64(ktest_counts(&kt).enoent - c0.enoent, 2);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	CHECK_EQ_U64(ktest_counts(&kt).ok - c0.ok, 2);
	c.nseq = 0;
	CHECK_EQ_INT(ktest_poll_until(rd, &c, c.events + 2, 5000000000ull), 0);
	CHECK_EQ_U64(c.nseq, 2);
	CHECK_EQ_U64(c.lost, 0);
	KTEST_CHECK_COLLECT(&c);

	free(c.seqs);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* Freeing a reader closes it, and closing pauses it: its fds leave the map
 * (the program gets -ENOENT, not records written into rings nobody reads),
 * paused or not; a new reader on the same map then works. */
static void free_then_new_reader(bool pause_first)
{
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest_counts c0;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	if (pause_first)
		CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	perfring_reader_free(rd);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	CHECK_EQ_U64(ktest_counts(&kt).enoent - c0.enoent, 3);
	CHECK_EQ_U64(ktest_counts(&kt).ok - c0.ok, 0);

	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 64);
	ktest_set_len(&kt, 64);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 3, 5000000000ull), 0);
	CHECK_EQ_U64(c.samples, 3);
	KTEST_CHECK_COLLECT(&c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

TEST(pause_free_removes_fds)
{
	free_then_new_reader(false);
}

TEST(pause_then_free)
{
	free_then_new_reader(true);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which CPUs get a ring: opts.cpus selects them (and the map holds fds only
 * at those keys), and a map with fewer entries than CPUs leaves the others
 * out, reported by perfring_reader_skipped_cpus().
 */
#include "ktest.h"

TEST(cpuset_only_cpu1)
{
	static const int cpus[] = { 1 };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 1);
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	struct ktest_collect c;
	struct ktest kt;
	int ret;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf(cpus = {1}): %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), 1);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 1), 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 0), -ENOENT);
	CHECK(perfring_reader_ring_fd(rd, 0) >= 0);
	CHECK(perfring_reader_ring(rd, 0) != NULL);

	ktest_collect_init(&c, rd, 56);
	c.want_cpu = 1;
	ktest_set_len(&kt, 56);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 1, 5) == 5);
	REQUIRE(ktest_produce(&kt, 0, 6) == 6);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 5);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 6); /* no fd at key 0 */
	CHECK_EQ_U64(c1.other - c0.other, 0);
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 5, 2000000000ull), 0);
	ret = perfring_reader_poll(rd, 20000000ll, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, -ETIMEDOUT);
	CHECK_EQ_U64(c.samples, 5);
	CHECK_EQ_U64(c.ring[0].last_seq, c0.seq + 4);
	KTEST_CHECK_COLLECT(&c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* cpus = {0, 1} in the other order: rings labelled by CPU id either way. */
TEST(cpuset_explicit_both)
{
	static const int cpus[] = { 1, 0 };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 2);
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;
	int cpu;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf(cpus = {1, 0}): %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 2);
	ktest_collect_init(&c, rd, 64);
	ktest_set_len(&kt, 64);
	for (cpu = 0; cpu < 2; cpu++) {
		int ri = perfring_reader_cpu_ring(rd, cpu);

		REQUIRE(ri >= 0);
		CHECK_EQ_INT(perfring_reader_ring_cpu(rd, ri), cpu);
		REQUIRE(ktest_produce(&kt, cpu, (uint32_t)(3 + cpu)) == 3 + cpu);
	}
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 7, 2000000000ull), 0);
	CHECK_EQ_U64(c.ring[perfring_reader_cpu_ring(rd, 0)].samples, 3);
	CHECK_EQ_U64(c.ring[perfring_reader_cpu_ring(rd, 1)].samples, 4);
	KTEST_CHECK_COLLECT(&c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

TEST(cpuset_map_max_entries_1)
{
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	struct ktest_collect c;
	struct ktest kt;
	int skipped[8], n;

	KTEST_SETUP(&kt, 1);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf on a 1-entry map: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 1), -ENOENT);
	n = perfring_reader_skipped_cpus(rd, skipped, 8);
	CHECK_EQ_INT(n, kt.ncpus - 1);
	if (n >= 1)
		CHECK_EQ_INT(skipped[0], 1);
	CHECK_EQ_INT(perfring_reader_skipped_cpus(rd, NULL, 0), n);

	ktest_collect_init(&c, rd, 64);
	c.want_cpu = 0;
	ktest_set_len(&kt, 64);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 4) == 4);
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, 4);
	/* Key 1 is beyond the map: -E2BIG from the helper. */
	CHECK_EQ_U64(c1.other - c0.other, 2);
	CHECK_EQ_INT(c1.last_error, -E2BIG);
	CHECK_EQ_INT(ktest_poll_until(rd, &c, 4, 2000000000ull), 0);
	CHECK_EQ_U64(c.samples, 4);
	KTEST_CHECK_COLLECT(&c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

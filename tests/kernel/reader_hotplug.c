// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug at creation: with CPU 1 taken offline, a BPF reader serves
 * CPU 0 only, reports CPU 1 as skipped, and still delivers CPU 0's records.
 * CPU 1 is always brought back online, whatever the test found.
 */
#include "ktest.h"
#include "ktest_hotplug.h"

/* The checks, run while CPU 1 is offline. */
static void with_cpu1_offline(struct ktest *kt)
{
	struct perfring_reader *rd;
	struct ktest_collect c;
	int skipped[8], n;

	rd = perfring_reader_new_bpf(kt->map_fd, NULL);
	REQUIREF(rd, "reader with CPU 1 offline: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 1), -ENOENT);
	n = perfring_reader_skipped_cpus(rd, skipped, 8);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		CHECK_EQ_INT(skipped[0], 1);
	ktest_set_len(kt, 64);
	REQUIRE(ktest_produce(kt, 0, 5) == 5);
	ktest_collect_init(&c, rd, 64);
	CHECK_EQ_INT(perfring_reader_consume(rd, ktest_collect_fn, &c), 5);
	KTEST_CHECK_COLLECT(&c);
	perfring_reader_free(rd);
}

TEST(hotplug_offline_cpu_skipped_and_reported)
{
	struct perfring_reader *rd;
	struct ktest kt;
	int err;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	KTEST_CPU_LOCK_OR_SKIP(&kt);
	err = ktest_cpu1_set(false);
	if (err) {
		ktest_cpu_unlock();
		ktest_teardown(&kt);
		SKIP("taking CPU 1 offline failed: %s", strerror(-err));
	}
	with_cpu1_offline(&kt);
	err = ktest_cpu_unlock();
	REQUIREF(!err, "bringing CPU 1 back online failed: %s", strerror(-err));
	/* Back online: a new reader serves both CPUs again. */
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "reader after hotplug: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 2);
	CHECK_EQ_INT(perfring_reader_skipped_cpus(rd, NULL, 0), 0);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

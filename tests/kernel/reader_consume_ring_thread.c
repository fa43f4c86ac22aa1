// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_consume_ring() from several threads at once, each serving
 * its own ring, while producers write on both CPUs: every record arrives
 * once, in order, intact (and ThreadSanitizer finds nothing shared).
 */
#include "ktest.h"

#define PER_CPU 3000u /* 80-byte records: fits a 64-page ring, so nothing is lost */

struct ring_consumer {
	struct perfring_reader *rd;
	int idx;
	struct ktest_collect c;
	int ret;
	int stop; /* atomic: producers are done and the ring is drained */
};

static void *consume_one_ring(void *arg)
{
	struct ring_consumer *rc = arg;

	rc->ret = 0;
	while (rc->c.samples < PER_CPU) {
		int n = perfring_reader_consume_ring(rc->rd, rc->idx, ktest_collect_fn, &rc->c);

		if (n < 0) {
			rc->ret = n;
			break;
		}
		if (!n) {
			if (__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE))
				break;
			ktest_sleep_ns(50000);
		}
	}
	return NULL;
}

struct cpu_producer {
	struct ktest *kt;
	int cpu;
	int64_t ret;
};

static void *produce_on(void *arg)
{
	struct cpu_producer *p = arg;
	uint32_t done = 0;

	/* In small steps, so that the consumers run meanwhile. */
	while (done < PER_CPU) {
		int64_t n = ktest_produce_concurrent(p->kt, p->cpu, 100);

		if (n != 100) {
			p->ret = n;
			return NULL;
		}
		done += 100;
	}
	p->ret = done;
	return NULL;
}

TEST(consume_ring_thread_per_ring)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 64);
	struct ring_consumer *rc;
	struct cpu_producer prod[2];
	pthread_t pt[2], ct[2];
	struct ktest_counts c0, c1;
	struct perfring_reader *rd;
	struct ktest kt;
	int i;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	REQUIRE(perfring_reader_data_size(rd) / ktest_record_size(64) > PER_CPU);
	rc = calloc(2, sizeof(*rc));
	REQUIRE(rc);
	ktest_set_len(&kt, 64);
	c0 = ktest_counts(&kt);
	for (i = 0; i < 2; i++) {
		rc[i].rd = rd;
		rc[i].idx = perfring_reader_cpu_ring(rd, i);
		REQUIRE(rc[i].idx >= 0);
		ktest_collect_init(&rc[i].c, rd, 64);
		rc[i].c.want_cpu = i;
		REQUIRE(pthread_create(&ct[i], NULL, consume_one_ring, &rc[i]) == 0);
	}
	/* The two producers share the BPF program's counters, which it updates
	 * atomically; each thread runs on its own CPU. */
	for (i = 0; i < 2; i++) {
		prod[i] = (struct cpu_producer){ .kt = &kt, .cpu = i };
		REQUIRE(pthread_create(&pt[i], NULL, produce_on, &prod[i]) == 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(pt[i], NULL);
	for (i = 0; i < 2; i++)
		__atomic_store_n(&rc[i].stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_join(ct[i], NULL);
	c1 = ktest_counts(&kt);

	for (i = 0; i < 2; i++) {
		CHECKF(prod[i].ret == PER_CPU, "producer on cpu %d: %lld", i, (long long)prod[i].ret);
		CHECKF(rc[i].ret == 0, "consume_ring(%d): %d (%s)", rc[i].idx, rc[i].ret,
		       perfring_strerror(rc[i].ret));
		CHECK_EQ_U64(rc[i].c.samples, PER_CPU);
		CHECK_EQ_U64(rc[i].c.ring[rc[i].idx].samples, PER_CPU);
		CHECK_EQ_U64(rc[i].c.lost, 0);
		KTEST_CHECK_COLLECT(&rc[i].c);
	}
	CHECK_EQ_U64(c1.ok - c0.ok, 2 * PER_CPU);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 0);
	perfring_reader_free(rd);
	free(rc);
	ktest_teardown(&kt);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug while the reader runs: CPU 1 is really taken offline and
 * brought back while a thread polls and another produces on CPU 0 without
 * pause. Case 1: CPU 1 offline at creation comes online (a ring is added),
 * then goes offline with records unread in its ring and comes back (a new
 * event writes into the same ring). Case 2: CPU 1 online at creation goes
 * offline and back. Every sequence number produced is received exactly
 * once (the producer sees no failed write: it writes on CPU 1 only once the
 * reader reported the CPU ready). With no_hotplug the reader adds nothing.
 * Each test holds /tmp/perfring-cpu.lock exclusively (ktest_hotplug.h).
 */
#include "ktest.h"
#include "ktest_hotplug.h"

#define MAX_SEQS 200000
#define READY_NS 5000000000ull

struct hp_run {
	struct ktest *kt;
	struct perfring_reader *rd;
	struct ktest_collect c;
	int stop;       /* atomic: poller and producer end */
	int poll_err;
	uint64_t produced0;
	int changes[8]; /* atomic: on_cpu calls by kind */
	int last_cpu;
};

static void on_cpu(void *ctx, int cpu, int ring_idx, int what)
{
	struct hp_run *h = ctx;

	if (what > 0 && what < 8)
		__atomic_add_fetch(&h->changes[what], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->last_cpu, cpu, __ATOMIC_RELAXED);
	(void)ring_idx;
}

static void *poller(void *arg)
{
	struct hp_run *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		int ret = perfring_reader_poll(h->rd, 50000000ll, ktest_collect_fn, &h->c);

		if (ret < 0 && ret != -ETIMEDOUT && ret != -PERFRING_EWOKEN) {
			h->poll_err = ret;
			break;
		}
	}
	return NULL;
}

/* CPU 0, flat out in small batches, until told to stop. */
static void *producer0(void *arg)
{
	struct hp_run *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		int64_t n = ktest_produce_concurrent(h->kt, 0, 20);

		if (n > 0)
			h->produced0 += (uint64_t)n;
		ktest_sleep_ns(200000);
	}
	return NULL;
}

/* Wait until the poller reported `what` at least want times. */
static bool wait_change(struct hp_run *h, int what, int want)
{
	uint64_t end = ktest_now_ns() + READY_NS;

	while (__atomic_load_n(&h->changes[what], __ATOMIC_RELAXED) < want) {
		if (ktest_now_ns() > end)
			return false;
		ktest_sleep_ns(1000000);
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void run(bool offline_at_creation)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts);
	struct perfring_reader_hotplug st;
	struct ktest_counts c0, c1;
	pthread_t tp, tq;
	struct hp_run *h;
	struct ktest kt;
	uint64_t i, dups = 0, missing = 0;
	int reopened_want = 1;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	KTEST_CPU_LOCK_OR_SKIP(&kt);
	h = calloc(1, sizeof(*h));
	REQUIRE(h);
	h->kt = &kt;
	ktest_set_len(&kt, 48);
	opts.on_cpu = on_cpu;
	opts.on_cpu_ctx = h;
	c0 = ktest_counts(&kt);
	if (offline_at_creation)
		REQUIRE(ktest_cpu1_set(false) == 0);
	h->rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(h->rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(h->rd), offline_at_creation ? 1 : 2);
	ktest_collect_init(&h->c, h->rd, 48);
	h->c.seqs = calloc(MAX_SEQS, sizeof(uint64_t));
	h->c.seq_cap = MAX_SEQS;
	REQUIRE(h->c.seqs);
	REQUIRE(pthread_create(&tp, NULL, poller, h) == 0);
	REQUIRE(pthread_create(&tq, NULL, producer0, h) == 0);
	ktest_sleep_ns(50000000);

	if (offline_at_creation) {
		/* Comes online: a ring is added and stored in the map. */
		REQUIRE(ktest_cpu1_set(true) == 0);
		CHECKF(wait_change(h, PERFRING_CPU_RING_ADDED, 1), "no ring added within 5 s of CPU 1 coming online");
		CHECK_EQ_INT(perfring_reader_ring_cnt(h->rd), 2);
		CHECK_EQ_INT(perfring_reader_ring_cpu(h->rd, 1), 1);
		CHECK_EQ_INT(perfring_reader_cpu_ring(h->rd, 1), 1);
	}
	REQUIRE(ktest_produce_concurrent(&kt, 1, 300) == 300);
	/* Offline with its last records maybe unread; back online. */
	REQUIRE(ktest_cpu1_set(false) == 0);
	CHECKF(wait_change(h, PERFRING_CPU_OFFLINE, 1), "CPU 1 going offline was not reported within 5 s");
	ktest_sleep_ns(30000000);
	REQUIRE(ktest_cpu1_set(true) == 0);
	CHECKF(wait_change(h, PERFRING_CPU_REOPENED, reopened_want),
	       "CPU 1 coming back was not followed within 5 s");
	REQUIRE(ktest_produce_concurrent(&kt, 1, 300) == 300);
	ktest_sleep_ns(50000000);

	__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
	REQUIRE(pthread_join(tq, NULL) == 0);
	perfring_reader_wakeup(h->rd);
	REQUIRE(pthread_join(tp, NULL) == 0);
	CHECKF(h->poll_err == 0, "poll failed: %d (%s)", h->poll_err, perfring_strerror(h->poll_err));
	while (perfring_reader_consume(h->rd, ktest_collect_fn, &h->c) > 0)
		;
	c1 = ktest_counts(&kt);
	KTEST_CHECK_COLLECT(&h->c);
	CHECKF(c1.other == c0.other && c1.enoent == c0.enoent && c1.enospc == c0.enospc,
	       "failed writes: other %llu (last error %lld) enoent %llu enospc %llu",
	       (unsigned long long)(c1.other - c0.other), (long long)c1.last_error,
	       (unsigned long long)(c1.enoent - c0.enoent), (unsigned long long)(c1.enospc - c0.enospc));
	CHECK_EQ_U64(h->c.lost, 0);
	CHECK_EQ_U64(h->c.samples, c1.ok - c0.ok);
	CHECKF(h->c.ring[1].samples >= 600, "CPU 1's ring delivered %llu samples, produced 600",
	       (unsigned long long)h->c.ring[1].samples);
	/* Every sequence number exactly once. */
	if (h->c.nseq <= MAX_SEQS) {
		qsort(h->c.seqs, h->c.nseq, sizeof(uint64_t), cmp_u64);
		for (i = 1; i < h->c.nseq; i++)
			dups += h->c.seqs[i] == h->c.seqs[i - 1];
		missing = (c1.seq - c0.seq) - (h->c.nseq - dups);
		CHECKF(!dups && !missing && h->c.seqs[0] == c0.seq, "%llu duplicated, %llu missing of %llu",
		       (unsigned long long)dups, (unsigned long long)missing, (unsigned long long)(c1.seq - c0.seq));
	}
	CHECK_EQ_INT(perfring_reader_hotplug_stats(h->rd, &st), 0);
	CHECK(st.active);
	CHECK_EQ_U64(st.rings_added, offline_at_creation ? 1 : 0);
	CHECK_EQ_U64(st.reopened, (uint64_t)reopened_want);
	CHECK_EQ_U64(st.failed, 0);
	printf("# %s: %llu records (%llu on CPU 1), %llu produced on CPU 0 meanwhile\n",
	       offline_at_creation ? "offline at creation" : "online at creation", (unsigned long long)h->c.samples,
	       (unsigned long long)h->c.ring[1].samples, (unsigned long long)h->produced0);
	perfring_reader_free(h->rd);
	free(h->c.seqs);
	free(h);
	ktest_teardown(&kt);
	CHECK_EQ_INT(ktest_cpu_unlock(), 0);
}

TEST(hotplug_thread_cpu_offline_at_creation)
{
	run(true);
}

TEST(hotplug_thread_cpu_online_at_creation)
{
	run(false);
}

/* Switched off: nothing is added, the counters say inactive. */
TEST(hotplug_thread_switched_off)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .no_hotplug = true);
	struct perfring_reader_hotplug st;
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	KTEST_CPU_LOCK_OR_SKIP(&kt);
	REQUIRE(ktest_cpu1_set(false) == 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	REQUIRE(ktest_cpu1_set(true) == 0);
	ktest_sleep_ns(50000000);
	CHECK_EQ_INT(perfring_reader_poll(rd, 100000000ll, ktest_collect_fn, NULL), -ETIMEDOUT);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_hotplug_stats(rd, &st), 0);
	CHECK(!st.active);
	CHECK_EQ_U64(st.rings_added, 0);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	CHECK_EQ_INT(ktest_cpu_unlock(), 0);
}

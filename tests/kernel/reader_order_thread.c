// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records of all rings in time order (opts.order_window_ns): cpu-clock
 * sampling events on CPUs 0 and 1 (PERF_SAMPLE_TID | TIME | CPU), with a
 * thread spinning on each CPU, read by a polling thread. Every record is
 * checked against the one before it: in time order except those the reader
 * counted as late, exactly as many. The same events read without the option
 * come out of order (the check can fail), and with a window of 1 us some
 * records are late and counted.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "ktest.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* order_time_fn case: CPU 1's clock seen 50 ms behind, beyond a 1 ms window. */
static uint64_t skew_ns;

/* The first 24 bytes of a sample body (pid, tid, time, cpu), from one or two spans. */
static void body24(const struct perfring_msg *ev, unsigned char *b)
{
	size_t n = ev->size < 24 ? ev->size : 24;

	memcpy(b, ev->data, n);
	if (n < 24)
		memcpy(b + n, ev->data2, 24 - n);
}

static uint64_t sample_time(const struct perfring_msg *ev)
{
	unsigned char b[24];
	uint64_t t;

	body24(ev, b);
	memcpy(&t, b + 8, 8);
	return ev->cpu == 1 ? t - skew_ns : t;
}

static uint64_t skewed_time(const struct perfring_msg *ev, void *ctx)
{
	(void)ctx;
	if (ev->kind != PERFRING_MSG_SAMPLE || ev->size + ev->size2 < 24)
		return UINT64_MAX;
	return sample_time(ev);
}

struct order_check {
	uint64_t last_t, records, inversions, switches, per_cpu[2], no_time;
	int last_cpu;
	int errors;
	char error[256];
};

static int check_order(const struct perfring_msg *ev, void *ctx)
{
	struct order_check *k = ctx;
	unsigned char b[24];
	uint64_t t;
	uint32_t cpu;

	if (ev->kind != PERFRING_MSG_SAMPLE) {
		k->no_time++;
		return PERFRING_CONTINUE;
	}
	if (ev->size + ev->size2 < 24) {
		if (!k->errors++)
			snprintf(k->error, sizeof(k->error), "sample body of %zu + %zu bytes", ev->size, ev->size2);
		return PERFRING_CONTINUE;
	}
	t = sample_time(ev);
	body24(ev, b);
	memcpy(&cpu, b + 16, 4);
	if ((int)cpu != ev->cpu && !k->errors++)
		snprintf(k->error, sizeof(k->error), "sample of CPU %u in the ring of CPU %d", cpu, ev->cpu);
	if (k->records && t < k->last_t)
		k->inversions++;
	else
		k->last_t = t;
	if (k->records && ev->cpu != k->last_cpu)
		k->switches++;
	k->last_cpu = ev->cpu;
	if (cpu < 2)
		k->per_cpu[cpu]++;
	k->records++;
	return PERFRING_CONTINUE;
}

struct spin {
	int cpu;
	int *stop;
};

static void *spinner(void *arg)
{
	struct spin *s = arg;
	volatile uint64_t x = 0;

	ktest_pin_self(s->cpu);
	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED))
		x++;
	return NULL;
}

struct poller {
	struct perfring_reader *rd;
	struct order_check k;
	int *stop;
	int ret;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;

	for (;;) {
		int ret = perfring_reader_poll(p->rd, 20000000ll, check_order, &p->k);

		if (ret == -PERFRING_EFLUSHED)
			return NULL;
		if (ret < 0 && ret != -ETIMEDOUT) {
			p->ret = ret;
			return NULL;
		}
		/* Stay busy elsewhere now and then, so that rings fill in between. */
		ktest_sleep_ns(2000000);
	}
}

static int open_clock(int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 50000; /* ns: 20 kHz */
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.wakeup_events = 1;
	a.disabled = 1;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Sample both CPUs for run_ns; returns the checks, and the reader's counters. */
static size_t data_pages = 64;

static void run(uint64_t window_ns, uint64_t run_ns, struct order_check *out, struct perfring_reader_order *st)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = data_pages,
							      .order_window_ns = window_ns, .order_sample_type = ST,
							      .order_sample_id_all = true);

	if (skew_ns)
		opts.order_time_fn = skewed_time;
	struct spin s[2];
	pthread_t ts[2], tp;
	struct poller *p;
	int fds[2], i, stop = 0;

	p = calloc(1, sizeof(*p));
	REQUIRE(p);
	p->rd = perfring_reader_new(&opts);
	REQUIREF(p->rd, "perfring_reader_new: %s", perfring_errmsg());
	for (i = 0; i < 2; i++) {
		fds[i] = open_clock(i);
		REQUIREF(fds[i] >= 0, "perf_event_open(cpu-clock, CPU %d): %s", i, strerror(errno));
		REQUIRE(perfring_reader_add(p->rd, fds[i], i) == i);
	}
	for (i = 0; i < 2; i++) {
		s[i].cpu = i;
		s[i].stop = &stop;
		REQUIRE(pthread_create(&ts[i], NULL, spinner, &s[i]) == 0);
	}
	REQUIRE(pthread_create(&tp, NULL, poll_thread, p) == 0);
	for (i = 0; i < 2; i++)
		ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
	ktest_sleep_ns(run_ns);
	for (i = 0; i < 2; i++)
		ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	perfring_reader_flush(p->rd);
	REQUIRE(pthread_join(tp, NULL) == 0);
	for (i = 0; i < 2; i++)
		pthread_join(ts[i], NULL);
	CHECKF(p->ret == 0, "poll failed: %d (%s)", p->ret, perfring_strerror(p->ret));
	CHECKF(!p->k.errors, "%s", p->k.error);
	memset(st, 0, sizeof(*st));
	CHECK_EQ_INT(perfring_reader_order_stats(p->rd, st), 0);
	*out = p->k;
	perfring_reader_free(p->rd);
	for (i = 0; i < 2; i++)
		close(fds[i]);
	free(p);
}

TEST(order_thread_cpu_clock_two_cpus)
{
	struct perfring_reader_order st, st_off, st_tight;
	struct order_check k, k_off, k_tight;

	if (geteuid() != 0)
		SKIP("needs root (CPU-wide perf events)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs 2 online CPUs");
	run(20000000, 400000000, &k, &st);
	printf("# window 20 ms: %llu records (CPU 0 %llu, CPU 1 %llu), %llu CPU switches, %llu late, %llu forced\n",
	       (unsigned long long)k.records, (unsigned long long)k.per_cpu[0], (unsigned long long)k.per_cpu[1],
	       (unsigned long long)k.switches, (unsigned long long)st.late, (unsigned long long)st.forced);
	CHECK(st.active);
	/* 8000 a CPU expected; a loaded VM (stolen vCPU, a CPU briefly offline) gives fewer */
	CHECKF(k.per_cpu[0] > 200 && k.per_cpu[1] > 200, "too few samples: %llu and %llu",
	       (unsigned long long)k.per_cpu[0], (unsigned long long)k.per_cpu[1]);
	/* Record by record: in order, but for the ones counted late. */
	CHECK_EQ_U64(k.inversions, st.late);
	CHECKF(k.switches > 100, "the merge interleaved the CPUs only %llu times", (unsigned long long)k.switches);
	CHECK_EQ_U64(st.held, 0);
	CHECK_EQ_U64(st.held_bytes, 0);

	/* The same, unordered: out of order (so the check above can fail). */
	run(0, 200000000, &k_off, &st_off);
	printf("# unordered: %llu records, %llu out of order\n", (unsigned long long)k_off.records,
	       (unsigned long long)k_off.inversions);
	CHECK(!st_off.active);
	CHECKF(k_off.inversions > 0, "an unordered reader delivered %llu records in time order",
	       (unsigned long long)k_off.records);

	/* A 1 us window, below the reader's own delays: records come late, all counted. */
	run(1000, 200000000, &k_tight, &st_tight);
	printf("# window 1 us: %llu records, %llu late (counted %llu)\n", (unsigned long long)k_tight.records,
	       (unsigned long long)k_tight.inversions, (unsigned long long)st_tight.late);
	CHECK_EQ_U64(k_tight.inversions, st_tight.late);

	/* Through order_time_fn, with CPU 1 50 ms behind a 1 ms window: its
	 * records keep coming late, each counted. */
	skew_ns = 50000000;
	run(1000000, 200000000, &k_tight, &st_tight);
	skew_ns = 0;
	printf("# skewed: %llu records, %llu late (counted %llu)\n", (unsigned long long)k_tight.records,
	       (unsigned long long)k_tight.inversions, (unsigned long long)st_tight.late);
	CHECKF(st_tight.late > 100, "only %llu records late", (unsigned long long)st_tight.late);
	CHECK_EQ_U64(k_tight.inversions, st_tight.late);

	/* A 10 s window on one-page rings: the queues fill and release
	 * everything (forced); still in order but for the late ones, and
	 * nothing is left held. */
	data_pages = 1;
	run(10000000000ull, 300000000, &k_tight, &st_tight);
	data_pages = 64;
	printf("# one-page rings, 10 s window: %llu records, %llu forced releases, %llu late\n",
	       (unsigned long long)k_tight.records, (unsigned long long)st_tight.forced,
	       (unsigned long long)st_tight.late);
	CHECKF(st_tight.forced > 0, "the queues never filled");
	CHECKF(k_tight.per_cpu[0] > 200 && k_tight.per_cpu[1] > 200, "too few samples: %llu and %llu",
	       (unsigned long long)k_tight.per_cpu[0], (unsigned long long)k_tight.per_cpu[1]);
	CHECK_EQ_U64(k_tight.inversions, st_tight.late);
	CHECK_EQ_U64(st_tight.held, 0);
}

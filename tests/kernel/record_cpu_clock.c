// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of cpu-clock samples of this very process (pid 0, cpu -1,
 * every 100 us, sample_type IP | TID | TIME | CPU | PERIOD | CALLCHAIN,
 * sample_id_all, times on CLOCK_MONOTONIC) while it spins in rt_spin_ns():
 * every record decodes, pid/tid are ours, cpu is a real CPU, period is the
 * sample_period, times are monotonic and inside the test's window, call
 * chains start with a context marker followed by the sample's own ip, and
 * user-mode samples land in rt_spin_ns() (whose exact range the test knows)
 * or another executable mapping of the process.
 */
#include "rectest.h"

#define PERIOD_NS 100000ull

struct cc_stats {
	uint64_t samples, user, kernel, in_spin, caller_in_exe, other, lost;
	uint64_t last_time;
};

static void check_callchain(const struct perfring_sample *s, uint16_t misc, const struct rt_maps *maps,
			    struct cc_stats *st, struct rt_err *e)
{
	const struct perfring_u64_array *cc = &s->callchain;
	unsigned mode = perfring_misc_cpumode(misc);
	uint64_t i, first, user_at = UINT64_MAX;

	if (cc->nr < 2 || cc->nr > 127 + 2 * 4) { /* max_stack 127 plus context markers */
		rt_errf(e, "callchain of %llu entries", (unsigned long long)cc->nr);
		return;
	}
	if (cc->swapped)
		rt_errf(e, "callchain says swapped on a host-order ring");
	first = perfring_u64_at(cc, 0);
	if (!perfring_callchain_is_context(first))
		rt_errf(e, "callchain[0] = %#llx is not a context marker", (unsigned long long)first);
	if (perfring_u64_at(cc, 1) != s->ip)
		rt_errf(e, "callchain[1] = %#llx, sample ip %#llx (the chain starts at the ip)",
			(unsigned long long)perfring_u64_at(cc, 1), (unsigned long long)s->ip);
	for (i = 0; i < cc->nr; i++) {
		uint64_t ip = perfring_u64_at(cc, i);
		const char *name = perfring_callchain_context_name(ip);

		if (!perfring_callchain_is_context(ip))
			continue;
		if (ip == RT_CONTEXT_USER) {
			if (!name || strcmp(name, "user"))
				rt_errf(e, "context name of PERF_CONTEXT_USER: %s", name ?: "NULL");
			user_at = i;
		} else if (ip == RT_CONTEXT_KERNEL) {
			if (!name || strcmp(name, "kernel"))
				rt_errf(e, "context name of PERF_CONTEXT_KERNEL: %s", name ?: "NULL");
			if (i != 0)
				rt_errf(e, "PERF_CONTEXT_KERNEL at callchain[%llu]", (unsigned long long)i);
		} else {
			rt_errf(e, "unexpected context marker %#llx (%s)", (unsigned long long)ip, name ?: "NULL");
		}
	}
	if (mode == PERF_RECORD_MISC_USER) {
		if (first != RT_CONTEXT_USER)
			rt_errf(e, "user-mode sample whose chain starts with %#llx", (unsigned long long)first);
		if (!rt_in_any_text(maps, s->ip))
			rt_errf(e, "user-mode ip %#llx is in no executable mapping", (unsigned long long)s->ip);
		st->user++;
		if (rt_in_spin(s->ip)) {
			st->in_spin++;
			/* rt_spin_ns() keeps a frame pointer: its return address is in the binary. */
			if (cc->nr > 2 && rt_in_exe_text(maps, perfring_u64_at(cc, 2)))
				st->caller_in_exe++;
		}
	} else if (mode == PERF_RECORD_MISC_KERNEL) {
		if (first != RT_CONTEXT_KERNEL)
			rt_errf(e, "kernel-mode sample whose chain starts with %#llx", (unsigned long long)first);
		if (s->ip < RT_KERNEL_ADDR_MIN)
			rt_errf(e, "kernel-mode ip %#llx", (unsigned long long)s->ip);
		/* A user thread's kernel sample goes on with its user part. */
		if (user_at == UINT64_MAX || user_at + 1 >= cc->nr)
			rt_errf(e, "kernel-mode sample of a user thread without a user part (%llu entries)",
				(unsigned long long)cc->nr);
		else if (!rt_in_any_text(maps, perfring_u64_at(cc, user_at + 1)))
			rt_errf(e, "first user address %#llx of a kernel sample is in no executable mapping",
				(unsigned long long)perfring_u64_at(cc, user_at + 1));
		st->kernel++;
	} else {
		rt_errf(e, "sample with cpumode %u", mode);
	}
}

TEST(cpu_clock_samples_of_self)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_maps *maps = calloc(1, sizeof(*maps));
	struct rt_err e = { 0 }, setup = { 0 };
	struct cc_stats st = { 0 };
	uint64_t t0, t1, id;
	int fd, ncpus = rt_ncpus_conf();
	size_t i;

	REQUIRE(maps);
	rt_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = PERIOD_NS;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	CHECK_EQ_U64(cfg.sample_type, attr.sample_type);
	CHECK(cfg.sample_id_all);
	CHECK(!cfg.swapped);
	CHECK_EQ_U64(cfg.id_trailer_size, 24); /* tid, time, cpu */

	fd = rt_perf_open(&attr, 0, -1, -1);
	REQUIREF(fd >= 0, "perf_event_open(cpu-clock): %s", strerror(-fd));
	id = rt_event_id(fd);
	ring = rt_ring(fd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	t0 = rt_now_ns();
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 300000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	t1 = rt_now_ns();
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	REQUIRE(!recs.oom);
	REQUIRE(rt_maps_load(maps) == 0);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_sample *s = &d.u.sample;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SAMPLE) {
			/* LOST, THROTTLE, UNTHROTTLE: their trailer is ours too. */
			rt_check_trailer(&cfg, &d, getpid(), gettid(), t0, t1, &e);
			if (d.type == PERF_RECORD_LOST) {
				if (d.u.lost.id != id || d.u.lost.lost == 0)
					rt_errf(&e, "LOST id %llu lost %llu (event id %llu)",
						(unsigned long long)d.u.lost.id, (unsigned long long)d.u.lost.lost,
						(unsigned long long)id);
				st.lost += d.u.lost.lost;
			} else if (d.type == PERF_RECORD_THROTTLE || d.type == PERF_RECORD_UNTHROTTLE) {
				if (d.u.throttle.id != id || d.u.throttle.time < t0 || d.u.throttle.time > t1)
					rt_errf(&e, "%s id %llu time %llu", perfring_record_type_name(d.type),
						(unsigned long long)d.u.throttle.id,
						(unsigned long long)d.u.throttle.time);
			} else {
				rt_errf(&e, "unexpected record %s", perfring_record_type_name(d.type) ?: "?");
			}
			st.other++;
			continue;
		}
		st.samples++;
		if (s->present != attr.sample_type)
			rt_errf(&e, "sample present %#llx", (unsigned long long)s->present);
		if (s->pid != (uint32_t)getpid() || s->tid != (uint32_t)gettid())
			rt_errf(&e, "sample pid/tid %u/%u, we are %d/%d", s->pid, s->tid, getpid(), gettid());
		if (s->cpu >= (uint32_t)ncpus || s->cpu_res != 0)
			rt_errf(&e, "sample cpu %u res %u (%d CPUs)", s->cpu, s->cpu_res, ncpus);
		if (s->period != PERIOD_NS)
			rt_errf(&e, "sample period %llu, sample_period %llu", (unsigned long long)s->period,
				PERIOD_NS);
		if (s->time < t0 || s->time > t1)
			rt_errf(&e, "sample time %llu outside [%llu, %llu]", (unsigned long long)s->time,
				(unsigned long long)t0, (unsigned long long)t1);
		if (s->time < st.last_time)
			rt_errf(&e, "sample time %llu after %llu", (unsigned long long)s->time,
				(unsigned long long)st.last_time);
		st.last_time = s->time;
		/* header 8, ip, tid, time, cpu, period: 40, callchain nr: 8 */
		if (d.size != 8 + 40 + 8 + 8 * s->callchain.nr)
			rt_errf(&e, "sample size %u for a %llu-entry chain", d.size,
				(unsigned long long)s->callchain.nr);
		if ((const uint8_t *)s->callchain.data != (const uint8_t *)rt_rec(&recs, i) + 56)
			rt_errf(&e, "callchain view at offset %td, expected 56",
				(const uint8_t *)s->callchain.data - (const uint8_t *)rt_rec(&recs, i));
		check_callchain(s, d.misc, maps, &st, &e);
	}
	printf("  %llu samples (%llu user, %llu kernel, %llu in rt_spin_ns, %llu with the caller in the binary), "
	       "%llu other records, %llu lost, %llu straddled\n", (unsigned long long)st.samples,
	       (unsigned long long)st.user, (unsigned long long)st.kernel, (unsigned long long)st.in_spin,
	       (unsigned long long)st.caller_in_exe, (unsigned long long)st.other, (unsigned long long)st.lost,
	       (unsigned long long)recs.straddled);
	RT_CHECK_NO_ERR(&e, "records");
	/* 300 ms at one sample per 100 us is 3000; throttling may cut that. */
	CHECKF(st.samples >= 200, "only %llu samples", (unsigned long long)st.samples);
	CHECKF(st.in_spin >= 100, "only %llu user samples inside rt_spin_ns()", (unsigned long long)st.in_spin);
	CHECKF(st.caller_in_exe >= st.in_spin / 2, "%llu of %llu samples in rt_spin_ns() have their caller in "
	       "the binary", (unsigned long long)st.caller_in_exe, (unsigned long long)st.in_spin);
	CHECK_EQ_U64(st.lost, recs.lost);

	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	free(maps);
}

/* The same event with exclude_kernel: only user-mode samples, chains of user addresses only. */
TEST(cpu_clock_user_only)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_maps *maps = calloc(1, sizeof(*maps));
	struct rt_err e = { 0 }, setup = { 0 };
	struct cc_stats st = { 0 };
	int fd;
	size_t i;

	REQUIRE(maps);
	rt_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = PERIOD_NS;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	fd = rt_perf_open(&attr, 0, -1, -1);
	REQUIREF(fd >= 0, "perf_event_open(cpu-clock, exclude_kernel): %s", strerror(-fd));
	ring = rt_ring(fd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 200000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	REQUIRE(rt_maps_load(maps) == 0);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_sample *s = &d.u.sample;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e) ||
		    d.type != PERF_RECORD_SAMPLE)
			continue;
		st.samples++;
		if (perfring_misc_cpumode(d.misc) != PERF_RECORD_MISC_USER)
			rt_errf(&e, "exclude_kernel sample with cpumode %u", perfring_misc_cpumode(d.misc));
		if (s->pid != (uint32_t)getpid() || s->tid != (uint32_t)gettid())
			rt_errf(&e, "sample pid/tid %u/%u", s->pid, s->tid);
		if (s->ip >= RT_KERNEL_ADDR_MIN)
			rt_errf(&e, "exclude_kernel sample with ip %#llx", (unsigned long long)s->ip);
		check_callchain(s, d.misc, maps, &st, &e);
	}
	printf("  %llu samples, %llu in rt_spin_ns\n", (unsigned long long)st.samples,
	       (unsigned long long)st.in_spin);
	RT_CHECK_NO_ERR(&e, "records");
	CHECKF(st.samples >= 100, "only %llu samples", (unsigned long long)st.samples);
	CHECKF(st.in_spin >= st.samples / 2, "%llu of %llu samples inside rt_spin_ns()",
	       (unsigned long long)st.in_spin, (unsigned long long)st.samples);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	free(maps);
}

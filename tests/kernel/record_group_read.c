// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of read_format data:
 *  - SAMPLE READ of a group (task-clock leader sampling every 1 ms of task
 *    time, cpu-clock member) with GROUP | ID | TOTAL_TIME_ENABLED |
 *    TOTAL_TIME_RUNNING | LOST: nr == 2, the ids are those of
 *    PERF_EVENT_IOC_ID in group order, no loss, values and times
 *    non-decreasing and bounded by what read() gives afterwards;
 *  - SAMPLE READ without GROUP (ID | TOTAL_TIME_*, and ID alone): one value
 *    with the event's id;
 *  - PERF_RECORD_READ: a counting task-clock with inherit and inherit_stat
 *    reports a child's count when the child exits: pid/tid of the child,
 *    the parent event's id, a count covering the CPU time the child burnt.
 */
#include <sys/wait.h>

#include "rectest.h"

#define LEADER_PERIOD_NS 1000000ull

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1u << 4)
#endif

static uint64_t u64_at(const void *p, size_t i)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)p + 8 * i, 8);
	return v;
}

TEST(group_read_samples)
{
	struct perf_event_attr la, ma;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	struct perfring_read_value last[2] = { { 0 } };
	uint64_t lid, mid, last_enabled = 0, last_running = 0, fin[2 + 3 * 2 + 1];
	int lfd, mfd, samples = 0, j;
	uint64_t fmt = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;
	size_t i;

	rt_attr_init(&la, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	la.sample_period = LEADER_PERIOD_NS;
	la.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	la.read_format = fmt;
	la.disabled = 1;
	rt_attr_init(&ma, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	ma.read_format = fmt;
	REQUIRE(perfring_parse_config_init(&cfg, &la, false) == 0);
	CHECK_EQ_U64(cfg.read_format, fmt);

	lfd = rt_perf_open(&la, 0, -1, -1);
	REQUIREF(lfd >= 0, "perf_event_open(task-clock leader): %s", strerror(-lfd));
	mfd = rt_perf_open(&ma, 0, -1, lfd);
	REQUIREF(mfd >= 0, "perf_event_open(cpu-clock member): %s", strerror(-mfd));
	lid = rt_event_id(lfd);
	mid = rt_event_id(mfd);
	REQUIRE(lid && mid && lid != mid);
	ring = rt_ring(lfd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	REQUIRE(ioctl(lfd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 150000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(lfd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	/* {nr, time_enabled, time_running, {value, id, lost} x 2} */
	REQUIRE(read(lfd, fin, sizeof(fin)) == 8 * (3 + 3 * 2));
	CHECK_EQ_U64(fin[0], 2);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_read_values *r = &d.u.sample.read;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SAMPLE) {
			rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
			continue;
		}
		samples++;
		if (d.u.sample.pid != (uint32_t)getpid() || d.u.sample.tid != (uint32_t)gettid())
			rt_errf(&e, "sample pid/tid %u/%u", d.u.sample.pid, d.u.sample.tid);
		if (r->format != fmt || r->nr != 2 || r->stride != 24 || r->swapped) {
			rt_errf(&e, "read values: format %#llx nr %llu stride %u swapped %d",
				(unsigned long long)r->format, (unsigned long long)r->nr, r->stride,
				r->swapped);
			continue;
		}
		/* header, tid, time, then {nr, enabled, running, {value, id, lost} x 2} */
		if (d.size != 8 + 16 + 8 * 9 || (const uint8_t *)r->values != (const uint8_t *)d.raw + 48)
			rt_errf(&e, "SAMPLE of %u bytes, values at offset %td", d.size,
				(const uint8_t *)r->values - (const uint8_t *)d.raw);
		if (r->time_enabled < last_enabled || r->time_running < last_running ||
		    r->time_running > r->time_enabled)
			rt_errf(&e, "times enabled %llu running %llu after %llu %llu",
				(unsigned long long)r->time_enabled, (unsigned long long)r->time_running,
				(unsigned long long)last_enabled, (unsigned long long)last_running);
		if (r->time_enabled != u64_at(d.raw, 4) || r->time_running != u64_at(d.raw, 5))
			rt_errf(&e, "times %llu %llu, the record holds %llu %llu",
				(unsigned long long)r->time_enabled, (unsigned long long)r->time_running,
				(unsigned long long)u64_at(d.raw, 4), (unsigned long long)u64_at(d.raw, 5));
		last_enabled = r->time_enabled;
		last_running = r->time_running;
		for (j = 0; j < 2; j++) {
			struct perfring_read_value v;

			memset(&v, 0xa5, sizeof(v));
			perfring_read_value_at(r, (uint64_t)j, &v);
			if (v.id != (j ? mid : lid) || v.lost != 0)
				rt_errf(&e, "value %d: id %llu lost %llu; ids are %llu, %llu", j,
					(unsigned long long)v.id, (unsigned long long)v.lost,
					(unsigned long long)lid, (unsigned long long)mid);
			if (v.value < last[j].value || v.value > fin[3 + 3 * j])
				rt_errf(&e, "value %d: %llu after %llu, final %llu", j, (unsigned long long)v.value,
					(unsigned long long)last[j].value, (unsigned long long)fin[3 + 3 * j]);
			/* Clocks in ns: never above the time the group was enabled. */
			if (v.value > r->time_enabled + 1000000)
				rt_errf(&e, "value %d: %llu ns in %llu ns enabled", j, (unsigned long long)v.value,
					(unsigned long long)r->time_enabled);
			last[j] = v;
		}
	}
	printf("  %d group samples; last: task-clock %llu, cpu-clock %llu, enabled %llu; read() %llu %llu\n", samples,
	       (unsigned long long)last[0].value, (unsigned long long)last[1].value, (unsigned long long)last_enabled,
	       (unsigned long long)fin[3], (unsigned long long)fin[6]);
	RT_CHECK_NO_ERR(&e, "records");
	/* 150 ms of spinning, one sample per ms of task time. */
	CHECKF(samples >= 50, "%d samples", samples);
	CHECKF(last[0].value >= (uint64_t)(samples - 1) * LEADER_PERIOD_NS,
	       "task-clock %llu after %d samples of %llu", (unsigned long long)last[0].value, samples,
	       LEADER_PERIOD_NS);
	CHECK_EQ_U64(fin[4], lid);
	CHECK_EQ_U64(fin[7], mid);
	perfring_ring_free(ring);
	close(mfd);
	close(lfd);
	rt_recs_free(&recs);
}

/* SAMPLE READ of a single event, with and without the times. */
static void single_read_test(uint64_t fmt)
{
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	uint64_t id, last = 0;
	int fd, samples = 0;
	size_t i, nwords = 1 + !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) +
			   !!(fmt & PERF_FORMAT_ID);

	rt_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = LEADER_PERIOD_NS;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ;
	a.read_format = fmt;
	a.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &a, false) == 0);
	fd = rt_perf_open(&a, 0, -1, -1);
	REQUIREF(fd >= 0, "perf_event_open(task-clock): %s", strerror(-fd));
	id = rt_event_id(fd);
	ring = rt_ring(fd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 60000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	CHECK(rt_drain_copy(ring, &recs) >= 0);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_read_values *r = &d.u.sample.read;
		struct perfring_read_value v;
		size_t w = 2; /* after the header and tid */

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e) || d.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		if (d.size != 16 + 8 * nwords) {
			rt_errf(&e, "SAMPLE of %u bytes for %zu read words", d.size, nwords);
			continue;
		}
		if (r->format != fmt || r->nr != 1)
			rt_errf(&e, "read values: format %#llx nr %llu", (unsigned long long)r->format,
				(unsigned long long)r->nr);
		memset(&v, 0xa5, sizeof(v));
		perfring_read_value_at(r, 0, &v);
		/* {value, [enabled], [running], [id]}, checked word by word */
		if (v.value != u64_at(d.raw, w++) || v.value < last)
			rt_errf(&e, "value %llu (record %llu, previous %llu)", (unsigned long long)v.value,
				(unsigned long long)u64_at(d.raw, 2), (unsigned long long)last);
		last = v.value;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			if (r->time_enabled != u64_at(d.raw, w++) || v.value > r->time_enabled + 1000000)
				rt_errf(&e, "time_enabled %llu for value %llu", (unsigned long long)r->time_enabled,
					(unsigned long long)v.value);
		}
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) {
			if (r->time_running != u64_at(d.raw, w++) || r->time_running > r->time_enabled)
				rt_errf(&e, "time_running %llu", (unsigned long long)r->time_running);
		}
		if (v.id != ((fmt & PERF_FORMAT_ID) ? id : 0) || v.lost != 0)
			rt_errf(&e, "id %llu lost %llu, event id %llu", (unsigned long long)v.id,
				(unsigned long long)v.lost, (unsigned long long)id);
	}
	printf("  read_format %#llx: %d samples, last value %llu\n", (unsigned long long)fmt, samples,
	       (unsigned long long)last);
	RT_CHECK_NO_ERR(&e, "records");
	CHECKF(samples >= 20, "%d samples", samples);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
}

TEST(single_read_samples_times_id)
{
	single_read_test(PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
}

TEST(single_read_samples_id_only)
{
	single_read_test(PERF_FORMAT_ID);
}

TEST(single_read_samples_value_only)
{
	single_read_test(0);
}

/* Burn CPU time (not wall time) in a child: its task-clock is then known from below. */
static void burn_cpu_ns(uint64_t ns)
{
	uint64_t start = rt_thread_cpu_ns();

	while (rt_thread_cpu_ns() - start < ns)
		rt_spin_ns(1000000);
}

/*
 * inherit + mmap needs per-CPU events (a per-task inherited event cannot
 * be mapped): the READ record goes to the ring of the CPU the child exits
 * on, with the id of that CPU's event.
 *
 * The kernel emits READ only for inherited (child) events when their task
 * exits. When every event of the parent's context is inherited, the
 * child's context is a clone, and a direct switch between the two tasks on
 * one CPU may swap the contexts: the child then exits holding the parent's
 * original events, and no READ comes. One event of ours that is not
 * inherited (the anchor) keeps the child's context from being a clone.
 */
TEST(read_record_of_exiting_child)
{
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct rt_percpu *pc = calloc(1, sizeof(*pc));
	struct rt_err e = { 0 }, setup = { 0 };
	uint64_t t0, t1, fmt = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct perf_event_attr anchor;
	int status = 0, reads = 0, k, anchor_fd, exit_cpu = -1;
	uint64_t total = 0;
	pid_t child;
	size_t i;

	REQUIRE(pc);
	rt_attr_init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
	a.read_format = fmt;
	a.sample_id_all = 1;
	a.inherit = 1;
	a.inherit_stat = 1;
	a.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &a, false) == 0);
	rt_percpu_open(pc, &a, 0, 16, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(pc->n > 0);
	rt_attr_init(&anchor, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	anchor_fd = rt_perf_open(&anchor, 0, -1, -1);
	REQUIREF(anchor_fd >= 0, "perf_event_open(dummy anchor): %s", strerror(-anchor_fd));

	t0 = rt_now_ns();
	REQUIRE(rt_percpu_ioctl(pc, PERF_EVENT_IOC_ENABLE) == 0);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		burn_cpu_ns(30000000ull);
		_exit(0);
	}
	REQUIRE(child > 0);
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	REQUIRE(rt_percpu_ioctl(pc, PERF_EVENT_IOC_DISABLE) == 0);
	t1 = rt_now_ns();
	CHECK(rt_percpu_drain(pc) == 0);

	for (k = 0; k < pc->n; k++) {
		const struct rt_recs *recs = &pc->recs[k];
		uint64_t id = pc->id[k];

		for (i = 0; i < recs->n; i++) {
			struct perfring_decoded d;
			const struct perfring_rec_read *r = &d.u.read;
			struct perfring_read_value v;

			if (rt_decode(&cfg, rt_rec(recs, i), rt_rec_size(recs, i), &d, &e))
				continue;
			if (d.type != PERF_RECORD_READ) {
				rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
				continue;
			}
			reads++;
			rt_check_trailer(&cfg, &d, child, child, t0, t1, &e);
			/* Each CPU's event reports into its ring, all from the CPU the child exits on. */
			if (exit_cpu < 0)
				exit_cpu = (int)d.sample_id.cpu;
			if (d.sample_id.id != id || d.sample_id.cpu != (uint32_t)exit_cpu)
				rt_errf(&e,
					"READ trailer id %llu cpu %u in the ring of cpu %d, event id %llu, "
					"another READ from cpu %d",
					(unsigned long long)d.sample_id.id, d.sample_id.cpu, pc->cpu[k],
					(unsigned long long)id, exit_cpu);
			/* header, pid/tid, {value, enabled, running, id}, trailer of 32 */
			if (d.size != 8 + 8 + 32 + 32)
				rt_errf(&e, "READ of %u bytes", d.size);
			if (r->pid != (uint32_t)child || r->tid != (uint32_t)child)
				rt_errf(&e, "READ pid/tid %u/%u, child %d", r->pid, r->tid, child);
			if (r->values.format != fmt || r->values.nr != 1) {
				rt_errf(&e, "READ values format %#llx nr %llu", (unsigned long long)r->values.format,
					(unsigned long long)r->values.nr);
				continue;
			}
			perfring_read_value_at(&r->values, 0, &v);
			/* An inherited event reports its parent's id. */
			if (v.id != id || v.lost)
				rt_errf(&e, "READ id %llu lost %llu, event id %llu", (unsigned long long)v.id,
					(unsigned long long)v.lost, (unsigned long long)id);
			/* The child's task-clock on this CPU: at most what it burnt in all, 30 ms
			 * and the little it took to start and exit; within its enabled time. */
			if (v.value > t1 - t0 || v.value > r->values.time_enabled + 1000000 ||
			    r->values.time_running > r->values.time_enabled || r->values.time_enabled > t1 - t0 ||
			    v.value != u64_at(d.raw, 2) || r->values.time_enabled != u64_at(d.raw, 3) ||
			    r->values.time_running != u64_at(d.raw, 4))
				rt_errf(&e, "READ value %llu ns, enabled %llu running %llu, window %llu",
					(unsigned long long)v.value, (unsigned long long)r->values.time_enabled,
					(unsigned long long)r->values.time_running, (unsigned long long)(t1 - t0));
			total += v.value;
		}
	}
	printf("  %d READ records for child %d, task-clock %llu ns in all\n", reads, child,
	       (unsigned long long)total);
	RT_CHECK_NO_ERR(&e, "records");
	/* one per CPU event the child inherited */
	CHECK_EQ_INT(reads, pc->n);
	CHECKF(total >= 30000000ull, "the child's task-clock adds up to %llu ns, it burnt 30 ms",
	       (unsigned long long)total);
	rt_percpu_close(pc);
	close(anchor_fd);
	free(pc);
}

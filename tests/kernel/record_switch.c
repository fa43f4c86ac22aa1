// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of context switch records (attr.context_switch):
 *  - per task (pid 0): PERF_RECORD_SWITCH, no body, switching out and in
 *    strictly alternating, trailers naming this thread, a switch-out while
 *    sleeping never marked as preempted and a switch-in never either;
 *  - CPU-wide (pid -1, cpu N; the test and a partner thread pinned to N,
 *    passing a token back and forth through pipes, then sleeping):
 *    PERF_RECORD_SWITCH_CPU_WIDE whose next_prev_pid/tid chain up: a
 *    switch-out {A -> B} is followed by the switch-in {B <- A}, a switch-in
 *    {B <- P} by B's own switch-out, and our two threads name each other.
 *    The kernel writes no SWITCH records for some tasks (seen here for the
 *    idle task, 0/0): a switch-out to such a task X is followed by the
 *    switch-in {C <- X} of whoever runs after it; that is accepted as a
 *    "silent" link.
 */
#include <pthread.h>

#include "rectest.h"

#define SLEEPS 30
#define SLEEP_NS 1000000ull

static int open_switch_event(struct perf_event_attr *attr, int pid, int cpu)
{
	rt_attr_init(attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	attr->sample_id_all = 1;
	attr->context_switch = 1;
	attr->disabled = 1;
	return rt_perf_open(attr, pid, cpu, -1);
}

/* Run the sleeps with the event enabled; the ring's records land in r. */
static void sleep_with_event(int fd, struct perfring_ring *ring, struct rt_recs *r, uint64_t *t0, uint64_t *t1,
			     struct rt_err *e)
{
	int i, ret;

	*t0 = rt_now_ns();
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		rt_errf(e, "PERF_EVENT_IOC_ENABLE: %s", strerror(errno));
	for (i = 0; i < SLEEPS; i++)
		rt_sleep_ns(SLEEP_NS);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		rt_errf(e, "PERF_EVENT_IOC_DISABLE: %s", strerror(errno));
	*t1 = rt_now_ns();
	ret = rt_drain_copy(ring, r);
	if (ret < 0)
		rt_errf(e, "drain: %d %s", ret, perfring_errmsg());
}

TEST(switch_per_task)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	uint64_t t0, t1, last_time = 0;
	int fd, outs = 0, ins = 0, preempted = 0, switches = 0, other = 0, last_out = -1;
	size_t i;

	fd = open_switch_event(&attr, 0, -1);
	REQUIREF(fd >= 0, "perf_event_open(context_switch): %s", strerror(-fd));
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	ring = rt_ring(fd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	sleep_with_event(fd, ring, &recs, &t0, &t1, &setup);
	RT_CHECK_NO_ERR(&setup, "run");

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		bool out;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SWITCH) {
			other++;
			rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
			continue;
		}
		switches++;
		rt_check_trailer(&cfg, &d, getpid(), gettid(), t0, t1, &e);
		if (d.size != 8 + 24)
			rt_errf(&e, "SWITCH of %u bytes: header and a 24-byte trailer expected", d.size);
		if (d.sample_id.time < last_time)
			rt_errf(&e, "SWITCH time %llu after %llu", (unsigned long long)d.sample_id.time,
				(unsigned long long)last_time);
		last_time = d.sample_id.time;
		out = perfring_misc_switch_out(d.misc);
		if (last_out >= 0 && out == (bool)last_out)
			rt_errf(&e, "record %zu: two switch-%s in a row", i, out ? "outs" : "ins");
		last_out = out;
		if (out) {
			outs++;
			if (perfring_misc_switch_out_preempt(d.misc))
				preempted++;
		} else {
			ins++;
			if (perfring_misc_switch_out_preempt(d.misc))
				rt_errf(&e, "switch-in marked preempted (misc %#x)", d.misc);
		}
		if (d.misc & ~((1u << 13) | (1u << 14)))
			rt_errf(&e, "SWITCH misc %#x has bits besides SWITCH_OUT(_PREEMPT)", d.misc);
	}
	printf("  %d SWITCH records: %d out (%d preempted), %d in; %d other\n", switches, outs, preempted,
	       ins, other);
	RT_CHECK_NO_ERR(&e, "records");
	/* Each sleep switches out (not preempted: the thread is not runnable) and back in. */
	CHECKF(outs - preempted >= SLEEPS, "%d voluntary switch-outs for %d sleeps", outs - preempted, SLEEPS);
	CHECKF(ins >= SLEEPS && ins >= outs - 1 && ins <= outs + 1, "%d switch-ins for %d switch-outs", ins, outs);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
}

/* The partner: pinned to the same CPU, echoes every byte it reads. */
struct partner {
	int cpu;
	int to_partner[2], to_main[2];
	pid_t tid;
};

static void *partner_main(void *arg)
{
	struct partner *p = arg;
	char c;

	rt_pin_self(p->cpu);
	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	while (read(p->to_partner[0], &c, 1) == 1 && c != 'q')
		if (write(p->to_main[1], &c, 1) != 1)
			break;
	return NULL;
}

TEST(switch_cpu_wide)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	struct partner pt = { 0 };
	pthread_t th;
	cpu_set_t old;
	uint64_t t0, t1, last_time = 0;
	int fd, cpu = rt_ncpus_conf() - 1, outs = 0, ins = 0, complete = 0, silent = 0, gaps = 0, self_out = 0, self_in = 0;
	int main_to_partner = 0, partner_to_main = 0, k;
	uint32_t me = (uint32_t)gettid(), partner;
	struct perfring_decoded prev;
	bool have_prev = false;
	size_t i;
	char c;

	memset(&prev, 0, sizeof(prev));
	REQUIRE(sched_getaffinity(0, sizeof(old), &old) == 0);
	REQUIRE(rt_pin_self(cpu) == 0);
	pt.cpu = cpu;
	REQUIRE(pipe2(pt.to_partner, O_CLOEXEC) == 0 && pipe2(pt.to_main, O_CLOEXEC) == 0);
	REQUIRE(pthread_create(&th, NULL, partner_main, &pt) == 0);
	while (!__atomic_load_n(&pt.tid, __ATOMIC_ACQUIRE))
		rt_sleep_ns(100000);
	partner = (uint32_t)pt.tid;
	fd = open_switch_event(&attr, -1, cpu);
	REQUIREF(fd >= 0, "perf_event_open(context_switch, cpu %d): %s", cpu, strerror(-fd));
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	ring = rt_ring(fd, 256, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	t0 = rt_now_ns();
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	for (k = 0; k < SLEEPS; k++) {
		/* the token goes to the partner and back: two switches on this CPU, often direct */
		c = 't';
		CHECK(write(pt.to_partner[1], &c, 1) == 1 && read(pt.to_main[0], &c, 1) == 1);
		rt_sleep_ns(SLEEP_NS);
	}
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	t1 = rt_now_ns();
	c = 'q';
	CHECK(write(pt.to_partner[1], &c, 1) == 1);
	pthread_join(th, NULL);
	sched_setaffinity(0, sizeof(old), &old);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	CHECK_EQ_U64(recs.lost, 0);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_rec_switch_cpu_wide *w = &d.u.switch_cpu_wide, *pw = &prev.u.switch_cpu_wide;
		bool out;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SWITCH_CPU_WIDE) {
			rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
			continue;
		}
		rt_check_trailer(&cfg, &d, -1, -1, t0, t1, &e);
		if (d.sample_id.cpu != (uint32_t)cpu)
			rt_errf(&e, "SWITCH_CPU_WIDE on cpu %u from the ring of cpu %d", d.sample_id.cpu, cpu);
		if (d.size != 8 + 8 + 24)
			rt_errf(&e, "SWITCH_CPU_WIDE of %u bytes", d.size);
		if (d.sample_id.time < last_time)
			rt_errf(&e, "time %llu after %llu", (unsigned long long)d.sample_id.time,
				(unsigned long long)last_time);
		last_time = d.sample_id.time;
		/* Our threads are named with our pid, whichever side they are on. */
		if ((d.sample_id.tid == me || d.sample_id.tid == partner) && d.sample_id.pid != (uint32_t)getpid())
			rt_errf(&e, "trailer tid %u with pid %u", d.sample_id.tid, d.sample_id.pid);
		if ((w->next_prev_tid == me || w->next_prev_tid == partner) && w->next_prev_pid != (uint32_t)getpid())
			rt_errf(&e, "next_prev tid %u with pid %u", w->next_prev_tid, w->next_prev_pid);
		out = perfring_misc_switch_out(d.misc);
		if (out) {
			outs++;
			self_out += d.sample_id.tid == me;
			main_to_partner += d.sample_id.tid == me && w->next_prev_tid == partner;
			partner_to_main += d.sample_id.tid == partner && w->next_prev_tid == me;
			if (w->next_prev_tid == d.sample_id.tid)
				rt_errf(&e, "switch-out of %u to itself", d.sample_id.tid);
		} else {
			ins++;
			self_in += d.sample_id.tid == me;
			if (perfring_misc_switch_out_preempt(d.misc))
				rt_errf(&e, "switch-in marked preempted");
		}
		if (have_prev) {
			bool prev_out = perfring_misc_switch_out(prev.misc);

			if (prev_out == out) {
				rt_errf(&e, "record %zu: two switch-%s in a row", i, out ? "outs" : "ins");
			} else if (prev_out) {
				/* out {A -> X}, then in {B <- P}: B == X and P == A, or X is silent and P == X */
				if (d.sample_id.pid == pw->next_prev_pid && d.sample_id.tid == pw->next_prev_tid &&
				    w->next_prev_pid == prev.sample_id.pid && w->next_prev_tid == prev.sample_id.tid)
					complete++;
				else if (w->next_prev_pid == pw->next_prev_pid &&
					 w->next_prev_tid == pw->next_prev_tid)
					silent++;
				else
					/* Another task ran in between without a record of its own
					 * here (seen with kernel threads on a busy machine). */
					gaps++;
			} else if (d.sample_id.pid != prev.sample_id.pid || d.sample_id.tid != prev.sample_id.tid) {
				/* in {B <- P}: B runs until its own switch-out */
				rt_errf(&e, "record %zu: in of %u/%u then out of %u/%u", i, prev.sample_id.pid,
					prev.sample_id.tid, d.sample_id.pid, d.sample_id.tid);
			}
		}
		prev = d;
		have_prev = true;
	}
	printf("  cpu %d: %d out, %d in; links %d complete, %d silent, %d gaps; this thread out %d, in %d; "
	       "direct main->partner %d, partner->main %d\n", cpu, outs, ins, complete, silent, gaps, self_out,
	       self_in, main_to_partner, partner_to_main);
	RT_CHECK_NO_ERR(&e, "records");
	/* each round: the token (out, in) and the sleep (out, in) */
	CHECKF(self_out >= 2 * SLEEPS && self_in >= 2 * SLEEPS,
	       "this thread switched out %d and in %d times in %d rounds", self_out, self_in, SLEEPS);
	/* Each round passes the token (a link) and sleeps (another), but the
	 * scheduler may run the two back to back without a record between them
	 * on a busy machine; two links per round are certain. */
	CHECKF(complete + silent >= 2 * SLEEPS, "%d links for %d rounds", complete + silent, SLEEPS);
	CHECKF(gaps * 10 <= complete + silent + gaps, "%d of %d switch links unexplained", gaps,
	       complete + silent + gaps);
	CHECKF(main_to_partner >= 1 && partner_to_main >= 1, "direct switches main->partner %d, partner->main %d",
	       main_to_partner, partner_to_main);
	perfring_ring_free(ring);
	close(fd);
	for (k = 0; k < 2; k++) {
		close(pt.to_partner[k]);
		close(pt.to_main[k]);
	}
	rt_recs_free(&recs);
}

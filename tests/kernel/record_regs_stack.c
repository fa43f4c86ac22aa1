// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of user registers and user stack dumps (sample_type
 * REGS_USER | STACK_USER, sample_regs_user = BP | SP | IP, 8 KiB of stack):
 *  - this process's cpu-clock samples while it spins in rt_spin_ns(): abi
 *    64, three registers in bit order (BP, SP, IP), IP == the sample's ip for
 *    user-mode samples, SP inside the [stack] mapping and below the canary
 *    rt_spin_ns() keeps in its frame, stack size 8192 with dyn_size <= 8192,
 *    and the canary found in the dump at SP-relative offset where it lives;
 *  - a CPU-wide sched_switch tracepoint with the same sample_type, where a
 *    kernel thread is made to run by the test: kernel threads' samples
 *    carry abi 0, no registers and an empty stack (no dyn_size), user
 *    tasks' the full set; both decode.
 */
#include <perfring/event.h>

#include "rectest.h"

#define PERF_REG_X86_BP 6
#define PERF_REG_X86_SP 7
#define PERF_REG_X86_IP 8
#define REGS_MASK ((1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) | (1ull << PERF_REG_X86_IP))
#define STACK_BYTES 8192u

#ifndef PERF_SAMPLE_REGS_ABI_64
#define PERF_SAMPLE_REGS_ABI_NONE 0
#define PERF_SAMPLE_REGS_ABI_64 2
#endif

struct rs_stats {
	uint64_t samples, user, kernel, canary_found, canary_in_reach, abi_none;
};

static void open_regs_event(struct perf_event_attr *a)
{
	rt_attr_init(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a->sample_period = 1000000; /* 1 ms: 8 KiB per sample */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = REGS_MASK;
	a->sample_stack_user = STACK_BYTES;
	a->disabled = 1;
}

/* Checks of a sample of this process. */
static void check_own_sample(const struct perfring_decoded *d, const struct rt_mapping *stack, struct rs_stats *st,
			     struct rt_err *e)
{
	const struct perfring_sample *s = &d->u.sample;
	const struct perfring_regs *r = &s->regs_user;
	uint64_t sp, ip, canary = rt_canary_addr;
	unsigned mode = perfring_misc_cpumode(d->misc);

	if (r->abi != PERF_SAMPLE_REGS_ABI_64 || r->regs.nr != 3 || r->mask != REGS_MASK) {
		rt_errf(e, "own sample: regs abi %llu nr %llu mask %#llx", (unsigned long long)r->abi,
			(unsigned long long)r->regs.nr, (unsigned long long)r->mask);
		return;
	}
	/* regs[0] is BP, whatever the code keeps there: not checked */
	sp = perfring_u64_at(&r->regs, 1);
	ip = perfring_u64_at(&r->regs, 2);
	if (sp < stack->start || sp >= stack->end)
		rt_errf(e, "SP %#llx outside [stack] %#llx-%#llx", (unsigned long long)sp,
			(unsigned long long)stack->start, (unsigned long long)stack->end);
	/* header, ip, tid, abi, 3 regs, size, 8192 bytes, dyn_size */
	if (s->stack_user.size != STACK_BYTES || s->stack_user.dyn_size > STACK_BYTES ||
	    d->size != 8 + 16 + 32 + 8 + STACK_BYTES + 8 ||
	    (const uint8_t *)s->stack_user.data != (const uint8_t *)d->raw + 64) {
		rt_errf(e, "own sample of %u bytes: stack size %llu dyn_size %llu data at offset %td", d->size,
			(unsigned long long)s->stack_user.size, (unsigned long long)s->stack_user.dyn_size,
			(const uint8_t *)s->stack_user.data - (const uint8_t *)d->raw);
		return;
	}
	if (mode == PERF_RECORD_MISC_USER) {
		st->user++;
		if (ip != s->ip)
			rt_errf(e, "user-mode sample: IP register %#llx, sample ip %#llx", (unsigned long long)ip,
				(unsigned long long)s->ip);
		/* dyn_size is what could be copied from SP: a spinning thread's stack is all there. */
		if (s->stack_user.dyn_size == 0)
			rt_errf(e, "user-mode sample with an empty stack dump");
		if (rt_in_spin(s->ip) && canary && sp <= canary && canary + 16 - sp <= s->stack_user.dyn_size) {
			uint64_t c[2];

			st->canary_in_reach++;
			memcpy(c, (const uint8_t *)s->stack_user.data + (canary - sp), 16);
			if (c[0] == RT_CANARY0 && c[1] == RT_CANARY1)
				st->canary_found++;
			else
				rt_errf(e, "stack dump at SP %#llx: canary at +%llu reads %#llx %#llx",
					(unsigned long long)sp, (unsigned long long)(canary - sp),
					(unsigned long long)c[0], (unsigned long long)c[1]);
		}
	} else {
		/* In the kernel on our behalf: the registers are those the thread left user mode with. */
		st->kernel++;
		if (ip >= RT_KERNEL_ADDR_MIN)
			rt_errf(e, "kernel-mode sample: user IP register %#llx", (unsigned long long)ip);
	}
}

TEST(regs_stack_own_samples)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_maps *maps = calloc(1, sizeof(*maps));
	const struct rt_mapping *stack;
	struct rt_err e = { 0 }, setup = { 0 };
	struct rs_stats st = { 0 };
	int fd;
	size_t i;

	REQUIRE(maps);
	open_regs_event(&attr);
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	CHECK_EQ_U64(cfg.nr_regs_user, 3);
	CHECK_EQ_U64(cfg.sample_regs_user, REGS_MASK);
	fd = rt_perf_open(&attr, 0, -1, -1);
	REQUIREF(fd >= 0, "perf_event_open(cpu-clock, regs and stack): %s", strerror(-fd));
	ring = rt_ring(fd, 256, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 200000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	REQUIRE(rt_maps_load(maps) == 0);
	stack = rt_maps_named(maps, "[stack]");
	REQUIRE(stack);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SAMPLE) {
			if (d.type != PERF_RECORD_LOST)
				rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
			continue;
		}
		st.samples++;
		if (d.u.sample.pid != (uint32_t)getpid() || d.u.sample.tid != (uint32_t)gettid())
			rt_errf(&e, "sample pid/tid %u/%u", d.u.sample.pid, d.u.sample.tid);
		check_own_sample(&d, stack, &st, &e);
	}
	printf("  %llu samples (%llu user, %llu kernel); canary in reach %llu, found %llu\n",
	       (unsigned long long)st.samples, (unsigned long long)st.user, (unsigned long long)st.kernel,
	       (unsigned long long)st.canary_in_reach, (unsigned long long)st.canary_found);
	RT_CHECK_NO_ERR(&e, "records");
	CHECKF(st.samples >= 50, "%llu samples in 200 ms at 1 kHz", (unsigned long long)st.samples);
	CHECKF(st.canary_found >= 20, "the canary was found in %llu stack dumps",
	       (unsigned long long)st.canary_found);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	free(maps);
}

/* PF_KTHREAD of /proc/PID/stat's flags: 1 yes, 0 no, -1 unknown (gone). pid 0 is the idle task. */
static int is_kthread(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags;
	FILE *f;
	int i, ret = -1;

	if (pid == 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* after "pid (comm)": state ppid pgrp session tty_nr tpgid flags */
		p++;
		for (i = 0; i < 6 && p; i++)
			p = strchr(p + 1, ' ');
		/* An exiting task (PF_EXITING: a zombie, or on its way) has given
		 * up its mm, so its last switch-out samples no user registers:
		 * neither a kernel thread nor a user task for the checks. */
		if (p && sscanf(p, " %lu", &flags) == 1)
			ret = (flags & 0x00000004) ? -1 : !!(flags & 0x00200000); /* PF_EXITING, PF_KTHREAD */
	}
	fclose(f);
	return ret;
}

/*
 * A CPU-wide sched_switch tracepoint on CPU N with the same sample_type:
 * each switch samples the task leaving the CPU. The test hops its affinity
 * away from N while running there, which makes the kernel's stopper thread
 * (migration/N, a kernel thread) run on N and leave it: a sample of a
 * kernel thread, guaranteed, whatever else the machine runs. Kernel
 * threads' samples carry abi 0, no registers and an empty stack; user
 * tasks' (ours among them) abi 64, three registers and 8 KiB of stack.
 */
TEST(regs_stack_kthread_abi_none)
{
	char why[64];
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_maps *maps = calloc(1, sizeof(*maps));
	const struct rt_mapping *stack;
	struct rt_err e = { 0 }, setup = { 0 };
	struct rs_stats st = { 0 };
	uint64_t kthread_checked = 0, user_tasks = 0;
	cpu_set_t old;
	int fd, cpu = rt_ncpus_conf() - 1, other = 0, k, idfd;
	unsigned long long id = 0;
	char tracefs[256], path[320];
	size_t i;

	REQUIRE(maps);
	REQUIREF(cpu > 0, "needs two CPUs to hop between");
	/* Found (or mounted: a fresh machine has no tracefs) by the library, never assumed. */
	REQUIREF(perfring_tracefs_path(tracefs, sizeof(tracefs)) == 0, "tracefs: %s", perfring_errmsg());
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", tracefs);
	idfd = open(path, O_RDONLY | O_CLOEXEC);
	REQUIREF(idfd >= 0, "%s: %s", path, strerror(errno));
	memset(why, 0, sizeof(why));
	CHECK(read(idfd, why, sizeof(why) - 1) > 0);
	close(idfd);
	id = strtoull(why, NULL, 10);
	REQUIRE(id > 0);
	REQUIRE(sched_getaffinity(0, sizeof(old), &old) == 0);
	rt_attr_init(&attr, PERF_TYPE_TRACEPOINT, id);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr.sample_regs_user = REGS_MASK;
	attr.sample_stack_user = STACK_BYTES;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	fd = rt_perf_open(&attr, -1, cpu, -1);
	REQUIREF(fd >= 0, "perf_event_open(sched_switch, cpu %d): %s", cpu, strerror(-fd));
	ring = rt_ring(fd, 512, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	REQUIRE(rt_pin_self(cpu) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	for (k = 0; k < 10; k++) {
		rt_spin_ns(1000000);
		CHECK(rt_pin_self(other) == 0); /* migration/N moves us off N */
		CHECK(rt_pin_self(cpu) == 0);
		rt_sleep_ns(1000000);
		CHECK(rt_drain_copy(ring, &recs) >= 0);
	}
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	sched_setaffinity(0, sizeof(old), &old);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	REQUIRE(rt_maps_load(maps) == 0);
	stack = rt_maps_named(maps, "[stack]");
	REQUIRE(stack);

	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;
		const struct perfring_sample *s = &d.u.sample;
		int kt;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e))
			continue;
		if (d.type != PERF_RECORD_SAMPLE) {
			if (d.type != PERF_RECORD_LOST)
				rt_errf(&e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
			continue;
		}
		st.samples++;
		if (perfring_misc_cpumode(d.misc) != PERF_RECORD_MISC_KERNEL)
			rt_errf(&e, "sched_switch sample in cpumode %u", perfring_misc_cpumode(d.misc));
		kt = is_kthread(s->pid);
		if (s->regs_user.abi == PERF_SAMPLE_REGS_ABI_NONE) {
			/* nothing after abi, and a stack size of 0 without dyn_size */
			st.abi_none++;
			if (s->regs_user.regs.nr != 0 || s->stack_user.size != 0 || s->stack_user.dyn_size != 0 ||
			    d.size != 8 + 16 + 8 + 8)
				rt_errf(&e, "pid %u, abi 0: %llu regs, stack size %llu dyn %llu, record of %u bytes",
					s->pid, (unsigned long long)s->regs_user.regs.nr,
					(unsigned long long)s->stack_user.size,
					(unsigned long long)s->stack_user.dyn_size, d.size);
			if (kt == 0)
				rt_errf(&e, "abi 0 for pid %u, a user task", s->pid);
			kthread_checked += kt == 1;
			continue;
		}
		if (kt == 1)
			rt_errf(&e, "abi %llu for pid %u, a kernel thread",
				(unsigned long long)s->regs_user.abi, s->pid);
		if (s->pid == (uint32_t)getpid()) {
			/* Switched out inside a syscall: the registers it entered the kernel with. */
			check_own_sample(&d, stack, &st, &e);
			if (s->stack_user.dyn_size == 0)
				rt_errf(&e, "our sample with an empty stack dump");
			continue;
		}
		user_tasks++;
		if (s->regs_user.abi != PERF_SAMPLE_REGS_ABI_64 || s->regs_user.regs.nr != 3 ||
		    s->stack_user.size > STACK_BYTES || s->stack_user.dyn_size > s->stack_user.size)
			rt_errf(&e, "pid %u: abi %llu with %llu regs, stack %llu dyn %llu", s->pid,
				(unsigned long long)s->regs_user.abi, (unsigned long long)s->regs_user.regs.nr,
				(unsigned long long)s->stack_user.size, (unsigned long long)s->stack_user.dyn_size);
	}
	printf("  cpu %d: %llu sched_switch samples: %llu of kernel threads (abi 0; %llu checked in /proc), "
	       "ours %llu, other user tasks %llu\n", cpu, (unsigned long long)st.samples,
	       (unsigned long long)st.abi_none, (unsigned long long)kthread_checked,
	       (unsigned long long)(st.user + st.kernel), (unsigned long long)user_tasks);
	RT_CHECK_NO_ERR(&e, "records");
	/* one stopper-thread switch per hop, one of ours per hop and per sleep */
	CHECKF(st.abi_none >= 10, "%llu abi-0 samples for 10 hops", (unsigned long long)st.abi_none);
	CHECKF(st.kernel >= 10, "%llu samples of ours", (unsigned long long)st.kernel);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	free(maps);
}

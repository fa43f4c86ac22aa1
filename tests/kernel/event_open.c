// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Opening perf events by name (perfring_event_open) against the real
 * kernel, read through perfring_reader_new() + perfring_reader_add():
 * cpu-clock per task and per CPU, task-clock inherited by a child, a
 * tracepoint that fires, two events sharing one ring through
 * perfring_event_set_output (told apart by PERF_SAMPLE_IDENTIFIER),
 * enable_on_exec (samples only after exec), hardware events (counting where
 * the kernel has a PMU, the no-PMU message where it has none), EACCES in a child without CAP_PERFMON/CAP_SYS_ADMIN, EINVAL
 * messages naming the option, and sample times on the clock use_clockid asks for.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <perfring/event.h>
#include <perfring/reader.h>

#include "harness.h"

/* Every test samples IDENTIFIER | TID | CPU (| RAW): the body is
 * u64 id; u32 pid, tid; u32 cpu, res; [u32 size; raw bytes]. */
#define ST_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_CPU)
#define MAX_SEEN 4096

struct seen {
	uint64_t samples, other, lost;
	uint64_t id[MAX_SEEN];
	uint32_t pid[MAX_SEEN], tid[MAX_SEEN], cpu[MAX_SEEN];
	int64_t dfd[MAX_SEEN]; /* RAW of syscalls:sys_enter_openat: the dfd argument */
	bool raw;
	int errors;
	char error[200];
};

static int collect(const struct perfring_msg *ev, void *ctx)
{
	struct seen *s = ctx;
	unsigned char body[4096];
	size_t n = ev->size + ev->size2, i = s->samples;
	uint32_t rawsz = 0;

	if (ev->kind == PERFRING_MSG_LOST) {
		s->lost += ev->lost;
		return PERFRING_CONTINUE;
	}
	if (ev->kind != PERFRING_MSG_SAMPLE) {
		s->other++;
		return PERFRING_CONTINUE;
	}
	if (n > sizeof(body) || n < 24 || (s->raw && n < 28)) {
		if (!s->errors++)
			snprintf(s->error, sizeof(s->error), "sample body of %zu bytes", n);
		return PERFRING_CONTINUE;
	}
	memcpy(body, ev->data, ev->size);
	if (ev->size2)
		memcpy(body + ev->size, ev->data2, ev->size2);
	s->samples++;
	if (i >= MAX_SEEN)
		return PERFRING_CONTINUE;
	memcpy(&s->id[i], body, 8);
	memcpy(&s->pid[i], body + 8, 4);
	memcpy(&s->tid[i], body + 12, 4);
	memcpy(&s->cpu[i], body + 16, 4);
	s->dfd[i] = 0;
	if (s->raw) {
		memcpy(&rawsz, body + 24, 4);
		if (rawsz >= 24 && 28 + (size_t)rawsz <= n)
			memcpy(&s->dfd[i], body + 28 + 16, 8); /* dfd at offset 16 of the tracepoint record */
		else if (!s->errors++)
			snprintf(s->error, sizeof(s->error), "raw size %u in a %zu-byte body", rawsz, n);
	}
	return PERFRING_CONTINUE;
}

static struct perfring_reader *new_reader(void)
{
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 16);

	return perfring_reader_new(&ro);
}

/* Poll until done(s) or timeout_ms pass. */
static void poll_for(struct perfring_reader *rd, struct seen *s, int timeout_ms, bool (*done)(struct seen *, void *),
		     void *arg)
{
	int i;

	for (i = 0; i < timeout_ms / 20; i++) {
		int rc = perfring_reader_poll(rd, 20 * 1000000LL, collect, s);

		if (rc < 0 && rc != -ETIMEDOUT)
			break;
		if (done && done(s, arg))
			break;
	}
	perfring_reader_consume(rd, collect, s);
}

static void burn_ms(int ms)
{
	struct timespec a, b;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	(void)x;
}

static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return 0;
	return id;
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

TEST(cpu_clock_per_task)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 200000,
							   .sample_type = ST_BASE, .wakeup_events = 1);
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	static struct seen s;
	uint64_t id, i;
	int fd;

	memset(&s, 0, sizeof(s));
	fd = perfring_event_open("cpu-clock", 0, -1, -1, &o, &attr);
	REQUIREF(fd >= 0, "open: %d %s", fd, perfring_errmsg());
	CHECK_EQ_INT(attr.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(attr.sample_period, 200000);
	CHECK_EQ_U64(attr.sample_type, ST_BASE);
	CHECK_EQ_INT(attr.wakeup_events, 1);
	CHECK_EQ_INT(attr.disabled, 0);
	CHECK_EQ_INT(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	id = event_id(fd);
	rd = new_reader();
	REQUIREF(rd && perfring_reader_add(rd, fd, -1) == 0, "reader: %s", perfring_errmsg());
	burn_ms(60);
	poll_for(rd, &s, 1000, NULL, NULL);
	CHECKF(s.samples >= 10, "%llu samples for 60 ms at 200 us", (unsigned long long)s.samples);
	CHECKF(s.errors == 0, "%s", s.error);
	for (i = 0; i < s.samples && i < MAX_SEEN; i++) {
		CHECK_EQ_U64(s.id[i], id);
		CHECK_EQ_INT(s.pid[i], getpid());
		CHECK_EQ_INT(s.tid[i], gettid());
		if (s.id[i] != id || s.pid[i] != (uint32_t)getpid())
			break;
	}
	perfring_reader_free(rd);
	close(fd);
}

TEST(cpu_clock_per_cpu)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_freq = 2000,
							   .sample_type = ST_BASE, .wakeup_events = 1);
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	static struct seen s;
	uint64_t i, mine = 0;
	int fd;

	memset(&s, 0, sizeof(s));
	fd = perfring_event_open("cpu-clock", -1, 1, -1, &o, &attr);
	REQUIREF(fd >= 0, "open: %d %s", fd, perfring_errmsg());
	CHECK_EQ_INT(attr.freq, 1);
	CHECK_EQ_U64(attr.sample_freq, 2000);
	rd = new_reader();
	REQUIREF(rd && perfring_reader_add(rd, fd, 1) == 0, "reader: %s", perfring_errmsg());
	REQUIRE(pin_cpu(1) == 0);
	burn_ms(60);
	unpin();
	poll_for(rd, &s, 1000, NULL, NULL);
	CHECKF(s.samples >= 5, "%llu samples", (unsigned long long)s.samples);
	for (i = 0; i < s.samples && i < MAX_SEEN; i++) {
		CHECKF(s.cpu[i] == 1, "sample %llu on cpu %u", (unsigned long long)i, s.cpu[i]);
		mine += s.pid[i] == (uint32_t)getpid();
	}
	CHECKF(mine > 0, "no sample of this process on CPU 1 while it burned CPU there");
	perfring_reader_free(rd);
	close(fd);
}

struct want_pid {
	uint32_t pid;
	uint64_t n;
};

static bool have_pid(struct seen *s, void *arg)
{
	struct want_pid *w = arg;
	uint64_t i, n = 0;

	for (i = 0; i < s->samples && i < MAX_SEEN; i++)
		n += s->pid[i] == w->pid;
	return n >= w->n;
}

TEST(task_clock_inherit_child)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 200000,
							   .sample_type = ST_BASE, .inherit = true, .wakeup_events = 1);
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	static struct seen s;
	struct want_pid w;
	uint64_t i, child = 0;
	int fds[64], cpus[64], ncpu, n, status, fd_any;
	pid_t pid;

	memset(&s, 0, sizeof(s));
	ncpu = perfring_online_cpus(cpus, 64);
	REQUIRE(ncpu > 0 && ncpu <= 64);
	/* The kernel refuses to mmap an inherited per-task (cpu -1) event:
	 * all children would write to one ring. Per CPU it is fine. */
	fd_any = perfring_event_open("task-clock", 0, -1, -1, &o, NULL);
	REQUIREF(fd_any >= 0, "open: %s", perfring_errmsg());
	rd = new_reader();
	REQUIRE(rd);
	CHECK(perfring_reader_add(rd, fd_any, -1) == -EINVAL);
	close(fd_any);
	for (n = 0; n < ncpu; n++) {
		fds[n] = perfring_event_open("task-clock", 0, cpus[n], -1, &o, &attr);
		REQUIREF(fds[n] >= 0, "open on cpu %d: %d %s", cpus[n], fds[n], perfring_errmsg());
		REQUIREF(perfring_reader_add(rd, fds[n], cpus[n]) >= 0, "reader: %s", perfring_errmsg());
	}
	CHECK_EQ_INT(attr.inherit, 1);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		burn_ms(60);
		_exit(0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	w.pid = (uint32_t)pid;
	w.n = 10;
	poll_for(rd, &s, 1000, have_pid, &w);
	for (i = 0; i < s.samples && i < MAX_SEEN; i++)
		child += s.pid[i] == (uint32_t)pid;
	/* The child inherited the events: its samples land in the parent's rings. */
	CHECKF(child >= 10, "%llu samples of the child (of %llu)", (unsigned long long)child,
	       (unsigned long long)s.samples);
	CHECKF(s.errors == 0, "%s", s.error);
	perfring_reader_free(rd);
	for (n = 0; n < ncpu; n++)
		close(fds[n]);
}

static int count_dfd(const struct seen *s, int64_t dfd, uint32_t tid)
{
	uint64_t i;
	int n = 0;

	for (i = 0; i < s->samples && i < MAX_SEEN; i++)
		n += s->dfd[i] == dfd && (!tid || s->tid[i] == tid);
	return n;
}

#define MARK_DFD 777777

/* openat() with a dfd no real call uses, to recognise our own calls in RAW. */
static void marked_openat(int n)
{
	for (int i = 0; i < n; i++)
		syscall(SYS_openat, MARK_DFD, "perfring-no-such-file", O_RDONLY);
}

TEST(tracepoint_fires)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_type = ST_BASE |
							   PERF_SAMPLE_RAW, .wakeup_events = 1);
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	static struct seen s;
	int fd;

	memset(&s, 0, sizeof(s));
	s.raw = true;
	fd = perfring_event_open("syscalls:sys_enter_openat", 0, -1, -1, &o, &attr);
	REQUIREF(fd >= 0, "open: %d %s", fd, perfring_errmsg());
	CHECK_EQ_INT(attr.type, PERF_TYPE_TRACEPOINT);
	CHECK_EQ_U64(attr.sample_period, 1); /* tracepoints default to every occurrence */
	rd = new_reader();
	REQUIREF(rd && perfring_reader_add(rd, fd, -1) == 0, "reader: %s", perfring_errmsg());
	marked_openat(7);
	poll_for(rd, &s, 500, NULL, NULL);
	CHECK_EQ_INT(count_dfd(&s, MARK_DFD, (uint32_t)gettid()), 7);
	CHECKF(s.errors == 0, "%s", s.error);
	perfring_reader_free(rd);
	close(fd);
}

TEST(set_output_shares_one_ring)
{
	struct perfring_event_opts clk = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 200000,
							     .sample_type = ST_BASE, .wakeup_events = 1);
	struct perfring_event_opts tp = PERFRING_OPTS_INIT(perfring_event_opts, .sample_type = ST_BASE,
							    .wakeup_events = 1);
	struct perfring_reader *rd;
	static struct seen s;
	uint64_t id_clk, id_tp, i, n_clk = 0, n_tp = 0, n_bad = 0;
	int fd_clk, fd_tp, fd_cs;

	memset(&s, 0, sizeof(s));
	fd_clk = perfring_event_open("cpu-clock", 0, -1, -1, &clk, NULL);
	REQUIREF(fd_clk >= 0, "open: %s", perfring_errmsg());
	fd_tp = perfring_event_open("syscalls:sys_enter_openat", 0, -1, -1, &tp, NULL);
	REQUIREF(fd_tp >= 0, "open: %s", perfring_errmsg());
	id_clk = event_id(fd_clk);
	id_tp = event_id(fd_tp);
	REQUIRE(id_clk && id_tp && id_clk != id_tp);
	rd = new_reader();
	REQUIREF(rd && perfring_reader_add(rd, fd_clk, -1) == 0, "reader: %s", perfring_errmsg());
	CHECKF(perfring_event_set_output(fd_tp, fd_clk) == 0, "%s", perfring_errmsg());
	/* A per-CPU event cannot share a per-task ring. */
	fd_cs = perfring_event_open("context-switches", -1, 0, -1, NULL, NULL);
	REQUIREF(fd_cs >= 0, "open: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_set_output(fd_cs, fd_clk), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "same CPU"), "%s", perfring_errmsg());
	close(fd_cs);

	marked_openat(5);
	burn_ms(40);
	poll_for(rd, &s, 500, NULL, NULL);
	for (i = 0; i < s.samples && i < MAX_SEEN; i++) {
		if (s.id[i] == id_clk)
			n_clk++;
		else if (s.id[i] == id_tp)
			n_tp++;
		else
			n_bad++;
	}
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_U64(n_tp, 5);
	CHECKF(n_clk >= 5, "%llu cpu-clock samples", (unsigned long long)n_clk);
	CHECK_EQ_U64(n_bad, 0);
	perfring_reader_free(rd);
	close(fd_tp);
	close(fd_clk);
}

TEST(enable_on_exec_samples_after_exec_only)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_type = ST_BASE |
							   PERF_SAMPLE_RAW, .enable_on_exec = true, .wakeup_events = 1);
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	static struct seen s;
	int fd, go[2], status;
	uint64_t i, child = 0;
	pid_t pid;
	char c;

	memset(&s, 0, sizeof(s));
	s.raw = true;
	REQUIRE(pipe(go) == 0);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		marked_openat(5); /* before exec: must not be sampled */
		execl("/bin/true", "true", (char *)NULL);
		_exit(3);
	}
	close(go[0]);
	fd = perfring_event_open("syscalls:sys_enter_openat", pid, -1, -1, &o, &attr);
	if (fd < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(go[1]);
	}
	REQUIREF(fd >= 0, "open: %s", perfring_errmsg());
	CHECK_EQ_INT(attr.enable_on_exec, 1);
	CHECK_EQ_INT(attr.disabled, 1);
	rd = new_reader();
	REQUIREF(rd && perfring_reader_add(rd, fd, -1) == 0, "reader: %s", perfring_errmsg());
	REQUIRE(write(go[1], "g", 1) == 1);
	close(go[1]);
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
	poll_for(rd, &s, 300, NULL, NULL);
	for (i = 0; i < s.samples && i < MAX_SEEN; i++)
		child += s.pid[i] == (uint32_t)pid;
	CHECK_EQ_INT(count_dfd(&s, MARK_DFD, 0), 0);
	/* The dynamic loader of /bin/true opens ld.so.cache and libc after the exec. */
	CHECKF(child >= 2, "%llu samples after exec", (unsigned long long)child);
	CHECK_EQ_U64(child, s.samples);
	perfring_reader_free(rd);
	close(fd);
}

/* The kernel's own answer for a hardware event, asked directly (the oracle):
 * an fd (closed again) or -errno. */
static int raw_hw_open(uint64_t config)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(attr), .config = config,
					.exclude_kernel = 1, .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Hardware events: where the kernel has no PMU for them (most VMs), perfring
 * says so by name; where it has one (this test must not assume which), the
 * event opens and counts what the task did. */
TEST(hardware_event_pmu_or_message)
{
	static const struct { const char *name; uint64_t config; } hw[] = {
		{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
		{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	};
	size_t i;

	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .disabled = true);
		int kernel = raw_hw_open(hw[i].config);
		int fd = perfring_event_open(hw[i].name, 0, -1, -1, &o, NULL);

		if (kernel == 0) {
			volatile uint64_t spin = 0;
			uint64_t count = 0;
			int j;

			CHECKF(fd >= 0, "%s: the kernel opens it, perfring gave %d: %s", hw[i].name, fd,
			       perfring_errmsg());
			if (fd < 0)
				continue;
			CHECK_EQ_INT(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
			for (j = 0; j < 1000000; j++)
				spin += (uint64_t)j * 3 + (j & 1 ? 1 : 0);
			(void)spin;
			CHECK_EQ_INT(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
			CHECK_EQ_INT((int)read(fd, &count, sizeof(count)), (int)sizeof(count));
			/* A million iterations of a loop: cycles and instructions are in the
			 * millions; branch misses may be few, but the counter must read. */
			if (hw[i].config != PERF_COUNT_HW_BRANCH_MISSES)
				CHECKF(count > 1000000, "%s counted %llu", hw[i].name, (unsigned long long)count);
			close(fd);
			continue;
		}
		CHECKF(fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV, "%s: %d (kernel: %d)", hw[i].name, fd,
		       kernel);
		CHECKF(strstr(perfring_errmsg(), "no hardware PMU") && strstr(perfring_errmsg(), hw[i].name), "%s",
		       perfring_errmsg());
	}
}

static int drop_perf_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_PERFMON / 32].effective &= ~(1U << (CAP_PERFMON % 32));
	data[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_PERFMON / 32].permitted &= ~(1U << (CAP_PERFMON % 32));
	return (int)syscall(SYS_capset, &hdr, data);
}

TEST(eacces_without_cap_perfmon)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = 99, status, fd;
	pid_t pid;

	REQUIRE(f);
	REQUIRE(fscanf(f, "%d", &paranoid) == 1);
	fclose(f);
	if (paranoid < 1)
		SKIP("perf_event_paranoid is %d: per-CPU events are open to everyone, no EACCES to provoke",
		     paranoid);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		if (drop_perf_caps())
			_exit(10);
		fd = perfring_event_open("cpu-clock", -1, 0, -1, NULL, NULL);
		if (fd != -EACCES && fd != -EPERM)
			_exit(11);
		if (!strstr(perfring_errmsg(), "/proc/sys/kernel/perf_event_paranoid") ||
		    !strstr(perfring_errmsg(), "CAP_PERFMON") || !strstr(perfring_errmsg(), "cpu-clock"))
			_exit(12);
		/* A per-task event that excludes nothing is still fine at paranoid <= 1 only. */
		_exit(0);
	}
	REQUIRE(waitpid(pid, &status, 0) == pid);
	CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child exit %d (10: capset failed, 11: open did not fail with EACCES, 12: message lacks the "
	       "sysctl path, CAP_PERFMON or the event name)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

TEST(einval_names_option)
{
	struct perfring_event_opts both = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 1,
							      .sample_freq = 1);
	struct perfring_event_opts stack = PERFRING_OPTS_INIT(perfring_event_opts, .dwarf = true,
							       .stack_user_size = 100);
	struct perfring_event_opts nodwarf = PERFRING_OPTS_INIT(perfring_event_opts, .stack_user_size = 64);
	struct perfring_event_opts wake = PERFRING_OPTS_INIT(perfring_event_opts, .wakeup_events = 1,
							      .wakeup_bytes = 64);
	/* Far above kernel.perf_event_max_sample_rate: the kernel says EINVAL. */
	struct perfring_event_opts fast = PERFRING_OPTS_INIT(perfring_event_opts, .sample_freq = 1000000000,
							      .sample_type = ST_BASE);

	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &both, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "sample_period") && strstr(perfring_errmsg(), "sample_freq"), "%s",
	       perfring_errmsg());
	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &stack, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "stack_user_size"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &nodwarf, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "dwarf"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &wake, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "wakeup_bytes"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &fast, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "option sample_freq"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_open("no-such-event", 0, -1, -1, NULL, NULL), -ENOENT);
}

/* Samples of PERF_SAMPLE_TIME only: the first and last time seen. */
struct times {
	uint64_t n, first, last;
};

static int collect_time(const struct perfring_msg *ev, void *ctx)
{
	struct times *t = ctx;
	uint64_t v;

	if (ev->kind != PERFRING_MSG_SAMPLE || ev->size + ev->size2 < 8)
		return PERFRING_CONTINUE;
	if (ev->size >= 8) {
		memcpy(&v, ev->data, 8);
	} else {
		memcpy(&v, ev->data, ev->size);
		memcpy((char *)&v + ev->size, ev->data2, 8 - ev->size);
	}
	if (!t->n++)
		t->first = v;
	t->last = v;
	return PERFRING_CONTINUE;
}

/* use_clockid: sample times on the clock asked for (perf record -k), read
 * before and after the samples; CLOCK_REALTIME is decades away from the
 * kernel's perf clock, so a time on the wrong clock cannot pass. */
TEST(clockid_sample_times)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME };
	size_t k;

	for (k = 0; k < sizeof(clocks) / sizeof(clocks[0]); k++) {
		struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 200000,
								   .sample_type = PERF_SAMPLE_TIME, .wakeup_events = 1,
								   .use_clockid = true, .clockid = clocks[k]);
		struct perf_event_attr attr;
		struct perfring_reader *rd;
		struct times t = { 0 };
		uint64_t before, after;
		int fd;

		before = th_clock_ns(clocks[k]);
		fd = perfring_event_open("task-clock", 0, -1, -1, &o, &attr);
		REQUIREF(fd >= 0, "open with clockid %d: %s", (int)clocks[k], perfring_errmsg());
		CHECK(attr.use_clockid && attr.clockid == (int32_t)clocks[k]);
		rd = new_reader();
		REQUIREF(rd && perfring_reader_add(rd, fd, -1) == 0, "reader: %s", perfring_errmsg());
		burn_ms(20);
		/* No samples after this point. Closing the fd would not stop them: the
		 * reader's mapping of the ring holds the event, which went on sampling
		 * the task (two fresh-clone runs saw a sample 14 us after "after"). */
		REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
		close(fd);
		after = th_clock_ns(clocks[k]);
		perfring_reader_consume(rd, collect_time, &t);
		CHECKF(t.n >= 5 && t.first >= before && t.last <= after && t.first <= t.last,
		       "clock %d: %llu samples at %llu..%llu, the clock read %llu before and %llu after", (int)clocks[k],
		       (unsigned long long)t.n, (unsigned long long)t.first, (unsigned long long)t.last,
		       (unsigned long long)before, (unsigned long long)after);
		perfring_reader_free(rd);
	}
	/* a clock the kernel does not know: EINVAL naming the option */
	{
		struct perfring_event_opts bad = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 200000,
								     .use_clockid = true, .clockid = 99);

		CHECK_EQ_INT(perfring_event_open("task-clock", 0, -1, -1, &bad, NULL), -EINVAL);
		CHECKF(strstr(perfring_errmsg(), "option clockid"), "%s", perfring_errmsg());
	}
}

TEST(dwarf_callchain_task_events_attr)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 100000,
							   .callchain = true, .dwarf = true, .sample_id_all = true,
							   .task_events = true, .wakeup_bytes = 4096);
	struct perf_event_attr attr;
	int fd = perfring_event_open("cpu-clock", 0, -1, -1, &o, &attr);

	REQUIREF(fd >= 0, "open: %s", perfring_errmsg());
	CHECK_EQ_U64(attr.sample_type, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	CHECK(attr.sample_regs_user != 0);
	CHECK_EQ_INT(attr.sample_stack_user, 8192);
	CHECK(attr.sample_id_all && attr.comm && attr.mmap && attr.mmap2 && attr.task);
	CHECK(attr.watermark && attr.wakeup_watermark == 4096);
	close(fd);
}

/* perf record --call-graph dwarf's attr: the kernel part of the chain from
 * the kernel (exclude_callchain_user), the user part from the stack. */
TEST(dwarf_exclude_callchain_user)
{
	struct perfring_event_opts o = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 100000,
							   .callchain = true, .dwarf = true, .task_events = true,
							   .exclude_callchain_user = true, .mmap_data = true);
	struct perfring_event_opts bad = PERFRING_OPTS_INIT(perfring_event_opts, .sample_period = 100000,
							     .dwarf = true, .exclude_callchain_user = true);
	struct perf_event_attr attr;
	int fd = perfring_event_open("cpu-clock", 0, -1, -1, &o, &attr);

	REQUIREF(fd >= 0, "open: %s", perfring_errmsg());
	CHECK_EQ_U64(attr.sample_type, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	CHECK(attr.exclude_callchain_user && attr.mmap_data && attr.mmap2);
	close(fd);
	CHECK_EQ_INT(perfring_event_open("cpu-clock", 0, -1, -1, &bad, NULL), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "exclude_callchain_user"), "%s", perfring_errmsg());
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Open a perf event by name with a few options, explaining failures. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <perfring/event.h>

#include "event/event_internal.h"
#include "common/internal.h"
#include "common/sys.h"

#ifndef PERF_COUNT_SW_BPF_OUTPUT
#define PERF_COUNT_SW_BPF_OUTPUT 10
#endif

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* User registers perf's DWARF unwinders need: all general registers. */
#if defined(__x86_64__)
#define DWARF_REGS_MASK 0xff0fffULL /* PERF_REG_X86_64_MAX = 24, without DS, ES, FS, GS */
#elif defined(__aarch64__)
#define DWARF_REGS_MASK ((1ULL << 33) - 1) /* x0-x30, sp, pc */
#elif defined(__i386__)
#define DWARF_REGS_MASK 0xff0fULL /* without DS, ES, FS, GS */
#else
#define DWARF_REGS_MASK 0ULL
#endif

#define DEFAULT_STACK_USER 8192

static int read_paranoid(void)
{
	FILE *f = fopen(PARANOID_PATH, "re");
	int v;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

static bool is_hardware(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE;
}

int pr_event_open_fail(int err, const char *name, const struct perf_event_attr *attr, int pid, int cpu,
		       int paranoid, const char *opt_hint)
{
	char par[48];

	if (paranoid == INT_MIN)
		snprintf(par, sizeof(par), "unreadable");
	else
		snprintf(par, sizeof(par), "%d", paranoid);
	switch (err) {
	case EACCES:
	case EPERM:
		return pr_fail(err,
			       "perf_event_open(%s, pid %d, cpu %d): %s: %s is %s; opening %s needs CAP_PERFMON "
			       "(or CAP_SYS_ADMIN), or a lower perf_event_paranoid (<= %d; e.g. sysctl "
			       "kernel.perf_event_paranoid=%d)",
			       name, pid, cpu, strerror(err), PARANOID_PATH, par,
			       pid == -1 ? "a per-CPU event" : attr->exclude_kernel ? "this event" :
			       "an event that includes the kernel",
			       pid == -1 ? 0 : attr->exclude_kernel ? 2 : 1, pid == -1 ? 0 : attr->exclude_kernel ? 2 : 1);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (is_hardware(attr))
			return pr_fail(err,
				       "perf_event_open(%s): %s: the hardware event cannot be opened: this machine has "
				       "no hardware PMU (usual in virtual machines); use a software event such as "
				       "cpu-clock or task-clock instead",
				       name, strerror(err));
		return pr_fail(err, "perf_event_open(%s, type %u, config 0x%llx): %s: this kernel does not support "
			       "the event%s%s", name, attr->type, (unsigned long long)attr->config, strerror(err),
			       opt_hint ? " with option " : "", opt_hint ? opt_hint : "");
	case EINVAL:
		if (opt_hint)
			return pr_fail(EINVAL, "perf_event_open(%s): the kernel rejected option %s (EINVAL)%s", name,
				       opt_hint, strcmp(opt_hint, "sample_freq") ? "" :
				       ": it must not exceed /proc/sys/kernel/perf_event_max_sample_rate");
		return pr_fail(EINVAL, "perf_event_open(%s, pid %d, cpu %d): invalid argument: check pid/cpu "
			       "(cpu %d online?) and group_fd", name, pid, cpu, cpu);
	case ESRCH:
		return pr_fail(ESRCH, "perf_event_open(%s): no process with pid %d", name, pid);
	case EMFILE:
	case ENFILE:
		return pr_fail(err, "perf_event_open(%s): %s: raise the open file limit (ulimit -n)", name,
			       strerror(err));
	case EBUSY:
		return pr_fail(EBUSY, "perf_event_open(%s): the PMU is in exclusive use by another event", name);
	default:
		return pr_fail(err, "perf_event_open(%s, pid %d, cpu %d): %s", name, pid, cpu, strerror(err));
	}
}

/* Apply opts to attr; on an impossible combination return -EINVAL naming it. */
static int apply_opts(const char *name, const struct perfring_event_opts *opts, struct perf_event_attr *attr)
{
	uint64_t period = PR_OPT(opts, sample_period, 0), freq = PR_OPT(opts, sample_freq, 0);
	uint32_t stack = PR_OPT(opts, stack_user_size, 0);
	uint32_t wev = PR_OPT(opts, wakeup_events, 0), wbytes = PR_OPT(opts, wakeup_bytes, 0);
	bool dwarf = PR_OPT(opts, dwarf, false);

	if (period && freq)
		return pr_fail(EINVAL, "event '%s': give sample_period or sample_freq, not both", name);
	if (wev && wbytes)
		return pr_fail(EINVAL, "event '%s': give wakeup_events or wakeup_bytes, not both", name);
	if (stack && !dwarf)
		return pr_fail(EINVAL, "event '%s': stack_user_size is only used with dwarf", name);
	if (stack % 8)
		return pr_fail(EINVAL, "event '%s': stack_user_size %u is not a multiple of 8", name, stack);
	if (freq) {
		attr->freq = 1;
		attr->sample_freq = freq;
	} else if (period) {
		attr->sample_period = period;
	} else if (attr->type == PERF_TYPE_TRACEPOINT || attr->type == PERF_TYPE_BREAKPOINT ||
		   (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_BPF_OUTPUT)) {
		/* Each occurrence is the interesting part: sample them all. */
		attr->sample_period = 1;
	}
	/* or'ed: the name's own bits stay (perf's S modifier: PERF_SAMPLE_READ) */
	attr->sample_type |= PR_OPT(opts, sample_type, 0);
	if (PR_OPT(opts, callchain, false))
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (dwarf) {
		if (!DWARF_REGS_MASK)
			return pr_fail(EINVAL, "event '%s': option dwarf: user registers unknown on this architecture",
				       name);
		attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->sample_regs_user = DWARF_REGS_MASK;
		attr->sample_stack_user = stack ? stack : DEFAULT_STACK_USER;
	}
	if (PR_OPT(opts, exclude_callchain_user, false)) {
		if (!(attr->sample_type & PERF_SAMPLE_CALLCHAIN))
			return pr_fail(EINVAL, "event '%s': exclude_callchain_user is only used with callchain", name);
		attr->exclude_callchain_user = 1;
	}
	attr->inherit = PR_OPT(opts, inherit, false);
	attr->enable_on_exec = PR_OPT(opts, enable_on_exec, false);
	/* enable_on_exec only takes effect on an event that starts disabled. */
	attr->disabled = PR_OPT(opts, disabled, false) || attr->enable_on_exec;
	attr->sample_id_all = PR_OPT(opts, sample_id_all, false);
	if (PR_OPT(opts, task_events, false)) {
		attr->comm = 1;
		attr->comm_exec = 1;
		attr->mmap = 1; /* the kernel only tracks mmaps with mmap set; mmap2 picks the format */
		attr->mmap2 = 1;
		attr->task = 1;
		attr->build_id = PR_OPT(opts, build_id, false);
		attr->mmap_data = PR_OPT(opts, mmap_data, false);
	}
	attr->context_switch = PR_OPT(opts, context_switch, false);
	if (PR_OPT(opts, use_clockid, false)) {
		attr->use_clockid = 1;
		attr->clockid = PR_OPT(opts, clockid, 0);
	}
	if (wbytes) {
		attr->watermark = 1;
		attr->wakeup_watermark = wbytes;
	} else {
		attr->wakeup_events = wev;
	}
	return 0;
}

/*
 * After an EINVAL, find the option the kernel objects to: retry, disabled,
 * without each option the caller set; the first one whose removal makes the
 * open succeed is the culprit. Only runs on failure.
 */
static const char *find_rejected_option(const struct perf_event_attr *attr, int pid, int cpu, int group_fd)
{
	static const struct {
		const char *what;
		int id;
	} probes[] = {
		{ "callchain (PERF_SAMPLE_CALLCHAIN)", 0 }, { "dwarf / stack_user_size", 1 },
		{ "sample_freq", 2 },			      { "inherit", 3 },
		{ "enable_on_exec", 4 },		      { "sample_id_all", 5 },
		{ "task_events", 6 },			      { "wakeup_bytes", 7 },
		{ "sample_type", 8 },			      { "sample_period", 9 },
		{ "clockid", 10 },
	};
	size_t i;

	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct perf_event_attr a = *attr;
		bool changed = false;
		int fd;

		switch (probes[i].id) {
		case 0:
			changed = a.sample_type & PERF_SAMPLE_CALLCHAIN;
			a.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
			break;
		case 1:
			changed = a.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
			a.sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
			a.sample_regs_user = 0;
			a.sample_stack_user = 0;
			break;
		case 2:
			changed = a.freq;
			a.freq = 0;
			a.sample_period = 0;
			break;
		case 3:
			changed = a.inherit;
			a.inherit = 0;
			break;
		case 4:
			changed = a.enable_on_exec;
			a.enable_on_exec = 0;
			break;
		case 5:
			changed = a.sample_id_all;
			a.sample_id_all = 0;
			break;
		case 6:
			changed = a.comm || a.mmap || a.task;
			a.comm = a.comm_exec = a.mmap = a.mmap2 = a.task = 0;
			break;
		case 7:
			changed = a.watermark;
			a.watermark = 0;
			a.wakeup_watermark = 0;
			break;
		case 8:
			changed = a.sample_type != 0;
			a.sample_type = 0;
			break;
		case 9:
			changed = !a.freq && a.sample_period;
			if (!a.freq)
				a.sample_period = 0;
			break;
		case 10:
			changed = a.use_clockid;
			a.use_clockid = 0;
			a.clockid = 0;
			break;
		}
		if (!changed)
			continue;
		a.disabled = 1;
		fd = pr_perf_event_open(&a, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return probes[i].what;
		}
	}
	return NULL;
}

int perfring_event_open(const char *name, int pid, int cpu, int group_fd, const struct perfring_event_opts *opts,
			struct perf_event_attr *attr_out)
{
	struct perf_event_attr attr;
	struct pr_event_extra x;
	int err, fd;

	err = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(struct perfring_event_opts), "perfring_event_opts");
	if (err)
		return err;
	err = pr_event_parse(name, &attr, &x);
	if (err)
		return err;
	err = apply_opts(name, opts, &attr);
	if (err)
		return err;
	fd = pr_perf_event_open(&attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	/* perf's P: the highest precise_ip that opens */
	while (fd < 0 && x.precise_max && attr.precise_ip > 0 && (errno == EOPNOTSUPP || errno == EINVAL)) {
		attr.precise_ip--;
		fd = pr_perf_event_open(&attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	}
	if (attr_out)
		*attr_out = attr;
	if (fd >= 0)
		return fd;
	err = errno;
	if (err == EINVAL || ((err == EOPNOTSUPP || err == ENOENT) && !is_hardware(&attr)))
		return pr_event_open_fail(err, name, &attr, pid, cpu, INT_MIN,
					  find_rejected_option(&attr, pid, cpu, group_fd));
	return pr_event_open_fail(err, name, &attr, pid, cpu, read_paranoid(), NULL);
}

int perfring_event_set_output(int fd, int target_fd)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target_fd) == 0)
		return 0;
	if (errno == EINVAL)
		return pr_fail(EINVAL,
			       "PERF_EVENT_IOC_SET_OUTPUT(fd %d -> fd %d): invalid argument: both events must be on "
			       "the same CPU (or per-task on the same task, cpu -1), use the same clock, and fd "
			       "must not have its own ring mapped",
			       fd, target_fd);
	if (errno == EBUSY)
		return pr_fail(EBUSY, "PERF_EVENT_IOC_SET_OUTPUT(fd %d -> fd %d): fd already has a mapped ring", fd,
			       target_fd);
	return pr_fail(errno, "PERF_EVENT_IOC_SET_OUTPUT(fd %d -> fd %d): %s", fd, target_fd, strerror(errno));
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`'s events: each -e event opened on every task and CPU
 * with perf record's attributes, each CPU's fds writing into one ring of
 * the reader, and perf's retries when the kernel refuses one (cycles
 * without a PMU as cpu-clock, NAME:u under perf_event_paranoid, no build
 * ids before Linux 5.12).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/event.h>

#include "record/record.h"
#include "shared/tool.h"

/* Wake the reader when this much waits in a ring, or after RECORD_MAX_DELAY_NS. */
#define RECORD_WATERMARK (64 * 1024)
#define RECORD_MAX_DELAY_NS (100 * 1000 * 1000ULL)

/* Whether an event counts in the kernel and in user space (no :u, no :k):
 * the one perf retries as NAME:u when the kernel refuses it (an event
 * that excludes user space is not retried, as perf's). */
static bool record_counts_kernel(const char *name)
{
	struct perf_event_attr a;

	return perfring_event_parse(name, &a) == 0 && !a.exclude_kernel && !a.exclude_user &&
	       a.type != PERF_TYPE_TRACEPOINT;
}

/* name counting in user space only, perf's retry: "cpu-clock:u", or its
 * modifiers with u added ("cpu-clock:pu", "mem:0x404030:wu"); NULL when out
 * of memory. */
static char *record_user_only(const char *name)
{
	struct perf_event_attr a;
	char *s;

	if (asprintf(&s, "%su", name) < 0)
		return NULL;
	if (perfring_event_parse(s, &a) == 0 && a.exclude_kernel)
		return s;
	free(s);
	return asprintf(&s, "%s:u", name) < 0 ? NULL : s;
}

/*
 * cycles where the kernel has no hardware PMU: perf record falls back to
 * cpu-clock with the same modifiers (cycles:u -> cpu-clock:u). *out is
 * the new name (freed by the caller), or NULL when err or the event do
 * not call for it.
 */
static void record_cycles_fallback(const char *name, int err, char **out)
{
	struct perf_event_attr a;
	const char *mods;

	*out = NULL;
	if ((err != -ENOENT && err != -ENODEV && err != -EOPNOTSUPP && err != -ENXIO) ||
	    perfring_event_parse(name, &a) || a.type != PERF_TYPE_HARDWARE || a.config != PERF_COUNT_HW_CPU_CYCLES)
		return;
	mods = strchr(name, ':');
	if (asprintf(out, "cpu-clock%s", mods ? mods : "") < 0)
		*out = NULL;
}

void record_reader_opts(const struct record_opts *o, struct perfring_reader_opts *ro)
{
	/* dwarf: 8 KiB and more per sample, 32 MB/s at 4000 Hz; 4 MiB rings
	 * ride out a reader that a loaded machine schedules late. Call chains
	 * and every task of a CPU: 2 MiB (512 KiB lost records under load). */
	ro->data_pages = o->dwarf ? 1024 : o->callchain || o->system_wide ? 512 : 128;
	/* without privilege, rings beyond perf_event_mlock_kb (516 KiB per
	 * CPU by default) count against RLIMIT_MEMLOCK: perf's sizes then */
	if (geteuid() != 0)
		ro->data_pages = o->dwarf ? 256 : 128;
	ro->wakeup_bytes = RECORD_WATERMARK;
	ro->max_delay_ns = RECORD_MAX_DELAY_NS;
	ro->linearize = true;
}

int record_events_alloc(struct record_opts *o)
{
	size_t n = (size_t)o->ntask * (size_t)o->ncpu, i;
	int j;

	for (j = 0; j < o->nev; j++) {
		o->events[j].fds = malloc(n * sizeof(int));
		o->events[j].ids = calloc(n, sizeof(uint64_t));
		if (!o->events[j].fds || !o->events[j].ids)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			o->events[j].fds[i] = -1;
	}
	return 0;
}

/* perf record's attributes for the events of o. */
static void record_event_opts(const struct record_opts *o, struct perfring_event_opts *eo)
{
	eo->sample_period = o->period;
	eo->sample_freq = o->period ? 0 : o->freq;
	/* dwarf as perf: the kernel's chain stops at user space, where the
	 * reader unwinds the stack copy */
	eo->callchain = o->callchain || o->dwarf;
	eo->dwarf = o->dwarf;
	eo->exclude_callchain_user = o->dwarf;
	/* and the data mappings: perf unwinds through a library's
	 * .eh_frame_hdr only when its mapping is in the file */
	eo->mmap_data = o->dwarf;
	eo->stack_user_size = o->stack_size;
	eo->sample_id_all = true;
	eo->wakeup_bytes = RECORD_WATERMARK;
	eo->inherit = !o->system_wide && !o->by_tid;
	eo->enable_on_exec = o->cmd && !o->system_wide && !o->ntarget;
	eo->build_id = true;
	eo->use_clockid = o->use_clockid;
	eo->clockid = o->clockid;
}

/* Event e on task t and CPU cpu, with perf's retries: the fd, or the
 * negative error of the last try (-ESRCH for a thread gone meanwhile). */
static int record_event_open1(struct record_event *e, int task, int cpu, bool system_wide,
			      struct perfring_event_opts *eo, struct perf_event_attr *attr)
{
	int fd = perfring_event_open(e->name, task, cpu, -1, eo, attr);

	if (fd == -EINVAL && eo->build_id) {
		/* a kernel before 5.12: MMAP2 with inodes, build ids from
		 * the files at the end (for every event after this one too) */
		eo->build_id = false;
		fd = perfring_event_open(e->name, task, cpu, -1, eo, attr);
	}
	if (fd < 0 && !e->clock_name) {
		record_cycles_fallback(e->name, fd, &e->clock_name);
		if (e->clock_name) {
			/* perf's words (perf record -v: it says so only then) */
			fprintf(stderr, "%s %s: the %s event is not supported, trying to fall back to "
				"cpu-clock-ticks: recording %s\n", TOOL_NAME, CMD, e->name, e->clock_name);
			e->name = e->clock_name;
			fd = perfring_event_open(e->name, task, cpu, -1, eo, attr);
		}
	}
	if ((fd == -EACCES || fd == -EPERM) && !system_wide && !e->user_name && record_counts_kernel(e->name) &&
	    (e->user_name = record_user_only(e->name))) {
		/* as perf record: unprivileged under perf_event_paranoid 2,
		 * sample user space only, and say so */
		fd = perfring_event_open(e->user_name, task, cpu, -1, eo, attr);
		if (fd >= 0) {
			fprintf(stderr, "%s %s: the kernel refused %s (perf_event_paranoid); recording %s\n", TOOL_NAME,
				CMD, e->name, e->user_name);
			e->name = e->user_name;
		}
	}
	return fd;
}

int record_events_open(struct record_opts *o, struct perfring_reader *rd)
{
	static int ring_fd[RECORD_MAX_CPUS];
	struct perfring_event_opts eo = { .sz = sizeof(eo) };
	uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_PERIOD;
	int i, j, t, err;

	if (o->nev > 1)
		sample_type |= PERF_SAMPLE_IDENTIFIER;
	record_event_opts(o, &eo);
	/* One ring per CPU: the first fd opened on it; every other event and
	 * task of that CPU writes into it. */
	for (i = 0; i < o->ncpu; i++)
		ring_fd[i] = -1;
	for (i = 0; i < o->ncpu; i++) {
		for (t = 0; t < o->ntask; t++) {
			for (j = 0; j < o->nev; j++) {
				struct record_event *e = &o->events[j];
				struct perf_event_attr attr;
				int fd, slot = t * o->ncpu + i;

				eo.task_events = j == 0;
				eo.context_switch = j == 0 && o->switch_events;
				eo.sample_type = sample_type;
				/* tracepoint fields come in the raw data (decoded with the
				 * file's tracing data) */
				if (e->tracepoint)
					eo.sample_type |= PERF_SAMPLE_RAW;
				eo.sample_freq = o->period || (e->own_period && !o->rate_given) ? 0 : o->freq;
				fd = record_event_open1(e, o->tasks[t], o->cpus[i], o->system_wide, &eo, &attr);
				if (fd == -ESRCH && o->tasks[t] > 0 && o->ntask > 1)
					continue; /* a thread that exited since /proc listed it */
				if (fd < 0)
					return tool_error(CMD, "%s", perfring_errmsg());
				e->fds[slot] = fd;
				if (!e->attr.size)
					e->attr = attr;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &e->ids[slot]))
					return tool_error(CMD, "PERF_EVENT_IOC_ID on %s: %s", e->name, strerror(errno));
				if (ring_fd[i] < 0) {
					err = perfring_reader_add(rd, fd, o->cpus[i]);
					ring_fd[i] = fd;
				} else {
					err = perfring_event_set_output(fd, ring_fd[i]);
				}
				if (err < 0)
					return tool_error(CMD, "%s", perfring_errmsg());
			}
		}
	}
	return 0;
}

void record_events_disable(const struct record_opts *o)
{
	int i, j;

	for (j = 0; j < o->nev; j++)
		for (i = 0; i < o->ntask * o->ncpu; i++)
			if (o->events[j].fds[i] >= 0)
				ioctl(o->events[j].fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void record_events_free(struct record_opts *o)
{
	struct record_event *e;
	int i, j;

	for (j = 0; j < o->nev; j++) {
		e = &o->events[j];
		for (i = 0; e->fds && i < o->ntask * o->ncpu; i++)
			if (e->fds[i] >= 0)
				close(e->fds[i]);
		free(e->fds);
		free(e->ids);
		free(e->user_name);
		free(e->spec);
		free(e->shown);
		free(e->clock_name);
		memset(e, 0, sizeof(*e));
	}
	o->nev = 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring top`'s live session: see top_session.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/event.h>

#include "shared/command.h"
#include "shared/targets.h"
#include "shared/tool.h"
#include "top/top_comms.h"
#include "top/top_names.h"
#include "top/top_session.h"

/* The command errors name: "top", or the one sharing the session. */
static const char *CMD = "top";
#define TOP_MAX_CPUS 1024
#define TOP_MAX_TASKS 4096
#define TOP_MAX_FRAMES 512
/* Records are held this long to be delivered in time order across CPUs
 * (a new process's MMAP before its first sample on another CPU). */
#define TOP_ORDER_NS (50 * 1000 * 1000ULL)
#define TOP_WATERMARK (32 * 1024)
/* The model is rebuilt from /proc after this many processes exited. */
#define TOP_REBUILD_EXITS 512
/* The symbolizer is made anew past this many binaries read: it keeps every
 * one, and counts one per process that maps it (4096 in 25 s with 100
 * processes started a second). Rarely: a new symbolizer reads kallsyms and
 * every binary again, and RSS jumped from 52 to 132 MB at such a flush
 * (none: 56 MB after 70 s). Bounding it for good wants the library's
 * symbolizer to evict binaries least recently used. */
#define TOP_SYMBOLIZER_MAX 65536

struct top_session {
	struct top_table *t;
	struct top_names *names;
	struct perfring_procs *procs;
	struct perfring_reader *rd;
	struct perfring_parse_config cfg;
	struct perfring_stacks *unwinder; /* --call-graph dwarf: unwinds user stack copies */
	struct top_comms *comms;
	int *fds;
	int nfds, ncpu;
	int targets[TOP_MAX_TASKS], ntarget;
	bool system_wide, dwarf, no_callchain;
	int max_stack;
	struct top_session_sink sink;
	uint32_t exits; /* processes exited since the model was loaded */
	pid_t child;
	struct tool_command command; /* go_fd >= 0: forked, not yet released */
	const char *cmd0;
	int child_status;
	bool child_done;
	uint64_t freq;
	char target[128];
	char event[128];
	int error;
	uint32_t frames[TOP_MAX_FRAMES];
	uint64_t ips[TOP_MAX_FRAMES];
	unsigned char buf[65536]; /* a record that wraps the ring, made contiguous (u16 size) */
};

/* ---- records ---- */

static void on_fork_exit(struct top_session *s, const struct perfring_decoded *d)
{
	const struct perfring_rec_fork_exit *fe = &d->u.fork_exit;

	if (d->type == PERF_RECORD_EXIT) {
		top_comms_exit(s->comms, fe->tid);
		s->exits += fe->pid == fe->tid;
	} else {
		top_comms_fork(s->comms, fe->pid, fe->ppid, fe->tid, fe->ptid);
	}
}

/* The library's stacks on this session's process model, addresses only: top names the
 * frames itself (top_names.c); made at the first sample with a stack copy, and again
 * when the model is rebuilt. */
static struct perfring_stacks *unwinder_new(struct top_session *s)
{
	struct perfring_stacks_opts o = PERFRING_OPTS_INIT(perfring_stacks_opts, .procs = s->procs,
							   .max_stack = s->max_stack, .no_symbols = true);

	return perfring_stacks_new(&o);
}

static void on_sample(struct top_session *s, const struct perfring_decoded *d)
{
	const struct perfring_sample *sm = &d->u.sample;
	unsigned cpumode = perfring_misc_cpumode(d->misc);
	struct top_sample ts = { sm->period ? sm->period : 1, sm->pid, sm->tid, (int32_t)sm->cpu, 0 };
	size_t n = 0, k;
	uint64_t i, ip;
	uint32_t gen, id;

	ts.comm = top_comms_of(s->comms, sm->pid, sm->tid, &gen);
	if (ts.comm == TOP_NONE)
		return;
	/* (with dwarf, a sample in user space has no recorded chain: all of it is unwound) */
	if (s->no_callchain || (!sm->callchain.nr && !s->dwarf)) {
		if ((id = top_names_frame(s->names, s->procs, sm->pid, sm->ip, cpumode, gen)) != TOP_NONE)
			s->frames[n++] = id;
	} else {
		/* perf's walk: context markers switch the mode of the entries after them */
		cpumode = PERF_RECORD_MISC_USER;
		for (i = 0; i < sm->callchain.nr && n < (size_t)s->max_stack; i++) {
			ip = perfring_u64_at(&sm->callchain, i);
			if (perfring_callchain_is_context(ip)) {
				if (ip == PERF_CONTEXT_KERNEL)
					cpumode = PERF_RECORD_MISC_KERNEL;
				else if (ip == PERF_CONTEXT_USER)
					cpumode = PERF_RECORD_MISC_USER;
				else
					break; /* guests, the hypervisor: not named here */
				continue;
			}
			if ((id = top_names_frame(s->names, s->procs, sm->pid, ip, cpumode, gen)) != TOP_NONE)
				s->frames[n++] = id;
		}
		if (s->dwarf && (sm->present & PERF_SAMPLE_STACK_USER) && sm->stack_user.dyn_size) {
			struct perfring_stack st;

			if (!s->unwinder && !(s->unwinder = unwinder_new(s)))
				return;
			/* the user frames the library unwinds (the chain's kernel part is above) */
			if (perfring_stacks_sample(s->unwinder, d, &st) == 0)
				for (k = 0; k < st.nframes && n < (size_t)s->max_stack; k++) {
					const struct perfring_frame *f = perfring_stack_frame(&st, k);

					if (!f->kernel && !f->inlined &&
					    (id = top_names_frame(s->names, s->procs, sm->pid, f->addr,
								  PERF_RECORD_MISC_USER, gen)) != TOP_NONE)
						s->frames[n++] = id;
				}
		}
		if (!n && (id = top_names_frame(s->names, s->procs, sm->pid, sm->ip, perfring_misc_cpumode(d->misc),
						gen)) != TOP_NONE)
			s->frames[n++] = id;
	}
	if (s->sink.sample)
		s->sink.sample(s->sink.ctx, &ts, s->frames, n, sm);
	else
		top_table_add(s->t, &ts, s->frames, n);
}

static int on_record(const struct perfring_msg *ev, void *ctx)
{
	struct top_session *s = ctx;
	const struct perfring_ring_record *r;
	struct perfring_decoded d;
	const void *rec;

	if (ev->kind == PERFRING_MSG_LOST) {
		if (s->sink.lost)
			s->sink.lost(s->sink.ctx, ev->lost);
		else
			top_table_lost(s->t, ev->lost);
		return PERFRING_CONTINUE;
	}
	r = perfring_msg_record(ev);
	if (!r)
		return PERFRING_CONTINUE;
	rec = r->data;
	if (r->data2 && r->len2) {
		memcpy(s->buf, r->data, r->len);
		memcpy(s->buf + r->len, r->data2, r->len2);
		rec = s->buf;
	}
	if (perfring_record_parse(&s->cfg, rec, r->size, &d))
		return PERFRING_CONTINUE;
	switch (d.type) {
	case PERF_RECORD_SAMPLE:
		on_sample(s, &d);
		return PERFRING_CONTINUE;
	case PERF_RECORD_COMM:
		top_comms_comm(s->comms, d.u.comm.pid, d.u.comm.tid, d.u.comm.comm, perfring_misc_comm_exec(d.misc));
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_fork_exit(s, &d);
		break;
	default:
		break;
	}
	if (perfring_procs_feed(s->procs, &d) < 0 && !s->error)
		s->error = -ENOMEM;
	return PERFRING_CONTINUE;
}

/* ---- opening ---- */

static struct perfring_procs *procs_load(struct top_session *s)
{
	struct perfring_procs_opts po = { .sz = sizeof(po), .no_build_ids = true };
	struct perfring_procs *p = perfring_procs_new(&po);
	int i;

	if (!p)
		return NULL;
	/* the tasks that ran before (names resolved live: build ids are not needed) */
	if (s->system_wide)
		perfring_procs_load_all(p);
	for (i = 0; i < s->ntarget; i++)
		perfring_procs_load_proc(p, (uint32_t)s->targets[i]);
	return p;
}

int top_session_open(const struct top_session_opts *o, struct top_table *t, struct top_session **out)
{
	static int cpus[TOP_MAX_CPUS], tasks[TOP_MAX_TASKS];
	struct perfring_event_opts eo = { .sz = sizeof(eo) };
	struct perfring_reader_opts ro = { .sz = sizeof(ro) };
	struct tool_command command = { .go_fd = -1, .err_fd = -1 };
	const char *event = o->event ? o->event : "cpu-clock";
	struct perf_event_attr attr, first = { 0 };
	struct top_session *s;
	uint64_t max_rate = tool_max_sample_rate();
	int ntask = 0, i, k, err, fd, ret = EXIT_ERROR;

	if (o->tool)
		CMD = o->tool;
	s = calloc(1, sizeof(*s));
	if (!s)
		return tool_error(CMD, "no memory");
	s->t = t;
	s->child = -1;
	s->command = (struct tool_command){ .go_fd = -1, .err_fd = -1 };
	s->dwarf = o->dwarf;
	s->no_callchain = o->no_callchain;
	s->max_stack = o->max_stack > 0 && o->max_stack < TOP_MAX_FRAMES ? o->max_stack : TOP_MAX_FRAMES - 1;
	s->freq = o->period ? 0 : o->freq;
	if (o->sink)
		s->sink = *o->sink;
	snprintf(s->event, sizeof(s->event), "%s", event);
	if (s->freq && max_rate && s->freq > max_rate) {
		free(s);
		return tool_usage_error(CMD, "-F %llu is above perf_event_max_sample_rate (%llu)",
					(unsigned long long)o->freq, (unsigned long long)max_rate);
	}
	if (perfring_event_parse(event, &attr)) {
		free(s);
		return tool_usage_error(CMD, "bad event '%s': %s", event, perfring_errmsg());
	}
	s->ncpu = o->cpus ? perfring_parse_cpu_list(o->cpus, cpus, TOP_MAX_CPUS)
			  : perfring_online_cpus(cpus, TOP_MAX_CPUS);
	if (s->ncpu <= 0 || s->ncpu > TOP_MAX_CPUS) {
		free(s);
		if (o->cpus)
			return tool_usage_error(CMD, "bad CPU list '%s' (e.g. 0,2-3)", o->cpus);
		return tool_error(CMD, "cannot list the online CPUs: %s", perfring_errmsg());
	}
	if (o->pids) {
		s->ntarget = tool_id_list(o->pids, s->targets, TOP_MAX_TASKS);
		if (s->ntarget <= 0) {
			free(s);
			return tool_usage_error(CMD, "bad pid list '%s' (numbers >= 1, separated by commas)", o->pids);
		}
		for (i = 0; i < s->ntarget; i++) {
			if ((k = tool_threads_of(s->targets[i], tasks, ntask, TOP_MAX_TASKS)) < 0) {
				ret = tool_error(CMD, "no process %d", s->targets[i]);
				free(s);
				return ret;
			}
			ntask = k;
		}
		snprintf(s->target, sizeof(s->target), "pid %s", o->pids);
	} else if (o->cmd) {
		snprintf(s->target, sizeof(s->target), "command '%s'", o->cmd[0]);
	} else {
		s->system_wide = true;
		tasks[ntask++] = -1;
		snprintf(s->target, sizeof(s->target), "system-wide, %d CPU%s", s->ncpu, s->ncpu > 1 ? "s" : "");
	}
	s->fds = malloc((size_t)(ntask + 1) * (size_t)s->ncpu * sizeof(int));
	s->procs = procs_load(s);
	s->names = top_names_new(t);
	s->comms = top_comms_new(t);
	if (!s->fds || !s->procs || !s->names || !s->comms) {
		tool_error(CMD, "no memory");
		goto fail;
	}
	if (o->cmd) {
		err = tool_command_fork(o->cmd, &command);
		if (err) {
			tool_error(CMD, "cannot start '%s': %s", o->cmd[0], strerror(-err));
			goto fail;
		}
		s->child = command.pid;
		s->cmd0 = o->cmd[0];
		tasks[ntask++] = s->child;
	}

	eo.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	eo.sample_period = o->period;
	eo.sample_freq = o->period ? 0 : o->freq;
	eo.callchain = !o->no_callchain;
	eo.dwarf = o->dwarf;
	eo.exclude_callchain_user = o->dwarf;
	eo.mmap_data = o->dwarf; /* the unwinder reads a library's .eh_frame_hdr through its mappings */
	eo.stack_user_size = o->stack_size;
	eo.sample_id_all = true;
	eo.task_events = true;
	eo.wakeup_bytes = TOP_WATERMARK;
	eo.inherit = !s->system_wide;
	eo.enable_on_exec = o->cmd != NULL;

	/* Rings ride out the first pass, which reads every binary and kallsyms
	 * (a second or more on a loaded machine, while call chains at 4000 Hz
	 * fill 512 KiB a second): 32 MiB over all CPUs, 512 KiB to 4 MiB each. */
	ro.data_pages = (size_t)(32u << 20) / 4096 / (size_t)s->ncpu;
	ro.data_pages = ro.data_pages < 128 ? 128 : ro.data_pages > 1024 ? 1024 : ro.data_pages;
	/* a power of two */
	while (ro.data_pages & (ro.data_pages - 1))
		ro.data_pages &= ro.data_pages - 1;
	if (geteuid() != 0) /* perf_event_mlock_kb: perf's sizes */
		ro.data_pages = o->dwarf ? 256 : 128;
	if (o->data_pages)
		ro.data_pages = o->data_pages;
	ro.wakeup_bytes = TOP_WATERMARK;
	ro.max_delay_ns = 100 * 1000 * 1000ULL;
	ro.linearize = true;
	ro.order_window_ns = TOP_ORDER_NS;
	ro.order_sample_type = eo.sample_type | PERF_SAMPLE_CALLCHAIN;
	ro.order_sample_id_all = true;
	s->rd = perfring_reader_new(&ro);
	if (!s->rd) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto fail;
	}
	for (i = 0; i < s->ncpu; i++) {
		int ring = -1;

		for (k = 0; k < ntask; k++) {
			fd = perfring_event_open(event, tasks[k], cpus[i], -1, &eo, &attr);
			if (fd == -ESRCH && tasks[k] > 0 && s->child < 0)
				continue; /* a thread of -p that exited since /proc listed it */
			if (fd < 0) {
				tool_error(CMD, "%s", perfring_errmsg());
				goto fail;
			}
			s->fds[s->nfds++] = fd;
			if (!first.size)
				first = attr;
			err = ring < 0 ? perfring_reader_add(s->rd, fd, cpus[i]) : perfring_event_set_output(fd, ring);
			if (err < 0) {
				tool_error(CMD, "%s", perfring_errmsg());
				goto fail;
			}
			if (ring < 0)
				ring = fd;
		}
	}
	if (!first.size) {
		tool_error(CMD, "no thread of %s is left to sample", s->target);
		goto fail;
	}
	if (perfring_parse_config_init(&s->cfg, &first, false)) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto fail;
	}
	s->command = command;
	if (!o->hold && (ret = top_session_release(s)))
		goto fail_released;
	*out = s;
	return 0;
fail:
	if (command.go_fd >= 0)
		tool_command_abandon(&command);
fail_released:
	top_session_close(s);
	return ret;
}

int top_session_release(struct top_session *s)
{
	int err;

	if (s->command.go_fd < 0)
		return 0;
	err = tool_command_release(&s->command);
	s->command.go_fd = -1;
	if (err)
		return tool_error(CMD, "cannot run '%s': %s", s->cmd0, strerror(err));
	return 0;
}

int top_session_poll(struct top_session *s, int64_t timeout_ns)
{
	int err = perfring_reader_poll(s->rd, timeout_ns, on_record, s);

	if (err < 0 && err != -ETIMEDOUT && err != -EINTR && err != -PERFRING_EWOKEN && err != -PERFRING_EFLUSHED)
		return tool_error(CMD, "reading the rings: %s", perfring_errmsg());
	if (s->error)
		return tool_error(CMD, "no memory");
	return 0;
}

int top_session_drain(struct top_session *s)
{
	perfring_reader_flush(s->rd);
	return top_session_poll(s, 0);
}

/* A new model from /proc (the exited processes' mappings go). */
static void procs_rebuild(struct top_session *s)
{
	struct perfring_procs *p = procs_load(s);

	if (!p)
		return;
	perfring_procs_free(s->procs);
	s->procs = p;
	s->exits = 0;
	perfring_stacks_free(s->unwinder);
	s->unwinder = NULL;
	top_names_flush(s->names, false);
}

void top_session_interval(struct top_session *s)
{
	top_comms_tick(s->comms);
	/* The model keeps every exited process's mappings: a new one from
	 * /proc once many have exited (their samples are named already). */
	if (s->exits >= TOP_REBUILD_EXITS)
		procs_rebuild(s);
	if (top_names_binaries(s->names) > TOP_SYMBOLIZER_MAX)
		top_names_flush(s->names, true);
}

void top_session_shrink(struct top_session *s)
{
	top_comms_tick(s->comms);
	procs_rebuild(s);
	top_names_flush(s->names, true);
}

uint32_t top_session_comm(struct top_session *s, uint32_t pid, uint32_t tid)
{
	uint32_t gen;

	return top_comms_of(s->comms, pid, tid, &gen);
}

uint32_t top_session_frame(struct top_session *s, uint32_t pid, uint64_t addr, bool kernel)
{
	uint32_t gen;

	top_comms_of(s->comms, pid, pid, &gen);
	return top_names_frame(s->names, s->procs, pid, addr, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
			       gen);
}

int top_session_child(const struct top_session *s)
{
	return s->child;
}

bool top_session_ended(struct top_session *s)
{
	int i;

	if (s->child > 0) {
		if (!s->child_done && waitpid(s->child, &s->child_status, WNOHANG) == s->child) {
			s->child_done = true;
			top_session_drain(s); /* its last samples, held for time order */
		}
		return s->child_done;
	}
	for (i = 0; i < s->ntarget; i++)
		if (kill(s->targets[i], 0) == 0 || errno != ESRCH)
			return false;
	return s->ntarget > 0;
}

const char *top_session_target(const struct top_session *s)
{
	return s->target;
}

const char *top_session_event(const struct top_session *s)
{
	return s->event;
}

uint64_t top_session_freq(const struct top_session *s)
{
	return s->freq;
}

int top_session_ncpus(const struct top_session *s)
{
	return s->ncpu;
}

int top_session_close(struct top_session *s)
{
	int i, status = -1;

	if (!s)
		return -1;
	if (s->command.go_fd >= 0)
		tool_command_abandon(&s->command);
	for (i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	if (s->child > 0) {
		if (!s->child_done) {
			kill(s->child, SIGTERM);
			if (waitpid(s->child, &s->child_status, 0) == s->child)
				s->child_done = true;
		}
		if (s->child_done)
			status = WIFEXITED(s->child_status) ? WEXITSTATUS(s->child_status)
							    : 128 + WTERMSIG(s->child_status);
	}
	top_comms_free(s->comms);
	perfring_reader_free(s->rd);
	top_names_free(s->names);
	perfring_stacks_free(s->unwinder);
	perfring_procs_free(s->procs);
	free(s->fds);
	free(s);
	return status;
}

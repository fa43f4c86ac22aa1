// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring top`'s live session: see top_session.h. */
#include <dirent.h>
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
#include "shared/tool.h"
#include "shared/unwind.h"
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
/* The symbolizer is made anew past this many cached addresses. */
#define TOP_SYMBOLIZER_MAX (1u << 20)

/* A thread's command name; exit_tick: the interval it exited in (0: alive). */
struct comm_ent {
	uint32_t tid;  /* + 1; 0: free */
	uint32_t comm; /* interned in the table */
	uint32_t gen;  /* its process's exec generation (names cached before an exec are stale) */
	uint32_t exit_tick;
};

struct comm_map {
	struct comm_ent *e;
	size_t cap, n; /* cap a power of two */
};

struct top_session {
	struct top_table *t;
	struct top_names *names;
	struct perfring_procs *procs;
	struct perfring_reader *rd;
	struct perfring_parse_config cfg;
	struct unwinder *unwinder;
	struct comm_map comms;
	int *fds;
	int nfds, ncpu;
	int targets[TOP_MAX_TASKS], ntarget;
	bool system_wide, dwarf, no_callchain;
	int max_stack;
	struct top_session_sink sink;
	uint32_t tick, gen, exits;
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

/* ---- command names of threads ---- */

static struct comm_ent *comm_slot(struct comm_map *m, uint32_t tid)
{
	size_t i;

	for (i = (tid * 2654435761u) & (m->cap - 1); m->e[i].tid; i = (i + 1) & (m->cap - 1))
		if (m->e[i].tid == tid + 1)
			return &m->e[i];
	return &m->e[i];
}

static bool comm_grow(struct comm_map *m, size_t cap)
{
	struct comm_map g = { cap ? calloc(cap, sizeof(struct comm_ent)) : NULL, cap, 0 };
	size_t i;

	if (!g.e)
		return false;
	for (i = 0; i < m->cap; i++)
		if (m->e[i].tid) {
			*comm_slot(&g, m->e[i].tid - 1) = m->e[i];
			g.n++;
		}
	free(m->e);
	*m = g;
	return true;
}

/* The entry of tid, made (with no comm yet: TOP_NONE) when missing; NULL without memory. */
static struct comm_ent *comm_get(struct comm_map *m, uint32_t tid)
{
	struct comm_ent *e = m->cap ? comm_slot(m, tid) : NULL;

	if (e && e->tid)
		return e;
	if ((m->n + 1) * 2 > m->cap) {
		if (!comm_grow(m, m->cap ? m->cap * 2 : 1024))
			return NULL;
		e = comm_slot(m, tid);
	}
	*e = (struct comm_ent){ tid + 1, TOP_NONE, 0, 0 };
	m->n++;
	return e;
}

static void comm_set(struct top_session *s, struct comm_ent *e, const char *comm)
{
	uint32_t id = top_table_intern(s->t, comm, NULL, false);

	if (id == TOP_NONE)
		return;
	if (e->comm != TOP_NONE)
		top_table_unref(s->t, e->comm);
	e->comm = id;
}

/* The command name of a thread first seen in a sample: /proc/TID/comm, else ":TID" as perf. */
static uint32_t comm_of(struct top_session *s, uint32_t pid, uint32_t tid, uint32_t *gen)
{
	struct comm_ent *e = comm_get(&s->comms, tid), *p;
	char path[64], name[64] = "";
	FILE *f;

	*gen = 0;
	if (!e)
		return TOP_NONE;
	if (e->comm == TOP_NONE) {
		snprintf(path, sizeof(path), "/proc/%u/comm", tid);
		f = tid ? fopen(path, "re") : NULL;
		if (!tid) /* the idle task, as perf names it */
			snprintf(name, sizeof(name), "swapper");
		else if (!f || !fgets(name, sizeof(name), f))
			snprintf(name, sizeof(name), ":%u", tid);
		if (f)
			fclose(f);
		name[strcspn(name, "\n")] = '\0';
		comm_set(s, e, name);
	}
	if (pid != tid && (p = comm_get(&s->comms, pid)))
		*gen = p->gen;
	else
		*gen = e->gen;
	e = comm_get(&s->comms, tid); /* comm_get() for pid may have moved it */
	return e ? e->comm : TOP_NONE;
}

/* Threads that exited a window ago are forgotten (their samples keep their names). */
static void comm_sweep(struct top_session *s, uint32_t keep)
{
	struct comm_map *m = &s->comms;
	size_t i, live = 0;

	for (i = 0; i < m->cap; i++) {
		struct comm_ent *e = &m->e[i];

		if (e->tid && e->exit_tick && s->tick - e->exit_tick > keep) {
			if (e->comm != TOP_NONE)
				top_table_unref(s->t, e->comm);
			e->tid = 0;
		}
		live += e->tid != 0;
	}
	m->n = live;
	/* removal leaves holes in the probe sequences: rehash in place of tombstones */
	comm_grow(m, m->cap > 1024 && live * 8 < m->cap ? m->cap / 2 : m->cap);
}

/* ---- records ---- */

static void on_comm(struct top_session *s, const struct perfring_decoded *d)
{
	struct comm_ent *e = comm_get(&s->comms, d->u.comm.tid);

	if (!e)
		return;
	comm_set(s, e, d->u.comm.comm);
	if (perfring_misc_comm_exec(d->misc) && (e = comm_get(&s->comms, d->u.comm.pid)))
		e->gen = ++s->gen; /* a new image: the names cached for the old one are stale */
}

static void on_fork_exit(struct top_session *s, const struct perfring_decoded *d)
{
	const struct perfring_rec_fork_exit *fe = &d->u.fork_exit;
	struct comm_ent *e, *parent;

	if (d->type == PERF_RECORD_EXIT) {
		if ((e = comm_get(&s->comms, fe->tid)))
			e->exit_tick = s->tick ? s->tick : 1;
		s->exits += fe->pid == fe->tid;
		return;
	}
	/* a new thread or process starts with its parent's name and image */
	if (!comm_get(&s->comms, fe->tid) || !(parent = comm_get(&s->comms, fe->ptid)) ||
	    !(e = comm_get(&s->comms, fe->tid)))
		return;
	if (e->comm != TOP_NONE) /* a reused tid */
		top_table_unref(s->t, e->comm);
	*e = (struct comm_ent){ fe->tid + 1, TOP_NONE, 0, 0 };
	if (parent->comm != TOP_NONE) {
		top_table_ref(s->t, parent->comm);
		e->comm = parent->comm;
	}
	if (fe->pid != fe->ppid) /* a process of its own: its names are cached apart */
		e->gen = ++s->gen;
	else
		e->gen = parent->gen;
}

static void on_sample(struct top_session *s, const struct perfring_decoded *d)
{
	const struct perfring_sample *sm = &d->u.sample;
	unsigned cpumode = perfring_misc_cpumode(d->misc);
	struct top_sample ts = { sm->period ? sm->period : 1, sm->pid, sm->tid, (int32_t)sm->cpu, 0 };
	size_t n = 0, nu, k;
	uint64_t i, ip;
	uint32_t gen, id;

	ts.comm = comm_of(s, sm->pid, sm->tid, &gen);
	if (ts.comm == TOP_NONE)
		return;
	if (s->no_callchain || !sm->callchain.nr) {
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
		if (s->dwarf && unwind_wanted(sm)) {
			if (!s->unwinder && !(s->unwinder = unwinder_new()))
				return;
			nu = unwind_stack(s->unwinder, s->procs, sm, s->ips, (size_t)s->max_stack - n);
			for (k = 0; k < nu; k++)
				if ((id = top_names_frame(s->names, s->procs, sm->pid, s->ips[k], PERF_RECORD_MISC_USER,
							  gen)) != TOP_NONE)
					s->frames[n++] = id;
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
		on_comm(s, &d);
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

static uint64_t max_sample_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

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

static int id_list(const char *str, int *ids, int cap)
{
	char buf[4096], *tok, *save = NULL;
	uint64_t v;
	int n = 0;

	if (strlen(str) >= sizeof(buf))
		return -1;
	strcpy(buf, str);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == cap || !tool_parse_u64(tok, 1, INT32_MAX, &v))
			return -1;
		ids[n++] = (int)v;
	}
	return n;
}

/* The threads of pid appended to tids (from /proc/PID/task). */
static int threads_of(int pid, int *tids, int n, int cap)
{
	char path[64];
	struct dirent *d;
	uint64_t v;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && n < cap && tool_parse_u64(d->d_name, 1, INT32_MAX, &v))
			tids[n++] = (int)v;
	closedir(dir);
	return n;
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
	uint64_t max_rate = max_sample_rate();
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
		s->ntarget = id_list(o->pids, s->targets, TOP_MAX_TASKS);
		if (s->ntarget <= 0) {
			free(s);
			return tool_usage_error(CMD, "bad pid list '%s' (numbers >= 1, separated by commas)", o->pids);
		}
		for (i = 0; i < s->ntarget; i++) {
			if ((k = threads_of(s->targets[i], tasks, ntask, TOP_MAX_TASKS)) < 0) {
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
	if (!s->fds || !s->procs || !s->names) {
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

	/* 2 MiB per CPU: a first pass that reads every binary and kallsyms takes a
	 * while, and call chains at 4000 Hz fill 512 KiB in about a second */
	ro.data_pages = o->dwarf ? 1024 : 512;
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

/* A new model from /proc (the exited processes' mappings go). */
static void procs_rebuild(struct top_session *s)
{
	struct perfring_procs *p = procs_load(s);

	if (!p)
		return;
	perfring_procs_free(s->procs);
	s->procs = p;
	s->exits = 0;
	unwinder_free(s->unwinder);
	s->unwinder = NULL;
	top_names_flush(s->names, false);
}

void top_session_interval(struct top_session *s)
{
	s->tick++;
	comm_sweep(s, 2);
	/* The model keeps every exited process's mappings: a new one from
	 * /proc once many have exited (their samples are named already). */
	if (s->exits >= TOP_REBUILD_EXITS)
		procs_rebuild(s);
	if (top_names_symbolizer_entries(s->names) > TOP_SYMBOLIZER_MAX)
		top_names_flush(s->names, true);
}

void top_session_shrink(struct top_session *s)
{
	comm_sweep(s, 0);
	procs_rebuild(s);
	top_names_flush(s->names, true);
}

uint32_t top_session_comm(struct top_session *s, uint32_t pid, uint32_t tid)
{
	uint32_t gen;

	return comm_of(s, pid, tid, &gen);
}

uint32_t top_session_frame(struct top_session *s, uint32_t pid, uint64_t addr, bool kernel)
{
	uint32_t gen;

	comm_of(s, pid, pid, &gen);
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
			/* its last samples, held for time order, into the table */
			perfring_reader_flush(s->rd);
			top_session_poll(s, 0);
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
	size_t c;

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
	for (c = 0; c < s->comms.cap; c++)
		if (s->comms.e[c].tid && s->comms.e[c].comm != TOP_NONE)
			top_table_unref(s->t, s->comms.e[c].comm);
	free(s->comms.e);
	perfring_reader_free(s->rd);
	top_names_free(s->names);
	unwinder_free(s->unwinder);
	perfring_procs_free(s->procs);
	free(s->fds);
	free(s);
	return status;
}

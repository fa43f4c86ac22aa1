// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring profile`'s interval loop. The live session (tools/top/
 * top_session.c) reads the rings and names each sample; here the sample
 * goes into the interval's profile with its labels. At each interval's end
 * (intervals are aligned on the start, so a slow write or a dead backend
 * does not shift them) the profile is closed: what it is missing is added
 * to it and said on stderr, it is written to the directory and queued for
 * the push, and the profile is emptied for the next one.
 *
 * What a profile is missing, each marked with a "missing" label so that a
 * backend can show or filter it, and so that its totals are what was taken:
 * - lost: samples the kernel dropped when a ring was full; they have no
 *   stack, so they are added as that many samples of one frame "[lost]"
 *   (each weighing one sampling period);
 * - no-stack: samples whose call chain the kernel could not walk (the
 *   sampled address alone);
 * - process-gone: samples of a thread that exited before it could be named
 *   (its comm is ":TID", as perf shows it).
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <perfring/perfring.h>
#include <perfring/profile.h>

#include "profile/profile_tool.h"
#include "shared/tool.h"

#define CMD PROFILE_CMD
#define MAX_FRAMES 512
#define MAX_LABELS 8

volatile sig_atomic_t profile_stop;

enum { EV_CPU, EV_OFF };

struct counts {
	uint64_t taken, lost, no_stack, gone, off_entries, off_ns, off_no_stack;
};

struct run {
	const struct profile_opts *o;
	struct top_table *t;
	struct top_session *s;
	struct perfring_profile *prof;
	struct profile_labels *labels;
	struct profile_push *push;
	struct profile_offcpu *oc;
	uint32_t ev[2];                     /* the profile's index of each event */
	struct counts c;
	uint64_t dir_removed;
	uint64_t intervals;
	int error;
	struct perfring_frame frames[MAX_FRAMES];
	uint32_t ids[MAX_FRAMES];
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Add one sample with the run's labels (+ a "missing" one when what). */
static void add(struct run *r, uint32_t event, uint32_t pid, uint32_t tid, const char *comm, uint64_t time,
		uint64_t period, size_t nframes, const char *missing)
{
	struct perfring_profile_label l[MAX_LABELS];
	struct perfring_stack st = { .nframes = nframes, .frame_sz = sizeof(struct perfring_frame), .frames = r->frames };
	struct perfring_profile_sample s = { .sz = sizeof(s) };
	const char *cgroup, *container;
	size_t n = 0;
	int err;

	l[n++] = (struct perfring_profile_label){ "host", profile_labels_host(r->labels) };
	profile_labels_cgroup(r->labels, pid, &cgroup, &container);
	if (*cgroup)
		l[n++] = (struct perfring_profile_label){ "cgroup", cgroup };
	if (*container)
		l[n++] = (struct perfring_profile_label){ "container", container };
	if (missing)
		l[n++] = (struct perfring_profile_label){ "missing", missing };
	s.stack = nframes ? &st : NULL;
	s.pid = pid;
	/* without --tid a process's threads are counted together: its tid label is the pid */
	s.tid = r->o->tid_label ? tid : pid;
	s.comm = comm;
	s.time = time;
	s.event = event;
	s.period = period;
	s.labels = l;
	s.nlabels = n;
	err = perfring_profile_add(r->prof, &s);
	if (err && !r->error)
		r->error = err;
}

/* The number of addresses a call chain holds (its context markers left out). */
static size_t chain_addrs(const struct perfring_sample *sm)
{
	size_t n = 0;
	uint64_t i;

	for (i = 0; i < sm->callchain.nr; i++)
		n += !perfring_callchain_is_context(perfring_u64_at(&sm->callchain, i));
	return n;
}

static void on_sample(void *ctx, const struct top_sample *ts, const uint32_t *ids, size_t n,
		      const struct perfring_sample *raw)
{
	struct run *r = ctx;
	const char *comm = top_table_name(r->t, ts->comm), *missing = NULL;

	if (!r->o->on_cpu)
		return; /* --off-cpu alone: the session samples at 1 Hz to keep its names fresh */
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	profile_frames_of(r->t, ids, n, r->frames);
	r->c.taken++;
	if (comm[0] == ':') {
		missing = "process-gone";
		r->c.gone++;
	} else if (!r->o->session.dwarf && chain_addrs(raw) < 2 && ts->pid) {
		missing = "no-stack";
		r->c.no_stack++;
	}
	add(r, r->ev[EV_CPU], ts->pid, ts->tid, comm, raw->time, ts->period, n, missing);
}

static void on_lost(void *ctx, uint64_t n)
{
	struct run *r = ctx;

	r->c.lost += n;
}

/* ---- off-CPU entries into the profile ---- */

static bool tracepoint_frame(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trace_run", 13) ||
	       !strncmp(name, "__traceiter_", 12) || !strncmp(name, "__bpf_trace_", 12);
}

static void on_offcpu(void *ctx, const struct profile_offcpu_entry *e)
{
	struct run *r = ctx;
	uint32_t comm = top_session_comm(r->s, e->pid, e->tid), id;
	const char *name, *missing = NULL;
	size_t n = 0, i;

	/* leaf first: the kernel's frames (where it blocked), then the user ones; the
	 * program's own way in from the tracepoint is not where the thread blocked */
	for (i = 0; i < e->nk && n < MAX_FRAMES; i++)
		if ((id = top_session_frame(r->s, e->pid, e->kips[i], true)) != TOP_NONE &&
		    (n || !tracepoint_frame(top_table_name(r->t, id))))
			r->ids[n++] = id;
	for (i = 0; i < e->nu && n < MAX_FRAMES; i++)
		if ((id = top_session_frame(r->s, e->pid, e->uips[i], false)) != TOP_NONE)
			r->ids[n++] = id;
	/* the ids are the naming cache's: converted before the next name is asked for */
	profile_frames_of(r->t, r->ids, n, r->frames);
	name = comm == TOP_NONE ? NULL : top_table_name(r->t, comm);
	r->c.off_entries++;
	r->c.off_ns += e->ns;
	if (e->lost_stack) {
		missing = "no-stack";
		r->c.off_no_stack++;
	}
	add(r, r->ev[EV_OFF], e->pid, e->tid, name, 0, e->ns, n, missing);
}

/* ---- closing an interval ---- */

static void add_lost(struct run *r)
{
	uint64_t period = r->o->session.freq ? 1000000000ull / r->o->session.freq : 1, i;

	memset(&r->frames[0], 0, sizeof(r->frames[0]));
	r->frames[0].name = "[lost]";
	r->frames[0].dso = "[perfring]";
	for (i = 0; i < r->c.lost; i++)
		add(r, r->ev[EV_CPU], 0, 0, "[lost]", 0, period, 1, "lost");
}

static void stamp(uint64_t epoch_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(epoch_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(epoch_ns / 1000000ull % 1000));
}

/* Write fmt (event for FOLDED) into memory. 0, or -errno. */
static int to_memory(struct run *r, enum perfring_profile_format fmt, uint32_t event, char **buf, size_t *len)
{
	struct perfring_profile_write_opts wo = { .sz = sizeof(wo), .event = event };

	/* off-CPU folded lines weigh nanoseconds blocked, CPU ones samples */
	wo.by_period = r->o->off_cpu && event == r->ev[EV_OFF];
	FILE *f = open_memstream(buf, len);
	int err;

	if (!f)
		return -ENOMEM;
	err = perfring_profile_write(r->prof, fmt, f, &wo);
	if (fclose(f) && !err)
		err = -EIO;
	return err;
}

static int close_interval(struct run *r, uint64_t from_real, uint64_t until_real)
{
	char name[128], when[64], *buf = NULL;
	size_t len = 0;
	struct profile_push_stats ps = { 0 };
	int err = 0;

	if (r->oc)
		profile_offcpu_drain(r->oc, on_offcpu, r);
	if (r->o->on_cpu)
		add_lost(r);
	if (r->error) {
		err = r->error;
		tool_error(CMD, "adding samples: %s", strerror(-err));
		goto out;
	}
	stamp(from_real, when, sizeof(when));
	err = to_memory(r, PERFRING_PROFILE_PPROF, 0, &buf, &len);
	if (err) {
		tool_error(CMD, "writing the profile: %s", strerror(-err));
		goto out;
	}
	if (r->o->dir) {
		snprintf(name, sizeof(name), "profile-%s.pb.gz", when);
		if (profile_dir_put(r->o->dir, name, buf, len, r->o->max_dir_size, &r->dir_removed))
			err = -EIO;
	}
	if (r->push)
		profile_push_add(r->push, buf, len, from_real, until_real);
	free(buf);
	buf = NULL;
	if (!err && r->o->dir && r->o->folded) {
		for (uint32_t e = 0; e < (r->o->on_cpu && r->o->off_cpu ? 2u : 1u) && !err; e++) {
			if ((err = to_memory(r, PERFRING_PROFILE_FOLDED, e, &buf, &len)))
				break;
			snprintf(name, sizeof(name), "profile-%s%s.folded", when,
				 r->o->off_cpu && (e == 1 || !r->o->on_cpu) ? ".off-cpu" : "");
			if (profile_dir_put(r->o->dir, name, buf, len, r->o->max_dir_size, &r->dir_removed))
				err = -EIO;
			free(buf);
			buf = NULL;
		}
	}
	r->intervals++;
	if (r->push)
		profile_push_stats(r->push, &ps);
	if (!r->o->quiet) {
		fprintf(stderr,
			"%s %s: interval %llu %s: %llu samples; missing: %llu lost, %llu no-stack, %llu process-gone",
			TOOL_NAME, CMD, (unsigned long long)r->intervals, when, (unsigned long long)r->c.taken,
			(unsigned long long)r->c.lost, (unsigned long long)r->c.no_stack,
			(unsigned long long)r->c.gone);
		if (r->oc)
			fprintf(stderr, "; off-cpu: %llu stacks, %.3f s blocked, %llu no-stack",
				(unsigned long long)r->c.off_entries, (double)r->c.off_ns / 1e9,
				(unsigned long long)r->c.off_no_stack);
		if (r->push)
			fprintf(stderr, "; push: %llu sent, %llu retried, %llu dropped",
				(unsigned long long)ps.sent, (unsigned long long)ps.retries,
				(unsigned long long)(ps.dropped_full + ps.dropped_failed + ps.rejected));
		if (r->o->dir && r->o->max_dir_size)
			fprintf(stderr, "; %llu old files removed", (unsigned long long)r->dir_removed);
		fputc('\n', stderr);
	}
out:
	free(buf);
	perfring_profile_reset(r->prof);
	memset(&r->c, 0, sizeof(r->c));
	r->error = 0;
	return err;
}

/* Resident memory in bytes (/proc/self/statm). */
static uint64_t rss_bytes(void)
{
	unsigned long long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu %llu", &size, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Past 3/4 of --max-memory, forget what can be read again (the profile has
 * copied every name it holds). */
static void bound_memory(struct run *r)
{
	uint64_t rss = rss_bytes();

	if (rss * 4 <= r->o->max_memory * 3)
		return;
	top_session_shrink(r->s);
	/* what was freed goes back to the system: glibc keeps freed heap pages otherwise */
	malloc_trim(0);
	if (!r->o->quiet)
		fprintf(stderr,
			"%s %s: %llu KiB resident, over 3/4 of --max-memory: names and binaries forgotten, %llu KiB now\n",
			TOOL_NAME, CMD, (unsigned long long)(rss >> 10), (unsigned long long)(rss_bytes() >> 10));
}

static int open_profile(struct run *r)
{
	const char *names[2];
	struct perfring_profile_opts po = { .sz = sizeof(po), .event_names = names };

	if (r->o->on_cpu) {
		r->ev[EV_CPU] = (uint32_t)po.nevents;
		names[po.nevents++] = "cpu-clock";
	}
	if (r->o->off_cpu) {
		r->ev[EV_OFF] = (uint32_t)po.nevents;
		names[po.nevents++] = "off-cpu";
	}
	r->prof = perfring_profile_new(&po);
	if (!r->prof)
		return tool_error(CMD, "no memory");
	if (r->o->on_cpu)
		perfring_profile_set_sampling(r->prof, r->ev[EV_CPU], r->o->session.freq, true);
	/* perf's clock is the kernel's local clock, CLOCK_MONOTONIC's base on x86: close enough
	 * to date a profile's samples (pprof's time_nanos) */
	perfring_profile_set_clock(r->prof, tool_now_ns(), realtime_ns());
	return 0;
}

int profile_run(const struct profile_opts *o)
{
	struct top_session_sink sink = { on_sample, on_lost, NULL };
	struct top_session_opts so = o->session;
	struct run *r = calloc(1, sizeof(*r));
	uint64_t start, end, next, now, from_real;
	int ret = EXIT_ERROR, err, child;

	if (!r)
		return tool_error(CMD, "no memory");
	r->o = o;
	sink.ctx = r;
	so.sink = &sink;
	if (o->dir && (ret = profile_dir_check(o->dir)))
		goto out;
	ret = EXIT_ERROR;
	r->labels = profile_labels_new();
	/* the table only interns the names (the profile keeps the samples): its window is unused */
	r->t = top_table_new(1, 1, 1);
	if (!r->labels || !r->t) {
		tool_error(CMD, "no memory");
		goto out;
	}
	if ((ret = open_profile(r)))
		goto out;
	if (!o->on_cpu) /* off-CPU alone: the session still names, but samples rarely */
		so.freq = 1;
	so.hold = true; /* -- CMD runs once the off-CPU program is attached too */
	if ((ret = top_session_open(&so, r->t, &r->s)))
		goto out;
	ret = EXIT_ERROR;
	if (o->off_cpu) {
		int pids[256], npids = 0;
		char *list = o->session.pids ? strdup(o->session.pids) : NULL, *tok, *save = NULL;

		for (tok = list ? strtok_r(list, ",", &save) : NULL; tok && npids < 256; tok = strtok_r(NULL, ",", &save))
			pids[npids++] = atoi(tok);
		free(list);
		if ((child = top_session_child(r->s)) > 0)
			pids[npids++] = child;
		r->oc = profile_offcpu_open(pids, npids);
		if (!r->oc)
			goto out;
	}
	if ((ret = top_session_release(r->s)))
		goto out;
	ret = EXIT_ERROR;
	if ((o->pyroscope || o->parca) && !(r->push = profile_push_new(o, profile_labels_host(r->labels)))) {
		tool_error(CMD, "cannot start the push: no memory");
		goto out;
	}
	start = tool_now_ns();
	end = o->duration_ns ? start + o->duration_ns : UINT64_MAX;
	from_real = realtime_ns();
	next = start + o->interval_ns;
	ret = EXIT_OK;
	for (;;) {
		bool last;

		now = tool_now_ns();
		if (now < next && now < end && !profile_stop && !top_session_ended(r->s)) {
			int64_t wait = (int64_t)((next < end ? next : end) - now);

			if ((err = top_session_poll(r->s, wait < 200000000 ? wait : 200000000))) {
				ret = err;
				break;
			}
			continue;
		}
		/* a signal, --duration or the target's end: this interval is the last */
		last = profile_stop || now >= end || top_session_ended(r->s);
		now = tool_now_ns();
		err = close_interval(r, from_real, realtime_ns());
		from_real = realtime_ns();
		if (err) {
			ret = EXIT_ERROR;
			break;
		}
		if (last || (o->count && r->intervals >= o->count))
			break;
		top_session_interval(r->s);
		profile_labels_tick(r->labels);
		/* once an interval: what the symbolizer holds is the interval's working set, and
		 * forgetting it more often only reads the same binaries again (measured: every
		 * second, 14 MiB after each shrink and 46 MiB a second later) */
		bound_memory(r);
		while (next <= now)
			next += o->interval_ns;
	}
out:
	profile_push_free(r->push, o->push_timeout);
	profile_offcpu_close(r->oc);
	if (r->s)
		top_session_close(r->s);
	perfring_profile_free(r->prof);
	top_table_free(r->t);
	profile_labels_free(r->labels);
	free(r);
	return ret;
}

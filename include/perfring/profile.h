/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring profile layer: named stacks (stack.h) aggregated into a profile,
 * written as folded stacks, pprof, speedscope or Firefox Profiler files.
 *
 * A profile counts its samples by (event, pid, tid, comm, labels, stack):
 * every string, mapping, function, location and stack is interned once, so
 * memory grows with the distinct ones, not with the samples (a million
 * samples of one stack cost one stack and two counters), unless the
 * profile keeps a timeline (perfring_profile_opts.timeline: 24 bytes a
 * sample, for the Firefox Profiler's per-sample times).
 *
 * perfring_profile_add() copies every string and frame it is given: nothing
 * the caller passes needs to outlive the call. A profile is not
 * thread-safe: one per thread, or a lock.
 *
 * A profiler that writes a file every interval calls perfring_profile_write()
 * then perfring_profile_reset(): the samples and everything interned for
 * them go, the events, clock and sampling stay, so memory stays bounded by
 * what one interval names.
 */
#ifndef PERFRING_PROFILE_H
#define PERFRING_PROFILE_H

#include <stdio.h>

#include <perfring/common.h>
#include <perfring/stack.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_profile;

struct perfring_profile_opts {
	size_t sz;
	/* The events samples are counted for, by index (perfring_profile_sample.event):
	 * nevents names (1..4096), copied. "cpu-clock", "task-clock" and "off-cpu" (blocked
	 * time; with or without ":modifiers") count nanoseconds, the others events. Required. */
	const char *const *event_names;
	size_t nevents;
	/* Keep every sample's time, period and stack in the order added, for the
	 * format that shows a timeline (PERFRING_PROFILE_FIREFOX). */
	bool timeline;
};

/* NULL with errno set (EINVAL: no events, more than 4096, a bad sz; ENOMEM). */
PERFRING_API struct perfring_profile *perfring_profile_new(const struct perfring_profile_opts *opts);
PERFRING_API void perfring_profile_free(struct perfring_profile *p);

/* Drop every sample and what was interned for them (strings, mappings,
 * functions, locations, stacks, the timeline); keep the events, the clock
 * and the sampling. 0 or -EINVAL (p NULL). */
PERFRING_API int perfring_profile_reset(struct perfring_profile *p);

/* The samples' clock at clock_ns is epoch_ns, ns since 1970 (perf.data's
 * HEADER_CLOCK_DATA; a live profiler reads both clocks at once): pprof's
 * time and the Firefox Profiler's start are then wall-clock times. Without
 * it they are the first sample's time on the samples' clock (by default
 * CLOCK_MONOTONIC: pprof shows a date in 1970, and a comment says why).
 * 0 or -EINVAL. */
PERFRING_API int perfring_profile_set_clock(struct perfring_profile *p, uint64_t clock_ns, uint64_t epoch_ns);

/* How event was sampled (its perf_event_attr): a sample every value events
 * (freq false: sample_period), or value samples a second (freq true:
 * sample_freq). pprof's period is event 0's fixed period, else the samples'
 * mean period; comments say each event's. 0 or -EINVAL (no such event). */
PERFRING_API int perfring_profile_set_sampling(struct perfring_profile *p, uint32_t event, uint64_t value,
					       bool freq);

/* A label of a sample: key and value strings (a cgroup, a container, a host). */
struct perfring_profile_label {
	const char *key;
	const char *value;
};

struct perfring_profile_sample {
	size_t sz;
	/* Named frames, leaf first (stack.h); NULL or no frames: a sample of
	 * its process with no stack. */
	const struct perfring_stack *stack;
	uint32_t pid, tid;
	const char *comm;       /* the thread's name; NULL or "": unknown (shown ":PID") */
	uint64_t time;          /* ns on the samples' clock; 0: unknown */
	uint32_t event;         /* index into perfring_profile_opts.event_names */
	uint64_t period;        /* the sample's weight: the events (or ns) it stands for */
	/* Labels, written to pprof (pid, tid and comm are written as labels
	 * already); samples with other labels are counted apart. At most 256. */
	const struct perfring_profile_label *labels;
	size_t nlabels;
};

/* Count one sample. 0, -EINVAL (no such event, a stack with frames NULL or
 * frame_sz smaller than struct perfring_frame, more than 65536 frames or 256
 * labels, a label without key or value, a bad sz) or -ENOMEM. */
PERFRING_API int perfring_profile_add(struct perfring_profile *p, const struct perfring_profile_sample *s);

enum perfring_profile_format {
	/* FlameGraph's "comm;root;...;leaf COUNT" lines, as perf script |
	 * stackcollapse-perf.pl prints them: one event, counts of samples (or
	 * periods). */
	PERFRING_PROFILE_FOLDED = 1,
	/* gzip'd perftools.profiles.Profile (go tool pprof, Pyroscope, Parca,
	 * Grafana): every event, labels pid, tid, comm and the samples' own. */
	PERFRING_PROFILE_PPROF = 2,
	/* speedscope's JSON file format: a profile per event and process. */
	PERFRING_PROFILE_SPEEDSCOPE = 3,
	/* The Firefox Profiler's processed format (version 75): a thread per
	 * event, process and thread, every sample at its time (needs
	 * perfring_profile_opts.timeline). */
	PERFRING_PROFILE_FIREFOX = 4,
};

struct perfring_profile_write_opts {
	size_t sz;
	uint32_t event;         /* FOLDED: the event whose stacks are written (default 0) */
	bool by_period;         /* FOLDED: counts are the samples' periods, not their number */
	const char *title;      /* SPEEDSCOPE, FIREFOX: the profile's name (NULL: "perfring") */
};

/* Write p to out as fmt. 0, or -EINVAL (no such event, FIREFOX without a
 * timeline, a bad sz), -EOPNOTSUPP (a format this library does not know),
 * -ENOMEM, -EIO (writing out failed). out is flushed, not closed. */
PERFRING_API int perfring_profile_write(const struct perfring_profile *p, enum perfring_profile_format fmt, FILE *out,
					const struct perfring_profile_write_opts *opts);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_PROFILE_H */

/* A profile: symbolized samples aggregated by stack, and its exports.
 *
 * perfring report and perfring script resolve each sample
 * of a perf.data file into a prof_sample (frames named by the symbol layer)
 * and add it to a profile; the profile writes itself as folded stacks
 * (FlameGraph's stackcollapse format), as pprof (gzip'd profile.proto) or as
 * speedscope JSON. The encoders see only this interface, so a profile can be
 * built by hand in a test.
 *
 * Ownership: prof_add() copies every string and frame it is given; nothing
 * the caller passes needs to outlive the call.
 */
#ifndef PERFRING_TOOLS_PROFILE_H
#define PERFRING_TOOLS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One frame of a call chain. */
struct prof_frame {
	uint64_t addr;         /* the address sampled or returned to */
	const char *name;      /* function name; NULL when unknown */
	uint64_t sym_off;      /* addr - the function's start (when name != NULL) */
	const char *binary;    /* file, "[kernel.kallsyms]", "[unknown]", ... ; NULL when unknown */
	const uint8_t *build_id; /* the binary's build id, NULL when unknown */
	size_t build_id_size;
	uint64_t map_start;    /* the mapping holding addr: [map_start, map_limit), */
	uint64_t map_limit;    /* file offset map_pgoff at map_start; all 0 when unknown */
	uint64_t map_pgoff;
	const char *file;      /* source file and line, NULL/0 when unknown */
	uint32_t line;
	bool kernel;           /* a kernel address */
	bool inlined;          /* an inlined frame (the next frame is the function it is in) */
};

/* One sample: frames[0] is the leaf (the sampled ip), frames[nframes-1] the root. */
struct prof_sample {
	uint32_t pid, tid;
	const char *comm;      /* "" when unknown */
	uint64_t time;         /* ns, 0 when the file has none */
	int event;             /* index into the profile's events */
	uint64_t period;       /* the sample's weight (its period; 1 when the file has none) */
	const struct prof_frame *frames;
	size_t nframes;
};

struct profile;

/* A profile of nevents events (1..4096), named (e.g. "cpu-clock"); names are copied.
 * NULL with errno EINVAL or ENOMEM. Memory grows with the distinct strings, mappings,
 * functions, locations and stacks (by event, pid, tid, comm and locations), not with the
 * samples; the encoders (tools/export/prof_*.c) say how each format is laid out. */
struct profile *prof_new(const char *const *event_names, int nevents);
void prof_free(struct profile *p);

/* perf's clock (sample times) at epoch_ns (ns since 1970), e.g. from the file's
 * HEADER_CLOCK_DATA: pprof's time_nanos is then the first sample's wall-clock
 * time. Without it, time_nanos is the first sample's time on perf's clock
 * (by default CLOCK_MONOTONIC: time since boot, so pprof shows a date in 1970)
 * and a comment of the profile says so; duration_nanos is always from the
 * first to the last sample's time. */
void prof_set_clock(struct profile *p, uint64_t perf_ns, uint64_t epoch_ns);

/* How event was sampled (its perf_event_attr): one sample every value events,
 * or with freq value samples a second. pprof's period is event 0's fixed
 * period, or with a frequency (or when not set) the samples' mean period;
 * the profile's comments say each event's. */
void prof_set_sampling(struct profile *p, int event, uint64_t value, bool freq);

/* Keep every sample's time, period and stack in the order they are added (24 bytes a
 * sample: memory then grows with the samples), for the exports that show a timeline
 * (prof_write_firefox()). Call before the first prof_add(). 0 or -ENOMEM. */
int prof_keep_timeline(struct profile *p);

/* Adds one sample. 0, or -ENOMEM / -EINVAL (no such event, frames NULL with nframes > 0,
 * more than 65536 frames). */
int prof_add(struct profile *p, const struct prof_sample *s);

/* Exports. Each returns 0 or a negative errno; a write error on out is -EIO.
 * event < 0: every event (folded: the sum of their counts per stack is not
 * meaningful, so folded takes one event: -1 means event 0). */
/* "comm;root;...;leaf count" per distinct line, count = samples (or periods with by_period),
 * named and sorted as perf script | stackcollapse-perf.pl would print them (prof_folded.c). */
int prof_write_folded(const struct profile *p, int event, bool by_period, FILE *out);
/* gzip'd perftools.profiles.Profile: sample types "samples/count" and "<event>/nanoseconds"
 * (or "<event>/count" when the event is not a clock) per event ("<event>-samples/count" when
 * there are several events), locations with mappings and build ids, functions (inlined ones
 * as lines of one location), labels pid, tid (numbers) and comm; duration_nanos from the
 * samples, time_nanos with prof_set_clock() (prof_pprof.c). */
int prof_write_pprof(const struct profile *p, FILE *out);
/* speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * one "sampled" profile per event and process, heaviest first; name is the file's title
 * (prof_speedscope.c). */
int prof_write_speedscope(const struct profile *p, const char *name, FILE *out);
/* The Firefox Profiler's processed profile format (version 75; profiler.firefox.com and its
 * profiler-cli open it): a thread per event, process and thread, every sample at its time with
 * its stack (prof_keep_timeline() is needed: -EINVAL without it); clock events weighted by
 * their periods in ms, others counted. name is the file's title (prof_firefox.c). */
int prof_write_firefox(const struct profile *p, const char *name, FILE *out);

#endif

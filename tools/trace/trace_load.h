/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Loading `perfring trace`'s BPF program (tools/trace/trace.bpf.c), configuring it
 * for each tracepoint and filter, and attaching it; errors come back as one
 * line that says what is needed.
 */
#ifndef PERFRING_TRACE_LOAD_H
#define PERFRING_TRACE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/trace_format.h"

struct trace_bpf;

struct trace_filters {
	uint32_t flags;          /* TRACE_FILTER_* of tools/trace/trace.h */
	const char *comm;        /* TRACE_FILTER_COMM: at most 15 characters */
	const int *cpus;         /* TRACE_FILTER_CPU */
	size_t ncpus;
	uint32_t exclude_tgid;   /* not traced (perfring itself), 0: none */
	uint32_t ringbuf_bytes;  /* > 0: send through the BPF ring buffer events_rb of this size */
};

/* Open and load the program with these filters. NULL with err set on failure. */
struct trace_bpf *trace_load(const struct trace_filters *filt, bool verbose, char *err, size_t errlen);

/* Add a process to the pid filter (and, under TRACE_FILTER_FOLLOW, its future children). 0 or -errno. */
int trace_add_pid(struct trace_bpf *skel, uint32_t tgid);

/* Configure and attach the program to every tracepoint of tf, and the
 * fork/free programs under TRACE_FILTER_FOLLOW. 0, or -1 with err set. */
int trace_attach(struct trace_bpf *skel, const struct trace_formats *tf, char *err, size_t errlen);

/* The perf event array. */
int trace_events_fd(const struct trace_bpf *skel);
/* The BPF ring buffer and its lost-record map (perfring_ringbuf.bpf.h). */
int trace_events_rb_fd(const struct trace_bpf *skel);
int trace_rb_lost_fd(const struct trace_bpf *skel);

/* The number of CPUs the program's per-CPU counters have (possible CPUs). */
int trace_ncpus(void);

/* The program's counters of each CPU into c[0 .. ncpus) (ncpus =
 * trace_ncpus()). 0 or -errno. */
int trace_counts_read(const struct trace_bpf *skel, struct trace_counts *c, int ncpus);

/* The sum over CPUs, and what of it was lost (not written into a ring). */
void trace_counts_total(const struct trace_counts *c, int ncpus, struct trace_counts *sum);
uint64_t trace_counts_lost(const struct trace_counts *c);

/* Stop the program counting and writing, and wait until no run of it is in
 * flight: after this and a drain of the rings, the counters are final and
 * every event they count as sent has been read. */
void trace_quiesce(struct trace_bpf *skel);

/* Detach, unload, free. NULL is a no-op. */
void trace_unload(struct trace_bpf *skel);

#endif

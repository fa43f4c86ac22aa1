/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `perfring trace` counts while it runs: events per tracepoint, lost
 * records, wakeups, and the delivery delay (from bpf_ktime_get_ns() in the
 * program to the moment the tool handles the event) in a log-linear
 * histogram; the live status line and the final summary come from here.
 */
#ifndef PERFRING_TRACE_STATS_H
#define PERFRING_TRACE_STATS_H

#include <stdint.h>
#include <stdio.h>

#include <perfring/reader.h>

#include "trace/trace_format.h"

/* 16 sub-buckets per power of two: percentiles within 1/16 (6%). */
#define TRACE_HIST_SUB 16
#define TRACE_HIST_BUCKETS (64 * TRACE_HIST_SUB)

struct trace_stats {
	uint64_t start_ns;
	uint64_t events, malformed, lost, batches;
	uint64_t *per_tp;     /* by index in the trace_formats */
	size_t ntp;
	uint64_t delay_max_ns;
	uint64_t hist[TRACE_HIST_BUCKETS];
	uint64_t status_ns, status_events; /* at the last status line */
};

/* 0, or -ENOMEM. */
int trace_stats_init(struct trace_stats *st, size_t ntp, uint64_t start_ns);
void trace_stats_fini(struct trace_stats *st);

/* One event of tracepoint index tp, delivered delay_ns after it was written. */
void trace_stats_event(struct trace_stats *st, size_t tp, uint64_t delay_ns);

/* The delay below which a fraction q (0..1) of the events were delivered:
 * the upper bound of its histogram bucket. */
uint64_t trace_stats_percentile(const struct trace_stats *st, double q);

/* One status line, rewritten in place ("\r"): events/s since the last one,
 * lost, and the bytes waiting in each CPU's ring. */
void trace_stats_status(struct trace_stats *st, struct perfring_reader *rd, FILE *f, uint64_t now_ns);

/* Erase the status line. */
void trace_stats_status_clear(FILE *f);

/* The summary: events per tracepoint, lost, rate, the reader's policy and
 * the delay percentiles. */
void trace_stats_summary(const struct trace_stats *st, struct perfring_reader *rd, const struct trace_formats *tf,
			 const struct trace_counts *prog, const struct perfring_reader_opts *ro, FILE *f,
			 uint64_t end_ns);

#endif

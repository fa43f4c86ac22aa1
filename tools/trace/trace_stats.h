/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `perfring trace` counts while it runs: events per tracepoint and per
 * CPU, the losses the rings reported, user strings the program could not
 * read, wakeups, and the delivery delay (from bpf_ktime_get_ns() in the
 * program to the moment the tool handles the event) in a log-linear
 * histogram; the live status line and the final summary come from here.
 *
 * What was lost is the program's count (struct trace_counts, per CPU): it
 * sees every event that fails to go into a ring. The kernel's LOST records
 * (and the ring buffer's lost notices) count the same events again, later:
 * a perf ring reports its drops only in front of the next record that fits,
 * so drops at the end of a run never come as a LOST record. They are shown
 * as how much of the loss was reported while tracing, never added to it.
 */
#ifndef PERFRING_TRACE_STATS_H
#define PERFRING_TRACE_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <perfring/reader.h>

#include "trace/trace_format.h"

/* 16 sub-buckets per power of two: percentiles within 1/16 (6%). */
#define TRACE_HIST_SUB 16
#define TRACE_HIST_BUCKETS (64 * TRACE_HIST_SUB)

struct trace_stats {
	uint64_t start_ns;
	uint64_t events, malformed, batches;
	uint64_t unread;      /* user strings the program could not read (not NULL) */
	int ncpus;            /* entries of the per-CPU arrays: trace_ncpus() */
	uint64_t *received;   /* per CPU: samples that arrived, decoded or not */
	uint64_t *reported;   /* per CPU: events the rings' LOST records counted */
	uint64_t received_nocpu, reported_nocpu; /* the same without a CPU (the ring buffer's notices) */
	bool one_ring;        /* a BPF ring buffer: its lost notices name no CPU */
	struct trace_counts *prog; /* per CPU: the program's counters, as last read */
	uint64_t *per_tp;     /* by index in the trace_formats */
	size_t ntp;
	uint64_t delay_max_ns;
	uint64_t hist[TRACE_HIST_BUCKETS];
	uint64_t status_ns, status_events; /* at the last status line */
};

/* 0, or -ENOMEM. */
int trace_stats_init(struct trace_stats *st, size_t ntp, int ncpus, uint64_t start_ns);
void trace_stats_fini(struct trace_stats *st);

/* One event of tracepoint index tp, delivered delay_ns after it was written. */
void trace_stats_event(struct trace_stats *st, size_t tp, uint64_t delay_ns);

/* A sample arrived from cpu (decoded or not), with unread user strings. */
void trace_stats_sample(struct trace_stats *st, int cpu, size_t unread);

/* A LOST record (or notice) of a ring on cpu (-1: none) counted lost events. */
void trace_stats_reported(struct trace_stats *st, int cpu, uint64_t lost);

/* The program's total counters (from st->prog). */
void trace_stats_prog_total(const struct trace_stats *st, struct trace_counts *sum);

/* Lost events no LOST record reported: on cpu (the program's count less the
 * records'), or with cpu -1 over all CPUs. */
uint64_t trace_stats_unreported(const struct trace_stats *st, int cpu);

/* The delay below which a fraction q (0..1) of the events were delivered:
 * the upper bound of its histogram bucket. */
uint64_t trace_stats_percentile(const struct trace_stats *st, double q);

/* One status line, rewritten in place ("\r"): events/s since the last one,
 * lost (the program's count, read by the caller into st->prog), and the
 * bytes waiting in each CPU's ring. */
void trace_stats_status(struct trace_stats *st, struct perfring_reader *rd, FILE *f, uint64_t now_ns);

/* Erase the status line. */
void trace_stats_status_clear(FILE *f);

/* The summary: events per tracepoint, what the program traced as received
 * plus lost, in all and per CPU (from st->prog, read after the program was
 * quiesced and the rings drained), rate, the reader's policy and the delay
 * percentiles. */
void trace_stats_summary(const struct trace_stats *st, struct perfring_reader *rd, const struct trace_formats *tf,
			 const struct perfring_reader_opts *ro, FILE *f, uint64_t end_ns);

#endif

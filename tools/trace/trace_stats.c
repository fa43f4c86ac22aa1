// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring trace` counters, status line and summary: see trace_stats.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/ringbuf.h>

#include "shared/tool.h"
#include "trace/trace_load.h"
#include "trace/trace_stats.h"

int trace_stats_init(struct trace_stats *st, size_t ntp, int ncpus, uint64_t start_ns)
{
	size_t n = ncpus > 0 ? (size_t)ncpus : 1;

	memset(st, 0, sizeof(*st));
	st->per_tp = calloc(ntp ? ntp : 1, sizeof(*st->per_tp));
	st->received = calloc(n, sizeof(*st->received));
	st->reported = calloc(n, sizeof(*st->reported));
	st->prog = calloc(n, sizeof(*st->prog));
	if (!st->per_tp || !st->received || !st->reported || !st->prog) {
		trace_stats_fini(st);
		return -ENOMEM;
	}
	st->ntp = ntp;
	st->ncpus = ncpus > 0 ? ncpus : 0;
	st->start_ns = start_ns;
	st->status_ns = start_ns;
	return 0;
}

void trace_stats_fini(struct trace_stats *st)
{
	free(st->per_tp);
	free(st->received);
	free(st->reported);
	free(st->prog);
	st->per_tp = NULL;
	st->received = st->reported = NULL;
	st->prog = NULL;
}

void trace_stats_sample(struct trace_stats *st, int cpu, size_t unread)
{
	if (cpu >= 0 && cpu < st->ncpus)
		st->received[cpu]++;
	else
		st->received_nocpu++;
	st->unread += unread;
}

void trace_stats_reported(struct trace_stats *st, int cpu, uint64_t lost)
{
	if (cpu >= 0 && cpu < st->ncpus)
		st->reported[cpu] += lost;
	else
		st->reported_nocpu += lost;
}

void trace_stats_prog_total(const struct trace_stats *st, struct trace_counts *sum)
{
	trace_counts_total(st->prog, st->ncpus, sum);
}

static uint64_t sum_u64(const uint64_t *v, int n, uint64_t extra)
{
	int i;

	for (i = 0; i < n; i++)
		extra += v[i];
	return extra;
}

uint64_t trace_stats_unreported(const struct trace_stats *st, int cpu)
{
	struct trace_counts sum;
	uint64_t lost, reported;

	if (cpu >= 0 && cpu < st->ncpus) {
		lost = trace_counts_lost(&st->prog[cpu]);
		reported = st->reported[cpu];
	} else {
		trace_stats_prog_total(st, &sum);
		lost = trace_counts_lost(&sum);
		reported = sum_u64(st->reported, st->ncpus, st->reported_nocpu);
	}
	return lost > reported ? lost - reported : 0;
}

/* Values below TRACE_HIST_SUB have a bucket each; above, a power of two is
 * split into TRACE_HIST_SUB equal parts. */
static size_t bucket_of(uint64_t v)
{
	unsigned int msb;

	if (v < TRACE_HIST_SUB)
		return (size_t)v;
	msb = 63 - (unsigned int)__builtin_clzll(v);
	return (size_t)(msb - 3) * TRACE_HIST_SUB + (size_t)((v >> (msb - 4)) & (TRACE_HIST_SUB - 1));
}

static uint64_t bucket_top(size_t b)
{
	unsigned int msb;

	if (b < TRACE_HIST_SUB)
		return b;
	msb = (unsigned int)(b / TRACE_HIST_SUB) + 3;
	if (msb >= 63)
		return UINT64_MAX;
	return ((uint64_t)(TRACE_HIST_SUB + b % TRACE_HIST_SUB + 1) << (msb - 4)) - 1;
}

void trace_stats_event(struct trace_stats *st, size_t tp, uint64_t delay_ns)
{
	st->events++;
	if (tp < st->ntp)
		st->per_tp[tp]++;
	st->hist[bucket_of(delay_ns)]++;
	if (delay_ns > st->delay_max_ns)
		st->delay_max_ns = delay_ns;
}

uint64_t trace_stats_percentile(const struct trace_stats *st, double q)
{
	uint64_t total = 0, seen = 0, want;
	size_t b;

	for (b = 0; b < TRACE_HIST_BUCKETS; b++)
		total += st->hist[b];
	if (!total)
		return 0;
	want = (uint64_t)(q * (double)total + 0.5);
	if (want < 1)
		want = 1;
	for (b = 0; b < TRACE_HIST_BUCKETS; b++) {
		seen += st->hist[b];
		if (seen >= want) {
			uint64_t top = bucket_top(b);

			return top < st->delay_max_ns ? top : st->delay_max_ns;
		}
	}
	return st->delay_max_ns;
}

void trace_stats_status(struct trace_stats *st, struct perfring_reader *rd, FILE *f, uint64_t now_ns)
{
	double secs = (now_ns - st->status_ns) / 1e9;
	int i, n = perfring_reader_ring_cnt(rd);
	struct trace_counts sum;
	char size[32];

	trace_stats_prog_total(st, &sum);
	fprintf(f, "\r\033[K%llu events, %.0f/s, %llu lost; backlog:", (unsigned long long)st->events,
		secs > 0 ? (st->events - st->status_events) / secs : 0.0,
		(unsigned long long)trace_counts_lost(&sum));
	for (i = 0; i < n; i++) {
		struct perfring_ringbuf *rb = perfring_reader_ring_cpu(rd, i) < 0 ? perfring_reader_ringbuf(rd, i) : NULL;

		if (rb)
			fprintf(f, " ring buffer %s",
				tool_fmt_bytes(perfring_ringbuf_bytes_available(rb), size, sizeof(size)));
		else
			fprintf(f, " cpu%d %s", perfring_reader_ring_cpu(rd, i),
				tool_fmt_bytes(perfring_ring_bytes_available(perfring_reader_ring(rd, i)), size,
					       sizeof(size)));
	}
	fflush(f);
	st->status_ns = now_ns;
	st->status_events = st->events;
}

void trace_stats_status_clear(FILE *f)
{
	fputs("\r\033[K", f);
	fflush(f);
}

/* The time order across CPUs, and how many events came too late for it. */
static void print_order(FILE *f, struct perfring_reader *rd, const struct perfring_reader_opts *ro)
{
	struct perfring_reader_order st;

	if (!ro->order_window_ns || perfring_reader_order_stats(rd, &st))
		fprintf(f, "  order: each CPU's events in turn (--no-order)\n");
	else
		fprintf(f, "  order: all CPUs in time order, window %llu ms; %llu events late, %llu forced releases\n",
			(unsigned long long)(ro->order_window_ns / 1000000), (unsigned long long)st.late,
			(unsigned long long)st.forced);
}

static void print_policy(FILE *f, struct perfring_reader *rd, const struct perfring_reader_opts *ro)
{
	size_t bytes = perfring_reader_data_size(rd);
	struct perfring_ringbuf *rb = perfring_reader_ring_cpu(rd, 0) < 0 ? perfring_reader_ringbuf(rd, 0) : NULL;
	char size[32];

	if (rb) {
		fprintf(f, "  reader: a BPF ring buffer of %s, woken by the kernel as records arrive",
			tool_fmt_bytes(perfring_ringbuf_data_size(rb), size, sizeof(size)));
		if (ro->max_delay_ns)
			fprintf(f, ", polled every %llu ms at the latest\n",
				(unsigned long long)(ro->max_delay_ns / 1000000));
		else
			fprintf(f, "\n");
		return;
	}
	fprintf(f, "  reader: %d rings of %s (%zu pages); ", perfring_reader_ring_cnt(rd),
		tool_fmt_bytes(bytes, size, sizeof(size)), bytes / perfring_page_size());
	if (ro->wakeup_events)
		fprintf(f, "woken every %u events", ro->wakeup_events);
	else
		fprintf(f, "woken when %s wait in a ring", tool_fmt_bytes(ro->wakeup_bytes, size, sizeof(size)));
	if (ro->max_delay_ns)
		fprintf(f, " or %llu ms after an event at the latest\n", (unsigned long long)(ro->max_delay_ns / 1000000));
	else
		fprintf(f, ", with no bound on the delay\n");
	print_order(f, rd, ro);
}

/* "A ring full + B other write errors ...": the causes of what was lost. */
static void print_lost_parts(FILE *f, const struct trace_counts *c)
{
	fprintf(f, "%llu ring full", (unsigned long long)c->ring_full);
	if (c->send_error)
		fprintf(f, " + %llu not written (another error: no ring on the CPU)",
			(unsigned long long)c->send_error);
	if (c->unreadable)
		fprintf(f, " + %llu records unreadable", (unsigned long long)c->unreadable);
	if (c->no_config)
		fprintf(f, " + %llu of a tracepoint without configuration (a perfring bug)",
			(unsigned long long)c->no_config);
}

/*
 * The accounting: what the program traced is what arrived plus what was
 * lost, in all and on each CPU that saw anything. An equation that does not
 * hold is said so (a sample the reader lost, or one still in flight).
 */
static void print_accounting(FILE *f, const struct trace_stats *st)
{
	uint64_t received = sum_u64(st->received, st->ncpus, st->received_nocpu);
	uint64_t reported = sum_u64(st->reported, st->ncpus, st->reported_nocpu), lost;
	struct trace_counts sum;
	int c;

	trace_stats_prog_total(st, &sum);
	lost = trace_counts_lost(&sum);
	fprintf(f, "  traced: %llu events %s %llu received + %llu lost\n", (unsigned long long)sum.seen,
		sum.seen == received + lost ? "=" : "(do not add up!)", (unsigned long long)received,
		(unsigned long long)lost);
	fprintf(f, "  lost: %llu = ", (unsigned long long)lost);
	print_lost_parts(f, &sum);
	fprintf(f, "; %llu reported while tracing (LOST), %llu counted at the end\n", (unsigned long long)reported,
		(unsigned long long)trace_stats_unreported(st, -1));
	for (c = 0; c < st->ncpus; c++) {
		const struct trace_counts *p = &st->prog[c];

		if (!p->seen && !st->received[c] && !st->reported[c])
			continue;
		fprintf(f, "  cpu %d: %llu traced %s %llu received + %llu lost", c, (unsigned long long)p->seen,
			p->seen == st->received[c] + trace_counts_lost(p) ? "=" : "(do not add up!)",
			(unsigned long long)st->received[c], (unsigned long long)trace_counts_lost(p));
		if (!st->one_ring)
			fprintf(f, " (%llu reported while tracing)", (unsigned long long)st->reported[c]);
		fprintf(f, "\n");
	}
	fprintf(f, "  program: %llu sent, %llu not sent (ring full), %llu truncated\n", (unsigned long long)sum.sent,
		(unsigned long long)sum.ring_full, (unsigned long long)sum.truncated);
	if (sum.sent != received)
		fprintf(f, "  warning: the program sent %llu events but %llu arrived\n", (unsigned long long)sum.sent,
			(unsigned long long)received);
}

void trace_stats_summary(const struct trace_stats *st, struct perfring_reader *rd, const struct trace_formats *tf,
			 const struct perfring_reader_opts *ro, FILE *f, uint64_t end_ns)
{
	double secs = (end_ns - st->start_ns) / 1e9;
	struct trace_counts sum;
	size_t i;

	trace_stats_prog_total(st, &sum);
	fprintf(f, "\nsummary: %llu events, %llu lost, in %.2f s: %.1f events/s\n", (unsigned long long)st->events,
		(unsigned long long)trace_counts_lost(&sum), secs, secs > 0 ? st->events / secs : 0.0);
	for (i = 0; i < st->ntp; i++)
		fprintf(f, "  %-40s %llu\n", trace_formats_get(tf, i)->full, (unsigned long long)st->per_tp[i]);
	print_accounting(f, st);
	if (st->unread)
		fprintf(f, "  strings: %llu could not be read at the event (not yet paged in), shown as ? (JSON null)\n",
			(unsigned long long)st->unread);
	if (st->malformed)
		fprintf(f, "  malformed samples: %llu\n", (unsigned long long)st->malformed);
	print_policy(f, rd, ro);
	fprintf(f, "  delivery: %llu wakeups, %.1f events each", (unsigned long long)st->batches,
		st->batches ? (double)st->events / st->batches : 0.0);
	if (st->events)
		fprintf(f, "; delay p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
			trace_stats_percentile(st, 0.50) / 1e6, trace_stats_percentile(st, 0.90) / 1e6,
			trace_stats_percentile(st, 0.99) / 1e6, st->delay_max_ns / 1e6);
	fprintf(f, "\n");
}

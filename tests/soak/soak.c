// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The soak (make soak, not part of make check): a flat-out BPF producer
 * writes N records (default 10^9) with sequence numbers into a perf event
 * array on one CPU while a perfring reader drains it on another, and at the
 * end every record is accounted for exactly:
 *
 *   received samples + records reported lost (PERF_RECORD_LOST) == produced
 *
 * where produced is the producer's own count (tests/bpf/producer.bpf.c: seq_next,
 * and bpf_perf_event_output()'s outcomes: ok == received, ENOSPC == lost,
 * nothing else). On the way, every sample's sequence number must follow the
 * previous one, or the LOST records between them must count the gap
 * exactly (one producer CPU: the kernel writes a LOST record right before
 * the first sample after a drop). The reader's resident memory is sampled
 * every --every seconds and must stay flat: what it holds after the first
 * sample may not grow by more than --rss-slack KiB.
 *
 * The producer runs the XDP program with BPF_PROG_TEST_RUN repeat = 2^20:
 * the kernel runs it a million times per call (some 60-70 ns per record on
 * this VM), so 10^9 records take minutes, not the half hour that one call
 * per record (2 us) would.
 *
 *   soak [--records N] [--pages N] [--payload BYTES] [--producer-cpu N]
 *        [--reader-cpu N] [--every SEC] [--rss-slack KIB] [--path poll|samples]
 *        [--ringbuf]
 *
 * --path poll (default) drains with perfring_reader_poll() and the
 * perfring_msg callback (every record validated); samples with
 * perfring_reader_wait() + perfring_reader_consume_samples().
 * --ringbuf: the same through a BPF ring buffer of --pages pages
 * (tests/bpf/rb_producer.bpf.c, perfring_reader_add_ringbuf() with the
 * perfring_rb_lost map): a ring buffer reports losses as counts read from
 * that map, not in the stream, so each sequence gap is not matched with a
 * LOST record; the gaps must add up to the losses reported, and received
 * and lost must equal the producer's ok and failed writes.
 * Ends with "N passed, N failed, N skipped" like the tests.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <perfring/perfring.h>

#include "../bpf/producer.h"
#include "producer.skel.h"
#include "rb_producer.skel.h"

struct cfg {
	uint64_t records;
	size_t pages;
	uint32_t payload;
	int producer_cpu, reader_cpu;
	double every_s;
	uint64_t rss_slack_kib;
	bool samples_path;
	bool ringbuf;
};

static struct producer_bpf *skel;       /* perf event array mode */
static struct rb_producer_bpf *rb_skel; /* --ringbuf */
static int prog_fd;
static volatile __u64 *seq_next;        /* the producer's sequence counter (its bss) */
static struct cfg cfg = {
	.records = 1000000000ull, .pages = 1024, .payload = 16, .producer_cpu = 0, .reader_cpu = 1,
	.every_s = 10, .rss_slack_kib = 1024,
};

/* What the reader has seen. */
static struct {
	uint64_t samples, lost, lost_records, pending_lost;
	uint64_t next_seq;   /* the sequence number the next sample should carry, given no loss */
	uint64_t gaps;       /* sequence numbers skipped, summed */
	uint64_t errors;
	char error[256];
} seen;

static volatile int producer_done;
static int producer_err;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rss_kib(void)
{
	unsigned long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
}

static int pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static uint64_t produced(void)
{
	return __atomic_load_n(seq_next, __ATOMIC_RELAXED);
}

__attribute__((format(printf, 1, 2))) static void seen_error(const char *fmt, ...)
{
	va_list ap;

	if (!seen.errors++) {
		va_start(ap, fmt);
		vsnprintf(seen.error, sizeof(seen.error), fmt, ap);
		va_end(ap);
	}
}

/* One sample's header, from one or two spans. */
static void on_sample(int cpu, const void *d1, size_t n1, const void *d2, size_t n2)
{
	struct producer_sample s;
	unsigned char hdr[sizeof(s)];
	size_t i;

	if (n1 + n2 < sizeof(s)) {
		seen_error("sample of %zu bytes, shorter than its header", n1 + n2);
		return;
	}
	if (n1 >= sizeof(s)) {
		memcpy(&s, d1, sizeof(s));
	} else {
		for (i = 0; i < sizeof(s); i++)
			hdr[i] = i < n1 ? ((const unsigned char *)d1)[i] : ((const unsigned char *)d2)[i - n1];
		memcpy(&s, hdr, sizeof(s));
	}
	/* A shared ring buffer's records carry cpu -1. */
	if (s.cpu != (uint32_t)cfg.producer_cpu || cpu != (cfg.ringbuf ? -1 : cfg.producer_cpu) ||
	    s.len != cfg.payload)
		seen_error("seq %" PRIu64 ": cpu %u (ring of CPU %d) len %u, produced on CPU %d with len %u", (uint64_t)s.seq, s.cpu,
			   cpu, s.len, cfg.producer_cpu, cfg.payload);
	if (s.seq < seen.next_seq)
		seen_error("seq %" PRIu64 " after seq %" PRIu64 ": out of order or twice", (uint64_t)s.seq,
			   seen.next_seq - 1);
	else
		seen.gaps += s.seq - seen.next_seq;
	/* Perf rings: the gap since the previous sample is what the LOST
	 * records right before it said. */
	if (!cfg.ringbuf && s.seq != seen.next_seq + seen.pending_lost)
		seen_error("seq %" PRIu64 " after seq %" PRIu64 " with %" PRIu64 " reported lost in between "
			   "(expected seq %" PRIu64 ")",
			   (uint64_t)s.seq, seen.next_seq - 1, seen.pending_lost, seen.next_seq + seen.pending_lost);
	seen.next_seq = s.seq + 1;
	seen.pending_lost = 0;
	seen.samples++;
}

static void on_lost(uint64_t n)
{
	seen.lost += n;
	seen.lost_records++;
	seen.pending_lost += n;
}

static int msg_fn(const struct perfring_msg *m, void *ctx)
{
	if (m->kind == PERFRING_MSG_SAMPLE)
		on_sample(m->cpu, m->data, m->size, m->data2, m->size2);
	else if (m->kind == PERFRING_MSG_LOST)
		on_lost(m->lost);
	else
		seen_error("unexpected record type %u", perfring_msg_record(m) ? perfring_msg_record(m)->type : 0);
	return 0;
}

static int sample_fn(void *ctx, int cpu, const void *data, size_t size)
{
	on_sample(cpu, data, size, NULL, 0);
	return 0;
}

static void lost_fn(void *ctx, int cpu, uint64_t lost)
{
	on_lost(lost);
}

/* Run the producer on its CPU until `target` records have been attempted. */
static void run_producer(uint64_t target)
{
	unsigned char pkt[64] = { 0 };

	while (produced() < target) {
		uint64_t left = target - produced();
		__u32 repeat = left > (1u << 20) ? (1u << 20) : (__u32)left;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);
		int err = bpf_prog_test_run_opts(prog_fd, &opts);

		if (err && err != -EINTR) {
			producer_err = err;
			return;
		}
	}
}

static void *producer_main(void *arg)
{
	int err = pin(cfg.producer_cpu);

	if (err)
		producer_err = -err;
	else
		run_producer(cfg.records);
	__atomic_store_n(&producer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int drain(struct perfring_reader *rd, int64_t timeout_ns)
{
	int ret;

	if (!cfg.samples_path)
		return perfring_reader_poll(rd, timeout_ns, msg_fn, NULL);
	ret = perfring_reader_wait(rd, timeout_ns);
	if (ret < 0)
		return ret;
	return perfring_reader_consume_samples(rd, sample_fn, lost_fn, NULL);
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--records N] [--pages N] [--payload BYTES] [--producer-cpu N] [--reader-cpu N] "
		"[--every SEC] [--rss-slack KIB] [--path poll|samples] [--ringbuf]\n",
		argv0);
	exit(2);
}

static int check(bool ok, const char *what, int *failed)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		(*failed)++;
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "records", required_argument, NULL, 'n' },  { "pages", required_argument, NULL, 'p' },
		{ "payload", required_argument, NULL, 'l' },  { "producer-cpu", required_argument, NULL, 'c' },
		{ "reader-cpu", required_argument, NULL, 'r' }, { "every", required_argument, NULL, 'e' },
		{ "rss-slack", required_argument, NULL, 's' }, { "path", required_argument, NULL, 'P' },
		{ "ringbuf", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	static unsigned char pattern[65536];
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts);
	struct perfring_reader *rd;
	pthread_t th;
	uint64_t t0, t_end, next_report, rss0, rss_first = 0, rss_max = 0, rss_now, prod, last_progress;
	uint64_t seq0;
	int c, ret, failed = 0, ncpu, fill_rounds = 0, scratch_fd;
	__u32 key;
	char what[512];

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': cfg.records = strtoull(optarg, NULL, 0); break;
		case 'p': cfg.pages = strtoull(optarg, NULL, 0); break;
		case 'l': cfg.payload = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': cfg.producer_cpu = atoi(optarg); break;
		case 'r': cfg.reader_cpu = atoi(optarg); break;
		case 'e': cfg.every_s = atof(optarg); break;
		case 's': cfg.rss_slack_kib = strtoull(optarg, NULL, 0); break;
		case 'R': cfg.ringbuf = true; break;
		case 'P':
			if (!strcmp(optarg, "samples"))
				cfg.samples_path = true;
			else if (strcmp(optarg, "poll"))
				usage(argv[0]);
			break;
		default: usage(argv[0]);
		}
	}
	if (!cfg.records || cfg.payload < sizeof(struct producer_sample) || cfg.payload > PRODUCER_MAX_LEN ||
	    cfg.every_s <= 0)
		usage(argv[0]);
	if (geteuid() != 0) {
		printf("skip soak: needs root (BPF_PROG_TEST_RUN, perf events)\n0 passed, 0 failed, 1 skipped\n");
		return 0;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 2 || cfg.producer_cpu == cfg.reader_cpu) {
		printf("skip soak: needs two online CPUs (producer and reader on their own), this machine has %d\n"
		       "0 passed, 0 failed, 1 skipped\n", ncpu);
		return 0;
	}

	if (cfg.ringbuf) {
		rb_skel = rb_producer_bpf__open();
		if (!rb_skel || (rb_skel->data->payload_len = cfg.payload,
				 bpf_map__set_max_entries(rb_skel->maps.rb, (__u32)(cfg.pages * (size_t)sysconf(_SC_PAGESIZE))),
				 rb_producer_bpf__load(rb_skel))) {
			printf("FAIL soak: loading tests/bpf/rb_producer.bpf.c: %s\n0 passed, 1 failed, 0 skipped\n",
			       strerror(errno));
			return 1;
		}
		prog_fd = bpf_program__fd(rb_skel->progs.produce);
		seq_next = &rb_skel->bss->seq_next;
		scratch_fd = bpf_map__fd(rb_skel->maps.scratch);
	} else {
		skel = producer_bpf__open();
		if (!skel || (skel->data->payload_len = cfg.payload, producer_bpf__load(skel))) {
			printf("FAIL soak: loading tests/bpf/producer.bpf.c: %s\n0 passed, 1 failed, 0 skipped\n",
			       strerror(errno));
			return 1;
		}
		prog_fd = bpf_program__fd(skel->progs.produce);
		seq_next = &skel->bss->seq_next;
		scratch_fd = bpf_map__fd(skel->maps.scratch);
	}
	for (c = 0; c < (int)sizeof(pattern); c++)
		pattern[c] = producer_pattern((unsigned int)c);
	for (key = 0; (int)key < libbpf_num_possible_cpus(); key++)
		bpf_map_update_elem(scratch_fd, &key, pattern, BPF_ANY);

	/* Only the producer's CPU; a quarter-ring watermark and a 5 ms bound,
	 * the stream benchmark's policy. */
	opts.data_pages = cfg.pages;
	opts.wakeup_bytes = (uint32_t)(cfg.pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	opts.max_delay_ns = 5000000;
	opts.cpus = &cfg.producer_cpu;
	opts.cpu_cnt = 1;
	if (cfg.ringbuf) {
		struct perfring_ringbuf_opts ro = PERFRING_OPTS_INIT(perfring_ringbuf_opts,
			.lost_map_fd = bpf_map__fd(rb_skel->maps.perfring_rb_lost));

		opts.cpus = NULL;
		opts.cpu_cnt = 0;
		rd = perfring_reader_new(&opts);
		if (rd && perfring_reader_add_ringbuf(rd, bpf_map__fd(rb_skel->maps.rb), &ro) < 0) {
			perfring_reader_free(rd);
			rd = NULL;
		}
	} else {
		rd = perfring_reader_new_bpf(bpf_map__fd(skel->maps.events), &opts);
	}
	if (!rd) {
		printf("FAIL soak: creating the reader: %s\n0 passed, 1 failed, 0 skipped\n", perfring_errmsg());
		return 1;
	}
	if (pin(cfg.reader_cpu)) {
		printf("FAIL soak: cannot pin the reader to CPU %d\n0 passed, 1 failed, 0 skipped\n", cfg.reader_cpu);
		return 1;
	}
	seq0 = produced();
	seen.next_seq = seq0;
	rss0 = rss_kib();
	printf("soak: %" PRIu64 " records of %u bytes, producer on CPU %d (BPF_PROG_TEST_RUN repeat 2^20), "
	       "reader on CPU %d (%s), %s of %zu pages; RSS at start %" PRIu64 " KiB\n",
	       cfg.records, cfg.payload, cfg.producer_cpu, cfg.reader_cpu,
	       cfg.samples_path ? "wait + consume_samples" : "poll, perfring_msg",
	       cfg.ringbuf ? "a BPF ring buffer" : "perf rings", cfg.pages, rss0);
	fflush(stdout);

	t0 = now_ns();
	next_report = t0 + (uint64_t)(cfg.every_s * 1e9);
	if (pthread_create(&th, NULL, producer_main, NULL)) {
		printf("FAIL soak: pthread_create\n0 passed, 1 failed, 0 skipped\n");
		return 1;
	}
	last_progress = t0;
	for (;;) {
		uint64_t before = seen.samples + seen.lost, now;
		bool done = __atomic_load_n(&producer_done, __ATOMIC_ACQUIRE);

		ret = drain(rd, 100000000);
		if (ret < 0 && ret != -ETIMEDOUT && ret != -PERFRING_EFLUSHED) {
			seen_error("reader: %d %s", ret, perfring_errmsg());
			break;
		}
		now = now_ns();
		if (seen.samples + seen.lost != before)
			last_progress = now;
		if (now >= next_report) {
			double s = (double)(now - t0) / 1e9;

			rss_now = rss_kib();
			if (!rss_first)
				rss_first = rss_now;
			if (rss_now > rss_max)
				rss_max = rss_now;
			printf("  %6.0f s: produced %" PRIu64 ", received %" PRIu64 ", lost %" PRIu64 " (%.0f records/s), "
			       "RSS %" PRIu64 " KiB\n",
			       s, produced() - seq0, seen.samples, seen.lost, (double)(seen.samples + seen.lost) / s,
			       rss_now);
			fflush(stdout);
			next_report += (uint64_t)(cfg.every_s * 1e9);
		}
		if (!done)
			continue;
		prod = produced() - seq0;
		if (seen.samples + seen.lost == prod)
			break;
		/* A ring buffer's losses are read from its lost map on a flush. */
		if (cfg.ringbuf && now - last_progress > 200000000ull && fill_rounds < 10) {
			perfring_reader_flush(rd);
			fill_rounds++;
			last_progress = now;
			continue;
		}
		/* Dropped records not yet reported: the kernel writes its LOST
		 * record before the next sample, so give it one (counted). */
		if (now - last_progress > 200000000ull && fill_rounds < 10) {
			pin(cfg.producer_cpu);
			run_producer(produced() + 1);
			pin(cfg.reader_cpu);
			fill_rounds++;
			last_progress = now;
		} else if (now - last_progress > 10000000000ull) {
			break; /* nothing for 10 s: the checks below say what is missing */
		}
	}
	t_end = now_ns();
	pthread_join(th, NULL);
	rss_now = rss_kib();
	if (!rss_first)
		rss_first = rss_now;
	if (rss_now > rss_max)
		rss_max = rss_now;
	prod = produced() - seq0;

	{
		double s = (double)(t_end - t0) / 1e9;
		/* The producer's outcomes: written, dropped (ring full), anything else. */
		unsigned long long p_ok, p_lost, p_other;

		if (cfg.ringbuf) {
			p_ok = rb_skel->bss->out_ok;
			p_lost = rb_skel->bss->out_fail;
			p_other = rb_skel->bss->out_discarded + rb_skel->bss->out_noring;
		} else {
			p_ok = skel->bss->out_ok;
			p_lost = skel->bss->out_enospc;
			p_other = skel->bss->out_enoent + skel->bss->out_other;
		}
		printf("soak: produced %" PRIu64 " (%d %s), received %" PRIu64 ", lost %" PRIu64
		       " in %" PRIu64 " LOST records (%.4f%%), %.1f s, %.0f records/s; producer: ok %llu, dropped %llu, "
		       "other %llu; RSS KiB: start %" PRIu64 ", first sample %" PRIu64 ", max %" PRIu64
		       ", end %" PRIu64 "\n",
		       prod, fill_rounds, cfg.ringbuf ? "flushes to read the lost map" : "more to flush LOST",
		       seen.samples, seen.lost, seen.lost_records,
		       prod ? 100.0 * (double)seen.lost / (double)prod : 0.0, s, (double)prod / s, p_ok, p_lost,
		       p_other, rss0, rss_first, rss_max, rss_now);
		check(producer_err == 0, producer_err ? "producer: BPF_PROG_TEST_RUN failed" : "producer ran", &failed);
		snprintf(what, sizeof(what), "received %" PRIu64 " + lost %" PRIu64 " == produced %" PRIu64,
			 seen.samples, seen.lost, prod);
		check(seen.samples + seen.lost == prod && prod >= cfg.records, what, &failed);
		snprintf(what, sizeof(what), "received == the producer's ok (%llu), lost == its dropped writes (%llu), "
			 "no other outcome", p_ok, p_lost);
		check(seen.samples == p_ok && seen.lost == p_lost && !p_other, what, &failed);
		snprintf(what, sizeof(what), "every sequence number in order, the gaps (%" PRIu64 ") those lost%s%s",
			 seen.gaps + (prod - (seen.next_seq - seq0)), seen.errors ? ": " : "", seen.error);
		check(!seen.errors && seen.gaps + (prod - (seen.next_seq - seq0)) == seen.lost, what, &failed);
		snprintf(what, sizeof(what), "memory flat: RSS %" PRIu64 " KiB at the end, %" PRIu64
			 " KiB at the first sample (slack %" PRIu64 " KiB)", rss_now, rss_first, cfg.rss_slack_kib);
		check(rss_max <= rss_first + cfg.rss_slack_kib, what, &failed);
	}
	perfring_reader_free(rd);
	producer_bpf__destroy(skel);
	rb_producer_bpf__destroy(rb_skel);
	printf("%d passed, %d failed, 0 skipped\n", 5 - failed, failed);
	return failed ? 1 : 0;
}

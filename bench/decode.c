// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoding speed: perfring_record_parse() over an in-memory stream
 * shaped like `perf record -g` output: SAMPLEs with sample_type
 * IP|TID|TIME|CPU|PERIOD|CALLCHAIN (call chains of 10 to 60 entries: a
 * kernel context marker, kernel frames, a user marker, user frames), one
 * MMAP2 or COMM record per 100 samples, sample_id_all set. Every record is
 * decoded and its fields touched (the sum of the call chain ips, pid, time,
 * the mmap's address and file name), as a profiler would.
 *
 * Reported: records and bytes decoded per second (median of --reps passes
 * over the whole stream), heap allocations per record (must be 0), and for
 * reference the same loop with a hand-written parser that knows only this
 * one sample_type (what a tool hard-coding the layout would do: the cost of
 * a general, bounds-checked decoder is the difference).
 *
 *   decode [--records N] [--reps N] [--seed N]
 *   decode --callgrind [--records N]   one pass through decode_perfring() and
 *                                      one through decode_handrolled(), for
 *                                      valgrind --tool=callgrind --toggle-collect=
 *                                      decode_perfring (or perfring_record_parse,
 *                                      or decode_handrolled): scripts/bench.sh
 */
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>

#include <perfring/record.h>

#include "alloc_count.h"
#include "bench.h"

#define SAMPLE_TYPE                                                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)

struct stream {
	uint8_t *buf;
	size_t len, cap;
	uint64_t records, samples, mmap2, comm, frames;
};

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* xorshift64*: deterministic for a given --seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void *put(struct stream *s, size_t n)
{
	void *p;

	if (s->len + n > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1 << 20;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			bench_die("out of memory");
	}
	p = s->buf + s->len;
	s->len += n;
	return p;
}

static void put_u64(struct stream *s, uint64_t v)
{
	memcpy(put(s, 8), &v, 8);
}

static void put_u32x2(struct stream *s, uint32_t a, uint32_t b)
{
	uint8_t *p = put(s, 8);

	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
}

static size_t begin(struct stream *s, uint32_t type, uint16_t misc)
{
	size_t at = s->len;
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };

	memcpy(put(s, sizeof(h)), &h, sizeof(h));
	return at;
}

static void end(struct stream *s, size_t at)
{
	uint16_t size = (uint16_t)(s->len - at);

	memcpy(s->buf + at + 6, &size, 2);
	s->records++;
}

/* sample_id trailer of the non-SAMPLE records: TID, TIME, CPU. */
static void put_sample_id(struct stream *s, uint32_t pid, uint64_t time, uint32_t cpu)
{
	put_u32x2(s, pid, pid);
	put_u64(s, time);
	put_u32x2(s, cpu, 0);
}

static void put_string(struct stream *s, size_t at, const char *str)
{
	size_t n = strlen(str) + 1;

	memcpy(put(s, n), str, n);
	while ((s->len - at) % 8)
		*(uint8_t *)put(s, 1) = 0;
}

static void build_stream(struct stream *s, uint64_t nr_records)
{
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/perf",
					    "/usr/lib/x86_64-linux-gnu/libm.so.6", "/tmp/perf-1234.map" };
	uint64_t time = 1000000000ull, i;

	while (s->records < nr_records) {
		uint32_t pid = 1000 + (uint32_t)(rng_next() % 16), cpu = (uint32_t)(rng_next() % 2);
		uint64_t nr, kernel;
		size_t at;

		time += 1000 + rng_next() % 4000;
		if (s->records % 100 == 99) {
			if ((s->records / 100) % 2) {
				at = begin(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
				put_u32x2(s, pid, pid);
				put_u64(s, 0x7f0000000000ull + (rng_next() % 4096) * 0x100000);
				put_u64(s, 0x1c3000);
				put_u64(s, 0x28000);
				put_u32x2(s, 254, 1);
				put_u64(s, 1573301 + rng_next() % 1000);
				put_u64(s, 0);
				put_u32x2(s, 5, 0x802);
				put_string(s, at, libs[rng_next() % 4]);
				s->mmap2++;
			} else {
				at = begin(s, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
				put_u32x2(s, pid, pid);
				put_string(s, at, "worker-thread");
				s->comm++;
			}
			put_sample_id(s, pid, time, cpu);
			end(s, at);
			continue;
		}
		nr = 10 + rng_next() % 51;         /* 10 to 60 entries */
		kernel = 1 + rng_next() % (nr / 2); /* where the user part starts */

		at = begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
		put_u64(s, 0xffffffff81000000ull + rng_next() % 0x1000000); /* ip */
		put_u32x2(s, pid, pid);
		put_u64(s, time);
		put_u32x2(s, cpu, 0);
		put_u64(s, 250000); /* period */
		put_u64(s, nr);
		for (i = 0; i < nr; i++) {
			if (i == 0)
				put_u64(s, CONTEXT_KERNEL);
			else if (i == kernel)
				put_u64(s, CONTEXT_USER);
			else if (i < kernel)
				put_u64(s, 0xffffffff81000000ull + rng_next() % 0x1000000);
			else
				put_u64(s, 0x55d0c0de0000ull + rng_next() % 0x100000);
		}
		end(s, at);
		s->samples++;
		s->frames += nr;
	}
}

struct result {
	uint64_t records, sum;
};

/* The measured loop: decode each record, touch what a profiler reads. */
static BENCH_NOINLINE struct result decode_perfring(const struct perfring_parse_config *cfg, const uint8_t *p,
						    size_t len)
{
	struct result r = { 0, 0 };
	struct perfring_decoded d;
	size_t off = 0;
	uint64_t i;

	while (off + 8 <= len) {
		int err = perfring_record_parse(cfg, p + off, len - off, &d);

		if (err)
			bench_die("decode at offset %zu: %s (%s)", off, perfring_strerror(err), perfring_errmsg());
		if (d.type == PERF_RECORD_SAMPLE) {
			/* A local copy: d's address escapes into the decoder, so
			 * through &d the loop would reload nr and swapped each time. */
			const struct perfring_u64_array cc = d.u.sample.callchain;

			r.sum += d.u.sample.ip + d.u.sample.pid + d.u.sample.time + d.u.sample.cpu;
			for (i = 0; i < cc.nr; i++)
				r.sum += perfring_u64_at(&cc, i);
		} else if (d.type == PERF_RECORD_MMAP2) {
			r.sum += d.u.mmap.addr + (uint8_t)d.u.mmap.filename[0];
		} else if (d.type == PERF_RECORD_COMM) {
			r.sum += d.u.comm.pid + (uint8_t)d.u.comm.comm[0];
		}
		r.records++;
		off += d.size;
	}
	return r;
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Reference: a parser hard-coded for this sample_type, with the bounds
 * checks any reader of untrusted bytes still needs. */
static BENCH_NOINLINE struct result decode_handrolled(const uint8_t *p, size_t len)
{
	struct result r = { 0, 0 };
	size_t off = 0;
	uint64_t i;

	while (off + 8 <= len) {
		const uint8_t *rec = p + off;
		uint32_t type = load32(rec);
		uint16_t size;

		memcpy(&size, rec + 6, 2);
		if (size < 8 || size > len - off)
			bench_die("handrolled: bad size at %zu", off);
		if (type == PERF_RECORD_SAMPLE) {
			uint64_t nr;

			if (size < 56)
				bench_die("handrolled: short sample at %zu", off);
			r.sum += load64(rec + 8) + load32(rec + 16) + load64(rec + 24) + load32(rec + 32);
			nr = load64(rec + 48);
			if (nr > (size_t)(size - 56) / 8)
				bench_die("handrolled: bad callchain.nr at %zu", off);
			for (i = 0; i < nr; i++)
				r.sum += load64(rec + 56 + i * 8);
		} else if (type == PERF_RECORD_MMAP2) {
			r.sum += load64(rec + 16) + rec[72];
		} else if (type == PERF_RECORD_COMM) {
			r.sum += load32(rec + 8) + rec[16];
		}
		r.records++;
		off += size;
	}
	return r;
}

static void config(struct perfring_parse_config *cfg)
{
	struct perf_event_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = 1;
	attr.mmap2 = 1;
	attr.comm = 1;
	err = perfring_parse_config_init(cfg, &attr, false);
	if (err)
		bench_die("perfring_parse_config_init: %s", perfring_strerror(err));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "records", required_argument, NULL, 'n' }, { "reps", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },    { "callgrind", no_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t nr_records = 40000, allocs;
	int reps = 15, callgrind = 0, opt, i;
	struct perfring_parse_config cfg;
	struct stream s = { 0 };
	struct result r = { 0, 0 }, h = { 0, 0 };
	double *t_pr, *t_hr, med_pr, med_hr;

	rng_state = 0x9e3779b97f4a7c15ull;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			nr_records = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 0) | 1;
			break;
		case 'g':
			callgrind = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [--records N] [--reps N] [--seed N] [--callgrind]\n", argv[0]);
			return 2;
		}
	}
	if (!nr_records || reps < 1)
		bench_die("--records and --reps must be positive");
	config(&cfg);
	build_stream(&s, nr_records);
	printf("decode_stream records %" PRIu64 " bytes %zu samples %" PRIu64 " mmap2 %" PRIu64 " comm %" PRIu64
	       " avg_callchain %.1f avg_record_bytes %.1f\n",
	       s.records, s.len, s.samples, s.mmap2, s.comm, (double)s.frames / (double)s.samples,
	       (double)s.len / (double)s.records);

	if (callgrind) {
		/* One pass of each through the functions callgrind toggles on
		 * (decode_perfring, perfring_record_parse, decode_handrolled). */
		r = decode_perfring(&cfg, s.buf, s.len);
		h = decode_handrolled(s.buf, s.len);
		if (r.sum != h.sum)
			bench_die("perfring and the reference disagree");
		printf("decode_callgrind records %" PRIu64 " sum %" PRIx64 "\n", r.records, r.sum);
		free(s.buf);
		return 0;
	}

	t_pr = calloc((size_t)reps, sizeof(*t_pr));
	t_hr = calloc((size_t)reps, sizeof(*t_hr));
	if (!t_pr || !t_hr)
		bench_die("out of memory");
	decode_perfring(&cfg, s.buf, s.len); /* warm-up: page in the stream */
	bench_allocs_start();
	for (i = 0; i < reps; i++) {
		uint64_t t0 = bench_now_ns();

		r = decode_perfring(&cfg, s.buf, s.len);
		t_pr[i] = (double)(bench_now_ns() - t0) / 1e9;
	}
	allocs = bench_allocs_stop();
	for (i = 0; i < reps; i++) {
		uint64_t t0 = bench_now_ns();

		h = decode_handrolled(s.buf, s.len);
		t_hr[i] = (double)(bench_now_ns() - t0) / 1e9;
	}
	if (r.records != s.records || h.records != s.records || r.sum != h.sum)
		bench_die("perfring decoded %" PRIu64 " records (sum %" PRIx64 "), the reference %" PRIu64
			  " (sum %" PRIx64 "), of %" PRIu64,
			  r.records, r.sum, h.records, h.sum, s.records);
	med_pr = bench_median(t_pr, (size_t)reps);
	med_hr = bench_median(t_hr, (size_t)reps);
	printf("decode_records_per_s perfring %.0f\n", (double)s.records / med_pr);
	printf("decode_bytes_per_s perfring %.0f\n", (double)s.len / med_pr);
	printf("decode_ns_per_record perfring %.1f\n", med_pr * 1e9 / (double)s.records);
	printf("decode_records_per_s handrolled %.0f (reference: a parser for this one sample_type)\n",
	       (double)s.records / med_hr);
	printf("decode_ns_per_record handrolled %.1f\n", med_hr * 1e9 / (double)s.records);
	if (bench_allocs_supported())
		printf("decode_allocs_per_record perfring %.3f (%" PRIu64 " allocations over %" PRIu64
		       " records)\n",
		       (double)allocs / (double)(s.records * (uint64_t)reps), allocs, s.records * (uint64_t)reps);
	else
		printf("decode_allocs_per_record perfring SKIPPED: sanitizer build has its own allocator\n");
	free(t_pr);
	free(t_hr);
	free(s.buf);
	return allocs && bench_allocs_supported() ? 1 : 0;
}

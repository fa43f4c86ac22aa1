// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Consumer cost per record when draining a filled ring: perfring against
 * libbpf's perf_buffer, side by side in one run.
 *
 * Contenders: perfring's reader (perfring_reader_consume(), zero-copy
 * callback), libbpf (perf_buffer__consume(), sample_cb), and, to show what
 * the reader layer adds, perfring's ring layer alone (perfring_ring_consume()
 * on an event the bench opens itself). Each has its own loaded instance of
 * tests/bpf/producer.bpf.c and its own ring(s) on that instance's perf event
 * array, all with the same attr (PERF_COUNT_SW_BPF_OUTPUT, PERF_SAMPLE_RAW,
 * sample_period 1, wakeup_events 1: libbpf's, and perfring's default) and
 * the same ring size. A round, for each contender in rotating order:
 * fill the CPU's ring with BPF_PROG_TEST_RUN (repeat = the number of
 * records that fit, so nothing is lost), then time one drain of it. The
 * callbacks do the same trivial work: add up the first u64 of each payload
 * (the producer's sequence number), which is checked against the expected
 * sum so that a drain that skips or misreads records cannot look fast.
 *
 *   drain [--rounds N] [--payload BYTES] [--pages N] [--cpu N]
 *   drain --callgrind perfring|perfring_ring|libbpf [--rounds N]
 *   drain --only perfring|perfring_ring|libbpf ...
 *
 * The --callgrind form fills and drains with one contender only, through a
 * function named drain_<contender> (run it under valgrind --tool=callgrind
 * --toggle-collect=drain_<contender>) and prints the number of records
 * drained, for instructions per record.
 */
#include <getopt.h>
#include <inttypes.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <perfring/perfring.h>

#include "alloc_count.h"
#include "bench.h"
#include "bench_producer.h"

enum contender { C_PERFRING, C_PERFRING_SAMPLES, C_PERFRING_CURSOR, C_PERFRING_RING, C_LIBBPF, C_FLOOR, C_NR };

/* Rounds not measured: the first fill does not reach the end of the ring,
 * the second wraps, so after two every one-time cost (libbpf's copy buffer
 * for wrapped records, perfring's scratch if any) has been paid. */
#define WARMUP_ROUNDS 2

static const char *const contender_name[C_NR] = { "perfring_msg", "perfring_samples", "perfring_cursor",
						     "perfring_ring", "libbpf", "floor" };

struct drain_ctx {
	uint64_t records;
	uint64_t sum; /* of the first u64 of each payload */
	uint64_t lost;
	uint64_t other;
};

struct bench {
	struct bench_producer prod[C_NR];
	struct perfring_reader *rd;      /* on prod[C_PERFRING] */
	struct perfring_reader *rd_samples; /* on prod[C_PERFRING_SAMPLES] */
	struct perfring_reader *rd_cursor;  /* on prod[C_PERFRING_CURSOR] */
	struct perfring_reader *rd_floor;   /* on prod[C_FLOOR]: only its ring mapping is used */
	struct perfring_ring *ring;      /* the ring layer alone, on prod[C_PERFRING_RING] */
	int ring_fd;
	struct perf_buffer *pb;          /* on prod[C_LIBBPF] */
	struct drain_ctx ctx[C_NR];
	bool on[C_NR];     /* contenders taking part */
	unsigned int payload;
	unsigned int fill; /* records per fill */
	int cpu;
};

/* The first u64 of a payload that straddles the end of the ring. Out of
 * line, so that the callbacks' common path needs no stack frame. */
static BENCH_NOINLINE uint64_t first_u64_split(const void *data, size_t size, const void *data2)
{
	uint64_t v;

	memcpy(&v, data, size);
	memcpy((char *)&v + size, data2, sizeof(v) - size);
	return v;
}

static inline uint64_t payload_first_u64(const void *data, size_t size, const void *data2)
{
	uint64_t v;

	if (__builtin_expect(size >= sizeof(v), 1)) {
		memcpy(&v, data, sizeof(v));
		return v;
	}
	return first_u64_split(data, size, data2);
}

static BENCH_NOINLINE uint64_t ring_first_u64_split(const struct perfring_ring_record *rec)
{
	uint64_t v;

	perfring_ring_record_copy(rec, 12, &v, sizeof(v));
	return v;
}

/* What perfring_on_event() leaves out of line: LOST (libbpf dispatches it
 * to lost_cb inside the library), another type, or a payload whose first
 * u64 straddles the end of the ring (libbpf copies such a record first). */
static BENCH_NOINLINE int perfring_on_event_rare(const struct perfring_msg *ev, struct drain_ctx *c)
{
	if (ev->kind == PERFRING_MSG_SAMPLE) {
		c->sum += payload_first_u64(ev->data, ev->size, ev->data2);
		c->records++;
	} else if (ev->kind == PERFRING_MSG_LOST) {
		c->lost += ev->lost;
	} else {
		c->other++;
	}
	return PERFRING_CONTINUE;
}

/*
 * The same work as libbpf_on_sample() per sample, and only that: read the
 * first u64 of the payload, add it up, count the record. The two checks in
 * front are what this callback shape owes that libbpf's does not (its
 * dispatch by kind and its one-span copy happen inside libbpf, and are
 * counted there): the record is a SAMPLE, and its first u64 lies in the
 * first span. Everything else is a tail call, so the common path needs no
 * stack frame, as libbpf's callback.
 */
static int perfring_on_event(const struct perfring_msg *ev, void *arg)
{
	struct drain_ctx *c = arg;
	uint64_t v;

	if (__builtin_expect(ev->kind == PERFRING_MSG_SAMPLE && ev->size >= sizeof(v), 1)) {
		memcpy(&v, ev->data, sizeof(v));
		c->sum += v;
		c->records++;
		return PERFRING_CONTINUE;
	}
	return perfring_on_event_rare(ev, c);
}

/* The ring layer directly: raw records, payload after header and u32 size. */
static int perfring_ring_on_record(const struct perfring_ring_record *rec, void *arg)
{
	struct drain_ctx *c = arg;

	if (__builtin_expect(rec->type == PERF_RECORD_SAMPLE, 1)) {
		if (__builtin_expect(rec->len >= 12 + sizeof(uint64_t), 1))
			c->sum += payload_first_u64((const char *)rec->data + 12, rec->len - 12, NULL);
		else
			c->sum += ring_first_u64_split(rec);
		c->records++;
	} else {
		c->other++;
	}
	return PERFRING_CONTINUE;
}

/* perfring_reader_consume_samples(): the same callback shape as libbpf's. */
static int perfring_on_sample(void *arg, int cpu, const void *data, size_t size)
{
	struct drain_ctx *c = arg;
	uint64_t v;

	memcpy(&v, data, sizeof(v));
	c->sum += v;
	c->records++;
	return PERFRING_CONTINUE;
}

static void perfring_on_lost(void *arg, int cpu, uint64_t cnt)
{
	struct drain_ctx *c = arg;

	c->lost += cnt;
}

static void libbpf_on_sample(void *arg, int cpu, void *data, __u32 size)
{
	struct drain_ctx *c = arg;

	uint64_t v;

	/* libbpf hands over one contiguous span (a wrapped record is copied) */
	memcpy(&v, data, sizeof(v));
	c->sum += v;
	c->records++;
}

static void libbpf_on_lost(void *arg, int cpu, __u64 cnt)
{
	struct drain_ctx *c = arg;

	c->lost += cnt;
}

/* The measured drains: one call each, nothing else, so that callgrind's
 * --toggle-collect=drain_<name> counts exactly the drain. */
static BENCH_NOINLINE int drain_perfring_msg(struct bench *b)
{
	return perfring_reader_consume(b->rd, perfring_on_event, &b->ctx[C_PERFRING]);
}

static BENCH_NOINLINE int drain_perfring_samples(struct bench *b)
{
	return perfring_reader_consume_samples(b->rd_samples, perfring_on_sample, perfring_on_lost,
					       &b->ctx[C_PERFRING_SAMPLES]);
}

/* The inline cursor over every ring of the reader: no callback at all. */
static int cursor_drain(struct perfring_reader *rd, struct drain_ctx *c)
{
	int i, total = 0;

	for (i = 0; i < perfring_reader_ring_cnt(rd); i++) {
		struct perfring_ring *ring = perfring_reader_ring(rd, i);
		const struct perfring_header *h;
		struct perfring_cursor cur;

		perfring_ring_cursor(ring, &cur);
		while ((h = perfring_cursor_next(&cur))) {
			uint32_t size;
			const void *payload;

			if (__builtin_expect(h->type == PERF_RECORD_SAMPLE, 1) &&
			    (payload = perfring_bpf_sample(h, &size)) != NULL) {
				c->sum += payload_first_u64(payload, size, NULL);
				c->records++;
			} else if (h->type == PERF_RECORD_LOST) {
				uint64_t lost;

				memcpy(&lost, (const char *)h + 16, sizeof(lost));
				c->lost += lost;
			} else {
				c->other++;
			}
			total++;
		}
		perfring_ring_cursor_commit(ring, &cur);
		if (cur.err)
			return cur.err;
	}
	return total;
}

static BENCH_NOINLINE int drain_perfring_cursor(struct bench *b)
{
	return cursor_drain(b->rd_cursor, &b->ctx[C_PERFRING_CURSOR]);
}

/*
 * Not a contender: the least any consumer can do on this machine. It walks
 * the same ring with no validation and no callback, sums the first payload
 * word of each record and stores the tail: what is left is the cost of
 * touching the records' memory. The ratios above it are bounded by it. It
 * prefetches 2 KiB ahead inside the batch, as perfring's drains do (each
 * header gives the next record's address, so the walk's misses come one
 * after another otherwise): without, it is slower than they are.
 */
static BENCH_NOINLINE int drain_floor(struct bench *b)
{
	struct drain_ctx *c = &b->ctx[C_FLOOR];
	int i, total = 0;

	for (i = 0; i < perfring_reader_ring_cnt(b->rd_floor); i++) {
		struct perfring_ring *ring = perfring_reader_ring(b->rd_floor, i);
		struct perf_event_mmap_page *meta = (struct perf_event_mmap_page *)perfring_ring_meta(ring);
		const uint8_t *data = (const uint8_t *)meta + meta->data_offset;
		uint64_t mask = meta->data_size - 1, tail = meta->data_tail;
		uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);

		while (tail != head) {
			const struct perf_event_header *h = (const void *)(data + (tail & mask));
			uint64_t v;

			if (head - tail > 2048)
				__builtin_prefetch(data + ((tail + 2048) & mask));
			if ((tail & mask) + 20 <= meta->data_size) {
				memcpy(&v, (const uint8_t *)h + 12, sizeof(v));
				c->sum += v;
			} else {
				uint8_t tmp[8];
				unsigned k;

				for (k = 0; k < 8; k++)
					tmp[k] = data[(tail + 12 + k) & mask];
				memcpy(&v, tmp, sizeof(v));
				c->sum += v;
			}
			c->records++;
			tail += h->size;
			total++;
		}
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	return total;
}

static BENCH_NOINLINE int drain_perfring_ring(struct bench *b)
{
	return perfring_ring_consume(b->ring, perfring_ring_on_record, &b->ctx[C_PERFRING_RING]);
}

static BENCH_NOINLINE int drain_libbpf(struct bench *b)
{
	return perf_buffer__consume(b->pb);
}

static int drain_one(struct bench *b, enum contender c)
{
	switch (c) {
	case C_PERFRING:
		return drain_perfring_msg(b);
	case C_PERFRING_CURSOR:
		return drain_perfring_cursor(b);
	case C_FLOOR:
		return drain_floor(b);
	case C_PERFRING_SAMPLES:
		return drain_perfring_samples(b);
	case C_PERFRING_RING:
		return drain_perfring_ring(b);
	default:
		return drain_libbpf(b);
	}
}

static void log_to_stderr(enum perfring_log_level level, const char *msg, void *ctx)
{
	fprintf(stderr, "perfring: %s\n", msg);
}

/* The ring layer needs a perf event of its own: opened here with libbpf's
 * attr, for the bench CPU only, and stored in the map at key = cpu. */
static int open_bpf_output_event(int map_fd, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_type = PERF_SAMPLE_RAW,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	__u32 key = (__u32)cpu;
	int fd;

	fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		bench_die("perf_event_open(BPF_OUTPUT, cpu %d): %s", cpu, strerror(errno));
	if (bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY))
		bench_die("storing the event fd in the map: %s", strerror(errno));
	return fd;
}

static void setup(struct bench *b, unsigned int payload, size_t pages)
{
	LIBBPF_OPTS(perf_buffer_opts, pb_opts);
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = pages);
	size_t data_size = pages * (size_t)sysconf(_SC_PAGESIZE);
	int c, err;

	perfring_set_log(log_to_stderr, PERFRING_LOG_WARN, NULL);
	for (c = 0; c < C_NR; c++) {
		if (!b->on[c])
			continue;
		err = bench_producer_open(&b->prod[c], payload);
		if (err)
			bench_die("loading the producer: %s", strerror(-err));
	}
	if (b->on[C_PERFRING]) {
		b->rd = perfring_reader_new_bpf(b->prod[C_PERFRING].events_fd, &opts);
		if (!b->rd)
			bench_die("perfring_reader_new_bpf: %s: %s", strerror(errno), perfring_errmsg());
		if (perfring_reader_data_size(b->rd) != data_size)
			bench_die("perfring buffer is %zu bytes, expected %zu", perfring_reader_data_size(b->rd),
				  data_size);
	}
	if (b->on[C_PERFRING_SAMPLES]) {
		b->rd_samples = perfring_reader_new_bpf(b->prod[C_PERFRING_SAMPLES].events_fd, &opts);
		if (!b->rd_samples)
			bench_die("perfring_reader_new_bpf: %s: %s", strerror(errno), perfring_errmsg());
	}
	if (b->on[C_PERFRING_CURSOR]) {
		b->rd_cursor = perfring_reader_new_bpf(b->prod[C_PERFRING_CURSOR].events_fd, &opts);
		if (!b->rd_cursor)
			bench_die("perfring_reader_new_bpf: %s: %s", strerror(errno), perfring_errmsg());
	}
	if (b->on[C_FLOOR]) {
		b->rd_floor = perfring_reader_new_bpf(b->prod[C_FLOOR].events_fd, &opts);
		if (!b->rd_floor)
			bench_die("perfring_reader_new_bpf: %s: %s", strerror(errno), perfring_errmsg());
	}
	if (b->on[C_PERFRING_RING]) {
		struct perfring_ring_opts ropts = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = pages);

		b->ring_fd = open_bpf_output_event(b->prod[C_PERFRING_RING].events_fd, b->cpu);
		b->ring = perfring_ring_new(b->ring_fd, &ropts);
		if (!b->ring)
			bench_die("perfring_ring_new: %s: %s", strerror(errno), perfring_errmsg());
	}
	if (b->on[C_LIBBPF]) {
		b->pb = perf_buffer__new(b->prod[C_LIBBPF].events_fd, pages, libbpf_on_sample, libbpf_on_lost,
					 &b->ctx[C_LIBBPF], &pb_opts);
		if (!b->pb)
			bench_die("perf_buffer__new: %s", strerror(errno));
	}
	/* The kernel keeps one byte free (CIRC_SPACE), so the last record
	 * must leave at least one byte: fill with what fits in size - 1. */
	b->payload = payload;
	b->fill = (unsigned int)((data_size - 1) / bench_sample_record_size(payload));
}

static void teardown(struct bench *b)
{
	int c;

	perfring_reader_free(b->rd);
	perfring_reader_free(b->rd_samples);
	perfring_reader_free(b->rd_cursor);
	perfring_reader_free(b->rd_floor);
	perfring_ring_free(b->ring);
	if (b->ring)
		close(b->ring_fd);
	perf_buffer__free(b->pb);
	for (c = 0; c < C_NR; c++)
		if (b->prod[c].skel)
			bench_producer_close(&b->prod[c]);
}

/* Fill the ring of contender c on this CPU with exactly b->fill records.
 * Returns the first sequence number written. */
static uint64_t fill_one(struct bench *b, enum contender c)
{
	struct bench_producer *p = &b->prod[c];
	struct bench_produced before = bench_producer_counts(p), after;
	uint64_t seq0 = bench_producer_next_seq(p);
	int err;

	err = bench_producer_run(p, b->fill);
	if (err)
		bench_die("BPF_PROG_TEST_RUN: %s", strerror(-err));
	after = bench_producer_counts(p);
	if (after.ok - before.ok != b->fill || after.enospc != before.enospc || after.other != before.other ||
	    after.enoent != before.enoent)
		bench_die("%s: fill wrote %" PRIu64 " of %u records (enospc %" PRIu64 ", enoent %" PRIu64
			  ", other %" PRIu64 ")",
			  contender_name[c], after.ok - before.ok, b->fill, after.enospc - before.enospc,
			  after.enoent - before.enoent, after.other - before.other);
	return seq0;
}

/* Check that a drain delivered exactly the fill, and nothing else. */
static void check_drain(struct bench *b, enum contender c, uint64_t seq0, const struct drain_ctx *before)
{
	const struct drain_ctx *now = &b->ctx[c];
	uint64_t n = b->fill;
	uint64_t want_sum = n * seq0 + n * (n - 1) / 2;

	if (now->records - before->records != n || now->sum - before->sum != want_sum || now->lost != before->lost ||
	    now->other != before->other)
		bench_die("%s: drain delivered %" PRIu64 " of %" PRIu64 " records (seq sum %s, lost %" PRIu64
			  ", other %" PRIu64 ")",
			  contender_name[c], now->records - before->records, n,
			  now->sum - before->sum == want_sum ? "ok" : "WRONG", now->lost - before->lost,
			  now->other - before->other);
}

/* One contender alone, for callgrind: warm-up rounds outside the toggled
 * function, then `rounds` measured drains. */
static int run_callgrind(struct bench *b, enum contender c, int rounds)
{
	struct drain_ctx before;
	uint64_t seq0;
	int r;

	for (r = 0; r < WARMUP_ROUNDS + rounds; r++) {
		seq0 = fill_one(b, c);
		before = b->ctx[c];
		if (r < WARMUP_ROUNDS) {
			/* warm-up: first-touch allocations, cold code */
			if (c == C_PERFRING)
				perfring_reader_consume(b->rd, perfring_on_event, &b->ctx[c]);
			else if (c == C_PERFRING_CURSOR)
				cursor_drain(b->rd_cursor, &b->ctx[c]);
			else if (c == C_FLOOR)
				drain_floor(b);
			else if (c == C_PERFRING_SAMPLES)
				perfring_reader_consume_samples(b->rd_samples, perfring_on_sample, perfring_on_lost,
								&b->ctx[c]);
			else if (c == C_PERFRING_RING)
				perfring_ring_consume(b->ring, perfring_ring_on_record, &b->ctx[c]);
			else
				perf_buffer__consume(b->pb);
		} else if (drain_one(b, c) < 0) {
			bench_die("%s: drain failed", contender_name[c]);
		}
		check_drain(b, c, seq0, &before);
	}
	printf("drain_callgrind %s records %" PRIu64 " rounds %d\n", contender_name[c],
	       (uint64_t)b->fill * (uint64_t)rounds, rounds);
	return 0;
}

static int run_timed(struct bench *b, int rounds)
{
	double *ns[C_NR], med[C_NR], lo[C_NR], hi[C_NR];
	uint64_t allocs[C_NR] = { 0 }, alloc_records = 0;
	struct drain_ctx before;
	uint64_t seq0, t0, t1;
	int r, i, n = 0;

	for (i = 0; i < C_NR; i++) {
		ns[i] = calloc((size_t)rounds, sizeof(double));
		if (!ns[i])
			bench_die("out of memory");
	}
	for (r = 0; r < WARMUP_ROUNDS + rounds; r++) {
		bool measured = r >= WARMUP_ROUNDS;

		for (i = 0; i < C_NR; i++) {
			enum contender c = (enum contender)((r + i) % C_NR);
			int ret;

			if (!b->on[c])
				continue;
			seq0 = fill_one(b, c);
			before = b->ctx[c];
			if (measured)
				bench_allocs_start();
			t0 = bench_now_ns();
			ret = drain_one(b, c);
			t1 = bench_now_ns();
			if (measured)
				allocs[c] += bench_allocs_stop();
			if (ret < 0)
				bench_die("%s: drain failed: %d", contender_name[c], ret);
			check_drain(b, c, seq0, &before);
			if (measured)
				ns[c][n] = (double)(t1 - t0) / b->fill;
		}
		if (measured) {
			alloc_records += b->fill;
			n++;
		}
	}

	for (i = 0; i < C_NR; i++) {
		med[i] = bench_median(ns[i], (size_t)n);
		lo[i] = bench_quantile_sorted(ns[i], (size_t)n, 0.1);
		hi[i] = bench_quantile_sorted(ns[i], (size_t)n, 0.9);
	}
	printf("drain: CPU %d, payload %u bytes (PERF_RECORD_SAMPLE of %zu bytes), %u records per fill, "
	       "%d rounds (+%d warm-up), rotating order\n",
	       b->cpu, b->payload, bench_sample_record_size(b->payload), b->fill, n, WARMUP_ROUNDS);
	for (i = 0; i < C_NR; i++)
		if (b->on[i])
			printf("drain_ns_per_record %s %.2f (p10 %.2f, p90 %.2f)\n", contender_name[i], med[i],
			       lo[i], hi[i]);
	/* The headline: perfring's fastest drain (the inline cursor); every
	 * other perfring path is printed under its own name. */
	if (b->on[C_PERFRING_CURSOR] && b->on[C_LIBBPF])
		printf("RATIO drain_ns_per_record perfring/libbpf %.3f (perfring_cursor)\n",
		       med[C_PERFRING_CURSOR] / med[C_LIBBPF]);
	if (b->on[C_PERFRING] && b->on[C_LIBBPF])
		printf("RATIO drain_msg_ns_per_record perfring/libbpf %.3f (perfring_msg)\n",
		       med[C_PERFRING] / med[C_LIBBPF]);
	if (b->on[C_PERFRING_SAMPLES] && b->on[C_LIBBPF])
		printf("RATIO drain_ns_per_record perfring_samples/libbpf %.3f\n",
		       med[C_PERFRING_SAMPLES] / med[C_LIBBPF]);
	if (b->on[C_FLOOR] && b->on[C_LIBBPF])
		printf("drain_floor_ratio floor/libbpf %.3f (no validation, no callback: the bound on any ratio)\n",
		       med[C_FLOOR] / med[C_LIBBPF]);
	if (b->on[C_PERFRING_RING] && b->on[C_LIBBPF])
		printf("RATIO drain_ns_per_record perfring_ring/libbpf %.3f\n", med[C_PERFRING_RING] / med[C_LIBBPF]);
	if (bench_allocs_supported()) {
		for (i = 0; i < C_NR; i++)
			if (b->on[i])
				printf("memory: allocations per record in steady state (drain) %s %.4f (%" PRIu64
				       " allocations in %" PRIu64 " records)\n",
				       contender_name[i], (double)allocs[i] / (double)alloc_records, allocs[i],
				       alloc_records);
	} else {
		printf("memory: allocation counting unavailable in a sanitizer build\n");
	}
	for (i = 0; i < C_NR; i++)
		free(ns[i]);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },  { "payload", required_argument, NULL, 'p' },
		{ "pages", required_argument, NULL, 'P' },   { "cpu", required_argument, NULL, 'c' },
		{ "callgrind", required_argument, NULL, 'g' }, { "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench b = { .cpu = 0 };
	int rounds = 40, opt, c, callgrind = -1, only = -1, ret;
	unsigned int payload = 64;
	size_t pages = 64;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'p':
			payload = (unsigned int)atoi(optarg);
			break;
		case 'P':
			pages = (size_t)atol(optarg);
			break;
		case 'c':
			b.cpu = atoi(optarg);
			break;
		case 'g':
		case 'o':
			for (c = 0; c < C_NR && strcmp(optarg, contender_name[c]); c++)
				;
			if (c == C_NR)
				bench_die("--callgrind and --only take perfring, perfring_ring or libbpf");
			only = c;
			if (opt == 'g')
				callgrind = c;
			break;
		default:
			fprintf(stderr, "usage: %s [--rounds N] [--payload BYTES] [--pages N] [--cpu N] "
					"[--callgrind|--only perfring|perfring_ring|libbpf]\n",
				argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || payload < sizeof(struct producer_sample) || payload > PRODUCER_MAX_LEN)
		bench_die("bad --rounds or --payload");
	if (bench_pin_cpu(b.cpu))
		bench_die("cannot pin to CPU %d", b.cpu);
	for (c = 0; c < C_NR; c++)
		b.on[c] = only < 0 || c == only;
	setup(&b, payload, pages);
	if (callgrind >= 0)
		ret = run_callgrind(&b, (enum contender)callgrind, rounds);
	else
		ret = run_timed(&b, rounds);
	teardown(&b);
	return ret;
}

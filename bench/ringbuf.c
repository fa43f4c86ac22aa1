// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF ring buffers: perfring against libbpf's ring_buffer, side by side in
 * one run, on the same BPF producer (tests/bpf/rb_producer.bpf.c: one
 * bpf_ringbuf_output() per BPF_PROG_TEST_RUN iteration), and the ring buffer
 * against a perf event array under perfring (tests/bpf/producer.bpf.c: the same
 * sample built the same way, written with bpf_perf_event_output()).
 *
 *   ringbuf drain [--rounds N] [--payload BYTES] [--size BYTES] [--cpu N]
 *   ringbuf drain --callgrind perfring_rb_cursor|perfring_rb|perfring_msg|perfring_ring_buffer|libbpf [--rounds N]
 *   ringbuf live [--threshold BYTES] [--duration SEC] [--reps N] [--size BYTES] [--payload BYTES]
 *   ringbuf stream [--duration SEC] [--reps N] [--size BYTES] [--payload BYTES]
 *
 * drain: each contender has its own loaded producer and ring of --size bytes
 * (default 1 MiB); a round fills each contender's ring with what fits
 * (nothing lost), then times one drain of it. The callbacks add up the first
 * u64 of each payload (the sequence number), checked against the expected
 * sum. Contenders: perfring_msg (perfring_reader_consume(), the zero-copy
 * perfring_msg callback), perfring_samples (perfring_reader_consume_samples()),
 * perfring_rb (perfring_ringbuf_consume(), the layer alone),
 * perfring_rb_cursor (the inline cursor, perfring_ringbuf_cursor_next(), on
 * the ring of a reader: perfring_reader_ringbuf()), perfring_ring_buffer
 * (the libbpf port: perfring_reader_new_ring_buffer() with libbpf's
 * callback, drained by perfring_reader_consume_cb()), libbpf
 * (ring_buffer__consume(), which stores consumer_pos after every record), and
 * perfring_perf_array (perfring_reader_consume() of a perf event array ring of
 * the same size). --callgrind fills and drains one contender through a
 * function named drain_<contender>, for instructions per record. A --size
 * other than 1 MiB is named in the output (ringbuf_drain_ns_per_record_256k).
 *
 * live: the drain with the producer writing meanwhile on the other CPU
 * (see cmd_live()); --threshold 8 is the back-to-back consumer.
 *
 * stream: the producer runs flat out on CPU 0 (the tc program produce_tc,
 * BPF_PROG_TEST_RUN repeat --repeat, default 64: a tc test run has no fixed
 * cost per call, unlike XDP's, see bench/stream.c) for --duration while the
 * reader polls on CPU 1: perfring (perfring_reader_poll()) against libbpf
 * (ring_buffer__poll()), alternated --reps times; reported: records
 * received per second of producer time, records lost (failed reserves: the
 * producer counts them), the reader's CPU time per record; then perfring on
 * a perf event array (the same producer's bpf_perf_event_output() twin,
 * rings of --size / CPUs, watermark at a quarter, 5 ms delay bound: the
 * policy of bench/stream.c) for comparison.
 */
#include <getopt.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "bench.h"
#include "bench_producer.h"
#include "rb_producer.skel.h"

enum contender { C_MSG, C_SAMPLES, C_RB, C_LIBBPF, C_PERF, C_CURSOR, C_PORT, C_NR };
static const char *const cname[C_NR] = { "perfring_msg", "perfring_samples", "perfring_rb", "libbpf",
					 "perfring_perf_array", "perfring_rb_cursor", "perfring_ring_buffer" };

struct sum {
	uint64_t records, sum;
};

struct rbp {
	struct rb_producer_bpf *skel;
	int prog_fd, rb_fd;
};

static int rbp_open(struct rbp *p, unsigned payload, unsigned size)
{
	static unsigned char value[65536];
	int ncpu, err;
	__u32 key;
	size_t i;

	libbpf_set_print(bench_libbpf_print);
	p->skel = rb_producer_bpf__open();
	if (!p->skel)
		return -errno;
	p->skel->data->payload_len = payload;
	bpf_map__set_max_entries(p->skel->maps.rb, size);
	err = rb_producer_bpf__load(p->skel);
	if (err)
		return err;
	p->prog_fd = bpf_program__fd(p->skel->progs.produce);
	p->rb_fd = bpf_map__fd(p->skel->maps.rb);
	for (i = 0; i < sizeof(value); i++)
		value[i] = producer_pattern((unsigned)i);
	ncpu = libbpf_num_possible_cpus();
	for (key = 0; (int)key < ncpu; key++)
		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.scratch), &key, value, BPF_ANY))
			return -errno;
	return 0;
}

static int run_prog(int prog_fd, unsigned repeat)
{
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);

	return bpf_prog_test_run_opts(prog_fd, &opts) ? -errno : 0;
}

/* ---- callbacks: the same trivial work everywhere ---- */

/* The first u64 of a perf record's payload split by the end of its ring. */
static BENCH_NOINLINE uint64_t first_u64_split(const struct perfring_msg *ev)
{
	unsigned char b[8];

	memcpy(b, ev->data, ev->size);
	memcpy(b + ev->size, ev->data2, 8 - ev->size);
	return *(uint64_t *)(void *)b;
}

static int on_msg(const struct perfring_msg *ev, void *ctx)
{
	struct sum *s = ctx;
	uint64_t v;

	if (__builtin_expect(ev->kind != PERFRING_MSG_SAMPLE, 0))
		return PERFRING_CONTINUE; /* a perf ring's LOST: the producer counts them too */
	if (__builtin_expect(ev->size < 8, 0))
		v = first_u64_split(ev);
	else
		memcpy(&v, ev->data, sizeof(v));
	s->sum += v;
	s->records++;
	return PERFRING_CONTINUE;
}

static int on_sample(void *ctx, int cpu, const void *data, size_t size)
{
	struct sum *s = ctx;
	uint64_t v;

	(void)cpu;
	(void)size;
	memcpy(&v, data, sizeof(v));
	s->sum += v;
	s->records++;
	return PERFRING_CONTINUE;
}

static int on_rb(void *ctx, const void *data, size_t size)
{
	struct sum *s = ctx;
	uint64_t v;

	(void)size;
	memcpy(&v, data, sizeof(v));
	s->sum += v;
	s->records++;
	return PERFRING_CONTINUE;
}

static int on_libbpf(void *ctx, void *data, size_t size)
{
	struct sum *s = ctx;
	uint64_t v;

	(void)size;
	memcpy(&v, data, sizeof(v));
	s->sum += v;
	s->records++;
	return 0;
}

/* ---- drain ---- */

struct drain {
	struct rbp rbp[C_NR];
	struct bench_producer perf;
	struct perfring_reader *rd[C_NR]; /* C_MSG, C_SAMPLES, C_PERF, C_CURSOR, C_PORT */
	struct perfring_ringbuf *rb;      /* C_RB */
	struct ring_buffer *lb;           /* C_LIBBPF */
	struct sum s[C_NR];
	unsigned fill[C_NR];
	uint64_t want_sum[C_NR];
};

static BENCH_NOINLINE int drain_perfring_msg(struct drain *d)
{
	return perfring_reader_consume(d->rd[C_MSG], on_msg, &d->s[C_MSG]);
}

static BENCH_NOINLINE int drain_perfring_samples(struct drain *d)
{
	return perfring_reader_consume_samples(d->rd[C_SAMPLES], on_sample, NULL, &d->s[C_SAMPLES]);
}

static BENCH_NOINLINE int drain_perfring_rb(struct drain *d)
{
	return perfring_ringbuf_consume(d->rb, 0, on_rb, &d->s[C_RB]);
}

/* The inline cursor, with the same work per record as the callbacks. */
static BENCH_NOINLINE int drain_perfring_rb_cursor(struct drain *d)
{
	struct perfring_ringbuf *rb = perfring_reader_ringbuf(d->rd[C_CURSOR], 0);
	struct sum *s = &d->s[C_CURSOR];
	struct perfring_rb_cursor c;
	const void *data;
	uint32_t size;
	int n = 0;

	perfring_ringbuf_cursor(rb, &c);
	while ((data = perfring_ringbuf_cursor_next(&c, &size))) {
		uint64_t v;

		memcpy(&v, data, sizeof(v));
		s->sum += v;
		s->records++;
		n++;
	}
	perfring_ringbuf_cursor_commit(rb, &c);
	return c.err ? c.err : n;
}

/* The libbpf port: libbpf's callback through the reader's adapter. */
static BENCH_NOINLINE int drain_perfring_ring_buffer(struct drain *d)
{
	return perfring_reader_consume_cb(d->rd[C_PORT]);
}

static BENCH_NOINLINE int drain_libbpf(struct drain *d)
{
	return ring_buffer__consume(d->lb);
}

static BENCH_NOINLINE int drain_perfring_perf_array(struct drain *d)
{
	return perfring_reader_consume(d->rd[C_PERF], on_msg, &d->s[C_PERF]);
}

static int drain_one(struct drain *d, int c)
{
	switch (c) {
	case C_MSG: return drain_perfring_msg(d);
	case C_SAMPLES: return drain_perfring_samples(d);
	case C_RB: return drain_perfring_rb(d);
	case C_LIBBPF: return drain_libbpf(d);
	case C_CURSOR: return drain_perfring_rb_cursor(d);
	case C_PORT: return drain_perfring_ring_buffer(d);
	default: return drain_perfring_perf_array(d);
	}
}

/* Fill contender c's ring; the sum of the sequence numbers written. */
static void fill(struct drain *d, int c)
{
	uint64_t first, n = d->fill[c];
	int err;

	if (c == C_PERF) {
		first = bench_producer_next_seq(&d->perf);
		err = bench_producer_run(&d->perf, d->fill[c]);
	} else {
		first = d->rbp[c].skel->bss->seq_next;
		err = run_prog(d->rbp[c].prog_fd, d->fill[c]);
	}
	if (err)
		bench_die("BPF_PROG_TEST_RUN: %s", strerror(-err));
	d->want_sum[c] += n * first + n * (n - 1) / 2;
}

static void drain_setup(struct drain *d, bool on[C_NR], unsigned payload, unsigned size)
{
	struct perfring_reader_opts po = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = size);
	int c, err;

	memset(d, 0, sizeof(*d));
	for (c = 0; c < C_NR; c++) {
		if (!on[c])
			continue;
		if (c == C_PERF) {
			err = bench_producer_open(&d->perf, payload);
			if (err)
				bench_die("loading tests/bpf/producer.bpf.c: %s", strerror(-err));
			d->rd[c] = perfring_reader_new_bpf(d->perf.events_fd, &po);
			if (!d->rd[c])
				bench_die("perfring_reader_new_bpf: %s", perfring_errmsg());
			d->fill[c] = (unsigned)(size / bench_sample_record_size(payload) - 1);
			continue;
		}
		err = rbp_open(&d->rbp[c], payload, size);
		if (err)
			bench_die("loading tests/bpf/rb_producer.bpf.c: %s", strerror(-err));
		d->fill[c] = (unsigned)(size / ((payload + 8 + 7) & ~7u) - 1);
		if (c == C_MSG || c == C_SAMPLES || c == C_CURSOR) {
			d->rd[c] = perfring_reader_new(NULL);
			if (!d->rd[c] || perfring_reader_add_ringbuf(d->rd[c], d->rbp[c].rb_fd, NULL) < 0)
				bench_die("perfring_reader_add_ringbuf: %s", perfring_errmsg());
		} else if (c == C_PORT) {
			d->rd[c] = perfring_reader_new_ring_buffer(d->rbp[c].rb_fd, on_libbpf, &d->s[C_PORT], NULL);
			if (!d->rd[c])
				bench_die("perfring_reader_new_ring_buffer: %s", perfring_errmsg());
		} else if (c == C_RB) {
			d->rb = perfring_ringbuf_new(d->rbp[c].rb_fd, NULL);
			if (!d->rb)
				bench_die("perfring_ringbuf_new: %s", perfring_errmsg());
		} else {
			d->lb = ring_buffer__new(d->rbp[c].rb_fd, on_libbpf, &d->s[C_LIBBPF], NULL);
			if (!d->lb)
				bench_die("ring_buffer__new: %s", strerror(errno));
		}
	}
}

static void drain_check(struct drain *d, int c, uint64_t records)
{
	if (d->s[c].records != records || d->s[c].sum != d->want_sum[c])
		bench_die("%s: drained %" PRIu64 " records (want %" PRIu64 "), sum %" PRIu64 " (want %" PRIu64 ")",
			  cname[c], d->s[c].records, records, d->s[c].sum, d->want_sum[c]);
}

static int cmd_drain(int argc, char **argv)
{
	static const struct option lo[] = { { "rounds", 1, NULL, 'r' }, { "payload", 1, NULL, 'p' },
					    { "size", 1, NULL, 's' }, { "cpu", 1, NULL, 'c' },
					    { "callgrind", 1, NULL, 'g' }, { NULL, 0, NULL, 0 } };
	unsigned rounds = 30, payload = 64, size = 1 << 20;
	int cpu = 0, cg = -1, c, i, r, opt;
	bool on[C_NR];
	double *ns[C_NR], med[C_NR];
	struct drain d;
	uint64_t records[C_NR] = { 0 };
	char sfx[32] = "";

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'r': rounds = (unsigned)atoi(optarg); break;
		case 'p': payload = (unsigned)atoi(optarg); break;
		case 's': size = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': cpu = atoi(optarg); break;
		case 'g':
			for (c = 0; c < C_NR && strcmp(cname[c], optarg); c++)
				;
			if (c == C_NR)
				bench_die("--callgrind wants one of perfring_msg, perfring_samples, perfring_rb, "
					  "perfring_rb_cursor, perfring_ring_buffer, libbpf, perfring_perf_array");
			cg = c;
			break;
		default: bench_die("usage: ringbuf drain [--rounds N] [--payload B] [--size B] [--cpu N] [--callgrind C]");
		}
	}
	if (payload < 8 || payload > 4096 || rounds < 1)
		bench_die("--payload 8..4096, --rounds >= 1");
	for (c = 0; c < C_NR; c++)
		on[c] = cg < 0 || cg == c;
	if (bench_pin_cpu(cpu))
		bench_die("cannot pin to CPU %d", cpu);
	drain_setup(&d, on, payload, size);
	if (cg >= 0) {
		for (r = 0; r < (int)rounds; r++) {
			fill(&d, cg);
			records[cg] += d.fill[cg];
			if (drain_one(&d, cg) < 0)
				bench_die("%s: drain failed: %s", cname[cg], perfring_errmsg());
		}
		drain_check(&d, cg, records[cg]);
		printf("drain_callgrind %s records %" PRIu64 " rounds %u\n", cname[cg], records[cg], rounds);
		return 0;
	}
	for (c = 0; c < C_NR; c++)
		ns[c] = calloc(rounds, sizeof(double));
	for (r = 0; r < (int)rounds + 2; r++) {
		for (i = 0; i < C_NR; i++) {
			uint64_t t0;
			int ret;

			c = (r + i) % C_NR; /* rotating order */
			fill(&d, c);
			records[c] += d.fill[c];
			t0 = bench_now_ns();
			ret = drain_one(&d, c);
			if (r >= 2)
				ns[c][r - 2] = (double)(bench_now_ns() - t0) / d.fill[c];
			if (ret < 0)
				bench_die("%s: drain failed: %s", cname[c], perfring_errmsg());
		}
	}
	/* The 1 MiB drain keeps its name; another size is named by it
	 * (ringbuf_drain_ns_per_record_256k), so both can sit in one run. */
	if (size != 1u << 20)
		snprintf(sfx, sizeof(sfx), "_%uk", size >> 10);
	printf("ringbuf_drain%s: CPU %d, payload %u bytes, %u-byte rings (%u ring buffer records, %u perf records "
	       "per fill), %u rounds\n", sfx, cpu, payload, size, d.fill[C_RB], d.fill[C_PERF], rounds);
	for (c = 0; c < C_NR; c++) {
		drain_check(&d, c, records[c]);
		med[c] = bench_median(ns[c], rounds);
		printf("ringbuf_drain_ns_per_record%s %s %.2f (p10 %.2f, p90 %.2f)\n", sfx, cname[c], med[c],
		       bench_quantile_sorted(ns[c], rounds, 0.1), bench_quantile_sorted(ns[c], rounds, 0.9));
	}
	/* The headline: perfring's fastest drain (the inline cursor); every
	 * other perfring path is printed under its own name. */
	printf("RATIO ringbuf_drain_ns_per_record%s perfring/libbpf %.3f (perfring_rb_cursor)\n", sfx,
	       med[C_CURSOR] / med[C_LIBBPF]);
	printf("RATIO ringbuf_drain_ns_per_record%s perfring_rb/libbpf %.3f\n", sfx, med[C_RB] / med[C_LIBBPF]);
	printf("RATIO ringbuf_drain_ns_per_record%s perfring_msg/libbpf %.3f\n", sfx, med[C_MSG] / med[C_LIBBPF]);
	printf("RATIO ringbuf_drain_ns_per_record%s perfring_samples/libbpf %.3f\n", sfx,
	       med[C_SAMPLES] / med[C_LIBBPF]);
	printf("RATIO ringbuf_drain_ns_per_record%s perfring_ring_buffer/libbpf %.3f (the port, same callback)\n", sfx,
	       med[C_PORT] / med[C_LIBBPF]);
	printf("RATIO drain_ns_per_record%s ringbuf/perf_array %.3f (perfring_msg on each)\n", sfx,
	       med[C_MSG] / med[C_PERF]);
	return 0;
}

/* The options of live and stream (--threshold: live only). */
struct run_opts {
	double secs;
	int reps;
	unsigned size, payload, repeat;
	uint64_t threshold;
};

static void parse_run_opts(int argc, char **argv, struct run_opts *o, bool live, const char *usage)
{
	static const struct option lo[] = { { "duration", 1, NULL, 'd' }, { "reps", 1, NULL, 'r' },
					    { "size", 1, NULL, 's' }, { "payload", 1, NULL, 'p' },
					    { "repeat", 1, NULL, 'R' }, { "threshold", 1, NULL, 't' },
					    { NULL, 0, NULL, 0 } };
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': o->secs = atof(optarg); break;
		case 'r': o->reps = atoi(optarg); break;
		case 's': o->size = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': o->payload = (unsigned)atoi(optarg); break;
		case 'R': o->repeat = (unsigned)atoi(optarg); break;
		case 't':
			if (live) {
				o->threshold = strtoull(optarg, NULL, 0);
				break;
			}
			/* fall through */
		default: bench_die("usage: %s", usage);
		}
	}
}

/* ---- live: drain while the producer writes on the other CPU ---- */

/*
 * What the per-batch commit is about: a record-by-record store of
 * consumer_pos only costs when another CPU touches its cache line, and the
 * producer reads consumer_pos at every reservation. So here the producer
 * (produce_tc, BPF_PROG_TEST_RUN with repeat) runs flat out on CPU 0 for the
 * whole measurement, and the consumer on CPU 1 waits (spinning on a
 * read-only view of the two positions, outside the timing) until at least
 * --threshold bytes are waiting, then drains until it has caught up with
 * the producer (each contender called until it returns 0 records: libbpf's
 * ring_buffer__consume() chases producer_pos itself, so every contender
 * does), timed with one clock pair per drain (less what a pair of clock
 * reads costs alone: clock_pair_ns()). ns per record of a drain is
 * the consumer's own cost with the producer writing; medians over drains,
 * and the producer's rate and losses in the same rounds. --threshold 8 is
 * the back-to-back consumer (draining whatever is there): its batches are
 * of a record or two, so the cache misses on the lines the producer has
 * just written (and the clock reads) weigh on both sides alike, and each
 * record finds consumer_pos at its own position when committed, so the
 * kernel queues a wakeup (irq_work) per record: the producer slows to a few
 * hundred thousand records per second.
 */
struct live_view {
	const volatile uint64_t *cons, *prod;
	void *cmap, *pmap;
	size_t pg;
};

static void live_view_open(struct live_view *v, int map_fd)
{
	v->pg = (size_t)sysconf(_SC_PAGESIZE);
	v->cmap = mmap(NULL, v->pg, PROT_READ, MAP_SHARED, map_fd, 0);
	v->pmap = mmap(NULL, v->pg, PROT_READ, MAP_SHARED, map_fd, (off_t)v->pg);
	if (v->cmap == MAP_FAILED || v->pmap == MAP_FAILED)
		bench_die("mmap of the ring buffer's positions: %s", strerror(errno));
	v->cons = v->cmap;
	v->prod = v->pmap;
}

static uint64_t live_waiting(const struct live_view *v)
{
	return __atomic_load_n(v->prod, __ATOMIC_ACQUIRE) - __atomic_load_n(v->cons, __ATOMIC_RELAXED);
}

struct live_prod {
	int prog_fd;
	unsigned repeat;
	int stop, err;
};

static void *live_producer(void *arg)
{
	struct live_prod *lp = arg;
	int err;

	if (bench_pin_cpu(0))
		bench_die("cannot pin the producer to CPU 0");
	while (!__atomic_load_n(&lp->stop, __ATOMIC_ACQUIRE)) {
		err = run_prog(lp->prog_fd, lp->repeat);
		if (err) {
			lp->err = err;
			break;
		}
	}
	return NULL;
}

/* Drain contender c until it finds nothing; the records taken. */
static uint64_t live_drain(struct drain *d, int c)
{
	uint64_t n = 0;
	int r;

	while ((r = drain_one(d, c)) > 0)
		n += (uint64_t)r;
	if (r < 0)
		bench_die("%s: drain failed: %s", cname[c], perfring_errmsg());
	return n;
}

struct live_res {
	double *ns; /* per drain */
	size_t nd, cap;
	uint64_t busy_ns, records, produced, written, lost, round_ns;
};

/* What a pair of clock reads costs by itself (median of many): taken off
 * each drain's time, which matters for the back-to-back drains of a record
 * or two. */
static uint64_t clock_pair_ns(void)
{
	double v[1001];
	int i;

	for (i = 0; i < 1001; i++) {
		uint64_t t0 = bench_now_ns();

		v[i] = (double)(bench_now_ns() - t0);
	}
	return (uint64_t)bench_median(v, 1001);
}

static void live_round(struct drain *d, int c, const struct live_view *v, uint64_t threshold, double secs,
		       unsigned repeat, uint64_t clock_ns, struct live_res *res)
{
	struct rb_producer_bpf *skel = d->rbp[c].skel;
	struct live_prod lp = { .prog_fd = bpf_program__fd(skel->progs.produce_tc), .repeat = repeat };
	uint64_t seq0 = skel->bss->seq_next, ok0 = skel->bss->out_ok, fail0 = skel->bss->out_fail;
	uint64_t rec0 = d->s[c].records, sum0 = d->s[c].sum, t_start, t_end, seq1, ok, lost;
	pthread_t th;

	if (pthread_create(&th, NULL, live_producer, &lp))
		bench_die("pthread_create");
	t_start = bench_now_ns();
	t_end = t_start + (uint64_t)(secs * 1e9);
	for (;;) {
		uint64_t t0, t1, n;

		/* The clock is read on every pass, so that the round ends
		 * even if the ring never drops below the threshold. */
		if (bench_now_ns() >= t_end)
			break;
		if (live_waiting(v) < threshold) {
			__builtin_ia32_pause();
			continue;
		}
		t0 = bench_now_ns();
		n = live_drain(d, c);
		t1 = bench_now_ns();
		if (!n)
			continue;
		if (res->nd == res->cap) {
			res->cap = res->cap ? 2 * res->cap : 1024;
			res->ns = realloc(res->ns, res->cap * sizeof(double));
			if (!res->ns)
				bench_die("out of memory");
		}
		t1 = t1 - t0 > clock_ns ? t1 - clock_ns : t0;
		res->ns[res->nd++] = (double)(t1 - t0) / (double)n;
		res->busy_ns += t1 - t0;
		res->records += n;
	}
	__atomic_store_n(&lp.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	res->round_ns += bench_now_ns() - t_start;
	if (lp.err)
		bench_die("producer: %s", strerror(-lp.err));
	live_drain(d, c); /* the rest, untimed */
	seq1 = skel->bss->seq_next;
	ok = skel->bss->out_ok - ok0;
	lost = skel->bss->out_fail - fail0;
	res->produced += seq1 - seq0;
	res->written += ok;
	res->lost += lost;
	if (d->s[c].records - rec0 != ok)
		bench_die("%s: received %" PRIu64 " records, the producer wrote %" PRIu64, cname[c],
			  d->s[c].records - rec0, ok);
	/* The sum of sequence numbers checks every record, when none was lost. */
	if (!lost && d->s[c].sum - sum0 != (seq1 - seq0) * seq0 + (seq1 - seq0) * (seq1 - seq0 - 1) / 2)
		bench_die("%s: the sequence numbers received do not add up", cname[c]);
	d->want_sum[c] = d->s[c].sum;
}

static int cmd_live(int argc, char **argv)
{
	static const int who[] = { C_CURSOR, C_RB, C_SAMPLES, C_MSG, C_LIBBPF };
	enum { NW = sizeof(who) / sizeof(who[0]) };
	struct run_opts o = { .secs = 0.4, .reps = 5, .size = 256 << 10, .payload = 64, .repeat = 64 };
	struct live_res res[C_NR];
	struct live_view view[C_NR];
	double secs, med[C_NR];
	unsigned size, payload, repeat;
	uint64_t threshold, clock_ns;
	int reps, i, r;
	bool on[C_NR] = { false };
	const char *name;
	struct drain d;

	parse_run_opts(argc, argv, &o, true,
		       "ringbuf live [--duration SEC] [--reps N] [--size B] [--payload B] [--repeat N] [--threshold B]");
	secs = o.secs, reps = o.reps, size = o.size, payload = o.payload, repeat = o.repeat, threshold = o.threshold;
	if (!threshold)
		threshold = size / 2;
	if (reps < 1 || payload < 8 || payload > 4096 || threshold > size)
		bench_die("--reps >= 1, --payload 8..4096, --threshold <= --size");
	/* Half the ring: the headline (batches of thousands of records); a
	 * threshold of a record or so: the back-to-back consumer. */
	name = threshold >= size / 4 ? "ringbuf_drain_live" : "ringbuf_drain_b2b";
	for (i = 0; i < NW; i++)
		on[who[i]] = true;
	drain_setup(&d, on, payload, size);
	memset(res, 0, sizeof(res));
	for (i = 0; i < NW; i++)
		live_view_open(&view[who[i]], d.rbp[who[i]].rb_fd);
	if (bench_pin_cpu(1))
		bench_die("cannot pin the consumer to CPU 1");
	clock_ns = clock_pair_ns();
	for (r = 0; r < reps; r++)
		for (i = 0; i < NW; i++) {
			int c = who[(r + i) % NW]; /* rotating order */

			live_round(&d, c, &view[c], threshold, secs, repeat, clock_ns, &res[c]);
		}
	printf("%s: producer flat out on CPU 0 (tc BPF_PROG_TEST_RUN repeat %u), consumer on CPU 1 draining "
	       "whenever %" PRIu64 " bytes wait, until caught up; %u-byte ring, payload %u bytes, %.2f s x %d "
	       "rounds per contender; %" PRIu64 " ns of clock reads taken off each drain\n", name, repeat, threshold,
	       size, payload, secs, reps, clock_ns);
	for (i = 0; i < NW; i++) {
		int c = who[i];
		struct live_res *x = &res[c];

		med[c] = bench_median(x->ns, x->nd);
		printf("%s_ns_per_record %s %.2f (p10 %.2f, p90 %.2f; mean %.2f over %zu drains of %.0f records; "
		       "producer wrote %.0f records/s, lost %" PRIu64 " of %" PRIu64 ")\n", name, cname[c], med[c],
		       bench_quantile_sorted(x->ns, x->nd, 0.1), bench_quantile_sorted(x->ns, x->nd, 0.9),
		       (double)x->busy_ns / (double)(x->records ? x->records : 1), x->nd,
		       (double)x->records / (double)(x->nd ? x->nd : 1), (double)x->written / ((double)x->round_ns / 1e9),
		       x->lost, x->produced);
	}
	printf("RATIO %s_ns_per_record perfring/libbpf %.3f (perfring_rb_cursor; lost: %" PRIu64 " / %" PRIu64 ")\n",
	       name, med[C_CURSOR] / med[C_LIBBPF], res[C_CURSOR].lost, res[C_LIBBPF].lost);
	for (i = 1; i < NW - 1; i++)
		printf("RATIO %s_ns_per_record %s/libbpf %.3f\n", name, cname[who[i]], med[who[i]] / med[C_LIBBPF]);
	/* Records written (not lost) per second: the producer's pace while the
	 * consumer keeps up; with losses it tells little (a full ring makes
	 * failed reservations, which are cheap). */
	printf("RATIO %s_written_per_s perfring/libbpf %.3f (perfring_rb_cursor)\n", name,
	       ((double)res[C_CURSOR].written / (double)res[C_CURSOR].round_ns) /
		       ((double)res[C_LIBBPF].written / (double)res[C_LIBBPF].round_ns));
	return 0;
}

/* ---- stream ---- */

struct stream {
	int prog_fd;
	unsigned repeat;
	double duration_s;
	int go, done;
	uint64_t producer_ns, runs;
	int err;
};

static void *stream_producer(void *arg)
{
	struct stream *s = arg;
	uint64_t t0, end;
	int err;

	if (bench_pin_cpu(0))
		bench_die("cannot pin the producer to CPU 0");
	while (!__atomic_load_n(&s->go, __ATOMIC_ACQUIRE))
		;
	t0 = bench_now_ns();
	end = t0 + (uint64_t)(s->duration_s * 1e9);
	while (bench_now_ns() < end) {
		err = run_prog(s->prog_fd, s->repeat);
		if (err) {
			s->err = err;
			break;
		}
		s->runs += s->repeat;
	}
	s->producer_ns = bench_now_ns() - t0;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct stream_result {
	double per_s, cpu_ns_per_rec;
	uint64_t received, lost;
};

static struct stream_result stream_run(int who, double secs, unsigned payload, unsigned size, unsigned repeat)
{
	struct perfring_reader_opts po = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = size,
							    .wakeup_bytes = size / 4, .max_delay_ns = 5000000);
	struct stream_result res = { 0 };
	struct bench_producer perf;
	struct perfring_reader *rd = NULL;
	struct ring_buffer *lb = NULL;
	struct stream st = { .duration_s = secs, .repeat = repeat };
	struct sum s = { 0 };
	struct rbp p;
	pthread_t th;
	uint64_t c0, produced, ok;
	int err;

	if (who == C_PERF) {
		err = bench_producer_open(&perf, payload);
		if (err)
			bench_die("loading tests/bpf/producer.bpf.c: %s", strerror(-err));
		rd = perfring_reader_new_bpf(perf.events_fd, &po);
		st.prog_fd = bpf_program__fd(perf.skel->progs.produce_tc);
	} else {
		err = rbp_open(&p, payload, size);
		if (err)
			bench_die("loading tests/bpf/rb_producer.bpf.c: %s", strerror(-err));
		st.prog_fd = bpf_program__fd(p.skel->progs.produce_tc);
		if (who == C_LIBBPF) {
			lb = ring_buffer__new(p.rb_fd, on_libbpf, &s, NULL);
		} else {
			rd = perfring_reader_new(NULL);
			if (rd && perfring_reader_add_ringbuf(rd, p.rb_fd, NULL) < 0)
				bench_die("perfring_reader_add_ringbuf: %s", perfring_errmsg());
		}
	}
	if (!rd && !lb)
		bench_die("creating the reader: %s", perfring_errmsg());
	if (bench_pin_cpu(1))
		bench_die("cannot pin the reader to CPU 1");
	if (pthread_create(&th, NULL, stream_producer, &st))
		bench_die("pthread_create");
	c0 = bench_thread_cpu_ns();
	__atomic_store_n(&st.go, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&st.done, __ATOMIC_ACQUIRE)) {
		if (lb)
			ring_buffer__poll(lb, 100);
		else
			perfring_reader_poll(rd, 100000000, on_msg, &s);
	}
	pthread_join(th, NULL);
	if (lb)
		ring_buffer__consume(lb);
	else
		while (perfring_reader_consume(rd, on_msg, &s) > 0)
			;
	res.cpu_ns_per_rec = (double)(bench_thread_cpu_ns() - c0) / (double)(s.records ? s.records : 1);
	if (st.err)
		bench_die("producer: %s", strerror(-st.err));
	if (who == C_PERF) {
		struct bench_produced pc = bench_producer_counts(&perf);

		produced = bench_producer_next_seq(&perf);
		ok = pc.ok;
	} else {
		produced = p.skel->bss->seq_next;
		ok = p.skel->bss->out_ok;
	}
	if (s.records != ok)
		bench_die("%s: received %" PRIu64 ", the producer wrote %" PRIu64, cname[who], s.records, ok);
	res.received = s.records;
	res.lost = produced - ok;
	res.per_s = (double)s.records / ((double)st.producer_ns / 1e9);
	perfring_reader_free(rd);
	ring_buffer__free(lb);
	if (who == C_PERF)
		bench_producer_close(&perf);
	else
		rb_producer_bpf__destroy(p.skel);
	return res;
}

static int cmp_res(const void *a, const void *b)
{
	double x = ((const struct stream_result *)a)->per_s, y = ((const struct stream_result *)b)->per_s;

	return (x > y) - (x < y);
}

static void print_stream(const char *name, const struct stream_result *r)
{
	printf("ringbuf_stream_records_per_s %s %.0f lost %" PRIu64 " (received %" PRIu64
	       "; reader CPU %.0f ns per record)\n", name, r->per_s, r->lost, r->received, r->cpu_ns_per_rec);
}

static int cmd_stream(int argc, char **argv)
{
	struct run_opts o = { .secs = 2, .reps = 3, .size = 4 << 20, .payload = 64, .repeat = 64 };
	struct stream_result pr[16], lb[16], pa;
	double secs;
	unsigned size, payload, repeat;
	int reps, i;

	parse_run_opts(argc, argv, &o, false,
		       "ringbuf stream [--duration SEC] [--reps N] [--size B] [--payload B] [--repeat N]");
	secs = o.secs, reps = o.reps, size = o.size, payload = o.payload, repeat = o.repeat;
	if (reps < 1 || reps > 16)
		bench_die("--reps 1..16");
	printf("ringbuf_stream: producer on CPU 0 (tc BPF_PROG_TEST_RUN repeat %u), reader on CPU 1, %.1f s runs, "
	       "%u-byte ring, payload %u bytes, %d reps alternated\n", repeat, secs, size, payload, reps);
	for (i = 0; i < reps; i++) {
		pr[i] = stream_run(C_MSG, secs, payload, size, repeat);
		lb[i] = stream_run(C_LIBBPF, secs, payload, size, repeat);
	}
	qsort(pr, (size_t)reps, sizeof(pr[0]), cmp_res);
	qsort(lb, (size_t)reps, sizeof(lb[0]), cmp_res);
	print_stream("perfring", &pr[reps / 2]);
	print_stream("libbpf", &lb[reps / 2]);
	printf("RATIO ringbuf_stream_records_per_s perfring/libbpf %.3f (lost: perfring %" PRIu64 ", libbpf %" PRIu64
	       ")\n", pr[reps / 2].per_s / lb[reps / 2].per_s, pr[reps / 2].lost, lb[reps / 2].lost);
	printf("RATIO ringbuf_stream_reader_cpu_ns_per_record perfring/libbpf %.3f\n",
	       pr[reps / 2].cpu_ns_per_rec / lb[reps / 2].cpu_ns_per_rec);
	pa = stream_run(C_PERF, secs, payload, size / (unsigned)sysconf(_SC_NPROCESSORS_ONLN), repeat);
	print_stream("perfring_perf_array", &pa);
	printf("RATIO stream_records_per_s ringbuf/perf_array %.3f (perfring on each; perf rings of size/CPUs)\n",
	       pr[reps / 2].per_s / pa.per_s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "drain"))
		return cmd_drain(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "live"))
		return cmd_live(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "stream"))
		return cmd_stream(argc - 1, argv + 1);
	fprintf(stderr, "usage: %s drain|live|stream [OPTIONS]\n", argv[0]);
	return 2;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sustained streaming: the producer (tests/bpf/producer.bpf.c under
 * BPF_PROG_TEST_RUN) runs flat out on one CPU for a fixed time while the
 * reader waits and drains on another; perfring with a batching wakeup
 * policy against libbpf's perf_buffer with its defaults (one wakeup per
 * record, perf_buffer__poll() loop). Same producer, same ring size.
 *
 * Reported per run: records received per second of producer (wall) time,
 * the fraction lost (from the reader's LOST records, cross-checked against
 * the producer's ENOSPC count), the reader's and producer's CPU time per
 * record, and how long the producer waited for its CPU behind other tasks
 * (schedstat run delay: a noise indicator on a shared machine). At the end
 * of each run one more record is produced after the drain, so that the
 * kernel emits any LOST record it still holds and the reader's count can
 * be compared with the producer's exactly.
 *
 *   stream [--duration SEC] [--reps N] [--pages N] [--payload BYTES]
 *          [--repeat N] [--producer-cpu N] [--reader-cpu N]
 *          [--policy SPEC]... [--only perfring|libbpf]
 *   SPEC: events=N | bytes=N | bytes=1/D, then optionally ,delay_us=N and
 *         ,pages=N (wakeup_events; wakeup_bytes absolute or a fraction of
 *         the buffer; max_delay_ns; a ring size for this policy only)
 *
 * The first --policy is perfring's for the ratio (alternated with libbpf
 * --reps times, the median run of each reported); the others are run once
 * each, for comparison. --only runs one side, e.g. to profile it.
 *
 * --repeat defaults to 1: on this kernel a BPF_PROG_TEST_RUN of an XDP
 * program with repeat > 1 costs some 30 ms of wall time per call whatever
 * the repeat (the XDP dispatcher is swapped in and out around the loop),
 * which would dominate; with repeat = 1 a call costs a few microseconds.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "alloc_count.h"
#include "bench.h"
#include "bench_producer.h"

#define MAX_POLICIES 8
#define MAX_REPS 16

struct policy {
	const char *spec;
	uint32_t wakeup_events;
	uint32_t wakeup_bytes;
	uint32_t bytes_divisor; /* bytes=1/D: the buffer size divided by D */
	uint64_t max_delay_ns;
	size_t pages;           /* 0: the configured ring size */
};

struct config {
	double duration_s;
	int reps;
	size_t pages;
	unsigned int payload;
	unsigned int repeat; /* BPF_PROG_TEST_RUN repeat per call */
	int producer_cpu, reader_cpu;
	struct policy policies[MAX_POLICIES];
	int npolicies;
};

/* What one run shares between the producer thread and the reader. */
struct run {
	const struct config *cfg;
	struct bench_producer prod;
	struct perfring_reader *rd; /* one of rd, pb */
	struct perf_buffer *pb;
	/* reader side */
	uint64_t records;
	uint64_t lost;              /* sum of LOST record counts */
	uint64_t bad;               /* samples whose header does not match */
	uint64_t polls;             /* poll calls that delivered something */
	uint64_t max_gap_ns;        /* longest time between two poll returns */
	uint64_t warm_records;      /* count allocations from this record on */
	uint64_t counted_from;      /* records when counting started */
	/* producer side */
	int go;
	int done;                   /* the producer has stopped */
	uint64_t producer_ns;       /* wall time the producer ran */
	uint64_t producer_cpu_ns;
	uint64_t producer_wait_ns;  /* waiting for its CPU (schedstat) */
	int producer_err;
};

struct result {
	const char *name;
	size_t pages;
	double seconds;
	uint64_t received, lost, enospc, ok;
	double records_per_s;        /* received per second of producer wall time */
	double records_per_cpu_s;    /* received per second of producer CPU time */
	double lost_pct;             /* reader's LOST count over (received + lost) */
	double enospc_pct;           /* producer's ENOSPC over its attempts */
	double reader_cpu_ns_per_rec;
	double producer_ns_per_rec;
	double producer_cpu_ns_per_rec;
	double producer_wait_pct;
	uint64_t allocs, alloc_records;
	uint64_t polls;
	double max_gap_ms;
	double reader_wait_pct;  /* reader runnable but not running (schedstat) */
	double steal_pct[2];     /* steal time of the producer's and reader's CPUs (/proc/stat) */
};

static void note_sample(struct run *r, const struct producer_sample *s)
{
	/* A cheap integrity check: the header the producer wrote. */
	if (s->len != r->cfg->payload)
		r->bad++;
	/* Steady state: the ring has wrapped at least once. */
	if (++r->records == r->warm_records) {
		r->counted_from = r->records;
		bench_allocs_start();
	}
}

static int perfring_on_event(const struct perfring_msg *ev, void *arg)
{
	struct run *r = arg;

	if (__builtin_expect(ev->kind == PERFRING_MSG_SAMPLE, 1)) {
		struct producer_sample s;

		if (ev->size >= sizeof(s)) {
			memcpy(&s, ev->data, sizeof(s));
		} else { /* the payload straddles the end of the ring */
			memcpy(&s, ev->data, ev->size);
			memcpy((char *)&s + ev->size, ev->data2, sizeof(s) - ev->size);
		}
		note_sample(r, &s);
	} else if (ev->kind == PERFRING_MSG_LOST)
		r->lost += ev->lost;
	return PERFRING_CONTINUE;
}

static void libbpf_on_sample(void *arg, int cpu, void *data, __u32 size)
{
	struct producer_sample s;

	memcpy(&s, data, sizeof(s)); /* libbpf gives one contiguous span */
	note_sample(arg, &s);
}

static void libbpf_on_lost(void *arg, int cpu, __u64 cnt)
{
	struct run *r = arg;

	r->lost += cnt;
}

/* Time the calling thread spent runnable but waiting for its CPU. Plain
 * read(): stdio would allocate while allocations are being counted. */
static uint64_t thread_run_delay_ns(void)
{
	unsigned long long run, wait = 0;
	char buf[128];
	ssize_t n;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	return wait;
}

/* Steal time (seconds, from USER_HZ ticks) of the producer's and the
 * reader's CPUs: time the hypervisor ran something else on them. */
static void read_steal(uint64_t steal[2], const struct config *cfg)
{
	unsigned long long v[8];
	char buf[4096], *line, *save = NULL;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC), cpu, i;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;

	steal[0] = steal[1] = 0;
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		for (i = 0; i < 2; i++)
			if (cpu == (i ? cfg->reader_cpu : cfg->producer_cpu))
				steal[i] = v[7] * (1000000000ull / (uint64_t)hz);
	}
}

static void *producer_main(void *arg)
{
	struct run *r = arg;
	uint64_t t0, c0, w0, limit = (uint64_t)(r->cfg->duration_s * 1e9);
	int err = 0;

	if (bench_pin_cpu(r->cfg->producer_cpu)) {
		r->producer_err = -EINVAL;
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
		if (r->rd)
			perfring_reader_flush(r->rd);
		return NULL;
	}
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		sched_yield();
	w0 = thread_run_delay_ns();
	t0 = bench_now_ns();
	c0 = bench_thread_cpu_ns();
	do {
		err = bench_producer_run(&r->prod, r->cfg->repeat);
	} while (!err && bench_now_ns() - t0 < limit);
	r->producer_ns = bench_now_ns() - t0;
	r->producer_cpu_ns = bench_thread_cpu_ns() - c0;
	r->producer_wait_ns = thread_run_delay_ns() - w0;
	r->producer_err = err;
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	/* perfring: everything written so far is delivered, then the
	 * reader's poll reports -PERFRING_EFLUSHED. */
	if (r->rd)
		perfring_reader_flush(r->rd);
	return NULL;
}

static void note_poll(struct run *r, int ret, uint64_t *last)
{
	uint64_t now = bench_now_ns();

	if (ret > 0)
		r->polls++;
	/* Only while the producer runs, from the first record on. */
	if (r->records && !__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) && now - *last > r->max_gap_ns)
		r->max_gap_ns = now - *last;
	*last = now;
}

static void read_perfring(struct run *r)
{
	uint64_t last = bench_now_ns();
	int ret;

	for (;;) {
		ret = perfring_reader_poll(r->rd, 200 * 1000000ll, perfring_on_event, r);
		note_poll(r, ret, &last);
		if (ret == -PERFRING_EFLUSHED && __atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
			return;
		if (ret < 0 && ret != -ETIMEDOUT && ret != -PERFRING_EFLUSHED)
			bench_die("perfring_reader_poll: %s: %s", perfring_strerror(ret), perfring_errmsg());
	}
}

static void read_libbpf(struct run *r)
{
	uint64_t last = bench_now_ns();
	int ret;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		ret = perf_buffer__poll(r->pb, 100);
		note_poll(r, ret, &last);
		if (ret < 0 && ret != -EINTR)
			bench_die("perf_buffer__poll: %s", strerror(-ret));
	}
	ret = perf_buffer__consume(r->pb);
	if (ret < 0)
		bench_die("perf_buffer__consume: %s", strerror(-ret));
}

/* One record more, produced on the producer's CPU after the drain: the
 * kernel writes the LOST record it may still hold just before it. */
static void flush_lost(struct run *r)
{
	int err;

	if (bench_pin_cpu(r->cfg->producer_cpu))
		bench_die("cannot pin to CPU %d", r->cfg->producer_cpu);
	err = bench_producer_run(&r->prod, 1);
	if (err)
		bench_die("BPF_PROG_TEST_RUN: %s", strerror(-err));
	if (bench_pin_cpu(r->cfg->reader_cpu))
		bench_die("cannot pin to CPU %d", r->cfg->reader_cpu);
	if (r->rd)
		err = perfring_reader_consume(r->rd, perfring_on_event, r);
	else
		err = perf_buffer__consume(r->pb);
	if (err < 0)
		bench_die("final consume: %d", err);
}

static struct perfring_reader *new_perfring(const struct config *cfg, const struct policy *pol, size_t pages,
					    int map_fd)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = pages);
	size_t buf = pages * (size_t)sysconf(_SC_PAGESIZE);
	struct perfring_reader *rd;

	opts.wakeup_events = pol->wakeup_events;
	opts.wakeup_bytes = pol->bytes_divisor ? (uint32_t)(buf / pol->bytes_divisor) : pol->wakeup_bytes;
	opts.max_delay_ns = pol->max_delay_ns;
	opts.max_sample_size = cfg->payload;
	rd = perfring_reader_new_bpf(map_fd, &opts);
	if (!rd)
		bench_die("perfring_reader_new_bpf (%s): %s: %s", pol->spec, strerror(errno), perfring_errmsg());
	return rd;
}

static void check_run(const char *name, const struct run *r, const struct bench_produced *before,
		      const struct bench_produced *after)
{
	uint64_t ok = after->ok - before->ok, enospc = after->enospc - before->enospc;

	/* Every record is either received or counted lost, by both sides. */
	if (r->records != ok || after->enoent != before->enoent || after->other != before->other)
		fprintf(stderr, "stream %s: MISMATCH: received %" PRIu64 ", producer wrote %" PRIu64
				" (enoent %" PRIu64 ", other %" PRIu64 ")\n",
			name, r->records, ok, after->enoent - before->enoent, after->other - before->other);
	if (r->lost != enospc)
		fprintf(stderr, "stream %s: MISMATCH: reader saw %" PRIu64 " lost, producer counted %" PRIu64
				" ENOSPC\n",
			name, r->lost, enospc);
	if (r->bad)
		fprintf(stderr, "stream %s: %" PRIu64 " samples with a wrong header\n", name, r->bad);
}

/* One timed run; pol == NULL means libbpf. */
static struct result run_one(const struct config *cfg, const struct policy *pol, const char *name)
{
	size_t pages = pol && pol->pages ? pol->pages : cfg->pages;
	size_t rec_size = bench_sample_record_size(cfg->payload);
	struct run r = { .cfg = cfg };
	struct bench_produced before, after;
	struct result res = { .name = name, .pages = pages };
	uint64_t c0, w0, t0, allocs, steal0[2], steal1[2];
	pthread_t thr;
	int err, i;

	err = bench_producer_open(&r.prod, cfg->payload);
	if (err)
		bench_die("loading the producer: %s", strerror(-err));
	if (pol) {
		r.rd = new_perfring(cfg, pol, pages, r.prod.events_fd);
	} else {
		r.pb = perf_buffer__new(r.prod.events_fd, pages, libbpf_on_sample, libbpf_on_lost, &r, NULL);
		if (!r.pb)
			bench_die("perf_buffer__new: %s", strerror(errno));
	}
	/* Two rings' worth: the ring has wrapped, one-time buffers exist. */
	r.warm_records = 2 * pages * (size_t)sysconf(_SC_PAGESIZE) / rec_size;
	before = bench_producer_counts(&r.prod);
	if (bench_pin_cpu(cfg->reader_cpu))
		bench_die("cannot pin to CPU %d", cfg->reader_cpu);
	err = pthread_create(&thr, NULL, producer_main, &r);
	if (err)
		bench_die("pthread_create: %s", strerror(err));

	read_steal(steal0, cfg);
	w0 = thread_run_delay_ns();
	t0 = bench_now_ns();
	c0 = bench_thread_cpu_ns();
	__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
	if (pol)
		read_perfring(&r);
	else
		read_libbpf(&r);
	res.reader_cpu_ns_per_rec = (double)(bench_thread_cpu_ns() - c0);
	allocs = bench_allocs_stop();
	res.reader_wait_pct = 100.0 * (double)(thread_run_delay_ns() - w0) / (double)(bench_now_ns() - t0);
	read_steal(steal1, cfg);
	for (i = 0; i < 2; i++)
		res.steal_pct[i] = 100.0 * (double)(steal1[i] - steal0[i]) / (double)(bench_now_ns() - t0);
	pthread_join(thr, NULL);
	if (r.producer_err)
		bench_die("producer: %s", strerror(-r.producer_err));

	res.received = r.records;
	res.polls = r.polls;
	res.max_gap_ms = (double)r.max_gap_ns / 1e6;
	res.lost = r.lost;
	res.allocs = r.counted_from ? allocs : 0;
	res.alloc_records = r.counted_from ? r.records - r.counted_from + 1 : 0;
	flush_lost(&r);
	after = bench_producer_counts(&r.prod);
	check_run(name, &r, &before, &after);
	/* flush_lost's sample is not part of the run; its LOST record is. */
	res.lost = r.lost;
	res.ok = after.ok - before.ok - 1;
	res.enospc = after.enospc - before.enospc;

	res.seconds = (double)r.producer_ns / 1e9;
	res.records_per_s = (double)res.received / res.seconds;
	res.records_per_cpu_s = r.producer_cpu_ns ? (double)res.received / ((double)r.producer_cpu_ns / 1e9) : 0;
	res.lost_pct = res.received + res.lost ? 100.0 * (double)res.lost / (double)(res.received + res.lost) : 0;
	res.enospc_pct = res.ok + res.enospc ? 100.0 * (double)res.enospc / (double)(res.ok + res.enospc) : 0;
	res.reader_cpu_ns_per_rec /= res.received ? (double)res.received : 1;
	res.producer_ns_per_rec = (double)r.producer_ns / (double)(res.ok + res.enospc ? res.ok + res.enospc : 1);
	res.producer_cpu_ns_per_rec =
		(double)r.producer_cpu_ns / (double)(res.ok + res.enospc ? res.ok + res.enospc : 1);
	res.producer_wait_pct = 100.0 * (double)r.producer_wait_ns / (double)r.producer_ns;

	perfring_reader_free(r.rd);
	perf_buffer__free(r.pb);
	bench_producer_close(&r.prod);
	return res;
}

static void print_result(const char *prefix, const struct result *res)
{
	printf("%s %s %.0f lost_pct %.4f (%zu pages: received %" PRIu64 " in %.2f s, lost %" PRIu64
	       ", producer ENOSPC %" PRIu64 " = %.4f%%; %.0f records per poll; per record: reader CPU %.0f ns, "
	       "producer %.0f ns wall, %.0f ns CPU; waiting for their CPU: producer %.1f%%, reader %.1f%%; "
	       "vCPU steal: producer %.1f%%, reader %.1f%%; longest poll gap %.1f ms)\n",
	       prefix, res->name, res->records_per_s, res->lost_pct, res->pages, res->received, res->seconds, res->lost,
	       res->enospc, res->enospc_pct, res->polls ? (double)res->received / (double)res->polls : 0, res->reader_cpu_ns_per_rec, res->producer_ns_per_rec,
	       res->producer_cpu_ns_per_rec, res->producer_wait_pct, res->reader_wait_pct, res->steal_pct[0],
	       res->steal_pct[1], res->max_gap_ms);
}

static void parse_policy(struct policy *p, const char *spec)
{
	char *save = NULL, *tok, *copy = strdup(spec);
	unsigned long long v;

	if (!copy)
		bench_die("out of memory");
	memset(p, 0, sizeof(*p));
	p->spec = spec;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (sscanf(tok, "bytes=1/%llu", &v) == 1 && v)
			p->bytes_divisor = (uint32_t)v;
		else if (sscanf(tok, "bytes=%llu", &v) == 1)
			p->wakeup_bytes = (uint32_t)v;
		else if (sscanf(tok, "events=%llu", &v) == 1)
			p->wakeup_events = (uint32_t)v;
		else if (sscanf(tok, "delay_us=%llu", &v) == 1)
			p->max_delay_ns = v * 1000;
		else if (sscanf(tok, "pages=%llu", &v) == 1)
			p->pages = (size_t)v;
		else
			bench_die("bad policy '%s' (events=N | bytes=N | bytes=1/D, with ,delay_us=N ,pages=N)", spec);
	}
	free(copy);
}

static int cmp_result_rate(const void *a, const void *b)
{
	double x = ((const struct result *)a)->records_per_s, y = ((const struct result *)b)->records_per_s;

	return (x > y) - (x < y);
}

/* The run with the median rate (the upper one for an even count). */
static struct result median_result(struct result *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_result_rate);
	return v[n / 2];
}

static void print_allocs(const char *name, const struct result *v, int n)
{
	uint64_t allocs = 0, records = 0;
	int i;

	for (i = 0; i < n; i++) {
		allocs += v[i].allocs;
		records += v[i].alloc_records;
	}
	printf("memory: allocations per record in steady state (stream) %s %.6f (%" PRIu64 " allocations in %" PRIu64
	       " records)\n",
	       name, records ? (double)allocs / (double)records : 0, allocs, records);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },     { "reps", required_argument, NULL, 'n' },
		{ "pages", required_argument, NULL, 'P' },        { "payload", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'R' },       { "producer-cpu", required_argument, NULL, 'c' },
		{ "reader-cpu", required_argument, NULL, 'C' },   { "policy", required_argument, NULL, 'o' },
		{ "only", required_argument, NULL, 'O' },         { NULL, 0, NULL, 0 },
	};
	struct config cfg = {
		.duration_s = 3, .reps = 1, .pages = 64, .payload = 64, .repeat = 1,
		.producer_cpu = 0, .reader_cpu = 1,
	};
	struct result lb[MAX_REPS], pr[MAX_REPS], m_lb, m_pr, res;
	const char *only = NULL;
	char label[96];
	int opt, i;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			cfg.duration_s = atof(optarg);
			break;
		case 'n':
			cfg.reps = atoi(optarg);
			break;
		case 'P':
			cfg.pages = (size_t)atol(optarg);
			break;
		case 'p':
			cfg.payload = (unsigned int)atoi(optarg);
			break;
		case 'R':
			cfg.repeat = (unsigned int)atoi(optarg);
			break;
		case 'c':
			cfg.producer_cpu = atoi(optarg);
			break;
		case 'C':
			cfg.reader_cpu = atoi(optarg);
			break;
		case 'o':
			if (cfg.npolicies == MAX_POLICIES)
				bench_die("at most %d policies", MAX_POLICIES);
			parse_policy(&cfg.policies[cfg.npolicies++], optarg);
			break;
		case 'O':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [--duration SEC] [--reps N] [--pages N] [--payload BYTES] [--repeat N] "
					"[--producer-cpu N] [--reader-cpu N] [--policy SPEC]... [--only perfring|libbpf]\n",
				argv[0]);
			return 2;
		}
	}
	if (!cfg.npolicies)
		parse_policy(&cfg.policies[cfg.npolicies++], "bytes=1/4,delay_us=5000");
	if (cfg.reps < 1 || cfg.reps > MAX_REPS || cfg.duration_s <= 0 || !cfg.repeat ||
	    cfg.payload < sizeof(struct producer_sample) || cfg.payload > PRODUCER_MAX_LEN)
		bench_die("bad --reps, --duration, --repeat or --payload");

	printf("stream: producer on CPU %d (BPF_PROG_TEST_RUN repeat %u, %.1f s per run), reader on CPU %d, "
	       "%zu pages per CPU, payload %u bytes (record %zu bytes); perfring policy %s vs libbpf defaults; "
	       "%d alternated run(s) each, median run shown\n",
	       cfg.producer_cpu, cfg.repeat, cfg.duration_s, cfg.reader_cpu, cfg.pages, cfg.payload,
	       bench_sample_record_size(cfg.payload), cfg.policies[0].spec, cfg.reps);
	fflush(stdout);
	if (only) {
		bool lib = !strcmp(only, "libbpf");

		for (i = 0; i < cfg.reps; i++) {
			res = lib ? run_one(&cfg, NULL, "libbpf") : run_one(&cfg, &cfg.policies[0], "perfring");
			print_result("stream_records_per_s", &res);
			fflush(stdout);
		}
		return 0;
	}
	for (i = 0; i < cfg.reps; i++) {
		if (i % 2 == 0) {
			lb[i] = run_one(&cfg, NULL, "libbpf");
			pr[i] = run_one(&cfg, &cfg.policies[0], "perfring");
		} else {
			pr[i] = run_one(&cfg, &cfg.policies[0], "perfring");
			lb[i] = run_one(&cfg, NULL, "libbpf");
		}
	}
	if (bench_allocs_supported()) {
		print_allocs("perfring", pr, cfg.reps);
		print_allocs("libbpf", lb, cfg.reps);
	}
	m_lb = median_result(lb, cfg.reps);
	m_pr = median_result(pr, cfg.reps);
	print_result("stream_records_per_s", &m_pr);
	print_result("stream_records_per_s", &m_lb);
	printf("stream_records_per_producer_cpu_s perfring %.0f libbpf %.0f\n", m_pr.records_per_cpu_s,
	       m_lb.records_per_cpu_s);
	printf("RATIO stream_records_per_s perfring/libbpf %.3f\n", m_pr.records_per_s / m_lb.records_per_s);
	printf("RATIO stream_reader_cpu_ns_per_record perfring/libbpf %.3f\n",
	       m_pr.reader_cpu_ns_per_rec / m_lb.reader_cpu_ns_per_rec);
	fflush(stdout);

	for (i = 1; i < cfg.npolicies; i++) {
		snprintf(label, sizeof(label), "perfring[%s]", cfg.policies[i].spec);
		res = run_one(&cfg, &cfg.policies[i], label);
		print_result("stream_policy", &res);
		fflush(stdout);
	}
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's cost per wakeup against the number of rings that exist: a
 * host with 64-256 CPUs has that many rings (or several per CPU), and at
 * most a few of them hold data at any wakeup. N BPF output rings (N/2 on
 * CPU 0, N/2 on CPU 1, 2 data pages, wakeup_events = 1) in one perf event
 * array; the producer, on CPU 0, writes one record every period into one of
 * them (the last ring of CPU 0), so every record is one wakeup of the
 * reader, on CPU 1. Measured: the reader thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID, which counts the kernel's side of its
 * epoll_wait too) per wakeup (its voluntary context switches: each is a
 * sleep in the wait), and records per wakeup (on a shared VM a vCPU woken
 * from idle may take longer than the period, so a wakeup finds about two).
 *
 * Contenders, each on its own producer instance and rings, alternating
 * within each repetition so that a slow moment of the shared machine hits
 * both:
 *  - perfring: perfring_reader_new() + perfring_reader_add() of the event
 *    fds, then perfring_reader_poll(-1) in a loop;
 *  - libbpf: perf_buffer__new_raw() with the same attr on the same CPUs and
 *    map keys, then perf_buffer__poll(-1) in a loop.
 *
 *   rings [--rings 2,16,256,1024] [--records R] [--period-us P] [--reps K]
 *         [--only perfring|libbpf]
 */
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "bench.h"
#include "bench_producer.h"

#define MAX_RINGS 4096
#define MAX_REPS 64
#define DATA_PAGES 2

struct run {
	struct bench_producer prod;
	bool libbpf;
	int n;            /* rings */
	uint64_t records; /* to write */
	uint64_t target;  /* to receive: UINT64_MAX until the producer is done */
	uint64_t received, lost;
	uint64_t calls_with_data;
	int fds[MAX_RINGS]; /* perfring's events (libbpf opens its own) */
	struct perfring_reader *rd;
	struct perf_buffer *pb;
	int ready;
	uint64_t cpu_ns;
	long nvcsw;
};

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Ring i's CPU: even keys on CPU 0, odd keys on CPU 1, N/2 each. */
static int ring_cpu(int i)
{
	return i & 1;
}

static void bpf_output_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_BPF_OUTPUT;
	a->sample_type = PERF_SAMPLE_RAW;
	a->sample_period = 1;
	a->wakeup_events = 1;
}

static int on_msg(const struct perfring_msg *ev, void *ctx)
{
	struct run *r = ctx;

	if (ev->kind == PERFRING_MSG_SAMPLE)
		r->received++;
	else if (ev->kind == PERFRING_MSG_LOST)
		r->lost += ev->lost;
	return PERFRING_CONTINUE;
}

static enum bpf_perf_event_ret on_lb_event(void *ctx, int cpu, struct perf_event_header *h)
{
	struct run *r = ctx;

	(void)cpu;
	if (h->type == PERF_RECORD_SAMPLE)
		r->received++;
	return LIBBPF_PERF_EVENT_CONT;
}

static void *reader(void *arg)
{
	struct run *r = arg;
	struct rusage ru0, ru1;
	uint64_t c0;

	bench_pin_cpu(1);
	getrusage(RUSAGE_THREAD, &ru0);
	c0 = bench_thread_cpu_ns();
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	/* Until every record written has arrived: the producer's count is
	 * known at its end (a record the ring had no room for is not one). */
	while (r->received < __atomic_load_n(&r->target, __ATOMIC_ACQUIRE)) {
		int ret;

		if (r->libbpf) {
			/* The timeout only lets it see the target once more. */
			ret = perf_buffer__poll(r->pb, 50);
			if (ret < 0 && ret != -EINTR)
				bench_die("perf_buffer__poll: %s", strerror(-ret));
		} else {
			ret = perfring_reader_poll(r->rd, -1, on_msg, r);
			if (ret < 0 && ret != -EINTR && ret != -PERFRING_EWOKEN)
				bench_die("perfring_reader_poll: %s", perfring_errmsg());
		}
		if (ret > 0)
			r->calls_with_data++;
	}
	r->cpu_ns = bench_thread_cpu_ns() - c0;
	getrusage(RUSAGE_THREAD, &ru1);
	r->nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	return NULL;
}

static void open_perfring(struct run *r)
{
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = DATA_PAGES);
	struct perf_event_attr a;
	int i, fd;

	bpf_output_attr(&a);
	r->rd = perfring_reader_new(&o);
	if (!r->rd)
		bench_die("perfring_reader_new: %s", perfring_errmsg());
	for (i = 0; i < r->n; i++) {
		__u32 key = (__u32)i;

		fd = (int)syscall(__NR_perf_event_open, &a, -1, ring_cpu(i), -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			bench_die("perf_event_open of ring %d (CPU %d): %s", i, ring_cpu(i), strerror(errno));
		r->fds[i] = fd;
		if (perfring_reader_add(r->rd, fd, ring_cpu(i)) < 0)
			bench_die("perfring_reader_add of ring %d: %s", i, perfring_errmsg());
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			bench_die("PERF_EVENT_IOC_ENABLE: %s", strerror(errno));
		if (bpf_map_update_elem(r->prod.events_fd, &key, &fd, BPF_ANY))
			bench_die("storing ring %d in the map: %s", i, strerror(errno));
	}
}

static void open_libbpf(struct run *r)
{
	static int cpus[MAX_RINGS], keys[MAX_RINGS];
	LIBBPF_OPTS(perf_buffer_raw_opts, o, .cpu_cnt = r->n, .cpus = cpus, .map_keys = keys);
	struct perf_event_attr a;
	int i;

	bpf_output_attr(&a);
	for (i = 0; i < r->n; i++) {
		cpus[i] = ring_cpu(i);
		keys[i] = i;
	}
	r->pb = perf_buffer__new_raw(r->prod.events_fd, DATA_PAGES, &a, on_lb_event, r, &o);
	if (!r->pb)
		bench_die("perf_buffer__new_raw with %d rings: %s", r->n, strerror(errno));
}

/* One run: returns the reader's CPU ns per wakeup (voluntary context switch). */
static double run_one(struct run *r, bool libbpf, int n, uint64_t records, uint64_t period_ns, double *rec_per_wakeup,
		      uint64_t *lost)
{
	struct bench_produced pc;
	/* The last ring of CPU 0: a reader that walks the rings in order
	 * finds it last. */
	int target = (n - 1) & ~1;
	uint64_t next, i;
	pthread_t th;

	memset(r, 0, sizeof(*r));
	r->libbpf = libbpf;
	r->n = n;
	r->records = records;
	r->target = UINT64_MAX;
	if (bench_producer_open_keys(&r->prod, 64, (unsigned int)n, target))
		bench_die("loading the BPF producer failed (root needed)");
	if (libbpf)
		open_libbpf(r);
	else
		open_perfring(r);
	if (pthread_create(&th, NULL, reader, r))
		bench_die("pthread_create");
	bench_pin_cpu(0);
	while (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
		sleep_ns(1000000);
	sleep_ns(20000000); /* the reader is asleep in its wait */
	next = bench_now_ns();
	for (i = 0; i < records; i++) {
		uint64_t now = bench_now_ns();

		if (next > now)
			sleep_ns(next - now);
		next += period_ns;
		if (bench_producer_run(&r->prod, 1))
			bench_die("BPF_PROG_TEST_RUN failed");
	}
	pc = bench_producer_counts(&r->prod);
	if (pc.enoent || pc.other)
		bench_die("%s, %d rings: %" PRIu64 " records found no event in the map, %" PRIu64 " failed otherwise",
			  libbpf ? "libbpf" : "perfring", n, pc.enoent, pc.other);
	__atomic_store_n(&r->target, pc.ok, __ATOMIC_RELEASE);
	if (!libbpf)
		perfring_reader_wakeup(r->rd);
	pthread_join(th, NULL);
	*lost = pc.enospc;
	if (libbpf) {
		perf_buffer__free(r->pb);
	} else {
		perfring_reader_free(r->rd);
		for (i = 0; i < (uint64_t)n; i++)
			close(r->fds[i]);
	}
	bench_producer_close(&r->prod);
	*rec_per_wakeup = r->nvcsw ? (double)r->received / (double)r->nvcsw : 0;
	return r->nvcsw ? (double)r->cpu_ns / (double)r->nvcsw : 0;
}

static int parse_rings(const char *s, int *out, int max)
{
	int cnt = 0;

	while (*s && cnt < max) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 2 || v > MAX_RINGS || (v & 1))
			bench_die("--rings: '%s' is not a list of even counts from 2 to %d", s, MAX_RINGS);
		out[cnt++] = (int)v;
		s = *end == ',' ? end + 1 : end;
	}
	return cnt;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rings", required_argument, NULL, 'n' },  { "records", required_argument, NULL, 'r' },
		{ "period-us", required_argument, NULL, 'p' }, { "reps", required_argument, NULL, 'k' },
		{ "only", required_argument, NULL, 'o' },   { NULL, 0, NULL, 0 },
	};
	int counts[16], ncount, reps = 5, c, i, k, w;
	uint64_t records = 2000, period_us = 200;
	const char *only = NULL;
	struct rlimit rl;
	struct run *r;

	ncount = parse_rings("2,16,256,1024", counts, 16);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			ncount = parse_rings(optarg, counts, 16);
			break;
		case 'r':
			records = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			period_us = strtoull(optarg, NULL, 10);
			break;
		case 'k':
			reps = atoi(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: rings [--rings 2,16,256,1024] [--records R] [--period-us P] [--reps K] "
					"[--only perfring|libbpf]\n");
			return 2;
		}
	}
	if (!records || reps < 1 || reps > MAX_REPS)
		bench_die("--records must be positive and --reps from 1 to %d", MAX_REPS);
	/* A ring is an fd (libbpf's and ours), and 1024 of them with the
	 * producer's and the libraries' own pass the usual soft limit. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		bench_die("out of memory");
	printf("rings: one 64-byte record every %" PRIu64 " us into one of N BPF output rings (N/2 per CPU, %d data "
	       "pages, wakeup_events 1) on CPU 0, reader on CPU 1, %" PRIu64 " records x %d runs each\n",
	       period_us, DATA_PAGES, records, reps);
	for (i = 0; i < ncount; i++) {
		double us[2][MAX_REPS], rpw[2][MAX_REPS], med[2] = { 0, 0 };
		uint64_t lost[2] = { 0, 0 }, l;
		int n = counts[i];

		for (k = 0; k < reps; k++)
			for (w = 0; w < 2; w++) {
				int who = (k & 1) ? 1 - w : w; /* alternate which goes first */

				if (only && strcmp(only, who ? "libbpf" : "perfring"))
					continue;
				us[who][k] = run_one(r, who == 1, n, records, period_us * 1000, &rpw[who][k], &l) / 1000;
				lost[who] += l;
			}
		for (w = 0; w < 2; w++) {
			const char *name = w ? "libbpf" : "perfring";
			double lo_us, hi_us;

			if (only && strcmp(only, name))
				continue;
			med[w] = bench_median(us[w], (size_t)reps);
			lo_us = us[w][0];
			hi_us = us[w][reps - 1];
			printf("rings_wakeup_cpu_us %s %d rings: %.2f (min %.2f max %.2f of %d runs), %.2f records "
			       "per wakeup, %" PRIu64 " lost (no room)\n",
			       name, n, med[w], lo_us, hi_us, reps, bench_median(rpw[w], (size_t)reps), lost[w]);
		}
		if (med[0] > 0 && med[1] > 0)
			printf("RATIO rings_wakeup_cpu_%d perfring/libbpf %.3f (%.2f us against %.2f per wakeup)\n", n,
			       med[0] / med[1], med[0], med[1]);
		fflush(stdout);
	}
	free(r);
	return 0;
}

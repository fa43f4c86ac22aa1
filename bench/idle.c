// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The idle cost of a delay bound: a producer writes one record every
 * period (10 ms) on CPU 0 into rings that batch (a watermark far above one
 * record), and the reader, on CPU 1, must still deliver each record at most
 * max_delay (2 ms) after it was written. Measured: the reader thread's CPU
 * time per second (getrusage RUSAGE_THREAD), its wakeups (voluntary context
 * switches) per second, and the delivery delay (from just before the
 * producer's run to the callback: median, 99th percentile, largest; on a
 * shared VM the largest is the longest time the reader's vCPU waited).
 *
 * Contenders, one after the other on their own producer instance:
 *  - perfring: perfring_reader_poll(-1) with wakeup_bytes and max_delay_ns;
 *  - libbpf: libbpf has no delay bound below the watermark, so a libbpf
 *    program that needs one polls with a timeout of the bound and consumes
 *    every ring after each wait (perf_buffer__poll(pb, 2) then
 *    perf_buffer__consume(pb)), which is what perfring did before.
 *
 *   idle [--seconds S] [--period-ms P] [--max-delay-ms D] [--only perfring|libbpf]
 */
#include <getopt.h>
#include <inttypes.h>
#include <sys/resource.h>

#include <perfring/perfring.h>

#include "bench.h"
#include "bench_producer.h"

#define MAX_SEQ (1u << 16)
#define WATERMARK 16384 /* bytes: about 200 of these records */

struct run {
	struct bench_producer prod;
	uint64_t t_prod[MAX_SEQ]; /* by seq % MAX_SEQ */
	uint64_t seq0;
	int stop;
	uint64_t received, max_delay_ns;
	double delays[MAX_SEQ]; /* ms, in arrival order */
	double cpu_ms_per_s, wakeups_per_s;
	int libbpf;
	struct perfring_reader *rd;
	struct perf_buffer *pb;
	uint64_t max_delay_opt_ns;
	double seconds;
};

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void note(struct run *r, const void *data)
{
	uint64_t seq, now = bench_now_ns(), t;

	memcpy(&seq, data, sizeof(seq));
	t = r->t_prod[seq % MAX_SEQ];
	if (t && now - t > r->max_delay_ns)
		r->max_delay_ns = now - t;
	if (t && r->received < MAX_SEQ)
		r->delays[r->received] = (double)(now - t) / 1e6;
	r->received++;
}

static int on_msg(const struct perfring_msg *ev, void *ctx)
{
	if (ev->kind == PERFRING_MSG_SAMPLE && ev->size >= 8)
		note(ctx, ev->data);
	return PERFRING_CONTINUE;
}

/* perf_buffer__new_raw() hands over raw records: header, u32 size, payload. */
static enum bpf_perf_event_ret on_lb_event(void *ctx, int cpu, struct perf_event_header *h)
{
	(void)cpu;
	if (h->type == PERF_RECORD_SAMPLE && h->size >= 20)
		note(ctx, (const char *)h + 12);
	return LIBBPF_PERF_EVENT_CONT;
}

static void *reader(void *arg)
{
	struct run *r = arg;
	struct rusage ru0, ru1;
	uint64_t t0, t1;

	bench_pin_cpu(1);
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = bench_now_ns();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (r->libbpf) {
			perf_buffer__poll(r->pb, (int)(r->max_delay_opt_ns / 1000000));
			perf_buffer__consume(r->pb);
		} else {
			int ret = perfring_reader_poll(r->rd, -1, on_msg, r);

			if (ret < 0 && ret != -PERFRING_EWOKEN && ret != -ETIMEDOUT && ret != -EINTR)
				bench_die("perfring_reader_poll: %s", perfring_errmsg());
		}
	}
	t1 = bench_now_ns();
	getrusage(RUSAGE_THREAD, &ru1);
	r->cpu_ms_per_s = ((double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1e3 +
			   (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e3 +
			   (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e3 +
			   (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e3) /
			  ((double)(t1 - t0) / 1e9);
	r->wakeups_per_s = (double)(ru1.ru_nvcsw - ru0.ru_nvcsw) / ((double)(t1 - t0) / 1e9);
	return NULL;
}

static void run_one(struct run *r, bool libbpf, uint64_t period_ns)
{
	pthread_t th;
	uint64_t end, next;

	if (bench_producer_open(&r->prod, 64))
		bench_die("loading the BPF producer failed (root needed)");
	r->libbpf = libbpf;
	if (libbpf) {
		struct perf_event_attr a;

		/* perf_buffer_opts cannot ask for a watermark: the raw form can. */
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_BPF_OUTPUT;
		a.sample_type = PERF_SAMPLE_RAW;
		a.sample_period = 1;
		a.watermark = 1;
		a.wakeup_watermark = WATERMARK;
		r->pb = perf_buffer__new_raw(r->prod.events_fd, 64, &a, on_lb_event, r, NULL);
		if (!r->pb)
			bench_die("perf_buffer__new_raw: %s", strerror(errno));
	} else {
		struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 64,
								    .wakeup_bytes = WATERMARK,
								    .max_delay_ns = r->max_delay_opt_ns);

		r->rd = perfring_reader_new_bpf(r->prod.events_fd, &o);
		if (!r->rd)
			bench_die("perfring_reader_new_bpf: %s", perfring_errmsg());
	}
	if (pthread_create(&th, NULL, reader, r))
		bench_die("pthread_create");
	bench_pin_cpu(0);
	sleep_ns(100000000);
	r->seq0 = bench_producer_next_seq(&r->prod);
	end = bench_now_ns() + (uint64_t)(r->seconds * 1e9);
	for (next = bench_now_ns(); next < end; next += period_ns) {
		uint64_t now = bench_now_ns();

		if (next > now)
			sleep_ns(next - now);
		r->t_prod[bench_producer_next_seq(&r->prod) % MAX_SEQ] = bench_now_ns();
		if (bench_producer_run(&r->prod, 1))
			bench_die("BPF_PROG_TEST_RUN failed");
	}
	sleep_ns(50000000);
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	if (!libbpf)
		perfring_reader_wakeup(r->rd);
	pthread_join(th, NULL);
	if (libbpf)
		perf_buffer__free(r->pb);
	else
		perfring_reader_free(r->rd);
	bench_producer_close(&r->prod);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seconds", required_argument, NULL, 's' },   { "period-ms", required_argument, NULL, 'p' },
		{ "max-delay-ms", required_argument, NULL, 'd' }, { "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 3, period_ms = 10, delay_ms = 2;
	const char *only = NULL;
	struct run *r[2] = { NULL, NULL };
	int c, i;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'p':
			period_ms = atof(optarg);
			break;
		case 'd':
			delay_ms = atof(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: idle [--seconds S] [--period-ms P] [--max-delay-ms D] [--only perfring|libbpf]\n");
			return 2;
		}
	}
	printf("idle: one 64-byte record every %.1f ms on CPU 0, watermark %d bytes, bound %.1f ms, reader on CPU 1, "
	       "%.1f s each\n", period_ms, WATERMARK, delay_ms, seconds);
	for (i = 0; i < 2; i++) {
		const char *name = i ? "libbpf" : "perfring";

		if (only && strcmp(only, name))
			continue;
		r[i] = calloc(1, sizeof(*r[i]));
		if (!r[i])
			bench_die("out of memory");
		r[i]->seconds = seconds;
		r[i]->max_delay_opt_ns = (uint64_t)(delay_ms * 1e6);
		run_one(r[i], i == 1, (uint64_t)(period_ms * 1e6));
		{
			size_t n = r[i]->received < MAX_SEQ ? r[i]->received : MAX_SEQ;

			qsort(r[i]->delays, n, sizeof(double), bench_cmp_double);
			printf("idle_cpu_ms_per_s %s %.2f (%.2f%% of a core), %.0f wakeups/s, %" PRIu64
			       " records, delay p50 %.2f ms p99 %.2f ms max %.2f ms\n",
			       name, r[i]->cpu_ms_per_s, r[i]->cpu_ms_per_s / 10, r[i]->wakeups_per_s, r[i]->received,
			       bench_quantile_sorted(r[i]->delays, n, 0.5), bench_quantile_sorted(r[i]->delays, n, 0.99),
			       (double)r[i]->max_delay_ns / 1e6);
		}
	}
	if (r[0] && r[1] && r[1]->cpu_ms_per_s > 0)
		printf("RATIO idle_cpu perfring/libbpf %.3f (libbpf: poll with a %.0f ms timeout, then consume)\n",
		       r[0]->cpu_ms_per_s / r[1]->cpu_ms_per_s, delay_ms);
	if (r[0])
		printf("idle_max_delay_ms perfring %.2f (bound %.1f)\n", (double)r[0]->max_delay_ns / 1e6, delay_ms);
	free(r[0]);
	free(r[1]);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring demo`: a real demonstration on a built-in default. A BPF program
 * on three tracepoints (exec, exit, openat) writes an event per call with
 * bpf_perf_event_output() into a perf event array; a perfring reader with a
 * batching policy (watermark + a bound on delay) reads them while a small
 * workload runs commands, and prints one line per event and a summary.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/types.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "demo_event.h"
#include "demo_load.h"
#include "demo_workload.h"
#include "tool.h"

#define CMD "demo"

/* One command every DEMO_SPAWN_NS: about 7 a second, each a handful of events. */
#define DEMO_SPAWN_NS 150000000ull
/* The longest the loop blocks in perfring_reader_poll(): also how quickly a
 * signal is noticed (a sig_atomic_t flag, since the reader's wakeup is not
 * documented as async-signal-safe). */
#define DEMO_TICK_NS 50000000ull
/* How long to wait for the final flush before giving up. */
#define DEMO_DRAIN_NS 2000000000ull

struct demo_opts {
	double duration_s;
	bool quiet;
	bool all;
	bool verbose;
	uint64_t buffer_pages;
	uint64_t wakeup_bytes;
	uint64_t wakeup_events;
	uint64_t max_delay_ms;
};

struct demo_state {
	const struct demo_opts *opts;
	struct demo_workload *w;
	uint64_t start_ns;
	uint64_t samples;
	uint64_t malformed;
	uint64_t lost;
	uint64_t by_type[4];
	uint64_t delay_sum_ns;
	uint64_t delay_max_ns;
	uint64_t batches;
};

static volatile sig_atomic_t demo_stop;

static void demo_on_signal(int sig)
{
	(void)sig;
	demo_stop = 1;
}

void cmd_demo_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s demo [OPTIONS]\n\n"
		"Load a BPF program on the tracepoints sched_process_exec, sched_process_exit and\n"
		"sys_enter_openat that sends one event per call through a perf event array, run a\n"
		"few short commands, and print every event perfring's reader delivers, then a\n"
		"summary (records, lost, per-CPU counts, rate, delivery delay). Needs root.\n\n"
		"Options:\n"
		"  -d, --duration SEC       run the workload for SEC seconds (default 3)\n"
		"  -q, --quiet              print only the summary\n"
		"  -a, --all                report every process, not only the demo's commands\n"
		"  -b, --buffer-pages N     ring size per CPU in pages, a power of two (default 64)\n"
		"      --wakeup-bytes N     wake the reader when N bytes wait in a ring (default 4096)\n"
		"      --wakeup-events N    wake the reader every N records instead\n"
		"      --max-delay-ms MS    deliver records at most MS ms after they were written\n"
		"                           even below the wakeup threshold (default 100; 0: no bound)\n"
		"  -v, --verbose            show libbpf's and perfring's log messages\n"
		"  -h, --help               show this help\n\n"
		"Exit status: 0 on success, 1 when the demo cannot run (e.g. not root, no BPF),\n"
		"2 for a bad command line.\n",
		TOOL_NAME);
}

enum { OPT_WAKEUP_BYTES = 256, OPT_WAKEUP_EVENTS, OPT_MAX_DELAY };

static int demo_parse(int argc, char **argv, struct demo_opts *o)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' },
		{ "buffer-pages", required_argument, NULL, 'b' },
		{ "wakeup-bytes", required_argument, NULL, OPT_WAKEUP_BYTES },
		{ "wakeup-events", required_argument, NULL, OPT_WAKEUP_EVENTS },
		{ "max-delay-ms", required_argument, NULL, OPT_MAX_DELAY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;

	*o = (struct demo_opts){ .duration_s = 3.0, .max_delay_ms = 100 };
	opterr = 0; /* our own one-line messages */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":d:qab:vh", longopts, &idx)) != -1) {
		switch (c) {
		case 'd':
			if (!tool_parse_seconds(optarg, 0.1, 86400, &o->duration_s))
				return tool_usage_error(CMD, "--duration wants seconds between 0.1 and 86400, not '%s'",
							optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'a':
			o->all = true;
			break;
		case 'b':
			if (!tool_parse_u64(optarg, 1, 1u << 20, &o->buffer_pages))
				return tool_usage_error(CMD, "--buffer-pages wants a number of pages, not '%s'", optarg);
			break;
		case OPT_WAKEUP_BYTES:
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &o->wakeup_bytes))
				return tool_usage_error(CMD, "--wakeup-bytes wants a number of bytes, not '%s'", optarg);
			break;
		case OPT_WAKEUP_EVENTS:
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &o->wakeup_events))
				return tool_usage_error(CMD, "--wakeup-events wants a number of records, not '%s'",
							optarg);
			break;
		case OPT_MAX_DELAY:
			if (!tool_parse_u64(optarg, 0, 3600 * 1000, &o->max_delay_ms))
				return tool_usage_error(CMD, "--max-delay-ms wants milliseconds, not '%s'", optarg);
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			cmd_demo_usage(stdout);
			return -1;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (o->wakeup_bytes && o->wakeup_events)
		return tool_usage_error(CMD, "give --wakeup-bytes or --wakeup-events, not both");
	return 0;
}

static void demo_note_child(struct demo_state *st, const struct demo_event *e)
{
	struct demo_child *c = demo_workload_find(st->w, (pid_t)e->pid);

	if (!c)
		return;
	if (e->type == DEMO_EXEC)
		c->seen_exec = true;
	else if (e->type == DEMO_EXIT) {
		c->seen_exit = true;
		c->event_status = e->value;
	}
}

static int demo_on_event(const struct perfring_event *ev, void *ctx)
{
	struct demo_state *st = ctx;
	uint64_t now = tool_now_ns(), delay;
	struct demo_event e;
	char detail[256];

	if (ev->kind == PERFRING_EVENT_LOST) {
		st->lost += ev->lost;
		if (!st->opts->quiet)
			printf("%10.6f %3d  %-5s %llu records lost (ring full)\n", (now - st->start_ns) / 1e9, ev->cpu,
			       "LOST", (unsigned long long)ev->lost);
		return PERFRING_CONTINUE;
	}
	if (ev->kind != PERFRING_EVENT_SAMPLE)
		return PERFRING_CONTINUE;
	if (!demo_event_decode(ev, &e)) {
		st->malformed++;
		return PERFRING_CONTINUE;
	}
	st->samples++;
	if (e.type < sizeof(st->by_type) / sizeof(st->by_type[0]))
		st->by_type[e.type]++;
	delay = now > e.time_ns ? now - e.time_ns : 0;
	st->delay_sum_ns += delay;
	if (delay > st->delay_max_ns)
		st->delay_max_ns = delay;
	demo_note_child(st, &e);
	if (st->opts->quiet)
		return PERFRING_CONTINUE;
	demo_event_detail(&e, detail, sizeof(detail));
	printf("%10.6f %3d  %-5s %7u %7u  %-16s %s\n",
	       e.time_ns > st->start_ns ? (e.time_ns - st->start_ns) / 1e9 : 0.0, ev->cpu, demo_event_type_name(e.type),
	       e.pid, e.ppid, e.comm, detail);
	return PERFRING_CONTINUE;
}

static void demo_log(enum perfring_log_level level, const char *msg, void *ctx)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	(void)ctx;
	fprintf(stderr, "libperfring %s: %s\n", names[level <= PERFRING_LOG_DEBUG ? level : PERFRING_LOG_DEBUG], msg);
}

static void demo_print_policy(struct perfring_reader *rd, const struct perfring_reader_opts *ro)
{
	size_t bytes = perfring_reader_buffer_size(rd);
	int i, n = perfring_reader_ring_cnt(rd), skipped[64], nskipped;
	char size[32];

	printf("reader: %d ring%s (cpu", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		printf("%s%d", i ? "," : " ", perfring_reader_ring_cpu(rd, i));
	printf("), %zu pages = %s per CPU\n", bytes / perfring_page_size(), tool_fmt_bytes(bytes, size, sizeof(size)));
	if (ro->wakeup_events)
		printf("policy: wake the reader every %u records", ro->wakeup_events);
	else
		printf("policy: wake the reader when %u bytes wait in a ring (watermark)", ro->wakeup_bytes);
	if (ro->max_delay_ns)
		printf(", or %llu ms after a record was written at the latest\n",
		       (unsigned long long)(ro->max_delay_ns / 1000000));
	else
		printf(", with no bound on the delay\n");
	nskipped = perfring_reader_skipped_cpus(rd, skipped, 64);
	for (i = 0; i < nskipped && i < 64; i++)
		printf("note: cpu %d has no ring (offline or beyond the map)\n", skipped[i]);
}

static void demo_summary(struct demo_state *st, struct perfring_reader *rd, const struct demo_bpf *skel,
			 uint64_t end_ns)
{
	struct perfring_ring_stats rs, total = { 0 };
	uint64_t sent, failed;
	double secs = (end_ns - st->start_ns) / 1e9;
	size_t i, exec_seen = 0, exit_seen = 0, status_ok = 0;
	int n = perfring_reader_ring_cnt(rd), r;
	char size[32];

	for (r = 0; r < n; r++) {
		if (perfring_reader_stats(rd, r, &rs) == 0) {
			total.records += rs.records;
			total.bytes += rs.bytes;
			total.lost += rs.lost;
		}
	}
	if (!st->opts->quiet)
		printf("\n");
	printf("summary: %llu records (%s), %llu lost, in %.2f s: %.1f records/s\n",
	       (unsigned long long)total.records, tool_fmt_bytes(total.bytes, size, sizeof(size)),
	       (unsigned long long)total.lost, secs, secs > 0 ? total.records / secs : 0.0);
	for (r = 0; r < n; r++) {
		if (perfring_reader_stats(rd, r, &rs) != 0)
			continue;
		printf("  cpu %d: %llu records, %s, %llu lost\n", perfring_reader_ring_cpu(rd, r),
		       (unsigned long long)rs.records, tool_fmt_bytes(rs.bytes, size, sizeof(size)),
		       (unsigned long long)rs.lost);
	}
	printf("  events: %llu exec, %llu exit, %llu openat", (unsigned long long)st->by_type[DEMO_EXEC],
	       (unsigned long long)st->by_type[DEMO_EXIT], (unsigned long long)st->by_type[DEMO_OPEN]);
	if (st->malformed)
		printf(", %llu malformed", (unsigned long long)st->malformed);
	printf("\n");
	demo_bpf_counts(skel, &sent, &failed);
	printf("  program: %llu events sent, %llu failed (ring full)\n", (unsigned long long)sent,
	       (unsigned long long)failed);
	if (st->samples)
		printf("  delivery: %llu wakeups, %.1f records each; delay mean %.1f ms, max %.1f ms\n",
		       (unsigned long long)st->batches, st->batches ? (double)st->samples / st->batches : 0.0,
		       st->delay_sum_ns / 1e6 / st->samples, st->delay_max_ns / 1e6);
	for (i = 0; i < st->w->nchildren; i++) {
		const struct demo_child *c = &st->w->children[i];

		exec_seen += c->seen_exec;
		exit_seen += c->seen_exit;
		status_ok += c->reaped && c->seen_exit && c->event_status == c->wait_status;
	}
	printf("  workload: %zu commands, exec seen for %zu, exit seen for %zu, exit status matching waitpid for %zu\n",
	       st->w->nchildren, exec_seen, exit_seen, status_ok);
}

/* Deliver everything written so far: flush, then poll until the reader
 * reports that the flush is complete. */
static int demo_drain(struct perfring_reader *rd, struct demo_state *st)
{
	uint64_t deadline = tool_now_ns() + DEMO_DRAIN_NS;
	int ret;

	perfring_reader_flush(rd);
	for (;;) {
		ret = perfring_reader_poll(rd, (int64_t)DEMO_TICK_NS, demo_on_event, st);
		if (ret > 0)
			st->batches++;
		if (ret == -PERFRING_EFLUSHED)
			return 0;
		if (ret < 0 && ret != -ETIMEDOUT && ret != -EINTR)
			return ret;
		if (tool_now_ns() > deadline)
			return -ETIMEDOUT;
	}
}

static int demo_run(const struct demo_opts *o, struct perfring_reader *rd, struct demo_workload *w,
		    struct demo_state *st)
{
	uint64_t end_ns = st->start_ns + (uint64_t)(o->duration_s * 1e9);
	uint64_t next_spawn = st->start_ns, now, wait;
	int ret;

	for (;;) {
		now = tool_now_ns();
		if (demo_stop)
			break;
		if (now >= next_spawn && now < end_ns) {
			ret = demo_workload_spawn(w);
			if (ret && o->verbose)
				tool_error(CMD, "starting a command failed: %s", strerror(-ret));
			next_spawn += DEMO_SPAWN_NS;
		}
		demo_workload_reap(w, false);
		if (now >= end_ns && !w->running)
			break;
		wait = now < end_ns && next_spawn > now ? next_spawn - now : DEMO_TICK_NS;
		if (wait > DEMO_TICK_NS)
			wait = DEMO_TICK_NS;
		ret = perfring_reader_poll(rd, (int64_t)wait, demo_on_event, st);
		if (ret > 0)
			st->batches++;
		else if (ret < 0 && ret != -ETIMEDOUT && ret != -EINTR) {
			return tool_error(CMD, "reading the rings failed: %s",
					  *perfring_errmsg() ? perfring_errmsg() : perfring_strerror(ret));
		}
	}
	if (demo_stop)
		demo_workload_kill(w, SIGTERM);
	demo_workload_reap(w, true);
	ret = demo_drain(rd, st);
	if (ret)
		return tool_error(CMD, "draining the rings failed: %s", perfring_strerror(ret));
	return EXIT_OK;
}

int cmd_demo(int argc, char **argv)
{
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts);
	struct perfring_reader *rd = NULL;
	struct demo_workload w;
	struct demo_state st;
	struct demo_bpf *skel;
	struct demo_opts o;
	struct sigaction sa;
	bool mounted = false;
	char err[512];
	int ret;

	ret = demo_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (o.verbose)
		perfring_set_log(demo_log, PERFRING_LOG_INFO, NULL);

	/* The batching policy: a watermark, and a bound on how long a record
	 * may wait below it. */
	ro.buffer_pages = o.buffer_pages;
	ro.max_sample_size = sizeof(struct demo_event);
	ro.max_delay_ns = o.max_delay_ms * 1000000ull;
	if (o.wakeup_events)
		ro.wakeup_events = (uint32_t)o.wakeup_events;
	else if (o.wakeup_bytes)
		ro.wakeup_bytes = (uint32_t)o.wakeup_bytes;
	else if (o.buffer_pages && o.buffer_pages * perfring_page_size() <= 4096)
		ro.wakeup_bytes = (uint32_t)(o.buffer_pages * perfring_page_size() / 2);
	else
		ro.wakeup_bytes = 4096;

	skel = demo_load(o.all ? 0 : (uint32_t)getpid(), o.verbose, &mounted, err, sizeof(err));
	if (!skel)
		return tool_error(CMD, "%s", err);
	rd = perfring_reader_new_bpf(demo_events_fd(skel), &ro);
	if (!rd) {
		ret = errno;
		tool_error(CMD, "creating the reader failed: %s",
			   *perfring_errmsg() ? perfring_errmsg() : strerror(ret));
		demo_unload(skel);
		return EXIT_ERROR;
	}
	ret = demo_workload_init(&w);
	if (ret) {
		ret = tool_error(CMD, "creating a temporary file in /tmp failed: %s", strerror(-ret));
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = demo_on_signal; /* no SA_RESTART: a blocked poll returns early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!o.quiet) {
		if (mounted)
			printf("note: mounted tracefs at /sys/kernel/tracing (attaching tracepoints needs it)\n");
		printf("perfring demo: exec, exit and openat of %s, for %.1f s\n",
		       o.all ? "every process" : "the commands this demo runs", o.duration_s);
		printf("workload (pid %d), in turn:", (int)getpid());
		for (int i = 0; i < DEMO_WORKLOAD_NCMDS; i++) {
			char cmdline[256];

			printf("%s %s", i ? "," : "", demo_workload_cmdline(&w, i, cmdline, sizeof(cmdline)));
		}
		printf("\n");
		demo_print_policy(rd, &ro);
		printf("\n%10s %3s  %-5s %7s %7s  %-16s %s\n", "TIME(s)", "CPU", "EVENT", "PID", "PPID", "COMM",
		       "DETAIL");
	}
	fflush(stdout);

	memset(&st, 0, sizeof(st));
	st.opts = &o;
	st.w = &w;
	st.start_ns = tool_now_ns();
	ret = demo_run(&o, rd, &w, &st);
	if (demo_stop && !o.quiet)
		printf("(interrupted)\n");
	demo_summary(&st, rd, skel, tool_now_ns());
	if (ret == EXIT_OK && w.nchildren && !st.by_type[DEMO_EXEC])
		ret = tool_error(CMD, "no exec event arrived: the BPF program or the reader is not working");
	demo_workload_fini(&w);
out:
	perfring_reader_free(rd);
	demo_unload(skel);
	return ret;
}

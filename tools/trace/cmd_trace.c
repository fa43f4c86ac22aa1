// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring trace`: any tracepoints, through one generic BPF program and a
 * perf event array, read by perfring's reader and decoded from the
 * tracepoints' formats. Without -e and without a command it traces a small
 * built-in workload (exec, exit, openat): the README's first command.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "trace/workload.h"
#include "shared/command.h"
#include "shared/reader_opts.h"
#include "shared/tool.h"
#include "trace/trace_emit.h"
#include "trace/trace_load.h"
#include "trace/trace_stats.h"

#define CMD "trace"

/* The longest the loop blocks: how quickly a signal or the end is noticed. */
#define TRACE_TICK_NS 100000000ull
#define TRACE_STATUS_NS 1000000000ull
#define TRACE_DRAIN_NS 2000000000ull
/* The built-in workload starts a command this often. */
#define TRACE_SPAWN_NS 150000000ull
#define TRACE_MAX_PIDS 64

static const char *const default_events[] = {
	"sched:sched_process_exec",
	"sched:sched_process_exit",
	"syscalls:sys_enter_execve",
	"syscalls:sys_enter_openat",
};

struct trace_opts {
	const char *events[256];
	size_t nevents;
	uint32_t pids[TRACE_MAX_PIDS];
	size_t npids;
	const char *comm;
	double duration_s; /* 0: until Ctrl-C or the command ends */
	bool json, quiet, verbose, list;
	bool ringbuf;      /* --ringbuf: through a BPF ring buffer */
	struct tool_reader_opts rd; /* ring size, wakeups, delay bound, CPUs */
	uint64_t order_window_ms; /* 0 (--no-order): each CPU's events in turn */
	char **command;    /* after --, NULL: none */
	bool builtin;      /* no events, no command: the built-in workload */
};

struct trace_run {
	const struct trace_opts *o;
	const struct trace_formats *tf;
	struct trace_emit out;
	struct trace_stats st;
	struct trace_bpf *skel;
	struct workload *w; /* the built-in workload, or NULL */
	const struct trace_tp *exec_tp, *exit_tp;
	pid_t child;               /* the command, or 0 */
	int child_status;
	bool child_done;
	bool write_failed;
};

static volatile sig_atomic_t trace_stop;

static void trace_on_signal(int sig)
{
	(void)sig;
	trace_stop = 1;
}

void cmd_trace_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s trace [OPTIONS] [-e TRACEPOINT]... [-- COMMAND [ARG]...]\n\n"
		"Trace tracepoints: one BPF program copies each event's record into a perf event\n"
		"array, perfring reads the rings and decodes the fields from the tracepoint's\n"
		"format in tracefs (integers, arrays, strings, pointers; the strings a syscall's\n"
		"arguments point to, such as file names and exec arguments, are read at the\n"
		"event). Prints one line per event and a summary on stderr. Needs root.\n\n"
		"With no -e the events are sched:sched_process_exec, sched:sched_process_exit,\n"
		"syscalls:sys_enter_execve and syscalls:sys_enter_openat. With neither -e nor a\n"
		"COMMAND, a small built-in workload runs for 3 seconds and only it is traced.\n\n"
		"Options:\n"
		"  -e, --event SYS:NAME     a tracepoint; NAME and SYS may be globs\n"
		"                           (syscalls:sys_enter_open*); repeat for more\n"
		"  -l, --list               list the tracepoints the -e options match (all\n"
		"                           without -e), one SYS:NAME a line, and exit\n"
		"  -p, --pid PID[,PID...]   only these processes (thread group ids)\n"
		"      --comm NAME          only tasks whose command name (comm) is NAME\n"
		"  -C, --cpu LIST           only these CPUs, e.g. 0,2-3\n"
		"  -d, --duration SEC       stop after SEC seconds (default: at Ctrl-C, or when\n"
		"                           COMMAND exits; 3 for the built-in workload)\n"
		"  -- COMMAND [ARG]...      run COMMAND and trace it and its children only\n"
		"  -j, --json               one JSON object per event, fields typed\n"
		"  -q, --quiet              no events, only the summary\n"
		"  -b, --buffer-pages N     ring size per CPU in pages, a power of two (default 256)\n"
		"      --wakeup-bytes N     wake the reader when N bytes wait in a ring\n"
		"                           (default: a quarter of the ring)\n"
		"      --wakeup-events N    wake the reader every N events instead\n"
		"      --max-delay-ms MS    deliver an event at most MS ms after it happened even\n"
		"                           below the wakeup threshold (default 100; 0: no bound)\n"
		"      --order-window-ms MS events of all CPUs come out in time order, each held\n"
		"                           until MS ms older than the newest seen (default 10;\n"
		"                           adds up to MS ms to the delay)\n"
		"      --no-order           print each CPU's events in turn, as they are read\n"
		"      --ringbuf            send the events through one BPF ring buffer\n"
		"                           (BPF_MAP_TYPE_RINGBUF, --buffer-pages times the CPUs,\n"
		"                           rounded up to a power of two) instead of the perf\n"
		"                           event array; the same output\n"
		"  -v, --verbose            show libbpf's and perfring's log messages\n"
		"  -h, --help               show this help\n\n"
		"Ctrl-C (SIGINT) or SIGTERM stops after the events already in the rings are\n"
		"printed. On a terminal a status line on stderr shows events/s, lost events and\n"
		"each CPU's backlog. Exit status: 0 on success, 1 when tracing cannot run (not\n"
		"root, an unknown tracepoint), 2 for a bad command line.\n",
		TOOL_NAME);
}

enum { OPT_COMM = 256, OPT_ORDER_WINDOW, OPT_NO_ORDER, OPT_RINGBUF };

static int parse_pids(const char *arg, struct trace_opts *o)
{
	char buf[1024], *tok, *save = NULL;
	uint64_t v;

	if (strlen(arg) >= sizeof(buf))
		return tool_usage_error(CMD, "--pid: list too long");
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!tool_parse_u64(tok, 1, 0x3fffffff, &v))
			return tool_usage_error(CMD, "--pid wants process ids, not '%s'", tok);
		if (o->npids == TRACE_MAX_PIDS)
			return tool_usage_error(CMD, "--pid: at most %d processes", TRACE_MAX_PIDS);
		if (kill((pid_t)v, 0) != 0 && errno == ESRCH)
			return tool_usage_error(CMD, "--pid %llu: no such process", (unsigned long long)v);
		o->pids[o->npids++] = (uint32_t)v;
	}
	if (!o->npids)
		return tool_usage_error(CMD, "--pid wants process ids, not '%s'", arg);
	return 0;
}

static int trace_parse(int argc, char **argv, struct trace_opts *o)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "list", no_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		TOOL_READER_LONGOPTS,
		{ "order-window-ms", required_argument, NULL, OPT_ORDER_WINDOW },
		{ "no-order", no_argument, NULL, OPT_NO_ORDER },
		{ "ringbuf", no_argument, NULL, OPT_RINGBUF },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx, ret;

	memset(o, 0, sizeof(*o));
	tool_reader_opts_init(&o->rd, 256);
	o->order_window_ms = 10;
	opterr = 0; /* our own one-line messages */
	optind = 1;
	/* '+': stop at the first non-option, so COMMAND's own options are its own. */
	while ((c = getopt_long(argc, argv, "+:e:lp:" TOOL_READER_SHORTOPTS "d:jqvh", longopts, &idx)) != -1) {
		ret = tool_reader_opt(CMD, c, optarg, &o->rd);
		if (ret != 1) {
			if (ret)
				return ret;
			continue;
		}
		switch (c) {
		case 'e':
			if (o->nevents == sizeof(o->events) / sizeof(o->events[0]))
				return tool_usage_error(CMD, "too many -e options");
			o->events[o->nevents++] = optarg;
			break;
		case 'l':
			o->list = true;
			break;
		case 'p':
			ret = parse_pids(optarg, o);
			if (ret)
				return ret;
			break;
		case OPT_COMM:
			if (!*optarg || strlen(optarg) >= TRACE_COMM_LEN)
				return tool_usage_error(CMD, "--comm wants a command name of 1 to %d characters, not '%s'",
							TRACE_COMM_LEN - 1, optarg);
			o->comm = optarg;
			break;
		case 'd':
			if (!tool_parse_seconds(optarg, 0.01, 86400 * 365, &o->duration_s))
				return tool_usage_error(CMD, "--duration wants seconds (0.01 or more), not '%s'", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_ORDER_WINDOW:
			if (!tool_parse_u64(optarg, 1, 3600 * 1000, &o->order_window_ms))
				return tool_usage_error(CMD, "--order-window-ms wants milliseconds (1 or more), not '%s'",
							optarg);
			break;
		case OPT_NO_ORDER:
			o->order_window_ms = 0;
			break;
		case OPT_RINGBUF:
			o->ringbuf = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			cmd_trace_usage(stdout);
			return -1;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc) {
		/* getopt leaves "--" out; anything left is the command. */
		if (strcmp(argv[optind - 1], "--") != 0)
			return tool_usage_error(CMD, "unexpected argument '%s' (a command goes after --)", argv[optind]);
		o->command = &argv[optind];
	} else if (strcmp(argv[optind - 1], "--") == 0 && optind > 1) {
		return tool_usage_error(CMD, "-- must be followed by a command");
	}
	ret = tool_reader_opts_check(CMD, &o->rd);
	if (ret)
		return ret;
	if (o->command && o->npids)
		return tool_usage_error(CMD, "give --pid or a command, not both");
	if (o->list && o->command)
		return tool_usage_error(CMD, "--list takes no command");
	o->builtin = !o->nevents && !o->command;
	if (o->builtin && o->npids)
		o->builtin = false; /* default events for these processes */
	if (o->builtin && !o->duration_s)
		o->duration_s = 3.0;
	return 0;
}

static int on_event(const struct perfring_msg *ev, void *ctx)
{
	struct trace_run *run = ctx;
	struct trace_sample s;
	const char *why;
	uint64_t now = tool_now_ns();
	size_t size = ev->size, unread;
	int cpu = ev->cpu;
	uint32_t rb_cpu;

	if (ev->kind == PERFRING_MSG_LOST) {
		/* Events the program already counted as lost, reported again. */
		trace_stats_reported(&run->st, ev->cpu, ev->lost);
		if (!run->o->quiet)
			trace_emit_lost(&run->out, ev->cpu, ev->lost, now, false);
		return PERFRING_CONTINUE;
	}
	if (ev->kind != PERFRING_MSG_SAMPLE)
		return PERFRING_CONTINUE;
	if (run->o->ringbuf && ev->size >= 4) {
		/* The program appends the CPU to each ring buffer sample. */
		memcpy(&rb_cpu, (const char *)ev->data + ev->size - 4, sizeof(rb_cpu));
		cpu = (int)rb_cpu;
		size = ev->size - 4;
	}
	/* The reader linearizes (opts.linearize): one span. */
	if (trace_sample_parse(run->tf, ev->data, size, &s, &why)) {
		trace_stats_sample(&run->st, cpu, 0);
		run->st.malformed++;
		if (run->o->verbose)
			tool_error(CMD, "cpu %d: a malformed sample of %zu bytes: %s", cpu, size, why);
		return PERFRING_CONTINUE;
	}
	unread = trace_sample_unread(&s);
	trace_stats_sample(&run->st, cpu, unread);
	trace_stats_event(&run->st, (size_t)(s.tp - trace_formats_get(run->tf, 0)),
			  now > s.hdr.time_ns ? now - s.hdr.time_ns : 0);
	if (run->w && (s.tp == run->exec_tp || (s.tp == run->exit_tp && s.hdr.pid == s.hdr.tid))) {
		struct workload_child *c = workload_find(run->w, (pid_t)s.hdr.pid);

		if (c && s.tp == run->exec_tp)
			c->seen_exec = true;
		else if (c)
			c->seen_exit = true;
	}
	if (!run->o->quiet)
		trace_emit_event(&run->out, &s, cpu, unread);
	return PERFRING_CONTINUE;
}

static int poll_once(struct perfring_reader *rd, struct trace_run *run, uint64_t wait_ns)
{
	int ret = perfring_reader_poll(rd, (int64_t)wait_ns, on_event, run);

	if (ret > 0)
		run->st.batches++;
	if (fflush(stdout) != 0 && !run->write_failed) {
		run->write_failed = true; /* e.g. `| head` went away: stop */
		trace_stop = 1;
	}
	if (ret < 0 && ret != -ETIMEDOUT && ret != -EINTR && ret != -PERFRING_EFLUSHED)
		return tool_error(CMD, "reading the rings failed: %s",
				  *perfring_errmsg() ? perfring_errmsg() : perfring_strerror(ret));
	return ret == -PERFRING_EFLUSHED ? -1 : 0;
}

/* Deliver everything written so far: flush, then poll until the reader
 * reports the flush complete. */
static int trace_drain(struct perfring_reader *rd, struct trace_run *run)
{
	uint64_t deadline = tool_now_ns() + TRACE_DRAIN_NS;
	int ret;

	perfring_reader_flush(rd);
	for (;;) {
		ret = poll_once(rd, run, TRACE_TICK_NS);
		if (ret < 0)
			return 0;
		if (ret > 0)
			return ret;
		if (tool_now_ns() > deadline)
			return tool_error(CMD, "draining the rings did not finish in %llu ms",
					  (unsigned long long)(TRACE_DRAIN_NS / 1000000));
	}
}

static void reap_child(struct trace_run *run, bool block)
{
	int status;

	if (!run->child || run->child_done)
		return;
	if (waitpid(run->child, &status, block ? 0 : WNOHANG) == run->child) {
		run->child_done = true;
		run->child_status = status;
	}
}

static int trace_loop(struct perfring_reader *rd, struct trace_run *run, bool status_line)
{
	const struct trace_opts *o = run->o;
	uint64_t start = run->st.start_ns, now, wait, next_spawn = start;
	uint64_t end = o->duration_s ? start + (uint64_t)(o->duration_s * 1e9) : UINT64_MAX;
	uint64_t next_status = start + TRACE_STATUS_NS;
	int ret;

	for (;;) {
		now = tool_now_ns();
		if (trace_stop)
			break;
		if (run->w) {
			if (now >= next_spawn && now < end) {
				ret = workload_spawn(run->w);
				if (ret && o->verbose)
					tool_error(CMD, "starting a command failed: %s", strerror(-ret));
				next_spawn += TRACE_SPAWN_NS;
			}
			workload_reap(run->w, false);
			if (now >= end && !run->w->running)
				break;
		} else if (now >= end) {
			break;
		}
		reap_child(run, false);
		if (run->child && run->child_done)
			break;
		if (status_line && now >= next_status) {
			trace_counts_read(run->skel, run->st.prog, run->st.ncpus); /* the lost figure */
			trace_stats_status(&run->st, rd, stderr, now);
			next_status = now + TRACE_STATUS_NS;
		}
		wait = TRACE_TICK_NS;
		if (run->w && next_spawn > now && next_spawn - now < wait)
			wait = next_spawn - now;
		if (end != UINT64_MAX && end > now && end - now < wait)
			wait = end - now;
		ret = poll_once(rd, run, wait);
		if (ret > 0)
			return ret;
	}
	if (run->w) {
		if (trace_stop)
			workload_kill(run->w, SIGTERM);
		workload_reap(run->w, true);
	}
	if (status_line)
		trace_stats_status_clear(stderr);
	/* No event after this one is counted or sent: the drain then reads
	 * all that was, and the counters add up. */
	trace_quiesce(run->skel);
	return trace_drain(rd, run);
}

/*
 * The program's final counters, and the losses no LOST record reported
 * (a ring full to the end reports nothing more) as lost lines of their own,
 * so that the lost lines of the output add up to the summary's figure.
 */
static void trace_final_counts(struct trace_run *run)
{
	uint64_t now = tool_now_ns(), n;
	int c, ret;

	ret = trace_counts_read(run->skel, run->st.prog, run->st.ncpus);
	if (ret) {
		tool_error(CMD, "reading the program's counters failed: %s", strerror(-ret));
		return;
	}
	if (run->o->quiet || run->write_failed)
		return;
	if (run->o->ringbuf) {
		/* The ring buffer's notices name no CPU. */
		n = trace_stats_unreported(&run->st, -1);
		if (n)
			trace_emit_lost(&run->out, -1, n, now, true);
	} else {
		for (c = 0; c < run->st.ncpus; c++) {
			n = trace_stats_unreported(&run->st, c);
			if (n)
				trace_emit_lost(&run->out, c, n, now, true);
		}
	}
	fflush(stdout);
}

static void reader_opts(const struct trace_opts *o, struct perfring_reader_opts *ro)
{
	/* The batching policy: a watermark at a quarter of the ring, and a
	 * bound on how long an event may wait below it. */
	tool_reader_opts_apply(&o->rd, ro, (uint32_t)(tool_reader_ring_bytes(&o->rd) / 4));
	ro->linearize = true; /* the decoder wants each sample in one piece */
	/* All CPUs in time order, by the bpf_ktime_get_ns() of the header. */
	ro->order_window_ns = o->order_window_ms * 1000000ull;
	ro->order_time_offset = offsetof(struct trace_sample_hdr, time_ns);
}

/* --ringbuf: the one ring buffer, its losses from the program's lost map.
 * The CPU filter runs in the program; the wakeups are the ring buffer's. */
static struct perfring_reader *ringbuf_reader(struct trace_bpf *skel, const struct perfring_reader_opts *ro)
{
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .max_delay_ns = ro->max_delay_ns);
	struct perfring_ringbuf_opts rbo = PERFRING_OPTS_INIT(perfring_ringbuf_opts,
							      .lost_map_fd = trace_rb_lost_fd(skel));
	struct perfring_reader *rd = perfring_reader_new(&o);
	int ret;

	if (!rd)
		return NULL;
	ret = perfring_reader_add_ringbuf(rd, trace_events_rb_fd(skel), &rbo);
	if (ret < 0) {
		perfring_reader_free(rd);
		errno = -ret;
		return NULL;
	}
	return rd;
}

/* The ring buffer's size: the perf rings' total, a power of two. */
static uint32_t ringbuf_bytes(const struct trace_opts *o)
{
	uint64_t want = tool_reader_ring_bytes(&o->rd) * (uint64_t)sysconf(_SC_NPROCESSORS_ONLN), n = 1;

	while (n < want && n < (1ull << 30))
		n <<= 1;
	return (uint32_t)n;
}

static void print_workload_check(const struct workload *w)
{
	size_t i, exec_seen = 0, exit_seen = 0;

	for (i = 0; i < w->nchildren; i++) {
		exec_seen += w->children[i].seen_exec;
		exit_seen += w->children[i].seen_exit;
	}
	fprintf(stderr, "  workload: %zu commands run, exec seen for %zu, exit seen for %zu\n", w->nchildren,
		exec_seen, exit_seen);
}

static int trace_events(struct trace_formats *tf, const struct trace_opts *o, char *err, size_t errlen)
{
	size_t i;

	if (!o->nevents) {
		for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
			if (trace_formats_add(tf, default_events[i], err, errlen) < 0)
				return -1;
		return 0;
	}
	for (i = 0; i < o->nevents; i++)
		if (trace_formats_add(tf, o->events[i], err, errlen) < 0)
			return -1;
	return 0;
}

static int list_events(struct trace_formats *tf, const struct trace_opts *o, char *err, size_t errlen)
{
	size_t i;

	if (!o->nevents)
		return trace_formats_list(tf, NULL, stdout, err, errlen);
	for (i = 0; i < o->nevents; i++)
		if (trace_formats_list(tf, o->events[i], stdout, err, errlen) < 0)
			return -1;
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts);
	struct trace_filters filt = { 0 };
	struct perfring_reader *rd = NULL;
	struct trace_formats *tf = NULL;
	struct trace_bpf *skel = NULL;
	struct workload w;
	struct trace_run run;
	struct trace_opts o;
	struct sigaction sa;
	struct tool_command command = { .go_fd = -1, .err_fd = -1 };
	int ret, width = 5;
	bool status_line, have_workload = false, mounted = false;
	char err[1024];
	size_t i;

	ret = trace_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (o.verbose)
		perfring_set_log(tool_log_to_stderr, PERFRING_LOG_INFO, NULL);
	memset(&run, 0, sizeof(run));
	run.o = &o;

	tf = trace_formats_new();
	if (!tf)
		return tool_error(CMD, "out of memory");
	if (!trace_formats_tracefs(tf, &mounted, err, sizeof(err))) {
		ret = tool_error(CMD, "%s", err);
		goto out;
	}
	if (mounted && !o.quiet)
		fprintf(stderr, "note: mounted tracefs at %s\n", trace_formats_tracefs(tf, NULL, err, sizeof(err)));
	if (o.list) {
		ret = list_events(tf, &o, err, sizeof(err)) ? tool_error(CMD, "%s", err) : EXIT_OK;
		goto out;
	}
	if (trace_events(tf, &o, err, sizeof(err))) {
		ret = tool_error(CMD, "%s", err);
		goto out;
	}
	run.tf = tf;

	filt.exclude_tgid = (uint32_t)getpid();
	if (o.ringbuf)
		filt.ringbuf_bytes = ringbuf_bytes(&o);
	if (o.npids)
		filt.flags |= TRACE_FILTER_PID;
	if (o.command || o.builtin)
		filt.flags |= TRACE_FILTER_PID | TRACE_FILTER_FOLLOW;
	if (o.comm) {
		filt.flags |= TRACE_FILTER_COMM;
		filt.comm = o.comm;
	}
	if (o.rd.ncpus > 0) {
		filt.flags |= TRACE_FILTER_CPU;
		filt.cpus = o.rd.cpus;
		filt.ncpus = (size_t)o.rd.ncpus;
	}
	skel = trace_load(&filt, o.verbose, err, sizeof(err));
	if (!skel) {
		ret = tool_error(CMD, "%s", err);
		goto out;
	}
	run.skel = skel;
	for (i = 0; i < o.npids; i++)
		trace_add_pid(skel, o.pids[i]);
	if (o.builtin)
		trace_add_pid(skel, (uint32_t)getpid()); /* its children: the workload */

	reader_opts(&o, &ro);
	ro.max_sample_size = TRACE_SAMPLE_MAX;
	rd = o.ringbuf ? ringbuf_reader(skel, &ro) : perfring_reader_new_bpf(trace_events_fd(skel), &ro);
	if (!rd) {
		ret = errno;
		ret = tool_error(CMD, "creating the reader failed: %s", *perfring_errmsg() ? perfring_errmsg() : strerror(ret));
		goto out;
	}
	if (o.command) {
		ret = tool_command_fork(o.command, &command);
		if (ret) {
			ret = tool_error(CMD, "starting %s failed: %s", o.command[0], strerror(-ret));
			goto out;
		}
		run.child = command.pid;
		trace_add_pid(skel, (uint32_t)run.child);
	}
	if (trace_attach(skel, tf, err, sizeof(err))) {
		ret = tool_error(CMD, "%s", err);
		goto out;
	}
	if (o.builtin) {
		ret = workload_init(&w);
		if (ret) {
			ret = tool_error(CMD, "creating a temporary file in /tmp failed: %s", strerror(-ret));
			goto out;
		}
		have_workload = true;
		run.w = &w;
		run.exec_tp = trace_formats_get(tf, 0); /* the default events, in order */
		run.exit_tp = trace_formats_get(tf, 1);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = trace_on_signal; /* no SA_RESTART: a blocked poll returns early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed stdout is seen as a write error */

	if (trace_stats_init(&run.st, trace_formats_count(tf), trace_ncpus(), tool_now_ns())) {
		ret = tool_error(CMD, "out of memory");
		goto out;
	}
	run.st.one_ring = o.ringbuf;
	if (o.command) {
		ret = tool_command_release(&command);
		if (ret) {
			reap_child(&run, true);
			run.child = 0;
			ret = tool_error(CMD, "cannot run '%s': %s", o.command[0], strerror(ret));
			goto out_stats;
		}
	}
	for (i = 0; i < trace_formats_count(tf); i++) {
		int n = (int)strlen(trace_formats_get(tf, i)->name);

		width = n > width ? n : width;
	}
	run.out = (struct trace_emit){ .f = stdout, .json = o.json, .name_width = width, .start_ns = run.st.start_ns };
	if (!o.quiet && !o.json) {
		fprintf(stderr, "perfring trace: %zu tracepoint%s", trace_formats_count(tf),
			trace_formats_count(tf) == 1 ? "" : "s");
		if (o.builtin)
			fprintf(stderr, " of a built-in workload (short commands, one every %llu ms) for %.1f s",
				(unsigned long long)(TRACE_SPAWN_NS / 1000000), o.duration_s);
		else if (o.command)
			fprintf(stderr, " of %s (pid %d) and its children", o.command[0], (int)run.child);
		fprintf(stderr, "; Ctrl-C to stop\n");
		trace_emit_header(&run.out);
	}
	fflush(stdout);
	status_line = !o.quiet && isatty(STDERR_FILENO);

	ret = trace_loop(rd, &run, status_line);
	if (trace_stop && !run.write_failed)
		fprintf(stderr, "(interrupted)\n");
	trace_final_counts(&run);
	trace_stats_summary(&run.st, rd, tf, &ro, stderr, tool_now_ns());
	if (have_workload)
		print_workload_check(&w);
	if (run.child && run.child_done) {
		if (WIFEXITED(run.child_status))
			fprintf(stderr, "  command: %s (pid %d) exited with status %d\n", o.command[0], (int)run.child,
				WEXITSTATUS(run.child_status));
		else if (WIFSIGNALED(run.child_status))
			fprintf(stderr, "  command: %s (pid %d) killed by signal %d\n", o.command[0], (int)run.child,
				WTERMSIG(run.child_status));
	}
	if (ret == EXIT_OK && have_workload && w.nchildren && !run.st.events)
		ret = tool_error(CMD, "no event arrived: the BPF program or the reader is not working");
out_stats:
	trace_stats_fini(&run.st);
out:
	if (command.go_fd >= 0) {
		tool_command_abandon(&command); /* it exits without running */
		reap_child(&run, true);
	}
	if (have_workload)
		workload_fini(&w);
	perfring_reader_free(rd);
	trace_unload(skel);
	trace_formats_free(tf);
	return ret;
}

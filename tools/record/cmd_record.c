// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`: open perf events on every online CPU or those of -C
 * (system-wide, for processes or threads, or for a command started here),
 * read their rings with a perfring reader and write every record to a
 * perf.data file that `perf report` and `perf script` read in full, as perf
 * record writes it: the tasks that ran before synthesized from /proc
 * (record_synth.c), a FINISHED_ROUND after each pass over the rings, and the
 * writer's build ids, tracing data and compression.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/event.h>
#include <perfring/perfdata.h>
#include <perfring/perfdata_write.h>

#include "shared/pd_common.h"
#include "record/record_synth.h"
#include "shared/command.h"
#include "shared/targets.h"
#include "shared/tool.h"

#define CMD "record"
#define RECORD_MAX_EVENTS 1024
#define RECORD_MAX_CPUS 1024
#define RECORD_MAX_TASKS 4096
#define RECORD_DEFAULT_HZ 4000
/* Wake the reader when this much waits in a ring, or after RECORD_MAX_DELAY_NS. */
#define RECORD_WATERMARK (64 * 1024)
#define RECORD_MAX_DELAY_NS (100 * 1000 * 1000ULL)
#define RECORD_POLL_NS (100 * 1000 * 1000LL)

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s record [-e EVENT]... [-c PERIOD | -F HZ] [-g | --call-graph fp|dwarf[,SIZE]]\n"
		"                 [-a] [-C CPUS] [-p PID[,PID]... | -t TID[,TID]...] [--switch-events]\n"
		"                 [-z | --compression-level N] [-k CLOCK] [-o FILE] [-- CMD [ARG]...]\n\n"
		"Sample events and write every record of the perf rings to a perf.data file\n"
		"that `perf report` and `perf script` read in full (tracepoint formats, build\n"
		"ids, the tasks that ran before the recording), as `perf record` writes it.\n\n"
		"Options:\n"
		"  -e, --event EVENT      an event to sample (repeatable; default cpu-clock); any\n"
		"                         name perfring_event_parse() knows (see perfring(1)), with\n"
		"                         perf's modifiers: cycles:u, cpu-clock:k; a tracepoint glob\n"
		"                         (sched:sched_process_*: one event per match); a breakpoint\n"
		"                         mem:ADDR[/LEN][:rwx]; cycles without a hardware PMU:\n"
		"                         cpu-clock, as perf\n"
		"  -c, --count PERIOD     sample every PERIOD events\n"
		"  -F, --freq HZ          sample about HZ times a second (default %d, capped by\n"
		"                         /proc/sys/kernel/perf_event_max_sample_rate; max: that)\n"
		"  -g                     record kernel and user call chains (frame pointers)\n"
		"      --call-graph MODE  fp (as -g) or dwarf[,SIZE] (as perf: the kernel's part\n"
		"                         of the chain, user registers, SIZE bytes of user\n"
		"                         stack, default 8192, and the data mappings)\n"
		"  -a, --all-cpus         every task on every CPU (until SIGINT/SIGTERM, or until\n"
		"                         CMD exits)\n"
		"  -C, --cpu CPUS         only these CPUs (e.g. 0,2-3); system-wide without -p/-t\n"
		"  -p, --pid PIDS         these processes (all their threads) and the tasks they\n"
		"                         create, until they exit, CMD exits or SIGINT/SIGTERM\n"
		"  -t, --tid TIDS         these threads only (with -p/-t, CMD is not recorded:\n"
		"                         it sets how long, as perf's -p PID -- sleep 5)\n"
		"      --switch-events    context switch records (PERF_RECORD_SWITCH*)\n"
		"  -z, --compression-level[=N]  zstd-compress the records (level N, default 1;\n"
		"                         attached as perf's: -z5, --compression-level=5)\n"
		"  -k, --clockid CLOCK    sample times on CLOCK (monotonic, monotonic_raw,\n"
		"                         realtime, boottime, tai, mono, raw, real, boot or a\n"
		"                         number), with the CLOCKID and CLOCK_DATA features that\n"
		"                         tie it to wall-clock time (perf script -F tod)\n"
		"  -- CMD [ARG]...        start CMD and record it and its children until it exits\n"
		"  -o, --output FILE      the perf.data file to write (default perf.data); an\n"
		"                         existing one, not empty, is kept as FILE.old; -: pipe\n"
		"                         mode on standard output, as perf's (not with -z)\n"
		"  -h, --help             show this help\n\n"
		"Exit status: 0 when a complete file was written (also after SIGINT/SIGTERM, and\n"
		"whatever CMD's status, which is printed), 1 when events cannot be opened, CMD\n"
		"cannot run (no file is written then) or the file written, 2 for a bad command\n"
		"line.\n",
		TOOL_NAME, RECORD_DEFAULT_HZ);
}

struct record_event {
	const char *name; /* the spec opened */
	struct perf_event_attr attr;
	uint64_t *ids; /* [task * ncpu + cpu] */
	int *fds;
	bool tracepoint;
	bool own_period; /* tracepoints, breakpoints: every hit unless -c/-F, as perf */
	char *user_name; /* "NAME:u" when the kernel part was refused */
	char *spec, *shown; /* from perfring_event_expand(): the spec, perf's name */
	char *clock_name; /* "cpu-clock[:MODIFIERS]" for cycles without a PMU */
};

struct record_events {
	struct record_event *ev;
	int n;
};

/* perfring_event_expand()'s callback: one event of an -e argument. */
static int record_add_event(const char *spec, const char *shown, void *ctx)
{
	struct record_events *re = ctx;
	struct record_event *e;

	if (re->n == RECORD_MAX_EVENTS)
		return -E2BIG;
	e = &re->ev[re->n];
	e->spec = strdup(spec);
	e->shown = strdup(shown);
	if (!e->spec || !e->shown) {
		free(e->spec);
		free(e->shown);
		e->spec = e->shown = NULL;
		return -ENOMEM;
	}
	e->name = e->spec;
	re->n++;
	return 0;
}

/* The events of -e ARG (a tracepoint glob: one per match, as perf); the
 * exit status of the error, or 0. */
static int record_add_events(struct record_event *events, int *nev, const char *arg)
{
	struct record_events re = { events, *nev };
	int err = perfring_event_expand(arg, record_add_event, &re);

	*nev = re.n;
	if (err == -E2BIG)
		return tool_usage_error(CMD, "at most %d events ('%s' names more)", RECORD_MAX_EVENTS, arg);
	if (err == -ENOMEM)
		return tool_error(CMD, "no memory");
	if (err < 0)
		return tool_error(CMD, "%s", perfring_errmsg());
	return 0;
}

struct record_state {
	struct perfring_perfdata_writer *writer;
	uint64_t records, bytes, lost, round_records;
	int error;
	unsigned char buf[65536]; /* a record that straddles the ring's end, made contiguous */
};

static volatile sig_atomic_t record_stop;

static void record_on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static int record_on_event(const struct perfring_msg *ev, void *ctx)
{
	struct record_state *st = ctx;
	const struct perfring_ring_record *r = perfring_msg_record(ev);
	const void *rec = r->data;
	int err;

	if (r->data2 && r->len2) {
		memcpy(st->buf, r->data, r->len);
		memcpy(st->buf + r->len, r->data2, r->len2);
		rec = st->buf;
	}
	err = perfring_perfdata_writer_write(st->writer, rec, r->size);
	if (err) {
		st->error = err;
		return err;
	}
	st->records++;
	st->bytes += r->size;
	if (ev->kind == PERFRING_MSG_LOST)
		st->lost += ev->lost;
	return PERFRING_CONTINUE;
}

static void record_progress(const struct record_state *st, bool final)
{
	char b[32];

	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[K%s %s: %llu records (%s), %llu lost", TOOL_NAME, CMD,
		(unsigned long long)st->records, tool_fmt_bytes(st->bytes, b, sizeof(b)),
		(unsigned long long)st->lost);
	fflush(stderr);
}

static char *record_cmdline(int argc, char **argv)
{
	size_t len = strlen(TOOL_NAME) + 1, off;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	off = (size_t)sprintf(s, "%s", TOOL_NAME);
	for (i = 0; i < argc; i++)
		off += (size_t)sprintf(s + off, " %s", argv[i]);
	return s;
}

/* Whether an event counts in the kernel and in user space (no :u, no :k):
 * the one perf retries as NAME:u when the kernel refuses it (an event
 * that excludes user space is not retried, as perf's). */
static bool record_counts_kernel(const char *name)
{
	struct perf_event_attr a;

	return perfring_event_parse(name, &a) == 0 && !a.exclude_kernel && !a.exclude_user &&
	       a.type != PERF_TYPE_TRACEPOINT;
}

/* name counting in user space only, perf's retry: "cpu-clock:u", or its
 * modifiers with u added ("cpu-clock:pu", "mem:0x404030:wu"); NULL when out
 * of memory. */
static char *record_user_only(const char *name)
{
	struct perf_event_attr a;
	char *s;

	if (asprintf(&s, "%su", name) < 0)
		return NULL;
	if (perfring_event_parse(s, &a) == 0 && a.exclude_kernel)
		return s;
	free(s);
	return asprintf(&s, "%s:u", name) < 0 ? NULL : s;
}

/*
 * cycles where the kernel has no hardware PMU: perf record falls back to
 * cpu-clock with the same modifiers (cycles:u -> cpu-clock:u). *out is
 * the new name (freed by the caller), or NULL when err or the event do
 * not call for it.
 */
static void record_cycles_fallback(const char *name, int err, char **out)
{
	struct perf_event_attr a;
	const char *mods;

	*out = NULL;
	if ((err != -ENOENT && err != -ENODEV && err != -EOPNOTSUPP && err != -ENXIO) ||
	    perfring_event_parse(name, &a) || a.type != PERF_TYPE_HARDWARE || a.config != PERF_COUNT_HW_CPU_CYCLES)
		return;
	mods = strchr(name, ':');
	if (asprintf(out, "cpu-clock%s", mods ? mods : "") < 0)
		*out = NULL;
}

static bool record_alive(const int *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (kill(ids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* A FINISHED_ROUND after a pass over the rings that wrote records: perf
 * sorts and flushes what came before the previous round. */
static int record_round(struct record_state *st)
{
	static const struct perf_event_header fr = { PERFRING_RECORD_FINISHED_ROUND, 0, 8 };

	if (st->records == st->round_records)
		return 0;
	st->round_records = st->records;
	return perfring_perfdata_writer_write(st->writer, &fr, sizeof(fr));
}

/*
 * perf's -z takes its level attached (-z5) or none: in `-z 99 -o x.data
 * -- cmd`, 99 is the first word of the command, and the options after it
 * are its arguments. A number right after a bare -z was meant as the
 * level: refused rather than run.
 */
static bool record_level_taken_for_command(char **argv, int optind_)
{
	const char *prev = argv[optind_ - 1], *word = argv[optind_];

	if (strcmp(prev, "-z") && strcmp(prev, "--compression-level"))
		return false;
	return word[0] && strspn(word, "0123456789") == strlen(word);
}

/*
 * An output file that exists and is not empty is kept as FILE.old (a
 * FILE.old before it is replaced), as perf record keeps perf.data.old.
 */
static int record_keep_old(const char *output)
{
	struct stat sb;
	char *old;
	int err = 0;

	if (stat(output, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size)
		return 0;
	if (asprintf(&old, "%s.old", output) < 0)
		return tool_error(CMD, "no memory");
	if (rename(output, old))
		err = tool_error(CMD, "cannot keep %s as %s: %s", output, old, strerror(errno));
	free(old);
	return err;
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_CALL_GRAPH = 256, OPT_SWITCH, OPT_ZLEVEL };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "switch-events", no_argument, NULL, OPT_SWITCH },
		{ "compression-level", optional_argument, NULL, OPT_ZLEVEL },
		{ "clockid", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct record_event events[RECORD_MAX_EVENTS];
	static struct record_state st;
	static int cpus[RECORD_MAX_CPUS], online[RECORD_MAX_CPUS], ring_fd[RECORD_MAX_CPUS], targets[RECORD_MAX_TASKS], tasks[RECORD_MAX_TASKS];
	const char *output = "perf.data", *cpu_list = NULL;
	uint64_t period = 0, freq = 0, max_rate, sample_type, v, last_progress = 0, synth = 0;
	bool all_cpus = false, callchain = false, dwarf = false, tty, child_done = false, by_tid = false;
	bool switch_events = false, system_wide, freq_max = false, use_clockid = false, rate_given;
	int32_t clockid = 0;
	int nev = 0, ncpu, nonline, ntarget = 0, ntask = 0, c, idx, i, j, k, t, ret = EXIT_ERROR;
	int child_status = 0, err, zlevel = 0, pipe_fd = -1;
	uint32_t stack_size = 0;
	struct tool_command command = { .go_fd = -1, .err_fd = -1 };
	pid_t child = -1;
	char **cmd = NULL, *cmdline, *comma;
	struct perfring_event_opts eo = { .sz = sizeof(eo) };
	struct perfring_reader_opts ro = { .sz = sizeof(ro) };
	struct perfring_perfdata_writer_opts wo = { .sz = sizeof(wo) };
	struct perfring_parse_config cfg;
	struct perfring_reader *rd = NULL;
	struct sigaction sa;

	memset(events, 0, sizeof(events));
	memset(&st, 0, sizeof(st));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:c:F:gaC:p:t:z::k:o:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'e':
			err = record_add_events(events, &nev, optarg);
			if (err)
				return err;
			break;
		case 'c':
			if (!tool_parse_u64(optarg, 1, UINT64_MAX, &period))
				return tool_usage_error(CMD, "bad period '%s' (a whole number >= 1)", optarg);
			break;
		case 'F':
			if (strcmp(optarg, "max") == 0) {
				freq_max = true; /* perf's -F max: perf_event_max_sample_rate */
				break;
			}
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &freq))
				return tool_usage_error(CMD, "bad frequency '%s' (a whole number of Hz >= 1, or max)", optarg);
			break;
		case 'g':
			callchain = true;
			break;
		case OPT_CALL_GRAPH:
			comma = strchr(optarg, ',');
			if (strncmp(optarg, "dwarf", comma ? (size_t)(comma - optarg) : strlen(optarg) + 1) == 0 &&
			    (comma ? (size_t)(comma - optarg) : strlen(optarg)) == 5) {
				dwarf = true;
				if (comma) {
					if (!tool_parse_u64(comma + 1, 8, 65528, &v) || v % 8)
						return tool_usage_error(CMD, "bad dwarf stack size '%s' (8..65528, a multiple of 8)",
									comma + 1);
					stack_size = (uint32_t)v;
				}
			} else if (strcmp(optarg, "fp") == 0) {
				callchain = true;
			} else {
				return tool_usage_error(CMD, "bad call graph mode '%s' (fp or dwarf[,SIZE])", optarg);
			}
			break;
		case 'a':
			all_cpus = true;
			break;
		case 'C':
			cpu_list = optarg;
			break;
		case 'p':
		case 't':
			if (ntarget)
				return tool_usage_error(CMD, "give -p or -t once (PID,PID... for several)");
			ntarget = tool_id_list(optarg, targets, RECORD_MAX_TASKS);
			if (ntarget <= 0)
				return tool_usage_error(CMD, "bad %s list '%s' (numbers >= 1, separated by commas)",
							c == 'p' ? "pid" : "tid", optarg);
			by_tid = c == 't';
			break;
		case OPT_SWITCH:
			switch_events = true;
			break;
		case 'z': /* -z or -zN, as perf */
		case OPT_ZLEVEL:
			zlevel = 1;
			if (optarg && (!tool_parse_u64(optarg, 1, 22, &v) || !(zlevel = (int)v)))
				return tool_usage_error(CMD, "bad compression level '%s' (1..22)", optarg);
			break;
		case 'k':
			if (use_clockid)
				return tool_usage_error(CMD, "give -k once");
			if (!pd_clock_parse(optarg, &clockid))
				return tool_usage_error(CMD, "bad clock '%s' (monotonic, monotonic_raw, realtime, boottime, "
							     "tai, mono, raw, real, boot or a number)", optarg);
			use_clockid = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			cmd_record_usage(stdout);
			return EXIT_OK;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		cmd = argv + optind;
	if (cmd && record_level_taken_for_command(argv, optind))
		return tool_usage_error(CMD, "-z takes its level attached (-zN or --compression-level=N, 1..22): "
					     "'%s' would be run as the command", cmd[0]);
	system_wide = all_cpus || (cpu_list && !ntarget);
	if (ntarget && all_cpus)
		return tool_usage_error(CMD, "-p/-t go without -a");
	if (!system_wide && !ntarget && !cmd)
		return tool_usage_error(CMD, "give a target: -a, -C CPUS, -p PID, -t TID or -- CMD");
	if (period && freq)
		return tool_usage_error(CMD, "give -c PERIOD or -F HZ, not both");
	/* perf 6.1 report did not expand COMPRESSED records from a pipe */
	if (zlevel && strcmp(output, "-") == 0)
		return tool_usage_error(CMD, "-z with -o -: pipe mode is written uncompressed (perf report cannot expand it)");
	if (!nev)
		events[nev++].name = "cpu-clock";
	max_rate = tool_max_sample_rate();
	rate_given = period || freq || freq_max;
	if (freq_max && !freq)
		freq = max_rate ? max_rate : RECORD_DEFAULT_HZ;
	if (period && freq)
		return tool_usage_error(CMD, "give -c PERIOD or -F HZ, not both");
	if (!period && !freq)
		freq = max_rate && max_rate < RECORD_DEFAULT_HZ ? max_rate : RECORD_DEFAULT_HZ;
	else if (freq && max_rate && freq > max_rate)
		return tool_usage_error(CMD, "-F %llu is above perf_event_max_sample_rate (%llu)",
					(unsigned long long)freq, (unsigned long long)max_rate);

	nonline = perfring_online_cpus(online, RECORD_MAX_CPUS);
	if (nonline <= 0)
		return tool_error(CMD, "cannot list the online CPUs: %s", perfring_errmsg());
	if (nonline > RECORD_MAX_CPUS)
		return tool_error(CMD, "more than %d online CPUs", RECORD_MAX_CPUS);
	if (cpu_list) {
		ncpu = perfring_parse_cpu_list(cpu_list, cpus, RECORD_MAX_CPUS);
		if (ncpu <= 0 || ncpu > RECORD_MAX_CPUS)
			return tool_usage_error(CMD, "bad CPU list '%s' (e.g. 0,2-3)", cpu_list);
		for (i = 0; i < ncpu; i++) {
			for (k = 0; k < nonline && online[k] != cpus[i]; k++)
				;
			if (k == nonline)
				return tool_error(CMD, "CPU %d of -C %s is not online", cpus[i], cpu_list);
		}
	} else {
		ncpu = nonline;
		memcpy(cpus, online, (size_t)ncpu * sizeof(int));
	}
	for (j = 0; j < nev; j++) {
		struct perf_event_attr a;

		if (perfring_event_parse(events[j].name, &a))
			return tool_error(CMD, "%s", perfring_errmsg());
		events[j].tracepoint = a.type == PERF_TYPE_TRACEPOINT;
		events[j].own_period = events[j].tracepoint || a.type == PERF_TYPE_BREAKPOINT;
	}
	/* The tasks to open events for: -1 (every task), the threads of -p's
	 * processes (each inherited by the tasks it creates), -t's threads. */
	for (i = 0; i < ntarget; i++) {
		if (kill(targets[i], 0) && errno == ESRCH)
			return tool_error(CMD, "no %s %d", by_tid ? "thread" : "process", targets[i]);
		if (by_tid) {
			tasks[ntask++] = targets[i];
		} else if ((k = tool_threads_of(targets[i], tasks, ntask, RECORD_MAX_TASKS)) < 0) {
			return tool_error(CMD, "no process %d (/proc/%d/task)", targets[i], targets[i]);
		} else {
			ntask = k;
		}
	}
	/* With -p/-t, a command only sets how long to record (as perf's
	 * `-p PID -- sleep 5`): it is not recorded itself. */
	if (system_wide || (cmd && !ntarget))
		tasks[ntask++] = -1; /* the command's pid once it is forked */
	for (j = 0; j < nev; j++) {
		events[j].fds = malloc((size_t)ntask * (size_t)ncpu * sizeof(int));
		events[j].ids = calloc((size_t)ntask * (size_t)ncpu, sizeof(uint64_t));
		if (!events[j].fds || !events[j].ids) {
			tool_error(CMD, "no memory");
			goto out;
		}
		for (i = 0; i < ntask * ncpu; i++)
			events[j].fds[i] = -1;
	}

	/* -o -: pipe mode on standard output, as perf's; the command's and
	 * our own standard output go to standard error then (perf does the
	 * same with its workload's), and a reader that goes away is an error
	 * (EPIPE), not a signal that loses the message. */
	if (strcmp(output, "-") == 0) {
		pipe_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (pipe_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			tool_error(CMD, "-o -: standard output: %s", strerror(errno));
			goto out;
		}
		signal(SIGPIPE, SIG_IGN);
	}

	/* Signals stop the loop (no SA_RESTART: a blocked poll returns). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (cmd) {
		err = tool_command_fork(cmd, &command);
		if (err) {
			tool_error(CMD, "cannot start '%s': %s", cmd[0], strerror(-err));
			goto out;
		}
		child = command.pid;
		if (!system_wide && !ntarget)
			tasks[0] = child;
	}

	sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (nev > 1)
		sample_type |= PERF_SAMPLE_IDENTIFIER;
	eo.sample_period = period;
	eo.sample_freq = period ? 0 : freq;
	/* dwarf as perf: the kernel's chain stops at user space, where the
	 * reader unwinds the stack copy */
	eo.callchain = callchain || dwarf;
	eo.dwarf = dwarf;
	eo.exclude_callchain_user = dwarf;
	/* and the data mappings: perf unwinds through a library's
	 * .eh_frame_hdr only when its mapping is in the file */
	eo.mmap_data = dwarf;
	eo.stack_user_size = stack_size;
	eo.sample_id_all = true;
	eo.wakeup_bytes = RECORD_WATERMARK;
	eo.inherit = !system_wide && !by_tid;
	eo.enable_on_exec = cmd && !system_wide && !ntarget;
	eo.build_id = true;
	eo.use_clockid = use_clockid;
	eo.clockid = clockid;

	/* dwarf: 8 KiB and more per sample, 32 MB/s at 4000 Hz; 4 MiB rings
	 * ride out a reader that a loaded machine schedules late. Call chains
	 * and every task of a CPU: 2 MiB (512 KiB lost records under load). */
	ro.data_pages = dwarf ? 1024 : callchain || system_wide ? 512 : 128;
	/* without privilege, rings beyond perf_event_mlock_kb (516 KiB per
	 * CPU by default) count against RLIMIT_MEMLOCK: perf's sizes then */
	if (geteuid() != 0)
		ro.data_pages = dwarf ? 256 : 128;
	ro.wakeup_bytes = RECORD_WATERMARK;
	ro.max_delay_ns = RECORD_MAX_DELAY_NS;
	ro.linearize = true;
	rd = perfring_reader_new(&ro);
	if (!rd) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	/* One ring per CPU: the first fd opened on it; every other event and
	 * task of that CPU writes into it. */
	for (i = 0; i < ncpu; i++)
		ring_fd[i] = -1;
	for (i = 0; i < ncpu; i++) {
		for (t = 0; t < ntask; t++) {
			for (j = 0; j < nev; j++) {
				struct perf_event_attr attr;
				int fd, slot = t * ncpu + i;

				eo.task_events = j == 0;
				eo.context_switch = j == 0 && switch_events;
				eo.sample_type = sample_type;
				/* tracepoint fields come in the raw data (decoded with the
				 * file's tracing data) */
				if (events[j].tracepoint)
					eo.sample_type |= PERF_SAMPLE_RAW;
				eo.sample_freq = period || (events[j].own_period && !rate_given) ? 0 : freq;
				fd = perfring_event_open(events[j].name, tasks[t], cpus[i], -1, &eo, &attr);
				if (fd == -EINVAL && eo.build_id) {
					/* a kernel before 5.12: MMAP2 with inodes, build ids
					 * from the files at the end */
					eo.build_id = false;
					fd = perfring_event_open(events[j].name, tasks[t], cpus[i], -1, &eo, &attr);
				}
				if (fd < 0 && !events[j].clock_name) {
					record_cycles_fallback(events[j].name, fd, &events[j].clock_name);
					if (events[j].clock_name) {
						/* perf's words (perf record -v: it says so only then) */
						fprintf(stderr, "%s %s: the %s event is not supported, trying to fall back to "
							"cpu-clock-ticks: recording %s\n", TOOL_NAME, CMD, events[j].name,
							events[j].clock_name);
						events[j].name = events[j].clock_name;
						fd = perfring_event_open(events[j].name, tasks[t], cpus[i], -1, &eo, &attr);
					}
				}
				if ((fd == -EACCES || fd == -EPERM) && !system_wide && !events[j].user_name &&
				    record_counts_kernel(events[j].name) &&
				    (events[j].user_name = record_user_only(events[j].name))) {
					/* as perf record: unprivileged under perf_event_paranoid 2,
					 * sample user space only, and say so */
					fd = perfring_event_open(events[j].user_name, tasks[t], cpus[i], -1, &eo, &attr);
					if (fd >= 0) {
						fprintf(stderr, "%s %s: the kernel refused %s (perf_event_paranoid); recording %s\n",
							TOOL_NAME, CMD, events[j].name, events[j].user_name);
						events[j].name = events[j].user_name;
					}
				}
				if (fd == -ESRCH && tasks[t] > 0 && ntask > 1) {
					/* a thread that exited since /proc listed it */
					continue;
				}
				if (fd < 0) {
					tool_error(CMD, "%s", perfring_errmsg());
					goto out;
				}
				events[j].fds[slot] = fd;
				if (!events[j].attr.size)
					events[j].attr = attr;
				if (ioctl(fd, PERF_EVENT_IOC_ID, &events[j].ids[slot])) {
					tool_error(CMD, "PERF_EVENT_IOC_ID on %s: %s", events[j].name, strerror(errno));
					goto out;
				}
				if (ring_fd[i] < 0) {
					err = perfring_reader_add(rd, fd, cpus[i]);
					ring_fd[i] = fd;
				} else {
					err = perfring_event_set_output(fd, ring_fd[i]);
				}
				if (err < 0) {
					tool_error(CMD, "%s", perfring_errmsg());
					goto out;
				}
			}
		}
	}

	if (command.go_fd >= 0) {
		/* Let the command exec (that enables the events: enable_on_exec)
		 * before the output is touched: a command that cannot run is an
		 * error that leaves no file and an existing one as it was, where
		 * perf writes an empty one. The rings keep what it does until
		 * the loop reads them. */
		err = tool_command_release(&command);
		if (err) {
			tool_error(CMD, "cannot run '%s': %s", cmd[0], strerror(err));
			goto out;
		}
	}
	if (pipe_fd < 0 && record_keep_old(output))
		goto out;

	cmdline = record_cmdline(argc, argv);
	wo.cmdline = cmdline;
	wo.build_ids = true;
	wo.compress_level = zlevel;
	wo.pipe = pipe_fd >= 0;
	wo.fd = pipe_fd;
	st.writer = perfring_perfdata_writer_open(pipe_fd >= 0 ? NULL : output, &wo);
	free(cmdline);
	if (!st.writer) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	/* -k: the clock and wall-clock time read together (CLOCK_DATA), as perf
	 * record -k writes them, so that sample times become dates */
	if (use_clockid && perfring_perfdata_writer_set_clock(st.writer, clockid, 0, 0)) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	for (j = 0; j < nev; j++) {
		size_t n = 0;

		/* the ids of the fds opened (threads gone meanwhile have none) */
		for (i = 0; i < ntask * ncpu; i++)
			if (events[j].fds[i] >= 0)
				events[j].ids[n++] = events[j].ids[i];
		err = perfring_perfdata_writer_add_attr(st.writer, &events[j].attr, events[j].ids, n,
							events[j].user_name    ? events[j].user_name
							: events[j].clock_name ? events[j].clock_name
							: events[j].shown      ? events[j].shown
										: events[j].name);
		if (err < 0) {
			tool_error(CMD, "%s: %s", output, perfring_errmsg());
			goto out;
		}
	}
	/* The tasks that run already, as perf record synthesizes them. */
	if (system_wide || ntarget) {
		if (perfring_parse_config_init(&cfg, &events[0].attr, false)) {
			tool_error(CMD, "%s", perfring_errmsg());
			goto out;
		}
		err = record_synth(st.writer, cfg.id_trailer_size, targets, system_wide ? -1 : ntarget, by_tid, &synth);
		if (err) {
			tool_error(CMD, "%s: %s", output, perfring_errmsg());
			goto out;
		}
	}

	tty = isatty(STDERR_FILENO);
	while (!record_stop) {
		err = perfring_reader_poll(rd, RECORD_POLL_NS, record_on_event, &st);
		if (err < 0 && err != -ETIMEDOUT && err != -EINTR && err != -PERFRING_EWOKEN) {
			if (st.error)
				tool_error(CMD, "%s: %s", output, perfring_errmsg());
			else
				tool_error(CMD, "reading the rings: %s", perfring_errmsg());
			goto out;
		}
		if (record_round(&st)) {
			tool_error(CMD, "%s: %s", output, perfring_errmsg());
			goto out;
		}
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child_done = true;
			break;
		}
		if (ntarget && !record_alive(targets, ntarget))
			break;
		if (tty && tool_now_ns() - last_progress > 500 * 1000 * 1000ULL) {
			record_progress(&st, false);
			last_progress = tool_now_ns();
		}
	}

	/* Stop the events, then drain what the rings still hold. */
	for (j = 0; j < nev; j++)
		for (i = 0; i < ntask * ncpu; i++)
			if (events[j].fds[i] >= 0)
				ioctl(events[j].fds[i], PERF_EVENT_IOC_DISABLE, 0);
	do {
		err = perfring_reader_consume(rd, record_on_event, &st);
	} while (err > 0);
	if (err < 0) {
		tool_error(CMD, "draining the rings: %s", perfring_errmsg());
		goto out;
	}
	if (record_round(&st)) {
		tool_error(CMD, "%s: %s", output, perfring_errmsg());
		goto out;
	}
	if (tty)
		record_progress(&st, true);
	err = perfring_perfdata_writer_close(st.writer);
	st.writer = NULL;
	if (err) {
		tool_error(CMD, "%s: %s", output, perfring_errmsg());
		goto out;
	}
	fprintf(stderr, "%s %s: %llu records (%llu bytes), %llu lost, written to %s\n", TOOL_NAME, CMD,
		(unsigned long long)st.records, (unsigned long long)st.bytes, (unsigned long long)st.lost,
		pipe_fd >= 0 ? "standard output" : output);
	ret = EXIT_OK;

out:
	if (command.go_fd >= 0)
		tool_command_abandon(&command); /* it exits without running the command */
	if (child > 0 && !child_done) {
		if (ret == EXIT_OK)
			kill(child, SIGTERM);
		if (waitpid(child, &child_status, 0) == child)
			child_done = true;
	}
	if (child > 0 && child_done && ret == EXIT_OK) {
		if (WIFEXITED(child_status))
			fprintf(stderr, "%s %s: '%s' exited with status %d\n", TOOL_NAME, CMD, cmd[0],
				WEXITSTATUS(child_status));
		else if (WIFSIGNALED(child_status))
			fprintf(stderr, "%s %s: '%s' was killed by signal %d (%s)\n", TOOL_NAME, CMD, cmd[0],
				WTERMSIG(child_status), strsignal(WTERMSIG(child_status)));
	}
	perfring_perfdata_writer_free(st.writer);
	if (pipe_fd >= 0)
		close(pipe_fd);
	perfring_reader_free(rd);
	for (j = 0; j < nev; j++) {
		for (i = 0; events[j].fds && i < ntask * ncpu; i++)
			if (events[j].fds[i] >= 0)
				close(events[j].fds[i]);
		free(events[j].fds);
		free(events[j].ids);
		free(events[j].user_name);
		free(events[j].spec);
		free(events[j].shown);
		free(events[j].clock_name);
	}
	return ret;
}

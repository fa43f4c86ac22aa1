// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`: open perf events on every online CPU (system-wide, for
 * a process, or for a command started here), read their rings with a
 * perfring reader and write every record to a perf.data file that `perf
 * report` and `perf script` read.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/event.h>
#include <perfring/perfdata_write.h>

#include "shared/command.h"
#include "shared/tool.h"

#define CMD "record"
#define RECORD_MAX_EVENTS 32
#define RECORD_MAX_CPUS 1024
#define RECORD_DEFAULT_HZ 4000
/* Wake the reader when this much waits in a ring, or after RECORD_MAX_DELAY_NS. */
#define RECORD_WATERMARK (64 * 1024)
#define RECORD_MAX_DELAY_NS (100 * 1000 * 1000ULL)
#define RECORD_POLL_NS (100 * 1000 * 1000LL)

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s record [-e EVENT]... [-c PERIOD | -F HZ] [-g | --call-graph dwarf]\n"
		"                 [-a | -p PID | -- CMD [ARG]...] [-o FILE]\n\n"
		"Sample events on every online CPU and write every record of the perf rings\n"
		"to a perf.data file (read it with `perf report`, `perf script`, or\n"
		"`perfring report --stats` / `perfring script`).\n\n"
		"Options:\n"
		"  -e, --event EVENT      an event to sample (repeatable; default cpu-clock); any\n"
		"                         name perfring_event_parse() knows (see perfring(1))\n"
		"  -c, --count PERIOD     sample every PERIOD events\n"
		"  -F, --freq HZ          sample about HZ times a second (default %d, capped by\n"
		"                         /proc/sys/kernel/perf_event_max_sample_rate)\n"
		"  -g                     record kernel and user call chains\n"
		"      --call-graph MODE  fp (as -g) or dwarf (user registers and 8 KiB of stack)\n"
		"  -a, --all-cpus         every task on every CPU (until SIGINT/SIGTERM)\n"
		"  -p, --pid PID          process PID and the tasks it creates (until it exits\n"
		"                         or SIGINT/SIGTERM)\n"
		"  -- CMD [ARG]...        start CMD and record it and its children until it exits\n"
		"  -o, --output FILE      the perf.data file to write (default perf.data)\n"
		"  -h, --help             show this help\n\n"
		"Exit status: 0 when a complete file was written (also after SIGINT/SIGTERM, and\n"
		"whatever CMD's status, which is printed), 1 when events cannot be opened or the\n"
		"file written, 2 for a bad command line.\n",
		TOOL_NAME, RECORD_DEFAULT_HZ);
}

struct record_event {
	const char *name;
	struct perf_event_attr attr;
	uint64_t ids[RECORD_MAX_CPUS];
	int fds[RECORD_MAX_CPUS];
	bool tracepoint;
};

struct record_state {
	struct perfring_perfdata_writer *writer;
	uint64_t records, bytes, lost;
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
	const struct perfring_ring_record *r = ev->rec;
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

static uint64_t record_max_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
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

int cmd_record(int argc, char **argv)
{
	enum { OPT_CALL_GRAPH = 256 };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct record_event events[RECORD_MAX_EVENTS];
	static struct record_state st;
	const char *output = "perf.data";
	uint64_t period = 0, freq = 0, max_rate;
	bool all_cpus = false, callchain = false, dwarf = false, tty, child_done = false;
	int nev = 0, ncpu, cpus[RECORD_MAX_CPUS], c, idx, i, j, ret = EXIT_ERROR;
	int child_status = 0, err;
	uint64_t sample_type;
	long target_pid = -1;
	uint64_t v, last_progress = 0;
	struct tool_command command = { .go_fd = -1, .err_fd = -1 };
	pid_t child = -1;
	char **cmd = NULL, *cmdline;
	struct perfring_event_opts eo = { .sz = sizeof(eo) };
	struct perfring_reader_opts ro = { .sz = sizeof(ro) };
	struct perfring_perfdata_writer_opts wo = { .sz = sizeof(wo) };
	struct perfring_reader *rd = NULL;
	struct sigaction sa;

	memset(events, 0, sizeof(events));
	memset(&st, 0, sizeof(st));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:c:F:gap:o:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'e':
			if (nev == RECORD_MAX_EVENTS)
				return tool_usage_error(CMD, "at most %d events", RECORD_MAX_EVENTS);
			events[nev++].name = optarg;
			break;
		case 'c':
			if (!tool_parse_u64(optarg, 1, UINT64_MAX, &period))
				return tool_usage_error(CMD, "bad period '%s' (a whole number >= 1)", optarg);
			break;
		case 'F':
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &freq))
				return tool_usage_error(CMD, "bad frequency '%s' (a whole number of Hz >= 1)", optarg);
			break;
		case 'g':
			callchain = true;
			break;
		case OPT_CALL_GRAPH:
			if (strcmp(optarg, "dwarf") == 0)
				dwarf = true;
			else if (strcmp(optarg, "fp") == 0)
				callchain = true;
			else
				return tool_usage_error(CMD, "bad call graph mode '%s' (fp or dwarf)", optarg);
			break;
		case 'a':
			all_cpus = true;
			break;
		case 'p':
			if (!tool_parse_u64(optarg, 1, INT32_MAX, &v))
				return tool_usage_error(CMD, "bad pid '%s'", optarg);
			target_pid = (long)v;
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
	if ((all_cpus ? 1 : 0) + (target_pid > 0 ? 1 : 0) + (cmd ? 1 : 0) != 1)
		return tool_usage_error(CMD, "give exactly one target: -a, -p PID or -- CMD");
	if (period && freq)
		return tool_usage_error(CMD, "give -c PERIOD or -F HZ, not both");
	if (!nev)
		events[nev++].name = "cpu-clock";
	for (j = 0; j < nev; j++) {
		struct perf_event_attr a;

		if (perfring_event_parse(events[j].name, &a))
			return tool_error(CMD, "%s", perfring_errmsg());
		events[j].tracepoint = a.type == PERF_TYPE_TRACEPOINT;
	}
	max_rate = record_max_rate();
	if (!period && !freq)
		freq = max_rate && max_rate < RECORD_DEFAULT_HZ ? max_rate : RECORD_DEFAULT_HZ;
	else if (freq && max_rate && freq > max_rate)
		return tool_usage_error(CMD, "-F %llu is above perf_event_max_sample_rate (%llu)",
					(unsigned long long)freq, (unsigned long long)max_rate);
	if (target_pid > 0 && kill((pid_t)target_pid, 0) && errno == ESRCH)
		return tool_error(CMD, "no process %ld", target_pid);

	ncpu = perfring_online_cpus(cpus, RECORD_MAX_CPUS);
	if (ncpu <= 0)
		return tool_error(CMD, "cannot list the online CPUs: %s", perfring_errmsg());
	if (ncpu > RECORD_MAX_CPUS)
		return tool_error(CMD, "more than %d online CPUs", RECORD_MAX_CPUS);
	for (j = 0; j < nev; j++)
		for (i = 0; i < ncpu; i++)
			events[j].fds[i] = -1;

	/* Signals stop the loop (no SA_RESTART: a blocked poll returns). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (cmd) {
		err = tool_command_fork(cmd, &command);
		if (err)
			return tool_error(CMD, "cannot start '%s': %s", cmd[0], strerror(-err));
		child = command.pid;
		target_pid = child;
	}

	eo.sample_period = period;
	eo.sample_freq = period ? 0 : freq;
	sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (nev > 1)
		sample_type |= PERF_SAMPLE_IDENTIFIER;
	eo.callchain = callchain;
	eo.dwarf = dwarf;
	eo.sample_id_all = true;
	eo.build_id = true;
	eo.wakeup_bytes = RECORD_WATERMARK;
	eo.inherit = target_pid > 0;
	eo.enable_on_exec = cmd != NULL;

	ro.data_pages = dwarf ? 256 : 128;
	ro.wakeup_bytes = RECORD_WATERMARK;
	ro.max_delay_ns = RECORD_MAX_DELAY_NS;
	ro.linearize = true;
	rd = perfring_reader_new(&ro);
	if (!rd) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	for (i = 0; i < ncpu; i++) {
		for (j = 0; j < nev; j++) {
			struct perf_event_attr attr;
			int fd;

			eo.task_events = j == 0;
			eo.sample_type = sample_type;
			/* tracepoint fields come in the raw data (decoded with the
			 * file's tracing data) */
			if (events[j].tracepoint)
				eo.sample_type |= PERF_SAMPLE_RAW;
			fd = perfring_event_open(events[j].name, (int)target_pid, cpus[i], -1, &eo, &attr);
			if (fd == -EINVAL && eo.build_id) {
				/* a kernel before 5.12: MMAP2 with inodes, build ids
				 * from the files at the end */
				eo.build_id = false;
				fd = perfring_event_open(events[j].name, (int)target_pid, cpus[i], -1, &eo, &attr);
			}
			if (fd < 0) {
				tool_error(CMD, "%s", perfring_errmsg());
				goto out;
			}
			events[j].fds[i] = fd;
			if (i == 0)
				events[j].attr = attr;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &events[j].ids[i])) {
				tool_error(CMD, "PERF_EVENT_IOC_ID on %s: %s", events[j].name, strerror(errno));
				goto out;
			}
			if (j == 0) {
				err = perfring_reader_add(rd, fd, cpus[i]);
			} else {
				err = perfring_event_set_output(fd, events[0].fds[i]);
			}
			if (err < 0) {
				tool_error(CMD, "%s", perfring_errmsg());
				goto out;
			}
		}
	}

	cmdline = record_cmdline(argc, argv);
	wo.cmdline = cmdline;
	wo.build_ids = true;
	st.writer = perfring_perfdata_writer_open(output, &wo);
	free(cmdline);
	if (!st.writer) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	for (j = 0; j < nev; j++) {
		err = perfring_perfdata_writer_add_attr(st.writer, &events[j].attr, events[j].ids, (size_t)ncpu,
							events[j].name);
		if (err < 0) {
			tool_error(CMD, "%s: %s", output, perfring_errmsg());
			goto out;
		}
	}

	if (cmd) {
		/* Let the command exec: that enables the events (enable_on_exec).
		 * A failed exec leaves a child that exited 127, which the loop
		 * sees end: the (empty) recording is still written. */
		err = tool_command_release(&command);
		if (err)
			tool_error(CMD, "cannot run '%s': %s", cmd[0], strerror(err));
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
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child_done = true;
			break;
		}
		if (!cmd && target_pid > 0 && kill((pid_t)target_pid, 0) && errno == ESRCH)
			break;
		if (tty && tool_now_ns() - last_progress > 500 * 1000 * 1000ULL) {
			record_progress(&st, false);
			last_progress = tool_now_ns();
		}
	}

	/* Stop the events, then drain what the rings still hold. */
	for (j = 0; j < nev; j++)
		for (i = 0; i < ncpu; i++)
			ioctl(events[j].fds[i], PERF_EVENT_IOC_DISABLE, 0);
	do {
		err = perfring_reader_consume(rd, record_on_event, &st);
	} while (err > 0);
	if (err < 0) {
		tool_error(CMD, "draining the rings: %s", perfring_errmsg());
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
		(unsigned long long)st.records, (unsigned long long)st.bytes, (unsigned long long)st.lost, output);
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
	perfring_reader_free(rd);
	for (j = 0; j < nev; j++)
		for (i = 0; i < ncpu && i < RECORD_MAX_CPUS; i++)
			if (events[j].fds[i] >= 0)
				close(events[j].fds[i]);
	return ret;
}

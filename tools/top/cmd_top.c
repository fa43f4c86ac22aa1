// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring top`: the hottest functions now, as perf top shows them. This
 * file reads the options; the session (top_session.c) samples and names,
 * the table (top_table.c) keeps the window of samples, and the screen
 * (top_ui.c) or the printer (top_stdio.c) shows it.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/targets.h"
#include "shared/tool.h"
#include "top/top.h"

#define CMD "top"
#define TOP_DEFAULT_HZ 4000
#define TOP_WINDOW 10
/* A window holds at most this many samples and frames (about 100 MB at most). */
#define TOP_MAX_SAMPLES (1u << 20)
#define TOP_MAX_WINDOW_FRAMES (16u << 20)

volatile sig_atomic_t top_stop;

void cmd_top_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s top [-e EVENT] [-F HZ | -c PERIOD] [-g | --call-graph fp|dwarf[,SIZE]|no]\n"
		"              [-a] [-C CPUS] [-p PID[,PID]...] [-d SECS] [--window N | -z] [-s KEY]\n"
		"              [-E N] [-K] [-U] [--comms LIST] [--dsos LIST] [--stdio [-n N] [--callers N]]\n"
		"              [-- CMD [ARG]...]\n\n"
		"The functions where the CPUs spend their time now, refreshed every interval:\n"
		"each function's share of the samples of the window (Self: sampled in it;\n"
		"Children: in it or in what it called), with the shares of samples that have\n"
		"no name and of samples the kernel lost. Interactive in a terminal (press h\n"
		"for the keys); --stdio prints the table every interval.\n\n"
		"Options:\n"
		"  -e, --event EVENT      the event to sample (default cpu-clock)\n"
		"  -F, --freq HZ          sample about HZ times a second per CPU (default %d,\n"
		"                         at most /proc/sys/kernel/perf_event_max_sample_rate)\n"
		"  -c, --count PERIOD     sample every PERIOD events instead\n"
		"  -g                     call chains with frame pointers (the default)\n"
		"      --call-graph MODE  fp, dwarf[,SIZE] (user frames unwound from SIZE bytes of\n"
		"                         stack, default 8192) or no (the sampled function only)\n"
		"      --max-stack N      frames kept per call chain (default 127)\n"
		"  -a, --all-cpus         every task on every CPU (the default)\n"
		"  -C, --cpu CPUS         only these CPUs (e.g. 0,2-3)\n"
		"  -p, --pid PIDS         these processes and the tasks they create, until they exit\n"
		"  -- CMD [ARG]...        start CMD, sample it and its children until it exits\n"
		"  -d, --delay SECS       refresh every SECS seconds (default 1)\n"
		"      --window N         a table covers the last N intervals (default %d); memory\n"
		"                         is bounded by it: older samples and the processes they\n"
		"                         named are forgotten\n"
		"  -z, --zero             each table covers its own interval only (--window 1)\n"
		"  -s, --sort KEY         self (default), children or name\n"
		"  -E, --entries N        show N rows (default: what fits; 25 with --stdio)\n"
		"  -K, --hide-kernel      no rows of kernel functions\n"
		"  -U, --hide-user        no rows of user-space functions\n"
		"      --comms LIST       only the samples of these commands (comma-separated)\n"
		"      --dsos LIST        only the samples taken in these binaries (paths or base\n"
		"                         names, comma-separated)\n"
		"      --stdio            print the table every interval instead of the screen\n"
		"  -n, --iterations N     with --stdio: stop after N tables\n"
		"      --callers N        with --stdio: each row's N commonest caller chains\n"
		"  -h, --help             show this help\n\n"
		"Keys: q quit, space pause, s sort, c command, b binary, C CPU, z zoom into a\n"
		"process, x clear the filters, K/U kernel/user rows, Enter callers, arrows move.\n\n"
		"Exit status: 0 (also after SIGINT/SIGTERM or when the target exits), 1 when\n"
		"events cannot be opened or CMD cannot run, 2 for a bad command line.\n",
		TOOL_NAME, TOP_DEFAULT_HZ, TOP_WINDOW);
}

static void on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

int cmd_top(int argc, char **argv)
{
	enum { OPT_CALL_GRAPH = 256, OPT_MAX_STACK, OPT_WINDOW, OPT_COMMS, OPT_DSOS, OPT_STDIO, OPT_CALLERS };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "count", required_argument, NULL, 'c' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "delay", required_argument, NULL, 'd' },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "zero", no_argument, NULL, 'z' },
		{ "sort", required_argument, NULL, 's' },
		{ "entries", required_argument, NULL, 'E' },
		{ "hide-kernel", no_argument, NULL, 'K' },
		{ "hide-user", no_argument, NULL, 'U' },
		{ "comms", required_argument, NULL, OPT_COMMS },
		{ "dsos", required_argument, NULL, OPT_DSOS },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "iterations", required_argument, NULL, 'n' },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_session_opts so = { .freq = 0, .max_stack = 127 };
	struct top_run r = { .filter = { .cpu = -1, .pid = -1 }, .delay_ns = 1000000000ull, .window = TOP_WINDOW };
	bool stdio = false, ended;
	struct sigaction sa;
	double secs;
	uint64_t v;
	int c, idx, ret, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:F:c:gaC:p:d:zs:E:KUn:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'e':
			so.event = optarg;
			break;
		case 'F':
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &so.freq))
				return tool_usage_error(CMD, "bad frequency '%s' (a whole number of Hz >= 1)", optarg);
			break;
		case 'c':
			if (!tool_parse_u64(optarg, 1, UINT64_MAX, &so.period))
				return tool_usage_error(CMD, "bad period '%s' (a whole number >= 1)", optarg);
			break;
		case 'g':
			so.no_callchain = so.dwarf = false;
			break;
		case OPT_CALL_GRAPH: {
			enum tool_call_graph mode;
			uint32_t size;
			int err = tool_call_graph_option(CMD, optarg, true, &mode, &size);

			if (err)
				return err;
			so.no_callchain = mode == TOOL_CALL_GRAPH_NO;
			so.dwarf = mode == TOOL_CALL_GRAPH_DWARF;
			if (so.dwarf)
				so.stack_size = size ? size : 8192;
			break;
		}
		case OPT_MAX_STACK:
			if (!tool_parse_u64(optarg, 1, 511, &v))
				return tool_usage_error(CMD, "bad --max-stack '%s' (1..511)", optarg);
			so.max_stack = (int)v;
			break;
		case 'a':
			break;
		case 'C':
			so.cpus = optarg;
			break;
		case 'p':
			so.pids = optarg;
			break;
		case 'd':
			if (!tool_parse_seconds(optarg, 0.1, 3600, &secs))
				return tool_usage_error(CMD, "bad delay '%s' (seconds, 0.1..3600)", optarg);
			r.delay_ns = (uint64_t)(secs * 1e9);
			break;
		case OPT_WINDOW:
			if (!tool_parse_u64(optarg, 1, 3600, &v))
				return tool_usage_error(CMD, "bad window '%s' (intervals, 1..3600)", optarg);
			r.window = (unsigned)v;
			break;
		case 'z':
			r.window = 1;
			break;
		case 's':
			if (!strcmp(optarg, "self"))
				r.sort = TOP_SORT_SELF;
			else if (!strcmp(optarg, "children"))
				r.sort = TOP_SORT_CHILDREN;
			else if (!strcmp(optarg, "name"))
				r.sort = TOP_SORT_NAME;
			else
				return tool_usage_error(CMD, "bad sort key '%s' (self, children or name)", optarg);
			break;
		case 'E':
			if (!tool_parse_u64(optarg, 1, 100000, &v))
				return tool_usage_error(CMD, "bad entries '%s' (1..100000)", optarg);
			r.entries = (size_t)v;
			break;
		case 'K':
			r.filter.hide_kernel = true;
			break;
		case 'U':
			r.filter.hide_user = true;
			break;
		case OPT_COMMS:
			r.filter.comms = optarg;
			break;
		case OPT_DSOS:
			r.filter.dsos = optarg;
			break;
		case OPT_STDIO:
			stdio = true;
			break;
		case 'n':
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &r.iterations))
				return tool_usage_error(CMD, "bad iterations '%s' (a whole number >= 1)", optarg);
			break;
		case OPT_CALLERS:
			if (!tool_parse_u64(optarg, 0, 8, &v))
				return tool_usage_error(CMD, "bad --callers '%s' (0..8)", optarg);
			r.callers = (unsigned)v;
			break;
		case 'h':
			cmd_top_usage(stdout);
			return EXIT_OK;
		default:
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		so.cmd = argv + optind;
	if (so.freq && so.period)
		return tool_usage_error(CMD, "give -F HZ or -c PERIOD, not both");
	if (so.pids && so.cmd)
		return tool_usage_error(CMD, "give -p PIDS or -- CMD, not both");
	if ((r.iterations || r.callers) && !stdio)
		return tool_usage_error(CMD, "-n and --callers go with --stdio");
	if (!stdio && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return tool_usage_error(CMD, "the screen needs a terminal: use --stdio");
	if (!so.freq && !so.period)
		so.freq = TOP_DEFAULT_HZ;
	r.children = !so.no_callchain;
	if (r.sort == TOP_SORT_CHILDREN && !r.children)
		return tool_usage_error(CMD, "-s children needs call chains (not --call-graph no)");

	r.table = top_table_new(r.window, TOP_MAX_SAMPLES, TOP_MAX_WINDOW_FRAMES);
	if (!r.table)
		return tool_error(CMD, "no memory");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked poll returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = top_session_open(&so, r.table, &r.session);
	if (ret) {
		top_table_free(r.table);
		return ret;
	}
	r.start_ns = tool_now_ns();
	ret = stdio ? top_stdio_run(&r) : top_ui_run(&r);
	ended = so.cmd && top_session_ended(r.session); /* else it is stopped now */
	status = top_session_close(r.session);
	top_table_free(r.table);
	if (ended && status >= 0 && ret == EXIT_OK)
		fprintf(stderr, "%s %s: '%s' exited with status %d\n", TOOL_NAME, CMD, so.cmd[0], status);
	return ret;
}

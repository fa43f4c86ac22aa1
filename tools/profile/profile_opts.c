// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring profile`'s options and help: see profile_tool.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_tool.h"
#include "shared/targets.h"
#include "shared/tool.h"

#define CMD PROFILE_CMD

void profile_usage_print(FILE *f)
{
	fprintf(f,
		"Usage: %s profile [-F HZ] [--call-graph fp|dwarf[,SIZE]] [-a | -p PID[,PID]...]\n"
		"                  [-d SECS] [--duration SECS] [--count N] [-o DIR [--folded]\n"
		"                  [--max-dir-size SIZE]] [--pyroscope URL] [--parca URL]\n"
		"                  [--off-cpu | --wall] [--tid] [--max-memory SIZE] [-- CMD [ARG]...]\n\n"
		"A continuous profiler: every interval, a profile of where the CPUs spent their\n"
		"time (with --off-cpu, where threads were blocked) by call chain, labelled with\n"
		"host, pid, comm, cgroup and container, written as pprof into a directory and/or\n"
		"sent to Grafana Pyroscope or Parca. Each profile says what it is missing.\n\n"
		"Options:\n"
		"  -F, --freq HZ          CPU samples a second per CPU (default %d)\n"
		"  -g                     call chains with frame pointers (the default)\n"
		"      --call-graph MODE  fp, or dwarf[,SIZE] (user frames unwound from SIZE bytes\n"
		"                         of stack, default 8192)\n"
		"      --max-stack N      frames kept per call chain (default 127)\n"
		"  -a, --all-cpus         every task on every CPU (the default)\n"
		"  -p, --pid PIDS         these processes and the tasks they create\n"
		"  -- CMD [ARG]...        start CMD, profile it and its children until it exits\n"
		"  -d, --interval SECS    close a profile every SECS seconds (default 60)\n"
		"      --duration SECS    stop after SECS seconds (the last interval closed)\n"
		"      --count N          stop after N intervals\n"
		"  -o, --output DIR       write each profile as DIR/profile-TIME.pb.gz (pprof)\n"
		"      --folded           and as DIR/profile-TIME.folded (FlameGraph's input)\n"
		"      --max-dir-size SIZE  keep DIR's profiles under SIZE bytes (K, M, G\n"
		"                         suffixes), removing the oldest first\n"
		"      --pyroscope URL    push each profile to Pyroscope's URL/ingest\n"
		"      --parca URL        push each profile to Parca's URL/profiles/writeraw\n"
		"      --app NAME         the application name pushed (default perfring)\n"
		"      --push-queue N     profiles waiting to be sent, at most (default 8):\n"
		"                         past it the oldest is dropped and counted\n"
		"      --push-retries N   tries after a failed one, with backoff (default 3)\n"
		"      --push-timeout SECS  per request (default 10)\n"
		"      --off-cpu          profile the time threads spend blocked instead (BPF)\n"
		"      --wall             both: CPU samples and blocked time\n"
		"      --tid              a tid label on every sample\n"
		"      --max-memory SIZE  keep this process's memory under SIZE (default 32M):\n"
		"                         names and binaries read are forgotten past it\n"
		"  -q, --quiet            no line per interval on stderr\n"
		"  -h, --help             show this help\n\n"
		"Exit status: 0 (also after SIGINT/SIGTERM or when the target exits), 1 when\n"
		"events cannot be opened or the directory cannot be written, 2 for a bad\n"
		"command line.\n",
		TOOL_NAME, PROFILE_DEFAULT_HZ);
}

/* "64M", "512K", "1G", "1000": bytes. */
static bool parse_size(const char *s, uint64_t min, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t v, mul = 1;

	if (!n || n >= sizeof(num))
		return false;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'K': case 'k': mul = 1ull << 10; break;
	case 'M': case 'm': mul = 1ull << 20; break;
	case 'G': case 'g': mul = 1ull << 30; break;
	default: break;
	}
	if (mul > 1)
		num[n - 1] = '\0';
	if (!tool_parse_u64(num, 0, UINT64_MAX / mul, &v) || v * mul < min)
		return false;
	*out = v * mul;
	return true;
}

int profile_opts_parse(int argc, char **argv, struct profile_opts *o)
{
	enum {
		OPT_CALL_GRAPH = 256, OPT_MAX_STACK, OPT_DURATION, OPT_COUNT, OPT_FOLDED, OPT_MAX_DIR,
		OPT_PYROSCOPE, OPT_PARCA, OPT_APP, OPT_QUEUE, OPT_RETRIES, OPT_TIMEOUT, OPT_OFF_CPU,
		OPT_WALL, OPT_TID, OPT_MAX_MEM,
	};
	static const struct option longopts[] = {
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'd' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "output", required_argument, NULL, 'o' },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "max-dir-size", required_argument, NULL, OPT_MAX_DIR },
		{ "pyroscope", required_argument, NULL, OPT_PYROSCOPE },
		{ "parca", required_argument, NULL, OPT_PARCA },
		{ "app", required_argument, NULL, OPT_APP },
		{ "push-queue", required_argument, NULL, OPT_QUEUE },
		{ "push-retries", required_argument, NULL, OPT_RETRIES },
		{ "push-timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
		{ "wall", no_argument, NULL, OPT_WALL },
		{ "tid", no_argument, NULL, OPT_TID },
		{ "max-memory", required_argument, NULL, OPT_MAX_MEM },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double secs;
	uint64_t v;
	int c, idx;

	memset(o, 0, sizeof(*o));
	o->session.freq = PROFILE_DEFAULT_HZ;
	o->session.max_stack = 127;
	o->session.tool = CMD;
	/* 99 Hz of call chains is ~100 KiB/s per CPU: 256 KiB rings hold two seconds
	 * (top's 2 MiB, for 4000 Hz, would be most of the process's memory) */
	o->session.data_pages = 64;
	o->interval_ns = PROFILE_DEFAULT_INTERVAL_NS;
	o->app = "perfring";
	o->push_queue = 8;
	o->push_retries = 3;
	o->push_timeout = 10;
	o->on_cpu = true;
	o->max_memory = PROFILE_DEFAULT_MAX_MEMORY;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:F:gap:d:o:qh", longopts, &idx)) != -1) {
		switch (c) {
		case 'F':
			if (!tool_parse_u64(optarg, 1, 100000, &o->session.freq))
				return tool_usage_error(CMD, "bad frequency '%s' (Hz, 1..100000)", optarg);
			break;
		case 'g':
			o->session.dwarf = false;
			break;
		case OPT_CALL_GRAPH: {
			enum tool_call_graph mode;
			uint32_t size;
			int err = tool_call_graph_option(CMD, optarg, false, &mode, &size);

			if (err)
				return err;
			o->session.dwarf = mode == TOOL_CALL_GRAPH_DWARF;
			if (o->session.dwarf)
				o->session.stack_size = size ? size : 8192;
			break;
		}
		case OPT_MAX_STACK:
			if (!tool_parse_u64(optarg, 1, 511, &v))
				return tool_usage_error(CMD, "bad --max-stack '%s' (1..511)", optarg);
			o->session.max_stack = (int)v;
			break;
		case 'a':
			break;
		case 'p':
			o->session.pids = optarg;
			break;
		case 'd':
			if (!tool_parse_seconds(optarg, 0.1, 86400, &secs))
				return tool_usage_error(CMD, "bad interval '%s' (seconds, 0.1..86400)", optarg);
			o->interval_ns = (uint64_t)(secs * 1e9);
			break;
		case OPT_DURATION:
			if (!tool_parse_seconds(optarg, 0.1, 1e7, &secs))
				return tool_usage_error(CMD, "bad duration '%s' (seconds >= 0.1)", optarg);
			o->duration_ns = (uint64_t)(secs * 1e9);
			break;
		case OPT_COUNT:
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &o->count))
				return tool_usage_error(CMD, "bad count '%s' (intervals >= 1)", optarg);
			break;
		case 'o':
			o->dir = optarg;
			break;
		case OPT_FOLDED:
			o->folded = true;
			break;
		case OPT_MAX_DIR:
			if (!parse_size(optarg, 1, &o->max_dir_size))
				return tool_usage_error(CMD, "bad --max-dir-size '%s' (bytes, K, M or G suffix)", optarg);
			break;
		case OPT_PYROSCOPE:
		case OPT_PARCA:
			if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8))
				return tool_usage_error(CMD, "bad URL '%s' (http://HOST[:PORT] or https://...)", optarg);
			*(c == OPT_PYROSCOPE ? &o->pyroscope : &o->parca) = optarg;
			break;
		case OPT_APP:
			if (!*optarg || strpbrk(optarg, "{}=, \"&?#"))
				return tool_usage_error(CMD, "bad application name '%s' (no spaces, braces or ,=&?#\")",
							optarg);
			o->app = optarg;
			break;
		case OPT_QUEUE:
			if (!tool_parse_u64(optarg, 1, 1024, &v))
				return tool_usage_error(CMD, "bad --push-queue '%s' (1..1024)", optarg);
			o->push_queue = (unsigned)v;
			break;
		case OPT_RETRIES:
			if (!tool_parse_u64(optarg, 0, 100, &v))
				return tool_usage_error(CMD, "bad --push-retries '%s' (0..100)", optarg);
			o->push_retries = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			if (!tool_parse_seconds(optarg, 0.1, 3600, &o->push_timeout))
				return tool_usage_error(CMD, "bad --push-timeout '%s' (seconds, 0.1..3600)", optarg);
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			o->on_cpu = false;
			break;
		case OPT_WALL:
			o->off_cpu = o->on_cpu = true;
			break;
		case OPT_TID:
			o->tid_label = true;
			break;
		case OPT_MAX_MEM:
			if (!parse_size(optarg, 4ull << 20, &o->max_memory))
				return tool_usage_error(CMD, "bad --max-memory '%s' (bytes >= 4M, K, M or G suffix)", optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			profile_usage_print(stdout);
			return PROFILE_HELP_DONE;
		default:
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		o->session.cmd = argv + optind;
	if (o->session.pids && o->session.cmd)
		return tool_usage_error(CMD, "give -p PIDS or -- CMD, not both");
	if (o->session.dwarf)
		o->session.data_pages = 256; /* 8 KiB of stack a sample */
	else if (o->session.freq > 1000)
		o->session.data_pages = 512;
	if (!o->dir && !o->pyroscope && !o->parca)
		return tool_usage_error(CMD, "nowhere to put the profiles: give -o DIR, --pyroscope URL or --parca URL");
	if ((o->folded || o->max_dir_size) && !o->dir)
		return tool_usage_error(CMD, "--folded and --max-dir-size go with -o DIR");
	return 0;
}

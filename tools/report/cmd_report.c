// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`: without --stats the samples grouped by symbol, binary,
 * command or pid and sorted by overhead, as `perf report --stdio`
 * (tools/report/report.c), and the exports.
 * `perfring report --stats`: count the records of a perf.data file by type,
 * the way `perf report --stats` does (every record the file holds, user
 * records such as FINISHED_ROUND included, COMPRESSED records and the
 * records inside them both counted), then the samples of each event.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

#include "report/report.h"
#include "shared/filter.h"
#include "shared/samples.h"
#include "shared/pd_common.h"
#include "shared/tool.h"

#define CMD "report"

void cmd_report_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s report [-i FILE] [-s KEYS] [--children|--no-children] [--percent-limit PCT]\n"
		"                     [-n] [-q] [-g MODE] [--max-stack N]\n"
		"                     [--comm|--pid|--tid|--dso|--symbols LIST]\n"
		"                     [--percentage absolute|relative] [--json] [--folded FILE]\n"
		"                     [--pprof FILE] [--speedscope FILE] [--by-period] [--inline|--no-inline]\n"
		"                     [-b|--branch-stack|--no-branch-stack]\n"
		"       %s report --stats [-i FILE]\n"
		"       %s report --header-only [-i FILE]\n\n"
		"Read a perf.data file (file or pipe mode, either byte order, zstd-compressed\n"
		"records expanded) and print its samples grouped by the sort keys and sorted by\n"
		"overhead, as `perf report --stdio` does, per event: the share of the event's\n"
		"period whose leaf frame is the entry (Self) and, when the file has call chains,\n"
		"whose call chain holds it (Children). Symbols are named as by perfring script.\n"
		"With --stats: the number of records of each type, as `perf report --stats`,\n"
		"then the SAMPLE and LOST_SAMPLES counts per event. With --header-only: the\n"
		"file's features (host, perf version, command line, clock, ...) as `perf report\n"
		"--header-only` words them.\n\n"
		"Options:\n"
		"  -i, --input FILE        the file to read (default perf.data; '-': standard input)\n"
		"  -s, --sort KEYS         comma-separated: sym, dso, comm, pid (the thread; tid\n"
		"                          too), cpu, trace, srcline (FILE:LINE), or perf's\n"
		"                          names and their prefixes (symbol, Dso) (default\n"
		"                          comm,dso,sym; trace when every event is a tracepoint:\n"
		"                          the tracepoint's fields as its format prints them);\n"
		"                          in branch mode also dso_from, symbol_from, dso_to,\n"
		"                          symbol_to, cycles (default comm,dso_from,symbol_from,\n"
		"                          symbol_to,cycles)\n"
		"  -b, --branch-stack      branch mode (the default when the file has branch stacks,\n"
		"                          perf record -b): an entry per branch taken, weight 1,\n"
		"                          sym and dso those of its target\n"
		"      --no-branch-stack   the samples, not their branches\n"
		"      --children          the inclusive column, sorted by it (default with call chains)\n"
		"      --no-children       self only\n"
		"      --percent-limit PCT hide entries below PCT percent\n"
		"      --max-stack N       take N frames of each call chain at most (default\n"
		"                          kernel.perf_event_max_stack), as perf report: the N\n"
		"                          nearest the root with children or -g caller, else the\n"
		"                          N nearest the sample\n"
		"      --no-demangle       C++ and Rust functions by their mangled names\n"
		"  -n, --show-nr-samples   a Samples column: each entry's own samples\n"
		"      --show-total-period a Period column: each entry's own period\n"
		"  -f, --force             accepted as perf takes it (perfring checks no file owner)\n"
		"  -q, --quiet             no header lines\n"
		"      --comm LIST         only the samples of these commands (comma-separated);\n"
		"      --pid LIST, --tid LIST  of these processes, threads;\n"
		"      --dso LIST          whose leaf frame is in these binaries (short or full name);\n"
		"      --symbols LIST      in these functions (the exports take the same samples)\n"
		"  -C, --cpu LIST          only the samples taken on these CPUs (0-2,5), as if the\n"
		"                          others were not recorded\n"
		"      --percentage HOW    absolute (default): of all the event's samples;\n"
		"                          relative: of the samples the filters keep\n"
		"      --stdio             accepted, as perf's: the text output is the only one\n"
		"  -g, --call-graph[=MODE] graph[,MIN][,caller|callee] (the default when the file has\n"
		"                          call chains) or none: under each entry its call graph as\n"
		"                          perf draws it (callers first with children, callees first\n"
		"                          without, or as asked), branches of MIN percent (0.5, or\n"
		"                          --percent-limit) or more; perf's words in any order\n"
		"  -G, --inverted          the chains callers first (-g caller)\n"
		"  -j, --json              one JSON object per event: samples, period, entries[] with the\n"
		"                          keys, self and children percentages and periods\n"
		EXPORT_HELP
		"      --stats             print the record counts instead\n"
		"      --header-only       print the header's features instead\n"
		"      --header            print the header's features, then the report\n"
		"  -h, --help              show this help\n\n"
		"Exit status: 0 on success, 1 when the file cannot be opened, is corrupt (the\n"
		"error names the offset), has no samples or some could not be decoded (the\n"
		"table counts the others), 2 for a bad command line.\n",
		TOOL_NAME, TOOL_NAME, TOOL_NAME);
}

struct report_event {
	uint64_t samples, lost_samples;
};

static void report_line(const char *name, uint64_t n, uint64_t total, bool pct)
{
	if (pct && total)
		printf("%16s events: %10llu  (%4.1f%%)\n", name, (unsigned long long)n, 100.0 * n / total);
	else
		printf("%16s events: %10llu\n", name, (unsigned long long)n);
}

/* A LOST_SAMPLES record's count: perf's event stats add them up (its
 * hists' nr_lost_samples), the samples lost, not the records. */
static uint64_t lost_count(const struct perfring_perfdata_record *r)
{
	struct perfring_decoded d;

	if (perfring_record_parse(&r->attr->cfg, r->data, r->size, &d) < 0)
		return 0;
	return d.u.lost_samples.lost;
}

static int report_stats(const char *path)
{
	uint64_t counts[PD_TYPE_MAX] = { 0 }, other = 0, total = 0;
	struct report_event *ev = NULL;
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	int ret, i, nattr, nev = 0;
	char buf[64];

	pd = pd_open(CMD, path, false);
	if (!pd)
		return EXIT_ERROR;
	while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
		total++;
		if (r.type < PD_TYPE_MAX)
			counts[r.type]++;
		else
			other++;
		if ((r.type == 9 || r.type == 13) && r.attr) {
			/* Attrs only grow (pipe mode adds them as it goes): index by position. */
			nattr = perfring_perfdata_attr_cnt(pd);
			if (nattr > nev) {
				struct report_event *n = realloc(ev, sizeof(*ev) * nattr);

				if (!n) {
					free(ev);
					perfring_perfdata_free(pd);
					return tool_error(CMD, "out of memory");
				}
				memset(n + nev, 0, sizeof(*ev) * (nattr - nev));
				ev = n;
				nev = nattr;
			}
			for (i = 0; i < nattr; i++)
				if (perfring_perfdata_attr(pd, i) == r.attr)
					break;
			if (i < nattr) {
				if (r.type == 9)
					ev[i].samples++;
				else
					ev[i].lost_samples += lost_count(&r);
			}
		}
	}
	if (ret < 0) {
		free(ev);
		ret = pd_read_error(CMD, path, pd, ret);
		perfring_perfdata_free(pd);
		return ret;
	}

	/* perf's note on a file with an AUX area (HEADER_AUXTRACE, feature 18):
	 * what its decoder would synthesize is not counted */
	printf("\nAggregated stats:%s\n", perfring_perfdata_has_feature(pd, 18)
						  ? " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
						  : "");
	report_line("TOTAL", total, total, false);
	for (i = 1; i < PD_TYPE_MAX; i++)
		if (counts[i] && pd_type_name(i))
			report_line(pd_type_name(i), counts[i], total, true);
	for (i = 1; i < PD_TYPE_MAX; i++)
		if (counts[i] && !pd_type_name(i))
			other += counts[i];
	if (other)
		report_line("UNKNOWN", other, total, true);

	nattr = perfring_perfdata_attr_cnt(pd);
	for (i = 0; i < nattr; i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		/* Like perf, only the events that have something to count. */
		if (i >= nev || (!ev[i].samples && !ev[i].lost_samples))
			continue;
		/* perf --stats names a pipe's events by their attrs (it prints
		 * before the names the pipe's EVENT_DESC gives are taken) */
		printf("%s stats:\n", perfring_perfdata_is_pipe(pd) && pd_attr_name(a, buf, sizeof(buf))
					       ? buf : pd_event_name(a, buf, sizeof(buf)));
		if (ev[i].samples)
			report_line("SAMPLE", ev[i].samples, 0, false);
		if (ev[i].lost_samples)
			report_line("LOST_SAMPLES", ev[i].lost_samples, 0, false);
	}
	free(ev);
	perfring_perfdata_free(pd);
	return EXIT_OK;
}

enum {
	OPT_STATS = 256,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_PERCENT_LIMIT,
	OPT_HEADER_ONLY,
	OPT_HEADER,
	OPT_STDIO,
	OPT_COMM,
	OPT_PID,
	OPT_TID,
	OPT_DSO,
	OPT_SYMBOLS,
	OPT_PERCENTAGE,
	OPT_NO_BRANCH,
	OPT_MAX_STACK,
	OPT_SHOW_PERIOD,
	OPT_NO_DEMANGLE,
};

/* An argument after -g that is its mode (perf takes `-g none`, `-g caller`), not a file or option. */
static bool looks_like_graph_spec(const char *s)
{
	static const char *const modes[] = { "none", "graph", "fractal", "flat", "folded", "caller", "callee" };
	size_t i, n;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		n = strlen(modes[i]);
		if (!strncmp(s, modes[i], n) && (s[n] == '\0' || s[n] == ','))
			return true;
	}
	return false;
}

/* tok (n bytes) begins word, as perf's parse_callchain_*() match their words */
static bool starts(const char *tok, size_t n, const char *word)
{
	return n && n <= strlen(word) && !strncmp(tok, word, n);
}

/*
 * -g's comma-separated words in any order, as perf's
 * parse_callchain_report_opt() takes them: none, or the mode graph, the
 * threshold (a percentage), the order caller or callee, the key function
 * and the value percent (each word or a start of it). perf's other modes,
 * keys and values (and a print limit) are not drawn: -1.
 */
static int parse_call_graph(const char *spec, struct report_opts *o)
{
	const char *p = spec;
	int numbers = 0;

	o->call_graph = 1;
	if (!spec)
		return 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		char *end;

		if (starts(p, n, "none")) {
			o->call_graph = 0;
			return 0;
		}
		if (starts(p, n, "caller") || starts(p, n, "callee")) {
			o->graph_order = starts(p, n, "caller");
		} else if (!starts(p, n, "graph") && !starts(p, n, "function") && !starts(p, n, "percent")) {
			double v = strtod(p, &end);

			/* the first number is the threshold; a second, perf's print limit, is not taken */
			if (!n || end != p + n || v < 0 || v > 100 || numbers++)
				return -1;
			o->graph_min = v;
		}
		p += n;
		if (*p == ',' && !*++p)
			return -1;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "sort", required_argument, NULL, 's' },
		{ "children", no_argument, NULL, OPT_CHILDREN },
		{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
		{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "call-graph", optional_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "json", no_argument, NULL, 'j' },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "show-total-period", no_argument, NULL, OPT_SHOW_PERIOD },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "dsos", required_argument, NULL, OPT_DSO },
		{ "symbols", required_argument, NULL, OPT_SYMBOLS },
		{ "cpu", required_argument, NULL, 'C' },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "branch-stack", no_argument, NULL, 'b' },
		{ "no-branch-stack", no_argument, NULL, OPT_NO_BRANCH },
		EXPORT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .children = -1, .branch = -1, .call_graph = -1, .graph_order = -1 };
	const char *path = "perf.data", *bad;
	bool stats = false, other = false, header = false;
	int c, idx, badlen;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:s:bgGjnqfC:h", longopts, &idx)) != -1) {
		if (c != 'i' && c != OPT_STATS && c != OPT_HEADER_ONLY && c != 'h' && c != OPT_STDIO)
			other = true;
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case OPT_HEADER_ONLY:
			header = true;
			break;
		case OPT_HEADER: /* perf's: the header's features, then the report */
			o.after_header = true;
			break;
		case 's':
			if (report_check_sort(optarg, &bad, &badlen))
				return tool_usage_error(CMD, "--sort: unknown key '%.*s' (keys: sym, dso, comm, pid, tid, cpu, trace, srcline; "
							"in branch mode dso_from, symbol_from, dso_to, symbol_to, cycles)",
							badlen, bad);
			o.sort = optarg;
			break;
		case OPT_CHILDREN:
			o.children = 1;
			break;
		case 'b':
		case OPT_NO_BRANCH:
			o.branch = c == 'b';
			break;
		case OPT_NO_CHILDREN:
			o.children = 0;
			break;
		case OPT_NO_DEMANGLE:
			o.no_demangle = true;
			break;
		case OPT_MAX_STACK:
			if (!pd_max_stack_parse(optarg, &o.max_stack))
				return tool_usage_error(CMD, "--max-stack: '%s' is not a number of frames", optarg);
			o.max_stack_set = true;
			break;
		case OPT_PERCENT_LIMIT:
			if (!tool_parse_seconds(optarg, 0, 100, &o.percent_limit))
				return tool_usage_error(CMD, "--percent-limit: '%s' is not a percentage (0 to 100)", optarg);
			break;
		case 'g': {
			/* perf's spelling: -g none, -g graph,0.5, --call-graph=none */
			const char *spec = optarg;

			if (!spec && optind < argc && looks_like_graph_spec(argv[optind]))
				spec = argv[optind++];
			if (parse_call_graph(spec, &o))
				return tool_usage_error(CMD, "--call-graph: '%s' is not none or graph,MIN_PERCENT,caller|callee "
							"(perf's other modes, keys and values are not drawn)", spec);
			break;
		}
		case 'G': /* perf's --inverted: the chains callers first */
			o.graph_order = 1;
			break;
		case 'j':
			o.json = true;
			break;
		case 'n':
			o.show_samples = true;
			break;
		case OPT_SHOW_PERIOD:
			o.show_period = true;
			break;
		case 'f':
			break; /* perf's "don't check the file's owner": perfring checks none */
		case 'q':
			o.quiet = true;
			break;
		case OPT_STDIO:
			break; /* perf's text output: the only one there is */
		case OPT_COMM:
			o.comms = optarg;
			break;
		case OPT_PID:
		case OPT_TID:
			if (!filter_ids_option(CMD, c == OPT_PID ? "pid" : "tid", optarg))
				return EXIT_USAGE;
			*(c == OPT_PID ? &o.pids : &o.tids) = optarg;
			break;
		case OPT_DSO:
			o.dsos = optarg;
			break;
		case 'C':
			if (!samples_cpus_option(CMD, optarg))
				return EXIT_USAGE;
			o.cpus = optarg;
			break;
		case OPT_SYMBOLS:
			o.syms = optarg;
			break;
		case OPT_PERCENTAGE:
			if (strcmp(optarg, "absolute") && strcmp(optarg, "relative"))
				return tool_usage_error(CMD, "--percentage: '%s' is neither absolute nor relative", optarg);
			o.relative = !strcmp(optarg, "relative");
			break;
		case 'h':
			cmd_report_usage(stdout);
			return EXIT_OK;
		default:
			if (export_option(&o.exports, c, optarg))
				break;
			/* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (stats && other)
		return tool_usage_error(CMD, "--stats takes no other option than -i");
	if (header && (stats || other))
		return tool_usage_error(CMD, "--header-only takes no other option than -i");
	if (header)
		return report_header(CMD, path);
	if (stats)
		return report_stats(path);
	if (export_check(CMD, &o.exports, o.json))
		return EXIT_USAGE;
	if (o.after_header) {
		int st;

		if (o.json || o.quiet || export_wanted(&o.exports))
			return tool_usage_error(CMD, "--header goes with the text report only (not --json, -q or an export)");
		fflush(stdout);
		st = report_header(CMD, path);
		fflush(stdout);
		if (st != EXIT_OK)
			return st;
	}
	return report_run(CMD, path, &o);
}

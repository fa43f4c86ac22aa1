// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring script`: by default the samples of a perf.data file as `perf
 * script` prints them, their frames named (tools/script/script.c);
 * with --dump every record, one per line, in file order (or time order
 * with --ordered), as text or as JSON objects: user records (type >= 64)
 * with their header only, kernel records with every field the record
 * layer decodes.
 */
#include <getopt.h>
#include <string.h>

#include <perfring/perfring.h>

#include "shared/filter.h"
#include "shared/samples.h"
#include "script/script.h"
#include "shared/pd_common.h"
#include "script/script_decode.h"
#include "shared/pd_emit.h"
#include "shared/tool.h"

#define CMD "script"

void cmd_script_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s script [-i FILE] [-F FIELDS] [--json] [--lines] [--max-stack N] [-C CPUS]\n"
		"                     [--comm|--pid|--tid|-S|--symbols LIST] [--ns] [--reltime|--deltatime]\n"
		"                     [--folded FILE] [--pprof FILE] [--speedscope FILE] [--by-period]\n"
		"                     [--inline|--no-inline]\n"
		"       %s script --dump [-i FILE] [--json] [--ordered]\n\n"
		"Print the samples of a perf.data file in time order as `perf script` does: a\n"
		"line per sample (comm, tid, [cpu], time, period, event; a tracepoint's fields\n"
		"from the file's tracing data) and a line per call-chain frame (address,\n"
		"symbol+offset, binary). Symbols come from the binaries (or their debug files\n"
		"found by build id, ~/.debug included) and /proc/kallsyms.\n"
		"The exports (as report's) take every sample of the file, each event, with the\n"
		"frames as printed; an export to '-' replaces the listing on standard output.\n"
		"With --dump: every record, one per line: its file offset, size, type and\n"
		"decoded fields (a SAMPLE's ip, pid, tid, time, cpu, period, call chain, ...).\n"
		"Records of a COMPRESSED record carry that record's offset.\n\n"
		"Options:\n"
		"  -i, --input FILE        the file to read (default perf.data; '-': standard input)\n"
		"  -j, --json              one JSON object per line (per sample: comm, pid, tid, cpu,\n"
		"                          time, period, event, frames[] with addr, symbol, offset,\n"
		"                          dso, build_id, kernel, map_*; tracepoints: trace, fields;\n"
		"                          memory samples: data_addr, data_src(_text), weight, ins_lat)\n"
		"  -F, --fields [TYPE:]LIST  the listing's fields, as perf script -F: LIST of comm,\n"
		"                          tid, pid, time, cpu, event, trace, ip, sym, symoff, dso,\n"
		"                          addr, period, srcline, data_src, weight, ins_lat, or\n"
		"                          +FIELD/-FIELD changing the default ones; TYPE (hw, sw,\n"
		"                          trace, raw, break) limits it to those events ('trace:'\n"
		"                          hides them); repeatable\n"
		"      --lines             each frame's source file and line (DWARF; in pprof too)\n"
		"      --max-stack N       show N frames of each call chain at most (default\n"
		"                          kernel.perf_event_max_stack)\n"
		"      --no-demangle       C++ and Rust functions by their mangled names\n"
		"  -C, --cpu LIST          only the samples taken on these CPUs (0-2,5)\n"
		"      --comm LIST         only the samples of threads with these names (a,b)\n"
		"      --pid LIST          only the samples of these processes (12,345)\n"
		"      --tid LIST          only the samples of these threads\n"
		"  -S, --symbols LIST      only the samples whose own function is one of these\n"
		"      --ns                times with nanoseconds (SECS.NNNNNNNNN)\n"
		"      --reltime           times since the first sample shown\n"
		"      --deltatime         times since the previous sample shown\n"
		"  -f, --force             accepted as perf takes it (perfring checks no file owner)\n"
		EXPORT_HELP
		"                          --inline shows them in the listing and --json too: the\n"
		"                          functions inlined at a call-chain frame's address come\n"
		"                          before it as NAME+0xOFF (inlined) lines, as perf script\n"
		"                          --inline prints them (JSON: \"inlined\": true)\n"
		"      --dump              every record decoded, not the samples named\n"
		"      --ordered           with --dump: in time order, as perf sorts them\n"
		"  -h, --help              show this help\n\n"
		"Exit status: 0 on success, 1 when the file cannot be opened or is corrupt, or a\n"
		"sample could not be decoded (the others are listed; with --dump: a record, printed\n"
		"with its error), 2 for a bad command line.\n",
		TOOL_NAME, TOOL_NAME);
}

/* Returns false when the record could not be decoded (written as an error). */
static bool script_record(struct pd_emit *e, const struct perfring_perfdata_record *r)
{
	const char *name = pd_type_name(r->type);
	struct perfring_decoded d;
	char evbuf[64];
	bool ok = true;
	int err;

	pd_emit_begin(e);
	if (e->json) {
		pd_emit_u64(e, "offset", r->offset);
		pd_emit_u64(e, "size", r->size);
		pd_emit_u64(e, "type", r->type);
		pd_emit_str(e, "type_name", name ? name : "UNKNOWN");
	} else {
		fprintf(e->f, "%#llx [%#x] %s", (unsigned long long)r->offset, r->size, name ? name : "UNKNOWN");
		e->first = false;
		if (!name)
			pd_emit_u64(e, "type", r->type);
	}
	pd_emit_x64(e, "misc", r->misc);
	if (r->from_compressed)
		pd_emit_bool(e, "from_compressed", true);
	if (r->payload_len)
		pd_emit_u64(e, "payload_len", r->payload_len);
	if (r->type < PERFRING_RECORD_HEADER_ATTR) {
		if (!r->attr) {
			pd_emit_str(e, "error", "no event (attr) for this record");
			pd_emit_str(e, "error_field", "attr");
			ok = false;
		} else if ((err = perfring_record_parse(&r->attr->cfg, r->data, r->size, &d)) < 0) {
			const char *msg = perfring_errmsg();

			pd_emit_str(e, "error", msg && *msg ? msg : perfring_strerror(err));
			pd_emit_str(e, "error_field", d.error_field ? d.error_field : "");
			ok = false;
		} else {
			if (r->type == 9)
				pd_emit_str(e, "event", pd_event_name(r->attr, evbuf, sizeof(evbuf)));
			pd_emit_decoded(e, &d);
		}
	}
	pd_emit_end(e);
	return ok;
}

/* Long options without a short one (below the exports' values, shared/export.h). */
enum {
	OPT_COMM = 0x100,
	OPT_PID,
	OPT_TID,
	OPT_NS,
	OPT_RELTIME,
	OPT_DELTATIME,
	OPT_NO_DEMANGLE,
};

int cmd_script(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "ordered", no_argument, NULL, 'o' },
		{ "dump", no_argument, NULL, 'D' },
		{ "lines", no_argument, NULL, 'L' },
		{ "fields", required_argument, NULL, 'F' },
		{ "max-stack", required_argument, NULL, 'M' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "cpu", required_argument, NULL, 'C' },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "symbols", required_argument, NULL, 'S' },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "reltime", no_argument, NULL, OPT_RELTIME },
		{ "deltatime", no_argument, NULL, OPT_DELTATIME },
		{ "force", no_argument, NULL, 'f' },
		EXPORT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pd_emit e = { .f = stdout };
	const char *path = "perf.data";
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	uint64_t bad = 0;
	struct script_opts sopts = { 0 };
	bool ordered = false, dump = false, exports = false;
	int c, idx, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:jF:C:S:fh", longopts, &idx)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case 'j':
			e.json = true;
			break;
		case 'o':
			ordered = true;
			break;
		case 'D':
			dump = true;
			break;
		case 'L':
			sopts.lines = true;
			break;
		case 'F': {
			char err[256];

			if (script_fields_parse(&sopts.fields, optarg, CMD, err, sizeof(err)))
				return tool_usage_error(CMD, "%s", err);
			break;
		}
		case OPT_NO_DEMANGLE:
			sopts.no_demangle = true;
			break;
		case 'M':
			if (!pd_max_stack_parse(optarg, &sopts.max_stack))
				return tool_usage_error(CMD, "--max-stack: '%s' is not a number of frames", optarg);
			sopts.max_stack_set = true;
			break;
		case 'C':
			if (!samples_cpus_option(CMD, optarg))
				return EXIT_USAGE;
			sopts.cpus = optarg;
			break;
		case OPT_COMM:
			sopts.comms = optarg;
			break;
		case OPT_PID:
		case OPT_TID:
			if (!filter_ids_option(CMD, c == OPT_PID ? "pid" : "tid", optarg))
				return EXIT_USAGE;
			*(c == OPT_PID ? &sopts.pids : &sopts.tids) = optarg;
			break;
		case 'S':
			sopts.syms = optarg;
			break;
		case OPT_NS:
			sopts.time_ns = true;
			break;
		case OPT_RELTIME:
			sopts.reltime = true;
			break;
		case OPT_DELTATIME:
			sopts.deltatime = true;
			break;
		case 'f':
			break; /* perf's "don't check the file's owner": perfring checks none */
		case 'h':
			cmd_script_usage(stdout);
			return EXIT_OK;
		default:
			if (export_option(&sopts.exports, c, optarg)) {
				exports = true;
				break;
			}
			/* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (!dump) {
		if (ordered)
			return tool_usage_error(CMD, "--ordered goes with --dump (samples are always in time order)");
		if (sopts.reltime && sopts.deltatime)
			return tool_usage_error(CMD, "--reltime and --deltatime do not go together");
		sopts.json = e.json;
		if (sopts.json && sopts.fields.given)
			return tool_usage_error(CMD, "-F/--fields chooses the listing's fields; --json prints them all");
		sopts.exports.listing_inlines = true;
		if (export_check(CMD, &sopts.exports, sopts.json))
			return EXIT_USAGE;
		return script_run(CMD, path, &sopts);
	}
	if (sopts.lines)
		return tool_usage_error(CMD, "--lines does not go with --dump");
	if (sopts.cpus || sopts.comms || sopts.pids || sopts.tids || sopts.syms)
		return tool_usage_error(CMD, "the filters (--cpu, --comm, --pid, --tid, --symbols) do not go with "
					     "--dump (every record is dumped)");
	if (sopts.time_ns || sopts.reltime || sopts.deltatime)
		return tool_usage_error(CMD, "--ns, --reltime and --deltatime do not go with --dump");
	if (sopts.fields.given)
		return tool_usage_error(CMD, "-F/--fields does not go with --dump");
	if (exports && !export_wanted(&sopts.exports) && !sopts.exports.modifiers)
		return tool_usage_error(CMD, "--inline and --no-inline do not go with --dump");
	if (exports)
		return tool_usage_error(CMD, "the exports (--folded, --pprof, --speedscope) do not go with --dump");

	pd = pd_open(CMD, path, ordered);
	if (!pd)
		return EXIT_ERROR;
	while ((ret = perfring_perfdata_next(pd, &r)) > 0)
		if (!script_record(&e, &r))
			bad++;
	fflush(stdout);
	/* after a fatal error its line alone (one line is the rule) */
	if (ret >= 0 && perfring_perfdata_early_flushed(pd))
		fprintf(stderr, "perfring %s: warning: %s: time ordering reached its memory bound (no FINISHED_ROUND "
				"for too long): %llu record(s) were delivered before their round ended, so order "
				"may be imperfect\n",
			CMD, path, (unsigned long long)perfring_perfdata_early_flushed(pd));
	if (ret < 0) {
		ret = pd_read_error(CMD, path, pd, ret);
	} else if (bad) {
		ret = tool_error(CMD, "%s: %llu record(s) could not be decoded (printed with their error)", path,
				 (unsigned long long)bad);
	} else {
		ret = EXIT_OK;
	}
	perfring_perfdata_free(pd);
	return ret;
}

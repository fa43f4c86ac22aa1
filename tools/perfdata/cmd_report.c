// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --stats`: count the records of a perf.data file by type,
 * the way `perf report --stats` does (every record the file holds, user
 * records such as FINISHED_ROUND included, COMPRESSED records and the
 * records inside them both counted), then the samples of each event.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

#include "perfdata/pd_common.h"
#include "shared/tool.h"

#define CMD "report"

void cmd_report_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s report --stats [-i FILE]\n\n"
		"Read a perf.data file (file or pipe mode, either byte order, zstd-compressed\n"
		"records expanded) and print the number of records of each type, as\n"
		"`perf report --stats` does, then the SAMPLE and LOST_SAMPLES counts per event.\n\n"
		"Options:\n"
		"  -i, --input FILE   the file to read (default perf.data; '-': standard input)\n"
		"      --stats        print the record counts (the only report for now)\n"
		"  -h, --help         show this help\n\n"
		"Exit status: 0 on success, 1 when the file cannot be opened or is corrupt (the\n"
		"error names the offset), 2 for a bad command line.\n",
		TOOL_NAME);
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
					ev[i].lost_samples++;
			}
		}
	}
	if (ret < 0) {
		free(ev);
		ret = pd_read_error(CMD, path, pd, ret);
		perfring_perfdata_free(pd);
		return ret;
	}

	printf("\nAggregated stats:\n");
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
		printf("%s stats:\n", pd_event_name(a, buf, sizeof(buf)));
		if (ev[i].samples)
			report_line("SAMPLE", ev[i].samples, 0, false);
		if (ev[i].lost_samples)
			report_line("LOST_SAMPLES", ev[i].lost_samples, 0, false);
	}
	free(ev);
	perfring_perfdata_free(pd);
	return EXIT_OK;
}

enum { OPT_STATS = 256 };

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "perf.data";
	bool stats = false;
	int c, idx;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case OPT_STATS:
			stats = true;
			break;
		case 'h':
			cmd_report_usage(stdout);
			return EXIT_OK;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (!stats)
		return tool_usage_error(CMD, "only --stats is implemented: give --stats");
	return report_stats(path);
}

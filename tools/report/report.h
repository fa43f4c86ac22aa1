/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring report` (without --stats): the samples of a perf.data file
 * grouped by sort keys and sorted by overhead, as `perf report --stdio`.
 */
#ifndef PERFRING_TOOL_REPORT_H
#define PERFRING_TOOL_REPORT_H

#include <stdbool.h>

#include "shared/export.h"

struct report_opts {
	const char *sort;       /* "sym", "dso,sym", "comm,dso,sym" (NULL: perf's default, comm,dso,sym) */
	int children;           /* 1 --children, 0 --no-children, -1 as perf: when the file has call chains */
	int branch;             /* branch mode (an entry per branch taken): 1 --branch-stack,
				 * 0 --no-branch-stack, -1 as perf: when the file has branch stacks */
	double percent_limit;   /* hide entries below this percentage */
	bool json;
	/* Call graphs under the entries, as perf report --stdio draws them (-g
	 * graph): 1 drawn, 0 not (-g none), -1 as perf: when the file has call
	 * chains. graph_min: the percent of the event's period a branch needs
	 * (perf's 0.5 when 0, or --percent-limit when that is given). */
	int call_graph;
	double graph_min;
	/* The chains' order (perf's -g caller|callee, -G): 1 callers first
	 * (root first), 0 callees first, -1 as perf: callers with children,
	 * callees with --no-children. */
	int graph_order;
	bool show_samples;      /* -n: a Samples column (the entry's own samples) */
	bool show_period;       /* --show-total-period: a Period column (the entry's own period) */
	bool quiet;             /* -q: no header lines */
	bool after_header;      /* --header: the file's header was printed before: no title */
	/* Only the samples of these (comma-separated lists; NULL: all), as perf
	 * report --comm, --pid, --tid, --dso (the leaf frame's binary, short or
	 * full name), --symbols (the leaf frame's function). */
	const char *comms, *pids, *tids, *dsos, *syms;
	const char *cpus;       /* --cpu: the others are left out before anything counts them */
	bool relative;          /* --percentage relative: of the samples kept, not of all */
	int max_stack;          /* --max-stack: frames of a chain taken, when max_stack_set */
	bool max_stack_set;     /* (else the kernel's limit, kernel.perf_event_max_stack) */
	bool no_demangle;       /* --no-demangle: functions by their mangled names */
	struct export_opts exports;
};

/* Returns the exit status (errors printed). */
int report_run(const char *cmd, const char *path, const struct report_opts *opts);

/* Checks a --sort value: 0, or -1 with the bad key in *bad. */
int report_check_sort(const char *sort, const char **bad, int *badlen);

#endif

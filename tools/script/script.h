/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring script`'s default output: each sample as `perf script` prints
 * it (a header line, then one line per frame), or as one JSON object.
 */
#ifndef PERFRING_TOOL_SCRIPT_H
#define PERFRING_TOOL_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>

#include "shared/export.h"
#include "script/fields.h"

struct script_opts {
	bool json;
	bool lines;              /* source file:line after each frame */
	struct script_fields fields; /* -F: each line's fields (none given: perf script's defaults) */
	struct export_opts exports; /* every sample into them; one to '-' replaces the listing */
	int max_stack;           /* --max-stack: frames of a chain shown, when max_stack_set */
	bool max_stack_set;      /* (else the kernel's limit, kernel.perf_event_max_stack) */
	bool no_demangle;        /* --no-demangle: functions by their mangled names */
	const char *cpus;        /* --cpu: only the samples taken on these CPUs (NULL: all) */
	/* perf script's filters (NULL: none): --comm, --pid, --tid on the sample's thread,
	 * --symbols on its own frame's function (comma-separated lists) */
	const char *comms, *pids, *tids, *syms;
	bool time_ns;            /* --ns: times with nanoseconds ("%5lu.%09lu: ") */
	bool reltime;            /* --reltime: times since the first sample shown */
	bool deltatime;          /* --deltatime: times since the previous sample shown */
};

/* Run script on path; returns the exit status (errors printed). */
int script_run(const char *cmd, const char *path, const struct script_opts *opts);

#endif

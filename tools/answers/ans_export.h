/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exports of `perfring report` and `perfring script` (--folded FILE,
 * --pprof FILE, --speedscope FILE): each sample becomes a prof_sample
 * (tools/export/profile.h) added to one profile, written at the end by the
 * encoders of tools/export/. A build without those encoders says so.
 */
#ifndef PERFRING_TOOL_ANS_EXPORT_H
#define PERFRING_TOOL_ANS_EXPORT_H

#include <stdbool.h>

#include "answers/ans_samples.h"

struct ans_export_opts {
	const char *folded;     /* FILE ("-": standard output) */
	const char *pprof;
	const char *speedscope;
	bool by_period;         /* folded: counts are periods, not samples */
};

/* Any export asked for. */
bool ans_export_wanted(const struct ans_export_opts *o);

struct ans_export;

/* NULL with the error printed (no encoders in this build, out of memory). */
struct ans_export *ans_export_new(const char *cmd, const struct ans_export_opts *o);
/* Add one sample (events named from r). 0, or -errno (printed). */
int ans_export_add(struct ans_export *x, const struct ans_reader *r, const struct ans_sample *a);
/* Write the files; returns the tool's exit status. Frees x. */
int ans_export_finish(struct ans_export *x, const char *title);
void ans_export_free(struct ans_export *x);

#endif

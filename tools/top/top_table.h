/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring top`'s aggregation: the samples of the last few intervals,
 * each kept as its named frames (ids of interned functions), from which a
 * view (the table of hottest functions, under any filter) is computed at
 * each refresh.
 *
 * Keeping the samples rather than counts is what lets every filter (a
 * command, a binary, a CPU, one process) and both orders (self, children)
 * be applied to the same window after the fact. Memory is bounded twice:
 * samples older than the window are dropped with their bucket (one bucket
 * per interval), and a window holds at most max_samples samples and
 * max_frames frames (the rest is counted as dropped). Functions and
 * command names are interned with a reference count, so that a process
 * that exited is forgotten once its last sample has left the window.
 */
#ifndef PERFRING_TOOL_TOP_TABLE_H
#define PERFRING_TOOL_TOP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOP_NONE UINT32_MAX

struct top_table;

struct top_table *top_table_new(unsigned window, size_t max_samples, size_t max_frames);
void top_table_free(struct top_table *t);

/* Intern a (name, dso) pair: a function (name NULL: unnamed, grouped per
 * binary as "[unknown]"), or a command name (dso NULL). Returns its id
 * holding one reference for the caller, or TOP_NONE without memory. */
uint32_t top_table_intern(struct top_table *t, const char *name, const char *dso, bool kernel);
void top_table_ref(struct top_table *t, uint32_t id);
void top_table_unref(struct top_table *t, uint32_t id);
const char *top_table_name(const struct top_table *t, uint32_t id); /* "[unknown]" when unnamed */
const char *top_table_dso(const struct top_table *t, uint32_t id);  /* "" for a command name */
bool top_table_kernel(const struct top_table *t, uint32_t id);
bool top_table_unnamed(const struct top_table *t, uint32_t id);

struct top_sample {
	uint64_t period; /* its weight, as perf report's Overhead */
	uint32_t pid, tid;
	int32_t cpu;
	uint32_t comm;   /* an interned command name */
};

/* Add a sample whose frames (interned functions, [0] the leaf) are
 * frames[0..n); the table takes its own references. Returns 0, or 1 when
 * the window is full (the sample is counted as dropped). */
int top_table_add(struct top_table *t, const struct top_sample *s, const uint32_t *frames, size_t n);
/* Samples the kernel lost in the rings, for this interval. */
void top_table_lost(struct top_table *t, uint64_t n);
/* Start the next interval: the oldest one leaves the window. */
void top_table_tick(struct top_table *t);
/* Empty the whole window (the UI's "zero"). */
void top_table_clear(struct top_table *t);

struct top_filter {
	const char *comms; /* comma-separated command names; NULL: all */
	const char *dsos;  /* comma-separated binaries (full path or base name); NULL: all */
	int32_t cpu;       /* -1: all */
	int64_t pid;       /* -1: all (the UI's zoom into one process) */
	bool hide_kernel, hide_user; /* rows only: shares stay of every sample */
};

enum top_sort { TOP_SORT_SELF, TOP_SORT_CHILDREN, TOP_SORT_NAME, TOP_SORT_N };

struct top_row {
	uint32_t sym;
	uint64_t self, children; /* sums of periods */
	uint64_t nself;          /* samples */
};

struct top_view {
	struct top_row *rows;  /* sorted; owned by the view */
	size_t nrows;
	uint64_t total;        /* period of the samples that passed the filter */
	uint64_t nsamples;     /* how many */
	uint64_t unnamed;      /* period of those whose leaf has no name */
	uint64_t lost;         /* samples lost in the rings, in the window */
	uint64_t all_samples;  /* samples in the window before filtering */
	uint64_t dropped;      /* samples the window's bound left out */
	uint64_t procs;        /* processes seen in the filtered samples */
};

/* The table for filter f, sorted by key (ties by name). 0 or -ENOMEM. */
int top_table_view(struct top_table *t, const struct top_filter *f, enum top_sort key, struct top_view *v);
void top_view_free(struct top_view *v);

/* The process with the most self samples in sym under f: -1 when none. */
int64_t top_table_busiest_pid(const struct top_table *t, const struct top_filter *f, uint32_t sym);

/* The callers of sym: the most frequent call chains of the samples whose
 * leaf is sym (under f), each up to depth frames from the leaf, into
 * chains[i][0..depth) (TOP_NONE-padded) with weights[i]. Returns how many
 * (at most max), heaviest first. */
size_t top_table_callers(const struct top_table *t, const struct top_filter *f, uint32_t sym, size_t depth,
			 uint32_t *chains, uint64_t *weights, size_t max);

/* Whether a comma-separated list holds s (a binary also by its base name). */
bool top_list_has(const char *list, const char *s, bool basename_too);

#endif

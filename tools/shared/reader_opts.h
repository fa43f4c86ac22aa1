/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reader options `perfring trace` and `perfring pipe` share, parsed in
 * one place so that they are spelled, bounded and reported alike:
 * -b/--buffer-pages, --wakeup-bytes, --wakeup-events, --max-delay-ms and
 * -C/--cpu (perf's spelling, as `perfring record` has it). A command puts
 * TOOL_READER_SHORTOPTS and TOOL_READER_LONGOPTS in its getopt tables and
 * hands each option to tool_reader_opt() first.
 */
#ifndef PERFRING_TOOL_READER_OPTS_H
#define PERFRING_TOOL_READER_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include <perfring/reader.h>

#define TOOL_MAX_CPUS 4096

/* getopt_long() values of the long-only options: above any a command uses. */
enum {
	TOOL_READER_OPT_WAKEUP_BYTES = 0x1000,
	TOOL_READER_OPT_WAKEUP_EVENTS,
	TOOL_READER_OPT_MAX_DELAY,
};

#define TOOL_READER_SHORTOPTS "b:C:"
#define TOOL_READER_LONGOPTS                                                                  \
	{ "buffer-pages", required_argument, NULL, 'b' },                                     \
	{ "cpu", required_argument, NULL, 'C' },                                              \
	{ "wakeup-bytes", required_argument, NULL, TOOL_READER_OPT_WAKEUP_BYTES },           \
	{ "wakeup-events", required_argument, NULL, TOOL_READER_OPT_WAKEUP_EVENTS },         \
	{ "max-delay-ms", required_argument, NULL, TOOL_READER_OPT_MAX_DELAY }

struct tool_reader_opts {
	uint64_t buffer_pages;  /* per CPU, a power of two; the command's default until given */
	uint64_t wakeup_bytes;  /* 0: not given */
	uint64_t wakeup_events; /* 0: not given */
	uint64_t max_delay_ms;  /* 0: no bound; 100 until given */
	int cpus[TOOL_MAX_CPUS];
	int ncpus;              /* 0: every online CPU */
	const char *cpu_list;   /* -C as given, for messages; NULL: not given */
};

/* Defaults: buffer_pages pages a ring, a delay bound of 100 ms, every CPU. */
void tool_reader_opts_init(struct tool_reader_opts *o, uint64_t buffer_pages);

/* Take option c (getopt_long()'s value) with its argument: 0 when taken,
 * 1 when c is not a reader option, or the usage error's exit status. */
int tool_reader_opt(const char *cmd, int c, const char *arg, struct tool_reader_opts *o);

/* What the options say together (one wakeup policy, below the ring size),
 * once all are parsed: 0 or the usage error's exit status. */
int tool_reader_opts_check(const char *cmd, const struct tool_reader_opts *o);

/* Into the reader's options: ring size, delay bound, CPUs, the wakeup
 * policy given or, when none was, wakeup_bytes = default_wakeup_bytes. */
void tool_reader_opts_apply(const struct tool_reader_opts *o, struct perfring_reader_opts *ro,
			    uint32_t default_wakeup_bytes);

/* The ring size in bytes: buffer_pages pages. */
uint64_t tool_reader_ring_bytes(const struct tool_reader_opts *o);

/* A -C/--cpu list into cpus (at most max): the count, or, with the usage
 * error said, -(its exit status). */
int tool_cpu_list(const char *cmd, const char *list, int *cpus, int max);

/* Each of cpus[0..n) online: 0, or the error said ("CPU 3 of -C LIST is not
 * online") and its exit status. list is how the user wrote them. */
int tool_cpus_online(const char *cmd, const int *cpus, int n, const char *list);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The perfring command-line tool: subcommands and shared helpers. */
#ifndef PERFRING_TOOL_H
#define PERFRING_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <perfring/common.h>

#define TOOL_NAME "perfring"

/* Exit statuses, as documented in perfring(1). */
#define EXIT_OK 0
#define EXIT_ERROR 1 /* the command could not do its job (privileges, kernel support, ...) */
#define EXIT_USAGE 2 /* bad command line */

struct tool_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
	void (*usage)(FILE *f);
};

/* tools/record/cmd_record.c: perf events into a perf.data file */
int cmd_record(int argc, char **argv);
void cmd_record_usage(FILE *f);

/* tools/report/cmd_report.c, cmd_script.c: perf.data files */
int cmd_report(int argc, char **argv);
void cmd_report_usage(FILE *f);
int cmd_script(int argc, char **argv);
void cmd_script_usage(FILE *f);

/* tools/trace/cmd_trace.c: any tracepoints through a generic BPF program and a perf event array */
int cmd_trace(int argc, char **argv);
void cmd_trace_usage(FILE *f);

/* tools/top/cmd_top.c: the hottest functions now, as perf top */
int cmd_top(int argc, char **argv);
void cmd_top_usage(FILE *f);

/* tools/profile/cmd_profile.c: a continuous profiler, profiles every interval */
int cmd_profile(int argc, char **argv);
void cmd_profile_usage(FILE *f);

/* tools/pipe/cmd_pipe.c: the samples of a perf event array another program loaded */
int cmd_pipe(int argc, char **argv);
void cmd_pipe_usage(FILE *f);

/* tools/shared/util.c */

/* "perfring CMD: message (try 'perfring CMD --help')" on stderr; returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int tool_usage_error(const char *cmd, const char *fmt, ...);
/* The error for what getopt_long() returned as c, ':' (a value missing) or
 * '?' (an unknown option): the message and EXIT_USAGE. Call it right after
 * getopt_long(), while optind and optopt still describe the option. */
int tool_option_error(const char *cmd, int c, char **argv);

/* "perfring CMD: message" on stderr; returns EXIT_ERROR. */
__attribute__((format(printf, 2, 3))) int tool_error(const char *cmd, const char *fmt, ...);

/* Parse a whole decimal number within [min, max]; false on anything else. */
bool tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Parse a non-negative decimal number of seconds ("2", "0.5") within [min, max]. */
bool tool_parse_seconds(const char *s, double min, double max, double *out);

/* CLOCK_MONOTONIC in nanoseconds: the clock of bpf_ktime_get_ns(). */
uint64_t tool_now_ns(void);

/* A perfring_set_log() callback: "libperfring LEVEL: message" on stderr. */
void tool_log_to_stderr(enum perfring_log_level level, const char *msg, void *ctx);

/* libbpf's messages: its warnings and errors on stderr with verbose, none
 * without (the tool prints one line of its own when something fails). */
void tool_libbpf_messages(bool verbose);

/* "512 B", "4.0 KiB", "1.5 MiB" into buf. */
const char *tool_fmt_bytes(uint64_t bytes, char *buf, size_t len);

#endif

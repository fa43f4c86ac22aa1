/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the perf.data subcommands (report, script). */
#ifndef PERFRING_TOOL_PD_COMMON_H
#define PERFRING_TOOL_PD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <perfring/perfdata.h>

/* One past the highest record type the subcommands name (COMPRESSED2 = 83). */
#define PD_TYPE_MAX 84

/* perf's name for a record type ("SAMPLE", "ATTR", "FEATURE", ...), or NULL
 * when perf has none. The names are those of `perf report --stats`. */
const char *pd_type_name(uint32_t type);

/* Open PATH ("-": standard input), a large file with the readahead thread;
 * on failure print "perfring CMD: PATH: why" and return NULL. */
struct perfring_perfdata *pd_open(const char *cmd, const char *path, bool ordered);
/* The same with the caller's opts. */
struct perfring_perfdata *pd_open_opts(const char *cmd, const char *path, const struct perfring_perfdata_opts *opts);

/* After perfring_perfdata_next() failed with err: print the one-line error
 * with its offset; returns EXIT_ERROR. */
int pd_read_error(const char *cmd, const char *path, struct perfring_perfdata *pd, int err);

/* The event's name: from the file, or perf's name for the attr's type and
 * config ("cycles", "cpu-clock", ...), or "type:config". */
const char *pd_event_name(const struct perfring_perfdata_attr *a, char *buf, size_t len);
/* The name perf gives a hardware or software event from its attr alone
 * (type, config and modifiers): buf, or NULL for other events. */
const char *pd_attr_name(const struct perfring_perfdata_attr *a, char *buf, size_t len);

/* A clock as perf record -k takes it: a number, or monotonic, monotonic_raw,
 * realtime, boottime, tai (optionally CLOCK_-prefixed, any case) and the
 * shorthands mono, raw, real, boot. false for anything else. */
bool pd_clock_parse(const char *s, int32_t *id);

/* --max-stack N of report and script: true with *max, else false (arg is
 * not a count of frames: the caller says so). */
bool pd_max_stack_parse(const char *arg, int *max);

/* `report --header-only`: print PATH's decoded feature sections as perf
 * report --header-only words them; an exit status. */
int report_header(const char *cmd, const char *path);

/* The clock's name ("monotonic", ...), or NULL for a number perf does not name. */
const char *pd_clock_name(int32_t id);

#endif

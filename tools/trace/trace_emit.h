/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring trace` output: one aligned line per event (time, CPU, comm,
 * pid, event, then name=value per field) or one JSON object per event with
 * typed fields. Field names are the format's own.
 */
#ifndef PERFRING_TRACE_EMIT_H
#define PERFRING_TRACE_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace_decode.h"

struct trace_emit {
	FILE *f;
	bool json;
	uint64_t start_ns;  /* times are shown relative to this CLOCK_MONOTONIC instant */
	int name_width;     /* the EVENT column's width: the longest event name */
};

/* The column titles of the text format (nothing for JSON). */
void trace_emit_header(const struct trace_emit *te);

/* One event, unread of whose user strings could not be read (trace_sample_unread()). */
void trace_emit_event(const struct trace_emit *te, const struct trace_sample *s, int cpu, size_t unread);

/* Events lost on a CPU (-1: the ring buffer's): reported by a LOST record,
 * or, at_end, the rest of the program's count that no record reported. */
void trace_emit_lost(const struct trace_emit *te, int cpu, uint64_t lost, uint64_t now_ns, bool at_end);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoint samples of a perf.data file, decoded with the formats of its
 * tracing data (HEADER_TRACING_DATA: the feature section in file mode, the
 * record's payload in pipe mode), parsed by libtraceevent as perf does
 * (util/trace-event-read.c reads the same layout).
 */
#ifndef PERFRING_TOOL_TRACING_H
#define PERFRING_TOOL_TRACING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shared/pd_emit.h"

struct tracing;

/* Parse the tracing data (len bytes). NULL with a one-line reason in err
 * when it is not tracing data or is damaged (bounds checked throughout). */
struct tracing *tracing_new(const void *data, size_t len, char *err, size_t errlen);
/* The same, the event formats only counted when formats is false (the
 * layout is still read and checked): the fuzz target's way to test this
 * reader without libtraceevent's format parser, which is not perfring's. */
struct tracing *tracing_new2(const void *data, size_t len, bool formats, char *err, size_t errlen);
void tracing_free(struct tracing *t);
/* Kernel addresses printed as functions (the formats' %pS, %ps, %pF, %pf:
 * call_site=sched_setaffinity+0x10c) are named by resolve(ctx, addr,
 * &start): the function's name, valid until the next call, and its start;
 * NULL where no function holds addr, printed as a number. perf registers
 * its kernel map the same way (trace_event__register_resolver()). Without
 * a resolver they print as numbers. */
typedef const char *(*tracing_resolve_fn)(void *ctx, uint64_t addr, uint64_t *start);
void tracing_set_resolver(struct tracing *t, tracing_resolve_fn resolve, void *ctx);
/* Formats parsed. */
int tracing_count(const struct tracing *t);

/* The fields of tracepoint id's record raw (len bytes) as perf script shows
 * them (the format's print fmt); nothing when t is NULL or has no format
 * for id. */
void tracing_print(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu, FILE *f);
/* The same text, allocated (the caller frees it; "" when there is no
 * format for id), NULL when out of memory. */
char *tracing_text(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu);
/* The same as JSON: "trace": the printed text, "fields": {name: value}. */
void tracing_emit(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu,
		      struct pd_emit *e);

#endif

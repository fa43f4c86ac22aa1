/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring top`'s naming of frames: (pid, address, cpumode) to an interned
 * (function, binary) of the table, as perf names them (the binary as mapped,
 * [kernel.kallsyms] or the module, [unknown] when no mapping holds the
 * address; functions demangled). All of it is here so that it can become a
 * call of the library's perfring_stacks_* (include/perfring/stack.h) alone.
 *
 * Names are cached by (pid, address) with a bound; a process the model
 * has never seen is loaded from /proc once (it started between the scan
 * of /proc and its first record).
 */
#ifndef PERFRING_TOOL_TOP_NAMES_H
#define PERFRING_TOOL_TOP_NAMES_H

#include <stdint.h>

#include <perfring/perfring.h>

#include "top/top_table.h"

struct top_names;

struct top_names *top_names_new(struct top_table *t);
void top_names_free(struct top_names *n);

/* The interned function of addr in pid (cpumode: PERF_RECORD_MISC_*); gen
 * tells the process's images apart (a new one at each exec). The
 * id is the cache's (valid until the next call): the table's
 * top_table_add() takes its own reference. TOP_NONE without memory. */
uint32_t top_names_frame(struct top_names *n, struct perfring_procs *procs, uint32_t pid, uint64_t addr,
			 unsigned cpumode, uint32_t gen);

/* Forget the cached names (mappings changed, or a new process model). With
 * symbols, the symbolizer too (its own cache only grows): binaries are
 * read again when next named. */
void top_names_flush(struct top_names *n, bool symbols);

/* What the naming holds: addresses cached, and the symbolizer's. */
size_t top_names_cached(const struct top_names *n);
uint64_t top_names_symbolizer_entries(const struct top_names *n);

#endif

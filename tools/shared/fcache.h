/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Named frames cached by (pid, cpumode, address), for the sample walker
 * (samples.c): a profile repeats the same addresses in the same
 * processes, and naming one takes a mapping lookup, a symbol search and,
 * for anonymous memory, a JIT map lookup. An entry holds while its
 * process's mappings have not changed: each process (and the kernel, pid
 * PERFRING_PID_KERNEL) has a generation, bumped by the records that change
 * what an address means (MMAP, MMAP2, an exec COMM, a FORK of that pid,
 * KSYMBOL for the kernel).
 */
#ifndef PERFRING_TOOL_FCACHE_H
#define PERFRING_TOOL_FCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/samples.h"

struct fcache;

struct fcache *fcache_new(void);
void fcache_free(struct fcache *c);

/* The mappings of pid changed: its cached frames are stale. */
void fcache_changed(struct fcache *c, uint32_t pid);

/* The frame of (pid, cpumode, addr) named in pid's current generation: true and *f set. */
bool fcache_get(struct fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, struct named_frame *f);
void fcache_put(struct fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, const struct named_frame *f);

/*
 * The frames an unwound user frame at (pid, addr) expands to with the
 * functions inlined there (samples.c's inline_frames(): a symbol and a
 * DWARF lookup, a name formatted and interned per function), kept as the
 * named frames are, while pid's mappings stay: their count (0 when none
 * is kept) and *frames.
 */
size_t fcache_get_inlines(struct fcache *c, uint32_t pid, uint64_t addr, const struct named_frame **frames);
void fcache_put_inlines(struct fcache *c, uint32_t pid, uint64_t addr, const struct named_frame *frames,
			    size_t n);

#endif

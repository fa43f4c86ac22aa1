/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DWARF unwinding of a sample's copied user stack (perf record --call-graph
 * dwarf), with elfutils' libdwfl as perf does it (unwind_stack.c).
 */
#ifndef PERFRING_TOOL_UNWIND_H
#define PERFRING_TOOL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/record.h>
#include <perfring/symbol.h>

/* Keeps a Dwfl per process (the binaries' ELF and call frame information
 * read once for all its samples). */
struct unwinder;
struct unwinder *unwinder_new(void);
void unwinder_free(struct unwinder *u);

/* The file holding the image of the vDSO hit is in (into buf, len bytes, or
 * a string of the callee's), NULL when there is none: the vDSO has no file,
 * and without one samples in it are not unwound. */
typedef const char *(*vdso_file_fn)(void *arg, const struct perfring_map_hit *hit, char *buf, size_t len);
void unwinder_set_vdso(struct unwinder *u, vdso_file_fn fn, void *arg);

/* The sample carries user registers (64-bit) and a user stack to unwind. */
bool unwind_wanted(const struct perfring_sample *s);

/* The user frames of s, innermost first, into ips (at most max): the
 * sampled user pc, then each caller's return address less one, as far as
 * the binaries' call frame information and the stack copy go. Binaries are
 * found by the process's maps in procs (the files as recorded). Returns the
 * number of frames (0: none, e.g. no binary for the pc, or not x86-64). */
size_t unwind_stack(struct unwinder *u, const struct perfring_procs *procs, const struct perfring_sample *s,
		  uint64_t *ips, size_t max);

#endif

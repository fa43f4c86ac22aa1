/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The call frame rules of the pcs a process's samples unwind through,
 * cached (unwind_fast.c), for unwind_stack.c's fast path.
 */
#ifndef PERFRING_TOOL_UNWIND_FAST_H
#define PERFRING_TOOL_UNWIND_FAST_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

#define UWF_NREGS 17 /* x86-64's DWARF registers rax..r15, then the return address (rip) */

/* A register's rule: what libdwfl's handle_cfi() evaluates for it. */
enum uwf_kind {
	UWF_UNDEFINED, /* no value */
	UWF_SAME,      /* the callee's value */
	UWF_AT,        /* the 8 bytes at CFA + off */
	UWF_VAL,       /* CFA + off */
};

struct uwf_rules {
	uint8_t cfa_reg; /* CFA = cfa_reg + cfa_off */
	int64_t cfa_off;
	uint8_t kind[UWF_NREGS];
	int64_t off[UWF_NREGS];
};

struct uwf_cache;
struct uwf_cache *uwf_cache_new(void);
void uwf_cache_free(struct uwf_cache *c);

/*
 * The rules at pc (the frame's pc less one for a caller) in the process
 * whose Dwfl is number id (a new number per Dwfl made). 1 and *out; 0
 * when the fast path cannot model them (no module or no .eh_frame entry
 * there, a DWARF expression, a signal frame, a register out of range):
 * libdwfl unwinds the sample then.
 */
int uwf_rules_at(struct uwf_cache *c, Dwfl *dwfl, uint64_t id, uint64_t pc, const struct uwf_rules **out);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A compile unit's scopes, indexed as lookups reach them (sym_scopes.c):
 * the innermost function-like scope of an address and the callers of an
 * inlined instance, as dwarf_getscopes() and dwarf_getscopes_die() find
 * them, without walking the unit each time.
 */
#ifndef PERFRING_SYM_SCOPES_H
#define PERFRING_SYM_SCOPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

struct pr_binary;
struct pr_scope_unit;

/* Tests only: true makes pr_binary_frames() ask libdw for every address, the
 * oracle the index is compared with (tests/unit/symbol_scopes.c). */
extern bool pr_scopes_off;

/* The index of cu, made empty on first use and kept in b (freed with its
 * DWARF). NULL when out of memory: the caller asks libdw. */
struct pr_scope_unit *pr_scopes_unit(struct pr_binary *b, Dwarf_Die *cu);
/* The innermost DW_TAG_subprogram or DW_TAG_inlined_subroutine holding pc,
 * as the first of dwarf_getscopes()' that is one: 1 and *node, 0 when
 * there is none, -1 when libdw is to be asked (the index does not model
 * what the unit has there). */
int pr_scopes_innermost(struct pr_scope_unit *u, uint64_t pc, uint32_t *node);
/* The function-like scope holding *node (an inlined instance: its caller),
 * as the first function-like one of dwarf_getscopes_die()' after it: true
 * and *node, false when there is none. */
bool pr_scopes_caller(const struct pr_scope_unit *u, uint32_t *node);
Dwarf_Die pr_scopes_die(const struct pr_scope_unit *u, uint32_t node);
struct pr_scope_index;
void pr_scopes_free(struct pr_scope_index *ix);

#endif /* PERFRING_SYM_SCOPES_H */

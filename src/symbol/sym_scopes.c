// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An index of the scopes of a compile unit, for the inline chains of
 * sym_dwarf.c: the answers of dwarf_getscopes() and dwarf_getscopes_die()
 * without their walks.
 *
 * Each of those two calls walks the unit's DIE tree from its root (and
 * dwarf_getscopes() a second time, for the abstract origin of an inlined
 * instance): about half a million instructions per call in glibc's units,
 * which made the inline chains the largest cost of reading a DWARF
 * recording (issue 27, point 4). Here a unit's tree is read once, as far
 * as lookups go into it: a level's children (those with addresses, and
 * their address ranges) are read when a lookup first descends to it, and
 * kept with their parent, so that a lookup is a walk down the kept levels
 * and a caller is a parent.
 *
 * The descent is libdw's (elfutils' __libdw_visit_scopes() with
 * dwarf_getscopes()' visitors), so the DIEs found are the same:
 * - at each level the first child (in DIE order) whose ranges hold the
 *   address is taken; children of a DW_TAG_compile_unit, module,
 *   lexical_block, with_stmt, catch_block, try_block, entry_point,
 *   inlined_subroutine, subprogram, namespace, class_type or
 *   structure_type are looked into, of no other;
 * - the deepest DIE so reached is the innermost scope;
 * - dwarf_getscopes() answers nothing when an inlined instance's abstract
 *   origin is not found in the unit: the origin must be one of the unit's
 *   top-level subprograms here (where compilers put them).
 * Whatever the index does not model (an imported unit, a range list libdw
 * cannot read, an origin elsewhere) makes it answer "ask libdw" (-1), and
 * the caller does: the answers are libdw's in every case.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/symbol_internal.h"
#include "symbol/sym_scopes.h"

#define NO_NODE UINT32_MAX

bool pr_scopes_off;

/* A DIE with addresses (or the unit's own, node 0). */
struct scope_node {
	Dwarf_Die die;
	uint32_t parent;        /* NO_NODE for the unit */
	uint32_t first, count;  /* its children with addresses (contiguous), once read */
	uint32_t range, nrange; /* its address ranges in scope_unit.ranges */
	int tag;
	bool read;              /* its children are read */
	bool descend;           /* libdw looks into its children */
};

struct pr_scope_unit {
	Dwarf_Off off; /* the unit DIE's */
	bool libdw;    /* the index cannot model this unit: libdw answers */
	struct scope_node *nodes;
	size_t n, cap;
	uint64_t (*ranges)[2];
	size_t nranges, rcap;
	Dwarf_Off *subprograms; /* the top-level subprograms' offsets, ascending (DIE order) */
	size_t nsubprograms, scap;
};

struct pr_scope_index {
	struct pr_scope_unit **units; /* by off, ascending */
	size_t n, cap;
};

/* The tags __libdw_visit_scopes() looks into (its may_have_scopes()). */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

/* die's address ranges, appended: what dwarf_haspc() tests, range by
 * range. false when libdw cannot read them all (dwarf_haspc() would have
 * failed, and dwarf_getscopes() with it, for some addresses) or no memory. */
static bool read_ranges(struct pr_scope_unit *u, Dwarf_Die *die, uint32_t *first, uint32_t *n)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	*first = (uint32_t)u->nranges;
	*n = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (pr_grow(&u->ranges, &u->rcap, u->nranges + 1, sizeof(u->ranges[0])) ||
		    u->nranges >= UINT32_MAX)
			return false;
		u->ranges[u->nranges][0] = lo;
		u->ranges[u->nranges][1] = hi;
		u->nranges++;
		(*n)++;
	}
	return off == 0;
}

/* Read node k's children with addresses (and, at the top level, the
 * subprograms' offsets). false: the unit is left to libdw. */
static bool read_children(struct pr_scope_unit *u, uint32_t k)
{
	Dwarf_Die child, die = u->nodes[k].die;
	uint32_t first = (uint32_t)u->n;
	int r;

	u->nodes[k].read = true;
	u->nodes[k].first = first;
	u->nodes[k].count = 0;
	r = dwarf_child(&die, &child);
	if (r < 0)
		return false;
	for (; r == 0; r = dwarf_siblingof(&child, &child)) {
		int tag = dwarf_tag(&child);
		struct scope_node *c;
		uint32_t rf, rn;

		if (tag == DW_TAG_imported_unit)
			return false; /* libdw walks into the imported unit there */
		if (k == 0 && tag == DW_TAG_subprogram) {
			if (pr_grow(&u->subprograms, &u->scap, u->nsubprograms + 1, sizeof(u->subprograms[0])))
				return false;
			u->subprograms[u->nsubprograms++] = dwarf_dieoffset(&child);
		}
		if (!read_ranges(u, &child, &rf, &rn))
			return false;
		if (!rn) {
			u->nranges = rf; /* none: never on a lookup's way */
			continue;
		}
		if (pr_grow(&u->nodes, &u->cap, u->n + 1, sizeof(u->nodes[0])) || u->n >= NO_NODE - 1)
			return false;
		c = &u->nodes[u->n++];
		*c = (struct scope_node){ .die = child, .parent = k, .range = rf, .nrange = rn, .tag = tag };
		c->descend = may_have_scopes(tag) && dwarf_haschildren(&child) > 0;
	}
	if (r < 0)
		return false;
	u->nodes[k].count = (uint32_t)u->n - first;
	return true;
}

static bool holds(const struct pr_scope_unit *u, const struct scope_node *c, uint64_t pc)
{
	uint32_t i;

	for (i = 0; i < c->nrange; i++)
		if (pc >= u->ranges[c->range + i][0] && pc < u->ranges[c->range + i][1])
			return true;
	return false;
}

static bool top_subprogram(const struct pr_scope_unit *u, Dwarf_Off off)
{
	size_t lo = 0, hi = u->nsubprograms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->subprograms[mid] == off)
			return true;
		if (u->subprograms[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* An inlined instance's abstract origin is where dwarf_getscopes() finds it. */
static bool origin_found(const struct pr_scope_unit *u, Dwarf_Die *inl)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;

	if (!dwarf_formref_die(dwarf_attr(inl, DW_AT_abstract_origin, &a), &origin))
		return false;
	return top_subprogram(u, dwarf_dieoffset(&origin));
}

static bool function_like(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

int pr_scopes_innermost(struct pr_scope_unit *u, uint64_t pc, uint32_t *node)
{
	uint32_t k = 0, leaf = NO_NODE, inl = NO_NODE, i;

	if (u->libdw)
		return -1;
	for (;;) {
		struct scope_node *p = &u->nodes[k];
		uint32_t next = NO_NODE;

		if (!p->read && !read_children(u, k)) {
			u->libdw = true;
			return -1;
		}
		p = &u->nodes[k]; /* read_children() may have moved it */
		for (i = 0; i < p->count && next == NO_NODE; i++)
			if (holds(u, &u->nodes[p->first + i], pc))
				next = p->first + i;
		if (next == NO_NODE)
			break;
		leaf = next;
		if (u->nodes[next].tag == DW_TAG_inlined_subroutine)
			inl = next;
		if (!u->nodes[next].descend)
			break;
		k = next;
	}
	if (leaf == NO_NODE)
		return 0;
	if (inl != NO_NODE && !origin_found(u, &u->nodes[inl].die))
		return -1; /* libdw's own search for it decides */
	for (k = leaf; k != 0; k = u->nodes[k].parent)
		if (function_like(u->nodes[k].tag)) {
			*node = k;
			return 1;
		}
	return 0;
}

bool pr_scopes_caller(const struct pr_scope_unit *u, uint32_t *node)
{
	uint32_t k;

	for (k = u->nodes[*node].parent; k != 0 && k != NO_NODE; k = u->nodes[k].parent)
		if (function_like(u->nodes[k].tag)) {
			*node = k;
			return true;
		}
	return false;
}

Dwarf_Die pr_scopes_die(const struct pr_scope_unit *u, uint32_t node)
{
	return u->nodes[node].die;
}

static struct pr_scope_unit *unit_new(Dwarf_Die *cu, Dwarf_Off off)
{
	struct pr_scope_unit *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->off = off;
	u->nodes = malloc(16 * sizeof(*u->nodes));
	if (!u->nodes) {
		free(u);
		return NULL;
	}
	u->cap = 16;
	u->n = 1;
	u->nodes[0] = (struct scope_node){ .die = *cu, .parent = NO_NODE, .tag = dwarf_tag(cu), .descend = true };
	return u;
}

static void unit_free(struct pr_scope_unit *u)
{
	if (!u)
		return;
	free(u->nodes);
	free(u->ranges);
	free(u->subprograms);
	free(u);
}

struct pr_scope_unit *pr_scopes_unit(struct pr_binary *b, Dwarf_Die *cu)
{
	struct pr_scope_index *ix = b->scopes;
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct pr_scope_unit *u;
	size_t lo = 0, hi;

	if (off == (Dwarf_Off)-1)
		return NULL;
	if (!ix && !(ix = b->scopes = calloc(1, sizeof(*ix))))
		return NULL;
	hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->units[mid]->off == off)
			return ix->units[mid];
		if (ix->units[mid]->off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (pr_grow(&ix->units, &ix->cap, ix->n + 1, sizeof(ix->units[0])) || !(u = unit_new(cu, off)))
		return NULL;
	memmove(&ix->units[lo + 1], &ix->units[lo], (ix->n - lo) * sizeof(ix->units[0]));
	ix->units[lo] = u;
	ix->n++;
	return u;
}

void pr_scopes_free(struct pr_scope_index *ix)
{
	size_t i;

	if (!ix)
		return;
	for (i = 0; i < ix->n; i++)
		unit_free(ix->units[i]);
	free(ix->units);
	free(ix);
}

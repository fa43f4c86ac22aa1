// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`'s order: the entries of a table as rows (one event, or
 * the members of an event group side by side), sorted as perf's
 * hists__output_resort() sorts its hist entries, ties included, so that
 * equal overheads come in perf's order.
 */
#include <stdlib.h>
#include <string.h>

#include "answers/ans_report_int.h"

static const struct report *sort_r;

/* a named one first, as perf's cmp_null() puts them: -1, 0 (both named: compare
 * the names), 1 */
static int named_first(const void *x, const void *y)
{
	return x && y ? 0 : !x && !y ? 0 : x ? -1 : 1;
}

/*
 * Entries of equal overhead in perf's order (hist_entry__sort(): each --sort
 * key's sort function in turn): commands, binaries (short names, a known
 * one before "[unknown]") and symbols (a named one before an address) by
 * name, ascending; pids ascending. Two addresses left tied come as perf's
 * collapsed tree holds them: by their difference's sign.
 */
/* perf's _sort__addr_cmp(): the sign of the difference (a kernel address
 * comes before a user one) */
static int cmp_addr(uint64_t x, uint64_t y)
{
	return (int64_t)(x - y) < 0 ? -1 : x != y;
}

/* Two binaries: short names ascending, a known one before "[unknown]". */
static int cmp_dso(const struct report *r, int32_t x, int32_t y)
{
	const char *dx = ans_intern_get(r->strs, x), *dy = ans_intern_get(r->strs, y);
	int c = named_first(strcmp(dx, "[unknown]") ? dx : NULL, strcmp(dy, "[unknown]") ? dy : NULL);

	return c ? c : strcmp(dx, dy);
}

/* The binaries of two branch ends: perf's sort__dso_from_cmp() passes them
 * to _sort__dso_cmp() the other way round from sort__dso_cmp(), so
 * "[unknown]" first, then short names descending. */
static int cmp_branch_dso(const struct report *r, int32_t x, int32_t y)
{
	return -cmp_dso(r, x, y);
}

/* Two branch ends (perf's sort__sym_from_cmp(), which has no sort by name):
 * a named one first, two named ones by the functions' addresses, two
 * unknown ones by their own. */
static int cmp_branch_end(const struct branch_end *x, const struct branch_end *y)
{
	int c = named_first(x->sym, y->sym);

	if (c)
		return c;
	if (x->sym && x->start != y->start)
		return cmp_addr(x->start, y->start);
	return x->sym ? strcmp(x->sym, y->sym) : cmp_addr(x->addr, y->addr);
}

static int cmp_keys(const struct report *r, const struct entry *x, const struct entry *y)
{
	int i, c = 0;

	for (i = 0; i < r->nkeys && !c; i++) {
		switch (r->keys[i]) {
		case RK_COMM:
			c = strcmp(ans_intern_get(r->strs, x->comm), ans_intern_get(r->strs, y->comm));
			break;
		case RK_PID:
			c = x->pid < y->pid ? -1 : x->pid > y->pid;
			break;
		case RK_DSO:
			c = cmp_dso(r, x->dso, y->dso);
			break;
		case RK_DSO_FROM:
			c = cmp_branch_dso(r, entry_branch(r, x)->from.dso, entry_branch(r, y)->from.dso);
			break;
		case RK_DSO_TO:
			c = cmp_branch_dso(r, entry_branch(r, x)->to.dso, entry_branch(r, y)->to.dso);
			break;
		case RK_SYM_FROM:
			c = cmp_branch_end(&entry_branch(r, x)->from, &entry_branch(r, y)->from);
			break;
		case RK_SYM_TO:
			c = cmp_branch_end(&entry_branch(r, x)->to, &entry_branch(r, y)->to);
			break;
		case RK_CYCLES:
			/* sort__cycles_cmp(): left - right, the larger first */
			c = entry_branch(r, x)->cycles > entry_branch(r, y)->cycles ? -1
			    : entry_branch(r, x)->cycles < entry_branch(r, y)->cycles;
			break;
		case RK_SYM:
			c = named_first(x->sym, y->sym);
			if (!c && x->sym)
				c = strcmp(x->sym, y->sym);
			break;
		}
	}
	if (!c)
		c = cmp_addr(x->addr, y->addr);
	return c ? c : memcmp(x->key, y->key, sizeof(x->key));
}


static int sort_nr; /* the members of the table being sorted */

/* perf's order (__hpp__sort_acc, then __hpp__sort): the first event's
 * children, equal ones by call chain length, then self (each member in
 * turn, the first event's first), then the keys. */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = *(struct row *const *)a, *y = *(struct row *const *)b;
	const struct entry *lx = x->m[0], *ly = y->m[0];
	uint64_t vx, vy;
	int k;

	if (sort_r->children && (vx = report_row_val(x, 0, true)) != (vy = report_row_val(y, 0, true)))
		return vx > vy ? -1 : 1;
	/*
	 * perf puts a caller above its callee when their children are equal
	 * (__hpp__sort_acc()): of one thread, the entry whose call chain is
	 * longer first, its callchain max_depth in report's caller order: the
	 * whole chain for a leaf's own entry, from it down to the leaf for a
	 * caller. A row the first event has no entry in is perf's dummy entry,
	 * without a chain: not ordered so.
	 */
	if (sort_r->callers_first && lx && ly && lx->tid == ly->tid && lx->depth != ly->depth)
		return lx->depth > ly->depth ? -1 : 1;
	for (k = 0; k < sort_nr; k++)
		if ((vx = report_row_val(x, k, false)) != (vy = report_row_val(y, k, false)))
			return vx > vy ? -1 : 1;
	return cmp_keys(sort_r, x->e, y->e);
}

static int cmp_key_event(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : (x->event > y->event) - (x->event < y->event);
}

/*
 * The rows of the table of events ev .. ev + nr - 1: their entries, those of
 * equal keys in one row (list: scratch for r->n entries). A row shows when
 * one of its entries has an overhead and the first event's is at least
 * --percent-limit. Sorted by cmp_row().
 */
size_t report_rows(const struct report *r, int ev, int nr, struct entry **list, struct row *rows, struct row **rowp)
{
	size_t j, m = 0, n = 0;

	for (j = 0; j < r->n; j++)
		if (r->v[j].event >= ev && r->v[j].event < ev + nr && report_overhead(r, &r->v[j]))
			list[m++] = &r->v[j];
	if (nr > 1)
		qsort(list, m, sizeof(*list), cmp_key_event);
	for (j = 0; j < m; j++) {
		struct row *w = &rows[n];

		if (!j || nr == 1 || memcmp(list[j]->key, list[j - 1]->key, sizeof(list[j]->key))) {
			memset(w, 0, sizeof(*w));
			w->e = list[j];
			rowp[n++] = w;
		} else {
			w = rowp[n - 1];
		}
		w->m[list[j]->event - ev] = list[j];
	}
	for (j = 0, m = 0; j < n; j++)
		if (report_pct(rowp[j]->m[0] ? report_overhead(r, rowp[j]->m[0]) : 0, report_shown_tot(r, ev).period) >=
		    r->o->percent_limit)
			rowp[m++] = rowp[j];
	sort_r = r;
	sort_nr = nr;
	qsort(rowp, m, sizeof(*rowp), cmp_row);
	return m;
}

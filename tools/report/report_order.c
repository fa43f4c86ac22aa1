// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`'s order: the entries of a table as rows (one event, or
 * the members of an event group side by side), sorted as perf's
 * hists__output_resort() sorts its hist entries, ties included, so that
 * equal overheads come in perf's order.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

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
	const char *dx = intern_get(r->strs, x), *dy = intern_get(r->strs, y);
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
 * a named one first, two named ones by the functions' addresses in their
 * binaries (perf's _sort__sym_cmp(): sym->start), two unknown ones by their
 * own, as recorded. */
static int cmp_branch_end(const struct branch_end *x, const struct branch_end *y)
{
	int c = named_first(x->sym, y->sym);

	if (c)
		return c;
	if (x->sym && x->start != y->start)
		return cmp_addr(x->start, y->start);
	return x->sym ? strcmp(x->sym, y->sym) : cmp_addr(x->addr, y->addr);
}

/*
 * While report_rows() sorts: the rank of each command and binary name of
 * its rows in the order above (NULL otherwise), so that the sorts compare
 * integers rather than strings (a table has tens of thousands of rows).
 */
static int32_t *rank_comm, *rank_dso;

static int cmp_comm_ids(const struct report *r, int32_t x, int32_t y)
{
	if (rank_comm)
		return rank_comm[x] < rank_comm[y] ? -1 : rank_comm[x] > rank_comm[y];
	return strcmp(intern_get(r->strs, x), intern_get(r->strs, y));
}

static int cmp_dso_ids(const struct report *r, int32_t x, int32_t y)
{
	if (rank_dso)
		return rank_dso[x] < rank_dso[y] ? -1 : rank_dso[x] > rank_dso[y];
	return cmp_dso(r, x, y);
}

/* Two cpu keys' words: the sample's CPU, -1 for none (frame_key()). */
static int cmp_cpu(uint64_t x, uint64_t y)
{
	return (int32_t)x < (int32_t)y ? -1 : (int32_t)x > (int32_t)y;
}

static int cmp_keys(const struct report *r, const struct entry *x, const struct entry *y)
{
	int i, c = 0;

	for (i = 0; i < r->nkeys && !c; i++) {
		/* perf's output sort skips an elided key (perf_hpp__should_skip()):
		 * entries a --dso or --symbols filter shows by their sample can
		 * differ in it */
		if (r->elide[i])
			continue;
		switch (r->keys[i]) {
		case RK_COMM:
			c = cmp_comm_ids(r, x->comm, y->comm);
			break;
		case RK_PID:
			c = x->pid < y->pid ? -1 : x->pid > y->pid;
			break;
		case RK_DSO:
			c = cmp_dso_ids(r, x->dso, y->dso);
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
		case RK_TRACE: /* sort__trace_cmp(): the texts ascending */
			c = x->trace == y->trace ? 0 : strcmp(intern_get(r->strs, x->trace), intern_get(r->strs, y->trace));
			break;
		case RK_SRCLINE: /* sort__srcline_cmp(): the texts ascending, as the trace's */
			c = x->key[r->koff[i]] == y->key[r->koff[i]]
				    ? 0
				    : strcmp(intern_get(r->strs, (int32_t)x->key[r->koff[i]]),
					     intern_get(r->strs, (int32_t)y->key[r->koff[i]]));
			break;
		case RK_CPU: /* sort__cpu_cmp(): right - left, as the pid's */
			c = cmp_cpu(x->key[r->koff[i]], y->key[r->koff[i]]);
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
		return (lx->depth > ly->depth) == sort_r->caller_order ? -1 : 1; /* callee order: the shorter first */
	for (k = 0; k < sort_nr; k++)
		if ((vx = report_row_val(x, k, false)) != (vy = report_row_val(y, k, false)))
			return vx > vy ? -1 : 1;
	return cmp_keys(sort_r, x->e, y->e);
}

/*
 * The order in which perf's output sort meets the entries (the in-order of
 * its collapsed or input tree): commands and threads ascending, binaries
 * ascending by short name with "[unknown]" last, named symbols before unknown
 * ones, each by address (a symbol's start). Measured, not derived: of the
 * orders the trees' comparison functions allow, this is the one whose output
 * equals perf report's (children tables of exec-heavy recordings with --sort
 * comm,dso,sym and sym; tests/cli/report_oracle.sh exec_children_order).
 * Ties as in the output sort.
 */
static int cmp_input(const struct report *r, const struct entry *x, const struct entry *y)
{
	int i, c = 0;

	for (i = 0; i < r->nkeys && !c; i++) {
		const uint64_t *kx = &x->key[r->koff[i]], *ky = &y->key[r->koff[i]];

		switch (r->keys[i]) {
		case RK_COMM:
			c = cmp_comm_ids(r, x->comm, y->comm);
			break;
		case RK_PID:
			c = kx[0] < ky[0] ? -1 : kx[0] > ky[0];
			break;
		case RK_DSO:
			c = cmp_dso_ids(r, x->dso, y->dso);
			break;
		case RK_SYM: /* frame_key(): bit 0 of word 0 named, word 1 the start or address */
			c = named_first(kx[0] & 1 ? "" : NULL, ky[0] & 1 ? "" : NULL);
			if (!c)
				c = cmp_addr(kx[1], ky[1]);
			break;
		case RK_CPU:
			c = cmp_cpu(kx[0], ky[0]);
			break;
		default:
			break;
		}
	}
	return c ? c : cmp_keys(r, x, y);
}

static int cmp_row_keys(const void *a, const void *b)
{
	return cmp_input(sort_r, (*(struct row *const *)a)->e, (*(struct row *const *)b)->e);
}

/*
 * perf's output order when its comparison is not transitive (children with
 * call chains: equal children are ordered by call chain depth only within one
 * thread): perf inserts the entries, in the order of its input tree (the
 * keys'), one by one into a red-black tree (__hists__insert_output_entry(): to
 * the left when the entry sorts before the node, else to the right) and prints
 * it in order. The same insertions into the same kind of tree give the same
 * shape, so the same order. rows[0..n) become that order.
 */
struct rbn {
	int32_t left, right, parent;
	bool red;
};

static void rb_rotate(struct rbn *t, int32_t *root, int32_t x, bool left)
{
	int32_t y = left ? t[x].right : t[x].left, c = left ? t[y].left : t[y].right;

	if (left)
		t[x].right = c;
	else
		t[x].left = c;
	if (c >= 0)
		t[c].parent = x;
	t[y].parent = t[x].parent;
	if (t[x].parent < 0)
		*root = y;
	else if (t[t[x].parent].left == x)
		t[t[x].parent].left = y;
	else
		t[t[x].parent].right = y;
	if (left)
		t[y].left = x;
	else
		t[y].right = x;
	t[x].parent = y;
}

static int rb_order(struct row **rows, size_t n)
{
	struct rbn *t = malloc((n ? n : 1) * sizeof(*t));
	struct row **out = malloc((n ? n : 1) * sizeof(*out));
	int32_t root = -1, *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t k, nout = 0, sp = 0;

	if (!t || !out || !stack) {
		free(t);
		free(out);
		free(stack);
		return -ENOMEM;
	}
	qsort(rows, n, sizeof(*rows), cmp_row_keys);
	for (k = 0; k < n; k++) {
		int32_t x = (int32_t)k, p = -1, c = root;
		bool left = false;

		while (c >= 0) {
			p = c;
			left = cmp_row(&rows[k], &rows[c]) < 0;
			c = left ? t[c].left : t[c].right;
		}
		t[x] = (struct rbn){ -1, -1, p, true };
		if (p < 0)
			root = x;
		else if (left)
			t[p].left = x;
		else
			t[p].right = x;
		/* The classic insertion fix-up (the kernel's __rb_insert does the same). */
		while (t[x].parent >= 0 && t[t[x].parent].red) {
			int32_t par = t[x].parent, g = t[par].parent;
			bool par_left = t[g].left == par;
			int32_t u = par_left ? t[g].right : t[g].left;

			if (u >= 0 && t[u].red) {
				t[par].red = t[u].red = false;
				t[g].red = true;
				x = g;
				continue;
			}
			if (x == (par_left ? t[par].right : t[par].left)) {
				x = par;
				rb_rotate(t, &root, x, par_left);
				par = t[x].parent;
			}
			t[par].red = false;
			t[g].red = true;
			rb_rotate(t, &root, g, !par_left);
		}
		t[root].red = false;
	}
	/* In order. */
	for (int32_t c = root; c >= 0 || sp;) {
		while (c >= 0) {
			stack[sp++] = c;
			c = t[c].left;
		}
		c = stack[--sp];
		out[nout++] = rows[c];
		c = t[c].right;
	}
	memcpy(rows, out, n * sizeof(*rows));
	free(t);
	free(out);
	free(stack);
	return 0;
}

static int cmp_key_event(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : (x->event > y->event) - (x->event < y->event);
}

static int cmp_comm_at(const void *a, const void *b)
{
	return cmp_comm_ids(sort_r, *(const int32_t *)a, *(const int32_t *)b);
}

static int cmp_dso_at(const void *a, const void *b)
{
	return cmp_dso_ids(sort_r, *(const int32_t *)a, *(const int32_t *)b);
}

/* rank[id] for the ids of rows' names (field: an entry's comm or dso), by cmp; NULL when out of memory. */
static int32_t *rank_of(struct row **rows, size_t n, size_t field, int (*cmp)(const void *, const void *))
{
	int32_t max = 0, *rank, *ids;
	size_t j, k = 0;

	for (j = 0; j < n; j++) {
		int32_t id = *(const int32_t *)((const char *)rows[j]->e + field);

		if (id > max)
			max = id;
	}
	rank = malloc(((size_t)max + 1) * sizeof(*rank));
	ids = malloc((n ? n : 1) * sizeof(*ids));
	if (!rank || !ids) {
		free(rank);
		free(ids);
		return NULL;
	}
	for (j = 0; j <= (size_t)max; j++)
		rank[j] = -1;
	for (j = 0; j < n; j++) {
		int32_t id = *(const int32_t *)((const char *)rows[j]->e + field);

		if (rank[id] < 0) {
			rank[id] = 0;
			ids[k++] = id;
		}
	}
	qsort(ids, k, sizeof(*ids), cmp);
	for (j = 0; j < k; j++)
		rank[ids[j]] = (int32_t)j;
	free(ids);
	return rank;
}

/* Ranks the commands and binaries of rows for the sorts (none when out of memory: strings compared). */
static void rank_names(struct row **rows, size_t n)
{
	rank_comm = rank_of(rows, n, offsetof(struct entry, comm), cmp_comm_at);
	rank_dso = rank_of(rows, n, offsetof(struct entry, dso), cmp_dso_at);
}

/*
 * The rows of the table of events ev .. ev + nr - 1: their entries, those of
 * equal keys in one row (list: scratch for r->n entries). A row shows when
 * one of its entries has an overhead and the first event's is at least
 * --percent-limit. Sorted by cmp_row(). *nall: the rows made in rows[],
 * those under the limit too (perf sizes its columns by all of them).
 */
size_t report_rows(const struct report *r, int ev, int nr, struct entry **list, struct row *rows, struct row **rowp,
		   size_t *nall)
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
	*nall = n; /* rows[0, n): the shown ones and those under the limit */
	for (j = 0, m = 0; j < n; j++)
		if (report_pct(rowp[j]->m[0] ? report_overhead(r, rowp[j]->m[0]) : 0, report_shown_tot(r, ev).period) >=
		    r->o->percent_limit)
			rowp[m++] = rowp[j];
	sort_r = r;
	sort_nr = nr;
	rank_names(rowp, m);
	if (!r->callers_first || rb_order(rowp, m))
		qsort(rowp, m, sizeof(*rowp), cmp_row);
	/* the entries --dso or --symbols leaves out are ordered with the others
	 * (perf's output_resort() inserts them all: its tree's shape, so the
	 * order of equal rows, depends on them) and then not shown */
	for (j = 0, n = 0; j < m; j++)
		if (!rowp[j]->e->filtered)
			rowp[n++] = rowp[j];
	m = n;
	free(rank_comm);
	free(rank_dso);
	rank_comm = rank_dso = NULL;
	return m;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`'s call graphs: what perf report --stdio prints under an
 * entry when the file has call chains (its default -g graph,0.5,caller in
 * children mode, callee with --no-children; percentages of the event's
 * total, branches under 0.5% of it left out).
 *
 * perf appends each sample's chain to a tree per entry (util/callchain.c): a
 * node holds a run of frames that every chain through it shares, and splits
 * where two chains part. Building a tree for every one of tens of
 * thousands of entries, for every sample, is most of perf report's time.
 * Here the samples only leave their chains behind, interned (a chain is
 * counted once with its summed period, however many samples took it), and
 * after the last sample trees are built for the entries whose graph can
 * show anything (their period reaches the threshold), from those chains.
 * A tree's shape does not depend on the order its chains come in, so the
 * trees are perf's.
 *
 * What goes where, as perf's hist_entry_iter does it: without children, the
 * sample's entry takes the whole chain, leaf first. With children, the
 * sample's own (self) entry takes the whole chain root first, then, walking
 * from the root, each entry not yet met in the sample takes the chain from
 * its frame down to the leaf. Frames are the same function when they are
 * in the same binary at the same function start (unknown ones: the same
 * address), perf's CCKEY_FUNCTION; when either is an inlined function
 * (named_frame.inline_id), when their names are the same (perf's match_chain():
 * an inlined function has no start of its own), so an inlined function
 * reached through two of its callers' copies is one node.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/zalloc.h"
#include "report/report_internal.h"

/* A function of the chains: its binary and start (an unknown one's
 * address), and how perf names it. */
struct gfunc {
	int32_t dso;
	bool named;
	bool inlined;       /* an inlined function's frame: matched by match_name alone */
	uint64_t addr;      /* the function's start in its binary; unknown: the address as recorded */
	const char *name;   /* NULL: shown as its address */
	const char *match_name; /* named: perf's sym->name (an inlined one's without " (inlined)") */
	uint32_t load;      /* a KSYMBOL's registration number: perf's binary per load */
};

/*
 * A node of an entry's tree: frames (function ids) all its chains share.
 * A node's kids are a red-black tree by their first function, made as perf
 * makes its rb_root_in (the same insertions, the same balancing): perf's
 * order of functions is no order when inlined and other functions meet
 * (names against addresses), so which kid a search finds, and the order
 * equal periods print in, is that of perf's tree shape. (perf inserts a
 * chain per sample, these trees a chain per distinct chain, in the order
 * of its first sample: where perf's order is no order, a later sample's
 * search in perf could miss the node its first one made, and make a second.)
 */
struct gnode {
	const uint32_t *val;
	uint32_t nval;
	uint32_t nkids;
	bool red;              /* in its parent's tree of kids */
	uint64_t hit;          /* chains that end here */
	uint64_t children_hit; /* chains that go on below */
	struct gnode *kids;    /* the root of the kids' tree; in order, perf's rb_root_in order */
	struct gnode *left, *right, *up; /* its place in its parent's tree of kids */
};

/* Memory handed out in pieces that never move (nodes and frame runs point
 * into it), freed all at once. */
struct pool {
	char *blk;
	size_t used, size;
	char **all;
	size_t nall, capall;
};

struct graph {
	bool children;
	bool caller_order; /* chains root first (perf's callchain_param.order ORDER_CALLER) */
	/* functions, interned by (dso, named, addr) */
	struct gfunc *funcs;
	uint32_t nfuncs, capfuncs;
	uint32_t *ftab; /* index + 1 */
	uint32_t ftab_cap;
	/* chains: [self entry, n, entries of frames 0..n-1, functions of frames 0..n-1] in words */
	uint32_t *words;
	size_t nwords, capwords;
	struct gchain {
		uint64_t hash, period;
		size_t off;
	} *chains;
	uint32_t nchains, capchains;
	uint32_t *ctab; /* chain index + 1 */
	uint32_t ctab_cap;
	/* the trees, after graph_build() */
	struct gnode **root; /* by entry index; NULL: nothing to show */
	size_t nroot;
	struct pool pool;
	uint32_t *scratch;
	size_t capscratch;
	/* by binary (interned dso id): where a chain first held one of its
	 * functions (report_first() + 1; 0: no binary, "[unknown]"; UINT64_MAX:
	 * none yet), the stand-in for perf's order of its dso objects */
	uint64_t *dso_first;
	int32_t ndso_first;
};

static void *pool_get(struct pool *p, size_t n)
{
	void *v;

	n = (n + 15) & ~(size_t)15;
	if (!p->blk || p->size - p->used < n) {
		size_t size = n > (1u << 20) ? n : (1u << 20);
		char *b = malloc(size);

		if (!b)
			return NULL;
		if (p->nall == p->capall) {
			size_t cap = p->capall ? p->capall * 2 : 64;
			char **all = realloc(p->all, cap * sizeof(*all));

			if (!all) {
				free(b);
				return NULL;
			}
			p->all = all;
			p->capall = cap;
		}
		p->all[p->nall++] = b;
		p->blk = b;
		p->used = 0;
		p->size = size;
	}
	v = p->blk + p->used;
	p->used += n;
	return v;
}

static void pool_free(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->nall; i++)
		free(p->all[i]);
	free(p->all);
}

struct graph *graph_new(bool children, bool caller_order)
{
	struct graph *g = calloc(1, sizeof(*g));

	if (g) {
		g->children = children;
		g->caller_order = caller_order;
	}
	return g;
}

void graph_free(struct graph *g)
{
	if (!g)
		return;
	free(g->funcs);
	free(g->ftab);
	free(g->words);
	free(g->chains);
	free(g->ctab);
	free(g->root);
	free(g->scratch);
	free(g->dso_first);
	pool_free(&g->pool);
	free(g);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static uint64_t func_hash(int32_t dso, bool named, uint64_t addr, uint32_t load)
{
	return mix(mix(mix(0x9e3779b97f4a7c15ull, (uint64_t)(uint32_t)dso << 1 | named), addr), load);
}

/* An open-addressing table of indexes + 1 made anew with c slots (a power
 * of two) for items 0..n-1. */
static int rehash(uint32_t **tab, uint32_t *cap, uint32_t c, uint32_t n,
		  uint64_t (*hash_of)(const struct graph *, uint32_t), const struct graph *g)
{
	uint32_t i, j;
	uint32_t *t = tool_zalloc(c, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (j = (uint32_t)hash_of(g, i) & (c - 1); t[j]; j = (j + 1) & (c - 1))
			;
		t[j] = i + 1;
	}
	free(*tab);
	*tab = t;
	*cap = c;
	return 0;
}

static uint64_t func_hash_at(const struct graph *g, uint32_t i)
{
	return func_hash(g->funcs[i].dso, g->funcs[i].named, g->funcs[i].addr, g->funcs[i].load);
}

static uint64_t chain_hash_at(const struct graph *g, uint32_t i)
{
	return g->chains[i].hash;
}

/* The id of function f (by dso, named, addr and load), made from f when new. */
static int func_id(struct graph *g, const struct gfunc *f, uint32_t *id)
{
	int32_t dso = f->dso;
	bool named = f->named;
	uint64_t addr = f->addr, h = func_hash(dso, named, addr, f->load);
	uint32_t j, load = f->load;

	if ((g->nfuncs + 1) * 2 > g->ftab_cap &&
	    rehash(&g->ftab, &g->ftab_cap, g->ftab_cap ? g->ftab_cap * 2 : 4096, g->nfuncs, func_hash_at, g))
		return -ENOMEM;
	for (j = (uint32_t)h & (g->ftab_cap - 1); g->ftab[j]; j = (j + 1) & (g->ftab_cap - 1)) {
		const struct gfunc *x = &g->funcs[g->ftab[j] - 1];

		if (x->addr == addr && x->dso == dso && x->named == named && x->load == load) {
			*id = g->ftab[j] - 1;
			return 0;
		}
	}
	if (g->nfuncs == g->capfuncs) {
		uint32_t cap = g->capfuncs ? g->capfuncs * 2 : 1024;
		struct gfunc *v = realloc(g->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->funcs = v;
		g->capfuncs = cap;
	}
	g->funcs[g->nfuncs] = *f;
	g->ftab[j] = ++g->nfuncs;
	*id = g->nfuncs - 1;
	return 0;
}

/* Binary dso met at first (0: no binary): the earliest is kept. */
static int dso_seen(struct graph *g, int32_t dso, uint64_t first)
{
	if (dso < 0)
		return 0;
	if (dso >= g->ndso_first) {
		int32_t n = g->ndso_first ? g->ndso_first : 64, i;
		uint64_t *v;

		while (n <= dso)
			n *= 2;
		v = realloc(g->dso_first, (size_t)n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = g->ndso_first; i < n; i++)
			v[i] = UINT64_MAX;
		g->dso_first = v;
		g->ndso_first = n;
	}
	if (first < g->dso_first[dso])
		g->dso_first[dso] = first;
	return 0;
}

static uint64_t dso_rank(const struct graph *g, int32_t dso)
{
	return dso >= 0 && dso < g->ndso_first ? g->dso_first[dso] : UINT64_MAX;
}

/* Ranks 1 .. GRAPH_TABLE_DSOS are the build-id table's binaries, made
 * before any the chains meet (those rank above: first + 1 + this). */
#define GRAPH_TABLE_DSOS (1u << 24)

int graph_dso_made(struct graph *g, int32_t dso, uint32_t order)
{
	return order < GRAPH_TABLE_DSOS - 1 ? dso_seen(g, dso, 1 + (uint64_t)order) : 0;
}

int graph_func(struct graph *g, const struct named_frame *f, int32_t dso, uint64_t first, uint32_t *id)
{
	bool named = f->name != NULL, inlined = named && f->inline_id && f->inline_name;
	/* perf: a known function by its start in its binary (a KSYMBOL's at 0
	 * in a binary of each registration), else the address */
	const struct gfunc x = {
		.dso = dso, .named = named, .inlined = inlined,
		.addr = named ? (f->ksym_reg ? 0 : f->shown_addr - f->offset) : f->addr,
		.name = f->name, .match_name = inlined ? f->inline_name : f->name,
		.load = named ? f->ksym_reg | f->inline_id : 0,
	};

	/* a pass meets the samples in order: a binary's first meeting is its earliest */
	if (dso_rank(g, dso) == UINT64_MAX &&
	    dso_seen(g, dso, strcmp(f->dso, "[unknown]") ? first + 1 + GRAPH_TABLE_DSOS : 0))
		return -ENOMEM;
	return func_id(g, &x, id);
}

uint32_t *graph_scratch(struct graph *g, size_t n)
{
	if (n > g->capscratch) {
		size_t cap = n * 2 > 256 ? n * 2 : 256;
		uint32_t *s = realloc(g->scratch, cap * sizeof(*s));

		if (!s)
			return NULL;
		g->scratch = s;
		g->capscratch = cap;
	}
	return g->scratch;
}

static uint64_t chain_hash(uint32_t self, const uint32_t *ents, const uint32_t *funcs, uint32_t n)
{
	uint64_t h = mix(mix(0x2545f4914f6cdd1dull, self), n);
	uint32_t i;

	for (i = 0; i < n; i++)
		h = mix(h, (uint64_t)ents[i] << 32 | funcs[i]);
	return h;
}

int graph_sample(struct graph *g, uint32_t self, const uint32_t *ents, const uint32_t *funcs, uint32_t n,
		 uint64_t period)
{
	uint64_t h;
	size_t need = 2 + 2 * (size_t)n;
	uint32_t j;

	if (!n)
		return 0;
	h = chain_hash(self, ents, funcs, n);
	if ((g->nchains + 1) * 2 > g->ctab_cap &&
	    rehash(&g->ctab, &g->ctab_cap, g->ctab_cap ? g->ctab_cap * 2 : 4096, g->nchains, chain_hash_at, g))
		return -ENOMEM;
	for (j = (uint32_t)h & (g->ctab_cap - 1); g->ctab[j]; j = (j + 1) & (g->ctab_cap - 1)) {
		struct gchain *c = &g->chains[g->ctab[j] - 1];
		const uint32_t *w = g->words + c->off;

		if (c->hash == h && w[0] == self && w[1] == n && !memcmp(w + 2, ents, n * sizeof(*ents)) &&
		    !memcmp(w + 2 + n, funcs, n * sizeof(*funcs))) {
			c->period += period;
			return 0;
		}
	}
	if (g->nchains == g->capchains) {
		uint32_t cap = g->capchains ? g->capchains * 2 : 4096;
		struct gchain *v = realloc(g->chains, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->chains = v;
		g->capchains = cap;
	}
	if (g->capwords - g->nwords < need) {
		size_t cap = g->capwords ? g->capwords * 2 : (1u << 16);
		uint32_t *w;

		while (cap - g->nwords < need)
			cap *= 2;
		w = realloc(g->words, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		g->words = w;
		g->capwords = cap;
	}
	g->chains[g->nchains] = (struct gchain){ h, period, g->nwords };
	g->words[g->nwords] = self;
	g->words[g->nwords + 1] = n;
	memcpy(g->words + g->nwords + 2, ents, n * sizeof(*ents));
	memcpy(g->words + g->nwords + 2 + n, funcs, n * sizeof(*funcs));
	g->nwords += need;
	g->ctab[j] = ++g->nchains;
	return 0;
}

int graph_merge(struct graph *g, const struct graph *from, const uint32_t *entry_map,
		int32_t (*dso_map)(void *ctx, int32_t dso), void *ctx)
{
	uint32_t *fmap, i, j;
	int err = 0;

	if (!from || !from->nchains)
		return 0;
	fmap = malloc((from->nfuncs ? from->nfuncs : 1) * sizeof(*fmap));
	if (!fmap)
		return -ENOMEM;
	for (i = 0; i < from->nfuncs && !err; i++) {
		struct gfunc x = from->funcs[i];
		int32_t dso = dso_map(ctx, x.dso);

		x.dso = dso;
		err = dso < 0 ? -ENOMEM : func_id(g, &x, &fmap[i]);
		if (!err)
			err = dso_seen(g, dso, dso_rank(from, from->funcs[i].dso));
	}
	for (i = 0; i < from->nchains && !err; i++) {
		const uint32_t *w = from->words + from->chains[i].off, n = w[1];
		uint32_t *ents = graph_scratch(g, 2 * (size_t)n), *funcs;

		if (!ents) {
			err = -ENOMEM;
			break;
		}
		funcs = ents + n;
		for (j = 0; j < n; j++) {
			ents[j] = entry_map[w[2 + j]];
			funcs[j] = fmap[w[2 + n + j]];
		}
		err = graph_sample(g, entry_map[w[0]], ents, funcs, n, from->chains[i].period);
	}
	free(fmap);
	return err;
}

int graph_renumber(struct graph *g, const uint32_t *entry_map)
{
	uint32_t i, j, cap;

	for (i = 0; i < g->nchains; i++) {
		uint32_t *w = g->words + g->chains[i].off, n = w[1];

		w[0] = entry_map[w[0]];
		for (j = 0; j < n; j++)
			w[2 + j] = entry_map[w[2 + j]];
		g->chains[i].hash = chain_hash(w[0], w + 2, w + 2 + n, n);
	}
	cap = 4096;
	while ((g->nchains + 1) * 2 > cap)
		cap *= 2;
	return rehash(&g->ctab, &g->ctab_cap, cap, g->nchains, chain_hash_at, g);
}

/* ---- the trees (perf's append_chain_children(), append_chain(), split_add_child()) ---- */

/*
 * Function a (a kid's, met before) against b (the chain's), perf's
 * match_chain(): < 0 when a is below b (perf's MATCH_LT), 0 when they are one.
 * An inlined function (either) is compared by name. Any other by its dso
 * object, then its function start (or address): perf compares the dso
 * objects' addresses, which follow the order it made them in: first those of
 * the file's build-id table, in its order, as it reads the header
 * (graph_dso_made()), then the others as events name them; for those the
 * order the chains first met the binaries stands in (no binary, perf's NULL,
 * is the lowest), the same whichever readers shared the samples.
 */
static int func_cmp(const struct graph *g, uint32_t a, uint32_t b)
{
	const struct gfunc *x = &g->funcs[a], *y = &g->funcs[b];

	if (a == b)
		return 0;
	if (x->named && y->named && (x->inlined || y->inlined)) {
		int c = strcmp(x->match_name, y->match_name);

		return (c > 0) - (c < 0);
	}
	if (x->dso != y->dso) {
		uint64_t rx = dso_rank(g, x->dso), ry = dso_rank(g, y->dso);

		if (rx != ry)
			return rx < ry ? -1 : 1;
		return x->dso < y->dso ? -1 : 1;
	}
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1; /* perf: a registration is a dso of its own, the later made later */
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->named - (int)y->named;
}

static struct gnode *node_new(struct graph *g, const uint32_t *c, uint32_t n, uint64_t period)
{
	struct gnode *x = pool_get(&g->pool, sizeof(*x));
	uint32_t *val = n ? pool_get(&g->pool, n * sizeof(*val)) : NULL;

	if (!x || (n && !val))
		return NULL;
	memset(x, 0, sizeof(*x));
	if (n)
		memcpy(val, c, n * sizeof(*val));
	x->val = val;
	x->nval = n;
	x->hit = period;
	return x;
}

/* ---- a red-black tree of kids, balanced as the kernel's rb_insert_color() balances ---- */

/* x's child on side right (or the other) takes x's place; x becomes its child. */
static void rb_rotate(struct gnode **root, struct gnode *x, bool left)
{
	struct gnode *y = left ? x->right : x->left, *m = left ? y->left : y->right;

	if (left)
		x->right = m;
	else
		x->left = m;
	if (m)
		m->up = x;
	y->up = x->up;
	if (!x->up)
		*root = y;
	else if (x == x->up->left)
		x->up->left = y;
	else
		x->up->right = y;
	if (left)
		y->left = x;
	else
		y->right = x;
	x->up = y;
}

/* Kid k linked below up (on its left when left; the root when up is NULL), then the colours mended. */
static void rb_link(struct gnode *p, struct gnode *k, struct gnode *up, bool left)
{
	struct gnode **root = &p->kids;

	k->up = up;
	k->left = k->right = NULL;
	k->red = true;
	if (!up)
		*root = k;
	else if (left)
		up->left = k;
	else
		up->right = k;
	p->nkids++;
	while (k->up && k->up->red) {
		struct gnode *q = k->up, *gq = q->up; /* a red node is not the root: gq is there */
		bool qleft = q == gq->left;
		struct gnode *uncle = qleft ? gq->right : gq->left;

		if (uncle && uncle->red) {
			q->red = uncle->red = false;
			gq->red = true;
			k = gq;
			continue;
		}
		if (k == (qleft ? q->right : q->left)) {
			rb_rotate(root, q, qleft);
			k = q;
			q = k->up;
		}
		q->red = false;
		gq->red = true;
		rb_rotate(root, gq, !qleft);
	}
	(*root)->red = false;
}

/* The first kid in order (the highest, as perf's rb_first()), and the next one. */
static const struct gnode *kid_first(const struct gnode *p)
{
	const struct gnode *k = p->kids;

	while (k && k->left)
		k = k->left;
	return k;
}

static const struct gnode *kid_next(const struct gnode *k)
{
	if (k->right) {
		for (k = k->right; k->left; k = k->left)
			;
		return k;
	}
	while (k->up && k == k->up->right)
		k = k->up;
	return k->up;
}

/* The kid whose first function matches f, as perf's search finds it (a kid
 * below f to the left, as perf puts MATCH_LT); else NULL, and where f goes. */
static struct gnode *kid_find(const struct graph *g, const struct gnode *p, uint32_t f, struct gnode **up,
			      bool *left)
{
	struct gnode *k = p->kids;

	*up = NULL;
	*left = false;
	while (k) {
		int c = func_cmp(g, k->val[0], f);

		if (!c)
			return k;
		*up = k;
		*left = c < 0;
		k = c < 0 ? k->left : k->right;
	}
	return NULL;
}

static inline uint64_t cumul(const struct gnode *x)
{
	return x->hit + x->children_hit;
}

static int append_kids(struct graph *g, struct gnode *p, const uint32_t *c, uint32_t n, uint64_t period);

/* Chain c (its first function is x's first) through x. */
static int append(struct graph *g, struct gnode *x, const uint32_t *c, uint32_t n, uint64_t period)
{
	uint32_t m = 1;

	while (m < x->nval && m < n && !func_cmp(g, x->val[m], c[m]))
		m++;
	if (m < x->nval) {
		/* the chains part inside x: its tail becomes its only kid, with x's kids */
		struct gnode *tail = pool_get(&g->pool, sizeof(*tail));

		if (!tail)
			return -ENOMEM;
		*tail = *x;
		tail->val = x->val + m;
		tail->nval = x->nval - m;
		x->nval = m;
		x->kids = NULL;
		x->nkids = 0;
		rb_link(x, tail, NULL, false);
		x->children_hit = cumul(tail);
		x->hit = 0;
		if (m < n) {
			/* perf's split_add_child(): the second kid beside the first, then balanced */
			struct gnode *k = node_new(g, c + m, n - m, period);

			if (!k)
				return -ENOMEM;
			rb_link(x, k, tail, func_cmp(g, tail->val[0], c[m]) < 0);
			x->children_hit += period;
		} else {
			x->hit = period;
		}
		return 0;
	}
	if (m == n) {
		x->hit += period;
		return 0;
	}
	return append_kids(g, x, c + m, n - m, period);
}

static int append_kids(struct graph *g, struct gnode *p, const uint32_t *c, uint32_t n, uint64_t period)
{
	struct gnode *up, *x;
	bool left;

	x = kid_find(g, p, c[0], &up, &left);
	if (x) {
		if (append(g, x, c, n, period))
			return -ENOMEM;
	} else {
		x = node_new(g, c, n, period);
		if (!x)
			return -ENOMEM;
		rb_link(p, x, up, left);
	}
	p->children_hit += period;
	return 0;
}

static int add_to(struct graph *g, uint32_t e, const uint32_t *c, uint32_t n, uint64_t period)
{
	if (e >= g->nroot || !g->root[e] || !n)
		return 0;
	return append_kids(g, g->root[e], c, n, period);
}

int graph_build(struct report *r, double min_percent)
{
	struct graph *g = r->graph;
	uint32_t i, *rev = NULL, *seen = NULL;
	size_t k, caprev = 0;
	int err = 0;

	g->nroot = r->n;
	g->root = tool_zalloc(r->n ? r->n : 1, sizeof(*g->root));
	if (!g->root)
		return -ENOMEM;
	for (k = 0; k < r->n; k++) {
		const struct entry *e = &r->v[k];

		if (report_overhead(r, e) >= graph_min_hit(r, e->event, min_percent) &&
		    !(g->root[k] = node_new(g, NULL, 0, 0)))
			return -ENOMEM;
	}
	for (i = 0; i < g->nchains && !err; i++) {
		const uint32_t *w = g->words + g->chains[i].off, self = w[0], n = w[1];
		const uint32_t *ents = w + 2, *funcs = w + 2 + n;
		uint64_t period = g->chains[i].period;
		uint32_t j, nseen = 0, s;

		if (!g->caller_order && !g->children) {
			err = add_to(g, self, funcs, n, period); /* leaf first */
			continue;
		}
		if (n > caprev) {
			free(rev);
			free(seen);
			caprev = n * 2;
			rev = malloc(caprev * sizeof(*rev));
			seen = malloc((caprev + 1) * sizeof(*seen));
			if (!rev || !seen) {
				err = -ENOMEM;
				break;
			}
		}
		/* the chain in the order perf's cursor walks it: root first
		 * (caller order) or leaf first; ents along, the same way */
		for (j = 0; j < n; j++)
			rev[j] = g->caller_order ? funcs[n - 1 - j] : funcs[j];
		err = add_to(g, self, rev, n, period);
		if (!g->children)
			continue;
		/* each entry not yet met in the sample takes the chain from its
		 * frame on: down to the leaf (caller order), up to the root */
		seen[nseen++] = self;
		for (j = 0; j < n && !err; j++) {
			uint32_t e = g->caller_order ? ents[n - 1 - j] : ents[j];

			for (s = 0; s < nseen && seen[s] != e; s++)
				;
			if (s < nseen)
				continue;
			seen[nseen++] = e;
			err = add_to(g, e, rev + j, n - j, period);
		}
	}
	free(rev);
	free(seen);
	return err;
}

uint64_t graph_min_hit(const struct report *r, int ev, double min_percent)
{
	const struct event_tot t = report_shown_tot(r, ev);

	/* perf: hists__total_period() * (min_percent / 100), a u64 */
	return (uint64_t)((double)t.period * (min_percent / 100.0));
}

/* ---- printing (perf's ui/stdio/hist.c, graph mode) ---- */

struct gprint {
	const struct graph *g;
	uint64_t total, min_hit;
	char name[64];
};

static const char *func_name(struct gprint *p, uint32_t f)
{
	const struct gfunc *x = &p->g->funcs[f];

	if (x->name)
		return x->name;
	snprintf(p->name, sizeof(p->name), "%#" PRIx64, x->addr);
	return p->name;
}

static void margin(int left)
{
	printf("            %*s", left, "");
}

/* x's kids that reach the threshold, by period (descending; equal ones in
 * their tree order, as perf's rb_insert_callchain() leaves them). */
static uint32_t sorted_kids(const struct gprint *p, const struct gnode *x, const struct gnode ***out)
{
	const struct gnode **v, *c;
	uint32_t n = 0, k;

	*out = NULL;
	if (!x->nkids || !(v = malloc(x->nkids * sizeof(*v))))
		return 0;
	for (c = kid_first(x); c; c = kid_next(c)) {
		if (cumul(c) < p->min_hit)
			continue;
		for (k = n; k > 0 && cumul(v[k - 1]) < cumul(c); k--)
			v[k] = v[k - 1];
		v[k] = c;
		n++;
	}
	*out = v;
	return n;
}

/*
 * perf keeps which levels still draw a '|' in an int, bit i for level i;
 * past 32 levels its shifts wrap (x86 takes the count modulo 32), which
 * this does on purpose, so deep graphs look as perf draws them.
 */
static inline unsigned level_bit(int i)
{
	return 1u << (i & 31);
}

static void graph_line(int depth, unsigned mask, int left)
{
	int i;

	margin(left);
	for (i = 0; i < depth; i++)
		fputs(mask & level_bit(i) ? "|          " : "           ", stdout);
	putchar('\n');
}

static bool print_level(struct gprint *p, const struct gnode *x, int depth, unsigned mask, int left)
{
	const struct gnode **kids;
	uint32_t n = sorted_kids(p, x, &kids), i, v;
	unsigned new_mask = mask;

	for (i = 0; i < n; i++) {
		const struct gnode *c = kids[i];

		if (i + 1 == n)
			new_mask &= ~level_bit(depth - 1);
		graph_line(depth, mask, left);
		for (v = 0; v < c->nval; v++) {
			int d;

			margin(left);
			for (d = 0; d < depth; d++) {
				putchar(new_mask & level_bit(d) ? '|' : ' ');
				if (!v && d == depth - 1)
					printf("--%.2f%%--", p->total ? (double)cumul(c) * 100.0 / (double)p->total : 0.0);
				else
					fputs("          ", stdout);
			}
			puts(func_name(p, c->val[v]));
		}
		print_level(p, c, depth + 1, new_mask | level_bit(depth), left);
	}
	free(kids);
	return n > 0;
}

void graph_print(const struct report *r, const struct entry *e, double min_percent)
{
	const struct graph *g = r->graph;
	size_t idx = (size_t)(e - r->v);
	const struct gnode *root = idx < g->nroot ? g->root[idx] : NULL;
	struct gprint p = { .g = g, .total = r->tot[e->event].period,
			    .min_hit = graph_min_hit(r, e->event, min_percent) };
	const struct gnode **kids;
	uint32_t n, v;
	int left = 0;
	bool printed = false;

	if (!root)
		return;
	n = sorted_kids(&p, root, &kids);
	if (!n) {
		free(kids);
		return;
	}
	if (n == 1 && cumul(kids[0]) == report_overhead(r, e)) {
		/* one root holding all of the entry: no percentage, one column less */
		const struct gnode *c = kids[0];

		for (v = 0; v < c->nval; v++) {
			/* sorted by symbol, the first frame is the entry itself */
			if (!v && r->sort_sym_first)
				continue;
			margin(left);
			if (!printed) {
				printf("|\n");
				margin(left);
				printf("---");
				left += 3;
				printed = true;
			}
			puts(func_name(&p, c->val[v]));
		}
		root = c;
	}
	free(kids);
	/* a blank line after a graph, none when it printed nothing */
	if (print_level(&p, root, 1, 1, left) || printed)
		putchar('\n');
}

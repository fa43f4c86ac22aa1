// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two readers of one file share its samples (even and odd numbers, each on
 * a thread of its own; report.c): their tables are added up here. An
 * entry's key holds ids of the reader's interned strings, so the second
 * table's keys are translated to the first's ids; an entry both made keeps
 * the fields of whichever made it first (its first sample's thread, level,
 * binary); and the merged entries are put in the order one reader would
 * have made them (report_first()), so that the output cannot tell.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

struct idmap {
	struct intern *to;
	const struct intern *from;
	int32_t *id; /* from's id -> to's; -1 until asked */
};

static int32_t map_id(void *ctx, int32_t id)
{
	struct idmap *m = ctx;

	if (id < 0)
		return id;
	if (m->id[id] < 0)
		m->id[id] = intern_str(m->to, intern_get(m->from, id));
	return m->id[id];
}

/* from's key in r's ids (-ENOMEM when out of memory). */
static int map_key(const struct report *r, struct idmap *m, const uint64_t *from, uint64_t *key)
{
	int i;

	memcpy(key, from, (size_t)r->kwords * sizeof(*key));
	for (i = 0; i < r->nkeys; i++) {
		uint64_t *k = &key[r->koff[i]];
		int32_t a, b;

		switch (r->keys[i]) {
		case RK_SYM:
			if (!(k[0] & 1))
				break; /* an unknown symbol: its address alone */
			a = map_id(m, (int32_t)(k[0] >> 33));
			b = map_id(m, (int32_t)((k[0] >> 1) & 0xffffffffu));
			if (a < 0 || b < 0)
				return -ENOMEM;
			k[0] = ((uint64_t)(uint32_t)a << 33) | ((uint64_t)(uint32_t)b << 1) | 1;
			break;
		case RK_DSO:
		case RK_COMM:
		case RK_SRCLINE:
			if ((a = map_id(m, (int32_t)k[0])) < 0)
				return -ENOMEM;
			k[0] = (uint32_t)a;
			break;
		default: /* pid: a number; branch keys: branch mode has one reader */
			break;
		}
	}
	return 0;
}

/* e's shown fields from x (made first). */
static int take_shown(struct entry *e, const struct entry *x, struct idmap *m)
{
	int32_t dso = map_id(m, x->dso), comm = map_id(m, x->comm), pid_comm = map_id(m, x->pid_comm);

	if (dso < 0 || comm < 0 || pid_comm < 0)
		return -ENOMEM;
	e->sym = x->sym;
	e->object = x->object;
	e->sym_off = x->sym_off;
	e->addr = x->addr;
	e->kernel = x->kernel;
	e->dso = dso;
	e->comm = comm;
	e->pid_comm = pid_comm;
	e->pid = x->pid;
	e->tid = x->tid;
	e->first = x->first;
	e->filtered = x->filtered;
	return 0;
}

static const struct entry *sort_base;

static int by_first(const void *a, const void *b)
{
	uint64_t x = sort_base[*(const uint32_t *)a].first, y = sort_base[*(const uint32_t *)b].first;

	return x < y ? -1 : x > y;
}

/* r's entries in the order they were first made; *renum: old index -> new. */
static int reorder(struct report *r, uint32_t **renum)
{
	uint32_t *order = malloc((r->n ? r->n : 1) * sizeof(*order)), i;
	struct entry *v = r->n ? aligned_alloc(_Alignof(struct entry), r->cap * sizeof(*v)) : NULL;

	*renum = malloc((r->n ? r->n : 1) * sizeof(**renum));
	if (!order || !*renum || (r->n && !v)) {
		free(order);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < r->n; i++)
		order[i] = i;
	sort_base = r->v;
	qsort(order, r->n, sizeof(*order), by_first); /* firsts are distinct: the order is total */
	for (i = 0; i < r->n; i++) {
		v[i] = r->v[order[i]];
		(*renum)[order[i]] = i;
	}
	free(order);
	if (r->n) {
		free(r->v);
		r->v = v;
	}
	return report_rehash(r);
}

int report_merge(struct report *r, const struct report *from)
{
	int32_t nstrs = intern_count(from->strs), i;
	struct idmap m = { r->strs, from->strs, malloc((nstrs ? nstrs : 1) * sizeof(int32_t)) };
	uint32_t *emap = malloc((from->n ? from->n : 1) * sizeof(*emap)), *renum = NULL;
	uint64_t key[KEY_WORDS];
	int err = 0;
	size_t j;

	if (!m.id || !emap) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nstrs; i++)
		m.id[i] = -1;
	for (i = 0; i < from->ntot && !err; i++) {
		struct event_tot *t = report_event_tot(r, i);

		if (!t) {
			err = -ENOMEM;
			break;
		}
		t->samples += from->tot[i].samples;
		t->period += from->tot[i].period;
		t->kept_samples += from->tot[i].kept_samples;
		t->kept_period += from->tot[i].kept_period;
	}
	for (j = 0; j < from->n && !err; j++) {
		const struct entry *x = &from->v[j];
		struct entry *e;
		bool made;

		if ((err = map_key(r, &m, x->key, key)))
			break;
		e = report_entry(r, key, x->event, &made);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		if (made || x->first < e->first)
			err = take_shown(e, x, &m);
		e->self += x->self;
		e->children += x->children;
		e->self_samples += x->self_samples;
		if (x->depth > e->depth)
			e->depth = x->depth;
		emap[j] = (uint32_t)(e - r->v);
	}
	if (!err)
		err = reorder(r, &renum);
	if (!err && r->graph)
		err = graph_renumber(r->graph, renum);
	if (!err && r->graph && from->graph) {
		for (j = 0; j < from->n; j++)
			emap[j] = renum[emap[j]];
		err = graph_merge(r->graph, from->graph, emap, map_id, &m);
	}
out:
	free(m.id);
	free(emap);
	free(renum);
	return err;
}

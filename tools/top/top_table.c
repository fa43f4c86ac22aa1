// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring top`'s window of samples and the views made of it: see top_table.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "top/top_table.h"

struct top_sym {
	char *name;     /* NULL: unnamed function */
	char *dso;      /* NULL: a command name */
	uint32_t refs;  /* 0: a free slot */
	uint32_t next;  /* hash chain, or the free list */
	bool kernel;
};

struct top_srec {
	struct top_sample s;
	uint32_t first; /* its frames: bucket.frames[first .. first + n) */
	uint32_t n;
};

struct top_bucket {
	struct top_srec *s;
	size_t n, cap;
	uint32_t *frames;
	size_t nf, fcap;
	uint64_t lost, dropped;
};

struct top_table {
	struct top_sym *syms;
	uint32_t nsyms, cap, free_head;
	uint32_t *heads; /* hash -> first sym */
	uint32_t nheads; /* a power of two */
	struct top_bucket *b;
	unsigned window, cur;
	size_t max_samples, max_frames, nsamples, nframes; /* bounds and what the window holds */
};

static uint32_t hash_str(uint32_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static uint32_t sym_hash(const char *name, const char *dso, bool kernel)
{
	return hash_str(hash_str(2166136261u ^ (kernel ? 1u : 0u) ^ (dso ? 2u : 0u) ^ (name ? 4u : 0u), name), dso);
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

struct top_table *top_table_new(unsigned window, size_t max_samples, size_t max_frames)
{
	struct top_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->window = window ? window : 1;
	t->max_samples = max_samples;
	t->max_frames = max_frames;
	t->free_head = TOP_NONE;
	t->nheads = 4096;
	t->heads = malloc(t->nheads * sizeof(*t->heads));
	t->b = calloc(t->window, sizeof(*t->b));
	if (!t->heads || !t->b) {
		top_table_free(t);
		return NULL;
	}
	memset(t->heads, 0xff, t->nheads * sizeof(*t->heads));
	return t;
}

void top_table_free(struct top_table *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nsyms; i++) {
		free(t->syms[i].name);
		free(t->syms[i].dso);
	}
	for (i = 0; t->b && i < t->window; i++) {
		free(t->b[i].s);
		free(t->b[i].frames);
	}
	free(t->b);
	free(t->syms);
	free(t->heads);
	free(t);
}

/* Twice the chains' heads when the table outgrows them. */
static void rehash(struct top_table *t)
{
	uint32_t n = t->nheads * 2, *heads = malloc(n * sizeof(*heads)), i, h;

	if (!heads)
		return; /* longer chains, still correct */
	memset(heads, 0xff, n * sizeof(*heads));
	for (i = 0; i < t->nsyms; i++) {
		if (!t->syms[i].refs)
			continue;
		h = sym_hash(t->syms[i].name, t->syms[i].dso, t->syms[i].kernel) & (n - 1);
		t->syms[i].next = heads[h];
		heads[h] = i;
	}
	free(t->heads);
	t->heads = heads;
	t->nheads = n;
}

uint32_t top_table_intern(struct top_table *t, const char *name, const char *dso, bool kernel)
{
	uint32_t h = sym_hash(name, dso, kernel), i, id;
	struct top_sym *s;

	for (i = t->heads[h & (t->nheads - 1)]; i != TOP_NONE; i = t->syms[i].next) {
		s = &t->syms[i];
		if (s->kernel == kernel && str_eq(s->name, name) && str_eq(s->dso, dso)) {
			s->refs++;
			return i;
		}
	}
	if (t->free_head != TOP_NONE) {
		id = t->free_head;
		t->free_head = t->syms[id].next;
	} else {
		if (t->nsyms == t->cap) {
			uint32_t cap = t->cap ? t->cap * 2 : 1024;
			struct top_sym *syms = realloc(t->syms, cap * sizeof(*syms));

			if (!syms)
				return TOP_NONE;
			t->syms = syms;
			t->cap = cap;
		}
		id = t->nsyms++;
	}
	s = &t->syms[id];
	s->name = name ? strdup(name) : NULL;
	s->dso = dso ? strdup(dso) : NULL;
	if ((name && !s->name) || (dso && !s->dso)) {
		free(s->name);
		free(s->dso);
		s->name = s->dso = NULL;
		s->refs = 0;
		s->next = t->free_head;
		t->free_head = id;
		return TOP_NONE;
	}
	s->kernel = kernel;
	s->refs = 1;
	s->next = t->heads[h & (t->nheads - 1)];
	t->heads[h & (t->nheads - 1)] = id;
	if (t->nsyms > t->nheads * 2)
		rehash(t);
	return id;
}

void top_table_ref(struct top_table *t, uint32_t id)
{
	t->syms[id].refs++;
}

void top_table_unref(struct top_table *t, uint32_t id)
{
	struct top_sym *s = &t->syms[id];
	uint32_t *p;

	if (--s->refs)
		return;
	/* the last reference: out of its chain, onto the free list */
	for (p = &t->heads[sym_hash(s->name, s->dso, s->kernel) & (t->nheads - 1)]; *p != id; p = &t->syms[*p].next)
		;
	*p = s->next;
	free(s->name);
	free(s->dso);
	s->name = s->dso = NULL;
	s->next = t->free_head;
	t->free_head = id;
}

const char *top_table_name(const struct top_table *t, uint32_t id)
{
	return t->syms[id].name ? t->syms[id].name : "[unknown]";
}

const char *top_table_dso(const struct top_table *t, uint32_t id)
{
	return t->syms[id].dso ? t->syms[id].dso : "";
}

bool top_table_kernel(const struct top_table *t, uint32_t id)
{
	return t->syms[id].kernel;
}

bool top_table_unnamed(const struct top_table *t, uint32_t id)
{
	return !t->syms[id].name;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

int top_table_add(struct top_table *t, const struct top_sample *s, const uint32_t *frames, size_t n)
{
	struct top_bucket *b = &t->b[t->cur];
	struct top_srec *r;
	size_t i;

	if (t->nsamples + 1 > t->max_samples || t->nframes + n > t->max_frames || !grow((void **)&b->s, &b->cap, b->n + 1, sizeof(*b->s)) ||
	    !grow((void **)&b->frames, &b->fcap, b->nf + n, sizeof(*b->frames))) {
		b->dropped++;
		return 1;
	}
	r = &b->s[b->n++];
	r->s = *s;
	r->first = (uint32_t)b->nf;
	r->n = (uint32_t)n;
	top_table_ref(t, s->comm);
	for (i = 0; i < n; i++) {
		top_table_ref(t, frames[i]);
		b->frames[b->nf++] = frames[i];
	}
	t->nsamples++;
	t->nframes += n;
	return 0;
}

void top_table_lost(struct top_table *t, uint64_t n)
{
	t->b[t->cur].lost += n;
}

static void bucket_clear(struct top_table *t, struct top_bucket *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		top_table_unref(t, b->s[i].s.comm);
	for (i = 0; i < b->nf; i++)
		top_table_unref(t, b->frames[i]);
	t->nsamples -= b->n;
	t->nframes -= b->nf;
	b->n = b->nf = 0;
	b->lost = b->dropped = 0;
	/* a bucket that grew for a burst gives its memory back */
	if (b->cap > 65536) {
		free(b->s);
		b->s = NULL;
		b->cap = 0;
	}
	if (b->fcap > 1048576) {
		free(b->frames);
		b->frames = NULL;
		b->fcap = 0;
	}
}

void top_table_tick(struct top_table *t)
{
	t->cur = (t->cur + 1) % t->window;
	bucket_clear(t, &t->b[t->cur]);
}

void top_table_clear(struct top_table *t)
{
	unsigned i;

	for (i = 0; i < t->window; i++)
		bucket_clear(t, &t->b[i]);
}

bool top_list_has(const char *list, const char *s, bool basename_too)
{
	const char *base = basename_too && strrchr(s, '/') ? strrchr(s, '/') + 1 : NULL;
	size_t n = strlen(s), bn = base ? strlen(base) : 0;
	const char *p = list, *e;

	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ',');
		if (((size_t)(e - p) == n && !strncmp(p, s, n)) || (base && (size_t)(e - p) == bn && !strncmp(p, base, bn)))
			return true;
	}
	return false;
}

static bool sample_passes(const struct top_table *t, const struct top_filter *f, const struct top_srec *r,
			  const uint32_t *frames)
{
	if (f->cpu >= 0 && r->s.cpu != f->cpu)
		return false;
	if (f->pid >= 0 && r->s.pid != (uint64_t)f->pid)
		return false;
	if (f->comms && !top_list_has(f->comms, top_table_name(t, r->s.comm), false))
		return false;
	/* a binary: the sample's own (its leaf's), as perf top's --dsos */
	if (f->dsos && (!r->n || !top_list_has(f->dsos, top_table_dso(t, frames[0]), true)))
		return false;
	return true;
}

struct top_acc {
	uint64_t self, children, nself;
	uint64_t stamp; /* the last sample that counted in children (+1) */
};

static enum top_sort sort_key;
static const struct top_table *sort_table;

static int row_cmp(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	uint64_t vx = sort_key == TOP_SORT_CHILDREN ? x->children : x->self;
	uint64_t vy = sort_key == TOP_SORT_CHILDREN ? y->children : y->self;
	int c;

	if (sort_key != TOP_SORT_NAME && vx != vy)
		return vx > vy ? -1 : 1;
	c = strcmp(top_table_name(sort_table, x->sym), top_table_name(sort_table, y->sym));
	if (c)
		return c;
	c = strcmp(top_table_dso(sort_table, x->sym), top_table_dso(sort_table, y->sym));
	return c ? c : (x->sym < y->sym ? -1 : x->sym > y->sym);
}

/* Distinct pids among the filtered samples: a small open-addressing set. */
struct pid_set {
	uint32_t *v;
	size_t cap, n;
};

static void pid_set_add(struct pid_set *ps, uint32_t pid)
{
	size_t i;

	if ((ps->n + 1) * 2 > ps->cap) {
		struct pid_set bigger = { calloc(ps->cap ? ps->cap * 2 : 256, sizeof(uint32_t)), ps->cap ? ps->cap * 2 : 256, 0 };

		if (!bigger.v)
			return;
		for (i = 0; i < ps->cap; i++)
			if (ps->v[i])
				pid_set_add(&bigger, ps->v[i] - 1);
		free(ps->v);
		*ps = bigger;
	}
	for (i = (pid * 2654435761u) & (ps->cap - 1); ps->v[i]; i = (i + 1) & (ps->cap - 1))
		if (ps->v[i] == pid + 1)
			return;
	ps->v[i] = pid + 1;
	ps->n++;
}

int top_table_view(struct top_table *t, const struct top_filter *f, enum top_sort key, struct top_view *v)
{
	struct top_acc *acc = calloc(t->nsyms ? t->nsyms : 1, sizeof(*acc));
	struct pid_set pids = { NULL, 0, 0 };
	uint64_t seq = 0;
	unsigned bi;
	size_t i, k, n = 0;

	memset(v, 0, sizeof(*v));
	if (!acc)
		return -ENOMEM;
	for (bi = 0; bi < t->window; bi++) {
		const struct top_bucket *b = &t->b[bi];

		v->lost += b->lost;
		v->dropped += b->dropped;
		v->all_samples += b->n;
		for (i = 0; i < b->n; i++) {
			const struct top_srec *r = &b->s[i];
			const uint32_t *fr = b->frames + r->first;

			if (!sample_passes(t, f, r, fr))
				continue;
			seq++;
			v->nsamples++;
			v->total += r->s.period;
			pid_set_add(&pids, r->s.pid);
			if (!r->n)
				continue;
			if (top_table_unnamed(t, fr[0]))
				v->unnamed += r->s.period;
			acc[fr[0]].self += r->s.period;
			acc[fr[0]].nself++;
			/* children: once per sample, however often the chain holds it (recursion) */
			for (k = 0; k < r->n; k++) {
				if (acc[fr[k]].stamp == seq)
					continue;
				acc[fr[k]].stamp = seq;
				acc[fr[k]].children += r->s.period;
			}
		}
	}
	v->procs = pids.n;
	free(pids.v);
	for (i = 0; i < t->nsyms; i++)
		n += acc[i].children && t->syms[i].dso;
	v->rows = malloc((n ? n : 1) * sizeof(*v->rows));
	if (!v->rows) {
		free(acc);
		return -ENOMEM;
	}
	for (i = 0; i < t->nsyms; i++) {
		if (!acc[i].children || !t->syms[i].dso)
			continue;
		if ((f->hide_kernel && t->syms[i].kernel) || (f->hide_user && !t->syms[i].kernel))
			continue;
		v->rows[v->nrows++] = (struct top_row){ (uint32_t)i, acc[i].self, acc[i].children, acc[i].nself };
	}
	free(acc);
	sort_key = key;
	sort_table = t;
	qsort(v->rows, v->nrows, sizeof(*v->rows), row_cmp);
	return 0;
}

void top_view_free(struct top_view *v)
{
	free(v->rows);
	v->rows = NULL;
	v->nrows = 0;
}

int64_t top_table_busiest_pid(const struct top_table *t, const struct top_filter *f, uint32_t sym)
{
	/* a few hundred processes at most share a function in practice: a linear tally */
	struct { uint32_t pid; uint64_t w; } tally[256];
	size_t nt = 0, i, j;
	unsigned bi;
	int64_t best = -1;
	uint64_t bw = 0;

	for (bi = 0; bi < t->window; bi++) {
		const struct top_bucket *b = &t->b[bi];

		for (i = 0; i < b->n; i++) {
			const struct top_srec *r = &b->s[i];

			if (!r->n || b->frames[r->first] != sym || !sample_passes(t, f, r, b->frames + r->first))
				continue;
			for (j = 0; j < nt && tally[j].pid != r->s.pid; j++)
				;
			if (j == nt) {
				if (nt == sizeof(tally) / sizeof(tally[0]))
					continue;
				tally[nt].pid = r->s.pid;
				tally[nt++].w = 0;
			}
			tally[j].w += r->s.period;
		}
	}
	for (j = 0; j < nt; j++)
		if (tally[j].w > bw) {
			bw = tally[j].w;
			best = tally[j].pid;
		}
	return best;
}

size_t top_table_callers(const struct top_table *t, const struct top_filter *f, uint32_t sym, size_t depth,
			 uint32_t *chains, uint64_t *weights, size_t max)
{
	size_t n = 0, i, j, k, cap = 1024;
	uint32_t *keys = malloc(cap * depth * sizeof(*keys));
	uint64_t *w = calloc(cap, sizeof(*w));
	unsigned bi;

	if (!keys || !w || !depth)
		goto out;
	for (bi = 0; bi < t->window; bi++) {
		const struct top_bucket *b = &t->b[bi];

		for (i = 0; i < b->n; i++) {
			const struct top_srec *r = &b->s[i];
			const uint32_t *fr = b->frames + r->first;
			uint32_t key[64];

			if (!r->n || fr[0] != sym || !sample_passes(t, f, r, fr))
				continue;
			for (k = 0; k < depth && k < 64; k++)
				key[k] = k < r->n ? fr[k] : TOP_NONE;
			for (j = 0; j < n && memcmp(keys + j * depth, key, depth * sizeof(*key)); j++)
				;
			if (j == n) {
				if (n == cap)
					continue; /* the rare chains past the first 1024 distinct ones */
				memcpy(keys + n * depth, key, depth * sizeof(*key));
				n++;
			}
			w[j] += r->s.period;
		}
	}
	/* the heaviest max of them, by selection (n is small) */
	for (i = 0; i < max && i < n; i++) {
		size_t best = i;

		for (j = i + 1; j < n; j++)
			if (w[j] > w[best])
				best = j;
		if (best != i) {
			uint32_t tmp[64];
			uint64_t tw = w[i];

			memcpy(tmp, keys + i * depth, depth * sizeof(*tmp));
			memcpy(keys + i * depth, keys + best * depth, depth * sizeof(*tmp));
			memcpy(keys + best * depth, tmp, depth * sizeof(*tmp));
			w[i] = w[best];
			w[best] = tw;
		}
		memcpy(chains + i * depth, keys + i * depth, depth * sizeof(*chains));
		weights[i] = w[i];
	}
	n = i;
out:
	free(keys);
	free(w);
	return n;
}

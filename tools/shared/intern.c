// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* String interning: two open-addressing tables, by content and by pointer. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/alloc.h"
#include "shared/intern.h"

struct slot {
	const char *key; /* content table: the copy; pointer table: the caller's pointer */
	int32_t id;
};

struct table {
	struct slot *v;
	size_t cap, n;
};

struct intern {
	struct table by_str, by_ptr;
	char **strs; /* by id */
	size_t nstrs, cap_strs;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static uint64_t hash_ptr(const char *s)
{
	return ((uintptr_t)s >> 3) * 11400714819323198485ull;
}

static int table_init(struct table *t)
{
	t->cap = 1024;
	t->v = pr_zalloc(t->cap, sizeof(*t->v));
	return t->v ? 0 : -1;
}

static struct slot *find(struct table *t, const char *key, bool by_ptr)
{
	size_t i = (by_ptr ? hash_ptr(key) : hash_str(key)) & (t->cap - 1);

	while (t->v[i].key && (by_ptr ? t->v[i].key != key : strcmp(t->v[i].key, key)))
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

static int grow(struct table *t, bool by_ptr)
{
	struct table n = { .cap = t->cap * 2 };
	size_t i;

	n.v = pr_zalloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->v[i].key)
			*find(&n, t->v[i].key, by_ptr) = t->v[i];
	n.n = t->n;
	free(t->v);
	*t = n;
	return 0;
}

struct intern *intern_new(void)
{
	struct intern *t = calloc(1, sizeof(*t));

	if (!t || table_init(&t->by_str) || table_init(&t->by_ptr)) {
		intern_free(t);
		return NULL;
	}
	return t;
}

void intern_free(struct intern *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nstrs; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->by_str.v);
	free(t->by_ptr.v);
	free(t);
}

int32_t intern_str(struct intern *t, const char *s)
{
	struct slot *e;
	char *copy;

	if ((t->by_str.n + 1) * 2 > t->by_str.cap && grow(&t->by_str, false))
		return -1;
	e = find(&t->by_str, s, false);
	if (e->key)
		return e->id;
	if (pr_grow(&t->strs, &t->cap_strs, t->nstrs + 1, sizeof(*t->strs)))
		return -1;
	copy = strdup(s);
	if (!copy)
		return -1;
	t->strs[t->nstrs] = copy;
	e->key = copy;
	e->id = (int32_t)t->nstrs++;
	t->by_str.n++;
	return e->id;
}

int32_t intern_ptr(struct intern *t, const char *s)
{
	struct slot *e;
	int32_t id;

	if ((t->by_ptr.n + 1) * 2 > t->by_ptr.cap && grow(&t->by_ptr, true))
		return -1;
	e = find(&t->by_ptr, s, true);
	if (e->key)
		return e->id;
	id = intern_str(t, s);
	if (id < 0)
		return -1;
	e = find(&t->by_ptr, s, true); /* the content table may not move this one, but be sure */
	e->key = s;
	e->id = id;
	t->by_ptr.n++;
	return id;
}

int32_t intern_count(const struct intern *t)
{
	return (int32_t)t->nstrs;
}

const char *intern_get(const struct intern *t, int32_t id)
{
	return id >= 0 && (size_t)id < t->nstrs ? t->strs[id] : "";
}

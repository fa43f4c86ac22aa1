// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbol layer's string pool: every name, path and reason handed out in
 * a result is interned here, so it stays valid until the owner is freed, and
 * a file named in a thousand mappings is stored once.
 */
#include <stdlib.h>
#include <string.h>

#include "symbol/symbol_internal.h"

uint64_t pr_hash_bytes(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

struct pr_strblk {
	struct pr_strblk *prev;
	_Alignas(8) char mem[];
};

#define PR_STRBLK_SIZE (64u << 10)

/* Room for bytes (kept 8-aligned), zeroed. */
static void *entry_alloc(struct pr_strtab *t, size_t bytes)
{
	size_t need = (bytes + 7) & ~(size_t)7;
	void *e;

	if (!t->blk || t->size - t->used < need) {
		size_t size = need > PR_STRBLK_SIZE ? need : PR_STRBLK_SIZE;
		struct pr_strblk *b = malloc(sizeof(*b) + size);

		if (!b)
			return NULL;
		b->prev = t->blk;
		t->blk = b;
		t->used = 0;
		t->size = size;
	}
	e = t->blk->mem + t->used;
	t->used += need;
	memset(e, 0, need);
	return e;
}

static int grow(struct pr_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i;
	struct pr_istr **slots = pr_zalloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		struct pr_istr *e = t->slots[i];
		size_t j;

		if (!e)
			continue;
		for (j = e->hash & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = e;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

const char *pr_intern(struct pr_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	struct pr_istr *e;
	size_t j;

	/* A string ends at its first NUL: entries compare as C strings. */
	len = strnlen(s, len);
	h = pr_hash_bytes(s, len, PR_HASH_SEED);
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	for (j = h & (t->cap - 1); (e = t->slots[j]); j = (j + 1) & (t->cap - 1))
		if (e->hash == h && !strncmp(e->s, s, len) && e->s[len] == '\0')
			return e->s;
	e = entry_alloc(t, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	e->hash = h;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	t->slots[j] = e;
	t->n++;
	return e->s;
}

const char *pr_strtab_copy(struct pr_strtab *t, const char *s, size_t len)
{
	char *out;

	len = strnlen(s, len);
	out = entry_alloc(t, len + 1);
	if (!out)
		return NULL;
	memcpy(out, s, len);
	out[len] = '\0';
	return out;
}

void pr_strtab_free(struct pr_strtab *t)
{
	while (t->blk) {
		struct pr_strblk *prev = t->blk->prev;

		free(t->blk);
		t->blk = prev;
	}
	free(t->slots);
	t->slots = NULL;
	t->cap = t->n = t->used = t->size = 0;
}

void pr_build_id_hex(const uint8_t *id, size_t size, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < size; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * size] = '\0';
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile's tables: byte keys interned to dense ids (an id is the
 * index of the key's first insertion, so a table doubles as an array of
 * its keys), a growable byte buffer, and counters by key. The profile
 * (profile.c) and its writers build on them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_internal.h"
/* ---- intern tables: byte keys -> dense ids ---- */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* 8 bytes at a time (multiply and rotate), then a final mix, so that the low bits used as the
 * slot index and the high bits kept in the slot both depend on every byte. */
static uint64_t key_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ (w * 0x87c37b91114253d5ull)) * 0x4cf5ad432745937full;
		h = (h << 31) | (h >> 33);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, p + i, len - i);
		h = (h ^ (w * 0x87c37b91114253d5ull)) * 0x4cf5ad432745937full;
	}
	return mix(h);
}

/* A slot: id + 1 in the low 32 bits (0 = empty), the hash's high 32 bits above, compared
 * before the key is read. */
static inline uint64_t slot_of(uint64_t hash, size_t id)
{
	return (hash & 0xffffffff00000000ull) | (uint64_t)(id + 1);
}

/* The slots of t's keys, into slots[cap] (zeroed). */
static void place_keys(const struct pr_itab *t, uint64_t *slots, size_t cap)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t s = t->keys[i]->hash & (cap - 1);

		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = slot_of(t->keys[i]->hash, i);
	}
}

static int itab_grow_slots(struct pr_itab *t)
{
	size_t cap = t->slot_cap ? t->slot_cap * 2 : 64;
	uint64_t *slots = pr_zalloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	place_keys(t, slots, cap);
	free(t->slots);
	t->slots = slots;
	t->slot_cap = cap;
	return 0;
}

static long itab_find_hashed(const struct pr_itab *t, const void *data, size_t len, uint64_t h)
{
	if (!t->slot_cap)
		return -1;
	for (size_t s = h & (t->slot_cap - 1); t->slots[s]; s = (s + 1) & (t->slot_cap - 1)) {
		uint64_t v = t->slots[s];

		if ((v ^ h) >> 32)
			continue;
		const struct pr_ikey *k = t->keys[(uint32_t)v - 1];

		if (k->len == len && memcmp(k->data, data, len) == 0)
			return (uint32_t)v - 1;
	}
	return -1;
}

long pr_prof_itab_find(const struct pr_itab *t, const void *data, size_t len)
{
	return itab_find_hashed(t, data, len, key_hash(data, len));
}

long pr_prof_itab_get(struct pr_itab *t, const void *data, size_t len, bool *created)
{
	uint64_t h;
	size_t s;

	if (created)
		*created = false;
	if (len > UINT32_MAX)
		return -EINVAL;
	h = key_hash(data, len);
	long found = itab_find_hashed(t, data, len, h);

	if (found >= 0)
		return found;
	if (t->n >= UINT32_MAX - 1)
		return -ENOMEM;
	/* Load factor at most 1/2. */
	if ((t->n + 1) * 2 > t->slot_cap && itab_grow_slots(t))
		return -ENOMEM;
	if (pr_grow(&t->keys, &t->keys_cap, t->n + 1, sizeof(*t->keys)))
		return -ENOMEM;
	struct pr_ikey *k = malloc(sizeof(*k) + len + 1);

	if (!k)
		return -ENOMEM;
	k->hash = h;
	k->len = (uint32_t)len;
	if (len)
		memcpy(k->data, data, len);
	k->data[len] = 0; /* string keys read as C strings */
	t->keys[t->n] = k;
	for (s = h & (t->slot_cap - 1); t->slots[s]; s = (s + 1) & (t->slot_cap - 1))
		;
	t->slots[s] = slot_of(h, t->n);
	if (created)
		*created = true;
	return (long)t->n++;
}

void pr_prof_itab_free(struct pr_itab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

void pr_prof_itab_truncate(struct pr_itab *t, size_t n)
{
	if (n >= t->n)
		return;
	for (size_t i = n; i < t->n; i++)
		free(t->keys[i]);
	t->n = n;
	/* Slots of the freed keys would be found again: rebuild them from the keys kept (the
	 * table keeps its capacity, the largest it was). */
	memset(t->slots, 0, t->slot_cap * sizeof(*t->slots));
	place_keys(t, t->slots, t->slot_cap);
}

/* ---- buffers and counters ---- */

void pr_prof_buf_put(struct prof_buf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (pr_grow(&b->b, &b->cap, b->len + n + 1, 1)) {
		b->err = -ENOMEM;
		return;
	}
	if (n)
		memcpy(b->b + b->len, data, n);
	b->len += n;
	b->b[b->len] = 0;
}

long pr_prof_count(struct pr_itab *t, struct prof_buf *values, const void *key, size_t len, uint64_t v)
{
	bool created;
	long id = pr_prof_itab_get(t, key, len, &created);
	uint64_t *counts;

	if (id < 0)
		return id;
	if (created) {
		uint64_t zero = 0;

		/* ids are dense and given in order: the new one's counter is the next. */
		pr_prof_buf_put(values, &zero, sizeof(zero));
		if (values->err)
			return values->err;
	}
	counts = (uint64_t *)values->b;
	counts[id] += v;
	return id;
}

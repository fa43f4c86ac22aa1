/* The profile: samples aggregated by (event, pid, tid, comm, stack of locations).
 *
 * Everything a sample names is interned once in a table of its kind (strings,
 * mappings, functions, locations, stacks), so memory grows with the number of
 * distinct items, not with the number of samples: a million samples of the
 * same stack cost one stack entry and two counters. The encoders
 * (prof_folded.c, prof_pprof.c, prof_speedscope.c) read the tables through
 * prof_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/prof_internal.h"

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

static int itab_grow_slots(struct itab *t)
{
	size_t cap = t->slot_cap ? t->slot_cap * 2 : 64;
	uint64_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t s = t->keys[i]->hash & (cap - 1);

		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = slot_of(t->keys[i]->hash, i);
	}
	free(t->slots);
	t->slots = slots;
	t->slot_cap = cap;
	return 0;
}

static long itab_find_hashed(const struct itab *t, const void *data, size_t len, uint64_t h)
{
	if (!t->slot_cap)
		return -1;
	for (size_t s = h & (t->slot_cap - 1); t->slots[s]; s = (s + 1) & (t->slot_cap - 1)) {
		uint64_t v = t->slots[s];

		if ((v ^ h) >> 32)
			continue;
		const struct ikey *k = t->keys[(uint32_t)v - 1];

		if (k->len == len && memcmp(k->data, data, len) == 0)
			return (uint32_t)v - 1;
	}
	return -1;
}

long prof_itab_find(const struct itab *t, const void *data, size_t len)
{
	return itab_find_hashed(t, data, len, key_hash(data, len));
}

long prof_itab_get(struct itab *t, const void *data, size_t len, bool *created)
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
	if (t->n == t->keys_cap) {
		size_t cap = t->keys_cap ? t->keys_cap * 2 : 64;
		struct ikey **keys = realloc(t->keys, cap * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		t->keys = keys;
		t->keys_cap = cap;
	}
	struct ikey *k = malloc(sizeof(*k) + len + 1);

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

void prof_itab_free(struct itab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* ---- the profile ---- */

static long intern_str(struct profile *p, const char *s)
{
	return prof_itab_get(&p->strs, s ? s : "", s ? strlen(s) : 0, NULL);
}

struct profile *prof_new(const char *const *event_names, int nevents)
{
	struct profile *p;

	if (nevents <= 0 || nevents > PROF_MAX_EVENTS || !event_names) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->loc_cache = calloc((size_t)1 << PROF_LOC_CACHE_BITS, sizeof(*p->loc_cache));
	if (!p->loc_cache)
		goto nomem;
	p->nevents = nevents;
	p->event_sid = calloc((size_t)nevents, sizeof(*p->event_sid));
	p->sampling = calloc((size_t)nevents, sizeof(*p->sampling));
	if (!p->event_sid || !p->sampling)
		goto nomem;
	/* String 0 is "" (pprof requires it). */
	if (intern_str(p, "") != 0)
		goto nomem;
	for (int i = 0; i < nevents; i++) {
		long id = intern_str(p, event_names[i] ? event_names[i] : "");

		if (id < 0)
			goto nomem;
		p->event_sid[i] = (uint32_t)id;
	}
	return p;
nomem:
	prof_free(p);
	errno = ENOMEM;
	return NULL;
}

void prof_free(struct profile *p)
{
	if (!p)
		return;
	prof_itab_free(&p->strs);
	prof_itab_free(&p->maps);
	prof_itab_free(&p->funcs);
	prof_itab_free(&p->locs);
	prof_itab_free(&p->stacks);
	free(p->stack_vals);
	free(p->event_sid);
	free(p->sampling);
	free(p->scratch);
	free(p->loc_cache);
	if (p->timeline)
		free(p->timeline->b);
	free(p->timeline);
	free(p);
}

int prof_keep_timeline(struct profile *p)
{
	if (!p)
		return -EINVAL;
	if (!p->timeline && !(p->timeline = calloc(1, sizeof(*p->timeline))))
		return -ENOMEM;
	return 0;
}

void prof_set_clock(struct profile *p, uint64_t perf_ns, uint64_t epoch_ns)
{
	p->clock_perf_ns = perf_ns;
	p->clock_epoch_ns = epoch_ns;
	p->has_clock = true;
}

void prof_set_sampling(struct profile *p, int event, uint64_t value, bool freq)
{
	if (!p || event < 0 || event >= p->nevents)
		return;
	p->sampling[event].value = value;
	p->sampling[event].freq = freq;
}

void prof_buf_put(struct prof_buf *b, const void *data, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (b->len + n + 1 > cap)
			cap *= 2;
		unsigned char *nb = realloc(b->b, cap);

		if (!nb) {
			b->err = -ENOMEM;
			return;
		}
		b->b = nb;
		b->cap = cap;
	}
	if (n)
		memcpy(b->b + b->len, data, n);
	b->len += n;
	b->b[b->len] = 0;
}

long prof_count(struct itab *t, struct prof_buf *values, const void *key, size_t len, uint64_t v)
{
	bool created;
	long id = prof_itab_get(t, key, len, &created);
	uint64_t *counts;

	if (id < 0)
		return id;
	if (created) {
		uint64_t zero = 0;

		/* ids are dense and given in order: the new one's counter is the next. */
		prof_buf_put(values, &zero, sizeof(zero));
		if (values->err)
			return values->err;
	}
	counts = (uint64_t *)values->b;
	counts[id] += v;
	return id;
}

static int scratch_reserve(struct profile *p, size_t bytes)
{
	if (bytes <= p->scratch_cap)
		return 0;
	size_t cap = p->scratch_cap ? p->scratch_cap : 256;

	while (cap < bytes)
		cap *= 2;
	void *s = realloc(p->scratch, cap);

	if (!s)
		return -ENOMEM;
	p->scratch = s;
	p->scratch_cap = cap;
	return 0;
}

static void hexify(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* The mapping of a frame: 0 when nothing is known of it, else its index + 1. */
static long intern_mapping(struct profile *p, const struct prof_frame *f)
{
	struct prof_map_key k = { 0 };
	char bid[2 * PROF_MAX_BUILD_ID + 1] = "";
	long id;

	if (!f->binary && !f->map_start && !f->map_limit && !f->map_pgoff)
		return 0;
	k.start = f->map_start;
	k.limit = f->map_limit;
	k.pgoff = f->map_pgoff;
	if ((id = intern_str(p, f->binary)) < 0)
		return id;
	k.file_sid = (uint32_t)id;
	if (f->build_id && f->build_id_size) {
		hexify(bid, f->build_id, f->build_id_size < PROF_MAX_BUILD_ID ? f->build_id_size : PROF_MAX_BUILD_ID);
	}
	if ((id = intern_str(p, bid)) < 0)
		return id;
	k.build_id_sid = (uint32_t)id;
	id = prof_itab_get(&p->maps, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

static long intern_function(struct profile *p, const struct prof_frame *f)
{
	struct prof_func_key k = { 0 };
	long id;

	if ((id = intern_str(p, f->name)) < 0)
		return id;
	k.name_sid = (uint32_t)id;
	if ((id = intern_str(p, f->file)) < 0)
		return id;
	k.file_sid = (uint32_t)id;
	id = prof_itab_get(&p->funcs, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

/* One location from frames[0..n): the last frame is the real one, the ones
 * before it were inlined into it (innermost first, pprof's order of lines). */
static long intern_location(struct profile *p, const struct prof_frame *frames, size_t n)
{
	const struct prof_frame *outer = &frames[n - 1];
	size_t bytes = sizeof(struct prof_loc_key) + n * sizeof(struct prof_line);
	struct prof_loc_key *k;
	long id;

	if (scratch_reserve(p, bytes))
		return -ENOMEM;
	k = p->scratch;
	memset(k, 0, sizeof(*k));
	k->addr = outer->addr;
	k->kernel = outer->kernel;
	if ((id = intern_mapping(p, outer)) < 0)
		return id;
	k->map = (uint32_t)id;
	for (size_t i = 0; i < n; i++) {
		if (!frames[i].name)
			continue; /* an unnamed frame has no line: the address stands for it */
		if ((id = intern_function(p, &frames[i])) < 0)
			return id;
		k = p->scratch; /* intern_function does not touch the scratch, but stay safe */
		k->lines[k->nlines].func = (uint32_t)id;
		k->lines[k->nlines].line = frames[i].line;
		k->nlines++;
	}
	id = prof_itab_get(&p->locs, k, sizeof(*k) + k->nlines * sizeof(struct prof_line), NULL);
	return id;
}

/* ---- the location cache: most frames repeat, and comparing one with the location its
 * address had last time costs a few string compares instead of seven table lookups ---- */

static size_t cache_slot(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - PROF_LOC_CACHE_BITS));
}

static bool str_is(const struct profile *p, uint32_t sid, const char *s)
{
	return strcmp(prof_str(p, sid), s ? s : "") == 0;
}

/* The hex string of a build id as intern_mapping writes it, against the bytes. */
static bool build_id_is(const char *hex, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	if (!b)
		n = 0;
	if (n > PROF_MAX_BUILD_ID)
		n = PROF_MAX_BUILD_ID;
	for (size_t i = 0; i < n; i++)
		if (hex[2 * i] != digits[b[i] >> 4] || hex[2 * i + 1] != digits[b[i] & 15])
			return false;
	return hex[2 * n] == 0;
}

/* The location of a frame with no inlined frames, if the cache holds it; else -1. */
static long cached_location(const struct profile *p, const struct prof_frame *f)
{
	uint32_t c = p->loc_cache[cache_slot(f->addr)];
	const struct prof_loc_key *l;
	const struct prof_map_key *m;

	if (!c)
		return -1;
	l = prof_loc(p, c - 1);
	if (l->addr != f->addr || l->kernel != f->kernel || l->nlines != (f->name ? 1u : 0u))
		return -1;
	if (l->nlines) {
		const struct prof_func_key *fn = prof_func(p, l->lines[0].func);

		if (l->lines[0].line != f->line || !str_is(p, fn->name_sid, f->name) || !str_is(p, fn->file_sid, f->file))
			return -1;
	}
	m = prof_map(p, l->map);
	if (!m)
		return !f->binary && !f->map_start && !f->map_limit && !f->map_pgoff ? (long)c - 1 : -1;
	if (!f->binary && !f->map_start && !f->map_limit && !f->map_pgoff)
		return -1;
	if (m->start != f->map_start || m->limit != f->map_limit || m->pgoff != f->map_pgoff ||
	    !str_is(p, m->file_sid, f->binary) || !build_id_is(prof_str(p, m->build_id_sid), f->build_id, f->build_id_size))
		return -1;
	return (long)c - 1;
}

int prof_add(struct profile *p, const struct prof_sample *s)
{
	uint32_t *locs;
	size_t nlocs = 0;
	long id;
	bool created;

	if (!p || !s || s->event < 0 || s->event >= p->nevents || (s->nframes && !s->frames))
		return -EINVAL;
	if (s->nframes > PROF_MAX_FRAMES)
		return -EINVAL;
	/* Locations first (they use the scratch), then the stack key in a buffer of its own. */
	locs = malloc((s->nframes ? s->nframes : 1) * sizeof(*locs));
	if (!locs)
		return -ENOMEM;
	for (size_t i = 0; i < s->nframes;) {
		size_t j = i;

		while (j + 1 < s->nframes && s->frames[j].inlined)
			j++;
		if (j == i && (id = cached_location(p, &s->frames[i])) >= 0) {
			locs[nlocs++] = (uint32_t)id;
			i = j + 1;
			continue;
		}
		if ((id = intern_location(p, &s->frames[i], j - i + 1)) < 0)
			goto fail;
		if (j == i)
			p->loc_cache[cache_slot(s->frames[i].addr)] = (uint32_t)id + 1;
		locs[nlocs++] = (uint32_t)id;
		i = j + 1;
	}
	size_t bytes = sizeof(struct prof_stack_key) + nlocs * sizeof(uint32_t);

	if ((id = intern_str(p, s->comm)) < 0)
		goto fail;
	if (scratch_reserve(p, bytes)) {
		id = -ENOMEM;
		goto fail;
	}
	struct prof_stack_key *k = p->scratch;

	memset(k, 0, sizeof(*k));
	k->event = (uint32_t)s->event;
	k->pid = s->pid;
	k->tid = s->tid;
	k->comm_sid = (uint32_t)id;
	k->nlocs = (uint32_t)nlocs;
	memcpy(k->locs, locs, nlocs * sizeof(uint32_t));
	free(locs);
	locs = NULL;
	/* Room for one more stack's values before the stack can exist. */
	if (p->stacks.n + 1 > p->vals_cap) {
		size_t cap = p->vals_cap ? p->vals_cap * 2 : 64;
		struct prof_vals *v = realloc(p->stack_vals, cap * sizeof(*v));

		if (!v) {
			id = -ENOMEM;
			goto fail;
		}
		p->stack_vals = v;
		p->vals_cap = cap;
	}
	if ((id = prof_itab_get(&p->stacks, p->scratch, bytes, &created)) < 0)
		goto fail;
	if (created)
		p->stack_vals[id] = (struct prof_vals){ 0 };
	if (p->timeline) {
		struct prof_tl_entry e = { .time = s->time, .period = s->period, .stack = (uint32_t)id };

		prof_buf_put(p->timeline, &e, sizeof(e));
		if (p->timeline->err) {
			id = -ENOMEM;
			goto fail;
		}
	}
	p->stack_vals[id].count++;
	p->stack_vals[id].period += s->period;
	if (s->time) {
		if (!p->time_min || s->time < p->time_min)
			p->time_min = s->time;
		if (s->time > p->time_max)
			p->time_max = s->time;
	}
	p->nsamples++;
	return 0;
fail:
	free(locs);
	return id == -EINVAL ? -EINVAL : -ENOMEM;
}

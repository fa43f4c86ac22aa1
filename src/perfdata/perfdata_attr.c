// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data attrs: decoding a perf_event_attr of either byte order and of
 * any version, the table of event ids, and the mapping of a kernel record
 * to its attr the way perf does it.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

/* The multi-byte fields of perf_event_attr: {offset, width}. The flag
 * bitfield at offset 40 is handled on its own. Up to config3 (136 bytes). */
static const uint8_t attr_fields[][2] = {
	{ 0, 4 },   { 4, 4 },   { 8, 8 },   { 16, 8 },  { 24, 8 },  { 32, 8 },  { 48, 4 },
	{ 52, 4 },  { 56, 8 },  { 64, 8 },  { 72, 8 },  { 80, 8 },  { 88, 4 },  { 92, 4 },
	{ 96, 8 },  { 104, 4 }, { 108, 2 }, { 110, 2 }, { 112, 4 }, { 116, 4 }, { 120, 8 },
	{ 128, 8 },
};

static uint8_t reverse_bits(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
	return b;
}

/* Swap the attr bytes [0, len) in place to host order. A compiler of the
 * other byte order allocates bitfields from the other end of their word:
 * bit k of the flags sits at bit 7 - k % 8 of byte k / 8 there, so the
 * flag bytes keep their place and have their bits reversed (as perf's
 * perf_event__attr_swap() does). */
static void attr_swap(uint8_t *a, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]); i++) {
		size_t off = attr_fields[i][0], w = attr_fields[i][1];
		uint8_t *p = a + off;

		if (off + w > len)
			continue;
		if (w == 2) {
			uint16_t v;
			memcpy(&v, p, 2);
			v = __builtin_bswap16(v);
			memcpy(p, &v, 2);
		} else if (w == 4) {
			uint32_t v;
			memcpy(&v, p, 4);
			v = __builtin_bswap32(v);
			memcpy(p, &v, 4);
		} else {
			uint64_t v;
			memcpy(&v, p, 8);
			v = __builtin_bswap64(v);
			memcpy(p, &v, 8);
		}
	}
	if (len >= 48)
		for (i = 40; i < 48; i++)
			a[i] = reverse_bits(a[i]);
}

/*
 * Decode the attr at src (avail bytes there) into out, host order, fields
 * the file lacks zero, a longer attr (newer perf) cut to this build's.
 * *file_size: the size field as written. -PERFRING_EBADREC / ETRUNC.
 */
int pd_attr_decode(const struct perfring_perfdata *pd, const void *src, size_t avail, struct perf_event_attr *out,
		   uint32_t *file_size)
{
	uint8_t tmp[sizeof(struct perf_event_attr) + 64];
	uint32_t size;
	size_t take;

	if (avail < PD_ATTR_SIZE_VER0)
		return pr_fail(PERFRING_ETRUNC, "perf.data: attr needs %d bytes, %zu there", PD_ATTR_SIZE_VER0, avail);
	size = pd32(pd, (const uint8_t *)src + 4);
	*file_size = size;
	if (size == 0)
		size = PD_ATTR_SIZE_VER0;
	if (size < PD_ATTR_SIZE_VER0)
		return pr_fail(PERFRING_EBADREC, "perf.data: attr.size %u is below the first version's %d", size,
			       PD_ATTR_SIZE_VER0);
	if (size > avail)
		return pr_fail(PERFRING_ETRUNC, "perf.data: attr.size %u but only %zu bytes there", size, avail);
	take = size < sizeof(tmp) ? size : sizeof(tmp);
	memset(tmp, 0, sizeof(tmp));
	memcpy(tmp, src, take);
	if (pd->swapped)
		attr_swap(tmp, take);
	memcpy(out, tmp, sizeof(*out));
	/* the config must see only the fields this library knows */
	out->size = size < sizeof(*out) ? size : (uint32_t)sizeof(*out);
	return 0;
}

int pd_attr_add_id(struct perfring_perfdata *pd, int idx, uint64_t id)
{
	struct pd_attr *a = pd->attrs[idx];

	if (pr_grow(&a->ids, &a->ids_cap, a->pub.nr_ids + 1, sizeof(*a->ids)))
		return pr_fail(ENOMEM, "perf.data: no memory for attr ids");
	a->pub.ids = a->ids;
	a->ids[a->pub.nr_ids++] = id;
	memset(pd->idcache, 0, sizeof(pd->idcache));
	if (pr_grow(&pd->idtab, &pd->cap_ids, pd->nr_ids + 1, sizeof(*pd->idtab)))
		return pr_fail(ENOMEM, "perf.data: no memory for the id table");
	pd->idtab[pd->nr_ids].id = id;
	pd->idtab[pd->nr_ids].idx = idx;
	pd->nr_ids++;
	pd->idtab_dirty = true;
	return 0;
}

/* IDENTIFIER .. CPU: the SAMPLE front slots a sample_id takes (one u64 each). */
#define PD_FRONT_ID_BITS                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)
#define PD_SAMPLE_ID_BITS                                                                                      \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_IDENTIFIER)

static int bits(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* The field `field` (TIME, or IDENTIFIER else ID) of this sample_type: in a
 * SAMPLE after the front slots before it, in the trailer (sample_id_all:
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER) after the trailer's slots
 * before it. The needs are the decoder's (perfring_record_sample_id). */
static struct pd_field_at field_at(const struct pd_attr *a, uint64_t field)
{
	struct pd_field_at at = { -1, -1, 0, 0 };
	uint64_t st = a->pub.cfg.sample_type;
	int tsz = 8 * bits(st & PD_SAMPLE_ID_BITS);

	if (!a->cfg_ok || !(st & field))
		return at;
	/* IDENTIFIER comes first, the rest in bit order up to ADDR, ID */
	at.sample_off = (int16_t)(field == PERF_SAMPLE_IDENTIFIER
					  ? 8
					  : 8 + 8 * bits(st & ((PD_FRONT_ID_BITS & (field - 1)) | PERF_SAMPLE_IDENTIFIER)));
	/* The id finds the event of a sample whose front may be shorter than
	 * this attr's (events of other sample types: IDENTIFIER is there for
	 * that): up to the id itself is enough. */
	at.sample_need = field == PERF_SAMPLE_TIME ? (uint16_t)(8 + 8 * bits(st & PD_FRONT_ID_BITS))
						   : (uint16_t)(at.sample_off + 8);
	if (a->pub.cfg.sample_id_all) {
		/* IDENTIFIER comes last there, the rest in bit order */
		uint64_t before = field == PERF_SAMPLE_IDENTIFIER ? st & PD_SAMPLE_ID_BITS & ~field
								  : st & PD_SAMPLE_ID_BITS & (field - 1);

		at.trailer_back = (int16_t)(tsz - 8 * bits(before));
		at.trailer_need = (uint16_t)(8 + tsz);
	}
	return at;
}

/* Add an attr (host order) with nr_ids ids (u64s in the file's order). Returns its index. */
int pd_attr_add(struct perfring_perfdata *pd, const struct perf_event_attr *attr, uint32_t file_size,
		const uint8_t *ids, uint64_t nr_ids)
{
	struct pd_attr *a;
	uint64_t i;
	int idx, err;

	if ((unsigned)pd->nr_attrs >= PD_MAX_ATTRS)
		return pr_fail(E2BIG, "perf.data: more than %u events (attrs); perfring orders at most that many", PD_MAX_ATTRS);
	if (pr_grow(&pd->attrs, &pd->cap_attrs, (size_t)pd->nr_attrs + 1, sizeof(*pd->attrs)))
		return pr_fail(ENOMEM, "perf.data: no memory for attrs");
	a = calloc(1, sizeof(*a));
	if (!a)
		return pr_fail(ENOMEM, "perf.data: no memory for an attr");
	a->attr = *attr;
	a->pub.attr = &a->attr;
	a->pub.file_attr_size = file_size;
	/* An attr with sample bits this library does not know still counts
	 * (records map to it); only its config cannot decode them. */
	a->cfg_ok = perfring_parse_config_init(&a->pub.cfg, &a->attr, pd->swapped) == 0;
	if (!a->cfg_ok)
		a->pub.cfg.swapped = pd->swapped;
	pr_pd_cfg_follow_misc(&a->pub.cfg);
	a->time_at = field_at(a, PERF_SAMPLE_TIME);
	a->id_at = field_at(a, a->pub.cfg.sample_type & PERF_SAMPLE_IDENTIFIER ? PERF_SAMPLE_IDENTIFIER
										 : PERF_SAMPLE_ID);
	idx = pd->nr_attrs;
	a->idx = idx;
	pd->attrs[pd->nr_attrs++] = a;
	/* the clock of the events, until a CLOCK_DATA feature says it */
	if (pd->info.clockid == ~0u && attr->use_clockid)
		pd->info.clockid = (uint32_t)attr->clockid;
	for (i = 0; i < nr_ids; i++) {
		err = pd_attr_add_id(pd, idx, pd64(pd, ids + i * 8));
		if (err)
			return err;
	}
	return idx;
}

static int id_cmp(const void *a, const void *b)
{
	const struct pd_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx - y->idx;
}

/* The index of the attr that has id, or -1. */
int pd_attr_find_id(struct perfring_perfdata *pd, uint64_t id)
{
	size_t lo = 0, hi;

	if (pd->idtab_dirty) {
		qsort(pd->idtab, pd->nr_ids, sizeof(*pd->idtab), id_cmp);
		pd->idtab_dirty = false;
	}
	hi = pd->nr_ids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pd->idtab[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pd->nr_ids && pd->idtab[lo].id == id ? pd->idtab[lo].idx : -1;
}

/* An id the cache of pd_attr_idx_for_record() missed: the table, then the cache. */
int pd_attr_idx_for_id(struct perfring_perfdata *pd, uint64_t id)
{
	struct pd_id *c = &pd->idcache[id % PD_IDCACHE];
	int idx = pd_attr_find_id(pd, id);

	c->id = id;
	c->idx = idx < 0 ? 0 : idx;
	return c->idx;
}

int pd_attr_set_name(struct perfring_perfdata *pd, int idx, const char *name, size_t len)
{
	struct pd_attr *a = pd->attrs[idx];
	char *s = malloc(len + 1);

	if (!s)
		return pr_fail(ENOMEM, "perf.data: no memory for an event name");
	memcpy(s, name, len);
	s[len] = 0;
	s[strnlen(s, len)] = 0;
	free(a->name_own);
	a->name_own = s;
	a->pub.name = s;
	return 0;
}

void pd_attrs_free(struct perfring_perfdata *pd)
{
	int i;

	for (i = 0; i < pd->nr_attrs; i++) {
		free(pd->attrs[i]->ids);
		free(pd->attrs[i]->name_own);
		free(pd->attrs[i]);
	}
	free(pd->attrs);
	free(pd->idtab);
	pd->attrs = NULL;
	pd->idtab = NULL;
	pd->nr_attrs = 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data feature sections: raw bytes per feature bit, and the sections
 * a user wants most decoded into struct perfring_perfdata_info (formats of
 * perf's tools/perf/util/header.c write_* functions). A section that is
 * too short for what it says it holds is reported (naming the feature) and
 * left undecoded; its raw bytes stay available.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

struct fcur {
	const struct perfring_perfdata *pd;
	const uint8_t *p;
	size_t len, pos;
	const char *feat;
	bool bad;
};

static bool fc_need(struct fcur *c, size_t n)
{
	if (c->bad || c->len - c->pos < n) {
		if (!c->bad)
			pr_log(PERFRING_LOG_WARN, "perf.data: feature %s: needs %zu bytes at %zu, section has %zu",
			       c->feat, n, c->pos, c->len);
		c->bad = true;
		return false;
	}
	return true;
}

static uint32_t fc_u32(struct fcur *c)
{
	uint32_t v;

	if (!fc_need(c, 4))
		return 0;
	v = pd32(c->pd, c->p + c->pos);
	c->pos += 4;
	return v;
}

static uint64_t fc_u64(struct fcur *c)
{
	uint64_t v;

	if (!fc_need(c, 8))
		return 0;
	v = pd64(c->pd, c->p + c->pos);
	c->pos += 8;
	return v;
}

static char *keep_string(struct perfring_perfdata *pd, const char *s, size_t len)
{
	char *d;

	if (pr_grow(&pd->strings, &pd->cap_strings, pd->nr_strings + 1, sizeof(*pd->strings)))
		return NULL;
	len = strnlen(s, len);
	d = malloc(len + 1);
	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = 0;
	pd->strings[pd->nr_strings++] = d;
	return d;
}

/* A perf string: u32 len, then len bytes (NUL-padded); view into the section. */
static bool fc_string(struct fcur *c, const char **s, size_t *len)
{
	uint32_t n = fc_u32(c);

	if (!fc_need(c, n))
		return false;
	*s = (const char *)c->p + c->pos;
	*len = n;
	c->pos += n;
	return true;
}

static const char *fc_kept_string(struct perfring_perfdata *pd, struct fcur *c)
{
	const char *s;
	size_t len;

	if (!fc_string(c, &s, &len))
		return NULL;
	return keep_string(pd, s, len);
}

static void decode_cmdline(struct perfring_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fc_u32(c), i;
	size_t total = 0, start = c->pos;
	char *out, *w;

	/* first pass: the joined length, bounds-checked */
	for (i = 0; i < nr && !c->bad; i++) {
		const char *s;
		size_t len;

		if (fc_string(c, &s, &len))
			total += strnlen(s, len) + 1;
	}
	if (c->bad)
		return;
	out = malloc(total + 1);
	if (!out)
		return;
	w = out;
	c->pos = start;
	for (i = 0; i < nr; i++) {
		const char *s = "";
		size_t len = 0, n;

		fc_string(c, &s, &len);
		n = strnlen(s, len);
		if (w != out)
			*w++ = ' ';
		memcpy(w, s, n);
		w += n;
	}
	*w = 0;
	pd->info.cmdline = keep_string(pd, out, (size_t)(w - out) + 1);
	free(out);
}

/* BUILD_ID: records {header; s32 pid; u8 build_id[20], u8 size, u8 pad[3]; filename}. */
static void decode_build_ids(struct perfring_perfdata *pd, struct fcur *c)
{
	size_t n = 0, pos;
	struct perfring_perfdata_build_id *b;

	for (pos = 0; pos + 8 <= c->len; n++) {
		uint16_t sz = pd16(pd, c->p + pos + 6);

		if (sz < 36 || sz > c->len - pos) {
			pr_log(PERFRING_LOG_WARN, "perf.data: feature BUILD_ID: entry at %zu has size %u (%zu left)",
			       pos, sz, c->len - pos);
			break;
		}
		pos += sz;
	}
	free(pd->build_ids);
	pd->build_ids = NULL;
	pd->info.nr_build_ids = 0;
	if (!n)
		return;
	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	pd->build_ids = b;
	for (pos = 0; pd->info.nr_build_ids < n; pd->info.nr_build_ids++, b++) {
		const uint8_t *e = c->p + pos;
		uint16_t sz = pd16(pd, e + 6);

		b->misc = pd16(pd, e + 4);
		b->pid = (int32_t)pd32(pd, e + 8);
		memcpy(b->build_id, e + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid */
		b->size = (b->misc & (1u << 15)) && e[32] <= 20 ? e[32] : 20;
		b->filename = keep_string(pd, (const char *)e + 36, sz - 36u);
		pos += sz;
	}
}

/* EVENT_DESC: u32 nr, u32 attr_size; per event: attr, u32 nr_ids, string name, ids. */
static void decode_event_desc(struct perfring_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fc_u32(c), asz = fc_u32(c), i, j;

	for (i = 0; i < nr && !c->bad; i++) {
		const char *name;
		size_t len;
		uint32_t nids;
		int idx = -1;

		if (!fc_need(c, asz))
			return;
		c->pos += asz;
		nids = fc_u32(c);
		if (!fc_string(c, &name, &len) || !fc_need(c, (size_t)nids * 8))
			return;
		/* perf names the attr that has the event's first id */
		for (j = 0; j < nids && idx < 0; j++)
			idx = pd_attr_find_id(pd, pd64(pd, c->p + c->pos + j * 8));
		if (idx < 0 && nids == 0 && (int)i < pd->nr_attrs)
			idx = (int)i;
		c->pos += (size_t)nids * 8;
		if (idx >= 0 && !pd->attrs[idx]->pub.name)
			pd_attr_set_name(pd, idx, name, len);
	}
}

static void decode(struct perfring_perfdata *pd, int feat, const uint8_t *p, size_t len)
{
	static const char *const names[] = {
		[PD_FEAT_BUILD_ID] = "BUILD_ID", [PD_FEAT_HOSTNAME] = "HOSTNAME", [PD_FEAT_OSRELEASE] = "OSRELEASE",
		[PD_FEAT_VERSION] = "VERSION",   [PD_FEAT_ARCH] = "ARCH",         [PD_FEAT_NRCPUS] = "NRCPUS",
		[PD_FEAT_CPUDESC] = "CPUDESC",   [PD_FEAT_CPUID] = "CPUID",       [PD_FEAT_TOTAL_MEM] = "TOTAL_MEM",
		[PD_FEAT_CMDLINE] = "CMDLINE",   [PD_FEAT_EVENT_DESC] = "EVENT_DESC", [PD_FEAT_CLOCKID] = "CLOCKID",
		[PD_FEAT_COMPRESSED] = "COMPRESSED", [PD_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	};
	struct fcur c = { .pd = pd, .p = p, .len = len, .feat = "?" };
	struct perfring_perfdata_info *in = &pd->info;

	if (feat < (int)(sizeof(names) / sizeof(names[0])) && names[feat])
		c.feat = names[feat];
	switch (feat) {
	case PD_FEAT_HOSTNAME: in->hostname = fc_kept_string(pd, &c); break;
	case PD_FEAT_OSRELEASE: in->osrelease = fc_kept_string(pd, &c); break;
	case PD_FEAT_VERSION: in->version = fc_kept_string(pd, &c); break;
	case PD_FEAT_ARCH: in->arch = fc_kept_string(pd, &c); break;
	case PD_FEAT_CPUDESC: in->cpudesc = fc_kept_string(pd, &c); break;
	case PD_FEAT_CPUID: in->cpuid = fc_kept_string(pd, &c); break;
	case PD_FEAT_NRCPUS: {
		uint32_t avail = fc_u32(&c), online = fc_u32(&c);

		if (!c.bad) {
			in->nr_cpus_available = avail;
			in->nr_cpus_online = online;
		}
		break;
	}
	case PD_FEAT_TOTAL_MEM: {
		uint64_t kb = fc_u64(&c);

		if (!c.bad)
			in->total_mem_kb = kb;
		break;
	}
	case PD_FEAT_CMDLINE: decode_cmdline(pd, &c); break;
	case PD_FEAT_BUILD_ID: decode_build_ids(pd, &c); break;
	case PD_FEAT_EVENT_DESC: decode_event_desc(pd, &c); break;
	case PD_FEAT_CLOCKID: {
		uint64_t res = fc_u64(&c);

		if (!c.bad)
			in->clock_res_ns = res;
		break;
	}
	case PD_FEAT_CLOCK_DATA: {
		uint32_t version = fc_u32(&c), clockid = fc_u32(&c);
		uint64_t tod = fc_u64(&c), clk = fc_u64(&c);

		if (c.bad)
			break;
		if (version != 1) {
			pr_log(PERFRING_LOG_WARN, "perf.data: feature CLOCK_DATA: version %u (1 known)", version);
			break;
		}
		in->clockid = clockid;
		in->clock_tod_ns = tod;
		in->clock_ns = clk;
		break;
	}
	case PD_FEAT_COMPRESSED: {
		/* five u32s (perf's env.comp_*): version, type, level, ratio, mmap_len */
		uint32_t version = fc_u32(&c), type = fc_u32(&c), level = fc_u32(&c);
		uint32_t ratio = fc_u32(&c), mmap_len = fc_u32(&c);

		(void)version;
		if (!c.bad) {
			in->comp_type = type;
			in->comp_level = level;
			in->comp_ratio = ratio;
			in->comp_mmap_len = mmap_len;
		}
		break;
	}
	default:
		break;
	}
}

/* Record feature feat's bytes (copied when they do not outlive the call) and decode them. */
int pd_feature_set(struct perfring_perfdata *pd, int feat, const uint8_t *data, size_t len, bool copy)
{
	if (feat < 0 || feat >= PD_FEAT_BITS)
		return 0;
	if (copy) {
		uint8_t *o = malloc(len ? len : 1);

		if (!o)
			return pr_fail(ENOMEM, "perf.data: no memory for feature %d", feat);
		memcpy(o, data, len);
		free(pd->feat_own[feat]);
		pd->feat_own[feat] = o;
		data = o;
	}
	pd->feat_data[feat] = data;
	pd->feat_len[feat] = len;
	pd->feat_bitmap[feat / 64] |= 1ULL << (feat % 64);
	decode(pd, feat, data, len);
	return 0;
}

void pd_features_free(struct perfring_perfdata *pd)
{
	size_t i;

	for (i = 0; i < PD_FEAT_BITS; i++)
		free(pd->feat_own[i]);
	for (i = 0; i < pd->nr_strings; i++)
		free(pd->strings[i]);
	free(pd->strings);
	free(pd->build_ids);
}

bool perfring_perfdata_has_feature(const struct perfring_perfdata *pd, int feature)
{
	if (!pd || feature < 0 || feature >= PD_FEAT_BITS)
		return false;
	return (pd->feat_bitmap[feature / 64] >> (feature % 64)) & 1;
}

int perfring_perfdata_feature(const struct perfring_perfdata *pd, int feature, const void **data, size_t *len)
{
	if (!perfring_perfdata_has_feature(pd, feature) || !pd->feat_data[feature]) {
		if (data)
			*data = NULL;
		if (len)
			*len = 0;
		return -ENOENT;
	}
	if (data)
		*data = pd->feat_data[feature];
	if (len)
		*len = pd->feat_len[feature];
	return 0;
}

const struct perfring_perfdata_info *perfring_perfdata_info(const struct perfring_perfdata *pd)
{
	return pd ? &pd->info : NULL;
}

const struct perfring_perfdata_build_id *perfring_perfdata_build_id(const struct perfring_perfdata *pd,
								   uint32_t idx)
{
	if (!pd || idx >= pd->info.nr_build_ids)
		return NULL;
	return &pd->build_ids[idx];
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoder: PERF_RECORD_SAMPLE. A sample is described by a spec
 * (which PERF_SAMPLE_* fields, their values, the attr bits they depend on),
 * built byte by byte in the kernel's order (the layout comment of
 * PERF_RECORD_SAMPLE in include/uapi/linux/perf_event.h: CGROUP before
 * DATA_PAGE_SIZE, AUX last) in either byte order, decoded,
 * and compared field by field, views included. Covered: each field alone,
 * all together, random subsets, every read_format (as SAMPLE READ and as
 * PERF_RECORD_READ), call chain context markers, RAW sizes, branch stacks
 * (hw_idx present or not, counters, flag bitfields of either byte order),
 * REGS_* with abi 0 (no registers follow: perf_event_data reads them
 * anyway) and abi != 0, STACK_USER with size 0 (no dyn_size) and > 0,
 * WEIGHT and WEIGHT_STRUCT, DATA_SRC.
 */
#include <stdio.h>

#include "harness.h"
#include "recbuild.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define ALL_SAMPLE_BITS ((1ULL << 25) - 1)
#define ALL_READ_FORMAT 0x1fULL

struct sspec {
	/* attr */
	uint64_t type, read_format, branch_type, regs_user_mask, regs_intr_mask;
	bool sid_all, swapped;
	uint16_t misc;
	/* values */
	uint64_t identifier, ip;
	uint32_t pid, tid;
	uint64_t time, addr, id, stream_id;
	uint32_t cpu, res;
	uint64_t period;
	uint64_t rd_te, rd_tr, rd_nr, rd[8][3]; /* {value, id, lost} */
	uint64_t cc_nr, cc[16];
	uint32_t raw_size;
	uint8_t raw[64];
	uint64_t br_nr, hw_idx, br[8][3], br_cnt[8];
	bool br_write_hw_idx;
	uint64_t ru_abi, ru[64];
	uint64_t st_size, st_dyn;
	uint8_t st[64];
	uint64_t weight, data_src, transaction;
	uint64_t ri_abi, ri[64];
	uint64_t phys, cgroup, dpsz, cpsz;
	uint64_t aux_size;
	uint8_t aux[64];
	/* where the variable parts were written */
	size_t off_cc, off_raw, off_br, off_st, off_aux;
};

static struct rb B;

static void spec_default(struct sspec *s, uint64_t type, bool swapped)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->swapped = swapped;
	s->misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
	s->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	s->regs_user_mask = (1ULL << 0) | (1ULL << 5) | (1ULL << 63);
	s->regs_intr_mask = 0x1f0ULL;
	s->identifier = 0x0101010102020202ULL;
	s->ip = 0x00005555aabbccddULL;
	s->pid = 0x31323334;
	s->tid = 0x35363738;
	s->time = 0x0303030304040404ULL;
	s->addr = 0x00007ffdeadbeef0ULL;
	s->id = 0x0505050506060606ULL;
	s->stream_id = 0x0707070708080808ULL;
	s->cpu = 0x00000001;
	s->res = 0xabcd0000;
	s->period = 0x0909090910101010ULL;
	s->rd_te = 0x1111111111111111ULL;
	s->rd_tr = 0x2222222222222222ULL;
	s->rd_nr = 1;
	for (i = 0; i < 8; i++) {
		s->rd[i][0] = 0xa000000000000000ULL + i;
		s->rd[i][1] = 0xb000000000000000ULL + i;
		s->rd[i][2] = 0xc000000000000000ULL + i;
	}
	s->cc_nr = 4;
	s->cc[0] = PERF_CONTEXT_KERNEL;
	s->cc[1] = 0xffffffff81234567ULL;
	s->cc[2] = PERF_CONTEXT_USER;
	s->cc[3] = 0x0000000000401234ULL;
	s->raw_size = 12; /* 4 + 12 = 16: the kernel's padding */
	for (i = 0; i < 64; i++) {
		s->raw[i] = (uint8_t)(0x40 + i);
		s->st[i] = (uint8_t)(0x80 + i);
		s->aux[i] = (uint8_t)(0xc0 + i);
	}
	s->br_nr = 3;
	s->hw_idx = 0x0d0d0d0d0e0e0e0eULL;
	for (i = 0; i < 8; i++) {
		s->br[i][0] = 0xffffffff81000000ULL + 0x10 * i;
		s->br[i][1] = 0xffffffff82000000ULL + 0x10 * i;
		s->br[i][2] = (uint64_t)i * 0x0000000100010003ULL; /* some flag bits */
		s->br_cnt[i] = 0x4400000000000000ULL + i;
	}
	for (i = 0; i < 64; i++) {
		s->ru[i] = 0x5500000000000000ULL + i;
		s->ri[i] = 0x6600000000000000ULL + i;
	}
	s->ru_abi = PERF_SAMPLE_REGS_ABI_64;
	s->ri_abi = PERF_SAMPLE_REGS_ABI_64;
	s->st_size = 24;
	s->st_dyn = 20;
	s->weight = 0x0000abcd00001234ULL;
	s->data_src = 0x0000000068100142ULL;
	s->transaction = 0x0000000100000006ULL;
	s->phys = 0x000000012345f000ULL;
	s->cgroup = 0x0000000000001234ULL;
	s->dpsz = 4096;
	s->cpsz = 2 << 20;
	s->aux_size = 16;
}

static bool br_hw_index(const struct sspec *s)
{
	return (s->branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;
}

static bool br_counters(const struct sspec *s)
{
	return (s->branch_type & PERF_SAMPLE_BRANCH_COUNTERS) != 0;
}

static int spec_config(const struct sspec *s, struct perfring_parse_config *cfg)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sample_type = s->type;
	attr.read_format = s->read_format;
	attr.branch_sample_type = s->branch_type | PERF_SAMPLE_BRANCH_ANY;
	attr.sample_regs_user = s->regs_user_mask;
	attr.sample_regs_intr = s->regs_intr_mask;
	attr.sample_id_all = s->sid_all;
	return perfring_parse_config_init(cfg, &attr, s->swapped);
}

/* read_format data, as in a SAMPLE's READ field or a READ record. */
static void build_read_values(struct rb *b, const struct sspec *s)
{
	uint64_t f = s->read_format, i;

	if (f & PERF_FORMAT_GROUP) {
		rb_u64(b, s->rd_nr);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			rb_u64(b, s->rd_te);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rb_u64(b, s->rd_tr);
		for (i = 0; i < s->rd_nr; i++) {
			rb_u64(b, s->rd[i][0]);
			if (f & PERF_FORMAT_ID)
				rb_u64(b, s->rd[i][1]);
			if (f & PERF_FORMAT_LOST)
				rb_u64(b, s->rd[i][2]);
		}
	} else {
		rb_u64(b, s->rd[0][0]);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			rb_u64(b, s->rd_te);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			rb_u64(b, s->rd_tr);
		if (f & PERF_FORMAT_ID)
			rb_u64(b, s->rd[0][1]);
		if (f & PERF_FORMAT_LOST)
			rb_u64(b, s->rd[0][2]);
	}
}

static void build_regs(struct rb *b, uint64_t abi, uint64_t mask, const uint64_t *vals)
{
	int i, n = __builtin_popcountll(mask);

	rb_u64(b, abi);
	if (abi)
		for (i = 0; i < n; i++)
			rb_u64(b, vals[i]);
}

/* The SAMPLE of spec s into B, in the kernel's field order. */
static void build_sample(struct sspec *s)
{
	struct rb *b = &B;
	uint64_t t = s->type, i;

	rb_init(b, s->swapped);
	rb_header(b, PERF_RECORD_SAMPLE, s->misc);
	if (t & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, s->identifier);
	if (t & PERF_SAMPLE_IP)
		rb_u64(b, s->ip);
	if (t & PERF_SAMPLE_TID) {
		rb_u32(b, s->pid);
		rb_u32(b, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		rb_u64(b, s->time);
	if (t & PERF_SAMPLE_ADDR)
		rb_u64(b, s->addr);
	if (t & PERF_SAMPLE_ID)
		rb_u64(b, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		rb_u32(b, s->cpu);
		rb_u32(b, s->res);
	}
	if (t & PERF_SAMPLE_PERIOD)
		rb_u64(b, s->period);
	if (t & PERF_SAMPLE_READ)
		build_read_values(b, s);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		rb_u64(b, s->cc_nr);
		s->off_cc = b->len;
		for (i = 0; i < s->cc_nr; i++)
			rb_u64(b, s->cc[i]);
	}
	if (t & PERF_SAMPLE_RAW) {
		rb_u32(b, s->raw_size);
		s->off_raw = b->len;
		rb_bytes(b, s->raw, s->raw_size);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		rb_u64(b, s->br_nr);
		if (s->br_write_hw_idx)
			rb_u64(b, s->hw_idx);
		s->off_br = b->len;
		for (i = 0; i < s->br_nr; i++) {
			rb_u64(b, s->br[i][0]);
			rb_u64(b, s->br[i][1]);
			rb_u64(b, s->br[i][2]);
		}
		if (br_counters(s))
			for (i = 0; i < s->br_nr; i++)
				rb_u64(b, s->br_cnt[i]);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		build_regs(b, s->ru_abi, s->regs_user_mask, s->ru);
	if (t & PERF_SAMPLE_STACK_USER) {
		rb_u64(b, s->st_size);
		s->off_st = b->len;
		rb_bytes(b, s->st, s->st_size);
		if (s->st_size)
			rb_u64(b, s->st_dyn);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		rb_u64(b, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		rb_u64(b, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		rb_u64(b, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		build_regs(b, s->ri_abi, s->regs_intr_mask, s->ri);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		rb_u64(b, s->phys);
	if (t & PERF_SAMPLE_CGROUP)
		rb_u64(b, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		rb_u64(b, s->dpsz);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		rb_u64(b, s->cpsz);
	if (t & PERF_SAMPLE_AUX) {
		rb_u64(b, s->aux_size);
		s->off_aux = b->len;
		rb_bytes(b, s->aux, s->aux_size);
	}
	rb_finish(b);
}

static void check_read_values(const struct perfring_read_values *r, const struct sspec *s, const char *ctx)
{
	uint64_t f = s->read_format, i, nr = (f & PERF_FORMAT_GROUP) ? s->rd_nr : 1;

	CHECKF(r->format == f, "%s read.format %#" PRIx64 " != %#" PRIx64, ctx, r->format, f);
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		CHECKF(r->time_enabled == s->rd_te, "%s time_enabled %#" PRIx64, ctx, r->time_enabled);
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		CHECKF(r->time_running == s->rd_tr, "%s time_running %#" PRIx64, ctx, r->time_running);
	CHECKF(r->nr == nr, "%s read.nr %" PRIu64 " != %" PRIu64, ctx, r->nr, nr);
	if (r->nr != nr)
		return;
	if (f & PERF_FORMAT_GROUP) {
		uint32_t stride = 8 * (1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST));

		CHECKF(r->stride == stride, "%s read.stride %u != %u", ctx, r->stride, stride);
	}
	for (i = 0; i < nr; i++) {
		struct perfring_read_value v = { 1, 1, 1 };
		uint64_t id = (f & PERF_FORMAT_ID) ? s->rd[i][1] : 0;
		uint64_t lost = (f & PERF_FORMAT_LOST) ? s->rd[i][2] : 0;

		perfring_read_value_at(r, i, &v);
		CHECKF(v.value == s->rd[i][0] && v.id == id && v.lost == lost,
		       "%s read value %" PRIu64 ": %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64 " != %#" PRIx64 "/%#" PRIx64
		       "/%#" PRIx64,
		       ctx, i, v.value, v.id, v.lost, s->rd[i][0], id, lost);
	}
}

static void check_regs(const struct perfring_regs *r, uint64_t abi, uint64_t mask, const uint64_t *vals,
		       const char *what, const char *ctx)
{
	uint64_t i, n = abi ? (uint64_t)__builtin_popcountll(mask) : 0;

	CHECKF(r->abi == abi, "%s %s.abi %" PRIu64, ctx, what, r->abi);
	CHECKF(r->mask == mask, "%s %s.mask %#" PRIx64 " != %#" PRIx64, ctx, what, r->mask, mask);
	CHECKF(r->regs.nr == n, "%s %s: %" PRIu64 " registers, not %" PRIu64, ctx, what, r->regs.nr, n);
	for (i = 0; i < n && i < r->regs.nr; i++)
		CHECKF(perfring_u64_at(&r->regs, i) == vals[i], "%s %s reg %" PRIu64 " = %#" PRIx64, ctx, what, i,
		       perfring_u64_at(&r->regs, i));
}

/* The branch flags u64 as the writing kernel's struct perf_branch_entry
 * bitfields lay it out: from bit 0 up on a little-endian kernel, from bit
 * 63 down on a big-endian one (the uapi struct has no endian-specific
 * variant; perf's evsel__bitfield_swap_branch_flags() undoes the same). */
struct bflags {
	unsigned mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv;
	uint64_t reserved;
};

static uint64_t bflags_encode(const struct bflags *f, bool writer_big_endian)
{
	static const unsigned width[10] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31 };
	uint64_t vals[10] = { f->mispred, f->predicted, f->in_tx, f->abort, f->cycles,
			      f->type,    f->spec,      f->new_type, f->priv, f->reserved };
	uint64_t out = 0;
	unsigned i, pos = 0;

	for (i = 0; i < 10; i++) {
		unsigned shift = writer_big_endian ? 64 - pos - width[i] : pos;

		out |= (vals[i] & ((1ULL << width[i]) - 1)) << shift;
		pos += width[i];
	}
	return out;
}

/* Records in the other byte order come from a kernel of the other endianness. */
static bool writer_big_endian(bool swapped)
{
	return rb_host_big_endian() != swapped;
}

static void check_branch_entry(const struct perfring_branch_stack *bs, uint64_t i, const struct sspec *s,
			       const char *ctx)
{
	struct perfring_branch_entry e;

	memset(&e, 0x5a, sizeof(e));
	perfring_branch_at(bs, i, &e);
	CHECKF(e.from == s->br[i][0] && e.to == s->br[i][1], "%s branch %" PRIu64 " from/to %#" PRIx64 "/%#" PRIx64,
	       ctx, i, e.from, e.to);
	CHECKF(e.flags_raw == s->br[i][2], "%s branch %" PRIu64 " flags_raw %#" PRIx64 " != %#" PRIx64, ctx, i,
	       e.flags_raw, s->br[i][2]);
}

static void check_sample(const struct perfring_decoded *d, const uint8_t *rec, const struct sspec *s,
			 const char *ctx)
{
	const struct perfring_sample *p = &d->u.sample;
	uint64_t t = s->type, i;

	CHECKF(d->type == PERF_RECORD_SAMPLE && d->kind == PERFRING_REC_KERNEL, "%s type %u kind %d", ctx, d->type,
	       (int)d->kind);
	CHECKF(d->misc == s->misc && d->size == B.len, "%s misc %#x size %u", ctx, d->misc, d->size);
	CHECKF(d->raw == rec && d->raw_len == B.len, "%s raw view", ctx);
	CHECKF(d->error_field == NULL, "%s error_field set on success", ctx);
	CHECKF(p->present == t, "%s present %#" PRIx64 " != %#" PRIx64, ctx, p->present, t);
	if (t & PERF_SAMPLE_IDENTIFIER)
		CHECKF(p->identifier == s->identifier, "%s identifier %#" PRIx64, ctx, p->identifier);
	if (t & PERF_SAMPLE_IP)
		CHECKF(p->ip == s->ip, "%s ip %#" PRIx64, ctx, p->ip);
	if (t & PERF_SAMPLE_TID)
		CHECKF(p->pid == s->pid && p->tid == s->tid, "%s pid/tid %#x/%#x", ctx, p->pid, p->tid);
	if (t & PERF_SAMPLE_TIME)
		CHECKF(p->time == s->time, "%s time %#" PRIx64, ctx, p->time);
	if (t & PERF_SAMPLE_ADDR)
		CHECKF(p->addr == s->addr, "%s addr %#" PRIx64, ctx, p->addr);
	if (t & PERF_SAMPLE_ID)
		CHECKF(p->id == s->id, "%s id %#" PRIx64, ctx, p->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		CHECKF(p->stream_id == s->stream_id, "%s stream_id %#" PRIx64, ctx, p->stream_id);
	if (t & PERF_SAMPLE_CPU)
		CHECKF(p->cpu == s->cpu && p->cpu_res == s->res, "%s cpu/res %#x/%#x", ctx, p->cpu, p->cpu_res);
	if (t & PERF_SAMPLE_PERIOD)
		CHECKF(p->period == s->period, "%s period %#" PRIx64, ctx, p->period);
	if (t & PERF_SAMPLE_READ)
		check_read_values(&p->read, s, ctx);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		CHECKF(p->callchain.nr == s->cc_nr, "%s callchain.nr %" PRIu64, ctx, p->callchain.nr);
		CHECKF(s->cc_nr == 0 || p->callchain.data == rec + s->off_cc, "%s callchain at %td", ctx,
		       (const uint8_t *)p->callchain.data - rec);
		for (i = 0; i < s->cc_nr && i < p->callchain.nr; i++)
			CHECKF(perfring_u64_at(&p->callchain, i) == s->cc[i], "%s ip %" PRIu64 " %#" PRIx64, ctx, i,
			       perfring_u64_at(&p->callchain, i));
	}
	if (t & PERF_SAMPLE_RAW) {
		CHECKF(p->raw.len == s->raw_size, "%s raw.len %" PRIu64 " != %u", ctx, p->raw.len, s->raw_size);
		CHECKF(s->raw_size == 0 || p->raw.data == rec + s->off_raw, "%s raw at %td", ctx,
		       (const uint8_t *)p->raw.data - rec);
		CHECKF(p->raw.len != s->raw_size || s->raw_size == 0 || memcmp(p->raw.data, s->raw, s->raw_size) == 0,
		       "%s raw bytes differ", ctx);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		const struct perfring_branch_stack *bs = &p->branch;

		CHECKF(bs->nr == s->br_nr, "%s branch.nr %" PRIu64, ctx, bs->nr);
		CHECKF(bs->has_hw_idx == s->br_write_hw_idx, "%s has_hw_idx %d", ctx, bs->has_hw_idx);
		if (s->br_write_hw_idx)
			CHECKF(bs->hw_idx == s->hw_idx, "%s hw_idx %#" PRIx64, ctx, bs->hw_idx);
		CHECKF(s->br_nr == 0 || bs->entries == rec + s->off_br, "%s entries at %td", ctx,
		       (const uint8_t *)bs->entries - rec);
		for (i = 0; i < s->br_nr && i < bs->nr; i++)
			check_branch_entry(bs, i, s, ctx);
		if (br_counters(s) && s->br_nr) {
			struct perfring_u64_array c = { bs->counters, bs->nr, bs->swapped };

			CHECKF(bs->counters == rec + s->off_br + 24 * s->br_nr, "%s counters at %td", ctx,
			       (const uint8_t *)bs->counters - rec);
			for (i = 0; bs->counters && i < s->br_nr && i < bs->nr; i++) {
				CHECKF(perfring_u64_at(&c, i) == s->br_cnt[i], "%s counter %" PRIu64, ctx, i);
				CHECKF(perfring_branch_counter_at(bs, i) == s->br_cnt[i], "%s counter_at %" PRIu64, ctx,
				       i);
			}
			CHECKF(perfring_branch_counter_at(bs, bs->nr) == 0, "%s counter_at past nr", ctx);
		} else if (!br_counters(s)) {
			CHECKF(bs->counters == NULL, "%s counters without PERF_SAMPLE_BRANCH_COUNTERS", ctx);
		}
	}
	if (t & PERF_SAMPLE_REGS_USER)
		check_regs(&p->regs_user, s->ru_abi, s->regs_user_mask, s->ru, "regs_user", ctx);
	if (t & PERF_SAMPLE_STACK_USER) {
		CHECKF(p->stack_user.size == s->st_size, "%s stack_user.size %" PRIu64, ctx, p->stack_user.size);
		if (s->st_size) {
			CHECKF(p->stack_user.data == rec + s->off_st, "%s stack data at %td", ctx,
			       (const uint8_t *)p->stack_user.data - rec);
			CHECKF(p->stack_user.data && memcmp(p->stack_user.data, s->st, s->st_size) == 0,
			       "%s stack bytes differ", ctx);
			CHECKF(p->stack_user.dyn_size == s->st_dyn, "%s dyn_size %" PRIu64, ctx,
			       p->stack_user.dyn_size);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		CHECKF(p->weight == s->weight, "%s weight %#" PRIx64, ctx, p->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		CHECKF(p->data_src == s->data_src, "%s data_src %#" PRIx64, ctx, p->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		CHECKF(p->transaction == s->transaction, "%s transaction %#" PRIx64, ctx, p->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		check_regs(&p->regs_intr, s->ri_abi, s->regs_intr_mask, s->ri, "regs_intr", ctx);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		CHECKF(p->phys_addr == s->phys, "%s phys_addr %#" PRIx64, ctx, p->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		CHECKF(p->cgroup == s->cgroup, "%s cgroup %#" PRIx64, ctx, p->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		CHECKF(p->data_page_size == s->dpsz, "%s data_page_size %#" PRIx64, ctx, p->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		CHECKF(p->code_page_size == s->cpsz, "%s code_page_size %#" PRIx64, ctx, p->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		CHECKF(p->aux.len == s->aux_size, "%s aux.len %" PRIu64, ctx, p->aux.len);
		CHECKF(s->aux_size == 0 || p->aux.data == rec + s->off_aux, "%s aux at %td", ctx,
		       (const uint8_t *)p->aux.data - rec);
		CHECKF(p->aux.len != s->aux_size || s->aux_size == 0 || memcmp(p->aux.data, s->aux, s->aux_size) == 0,
		       "%s aux bytes differ", ctx);
	}
}

static char ctxbuf[512];

/* Build, parse and check spec s. Returns the parse result. */
static int run_spec(struct sspec *s, const char *what)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	const uint8_t *rec;
	int ret;

	snprintf(ctxbuf, sizeof(ctxbuf), "[%s swapped=%d sid_all=%d type=%#" PRIx64 " rf=%#" PRIx64 " bt=%#" PRIx64 "]",
		 what, s->swapped, s->sid_all, s->type, s->read_format, s->branch_type);
	ret = spec_config(s, &cfg);
	CHECKF(ret == 0, "%s config returned %d: %s", ctxbuf, ret, perfring_errmsg());
	if (ret)
		return ret;
	CHECKF(cfg.branch_counters == br_counters(s), "%s cfg.branch_counters %d", ctxbuf, cfg.branch_counters);
	build_sample(s);
	rec = rb_exact(&B);
	memset(&d, 0x5a, sizeof(d));
	ret = perfring_record_parse(&cfg, rec, B.len, &d);
	CHECKF(ret == 0, "%s parse returned %d, field %s: %s", ctxbuf, ret, ret ? d.error_field : "-",
	       perfring_errmsg());
	if (ret == 0)
		check_sample(&d, rec, s, ctxbuf);
	return ret;
}

static const char *const sample_bit_names[25] = {
	"IP",         "TID",       "TIME",          "ADDR",          "READ",          "CALLCHAIN",    "ID",
	"CPU",        "PERIOD",    "STREAM_ID",     "RAW",           "BRANCH_STACK",  "REGS_USER",    "STACK_USER",
	"WEIGHT",     "DATA_SRC",  "IDENTIFIER",    "TRANSACTION",   "REGS_INTR",     "PHYS_ADDR",    "AUX",
	"CGROUP",     "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

TEST(sample_each_field_alone)
{
	struct sspec s;
	int bit, order, sid;

	for (order = 0; order < 2; order++)
		for (sid = 0; sid < 2; sid++)
			for (bit = 0; bit < 25; bit++) {
				spec_default(&s, 1ULL << bit, order);
				s.sid_all = sid; /* a SAMPLE has no trailer either way */
				run_spec(&s, sample_bit_names[bit]);
			}
}

TEST(sample_all_fields_kernel_order)
{
	struct sspec s;
	int order, weight, variant;

	for (order = 0; order < 2; order++)
		for (weight = 0; weight < 2; weight++)
			for (variant = 0; variant < 2; variant++) {
				uint64_t t = ALL_SAMPLE_BITS &
					     ~(weight ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);

				spec_default(&s, t, order);
				s.sid_all = true;
				if (variant) {
					s.read_format = ALL_READ_FORMAT;
					s.rd_nr = 3;
					s.branch_type = PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS;
					s.br_write_hw_idx = true;
					s.cc_nr = 16;
					for (int i = 4; i < 16; i++)
						s.cc[i] = 0x400000 + i;
				}
				run_spec(&s, variant ? "all fields, group read, hw_idx, counters" : "all fields");
			}
}

/* The uapi header's comment puts AUX before the page sizes and omits
 * CGROUP; the kernel writes CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX. */
TEST(sample_tail_order_cgroup_page_sizes_aux)
{
	struct sspec s;
	int order;

	for (order = 0; order < 2; order++) {
		spec_default(&s,
			     PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
				     PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX,
			     order);
		s.aux_size = 8;
		run_spec(&s, "tail order");
		spec_default(&s, PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE, order);
		run_spec(&s, "cgroup before data page size");
		spec_default(&s, PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX, order);
		s.aux_size = 0;
		run_spec(&s, "aux size 0 last");
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

TEST(sample_random_subsets)
{
	struct sspec s;
	int iter;

	for (iter = 0; iter < 600; iter++) {
		uint64_t t = rng() & ALL_SAMPLE_BITS;
		uint64_t r = rng();
		int i;

		if ((t & PERF_SAMPLE_WEIGHT) && (t & PERF_SAMPLE_WEIGHT_STRUCT))
			t &= ~((r & 1) ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
		spec_default(&s, t, iter & 1);
		s.sid_all = (iter >> 1) & 1;
		s.read_format = (r >> 1) & ALL_READ_FORMAT;
		s.rd_nr = 1 + ((r >> 6) & 3);
		s.cc_nr = (r >> 8) & 15;
		for (i = 0; i < 16; i++)
			s.cc[i] = rng();
		s.raw_size = 4 + 8 * ((r >> 12) & 3);
		s.br_nr = (r >> 14) & 7;
		s.branch_type = ((r >> 17) & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
				((r >> 18) & 1 ? PERF_SAMPLE_BRANCH_COUNTERS : 0);
		s.br_write_hw_idx = br_hw_index(&s);
		s.ru_abi = (r >> 19) & 1 ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
		s.ri_abi = (r >> 20) & 1 ? PERF_SAMPLE_REGS_ABI_32 : PERF_SAMPLE_REGS_ABI_NONE;
		s.regs_user_mask = rng() & rng();
		s.regs_intr_mask = rng() & rng();
		s.st_size = 8 * ((r >> 21) & 7);
		s.aux_size = 8 * ((r >> 24) & 7);
		s.weight = rng();
		s.data_src = rng();
		if (run_spec(&s, "random") != 0)
			break;
	}
}

/* Every subset of {TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID, GROUP, LOST},
 * in a SAMPLE (between PERIOD and CALLCHAIN, so that the bytes it takes are
 * checked too) and in a PERF_RECORD_READ (with and without trailer). */
TEST(read_format_all_32_as_sample)
{
	struct sspec s;
	uint64_t f;
	int order, nr;

	for (order = 0; order < 2; order++)
		for (f = 0; f <= ALL_READ_FORMAT; f++)
			for (nr = 1; nr <= 4; nr += 3) {
				spec_default(&s, PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
							 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CPU,
					     order);
				s.read_format = f;
				s.rd_nr = (uint64_t)nr;
				run_spec(&s, "read format in SAMPLE");
			}
}

TEST(read_format_all_32_as_read_record)
{
	static struct rb b;
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	uint64_t f, st = RB_TRAILER_BITS;
	int order, sid, nr;

	for (order = 0; order < 2; order++)
		for (sid = 0; sid < 2; sid++)
			for (f = 0; f <= ALL_READ_FORMAT; f++)
				for (nr = 1; nr <= 4; nr += 3) {
					struct perfring_sample_id tv = rb_trailer_values();
					const uint8_t *rec;
					int ret;

					spec_default(&s, st, order);
					s.read_format = f;
					s.rd_nr = (uint64_t)nr;
					snprintf(ctxbuf, sizeof(ctxbuf), "[READ record swapped=%d sid_all=%d rf=%#" PRIx64
						 " nr=%d]", order, sid, f, nr);
					REQUIRE(rb_config(&cfg, st, f, sid, order) == 0);
					rb_init(&b, order);
					rb_header(&b, PERF_RECORD_READ, 0);
					rb_u32(&b, 0x7001);
					rb_u32(&b, 0x7002);
					build_read_values(&b, &s);
					if (sid)
						rb_trailer(&b, st, &tv);
					rb_finish(&b);
					rec = rb_exact(&b);
					ret = perfring_record_parse(&cfg, rec, b.len, &d);
					CHECKF(ret == 0, "%s returned %d (%s): %s", ctxbuf, ret, ret ? d.error_field : "-",
					       perfring_errmsg());
					if (ret)
						continue;
					CHECKF(d.type == PERF_RECORD_READ, "%s type %u", ctxbuf, d.type);
					CHECKF(d.u.read.pid == 0x7001 && d.u.read.tid == 0x7002, "%s pid/tid", ctxbuf);
					check_read_values(&d.u.read.values, &s, ctxbuf);
					CHECKF(d.sample_id.present == (sid ? st : 0), "%s trailer present %#" PRIx64,
					       ctxbuf, d.sample_id.present);
					if (sid)
						CHECKF(d.sample_id.identifier == tv.identifier &&
							       d.sample_id.pid == tv.pid && d.sample_id.time == tv.time,
						       "%s trailer values", ctxbuf);
				}
}

/* ---- call chains ------------------------------------------------------------------ */

TEST(callchain_context_markers)
{
	static const uint64_t ips[] = {
		PERF_CONTEXT_KERNEL, 0xffffffff81001000ULL, 0xffffffff81002000ULL, PERF_CONTEXT_USER,
		0x0000555555554000ULL, RB_CONTEXT_USER_DEFERRED, 0x00000000c00c1e01ULL, PERF_CONTEXT_HV,
		PERF_CONTEXT_GUEST, PERF_CONTEXT_GUEST_KERNEL, PERF_CONTEXT_GUEST_USER, 0x0000000000400000ULL,
	};
	static const char *const names[] = { "kernel", NULL, NULL, "user", NULL, "user-deferred", NULL,
					     "hv", "guest", "guest-kernel", "guest-user", NULL };
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	const uint8_t *rec;
	int order;
	uint64_t i;

	for (order = 0; order < 2; order++) {
		spec_default(&s, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD, order);
		s.cc_nr = NELEM(ips);
		memcpy(s.cc, ips, sizeof(ips));
		REQUIRE(run_spec(&s, "context markers") == 0);
		REQUIRE(spec_config(&s, &cfg) == 0);
		rec = rb_exact(&B);
		REQUIRE(perfring_record_parse(&cfg, rec, B.len, &d) == 0);
		REQUIRE(d.u.sample.callchain.nr == NELEM(ips));
		for (i = 0; i < NELEM(ips); i++) {
			uint64_t ip = perfring_u64_at(&d.u.sample.callchain, i);
			const char *n = perfring_callchain_context_name(ip);

			CHECKF(perfring_callchain_is_context(ip) == (names[i] != NULL),
			       "ip %" PRIu64 " %#" PRIx64 ": is_context wrong", i, ip);
			CHECKF((n == NULL && names[i] == NULL) || (n && names[i] && strcmp(n, names[i]) == 0),
			       "ip %" PRIu64 " %#" PRIx64 ": name '%s' != '%s'", i, ip, n ? n : "(null)",
			       names[i] ? names[i] : "(null)");
		}
	}
}

/* ---- RAW ---------------------------------------------------------------------------- */

/* What bpf_perf_event_output() produces: payloads of any length, padded so
 * that 4 + size is a multiple of 8 (the padding belongs to raw.len).
 * Followed by WEIGHT to check the bytes RAW took. */
TEST(raw_kernel_padded_sizes)
{
	struct sspec s;
	uint32_t payload;
	int order;

	for (order = 0; order < 2; order++)
		for (payload = 0; payload <= 45; payload++) {
			spec_default(&s, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT, order);
			s.raw_size = (uint32_t)(((4 + payload + 7) & ~7u) - 4);
			run_spec(&s, "raw padded");
		}
}

/*
 * Odd raw sizes, which no kernel writes (4 + size is always a multiple of
 * 8). Whether the next field follows at once (the uapi comment read
 * literally, and perf's parser) or at the next multiple of 8 is not
 * documented; a decoder may also refuse the size. Whatever it does: no
 * out-of-bounds read, and a record it accepts is decoded exactly, under
 * one of the two layouts; one it refuses names a field.
 */
static void raw_odd_case(uint32_t size, bool swapped, bool aligned, bool weight_follows)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	const uint8_t *rec;
	int ret;

	spec_default(&s, PERF_SAMPLE_IP | PERF_SAMPLE_RAW | (weight_follows ? PERF_SAMPLE_WEIGHT : 0), swapped);
	s.raw_size = size;
	s.weight = 0x0102030405060708ULL; /* no zero byte: never mistaken for padding */
	REQUIRE(spec_config(&s, &cfg) == 0);
	build_sample(&s);
	if (aligned) {
		/* rebuild with zero padding after the raw bytes */
		rb_init(&B, swapped);
		rb_header(&B, PERF_RECORD_SAMPLE, s.misc);
		rb_u64(&B, s.ip);
		rb_u32(&B, size);
		rb_bytes(&B, s.raw, size);
		rb_pad8(&B);
		if (weight_follows)
			rb_u64(&B, s.weight);
		rb_finish(&B);
	}
	rec = rb_exact(&B);
	memset(&d, 0x5a, sizeof(d));
	ret = perfring_record_parse(&cfg, rec, B.len, &d);
	snprintf(ctxbuf, sizeof(ctxbuf), "[raw size %u swapped=%d %s%s]", size, swapped,
		 aligned ? "next field 8-aligned" : "next field at once", weight_follows ? "" : ", raw last");
	if (ret == 0) {
		CHECKF(d.u.sample.ip == s.ip, "%s ip", ctxbuf);
		CHECKF(d.u.sample.raw.len == size && d.u.sample.raw.data == rec + 20 &&
			       memcmp(d.u.sample.raw.data, s.raw, size) == 0,
		       "%s raw view", ctxbuf);
		if (weight_follows)
			CHECKF(d.u.sample.weight == s.weight, "%s weight %#" PRIx64 " misread", ctxbuf,
			       d.u.sample.weight);
	} else {
		CHECKF(ret == -PERFRING_EBADREC || ret == -PERFRING_ETRUNC, "%s returned %d", ctxbuf, ret);
		CHECKF(d.error_field != NULL && perfring_errmsg()[0], "%s refused without naming a field", ctxbuf);
	}
}

TEST(raw_odd_sizes_never_misread)
{
	uint32_t size;
	int order, aligned, weight;

	for (order = 0; order < 2; order++)
		for (size = 1; size <= 13; size += 2)
			for (aligned = 0; aligned < 2; aligned++)
				for (weight = 0; weight < 2; weight++)
					raw_odd_case(size, order, aligned, weight);
}

/* ---- branch stacks -------------------------------------------------------------------- */

TEST(branch_stack_hw_idx_and_counters)
{
	struct sspec s;
	int order, c, hw, nr;

	for (order = 0; order < 2; order++)
		for (c = 0; c < 2; c++)
			for (hw = 0; hw < 2; hw++)
				for (nr = 0; nr <= 8; nr += (nr ? 7 : 1)) {
					spec_default(&s, PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT,
						     order);
					s.branch_type = (hw ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
							(c ? PERF_SAMPLE_BRANCH_COUNTERS : 0);
					s.br_nr = (uint64_t)nr;
					s.br_write_hw_idx = hw;
					run_spec(&s, "branch stack");
				}
}

/* With HW_INDEX and nr == 0 the kernel may or may not have written hw_idx:
 * the size tells (branch stack last, or followed by fixed-size fields). */
TEST(branch_stack_nr0_hw_idx_either_way)
{
	static const uint64_t tails[] = { 0, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR };
	struct sspec s;
	int order, written;
	size_t ti;

	for (order = 0; order < 2; order++)
		for (ti = 0; ti < NELEM(tails); ti++)
			for (written = 0; written < 2; written++) {
				spec_default(&s, PERF_SAMPLE_TID | PERF_SAMPLE_BRANCH_STACK | tails[ti], order);
				s.branch_type = PERF_SAMPLE_BRANCH_HW_INDEX;
				s.br_nr = 0;
				s.br_write_hw_idx = written;
				run_spec(&s, written ? "nr 0, hw_idx written" : "nr 0, hw_idx not written");
			}
}

/* nr == 0 with HW_INDEX, hw_idx not written, then REGS_USER with abi 0 and
 * a user stack: read with hw_idx, the stack size lands in abi and the
 * stack bytes in the registers, and that reading fails further on. What is
 * decoded must be the reading that fits, with nothing left over from the
 * one that did not (no registers when abi is 0). */
TEST(branch_stack_nr0_no_stale_fields_from_the_other_reading)
{
	struct sspec s;
	int order, written;

	for (order = 0; order < 2; order++)
		for (written = 0; written < 2; written++) {
			spec_default(&s, PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
				     order);
			s.branch_type = PERF_SAMPLE_BRANCH_HW_INDEX;
			s.br_nr = 0;
			s.br_write_hw_idx = written;
			s.regs_user_mask = 0x3;
			s.ru_abi = PERF_SAMPLE_REGS_ABI_NONE;
			s.st_size = 16;
			s.st_dyn = 5;
			run_spec(&s, written ? "nr 0 + regs abi 0, hw_idx written" : "nr 0 + regs abi 0, no hw_idx");
		}
}

TEST(branch_flags_decoded)
{
	static const struct bflags cases[] = {
		{ 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0xbeef, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0xa, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 2, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 0x9, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 5, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7fffffff },
		{ 1, 1, 1, 1, 0xffff, 0xf, 3, 0xf, 7, 0x7fffffff },
		{ 1, 0, 1, 0, 0x0102, 0x3, 1, 0x4, 2, 0x12345 },
	};
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	const uint8_t *rec;
	int order;
	size_t i;

	/* 8 entries per sample (the spec's capacity) */
	for (order = 0; order < 2; order++) {
		spec_default(&s, PERF_SAMPLE_BRANCH_STACK, order);
		for (size_t base = 0; base < NELEM(cases); base += 8) {
			size_t n = NELEM(cases) - base < 8 ? NELEM(cases) - base : 8;

			s.br_nr = n;
			for (i = 0; i < n; i++)
				s.br[i][2] = bflags_encode(&cases[base + i], writer_big_endian(order));
			REQUIRE(run_spec(&s, "branch flags") == 0);
			REQUIRE(spec_config(&s, &cfg) == 0);
			rec = rb_exact(&B);
			REQUIRE(perfring_record_parse(&cfg, rec, B.len, &d) == 0);
			for (i = 0; i < n; i++) {
				const struct bflags *f = &cases[base + i];
				struct perfring_branch_entry e;

				perfring_branch_at(&d.u.sample.branch, i, &e);
				CHECKF(e.mispred == f->mispred && e.predicted == f->predicted && e.in_tx == f->in_tx &&
					       e.abort == f->abort && e.cycles == f->cycles && e.type == f->type &&
					       e.spec == f->spec && e.new_type == f->new_type && e.priv == f->priv,
				       "swapped=%d case %zu (flags_raw %#" PRIx64 "): got mispred %d predicted %d in_tx %d "
				       "abort %d cycles %#x type %u spec %u new_type %u priv %u; want %u %u %u %u %#x %u "
				       "%u %u %u",
				       order, base + i, e.flags_raw, e.mispred, e.predicted, e.in_tx, e.abort, e.cycles,
				       e.type, e.spec, e.new_type, e.priv, f->mispred, f->predicted, f->in_tx, f->abort,
				       f->cycles, f->type, f->spec, f->new_type, f->priv);
			}
		}
	}
}

/* ---- registers, user stack ----------------------------------------------------------- */

/* abi 0: no registers follow, whatever the mask (perf_event_data reads
 * popcount(mask) of them anyway and misplaces every later field). */
TEST(regs_abi_none_and_present)
{
	static const uint64_t masks[] = { 0, 1, 0xff, 0x8000000000000001ULL, ~0ULL };
	static const uint64_t abis[] = { PERF_SAMPLE_REGS_ABI_NONE, PERF_SAMPLE_REGS_ABI_32, PERF_SAMPLE_REGS_ABI_64 };
	struct sspec s;
	size_t mi, ai, bi;
	int order;

	for (order = 0; order < 2; order++)
		for (mi = 0; mi < NELEM(masks); mi++)
			for (ai = 0; ai < NELEM(abis); ai++)
				for (bi = 0; bi < NELEM(abis); bi++) {
					spec_default(&s,
						     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |
							     PERF_SAMPLE_PHYS_ADDR,
						     order);
					s.regs_user_mask = masks[mi];
					s.regs_intr_mask = masks[NELEM(masks) - 1 - mi];
					s.ru_abi = abis[ai];
					s.ri_abi = abis[bi];
					run_spec(&s, "regs");
				}
}

TEST(stack_user_size0_has_no_dyn_size)
{
	static const uint64_t sizes[] = { 0, 8, 16, 64 };
	struct sspec s;
	size_t i;
	int order;

	for (order = 0; order < 2; order++)
		for (i = 0; i < NELEM(sizes); i++) {
			spec_default(&s, PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC, order);
			s.st_size = sizes[i];
			s.st_dyn = sizes[i] ? sizes[i] - 3 : 0;
			run_spec(&s, "stack_user");
			/* last field */
			spec_default(&s, PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER, order);
			s.st_size = sizes[i];
			s.st_dyn = sizes[i] / 2;
			run_spec(&s, "stack_user last");
		}
}

/* ---- WEIGHT, WEIGHT_STRUCT, DATA_SRC -------------------------------------------------- */

/* union perf_sample_weight has a layout per endianness such that var1_dw
 * is always the low 32 bits of the u64: the writer's u64 in the record's
 * byte order decodes the same in both. */
TEST(weight_and_weight_struct)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	int order, ws;

	for (order = 0; order < 2; order++)
		for (ws = 0; ws < 2; ws++) {
			struct perfring_weight w;

			spec_default(&s, PERF_SAMPLE_IP | (ws ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT) |
						 PERF_SAMPLE_DATA_SRC,
				     order);
			s.weight = 0xc3c4a1a2deadbeefULL; /* var3 0xc3c4, var2 0xa1a2, var1 0xdeadbeef */
			REQUIRE(run_spec(&s, ws ? "weight struct" : "weight") == 0);
			REQUIRE(spec_config(&s, &cfg) == 0);
			REQUIRE(perfring_record_parse(&cfg, rb_exact(&B), B.len, &d) == 0);
			CHECK_EQ_U64(d.u.sample.weight, 0xc3c4a1a2deadbeefULL);
			w = perfring_weight_struct(d.u.sample.weight);
			CHECK_EQ_U64(w.var1_dw, 0xdeadbeef);
			CHECK_EQ_U64(w.var2_w, 0xa1a2);
			CHECK_EQ_U64(w.var3_w, 0xc3c4);
		}
}

/* A sample's DATA_SRC through perfring_data_src_decode(): a load that hit
 * L1 (the uapi's PERF_MEM_S() composition). */
TEST(data_src_in_sample)
{
	const uint64_t v = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1) |
			   PERF_MEM_S(SNOOP, NONE) | PERF_MEM_S(LOCK, LOCKED) | PERF_MEM_S(TLB, HIT) |
			   PERF_MEM_S(TLB, L1) | PERF_MEM_S(LVLNUM, L1) | PERF_MEM_S(REMOTE, REMOTE) |
			   PERF_MEM_S(SNOOPX, FWD) | PERF_MEM_S(BLK, DATA) | PERF_MEM_S(HOPS, 1);
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct perfring_data_src ds;
	struct sspec s;
	int order;

	for (order = 0; order < 2; order++) {
		spec_default(&s, PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR, order);
		s.data_src = v;
		REQUIRE(run_spec(&s, "data_src") == 0);
		REQUIRE(spec_config(&s, &cfg) == 0);
		REQUIRE(perfring_record_parse(&cfg, rb_exact(&B), B.len, &d) == 0);
		ds = perfring_data_src_decode(d.u.sample.data_src);
		CHECK_EQ_INT(ds.mem_op, PERF_MEM_OP_LOAD);
		CHECK_EQ_INT(ds.mem_lvl, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1);
		CHECK_EQ_INT(ds.mem_snoop, PERF_MEM_SNOOP_NONE);
		CHECK_EQ_INT(ds.mem_lock, PERF_MEM_LOCK_LOCKED);
		CHECK_EQ_INT(ds.mem_dtlb, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1);
		CHECK_EQ_INT(ds.mem_lvl_num, PERF_MEM_LVLNUM_L1);
		CHECK_EQ_INT(ds.mem_remote, PERF_MEM_REMOTE_REMOTE);
		CHECK_EQ_INT(ds.mem_snoopx, PERF_MEM_SNOOPX_FWD);
		CHECK_EQ_INT(ds.mem_blk, PERF_MEM_BLK_DATA);
		CHECK_EQ_INT(ds.mem_hops, PERF_MEM_HOPS_1);
	}
}

/* SAMPLE's misc: EXACT_IP and cpumode. */
TEST(sample_misc_exact_ip)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct sspec s;
	int order;

	for (order = 0; order < 2; order++) {
		spec_default(&s, PERF_SAMPLE_IP, order);
		s.misc = PERF_RECORD_MISC_GUEST_KERNEL | PERF_RECORD_MISC_EXACT_IP;
		REQUIRE(run_spec(&s, "exact ip") == 0);
		REQUIRE(spec_config(&s, &cfg) == 0);
		REQUIRE(perfring_record_parse(&cfg, rb_exact(&B), B.len, &d) == 0);
		CHECK(perfring_misc_exact_ip(d.misc));
		CHECK_EQ_INT(perfring_misc_cpumode(d.misc), PERF_RECORD_MISC_GUEST_KERNEL);
	}
}

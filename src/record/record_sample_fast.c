// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SAMPLE fast path: the layout of the common profile (IP, TID, TIME, ID,
 * CPU, PERIOD, ... and a call chain) is fixed by the config, so it is
 * worked out once, by perfring_parse_config_finish(), instead of per record
 * from the sample_type bits. A record is checked whole before anything is
 * written: the front slots fit, the call chain's nr fits, nothing follows.
 * A record that fails any of these goes to the general decoder
 * (record_sample.c), which finds and names the fault: the two paths give
 * the same out and the same errors (tests/unit/record_fastpath.c).
 *
 * perfring_record_parse(), the decoder's entry, is here too: it tries this
 * path first, and this path tail-calls the general decoder
 * (record_decode.c) when it declines, so record_decode.c calls nothing of
 * this file and the two do not call each other.
 */
#include <linux/perf_event.h>

#include "common/internal.h"
#include "record/record_internal.h"

/* The front u64 slots in the kernel's order (IDENTIFIER first). */
static const uint64_t fast_front_bits[9] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,       PERF_SAMPLE_TIME,   PERF_SAMPLE_ADDR,
	PERF_SAMPLE_ID,         PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
};

/*
 * The sample_types perf record writes most, each decoded by code of its
 * own (constant offsets): -g on one event (bench/decode's stream), -g -a
 * with perf's dummy event beside it (ID), several events (IDENTIFIER),
 * -g on a task.
 */
#define FAST_KIND_1                                                                                  \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
	 PERF_SAMPLE_CALLCHAIN)
#define FAST_KIND_2 (FAST_KIND_1 | PERF_SAMPLE_ID)
#define FAST_KIND_3 (FAST_KIND_2 | PERF_SAMPLE_IDENTIFIER)
#define FAST_KIND_4 (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* What the fast path decodes: the front slots and a call chain. */
#define FAST_BITS                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

void pr_rec_fast_layout_init(struct perfring_parse_config *cfg)
{
	struct pr_rec_fast_layout l;
	unsigned i, off = 0;

	memset(&l, 0, sizeof(l));
	/* Byte-swapped records and the other fields keep the general path. */
	if (!cfg->swapped && !(cfg->sample_type & ~(uint64_t)FAST_BITS)) {
		l.tag = cfg->sample_type | PR_REC_FAST_TAG;
		for (i = 0; i < 9; i++) {
			l.off[i] = (uint8_t)off;
			if (cfg->sample_type & fast_front_bits[i])
				off += 8;
		}
		l.front = (uint8_t)off;
	}
	memcpy(cfg->reserved, &l, sizeof(l));
}

/* Where the fields the fast path never sets start and end in a sample. */
#define FAST_ZERO_FROM offsetof(struct perfring_sample, read)
#define FAST_ZERO_TO (offsetof(struct perfring_sample, aux) + sizeof(((struct perfring_sample *)0)->aux))

/*
 * The fields from read to aux (none of which the fast path's sample_types
 * set) as 0: 16-byte stores, unrolled; a memset of this constant size
 * becomes rep stos, which costs more than the whole rest of the decode.
 */
typedef uint64_t pr_v2u64 __attribute__((vector_size(16), may_alias, aligned(8)));
typedef uint64_t pr_u64a __attribute__((may_alias, aligned(8)));
_Static_assert((FAST_ZERO_TO - FAST_ZERO_FROM) % 8 == 0, "the zeroed span is whole u64 words");

static inline __attribute__((always_inline)) void fast_zero(uint8_t *p)
{
	const pr_v2u64 z = { 0, 0 };
	unsigned i;

#pragma GCC unroll 32
	for (i = 0; i < (FAST_ZERO_TO - FAST_ZERO_FROM) / 16; i++)
		((pr_v2u64 *)p)[i] = z;
	if ((FAST_ZERO_TO - FAST_ZERO_FROM) % 16)
		*(pr_u64a *)(p + (FAST_ZERO_TO - FAST_ZERO_FROM) - 8) = 0;
}

/* The front slots before field i (in fast_front_bits order) in st. */
static inline __attribute__((always_inline)) unsigned front_off(uint64_t st, unsigned i)
{
	uint64_t before = 0;
	unsigned j;

	for (j = 0; j < i; j++)
		before |= fast_front_bits[j];
	return 8u * (unsigned)__builtin_popcountll(st & before);
}

/*
 * One sample by the layout. Written once, instantiated twice over: with st
 * a constant (one of the FAST_KIND_* sample_types: every offset and
 * test folds away, the loads are straight-line) and with st and the
 * offsets from the config (any other front + call chain sample_type).
 */
#define OFF(i) (constant ? front_off(st, i) : l->off[i])

static inline __attribute__((always_inline)) int fast_one(const struct pr_rec_fast_layout *l, uint64_t st,
							  bool constant, const uint8_t *rec, size_t len,
							  struct perfring_decoded *out)
{
	struct perfring_sample *s = &out->u.sample;
	struct perfring_sample_id *sid = &out->sample_id;
	const uint8_t *p = rec + 8;
	size_t front = constant ? front_off(st, 9) : l->front;
	size_t body, end;
	uint64_t nr = 0;
	uint16_t misc, size;

	/* The header, host order: a SAMPLE whose size is within len. */
	if (PR_UNLIKELY(len < 8) || ld32(rec) != PERF_RECORD_SAMPLE)
		return PR_REC_FAST_DECLINED;
	memcpy(&misc, rec + 4, 2);
	memcpy(&size, rec + 6, 2);
	if (PR_UNLIKELY(size < 8 || size > len))
		return PR_REC_FAST_DECLINED;
	body = (size_t)size - 8;
	if (PR_UNLIKELY(body < front))
		return PR_REC_FAST_DECLINED;
	end = front;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (PR_UNLIKELY(body - end < 8))
			return PR_REC_FAST_DECLINED;
		nr = ld64(p + end);
		end += 8;
		if (PR_UNLIKELY(nr > (body - end) / 8))
			return PR_REC_FAST_DECLINED;
		end += (size_t)nr * 8;
	}
	if (PR_UNLIKELY(end != body))
		return PR_REC_FAST_DECLINED;

	/* The record fits: write every field (absent ones as 0), as the
	 * general decoder does. */
	out->error_field = NULL;
	out->error_offset = 0;
	out->raw = rec;
	out->type = PERF_RECORD_SAMPLE;
	out->misc = misc;
	out->size = size;
	out->raw_len = size;
	out->kind = PERFRING_REC_KERNEL;
	fast_zero((uint8_t *)s + FAST_ZERO_FROM);
	s->present = st;
	s->identifier = (st & PERF_SAMPLE_IDENTIFIER) ? ld64(p + OFF(0)) : 0;
	s->ip = (st & PERF_SAMPLE_IP) ? ld64(p + OFF(1)) : 0;
	s->pid = (st & PERF_SAMPLE_TID) ? ld32(p + OFF(2)) : 0;
	s->tid = (st & PERF_SAMPLE_TID) ? ld32(p + OFF(2) + 4) : 0;
	s->time = (st & PERF_SAMPLE_TIME) ? ld64(p + OFF(3)) : 0;
	s->addr = (st & PERF_SAMPLE_ADDR) ? ld64(p + OFF(4)) : 0;
	s->id = (st & PERF_SAMPLE_ID) ? ld64(p + OFF(5)) : 0;
	s->stream_id = (st & PERF_SAMPLE_STREAM_ID) ? ld64(p + OFF(6)) : 0;
	s->cpu = (st & PERF_SAMPLE_CPU) ? ld32(p + OFF(7)) : 0;
	s->cpu_res = (st & PERF_SAMPLE_CPU) ? ld32(p + OFF(7) + 4) : 0;
	s->period = (st & PERF_SAMPLE_PERIOD) ? ld64(p + OFF(8)) : 0;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->callchain.nr = nr;
		s->callchain.data = p + front + 8;
	}

	pr_rec_sample_id_of(sid, s);
	return 0;
}

#undef OFF

/* GCC would turn fast_zero()'s loop back into a memset (rep stos). */
#if defined(__GNUC__) && !defined(__clang__)
#define PR_NO_MEMSET_IDIOM __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define PR_NO_MEMSET_IDIOM
#endif

PR_NO_MEMSET_IDIOM int pr_rec_sample_fast(const struct perfring_parse_config *cfg, const uint8_t *rec, size_t len,
		   struct perfring_decoded *out)
{
	struct pr_rec_fast_layout l;
	int err;

	memcpy(&l, cfg->reserved, sizeof(l));
	/* The layout is for this sample_type and byte order (a config
	 * changed by hand without finish() has none). */
	if (l.tag != (cfg->sample_type | PR_REC_FAST_TAG) || cfg->swapped)
		return pr_rec_parse_general(cfg, rec, len, out);
	switch (cfg->sample_type) {
	case FAST_KIND_1:
		err = fast_one(&l, FAST_KIND_1, true, rec, len, out);
		break;
	case FAST_KIND_2:
		err = fast_one(&l, FAST_KIND_2, true, rec, len, out);
		break;
	case FAST_KIND_3:
		err = fast_one(&l, FAST_KIND_3, true, rec, len, out);
		break;
	case FAST_KIND_4:
		err = fast_one(&l, FAST_KIND_4, true, rec, len, out);
		break;
	default:
		err = fast_one(&l, cfg->sample_type, false, rec, len, out);
		break;
	}
	if (err)
		return pr_rec_parse_general(cfg, rec, len, out);
	return 0;
}

int perfring_record_parse(const struct perfring_parse_config *cfg, const void *rec, size_t len,
			  struct perfring_decoded *out)
{
	/* The common profile's samples by the config's precomputed layout;
	 * other records and samples that do not fit it (the fast path hands
	 * them on) and NULL arguments, the general way. */
	if (PR_UNLIKELY(!cfg || !rec || !out))
		return pr_rec_parse_general(cfg, rec, len, out);
	return pr_rec_sample_fast(cfg, rec, len, out);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Round trips through the record layer.
 *
 * A small builder, written here from the kernel layouts (the comments of
 * include/uapi/linux/perf_event.h) and independent of the library, lays out records of every
 * kernel type (1..22) and of unknown types byte by byte, for
 * pseudo-random configs (every sample_type bit, read_format, register
 * masks, branch hw_idx and counters, sample_id_all) in either byte order.
 * Each is decoded with perfring_record_parse() and written back with
 * perfring_record_encode(): the bytes must come back unchanged, padding
 * included, and nothing may be written past the record.
 *
 * Across byte orders the builder makes the same logical record in both
 * orders (same seed): decoding one and encoding it with the other order's
 * config must give the other's bytes exactly, and decode to the same values.
 *
 * Then the encoder's errors: -ENOSPC without touching the buffer, and
 * -EINVAL naming the field when the decoded record contradicts its config.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfring/record.h>

#include "harness.h"

/* Newer than some build machines' uapi headers (Linux 6.1 lacks them). */
#define T_RECORD_CALLCHAIN_DEFERRED 22u
#define T_SAMPLE_BRANCH_COUNTERS (1ULL << 19)
#define T_FORMAT_LOST (1ULL << 4)
#define T_MISC_MMAP_BUILD_ID (1u << 14)

/* header.size is a u16 and records are 8-byte multiples. */
#define T_MAX_RECORD 65528u
#define T_CANARY 64u
#define T_CANARY_BYTE 0xa5

/* ---- deterministic pseudo-random numbers (splitmix64) ------------------ */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

static bool pct(struct rng *r, unsigned p)
{
	return below(r, 100) < p;
}

/* A field value: the edges as often as the middle. */
static uint64_t value(struct rng *r)
{
	switch (below(r, 8)) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX;
	case 2:
		return below(r, 256);
	case 3:
		return 1ULL << below(r, 64);
	default:
		return rnd(r);
	}
}

/* ---- the record builder ------------------------------------------------- */

/* struct perf_branch_entry's flag fields, from bit 0 of a little-endian
 * writer's word: mispred, predicted, in_tx, abort, cycles, type, spec,
 * new_type, priv, reserved. A big-endian writer allocates them from bit 63. */
static const unsigned flag_width[10] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31 };

struct bld {
	uint8_t buf[65536];
	size_t len;
	bool big; /* the writer's byte order */
	/* What the record must decode to, where a round trip cannot tell. */
	bool has_branch;    /* a SAMPLE with at least one branch entry */
	uint64_t flag0[10]; /* the flag fields of its first entry */
	int hw_idx_written; /* -1 no branch stack; else whether hw_idx was written */
};

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

/* n bytes of v in the writer's byte order. */
static void put(struct bld *b, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		b->buf[b->len + i] = (uint8_t)(v >> (8 * (b->big ? n - 1 - i : i)));
	b->len += n;
}

static void put_rand_bytes(struct bld *b, struct rng *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b->buf[b->len++] = (uint8_t)rnd(r);
}

/* Up to the next 8-byte boundary of the record: zeros as the kernel
 * writes, or (garbage) other bytes, which must be carried all the same. */
static void put_pad8(struct bld *b, struct rng *r, bool garbage)
{
	while (b->len % 8)
		b->buf[b->len++] = garbage ? (uint8_t)rnd(r) : 0;
}

/* A NUL-terminated string padded to 8 bytes, sometimes with an extra
 * word of padding, sometimes with bytes other than NUL after the NUL. */
static void put_string(struct bld *b, struct rng *r, unsigned maxlen)
{
	unsigned n = (unsigned)below(r, maxlen + 1), i;
	bool garbage = pct(r, 15);

	for (i = 0; i < n; i++)
		b->buf[b->len++] = (uint8_t)(1 + below(r, 255));
	b->buf[b->len++] = 0;
	put_pad8(b, r, garbage);
	if (pct(r, 10))
		for (i = 0; i < 8; i++)
			b->buf[b->len++] = garbage ? (uint8_t)rnd(r) : 0;
}

static void put_u64v(struct bld *b, struct rng *r)
{
	put(b, value(r), 8);
}

/* u32 pid, u32 tid (or cpu, res): two u32, each in the writer's order. */
static void put_u32_pair(struct bld *b, struct rng *r)
{
	put(b, value(r), 4);
	put(b, value(r), 4);
}

static void put_read_values(struct bld *b, struct rng *r, uint64_t f)
{
	uint64_t nr, i;

	if (!(f & PERF_FORMAT_GROUP)) {
		put_u64v(b, r);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put_u64v(b, r);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put_u64v(b, r);
		if (f & PERF_FORMAT_ID)
			put_u64v(b, r);
		if (f & T_FORMAT_LOST)
			put_u64v(b, r);
		return;
	}
	nr = 1 + below(r, 8);
	put(b, nr, 8);
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put_u64v(b, r);
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put_u64v(b, r);
	for (i = 0; i < nr; i++) {
		put_u64v(b, r);
		if (f & PERF_FORMAT_ID)
			put_u64v(b, r);
		if (f & T_FORMAT_LOST)
			put_u64v(b, r);
	}
}

/* Addresses mixed with context markers (PERF_CONTEXT_*). */
static void put_ips(struct bld *b, struct rng *r, uint64_t nr)
{
	static const int64_t markers[] = { -32, -128, -512, -640, -2048, -2176, -2560 };
	uint64_t i;

	for (i = 0; i < nr; i++)
		put(b, pct(r, 20) ? (uint64_t)markers[below(r, 7)] : value(r), 8);
}

static void put_branch_stack(struct bld *b, struct rng *r, const struct perfring_parse_config *cfg)
{
	uint64_t nr = pct(r, 25) ? 0 : 1 + below(r, 32), i;
	unsigned k, lsb;

	put(b, nr, 8);
	b->hw_idx_written = 0;
	/* With HW_INDEX the kernel writes hw_idx for any captured stack; an
	 * empty one may come with or without it. */
	if ((cfg->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && (nr || pct(r, 50))) {
		put_u64v(b, r);
		b->hw_idx_written = 1;
	}
	for (i = 0; i < nr; i++) {
		uint64_t fields[10], flags = 0;

		put_u64v(b, r); /* from */
		put_u64v(b, r); /* to */
		for (k = 0, lsb = 0; k < 10; lsb += flag_width[k], k++) {
			uint64_t mask = (1ULL << flag_width[k]) - 1;

			fields[k] = rnd(r) & mask;
			flags |= fields[k] << (b->big ? 64 - lsb - flag_width[k] : lsb);
		}
		put(b, flags, 8);
		if (i == 0) {
			b->has_branch = true;
			memcpy(b->flag0, fields, sizeof(fields));
		}
	}
	if (cfg->branch_counters)
		for (i = 0; i < nr; i++)
			put_u64v(b, r);
}

static void put_regs(struct bld *b, struct rng *r, uint64_t mask)
{
	uint64_t abi = below(r, 3); /* NONE, 32, 64 */
	int i;

	put(b, abi, 8);
	if (abi)
		for (i = 0; i < __builtin_popcountll(mask); i++)
			put_u64v(b, r);
}

/* The fields of a SAMPLE, in the order perf_output_sample() writes them. */
static void put_sample(struct bld *b, struct rng *r, const struct perfring_parse_config *cfg)
{
	uint64_t t = cfg->sample_type, n;

	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_IP)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_TID)
		put_u32_pair(b, r);
	if (t & PERF_SAMPLE_TIME)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_ADDR)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_ID)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_CPU)
		put_u32_pair(b, r);
	if (t & PERF_SAMPLE_PERIOD)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_READ)
		put_read_values(b, r, cfg->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		n = pct(r, 10) ? 0 : below(r, 64);
		put(b, n, 8);
		put_ips(b, r, n);
	}
	if (t & PERF_SAMPLE_RAW) {
		/* the kernel pads size so that 4 + size is a multiple of 8 */
		n = 4 + 8 * (pct(r, 5) ? below(r, 1024) : below(r, 40));
		put(b, n, 4);
		put_rand_bytes(b, r, n);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		put_branch_stack(b, r, cfg);
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(b, r, cfg->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		n = pct(r, 30) ? 0 : 8 * below(r, 128);
		put(b, n, 8);
		put_rand_bytes(b, r, n);
		if (n)
			put(b, below(r, n + 1), 8); /* dyn_size */
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64v(b, r);
	if (t & PERF_SAMPLE_DATA_SRC)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_TRANSACTION)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(b, r, cfg->sample_regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_CGROUP)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_AUX) {
		n = pct(r, 40) ? 0 : 8 * below(r, 64);
		put(b, n, 8);
		put_rand_bytes(b, r, n);
	}
}

/* The sample_id trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static void put_trailer(struct bld *b, struct rng *r, const struct perfring_parse_config *cfg)
{
	uint64_t t = cfg->sample_type;

	if (!cfg->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID)
		put_u32_pair(b, r);
	if (t & PERF_SAMPLE_TIME)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_ID)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64v(b, r);
	if (t & PERF_SAMPLE_CPU)
		put_u32_pair(b, r);
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64v(b, r);
}

/* The body of a kernel record other than SAMPLE. */
static void put_body(struct bld *b, struct rng *r, const struct perfring_parse_config *cfg, uint32_t type,
		     uint16_t misc)
{
	uint64_t n, i;
	unsigned old_len, new_len;

	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		put_u32_pair(b, r); /* pid, tid */
		put_u64v(b, r);     /* addr */
		put_u64v(b, r);     /* len */
		put_u64v(b, r);     /* pgoff */
		if (type == PERF_RECORD_MMAP2) {
			if (misc & T_MISC_MMAP_BUILD_ID) {
				/* u8 build_id_size, u8 + u16 reserved, u8 build_id[20] */
				b->buf[b->len++] = (uint8_t)below(r, 21);
				if (pct(r, 80))
					put(b, 0, 3);
				else
					put_rand_bytes(b, r, 3);
				put_rand_bytes(b, r, 20);
			} else {
				put_u32_pair(b, r); /* maj, min */
				put_u64v(b, r);     /* ino */
				put_u64v(b, r);     /* ino_generation */
			}
			put_u32_pair(b, r); /* prot, flags */
		}
		put_string(b, r, pct(r, 5) ? 4000 : 100);
		break;
	case PERF_RECORD_LOST:
		put_u64v(b, r);
		put_u64v(b, r);
		break;
	case PERF_RECORD_COMM:
		put_u32_pair(b, r);
		put_string(b, r, 15);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		put_u32_pair(b, r); /* pid, ppid */
		put_u32_pair(b, r); /* tid, ptid */
		put_u64v(b, r);     /* time */
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		put_u64v(b, r);
		put_u64v(b, r);
		put_u64v(b, r);
		break;
	case PERF_RECORD_READ:
		put_u32_pair(b, r);
		put_read_values(b, r, cfg->read_format);
		break;
	case PERF_RECORD_AUX:
		put_u64v(b, r);
		put_u64v(b, r);
		put_u64v(b, r);
		break;
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_u32_pair(b, r);
		break;
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put_u64v(b, r);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_NAMESPACES:
		put_u32_pair(b, r);
		n = below(r, 10);
		put(b, n, 8);
		for (i = 0; i < 2 * n; i++)
			put_u64v(b, r); /* dev, inode */
		break;
	case PERF_RECORD_KSYMBOL:
		put_u64v(b, r);             /* addr */
		put(b, value(r), 4);        /* len */
		put(b, below(r, 4), 2);     /* ksym_type */
		put(b, value(r), 2);        /* flags */
		put_string(b, r, 120);
		break;
	case PERF_RECORD_BPF_EVENT:
		put(b, below(r, 4), 2); /* type */
		put(b, value(r), 2);    /* flags */
		put(b, value(r), 4);    /* id */
		put_rand_bytes(b, r, 8); /* tag */
		break;
	case PERF_RECORD_CGROUP:
		put_u64v(b, r);
		put_string(b, r, 200);
		break;
	case PERF_RECORD_TEXT_POKE:
		put_u64v(b, r);
		old_len = (unsigned)below(r, 20);
		new_len = (unsigned)below(r, 20);
		put(b, old_len, 2);
		put(b, new_len, 2);
		put_rand_bytes(b, r, old_len + new_len);
		put_pad8(b, r, pct(r, 15));
		break;
	case T_RECORD_CALLCHAIN_DEFERRED:
		put_u64v(b, r); /* cookie */
		n = below(r, 64);
		put(b, n, 8);
		put_ips(b, r, n);
		break;
	}
}

/* One record of type, laid out for cfg, in cfg's byte order. */
static void build_record(struct bld *b, struct rng *r, const struct perfring_parse_config *cfg, uint32_t type)
{
	uint16_t misc = (uint16_t)rnd(r);
	unsigned i;

	b->len = 0;
	b->big = host_big_endian() != cfg->swapped;
	b->has_branch = false;
	b->hw_idx_written = -1;
	put(b, type, 4);
	put(b, misc, 2);
	put(b, 0, 2); /* size, set below */
	if (type == PERF_RECORD_SAMPLE) {
		put_sample(b, r, cfg);
	} else if (type >= PERF_RECORD_MMAP && type <= T_RECORD_CALLCHAIN_DEFERRED) {
		put_body(b, r, cfg, type, misc);
		put_trailer(b, r, cfg);
	} else {
		put_rand_bytes(b, r, 8 * below(r, 32));
	}
	for (i = 0; i < 2; i++)
		b->buf[6 + i] = (uint8_t)(b->len >> (8 * (b->big ? 1 - i : i)));
}

/* A random register mask: none, a few, many or all registers. */
static uint64_t regs_mask(struct rng *r)
{
	switch (below(r, 4)) {
	case 0:
		return 0;
	case 1:
		return rnd(r) & rnd(r) & rnd(r);
	case 2:
		return rnd(r);
	default:
		return pct(r, 50) ? UINT64_MAX : rnd(r) | rnd(r);
	}
}

/*
 * A random config: a random subset of every sample_type bit (never both
 * WEIGHT and WEIGHT_STRUCT, which the kernel refuses), of read_format,
 * branch HW_INDEX and counters, register masks, sample_id_all and the byte
 * order (force_swapped 0 or 1 overrides the draw, after it, so that the
 * rest of the case is the same in both orders).
 */
static void gen_config(struct rng *r, struct perfring_parse_config *cfg, int force_swapped)
{
	static const unsigned density[] = { 5, 25, 50, 75, 100 };
	unsigned d = density[below(r, 5)], bit;

	memset(cfg, 0, sizeof(*cfg));
	for (bit = 0; bit <= 24; bit++)
		if (pct(r, d))
			cfg->sample_type |= 1ULL << bit;
	if ((cfg->sample_type & PERF_SAMPLE_WEIGHT) && (cfg->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		cfg->sample_type &= ~(uint64_t)(pct(r, 50) ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
	cfg->read_format = below(r, 32);
	cfg->branch_sample_type = rnd(r) & 0xffff; /* privilege and kind bits: no effect on layout */
	if (pct(r, 50))
		cfg->branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
	if (pct(r, 30))
		cfg->branch_sample_type |= T_SAMPLE_BRANCH_COUNTERS;
	/* set from this attr, or by hand for another member of the group */
	cfg->branch_counters = (cfg->branch_sample_type & T_SAMPLE_BRANCH_COUNTERS) ? pct(r, 90) : pct(r, 10);
	cfg->sample_regs_user = regs_mask(r);
	cfg->sample_regs_intr = regs_mask(r);
	cfg->sample_id_all = pct(r, 60);
	cfg->swapped = pct(r, 50);
	if (force_swapped >= 0)
		cfg->swapped = force_swapped;
}

/* Record types: SAMPLE most often, every kernel type, some unknown ones. */
static uint32_t pick_type(struct rng *r)
{
	static const uint32_t unknown[] = { 0, 23, 31, 63, 64, 68, 69, 81, 83, 1000, 0x7fffffff, 0xffffffff };
	uint64_t k = below(r, 100);

	if (k < 35)
		return PERF_RECORD_SAMPLE;
	if (k < 95)
		return 1 + (uint32_t)below(r, 22);
	return unknown[below(r, sizeof(unknown) / sizeof(unknown[0]))];
}

/* Case seed: a config, a type, a record. */
static uint32_t make_case(uint64_t seed, int force_swapped, struct perfring_parse_config *cfg, struct bld *b)
{
	struct rng r = { seed * 0x100000001b3ULL + 0x51ed };
	uint32_t type;

	gen_config(&r, cfg, force_swapped);
	type = pick_type(&r);
	build_record(b, &r, cfg, type);
	return type;
}

/* ---- decode and encode ----------------------------------------------------- */

/* The record in an allocation of exactly its size, so that the sanitizer
 * builds catch any read past it. The caller frees it. */
static uint8_t *exact_copy(const struct bld *b)
{
	uint8_t *p = malloc(b->len);

	if (p)
		memcpy(p, b->buf, b->len);
	return p;
}

static char why[512];

/* Encode d with cfg into out (cap = d->size exactly, canary after it):
 * NULL when it gives want[0..len) and writes nothing more, else what went wrong. */
static const char *encode_check(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
				const uint8_t *want, size_t len)
{
	static uint8_t out[65536 + T_CANARY];
	size_t i;
	int n;

	memset(out + len, T_CANARY_BYTE, T_CANARY);
	n = perfring_record_encode(cfg, d, out, len);
	if (n != (int)len) {
		snprintf(why, sizeof(why), "encode returned %d for %zu bytes: %s", n, len, perfring_errmsg());
		return why;
	}
	for (i = 0; i < T_CANARY; i++)
		if (out[len + i] != T_CANARY_BYTE) {
			snprintf(why, sizeof(why), "encode wrote byte %zu, past cap %zu", len + i, len);
			return why;
		}
	for (i = 0; i < len; i++)
		if (out[i] != want[i]) {
			snprintf(why, sizeof(why), "byte %zu of %zu differs: 0x%02x, expected 0x%02x", i, len,
				 out[i], want[i]);
			return why;
		}
	return NULL;
}

static const char *type_name(uint32_t type)
{
	const char *n = perfring_record_type_name(type);

	return n ? n : "unknown";
}

/* ---- comparing decoded records (test 2) ------------------------------------ */

static bool same_bytes(const struct perfring_bytes *a, const struct perfring_bytes *b)
{
	return a->len == b->len && (!a->len || memcmp(a->data, b->data, a->len) == 0);
}

static bool same_u64s(const struct perfring_u64_array *a, const struct perfring_u64_array *b)
{
	uint64_t i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (perfring_u64_at(a, i) != perfring_u64_at(b, i))
			return false;
	return true;
}

/* u64 i at data, in the given byte order (through the public accessor). */
static uint64_t u64_at(const void *data, uint64_t i, bool swapped)
{
	struct perfring_u64_array a = { data, i + 1, swapped };

	return perfring_u64_at(&a, i);
}

static const char *cmp_sample_id(const struct perfring_sample_id *a, const struct perfring_sample_id *b)
{
	uint64_t p = a->present;

	if (a->present != b->present)
		return "sample_id.present";
	if ((p & PERF_SAMPLE_TID) && (a->pid != b->pid || a->tid != b->tid))
		return "sample_id.tid";
	if ((p & PERF_SAMPLE_TIME) && a->time != b->time)
		return "sample_id.time";
	if ((p & PERF_SAMPLE_ID) && a->id != b->id)
		return "sample_id.id";
	if ((p & PERF_SAMPLE_STREAM_ID) && a->stream_id != b->stream_id)
		return "sample_id.stream_id";
	if ((p & PERF_SAMPLE_CPU) && (a->cpu != b->cpu || a->cpu_res != b->cpu_res))
		return "sample_id.cpu";
	if ((p & PERF_SAMPLE_IDENTIFIER) && a->identifier != b->identifier)
		return "sample_id.identifier";
	return NULL;
}

static const char *cmp_read(const struct perfring_read_values *a, const struct perfring_read_values *b)
{
	struct perfring_read_value va, vb;
	uint64_t i;

	if (a->format != b->format || a->nr != b->nr)
		return "read.format/nr";
	if ((a->format & PERF_FORMAT_TOTAL_TIME_ENABLED) && a->time_enabled != b->time_enabled)
		return "read.time_enabled";
	if ((a->format & PERF_FORMAT_TOTAL_TIME_RUNNING) && a->time_running != b->time_running)
		return "read.time_running";
	for (i = 0; i < a->nr; i++) {
		perfring_read_value_at(a, i, &va);
		perfring_read_value_at(b, i, &vb);
		if (va.value != vb.value || va.id != vb.id || va.lost != vb.lost)
			return "read.values";
	}
	return NULL;
}

static const char *cmp_branch(const struct perfring_branch_stack *a, const struct perfring_branch_stack *b)
{
	struct perfring_branch_entry ea, eb;
	uint64_t i;

	if (a->nr != b->nr || a->has_hw_idx != b->has_hw_idx || (a->has_hw_idx && a->hw_idx != b->hw_idx))
		return "branch_stack.nr/hw_idx";
	if (!a->counters != !b->counters)
		return "branch_stack.counters";
	for (i = 0; i < a->nr; i++) {
		perfring_branch_at(a, i, &ea);
		perfring_branch_at(b, i, &eb);
		if (ea.from != eb.from || ea.to != eb.to)
			return "branch_stack.entries.from/to";
		if (ea.mispred != eb.mispred || ea.predicted != eb.predicted || ea.in_tx != eb.in_tx ||
		    ea.abort != eb.abort || ea.cycles != eb.cycles || ea.type != eb.type || ea.spec != eb.spec ||
		    ea.new_type != eb.new_type || ea.priv != eb.priv)
			return "branch_stack.entries.flags";
		if (a->counters && u64_at(a->counters, i, a->swapped) != u64_at(b->counters, i, b->swapped))
			return "branch_stack.counters";
	}
	return NULL;
}

static const char *cmp_regs(const struct perfring_regs *a, const struct perfring_regs *b, const char *name)
{
	if (a->abi != b->abi || a->mask != b->mask || !same_u64s(&a->regs, &b->regs))
		return name;
	return NULL;
}

#define DIFF(cond, name)              \
	do {                          \
		if (cond)             \
			return name;  \
	} while (0)
#define TRYCMP(expr)                          \
	do {                                  \
		const char *d_ = (expr);      \
		if (d_)                       \
			return d_;            \
	} while (0)

static const char *cmp_sample(const struct perfring_sample *a, const struct perfring_sample *b)
{
	uint64_t p = a->present;

	DIFF(a->present != b->present, "sample.present");
	DIFF((p & PERF_SAMPLE_IDENTIFIER) && a->identifier != b->identifier, "identifier");
	DIFF((p & PERF_SAMPLE_IP) && a->ip != b->ip, "ip");
	DIFF((p & PERF_SAMPLE_TID) && (a->pid != b->pid || a->tid != b->tid), "tid");
	DIFF((p & PERF_SAMPLE_TIME) && a->time != b->time, "time");
	DIFF((p & PERF_SAMPLE_ADDR) && a->addr != b->addr, "addr");
	DIFF((p & PERF_SAMPLE_ID) && a->id != b->id, "id");
	DIFF((p & PERF_SAMPLE_STREAM_ID) && a->stream_id != b->stream_id, "stream_id");
	DIFF((p & PERF_SAMPLE_CPU) && (a->cpu != b->cpu || a->cpu_res != b->cpu_res), "cpu");
	DIFF((p & PERF_SAMPLE_PERIOD) && a->period != b->period, "period");
	if (p & PERF_SAMPLE_READ)
		TRYCMP(cmp_read(&a->read, &b->read));
	DIFF((p & PERF_SAMPLE_CALLCHAIN) && !same_u64s(&a->callchain, &b->callchain), "callchain");
	DIFF((p & PERF_SAMPLE_RAW) && !same_bytes(&a->raw, &b->raw), "raw");
	if (p & PERF_SAMPLE_BRANCH_STACK)
		TRYCMP(cmp_branch(&a->branch, &b->branch));
	if (p & PERF_SAMPLE_REGS_USER)
		TRYCMP(cmp_regs(&a->regs_user, &b->regs_user, "regs_user"));
	if (p & PERF_SAMPLE_STACK_USER) {
		DIFF(a->stack_user.size != b->stack_user.size ||
			     (a->stack_user.size &&
			      (memcmp(a->stack_user.data, b->stack_user.data, a->stack_user.size) ||
			       a->stack_user.dyn_size != b->stack_user.dyn_size)),
		     "stack_user");
	}
	DIFF((p & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && a->weight != b->weight, "weight");
	DIFF((p & PERF_SAMPLE_DATA_SRC) && a->data_src != b->data_src, "data_src");
	DIFF((p & PERF_SAMPLE_TRANSACTION) && a->transaction != b->transaction, "transaction");
	if (p & PERF_SAMPLE_REGS_INTR)
		TRYCMP(cmp_regs(&a->regs_intr, &b->regs_intr, "regs_intr"));
	DIFF((p & PERF_SAMPLE_PHYS_ADDR) && a->phys_addr != b->phys_addr, "phys_addr");
	DIFF((p & PERF_SAMPLE_CGROUP) && a->cgroup != b->cgroup, "cgroup");
	DIFF((p & PERF_SAMPLE_DATA_PAGE_SIZE) && a->data_page_size != b->data_page_size, "data_page_size");
	DIFF((p & PERF_SAMPLE_CODE_PAGE_SIZE) && a->code_page_size != b->code_page_size, "code_page_size");
	DIFF((p & PERF_SAMPLE_AUX) && !same_bytes(&a->aux, &b->aux), "aux");
	return NULL;
}

/* A string view must be the start of its whole field. */
static bool same_string(const char *sa, const struct perfring_bytes *fa, const char *sb,
			const struct perfring_bytes *fb)
{
	return same_bytes(fa, fb) && sa == fa->data && sb == fb->data;
}

/* NULL when a and b (decoded from records of any byte order) say the same. */
static const char *cmp_decoded(const struct perfring_decoded *a, const struct perfring_decoded *b)
{
	const typeof(a->u) *x = &a->u, *y = &b->u;
	uint64_t i;

	DIFF(a->type != b->type || a->misc != b->misc || a->size != b->size || a->kind != b->kind, "header");
	if (a->kind == PERFRING_REC_UNKNOWN) {
		DIFF(a->raw_len != b->raw_len || memcmp((const uint8_t *)a->raw + 8, (const uint8_t *)b->raw + 8,
							a->raw_len - 8),
		     "raw");
		return NULL;
	}
	if (a->type == PERF_RECORD_SAMPLE)
		TRYCMP(cmp_sample(&x->sample, &y->sample));
	TRYCMP(cmp_sample_id(&a->sample_id, &b->sample_id));
	switch (a->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		DIFF(x->mmap.pid != y->mmap.pid || x->mmap.tid != y->mmap.tid || x->mmap.addr != y->mmap.addr ||
			     x->mmap.len != y->mmap.len || x->mmap.pgoff != y->mmap.pgoff,
		     "mmap");
		DIFF(x->mmap.has_build_id != y->mmap.has_build_id, "mmap.has_build_id");
		if (a->type == PERF_RECORD_MMAP2 && x->mmap.has_build_id)
			DIFF(x->mmap.build_id_size != y->mmap.build_id_size ||
				     memcmp(x->mmap.build_id_reserved, y->mmap.build_id_reserved, 3) ||
				     memcmp(x->mmap.build_id, y->mmap.build_id, 20),
			     "mmap.build_id");
		else if (a->type == PERF_RECORD_MMAP2)
			DIFF(x->mmap.maj != y->mmap.maj || x->mmap.min != y->mmap.min ||
				     x->mmap.ino != y->mmap.ino ||
				     x->mmap.ino_generation != y->mmap.ino_generation,
			     "mmap.ino");
		if (a->type == PERF_RECORD_MMAP2)
			DIFF(x->mmap.prot != y->mmap.prot || x->mmap.flags != y->mmap.flags, "mmap.prot");
		DIFF(!same_string(x->mmap.filename, &x->mmap.filename_field, y->mmap.filename,
				  &y->mmap.filename_field),
		     "mmap.filename");
		break;
	case PERF_RECORD_LOST:
		DIFF(x->lost.id != y->lost.id || x->lost.lost != y->lost.lost, "lost");
		break;
	case PERF_RECORD_COMM:
		DIFF(x->comm.pid != y->comm.pid || x->comm.tid != y->comm.tid, "comm");
		DIFF(!same_string(x->comm.comm, &x->comm.comm_field, y->comm.comm, &y->comm.comm_field),
		     "comm.comm");
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		DIFF(memcmp(&x->fork_exit, &y->fork_exit, sizeof(x->fork_exit)), "fork_exit");
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		DIFF(memcmp(&x->throttle, &y->throttle, sizeof(x->throttle)), "throttle");
		break;
	case PERF_RECORD_READ:
		DIFF(x->read.pid != y->read.pid || x->read.tid != y->read.tid, "read");
		TRYCMP(cmp_read(&x->read.values, &y->read.values));
		break;
	case PERF_RECORD_AUX:
		DIFF(memcmp(&x->aux, &y->aux, sizeof(x->aux)), "aux");
		break;
	case PERF_RECORD_ITRACE_START:
		DIFF(memcmp(&x->itrace_start, &y->itrace_start, sizeof(x->itrace_start)), "itrace_start");
		break;
	case PERF_RECORD_LOST_SAMPLES:
		DIFF(x->lost_samples.lost != y->lost_samples.lost, "lost_samples");
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		DIFF(memcmp(&x->switch_cpu_wide, &y->switch_cpu_wide, sizeof(x->switch_cpu_wide)),
		     "switch_cpu_wide");
		break;
	case PERF_RECORD_NAMESPACES:
		DIFF(x->namespaces.pid != y->namespaces.pid || x->namespaces.tid != y->namespaces.tid ||
			     x->namespaces.nr != y->namespaces.nr,
		     "namespaces");
		for (i = 0; i < 2 * x->namespaces.nr; i++)
			DIFF(u64_at(x->namespaces.entries, i, x->namespaces.swapped) !=
				     u64_at(y->namespaces.entries, i, y->namespaces.swapped),
			     "namespaces.entries");
		break;
	case PERF_RECORD_KSYMBOL:
		DIFF(x->ksymbol.addr != y->ksymbol.addr || x->ksymbol.len != y->ksymbol.len ||
			     x->ksymbol.ksym_type != y->ksymbol.ksym_type || x->ksymbol.flags != y->ksymbol.flags,
		     "ksymbol");
		DIFF(!same_string(x->ksymbol.name, &x->ksymbol.name_field, y->ksymbol.name,
				  &y->ksymbol.name_field),
		     "ksymbol.name");
		break;
	case PERF_RECORD_BPF_EVENT:
		DIFF(memcmp(&x->bpf_event, &y->bpf_event, sizeof(x->bpf_event)), "bpf_event");
		break;
	case PERF_RECORD_CGROUP:
		DIFF(x->cgroup.id != y->cgroup.id, "cgroup.id");
		DIFF(!same_string(x->cgroup.path, &x->cgroup.path_field, y->cgroup.path, &y->cgroup.path_field),
		     "cgroup.path");
		break;
	case PERF_RECORD_TEXT_POKE:
		DIFF(x->text_poke.addr != y->text_poke.addr || x->text_poke.old_len != y->text_poke.old_len ||
			     x->text_poke.new_len != y->text_poke.new_len,
		     "text_poke");
		DIFF(!same_bytes(&x->text_poke.field, &y->text_poke.field) ||
			     x->text_poke.bytes != x->text_poke.field.data,
		     "text_poke.bytes");
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		DIFF(x->aux_output_hw_id.hw_id != y->aux_output_hw_id.hw_id, "aux_output_hw_id");
		break;
	case T_RECORD_CALLCHAIN_DEFERRED:
		DIFF(x->callchain_deferred.cookie != y->callchain_deferred.cookie ||
			     !same_u64s(&x->callchain_deferred.ips, &y->callchain_deferred.ips),
		     "callchain_deferred");
		break;
	}
	return NULL;
}

/* The branch flags of the first entry decode to what the builder packed,
 * whatever the writer's byte order (perfring_branch_at()). */
static const char *check_branch_flags(const struct bld *b, const struct perfring_decoded *d)
{
	struct perfring_branch_entry e;

	if (!b->has_branch)
		return NULL;
	perfring_branch_at(&d->u.sample.branch, 0, &e);
	DIFF(e.mispred != b->flag0[0] || e.predicted != b->flag0[1] || e.in_tx != b->flag0[2] ||
		     e.abort != b->flag0[3] || e.cycles != b->flag0[4] || e.type != b->flag0[5] ||
		     e.spec != b->flag0[6] || e.new_type != b->flag0[7] || e.priv != b->flag0[8],
	     "branch flag fields");
	return NULL;
}

/* Fields the record does not hold must not carry values: registers with
 * abi 0 (PERF_SAMPLE_REGS_ABI_NONE), dyn_size with an empty user stack. */
static const char *check_absent_fields(const struct perfring_sample *s)
{
	DIFF(!s->regs_user.abi && s->regs_user.regs.nr, "decoded regs_user.regs.nr != 0 with abi 0");
	DIFF(!s->regs_intr.abi && s->regs_intr.regs.nr, "decoded regs_intr.regs.nr != 0 with abi 0");
	DIFF(!s->stack_user.size && s->stack_user.dyn_size, "decoded stack_user.dyn_size != 0 with size 0");
	return NULL;
}

/* ---- (1) decode, encode, same bytes ------------------------------------------- */

/* Decode the built record (exact allocation), encode it back, compare.
 * Returns NULL or what went wrong; *d keeps the decoded record, whose views
 * point into *copy (the caller frees it). */
static const char *roundtrip_built(const struct perfring_parse_config *cfg, const struct bld *b,
				   struct perfring_decoded *d, uint8_t **copy)
{
	const char *bad;
	int err;

	*copy = exact_copy(b);
	if (!*copy)
		return "out of memory";
	err = perfring_record_parse(cfg, *copy, b->len, d);
	if (err) {
		snprintf(why, sizeof(why), "decoder refused it: %d (%s), field %s at %zu: %s", err,
			 perfring_strerror(err), d->error_field ? d->error_field : "?", d->error_offset,
			 perfring_errmsg());
		return why;
	}
	if (d->size != b->len)
		return "decoded size differs from the record's";
	bad = check_branch_flags(b, d);
	if (!bad && b->hw_idx_written == 1 && !d->u.sample.branch.has_hw_idx)
		bad = "hw_idx was written but not decoded";
	if (!bad && d->type == PERF_RECORD_SAMPLE)
		bad = check_absent_fields(&d->u.sample);
	if (!bad && d->kind == PERFRING_REC_KERNEL) {
		/* the sample_id-only decoder agrees with the full one */
		struct perfring_sample_id sid;

		if (perfring_record_sample_id(cfg, *copy, b->len, &sid))
			bad = "perfring_record_sample_id() failed on a record perfring_record_parse() took";
		else if (cmp_sample_id(&sid, &d->sample_id))
			bad = "perfring_record_sample_id() differs from perfring_record_parse()'s sample_id";
	}
	return bad ? bad : encode_check(cfg, d, b->buf, b->len);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#define N_RANDOM 20000

TEST(roundtrip_random_records_every_type)
{
	static struct bld b;
	unsigned seen[2][24] = { { 0 } }, unknown = 0, failures = 0;
	uint64_t bits_seen = 0;
	double t0 = now_s();
	uint32_t type;
	unsigned i;

	for (i = 0; i < N_RANDOM; i++) {
		struct perfring_parse_config cfg;
		struct perfring_decoded d;
		const char *bad;
		uint8_t *copy;

		type = make_case(i, -1, &cfg, &b);
		REQUIREF(perfring_parse_config_finish(&cfg) == 0, "config of case %u: %s", i, perfring_errmsg());
		REQUIREF(b.len <= T_MAX_RECORD, "case %u: builder made %zu bytes", i, b.len);
		bad = roundtrip_built(&cfg, &b, &d, &copy);
		free(copy);
		if (bad) {
			if (failures++ < 10)
				CHECKF(0, "case %u (%s, type %u, sample_type 0x%llx, read_format 0x%llx, %s): %s",
				       i, type_name(type), type, (unsigned long long)cfg.sample_type,
				       (unsigned long long)cfg.read_format,
				       cfg.swapped ? "swapped" : "host order", bad);
			continue;
		}
		if (type >= 1 && type <= 22)
			seen[cfg.swapped][type]++;
		else
			unknown++;
		if (type == PERF_RECORD_SAMPLE)
			bits_seen |= cfg.sample_type;
	}
	CHECKF(failures == 0, "%u of %u cases failed", failures, N_RANDOM);
	for (type = 1; type <= 22; type++)
		CHECKF(seen[0][type] > 100 && seen[1][type] > 100, "type %u round-tripped only %u/%u times", type,
		       seen[0][type], seen[1][type]);
	CHECK(unknown > 100);
	CHECK_EQ_U64(bits_seen, (1ULL << 25) - 1);
	/* informative only: sanitizer and valgrind runs are many times slower */
	printf("  %u random round trips in %.3f s\n", N_RANDOM, now_s() - t0);
}

/* Every sample_type bit alone, and all of them, in both orders, with and without hw_idx. */
TEST(roundtrip_each_sample_field)
{
	const uint64_t all_but_weight = ((1ULL << 25) - 1) & ~(uint64_t)PERF_SAMPLE_WEIGHT;
	static struct bld b;
	unsigned bit, sw, k;

	for (bit = 0; bit <= 25; bit++) {
		for (sw = 0; sw < 2; sw++) {
			for (k = 0; k < 50; k++) {
				struct rng r = { bit * 1000 + sw * 100 + k };
				struct perfring_parse_config cfg = { 0 };
				struct perfring_decoded d;
				const char *bad;
				uint8_t *copy;

				cfg.sample_type = bit < 25 ? 1ULL << bit : all_but_weight;
				cfg.read_format = k % 32;
				cfg.branch_sample_type = k & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0;
				cfg.branch_counters = k & 2;
				cfg.sample_regs_user = k & 4 ? 0xff0f : UINT64_MAX;
				cfg.sample_regs_intr = k & 8 ? 1 : 0x5555;
				cfg.swapped = sw;
				REQUIRE(perfring_parse_config_finish(&cfg) == 0);
				build_record(&b, &r, &cfg, PERF_RECORD_SAMPLE);
				bad = roundtrip_built(&cfg, &b, &d, &copy);
				free(copy);
				REQUIREF(!bad, "sample_type 0x%llx (%s, case %u): %s",
					 (unsigned long long)cfg.sample_type, sw ? "swapped" : "host order", k,
					 bad);
			}
		}
	}
}

/* ---- (2) across byte orders ----------------------------------------------------- */

TEST(roundtrip_other_byte_order)
{
	static struct bld a, b;
	unsigned i, failures = 0, branches = 0;

	for (i = 0; i < N_RANDOM / 2; i++) {
		struct perfring_parse_config ca, cb;
		struct perfring_decoded da, db;
		uint8_t *copy_a = NULL, *copy_b = NULL;
		const char *bad = NULL;
		uint32_t type;
		int err;

		type = make_case(1000000 + i, -1, &ca, &a);
		make_case(1000000 + i, !ca.swapped, &cb, &b);
		REQUIRE(perfring_parse_config_finish(&ca) == 0 && perfring_parse_config_finish(&cb) == 0);
		REQUIREF(a.len == b.len, "case %u: the builder made %zu and %zu bytes", i, a.len, b.len);
		copy_a = exact_copy(&a);
		REQUIRE(copy_a);
		err = perfring_record_parse(&ca, copy_a, a.len, &da);
		if (err) {
			snprintf(why, sizeof(why), "decoder refused it: %d, field %s: %s", err,
				 da.error_field ? da.error_field : "?", perfring_errmsg());
			bad = why;
		}
		/* in the other order: exactly the bytes the builder made there */
		if (!bad)
			bad = encode_check(&cb, &da, b.buf, b.len);
		if (!bad) {
			copy_b = exact_copy(&b);
			REQUIRE(copy_b);
			err = perfring_record_parse(&cb, copy_b, b.len, &db);
			bad = err ? "the other order's record does not decode" : cmp_decoded(&da, &db);
		}
		if (!bad)
			bad = check_branch_flags(&b, &db);
		/* and back */
		if (!bad)
			bad = encode_check(&ca, &db, a.buf, a.len);
		if (!bad && a.has_branch)
			branches++;
		free(copy_a);
		free(copy_b);
		if (bad && failures++ < 10)
			CHECKF(0, "case %u (%s, type %u, sample_type 0x%llx, %s to %s): %s", i, type_name(type),
			       type, (unsigned long long)ca.sample_type, ca.swapped ? "swapped" : "host order",
			       cb.swapped ? "swapped" : "host order", bad);
	}
	CHECKF(failures == 0, "%u of %u cases failed", failures, N_RANDOM / 2);
	CHECK(branches > 100);
}

/* Encoding over the bytes the record was decoded from changes its byte order in place. */
TEST(encode_in_place_other_byte_order)
{
	static struct bld a, b;
	static uint8_t buf[65536];
	unsigned i, failures = 0;

	for (i = 0; i < 2000; i++) {
		struct perfring_parse_config ca, cb;
		struct perfring_decoded d;
		uint32_t type;
		int n;

		type = make_case(2000000 + i, -1, &ca, &a);
		make_case(2000000 + i, !ca.swapped, &cb, &b);
		REQUIRE(perfring_parse_config_finish(&ca) == 0 && perfring_parse_config_finish(&cb) == 0);
		memcpy(buf, a.buf, a.len);
		REQUIRE(perfring_record_parse(&ca, buf, a.len, &d) == 0);
		n = perfring_record_encode(&cb, &d, buf, a.len);
		if ((n != (int)b.len || memcmp(buf, b.buf, b.len)) && failures++ < 5)
			CHECKF(0, "case %u (%s): in-place encode gave %d bytes, not the other order's %zu", i,
			       type_name(type), n, b.len);
	}
	CHECK_EQ_INT(failures, 0);
}

/* ---- edge records -------------------------------------------------------------- */

static void build_raw_sample(struct bld *b, bool swapped, uint32_t raw_size, uint8_t pad_byte, size_t pad)
{
	size_t i;

	b->len = 0;
	b->big = host_big_endian() != swapped;
	b->has_branch = false;
	b->hw_idx_written = -1;
	put(b, PERF_RECORD_SAMPLE, 4);
	put(b, 0, 2);
	put(b, 0, 2);
	put(b, raw_size, 4);
	for (i = 0; i < raw_size; i++)
		b->buf[b->len++] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < pad; i++)
		b->buf[b->len++] = pad_byte;
	put(b, 0x1122334455667788ULL, 8); /* WEIGHT after RAW: at the next 8-byte boundary */
	b->buf[6 + !b->big] = (uint8_t)(b->len >> 8);
	b->buf[6 + b->big] = (uint8_t)b->len;
}

TEST(roundtrip_raw_sizes)
{
	struct perfring_parse_config cfg = { .sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT };
	static struct bld b;
	struct perfring_decoded d;
	const char *bad;
	uint8_t *copy;
	unsigned sw;
	uint32_t size;

	for (sw = 0; sw < 2; sw++) {
		cfg.swapped = sw;
		REQUIRE(perfring_parse_config_finish(&cfg) == 0);
		/* the largest record: 8 + 4 + raw + 8 = 65528 */
		build_raw_sample(&b, sw, T_MAX_RECORD - 20, 0, 0);
		REQUIRE(b.len == T_MAX_RECORD);
		bad = roundtrip_built(&cfg, &b, &d, &copy);
		free(copy);
		CHECKF(!bad, "65528-byte record: %s", bad);
		/* 4 + size not a multiple of 8 (never from the kernel): the
		 * decoder skips the zeros up to the next field, the encoder
		 * writes them back */
		for (size = 0; size < 24; size++) {
			build_raw_sample(&b, sw, size, 0, (8 - (4 + size) % 8) % 8);
			bad = roundtrip_built(&cfg, &b, &d, &copy);
			free(copy);
			CHECKF(!bad, "raw size %u: %s", size, bad);
			CHECK_EQ_U64(d.u.sample.raw.len, size);
			CHECK_EQ_U64(d.u.sample.weight, 0x1122334455667788ULL);
		}
	}
}

/* ---- (3) errors ------------------------------------------------------------------- */

/* Build one record of type for cfg (seeded) and decode it; the views point
 * into the static builder (valid until the next call). */
static int decode_one(struct perfring_parse_config *cfg, uint32_t type, uint64_t seed,
		      struct perfring_decoded *d)
{
	static struct bld b;
	struct rng r = { seed };
	int err;

	if (perfring_parse_config_finish(cfg))
		return -1;
	build_record(&b, &r, cfg, type);
	err = perfring_record_parse(cfg, b.buf, b.len, d);
	return err;
}

/* Encoding must fail with err and a message naming field, writing nothing
 * beyond the record's size (the buffer is larger). */
#define CHECK_ENCODE_FAILS(cfg, d, err, field)                                                              \
	do {                                                                                                \
		static uint8_t out_[65536 + T_CANARY];                                                      \
		size_t i_;                                                                                  \
		int n_;                                                                                     \
		memset(out_, T_CANARY_BYTE, sizeof(out_));                                                  \
		n_ = perfring_record_encode((cfg), (d), out_, sizeof(out_));                                \
		CHECK_EQ_INT(n_, -(err));                                                                   \
		CHECKF(strstr(perfring_errmsg(), (field)) != NULL, "message \"%s\" does not name %s",      \
		       perfring_errmsg(), (field));                                                         \
		for (i_ = (d)->size >= 8 ? (d)->size : 0; i_ < sizeof(out_); i_++)                          \
			if (out_[i_] != T_CANARY_BYTE) {                                                    \
				CHECKF(0, "byte %zu written past the record's %u bytes", i_, (d)->size);    \
				break;                                                                      \
			}                                                                                   \
	} while (0)

TEST(encode_enospc_writes_nothing)
{
	struct perfring_parse_config cfg = {
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
		.sample_id_all = true,
	};
	static const size_t short_by[] = { 1, 7, 8, 16 };
	static uint8_t out[65536];
	struct perfring_decoded d;
	uint32_t types[] = { PERF_RECORD_SAMPLE, PERF_RECORD_MMAP2, PERF_RECORD_COMM, PERF_RECORD_SWITCH, 70 };
	unsigned t, k;
	size_t i;

	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		REQUIRE(decode_one(&cfg, types[t], 42 + t, &d) == 0);
		for (k = 0; k < sizeof(short_by) / sizeof(short_by[0]); k++) {
			if (short_by[k] > d.size)
				continue;
			memset(out, T_CANARY_BYTE, sizeof(out));
			CHECK_EQ_INT(perfring_record_encode(&cfg, &d, out, d.size - short_by[k]), -ENOSPC);
			for (i = 0; i < sizeof(out); i++)
				if (out[i] != T_CANARY_BYTE) {
					CHECKF(0, "type %u, cap %zu: byte %zu written", types[t],
					       d.size - short_by[k], i);
					break;
				}
		}
		CHECK_EQ_INT(perfring_record_encode(&cfg, &d, NULL, 0), -ENOSPC);
		CHECK_EQ_INT(perfring_record_encode(&cfg, &d, out, d.size), d.size);
	}
}

TEST(encode_einval_sizes_diverge)
{
	struct perfring_parse_config cfg = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN };
	struct perfring_decoded d;
	uint64_t seed;

	/* a callchain with ips (the seed's draws decide; find one) */
	for (seed = 1;; seed++) {
		REQUIRE(seed < 1000);
		REQUIRE(decode_one(&cfg, PERF_RECORD_SAMPLE, seed, &d) == 0);
		if (d.u.sample.callchain.nr >= 2)
			break;
	}
	/* one ip more than the record holds: the chain is the last field */
	d.u.sample.callchain.nr++;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "callchain.ips");
	/* one fewer: the fields end before header.size */
	d.u.sample.callchain.nr -= 2;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "header.size");
	CHECK(strstr(perfring_errmsg(), "callchain.ips") != NULL);
	d.u.sample.callchain.nr++;
	/* a hostile count does not loop */
	d.u.sample.callchain.nr = UINT64_MAX / 4;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "callchain.ips");
	d.u.sample.callchain.nr = 2;

	/* header.size against the fields: larger, smaller, below the header */
	REQUIRE(decode_one(&cfg, PERF_RECORD_SAMPLE, 3, &d) == 0);
	d.size += 8;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "header.size");
	cfg = (struct perfring_parse_config){ .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
					      .sample_id_all = true };
	REQUIRE(decode_one(&cfg, PERF_RECORD_COMM, 5, &d) == 0);
	d.size -= 8;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "sample_id.time");
	d.size = 4;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "header.size");
	/* a string field one word short */
	REQUIRE(decode_one(&cfg, PERF_RECORD_MMAP2, 7, &d) == 0);
	d.u.mmap.filename_field.len += 8;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "sample_id");
	/* RAW larger than its u32 */
	cfg = (struct perfring_parse_config){ .sample_type = PERF_SAMPLE_RAW };
	REQUIRE(decode_one(&cfg, PERF_RECORD_SAMPLE, 9, &d) == 0);
	d.u.sample.raw.len = 1ULL << 32;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "raw.size");
}

TEST(encode_einval_config_mismatch)
{
	struct perfring_parse_config cfg = {
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_BRANCH_STACK,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID,
		.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0xff,
		.sample_id_all = true,
	};
	struct perfring_parse_config other;
	struct perfring_decoded d;
	uint64_t seed;

	/* a sample with registers and branch entries */
	for (seed = 1;; seed++) {
		REQUIRE(seed < 1000);
		REQUIRE(decode_one(&cfg, PERF_RECORD_SAMPLE, seed, &d) == 0);
		if (d.u.sample.regs_user.abi && d.u.sample.branch.nr)
			break;
	}
	other = cfg;
	other.sample_type |= PERF_SAMPLE_IP;
	REQUIRE(perfring_parse_config_finish(&other) == 0);
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "sample.present");

	other = cfg;
	other.read_format = PERF_FORMAT_GROUP | T_FORMAT_LOST;
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "read");

	other = cfg;
	other.branch_sample_type = 0;
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "branch_stack.hw_idx");

	other = cfg;
	other.branch_counters = true;
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "branch_stack.counters");

	other = cfg;
	other.sample_regs_user = 0x7f;
	REQUIRE(perfring_parse_config_finish(&other) == 0);
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "regs_user.regs");

	/* a trailer decoded with another sample_id_all */
	REQUIRE(decode_one(&cfg, PERF_RECORD_FORK, 11, &d) == 0);
	other = cfg;
	other.sample_id_all = false;
	CHECK_ENCODE_FAILS(&other, &d, EINVAL, "sample_id.present");

	/* MMAP2: the build id flag against misc */
	REQUIRE(decode_one(&cfg, PERF_RECORD_MMAP2, 13, &d) == 0);
	d.u.mmap.has_build_id = !d.u.mmap.has_build_id;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "mmap.has_build_id");

	/* TEXT_POKE: lengths beyond the bytes */
	REQUIRE(decode_one(&cfg, PERF_RECORD_TEXT_POKE, 15, &d) == 0);
	d.u.text_poke.old_len = (uint16_t)(d.u.text_poke.field.len + 1);
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "text_poke.bytes");

	/* a kernel kind with a type the library does not decode */
	REQUIRE(decode_one(&cfg, PERF_RECORD_SWITCH, 17, &d) == 0);
	d.type = 40;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "40");

	/* an unknown record whose raw bytes are not its size */
	REQUIRE(decode_one(&cfg, 90, 19, &d) == 0);
	REQUIRE(d.kind == PERFRING_REC_UNKNOWN);
	d.raw_len -= 8;
	CHECK_ENCODE_FAILS(&cfg, &d, EINVAL, "raw_len");
}

TEST(encode_einval_null_arguments)
{
	struct perfring_parse_config cfg = { 0 };
	struct perfring_decoded d;
	uint8_t out[64];

	REQUIRE(decode_one(&cfg, PERF_RECORD_LOST, 1, &d) == 0);
	CHECK_EQ_INT(perfring_record_encode(NULL, &d, out, sizeof(out)), -EINVAL);
	CHECK_EQ_INT(perfring_record_encode(&cfg, NULL, out, sizeof(out)), -EINVAL);
	CHECK_EQ_INT(perfring_record_encode(&cfg, &d, NULL, sizeof(out)), -EINVAL);
	CHECK_EQ_INT(perfring_record_encode(&cfg, &d, out, sizeof(out)), 24);
}

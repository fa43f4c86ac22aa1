// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Seed corpus of the record fuzzer: well-formed records of every kernel
 * type (1 to 22) in both byte orders, with and without the sample_id
 * trailer, and SAMPLEs from "every field" to "RAW only", each prefixed by
 * its config (the layout is in record_fuzz.h).
 *
 *   make_corpus DIR      writes the seeds into DIR (make fuzz-corpus does
 *                        it for tests/fuzz/corpus/record)
 *
 * The records are assembled here field by field from the kernel layouts
 * (the comments of the kernel's include/uapi/linux/perf_event.h), not with
 * perfring's encoder, so that the decoder is checked against independently
 * built bytes. tests/unit/fuzz_replay.c includes this file (with
 * MAKE_CORPUS_NO_MAIN) to check that the committed corpus is what this
 * generator writes and that every seed decodes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_fuzz.h"

#define SEED_MAX_LEN 4096
#define SEEDS_MAX 128

struct seed {
	char name[64];
	size_t len;
	uint8_t data[SEED_MAX_LEN];
};

/* What the prefix holds. */
struct seed_cfg {
	uint64_t sample_type, read_format, branch_sample_type, regs_user, regs_intr;
	uint8_t flags;
};

/* A record being written into a seed. */
struct gen {
	struct seed *s;
	struct seed_cfg c;
	size_t rec; /* offset of the record header in s->data */
	bool overflow;
};

static bool g_swapped(const struct gen *g)
{
	return g->c.flags & RF_SWAPPED;
}

static void g_bytes(struct gen *g, const void *p, size_t n)
{
	if (g->s->len + n > SEED_MAX_LEN) {
		g->overflow = true;
		return;
	}
	memcpy(g->s->data + g->s->len, p, n);
	g->s->len += n;
}

static void g_u8(struct gen *g, uint8_t v)
{
	g_bytes(g, &v, 1);
}

static void g_u16(struct gen *g, uint16_t v)
{
	if (g_swapped(g))
		v = __builtin_bswap16(v);
	g_bytes(g, &v, 2);
}

static void g_u32(struct gen *g, uint32_t v)
{
	if (g_swapped(g))
		v = __builtin_bswap32(v);
	g_bytes(g, &v, 4);
}

static void g_u64(struct gen *g, uint64_t v)
{
	if (g_swapped(g))
		v = __builtin_bswap64(v);
	g_bytes(g, &v, 8);
}

/* Zeroes up to the next multiple of 8 bytes from the record's start. */
static void g_pad8(struct gen *g)
{
	while ((g->s->len - g->rec) % 8)
		g_u8(g, 0);
}

/* A string field as the kernel writes it: NUL-terminated, padded to 8. */
static void g_str(struct gen *g, const char *str)
{
	g_bytes(g, str, strlen(str) + 1);
	g_pad8(g);
}

/* The prefix is little endian (the fuzzer's own format, not the record's). */
static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void g_begin(struct gen *g, struct seed *s, const char *name, const struct seed_cfg *c, uint32_t type,
		    uint16_t misc)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	g->s = s;
	g->c = *c;
	g->overflow = false;
	put_le64(s->data + 0, c->sample_type);
	put_le64(s->data + 8, c->read_format);
	put_le64(s->data + 16, c->branch_sample_type);
	put_le64(s->data + 24, c->regs_user);
	put_le64(s->data + 32, c->regs_intr);
	s->data[RF_FLAGS_OFFSET] = c->flags;
	s->len = RF_PREFIX_SIZE;
	g->rec = s->len;
	g_u32(g, type);
	g_u16(g, misc);
	g_u16(g, 0); /* size, set by g_end() */
}

/* The values every seed uses: distinct bytes, so a field read in the wrong
 * order or at the wrong offset does not go unnoticed. */
#define V_PID 0x00001234u
#define V_TID 0x00001235u
#define V_TIME 0x0001020304050607ull
#define V_ID 0x1100000000000011ull
#define V_STREAM_ID 0x2200000000000022ull
#define V_CPU 1u
#define V_IDENTIFIER V_ID

static void g_sample_id(struct gen *g)
{
	uint64_t t = g->c.sample_type;

	if (!(g->c.flags & RF_SAMPLE_ID_ALL))
		return;
	if (t & PERF_SAMPLE_TID) {
		g_u32(g, V_PID);
		g_u32(g, V_TID);
	}
	if (t & PERF_SAMPLE_TIME)
		g_u64(g, V_TIME);
	if (t & PERF_SAMPLE_ID)
		g_u64(g, V_ID);
	if (t & PERF_SAMPLE_STREAM_ID)
		g_u64(g, V_STREAM_ID);
	if (t & PERF_SAMPLE_CPU) {
		g_u32(g, V_CPU);
		g_u32(g, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		g_u64(g, V_IDENTIFIER);
}

static int g_end(struct gen *g)
{
	size_t size = g->s->len - g->rec;
	uint16_t v = (uint16_t)size;

	if (g->overflow || size > 0xffff || size % 8) {
		fprintf(stderr, "make_corpus: seed %s: bad size %zu\n", g->s->name, size);
		return -1;
	}
	if (g_swapped(g))
		v = __builtin_bswap16(v);
	memcpy(g->s->data + g->rec + 6, &v, 2);
	return 0;
}

/* read_format data; group members get ids V_ID + i. */
static void g_read_values(struct gen *g, unsigned group_nr)
{
	uint64_t f = g->c.read_format;
	unsigned i;

	if (f & PERF_FORMAT_GROUP) {
		g_u64(g, group_nr);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			g_u64(g, 5000000);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			g_u64(g, 4000000);
		for (i = 0; i < group_nr; i++) {
			g_u64(g, 1000 + i);
			if (f & PERF_FORMAT_ID)
				g_u64(g, V_ID + i);
			if (f & PERF_FORMAT_LOST)
				g_u64(g, i);
		}
		return;
	}
	g_u64(g, 1000);
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		g_u64(g, 5000000);
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		g_u64(g, 4000000);
	if (f & PERF_FORMAT_ID)
		g_u64(g, V_ID);
	if (f & PERF_FORMAT_LOST)
		g_u64(g, 2);
}

/* ---- the non-SAMPLE kernel records ---- */

static const char *const type_names[23] = {
	[1] = "mmap",		  [2] = "lost",		    [3] = "comm",	     [4] = "exit",
	[5] = "throttle",	  [6] = "unthrottle",	    [7] = "fork",	     [8] = "read",
	[9] = "sample",		  [10] = "mmap2",	    [11] = "aux",	     [12] = "itrace_start",
	[13] = "lost_samples",	  [14] = "switch",	    [15] = "switch_cpu_wide", [16] = "namespaces",
	[17] = "ksymbol",	  [18] = "bpf_event",	    [19] = "cgroup",	     [20] = "text_poke",
	[21] = "aux_output_hw_id", [22] = "callchain_deferred",
};

static uint16_t type_misc(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return PERF_RECORD_MISC_USER;
	case PERF_RECORD_COMM:
		return PERF_RECORD_MISC_COMM_EXEC;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_TEXT_POKE:
		return PERF_RECORD_MISC_KERNEL;
	default:
		return 0;
	}
}

/* The body of a record of type (not SAMPLE), before the trailer. */
static void g_body(struct gen *g, uint32_t type, bool build_id, unsigned group_nr)
{
	static const uint8_t tag[8] = { 0x6d, 0xee, 0xf7, 0x35, 0x7e, 0x7b, 0x45, 0x30 };
	static const uint8_t poke[10] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xe9, 0x10, 0x20, 0x30, 0x40 };
	unsigned i;

	switch (type) {
	case PERF_RECORD_MMAP:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		g_u64(g, 0x55d0c0de0000ull);
		g_u64(g, 0x21000);
		g_u64(g, 0x2000);
		g_str(g, "/usr/bin/true");
		break;
	case PERF_RECORD_LOST:
		g_u64(g, V_ID);
		g_u64(g, 17);
		break;
	case PERF_RECORD_COMM:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		g_str(g, "perfring-test"); /* 13 chars + NUL: 2 bytes of padding */
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		g_u32(g, V_PID);
		g_u32(g, 1);
		g_u32(g, V_TID);
		g_u32(g, 1);
		g_u64(g, V_TIME);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		g_u64(g, V_TIME);
		g_u64(g, V_ID);
		g_u64(g, V_STREAM_ID);
		break;
	case PERF_RECORD_READ:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		g_read_values(g, group_nr);
		break;
	case PERF_RECORD_MMAP2:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		g_u64(g, 0x7f1234560000ull);
		g_u64(g, 0x1c3000);
		g_u64(g, 0x28000);
		if (build_id) {
			g_u8(g, 20);
			g_u8(g, 0);
			g_u8(g, 0);
			g_u8(g, 0);
			for (i = 0; i < 20; i++)
				g_u8(g, (uint8_t)(0xa0 + i));
		} else {
			g_u32(g, 254);
			g_u32(g, 1);
			g_u64(g, 1573301);
			g_u64(g, 7);
		}
		g_u32(g, 5);	 /* PROT_READ | PROT_EXEC */
		g_u32(g, 0x802); /* MAP_PRIVATE | MAP_DENYWRITE */
		g_str(g, "/usr/lib/x86_64-linux-gnu/libc.so.6");
		break;
	case PERF_RECORD_AUX:
		g_u64(g, 0x10000);
		g_u64(g, 0x8000);
		g_u64(g, 0x1); /* PERF_AUX_FLAG_TRUNCATED */
		break;
	case PERF_RECORD_ITRACE_START:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		g_u64(g, 99);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		g_u32(g, 4321);
		g_u32(g, 4322);
		break;
	case PERF_RECORD_NAMESPACES:
		g_u32(g, V_PID);
		g_u32(g, V_TID);
		g_u64(g, 7); /* NR_NAMESPACES */
		for (i = 0; i < 7; i++) {
			g_u64(g, 4);
			g_u64(g, 0xf0000000ull + i);
		}
		break;
	case PERF_RECORD_KSYMBOL:
		g_u64(g, 0xffffffffc0a01000ull);
		g_u32(g, 0x1b4);
		g_u16(g, 1); /* PERF_RECORD_KSYMBOL_TYPE_BPF */
		g_u16(g, 0);
		g_str(g, "bpf_prog_6deef7357e7b4530_producer");
		break;
	case PERF_RECORD_BPF_EVENT:
		g_u16(g, 1); /* PERF_BPF_EVENT_PROG_LOAD */
		g_u16(g, 0);
		g_u32(g, 42);
		g_bytes(g, tag, sizeof(tag));
		break;
	case PERF_RECORD_CGROUP:
		g_u64(g, 0x1f3d);
		g_str(g, "/user.slice/user-0.slice/session-1.scope");
		break;
	case PERF_RECORD_TEXT_POKE:
		g_u64(g, 0xffffffff81a0c2b0ull);
		g_u16(g, 5);
		g_u16(g, 5);
		g_bytes(g, poke, sizeof(poke));
		g_pad8(g);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		g_u64(g, 3);
		break;
	case RF_RECORD_CALLCHAIN_DEFERRED:
		g_u64(g, 0xc00c1e);
		g_u64(g, 4);
		g_u64(g, (uint64_t)-512); /* PERF_CONTEXT_USER */
		g_u64(g, 0x55d0c0de1234ull);
		g_u64(g, 0x55d0c0de2345ull);
		g_u64(g, 0x7f1234567890ull);
		break;
	}
}

static int gen_record(struct seed *s, const char *name, const struct seed_cfg *c, uint32_t type,
		      uint16_t misc, bool build_id, unsigned group_nr)
{
	struct gen g;

	g_begin(&g, s, name, c, type, misc);
	g_body(&g, type, build_id, group_nr);
	g_sample_id(&g);
	return g_end(&g);
}

/* ---- SAMPLE ---- */

struct sample_spec {
	unsigned callchain_nr;
	unsigned raw_len;        /* bytes of data after the u32 size (kernel-padded) */
	unsigned branch_nr;
	bool hw_idx_when_empty;  /* write hw_idx with nr == 0 too */
	uint64_t abi_user, abi_intr;
	unsigned stack_size;     /* STACK_USER bytes (multiple of 8) */
	unsigned aux_size;       /* AUX bytes (multiple of 8) */
	unsigned group_nr;
};

static void g_regs(struct gen *g, uint64_t abi, uint64_t mask, uint64_t base)
{
	unsigned i, n = (unsigned)__builtin_popcountll(mask);

	g_u64(g, abi);
	if (!abi)
		return;
	for (i = 0; i < n; i++)
		g_u64(g, base + i);
}

/* A call chain as perf record -g gets it: kernel frames, then user ones. */
static void g_callchain(struct gen *g, unsigned nr)
{
	unsigned i, kernel = nr / 3;

	g_u64(g, nr);
	for (i = 0; i < nr; i++) {
		if (i == 0)
			g_u64(g, (uint64_t)-128); /* PERF_CONTEXT_KERNEL */
		else if (i == kernel)
			g_u64(g, (uint64_t)-512); /* PERF_CONTEXT_USER */
		else if (i < kernel)
			g_u64(g, 0xffffffff81000000ull + i * 0x1234);
		else
			g_u64(g, 0x55d0c0de0000ull + i * 0x40);
	}
}

static int gen_sample(struct seed *s, const char *name, const struct seed_cfg *c, uint16_t misc,
		      const struct sample_spec *sp)
{
	uint64_t t = c->sample_type;
	struct gen g;
	unsigned i;

	g_begin(&g, s, name, c, PERF_RECORD_SAMPLE, misc);
	if (t & PERF_SAMPLE_IDENTIFIER)
		g_u64(&g, V_IDENTIFIER);
	if (t & PERF_SAMPLE_IP)
		g_u64(&g, 0xffffffff81234567ull);
	if (t & PERF_SAMPLE_TID) {
		g_u32(&g, V_PID);
		g_u32(&g, V_TID);
	}
	if (t & PERF_SAMPLE_TIME)
		g_u64(&g, V_TIME);
	if (t & PERF_SAMPLE_ADDR)
		g_u64(&g, 0x7ffd12345678ull);
	if (t & PERF_SAMPLE_ID)
		g_u64(&g, V_ID);
	if (t & PERF_SAMPLE_STREAM_ID)
		g_u64(&g, V_STREAM_ID);
	if (t & PERF_SAMPLE_CPU) {
		g_u32(&g, V_CPU);
		g_u32(&g, 0);
	}
	if (t & PERF_SAMPLE_PERIOD)
		g_u64(&g, 250000);
	if (t & PERF_SAMPLE_READ)
		g_read_values(&g, sp->group_nr);
	if (t & PERF_SAMPLE_CALLCHAIN)
		g_callchain(&g, sp->callchain_nr);
	if (t & PERF_SAMPLE_RAW) {
		g_u32(&g, sp->raw_len);
		for (i = 0; i < sp->raw_len; i++)
			g_u8(&g, (uint8_t)(i * 7 + 1));
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		g_u64(&g, sp->branch_nr);
		if ((c->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    (sp->branch_nr || sp->hw_idx_when_empty))
			g_u64(&g, 5);
		for (i = 0; i < sp->branch_nr; i++) {
			g_u64(&g, 0xffffffff81000100ull + i * 0x10);
			g_u64(&g, 0xffffffff81000200ull + i * 0x10);
			/* mispred, cycles = 3 + i, type = 1 (COND) */
			g_u64(&g, 0x1ull | ((uint64_t)(3 + i) << 4) | (1ull << 20));
		}
		if (c->flags & RF_BRANCH_COUNTERS)
			for (i = 0; i < sp->branch_nr; i++)
				g_u64(&g, 0x10 + i);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		g_regs(&g, sp->abi_user, c->regs_user, 0x5500);
	if (t & PERF_SAMPLE_STACK_USER) {
		g_u64(&g, sp->stack_size);
		for (i = 0; i < sp->stack_size; i++)
			g_u8(&g, (uint8_t)(0x80 + i));
		if (sp->stack_size)
			g_u64(&g, sp->stack_size - 8);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		g_u64(&g, 0x0003000200000001ull);
	if (t & PERF_SAMPLE_DATA_SRC)
		g_u64(&g, 0x29080142ull);
	if (t & PERF_SAMPLE_TRANSACTION)
		g_u64(&g, 0x100000002ull);
	if (t & PERF_SAMPLE_REGS_INTR)
		g_regs(&g, sp->abi_intr, c->regs_intr, 0x6600);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		g_u64(&g, 0x12345000);
	if (t & PERF_SAMPLE_CGROUP)
		g_u64(&g, 0x1f3d);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		g_u64(&g, 4096);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		g_u64(&g, 2 << 20);
	if (t & PERF_SAMPLE_AUX) {
		g_u64(&g, sp->aux_size);
		for (i = 0; i < sp->aux_size; i++)
			g_u8(&g, (uint8_t)(0xc0 ^ i));
	}
	return g_end(&g);
}

/* ---- the corpus ---- */

#define ID_ALL_BITS                                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |     \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define READ_ALL                                                                                         \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST)
#define SAMPLE_EVERYTHING                                                                                   \
	(((PERF_SAMPLE_MAX - 1) & ~(uint64_t)PERF_SAMPLE_WEIGHT)) /* WEIGHT and WEIGHT_STRUCT exclude each other */

/* Writes the seeds into out[0..max); returns how many, or -1. */
static int make_corpus_seeds(struct seed *out, int max)
{
	const struct seed_cfg ids = { .sample_type = ID_ALL_BITS, .read_format = READ_ALL,
				      .flags = RF_SAMPLE_ID_ALL };
	struct seed_cfg c;
	struct sample_spec sp;
	char name[64];
	int n = 0, v;
	uint32_t t;

#define NEXT()                                            \
	({                                                \
		if (n >= max)                             \
			return -1;                        \
		&out[n++];                                \
	})
#define OK(x)                      \
	do {                       \
		if ((x) < 0)       \
			return -1; \
	} while (0)

	/* Every non-SAMPLE type: native with the trailer, swapped with it, native without. */
	for (v = 0; v < 3; v++) {
		c = ids;
		if (v == 1)
			c.flags |= RF_SWAPPED;
		if (v == 2)
			c.flags &= (uint8_t)~RF_SAMPLE_ID_ALL;
		for (t = 1; t <= 22; t++) {
			if (t == PERF_RECORD_SAMPLE)
				continue;
			snprintf(name, sizeof(name), "%02u-%s%s", t, type_names[t],
				 v == 1 ? "-swapped" : v == 2 ? "-noid" : "");
			OK(gen_record(NEXT(), name, &c, t, type_misc(t), false, 0));
		}
	}
	c = ids;
	OK(gen_record(NEXT(), "10-mmap2-build-id", &c, PERF_RECORD_MMAP2,
		      PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, true, 0));
	c.flags |= RF_SWAPPED;
	OK(gen_record(NEXT(), "10-mmap2-build-id-swapped", &c, PERF_RECORD_MMAP2,
		      PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, true, 0));
	c = ids;
	c.read_format |= PERF_FORMAT_GROUP;
	OK(gen_record(NEXT(), "08-read-group", &c, PERF_RECORD_READ, 0, false, 3));

	/* A SAMPLE with every field. */
	memset(&c, 0, sizeof(c));
	c.sample_type = SAMPLE_EVERYTHING | PERF_SAMPLE_WEIGHT_STRUCT;
	c.read_format = READ_ALL | PERF_FORMAT_GROUP;
	c.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS;
	c.regs_user = 0xff0fffull; /* x86 user registers: 20 */
	c.regs_intr = 0x7;
	c.flags = RF_SAMPLE_ID_ALL | RF_BRANCH_COUNTERS;
	sp = (struct sample_spec){ .callchain_nr = 12, .raw_len = 20, .branch_nr = 3, .abi_user = 2,
				   .abi_intr = 2, .stack_size = 64, .aux_size = 16, .group_nr = 2 };
	OK(gen_sample(NEXT(), "09-sample-every-field", &c, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_EXACT_IP,
		      &sp));
	c.flags |= RF_SWAPPED;
	OK(gen_sample(NEXT(), "09-sample-every-field-swapped", &c, PERF_RECORD_MISC_KERNEL, &sp));

	/* As perf record -g makes them. */
	memset(&c, 0, sizeof(c));
	c.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	c.flags = RF_SAMPLE_ID_ALL;
	sp = (struct sample_spec){ .callchain_nr = 24 };
	OK(gen_sample(NEXT(), "09-sample-perf-record-g", &c, PERF_RECORD_MISC_USER, &sp));

	/* What bpf_perf_event_output() produces: RAW only. */
	memset(&c, 0, sizeof(c));
	c.sample_type = PERF_SAMPLE_RAW;
	sp = (struct sample_spec){ .raw_len = 36 };
	OK(gen_sample(NEXT(), "09-sample-bpf-raw", &c, 0, &sp));
	c.flags = RF_SWAPPED;
	OK(gen_sample(NEXT(), "09-sample-bpf-raw-swapped", &c, 0, &sp));

	/* Empty branch stacks, with and without hw_idx; empty regs and stack. */
	memset(&c, 0, sizeof(c));
	c.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR;
	c.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	c.regs_user = 0xff;
	c.regs_intr = 0x3;
	sp = (struct sample_spec){ .hw_idx_when_empty = true };
	OK(gen_sample(NEXT(), "09-sample-branch-empty-hw-idx", &c, 0, &sp));
	sp = (struct sample_spec){ .hw_idx_when_empty = false };
	OK(gen_sample(NEXT(), "09-sample-branch-empty-no-hw-idx", &c, 0, &sp));
	c.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	sp = (struct sample_spec){ .branch_nr = 2, .abi_user = 2, .abi_intr = 1, .stack_size = 8 };
	OK(gen_sample(NEXT(), "09-sample-branch-no-hw-idx", &c, 0, &sp));

	/* WEIGHT (not the struct) and a single read value. */
	memset(&c, 0, sizeof(c));
	c.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	c.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	sp = (struct sample_spec){ 0 };
	OK(gen_sample(NEXT(), "09-sample-weight-read-single", &c, PERF_RECORD_MISC_USER, &sp));

	/* No fields at all: just the header. */
	memset(&c, 0, sizeof(c));
	OK(gen_sample(NEXT(), "09-sample-empty", &c, 0, &sp));

	/* Not kernel types: a user type (FINISHED_ROUND) and an unknown one. */
	{
		struct gen g;
		static const char junk[] = "0123456789abcdef";

		c = ids;
		g_begin(&g, NEXT(), "68-user-finished-round", &c, 68, 0);
		OK(g_end(&g));
		g_begin(&g, NEXT(), "100-unknown", &c, 100, 0);
		g_bytes(&g, junk, 16);
		OK(g_end(&g));
	}
#undef NEXT
#undef OK
	return n;
}

#ifndef MAKE_CORPUS_NO_MAIN
int main(int argc, char **argv)
{
	static struct seed seeds[SEEDS_MAX];
	char path[4096];
	int n, i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	n = make_corpus_seeds(seeds, SEEDS_MAX);
	if (n < 0) {
		fprintf(stderr, "make_corpus: could not build the seeds\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		FILE *f;

		if (snprintf(path, sizeof(path), "%s/%.63s", argv[1], seeds[i].name) >= (int)sizeof(path)) {
			fprintf(stderr, "make_corpus: %s: path too long\n", argv[1]);
			return 1;
		}
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].data, 1, seeds[i].len, f) != seeds[i].len || fclose(f)) {
			fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	printf("make_corpus: %d seeds written to %s\n", n, argv[1]);
	return 0;
}
#endif

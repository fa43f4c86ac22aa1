/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfdata_build: write small perf.data images in memory, in file or pipe
 * mode and in either byte order, the way perf lays them out
 * (tools/perf/Documentation/perf.data-file-format.txt), independently of
 * the library's reader.
 *
 * The scenario is fixed: two events (ids 101, 102 and 201, 202) named by
 * EVENT_DESC, a set of features, and the records of pdb_scenario_records()
 * (kernel records of both events, a FINISHED_ROUND, a TRACING_DATA and an
 * AUXTRACE with payloads). pdb_expect[] lists them in file order.
 */
#ifndef PERFRING_TESTS_PERFDATA_BUILD_H
#define PERFRING_TESTS_PERFDATA_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <zstd.h>

struct pdb {
	uint8_t *buf;
	size_t len, cap;
	bool sw;
};

static void pdb_init(struct pdb *b, bool swapped)
{
	memset(b, 0, sizeof(*b));
	b->sw = swapped;
}

static void pdb_bytes(struct pdb *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->buf = realloc(b->buf, b->cap);
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void pdb_zero(struct pdb *b, size_t n)
{
	static const uint8_t z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		pdb_bytes(b, z, k);
		n -= k;
	}
}

/* Write v as n bytes in the image's byte order (built byte by byte). */
static void pdb_uint(struct pdb *b, uint64_t v, int n)
{
	uint8_t out[8];
	int i;

	for (i = 0; i < n; i++) {
		uint8_t byte = (uint8_t)(v >> (8 * i));

		/* this host is little-endian: the other order is big-endian */
		out[b->sw ? n - 1 - i : i] = byte;
	}
	pdb_bytes(b, out, (size_t)n);
}

static void pdb_u16(struct pdb *b, uint16_t v) { pdb_uint(b, v, 2); }
static void pdb_u32(struct pdb *b, uint32_t v) { pdb_uint(b, v, 4); }
static void pdb_u64(struct pdb *b, uint64_t v) { pdb_uint(b, v, 8); }

static void pdb_put_at(struct pdb *b, size_t off, uint64_t v, int n)
{
	size_t save = b->len;

	b->len = off;
	pdb_uint(b, v, n);
	b->len = save;
}

/* perf string: u32 len (NUL included, padded to 8), then the bytes. */
static void pdb_string(struct pdb *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 7) & ~(size_t)7;

	pdb_u32(b, (uint32_t)padded);
	pdb_bytes(b, s, n);
	pdb_zero(b, padded - n);
}

static size_t pdb_rec_begin(struct pdb *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	pdb_u32(b, type);
	pdb_u16(b, misc);
	pdb_u16(b, 0);
	return at;
}

static void pdb_rec_end(struct pdb *b, size_t at)
{
	pdb_put_at(b, at + 6, b->len - at, 2);
}

/* The attr as a compiler of the image's byte order lays it out: fields in
 * that order; the flag bitfield allocated from the other end of its word,
 * which for the same flag bytes means each byte's bits reversed. */
static void pdb_attr(struct pdb *b, const struct perf_event_attr *a)
{
	uint8_t flags[8];
	uint64_t f;
	int i;

	pdb_u32(b, a->type);
	pdb_u32(b, a->size);
	pdb_u64(b, a->config);
	pdb_u64(b, a->sample_period);
	pdb_u64(b, a->sample_type);
	pdb_u64(b, a->read_format);
	memcpy(&f, (const uint8_t *)a + offsetof(struct perf_event_attr, read_format) + 8, 8);
	for (i = 0; i < 8; i++) {
		uint8_t x = (uint8_t)(f >> (8 * i)), r = 0;
		int k;

		if (b->sw)
			for (k = 0; k < 8; k++)
				r |= (uint8_t)(((x >> k) & 1) << (7 - k));
		else
			r = x;
		flags[i] = r;
	}
	pdb_bytes(b, flags, 8);
	pdb_u32(b, a->wakeup_events);
	pdb_u32(b, a->bp_type);
	pdb_u64(b, a->config1);
	pdb_u64(b, a->config2);
	pdb_u64(b, a->branch_sample_type);
	pdb_u64(b, a->sample_regs_user);
	pdb_u32(b, a->sample_stack_user);
	pdb_u32(b, (uint32_t)a->clockid);
	pdb_u64(b, a->sample_regs_intr);
	pdb_u32(b, a->aux_watermark);
	pdb_u16(b, a->sample_max_stack);
	pdb_u16(b, 0);
	pdb_u32(b, a->aux_sample_size);
	pdb_u32(b, 0);
	pdb_u64(b, a->sig_data);
	/* a newer perf's longer attr (config3 ...): zero bytes we do not know */
	if (a->size > sizeof(*a))
		pdb_zero(b, a->size - sizeof(*a));
}

/* ---- the scenario ---- */

#define PDB_ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const uint64_t pdb_ids[2][2] = { { 101, 102 }, { 201, 202 } };
static const char *const pdb_names[2] = { "ev-a", "ev-b" };

/* attr_size_extra: bytes beyond this build's perf_event_attr (a newer perf) */
static void pdb_scenario_attr(struct perf_event_attr *a, int i, unsigned attr_size_extra)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->size = (uint32_t)(sizeof(*a) + attr_size_extra);
	a->config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 4000 + (uint64_t)i;
	a->sample_type = PDB_ST;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->exclude_kernel = (unsigned)i;
	a->precise_ip = 2;
	a->comm = !i;
	a->use_clockid = 1;
	a->clockid = 1;
	a->wakeup_events = 7;
}

struct pdb_expect {
	uint32_t type;
	uint64_t time;   /* 0: none (user record) */
	uint64_t id;     /* the record's id */
	int attr;        /* -1: a user record */
	uint32_t payload;
};

/* File order. */
static const struct pdb_expect pdb_expect[] = {
	{ PERF_RECORD_COMM, 50, 201, 1, 0 },
	{ PERF_RECORD_SAMPLE, 30, 101, 0, 0 },
	{ PERF_RECORD_SAMPLE, 10, 202, 1, 0 },
	{ 68 /* FINISHED_ROUND */, 0, 0, -1, 0 },
	{ PERF_RECORD_SAMPLE, 5, 0, 0, 0 },     /* id 0: the first attr */
	{ PERF_RECORD_SAMPLE, 60, 999, 0, 0 },  /* unknown id: the first attr */
	{ 66 /* TRACING_DATA */, 0, 0, -1, 16 },
	{ 71 /* AUXTRACE */, 0, 0, -1, 24 },
	{ PERF_RECORD_SAMPLE, 20, 102, 0, 0 },
	{ 68 /* FINISHED_ROUND */, 0, 0, -1, 0 },
	{ PERF_RECORD_SAMPLE, 55, 201, 1, 0 },
};
#define PDB_NR_EXPECT (sizeof(pdb_expect) / sizeof(pdb_expect[0]))

/*
 * Time order (opts.ordered) as perf delivers it, as indexes into
 * pdb_expect: records without a time at once; a FINISHED_ROUND, then the
 * queued records up to the largest time of the round before it (nothing
 * at the first; 50 at the second, which holds back the 60); the rest at
 * the end.
 */
static const int pdb_ordered[PDB_NR_EXPECT] = { 3, 6, 7, 9, 4, 2, 8, 1, 0, 10, 5 };

static void pdb_sample_id_trailer(struct pdb *b, const struct pdb_expect *e)
{
	pdb_u32(b, 42);
	pdb_u32(b, 43);
	pdb_u64(b, e->time);
	pdb_u64(b, e->id);
	pdb_u32(b, 1);
	pdb_u32(b, 0);
	pdb_u64(b, e->id);
}

static void pdb_scenario_records(struct pdb *b)
{
	size_t i;

	for (i = 0; i < PDB_NR_EXPECT; i++) {
		const struct pdb_expect *e = &pdb_expect[i];
		size_t at = pdb_rec_begin(b, e->type, e->type == PERF_RECORD_SAMPLE ? PERF_RECORD_MISC_USER : 0);

		switch (e->type) {
		case PERF_RECORD_COMM:
			pdb_u32(b, 42);
			pdb_u32(b, 43);
			pdb_bytes(b, "worker\0\0", 8);
			pdb_sample_id_trailer(b, e);
			break;
		case PERF_RECORD_SAMPLE:
			pdb_u64(b, e->id);               /* identifier */
			pdb_u64(b, 0xffffffff81000000ULL + i); /* ip */
			pdb_u32(b, 42);
			pdb_u32(b, 43);
			pdb_u64(b, e->time);
			pdb_u64(b, e->id);
			pdb_u32(b, 1);
			pdb_u32(b, 0);
			pdb_u64(b, 4000);                /* period */
			break;
		case 66:
			pdb_u32(b, e->payload); /* perf's struct is 12 bytes: unaligned after it */
			pdb_rec_end(b, at);
			for (uint32_t k = 0; k < e->payload; k++)
				pdb_bytes(b, &(uint8_t){ (uint8_t)(0xa0 + k) }, 1);
			continue;
		case 71:
			pdb_u64(b, e->payload); /* size */
			pdb_u64(b, 0);          /* offset */
			pdb_u64(b, 77);         /* reference */
			pdb_u32(b, 0);          /* idx */
			pdb_u32(b, 43);         /* tid */
			pdb_u32(b, 1);          /* cpu */
			pdb_u32(b, 0);
			pdb_rec_end(b, at);
			for (uint32_t k = 0; k < e->payload; k++)
				pdb_bytes(b, &(uint8_t){ (uint8_t)(0xb0 + k) }, 1);
			continue;
		default:
			break;
		}
		pdb_rec_end(b, at);
	}
}

/* Feature payloads, in ascending bit order. */
enum { PDB_F_BUILD_ID = 2, PDB_F_HOSTNAME = 3, PDB_F_OSRELEASE = 4, PDB_F_NRCPUS = 7, PDB_F_TOTAL_MEM = 10,
       PDB_F_CMDLINE = 11, PDB_F_EVENT_DESC = 12, PDB_F_COMPRESSED = 27, PDB_F_CLOCK_DATA = 29 };
static const int pdb_features[] = { PDB_F_BUILD_ID, PDB_F_HOSTNAME, PDB_F_OSRELEASE, PDB_F_NRCPUS,
				    PDB_F_TOTAL_MEM, PDB_F_CMDLINE, PDB_F_EVENT_DESC, PDB_F_COMPRESSED,
				    PDB_F_CLOCK_DATA };
#define PDB_NR_FEATURES (sizeof(pdb_features) / sizeof(pdb_features[0]))

static void pdb_build_id_entry(struct pdb *b, int32_t pid, uint8_t size, uint8_t fill, const char *name)
{
	size_t at = pdb_rec_begin(b, 67, (uint16_t)(PERF_RECORD_MISC_KERNEL | (1u << 15)));
	uint8_t id[24] = { 0 };
	size_t n = strlen(name) + 1;

	pdb_u32(b, (uint32_t)pid);
	memset(id, fill, size);
	id[20] = size;
	pdb_bytes(b, id, 24);
	pdb_bytes(b, name, n);
	pdb_zero(b, ((n + 7) & ~(size_t)7) - n);
	pdb_rec_end(b, at);
}

static void pdb_feature(struct pdb *b, int feat, unsigned attr_size_extra)
{
	switch (feat) {
	case PDB_F_BUILD_ID:
		pdb_build_id_entry(b, -1, 20, 0x11, "[kernel.kallsyms]");
		pdb_build_id_entry(b, 42, 16, 0x22, "/usr/bin/worker");
		break;
	case PDB_F_HOSTNAME: pdb_string(b, "testhost"); break;
	case PDB_F_OSRELEASE: pdb_string(b, "6.1.0-test"); break;
	case PDB_F_NRCPUS: pdb_u32(b, 4); pdb_u32(b, 2); break;
	case PDB_F_TOTAL_MEM: pdb_u64(b, 123456); break;
	case PDB_F_CMDLINE:
		pdb_u32(b, 3);
		pdb_string(b, "perf");
		pdb_string(b, "record");
		pdb_string(b, "-a");
		break;
	case PDB_F_EVENT_DESC: {
		struct perf_event_attr a;
		int i;

		pdb_u32(b, 2);
		pdb_u32(b, (uint32_t)(sizeof(a) + attr_size_extra));
		for (i = 0; i < 2; i++) {
			pdb_scenario_attr(&a, i, attr_size_extra);
			pdb_attr(b, &a);
			pdb_u32(b, 2);
			pdb_string(b, pdb_names[i]);
			pdb_u64(b, pdb_ids[i][0]);
			pdb_u64(b, pdb_ids[i][1]);
		}
		break;
	}
	case PDB_F_COMPRESSED:
		pdb_u32(b, 1);
		pdb_u32(b, 1);
		pdb_u32(b, 3);
		pdb_u32(b, 7);      /* perf writes ratio and mmap_len as u32 too */
		pdb_u32(b, 65536);
		break;
	case PDB_F_CLOCK_DATA:
		pdb_u32(b, 1);
		pdb_u32(b, 1);
		pdb_u64(b, 1700000000000000000ULL);
		pdb_u64(b, 123456789);
		break;
	}
}

/* Compress the scenario's records into COMPRESSED (type 81) or COMPRESSED2
 * (83) records, flushing in the middle of a record so that one
 * decompressed record straddles two compressed ones. */
static void pdb_compressed_records(struct pdb *b, const struct pdb *plain, uint32_t type)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t cuts[3] = { plain->len / 4 + 5, 2 * plain->len / 3 + 3, plain->len }, start = 0;
	uint8_t out[65536];
	int c;

	for (c = 0; c < 3; c++) {
		ZSTD_inBuffer in = { plain->buf + start, cuts[c] - start, 0 };
		ZSTD_outBuffer o = { out, sizeof(out), 0 };
		size_t at, rem;

		do
			rem = ZSTD_compressStream2(z, &o, &in, c == 2 ? ZSTD_e_end : ZSTD_e_flush);
		while (rem && !ZSTD_isError(rem));
		start = cuts[c];
		at = pdb_rec_begin(b, type, 0);
		if (type == 83) {
			pdb_u64(b, o.pos);
			pdb_bytes(b, out, o.pos);
			pdb_zero(b, ((b->len - at + 7) & ~(size_t)7) - (b->len - at));
		} else {
			pdb_bytes(b, out, o.pos);
		}
		pdb_rec_end(b, at);
	}
	ZSTD_freeCCtx(z);
}

enum pdb_data { PDB_PLAIN, PDB_COMPRESSED, PDB_COMPRESSED2 };

static void pdb_data_records(struct pdb *b, enum pdb_data kind)
{
	struct pdb plain;

	if (kind == PDB_PLAIN) {
		pdb_scenario_records(b);
		return;
	}
	pdb_init(&plain, b->sw);
	pdb_scenario_records(&plain);
	pdb_compressed_records(b, &plain, kind == PDB_COMPRESSED ? 81 : 83);
	free(plain.buf);
}

/* A file-mode image; data_off and data_size: its data section. */
static void pdb_file(struct pdb *b, enum pdb_data kind, unsigned attr_size_extra, uint64_t *data_off,
		     uint64_t *data_size)
{
	const uint64_t attr_size = sizeof(struct perf_event_attr) + attr_size_extra + 16;
	uint64_t feat_bits[4] = { 0 }, attrs_off = 104, ids_off, doff, dsize, table;
	struct perf_event_attr a;
	size_t i;
	int k;

	for (i = 0; i < PDB_NR_FEATURES; i++)
		feat_bits[pdb_features[i] / 64] |= 1ULL << (pdb_features[i] % 64);
	pdb_uint(b, 0x32454c4946524550ULL, 8); /* "PERFILE2" in the image's order */
	pdb_u64(b, 104);
	pdb_u64(b, attr_size);
	pdb_zero(b, 16 * 3 + 32); /* sections and bitmap: patched below */
	ids_off = attrs_off + 2 * attr_size;
	for (k = 0; k < 2; k++) {
		pdb_scenario_attr(&a, k, attr_size_extra);
		pdb_attr(b, &a);
		pdb_u64(b, ids_off + 16 * (uint64_t)k);
		pdb_u64(b, 16);
	}
	for (k = 0; k < 2; k++) {
		pdb_u64(b, pdb_ids[k][0]);
		pdb_u64(b, pdb_ids[k][1]);
	}
	doff = b->len;
	pdb_data_records(b, kind);
	dsize = b->len - doff;
	table = b->len;
	pdb_zero(b, 16 * PDB_NR_FEATURES);
	for (i = 0; i < PDB_NR_FEATURES; i++) {
		size_t at = b->len;

		pdb_feature(b, pdb_features[i], attr_size_extra);
		pdb_put_at(b, table + 16 * i, at, 8);
		pdb_put_at(b, table + 16 * i + 8, b->len - at, 8);
	}
	pdb_put_at(b, 24, attrs_off, 8);
	pdb_put_at(b, 32, 2 * attr_size, 8);
	pdb_put_at(b, 40, doff, 8);
	pdb_put_at(b, 48, dsize, 8);
	for (k = 0; k < 4; k++)
		pdb_put_at(b, 72 + 8 * (size_t)k, feat_bits[k], 8);
	*data_off = doff;
	*data_size = dsize;
}

/* A pipe-mode image: HEADER_ATTR and HEADER_FEATURE records, then the data.
 * data_off: where the scenario's records start. */
static void pdb_pipe(struct pdb *b, enum pdb_data kind, uint64_t *data_off)
{
	struct perf_event_attr a;
	size_t i;
	int k;

	pdb_uint(b, 0x32454c4946524550ULL, 8);
	pdb_u64(b, 16);
	for (k = 0; k < 2; k++) {
		size_t at = pdb_rec_begin(b, 64, 0);

		pdb_scenario_attr(&a, k, 0);
		pdb_attr(b, &a);
		pdb_u64(b, pdb_ids[k][0]);
		pdb_u64(b, pdb_ids[k][1]);
		pdb_rec_end(b, at);
	}
	for (i = 0; i < PDB_NR_FEATURES; i++) {
		size_t at = pdb_rec_begin(b, 80, 0);

		pdb_u64(b, (uint64_t)pdb_features[i]);
		pdb_feature(b, pdb_features[i], 0);
		pdb_rec_end(b, at);
	}
	*data_off = b->len;
	pdb_data_records(b, kind);
}

#endif /* PERFRING_TESTS_PERFDATA_BUILD_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record layer internals shared by the decoder and the encoder: loads and
 * stores in a record's byte order (memcpy based: record fields need not be
 * aligned in the caller's buffer), and a bounds-checked read cursor.
 * Not installed.
 */
#ifndef PERFRING_RECORD_INTERNAL_H
#define PERFRING_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfring/record.h>

/* ---- byte-order loads and stores -------------------------------------- */

static inline uint16_t pr_rec_load_u16(const void *p, bool swapped)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap16(v) : v;
}

static inline uint32_t pr_rec_load_u32(const void *p, bool swapped)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap32(v) : v;
}

static inline uint64_t pr_rec_load_u64(const void *p, bool swapped)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap64(v) : v;
}

static inline void pr_rec_store_u16(void *p, uint64_t v, bool swapped)
{
	uint16_t x = (uint16_t)v;

	if (swapped)
		x = __builtin_bswap16(x);
	memcpy(p, &x, sizeof(x));
}

static inline void pr_rec_store_u32(void *p, uint64_t v, bool swapped)
{
	uint32_t x = (uint32_t)v;

	if (swapped)
		x = __builtin_bswap32(x);
	memcpy(p, &x, sizeof(x));
}

static inline void pr_rec_store_u64(void *p, uint64_t v, bool swapped)
{
	if (swapped)
		v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

/* ---- constants newer than the installed uapi header --------------------- */

/* Private names, so that a newer <linux/perf_event.h> (where some of these
 * are enumerators) never clashes with them. */
#define PR_REC_TYPE_CALLCHAIN_DEFERRED 22u         /* PERF_RECORD_CALLCHAIN_DEFERRED */
#define PR_REC_TYPE_LAST_KERNEL 22u                /* last kernel record type decoded */
#define PR_REC_SAMPLE_BRANCH_COUNTERS (1ULL << 19) /* PERF_SAMPLE_BRANCH_COUNTERS */
#define PR_REC_SAMPLE_BRANCH_HW_INDEX (1ULL << 17) /* PERF_SAMPLE_BRANCH_HW_INDEX */
#define PR_REC_SAMPLE_KNOWN ((1ULL << 25) - 1)     /* IP .. WEIGHT_STRUCT */
#define PR_REC_FORMAT_KNOWN ((1ULL << 5) - 1)      /* TOTAL_TIME_ENABLED .. LOST */
#define PR_REC_CONTEXT_USER_DEFERRED ((uint64_t)-640)

/* The sample_type bits that make up a sample_id (trailer or a SAMPLE's own). */
#define PR_REC_SAMPLE_ID_BITS                                                         \
	((1ULL << 1) /* TID */ | (1ULL << 2) /* TIME */ | (1ULL << 6) /* ID */ |      \
	 (1ULL << 9) /* STREAM_ID */ | (1ULL << 7) /* CPU */ | (1ULL << 16) /* IDENTIFIER */)

/* Whether an MMAP2 record of the event of cfg carries a build id (else
 * maj/min/ino): the misc bit, unless the event never asked for build ids
 * (the kernel leaves the bit set by another event's record on it). The
 * decoder and the encoder must agree on this. */
static inline bool pr_rec_mmap2_build_id(const struct perfring_parse_config *cfg, uint16_t misc)
{
	return perfring_misc_mmap_build_id(misc) && !cfg->no_build_id;
}

/* Bits set in v. Written out because without -mpopcnt (the default for
 * x86-64) __builtin_popcountll is a libgcc call, slower than this. */
static inline unsigned pr_rec_popcount(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((v * 0x0101010101010101ULL) >> 56);
}

/* Bytes of the sample_id trailer for this sample_type (8 per field). */
static inline unsigned pr_rec_id_trailer_size(uint64_t sample_type)
{
	return 8u * pr_rec_popcount(sample_type & PR_REC_SAMPLE_ID_BITS);
}

/* ---- bounds-checked read cursor (decoder) ------------------------------- */

/*
 * A cursor over [rec + pos, rec + end), end <= the record's header.size.
 * Every read checks the bytes left first; pos never passes end.
 */
/* Return the error of a decoding step, if any (the decoders' steps return 0
 * or a negative error with the message already recorded). */
#define TRY(expr)                      \
	do {                           \
		int err_ = (expr);     \
		if (err_)              \
			return err_;   \
	} while (0)

struct pr_rec_cur {
	const uint8_t *rec;
	size_t pos, end;
	bool swapped;
	/* Trial decoding: record the failing field in out, but set no message
	 * (perfring_errmsg()) and log nothing. */
	bool quiet;
	bool have_type;               /* the header was read: type is the record's */
	uint32_t type;                /* for messages (named only when one is needed) */
	struct perfring_decoded *out; /* gets error_field/error_offset; may be NULL */
};

/*
 * Report a bad record: sets out->error_field/error_offset and, unless quiet,
 * the thread's message "<TYPE> record, offset <off>: <field> <detail>".
 * err is PERFRING_ETRUNC or PERFRING_EBADREC (positive); returns -err
 * (record_util.c, as pr_rec_short() and pr_rec_array_slow()).
 */
int pr_rec_fail(struct pr_rec_cur *c, int err, const char *field, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6), cold));

/* The record ends before a fixed field of n bytes: ETRUNC. */
int pr_rec_short(struct pr_rec_cur *c, const char *field, size_t n) __attribute__((cold));

static inline size_t pr_rec_left(const struct pr_rec_cur *c)
{
	return c->end - c->pos;
}

static inline int pr_rec_u64(struct pr_rec_cur *c, const char *field, uint64_t *v)
{
	if (__builtin_expect(pr_rec_left(c) < 8, 0))
		return pr_rec_short(c, field, 8);
	*v = pr_rec_load_u64(c->rec + c->pos, c->swapped);
	c->pos += 8;
	return 0;
}

/* Two u32 in one u64 slot (pid/tid, cpu/res): each swapped on its own. */
static inline int pr_rec_u32x2(struct pr_rec_cur *c, const char *field, uint32_t *a, uint32_t *b)
{
	if (__builtin_expect(pr_rec_left(c) < 8, 0))
		return pr_rec_short(c, field, 8);
	*a = pr_rec_load_u32(c->rec + c->pos, c->swapped);
	*b = pr_rec_load_u32(c->rec + c->pos + 4, c->swapped);
	c->pos += 8;
	return 0;
}

/*
 * nr elements of elem bytes, the count read from the record at count_off:
 * a count larger than the bytes left is EBADREC (checked before any
 * multiplication). On success *p points at the first element.
 */
int pr_rec_array_slow(struct pr_rec_cur *c, const char *field, size_t count_off, uint64_t nr, size_t elem);

static inline int pr_rec_array(struct pr_rec_cur *c, const char *field, size_t count_off, uint64_t nr,
			       size_t elem, const void **p)
{
	if (__builtin_expect(nr > pr_rec_left(c) / elem, 0))
		return pr_rec_array_slow(c, field, count_off, nr, elem);
	*p = c->rec + c->pos;
	c->pos += (size_t)nr * elem;
	return 0;
}

/* A SAMPLE's own sample_id fields, copied from the decoded sample. */
static inline void pr_rec_sample_id_of(struct perfring_sample_id *sid, const struct perfring_sample *s)
{
	sid->present = s->present & PR_REC_SAMPLE_ID_BITS;
	sid->pid = s->pid;
	sid->tid = s->tid;
	sid->time = s->time;
	sid->id = s->id;
	sid->stream_id = s->stream_id;
	sid->cpu = s->cpu;
	sid->cpu_res = s->cpu_res;
	sid->identifier = s->identifier;
}

/* Decoders shared by record_decode.c and record_sample.c. */

/* Field names for read_format data (they differ between a SAMPLE and a READ record). */
struct pr_rec_read_names {
	const char *nr, *time_enabled, *time_running, *value, *id, *lost;
};
extern const struct pr_rec_read_names pr_rec_read_names_sample, pr_rec_read_names_record;

int pr_rec_read_values(struct pr_rec_cur *c, uint64_t format, const struct pr_rec_read_names *names,
		       struct perfring_read_values *r);

/* The SAMPLE body from c->pos to c->end, every field; fills out->sample_id too. */
int pr_rec_parse_sample(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			struct perfring_decoded *out);

/*
 * The SAMPLE fast path (record_sample_fast.c). A config whose sample_type
 * has only the fixed u64 slots at the front (IDENTIFIER .. PERIOD) and
 * maybe a call chain, in host byte order, gets its layout precomputed by
 * perfring_parse_config_finish() into cfg->reserved: the byte offset of
 * each front field in the body and the front's size. A sample is then
 * decoded with independent loads and two bounds checks (front, call
 * chain); anything that does not fit exactly is handed to the general
 * decoder, which names the fault, so both give the same result.
 */
struct pr_rec_fast_layout {
	uint64_t tag;    /* sample_type | PR_REC_FAST_TAG; 0: no fast path */
	uint8_t off[9];  /* identifier, ip, tid, time, addr, id, stream_id, cpu, period */
	uint8_t front;   /* bytes of those present */
	uint8_t pad[6];
};
#define PR_REC_FAST_TAG (1ULL << 63) /* never a sample_type bit finish() accepts */

_Static_assert(sizeof(struct pr_rec_fast_layout) == sizeof(((struct perfring_parse_config *)0)->reserved),
	       "the fast layout fills the config's reserved words");

/* Fill (or clear) the layout in cfg->reserved; called by finish(). */
void pr_rec_fast_layout_init(struct perfring_parse_config *cfg);

/* perfring_record_parse(), cfg, rec and out not NULL: a SAMPLE that fits
 * the config's layout exactly is decoded here; any other record or config,
 * and any fault, goes to pr_rec_parse_general() (out untouched before). */
#define PR_REC_FAST_DECLINED 1
int pr_rec_sample_fast(const struct perfring_parse_config *cfg, const uint8_t *rec, size_t len,
		       struct perfring_decoded *out);
/* perfring_record_parse() without the fast path. */
int pr_rec_parse_general(const struct perfring_parse_config *cfg, const void *rec, size_t len,
			 struct perfring_decoded *out);

/* The sample_id fields at the front of a SAMPLE (IDENTIFIER .. CPU). */
int pr_rec_sample_front_id(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			   struct perfring_sample_id *sid);

#endif /* PERFRING_RECORD_INTERNAL_H */

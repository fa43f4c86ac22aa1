// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoder: every kernel record type but SAMPLE (1..22), built byte
 * by byte in both byte orders, with and without the sample_id trailer
 * (several trailer field sets, parsed from the end of the record), and
 * checked field by field: values, the offsets of string and byte views,
 * the padded length of string fields (the sample_id trailer must not leak
 * into MMAP's filename, perf_event_data's bug). Unknown types come back as
 * raw bytes. Runs under ASan in make check: each record is parsed from an
 * allocation of exactly its size.
 */
#include <stdio.h>

#include "harness.h"
#include "recbuild.h"

struct variant {
	bool swapped, sid_all;
};

static const struct variant variants[] = {
	{ false, false },
	{ false, true },
	{ true, false },
	{ true, true },
};

/* Trailer field sets: all six (plus non-trailer bits, which must not add
 * anything), pairs, one, none. */
static const uint64_t trailer_sets[] = {
	RB_TRAILER_BITS | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
	PERF_SAMPLE_TID | PERF_SAMPLE_CPU,
	PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER,
	PERF_SAMPLE_STREAM_ID,
	PERF_SAMPLE_IP,
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One record type under test: build case k's header and body, check its body. */
struct type_case {
	const char *name;
	uint32_t type;
	uint64_t read_format;
	int ncases;
	void (*build)(struct rb *b, int k);
	void (*check)(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx);
};

static char ctxbuf[256];
/* The byte order of the record being checked. */
static bool cur_swapped;

static const char *mkctx(const char *name, int k, const struct variant *v, uint64_t st)
{
	snprintf(ctxbuf, sizeof(ctxbuf), "[%s case %d swapped=%d sample_id_all=%d sample_type=%#" PRIx64 "]", name, k,
		 v->swapped, v->sid_all, st);
	return ctxbuf;
}

/* The trailer decoded into out->sample_id is the one written. */
static void check_trailer(const struct perfring_sample_id *got, uint64_t st, bool sid_all, const char *ctx)
{
	struct perfring_sample_id want = rb_trailer_values();
	uint64_t bits = sid_all ? (st & RB_TRAILER_BITS) : 0;

	CHECKF(got->present == bits, "%s sample_id.present %#" PRIx64 " != %#" PRIx64, ctx, got->present, bits);
	if (bits & PERF_SAMPLE_TID)
		CHECKF(got->pid == want.pid && got->tid == want.tid, "%s trailer pid/tid %#x/%#x", ctx, got->pid,
		       got->tid);
	if (bits & PERF_SAMPLE_TIME)
		CHECKF(got->time == want.time, "%s trailer time %#" PRIx64, ctx, got->time);
	if (bits & PERF_SAMPLE_ID)
		CHECKF(got->id == want.id, "%s trailer id %#" PRIx64, ctx, got->id);
	if (bits & PERF_SAMPLE_STREAM_ID)
		CHECKF(got->stream_id == want.stream_id, "%s trailer stream_id %#" PRIx64, ctx, got->stream_id);
	if (bits & PERF_SAMPLE_CPU)
		CHECKF(got->cpu == want.cpu && got->cpu_res == want.cpu_res, "%s trailer cpu/res %#x/%#x", ctx,
		       got->cpu, got->cpu_res);
	if (bits & PERF_SAMPLE_IDENTIFIER)
		CHECKF(got->identifier == want.identifier, "%s trailer identifier %#" PRIx64, ctx, got->identifier);
}

/* Build, parse and check every case of tc in every variant and trailer set.
 * extra: bytes of garbage given after the record (len > header.size). */
static void run_type(const struct type_case *tc, size_t extra)
{
	static struct rb b;
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	size_t vi, si;
	int k, ret;

	for (vi = 0; vi < NELEM(variants); vi++) {
		const struct variant *v = &variants[vi];

		for (si = 0; si < NELEM(trailer_sets); si++) {
			uint64_t st = trailer_sets[si];

			for (k = 0; k < tc->ncases; k++) {
				const char *ctx = mkctx(tc->name, k, v, st);
				const uint8_t *rec;
				uint16_t size, misc;

				cur_swapped = v->swapped;
				REQUIREF(rb_config(&cfg, st, tc->read_format, v->sid_all, v->swapped) == 0,
					 "%s config: %s", ctx, perfring_errmsg());
				rb_init(&b, v->swapped);
				tc->build(&b, k);
				if (v->sid_all) {
					struct perfring_sample_id t = rb_trailer_values();

					rb_trailer(&b, st, &t);
				}
				size = rb_finish(&b);
				misc = (uint16_t)rb_get_uint(&b, 4, 2);
				rec = rb_exact_n(&b, size + extra);
				memset(&d, 0x5a, sizeof(d));
				ret = perfring_record_parse(&cfg, rec, size + extra, &d);
				CHECKF(ret == 0, "%s parse returned %d (field %s): %s", ctx, ret,
				       ret ? d.error_field : "", perfring_errmsg());
				if (ret)
					continue;
				CHECKF(d.type == tc->type, "%s type %u", ctx, d.type);
				CHECKF(d.misc == misc, "%s misc %#x != %#x", ctx, d.misc, misc);
				CHECKF(d.size == size, "%s size %u != %u", ctx, d.size, size);
				CHECKF(d.kind == PERFRING_REC_KERNEL, "%s kind %d", ctx, (int)d.kind);
				CHECKF(d.raw == rec && d.raw_len == size, "%s raw view %p/%zu", ctx, d.raw, d.raw_len);
				CHECKF(d.error_field == NULL, "%s error_field set on success", ctx);
				check_trailer(&d.sample_id, st, v->sid_all, ctx);
				tc->check(&d, rec, k, ctx);
			}
		}
	}
}

/* ---- MMAP ---------------------------------------------------------------- */

static const char *const mmap_names[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6", /* 35 chars: 36 bytes of field */
	"1234567",                             /* exactly 8 with its NUL: no padding */
	"12345678",                            /* 9 -> 16 */
	"",                                    /* only the NUL and padding */
	"[vdso]",
};

static size_t padded(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void build_mmap(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER | (k & 1 ? PERF_RECORD_MISC_MMAP_DATA : 0));
	rb_u32(b, 0x1000 + k);
	rb_u32(b, 0x2000 + k);
	rb_u64(b, 0x7f0011223344ULL + k);
	rb_u64(b, 0x21000 + k);
	rb_u64(b, 0x1122334455667788ULL + k);
	rb_str(b, mmap_names[k]);
}

static void check_mmap(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_mmap *m = &d->u.mmap;
	size_t field = padded(strlen(mmap_names[k]) + 1);

	CHECKF(m->pid == 0x1000u + k && m->tid == 0x2000u + k, "%s pid/tid %#x/%#x", ctx, m->pid, m->tid);
	CHECKF(m->addr == 0x7f0011223344ULL + k, "%s addr %#" PRIx64, ctx, m->addr);
	CHECKF(m->len == 0x21000u + k, "%s len %#" PRIx64, ctx, m->len);
	CHECKF(m->pgoff == 0x1122334455667788ULL + k, "%s pgoff %#" PRIx64, ctx, m->pgoff);
	CHECKF(!m->has_build_id, "%s MMAP has a build id", ctx);
	CHECKF(m->filename == (const char *)rec + 40, "%s filename at %td", ctx, m->filename - (const char *)rec);
	CHECKF(m->filename && strcmp(m->filename, mmap_names[k]) == 0, "%s filename '%s'", ctx,
	       m->filename ? m->filename : "(null)");
	CHECKF(m->filename_field.data == rec + 40, "%s filename_field at %td", ctx,
	       (const uint8_t *)m->filename_field.data - rec);
	CHECKF(m->filename_field.len == field, "%s filename_field.len %" PRIu64 " != %zu (trailer bytes leak?)", ctx,
	       m->filename_field.len, field);
	CHECK(perfring_misc_mmap_data(d->misc) == (k & 1));
	CHECK(perfring_misc_cpumode(d->misc) == PERF_RECORD_MISC_USER);
}

TEST(record_mmap)
{
	const struct type_case tc = { "MMAP", PERF_RECORD_MMAP, 0, NELEM(mmap_names), build_mmap, check_mmap };

	run_type(&tc, 0);
}

/* Bytes after header.size are not part of the record. */
TEST(record_mmap_bytes_after_size_ignored)
{
	const struct type_case tc = { "MMAP+garbage", PERF_RECORD_MMAP, 0, NELEM(mmap_names), build_mmap,
				      check_mmap };

	run_type(&tc, 24);
}

/* ---- MMAP2: inode form and build-id form ------------------------------------ */

static const uint8_t build_id20[20] = { 0xde, 0xad, 0xbe, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
					0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };

/* k: 0-4 inode form with mmap_names[k], 5-9 build-id form (20 bytes for odd
 * k, 16 bytes + 4 zero bytes for even k). */
static void build_mmap2(struct rb *b, int k)
{
	bool bid = k >= 5;
	int n = k % 5;

	rb_header(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_KERNEL | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	rb_u32(b, 0x3000 + k);
	rb_u32(b, 0x4000 + k);
	rb_u64(b, 0x55aa00001000ULL + k);
	rb_u64(b, 0x3000 + k);
	rb_u64(b, 0x0102030405060708ULL + k);
	if (!bid) {
		rb_u32(b, 0x103 + k);       /* maj */
		rb_u32(b, 0x204 + k);       /* min */
		rb_u64(b, 0xa1a2a3a4a5a6a7a8ULL + k); /* ino */
		rb_u64(b, 0xb1b2b3b4b5b6b7b8ULL + k); /* ino_generation */
	} else {
		uint8_t sz = (k & 1) ? 20 : 16;

		rb_u8(b, sz);
		rb_zeros(b, 3);
		rb_bytes(b, build_id20, sz);
		rb_zeros(b, 20 - sz);
	}
	rb_u32(b, 0x5 + k);  /* prot: PROT_READ|PROT_EXEC */
	rb_u32(b, 0x2 + k);  /* flags: MAP_PRIVATE */
	rb_str(b, mmap_names[n]);
}

static void check_mmap2(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_mmap *m = &d->u.mmap;
	bool bid = k >= 5;
	int n = k % 5;
	size_t field = padded(strlen(mmap_names[n]) + 1);

	CHECKF(m->pid == 0x3000u + k && m->tid == 0x4000u + k, "%s pid/tid %#x/%#x", ctx, m->pid, m->tid);
	CHECKF(m->addr == 0x55aa00001000ULL + k, "%s addr %#" PRIx64, ctx, m->addr);
	CHECKF(m->len == 0x3000u + k, "%s len %#" PRIx64, ctx, m->len);
	CHECKF(m->pgoff == 0x0102030405060708ULL + k, "%s pgoff %#" PRIx64, ctx, m->pgoff);
	CHECKF(m->has_build_id == bid, "%s has_build_id %d", ctx, m->has_build_id);
	CHECK(perfring_misc_mmap_build_id(d->misc) == bid);
	if (!bid) {
		CHECKF(m->maj == 0x103u + k && m->min == 0x204u + k, "%s maj/min %#x/%#x", ctx, m->maj, m->min);
		CHECKF(m->ino == 0xa1a2a3a4a5a6a7a8ULL + k, "%s ino %#" PRIx64, ctx, m->ino);
		CHECKF(m->ino_generation == 0xb1b2b3b4b5b6b7b8ULL + k, "%s ino_generation %#" PRIx64, ctx,
		       m->ino_generation);
	} else {
		uint8_t sz = (k & 1) ? 20 : 16;
		uint8_t want[20] = { 0 };

		memcpy(want, build_id20, sz);
		CHECKF(m->build_id_size == sz, "%s build_id_size %u", ctx, m->build_id_size);
		CHECKF(memcmp(m->build_id, want, 20) == 0, "%s build_id bytes differ (swapped?)", ctx);
		CHECKF(m->build_id_reserved[0] == 0 && m->build_id_reserved[1] == 0 && m->build_id_reserved[2] == 0,
		       "%s build_id_reserved", ctx);
	}
	CHECKF(m->prot == 0x5u + k && m->flags == 0x2u + k, "%s prot/flags %#x/%#x", ctx, m->prot, m->flags);
	CHECKF(m->filename == (const char *)rec + 72, "%s filename at %td", ctx, m->filename - (const char *)rec);
	CHECKF(m->filename && strcmp(m->filename, mmap_names[n]) == 0, "%s filename '%s'", ctx,
	       m->filename ? m->filename : "(null)");
	CHECKF(m->filename_field.data == rec + 72 && m->filename_field.len == field,
	       "%s filename_field %td/%" PRIu64 " != 72/%zu", ctx, (const uint8_t *)m->filename_field.data - rec,
	       m->filename_field.len, field);
}

TEST(record_mmap2_inode_and_build_id)
{
	const struct type_case tc = { "MMAP2", PERF_RECORD_MMAP2, 0, 10, build_mmap2, check_mmap2 };

	run_type(&tc, 0);
}

/*
 * The build-id bit of MMAP2 against the event's attr (issue 27, point 7):
 * the kernel leaves PERF_RECORD_MISC_MMAP_BUILD_ID, set for an event that
 * asked for build ids, on the same mapping's records of the events it
 * delivers next, whose bytes stay maj/min/ino. A config from an attr without
 * build_id decodes those as inode data (maj 254: refused as a build id of
 * 254 bytes before; maj 0 as on tmpfs: a wrong build id of 0 bytes before),
 * and encodes them back to the same bytes; a config from an attr with
 * build_id, or set by hand (no_build_id false), follows the bit.
 */
static const uint8_t *mmap2_leaked(struct rb *b, bool swapped, uint16_t misc, uint32_t maj, uint16_t *size)
{
	rb_init(b, swapped);
	rb_header(b, PERF_RECORD_MMAP2, misc);
	rb_u32(b, 77);
	rb_u32(b, 78);
	rb_u64(b, 0x7f0000001000ULL);
	rb_u64(b, 0x2000);
	rb_u64(b, 0);
	rb_u32(b, maj);
	rb_u32(b, 3);                    /* min */
	rb_u64(b, 0x1122334455667788ULL); /* ino */
	rb_u64(b, 9);                    /* ino_generation */
	rb_u32(b, 5);
	rb_u32(b, 2);
	rb_str(b, "/dev/shm/lib.so");
	*size = rb_finish(b);
	return rb_exact(b);
}

TEST(record_mmap2_build_id_bit_follows_the_attr)
{
	static const uint32_t majs[] = { 254, 0, 8 };
	static struct rb b;
	static uint8_t enc[512];
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	const uint16_t misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	size_t i;
	int sw, asked;

	for (sw = 0; sw < 2; sw++)
		for (i = 0; i < NELEM(majs); i++)
			for (asked = 0; asked < 2; asked++) {
				uint16_t size;
				const uint8_t *rec = mmap2_leaked(&b, sw, misc, majs[i], &size);
				int ret;

				memset(&attr, 0, sizeof(attr));
				attr.size = sizeof(attr);
				attr.mmap2 = 1;
				attr.build_id = asked;
				REQUIRE(perfring_parse_config_init(&cfg, &attr, sw) == 0);
				CHECK(cfg.no_build_id == !asked);
				ret = perfring_record_parse(&cfg, rec, size, &d);
				if (asked) {
					/* The bit is true for an event that asked: the size byte is maj's
					 * low byte, 254 refused, 0 and 8 read as (bogus) build ids. */
					CHECKF(ret == (majs[i] > 20 && !sw ? -PERFRING_EBADREC : 0) || sw,
					       "maj %u asked: ret %d", majs[i], ret);
					if (ret == 0)
						CHECK(d.u.mmap.has_build_id);
					continue;
				}
				CHECKF(ret == 0, "maj %u swapped %d: ret %d (%s): %s", majs[i], sw, ret,
				       ret ? d.error_field : "", perfring_errmsg());
				if (ret)
					continue;
				CHECK(!d.u.mmap.has_build_id && d.misc == misc);
				CHECKF(d.u.mmap.maj == majs[i] && d.u.mmap.min == 3 &&
					       d.u.mmap.ino == 0x1122334455667788ULL && d.u.mmap.ino_generation == 9,
				       "maj %u: decoded %u:%u ino %#" PRIx64, majs[i], d.u.mmap.maj, d.u.mmap.min,
				       d.u.mmap.ino);
				CHECK(d.u.mmap.filename && strcmp(d.u.mmap.filename, "/dev/shm/lib.so") == 0);
				CHECK(d.u.mmap.prot == 5 && d.u.mmap.flags == 2);
				CHECKF(perfring_record_encode(&cfg, &d, enc, sizeof(enc)) == size && !memcmp(enc, rec, size),
				       "maj %u swapped %d: encode(decode) differs: %s", majs[i], sw, perfring_errmsg());
			}

	/* A config set by hand knows no attr: the bit decides, as before. */
	memset(&cfg, 0, sizeof(cfg));
	REQUIRE(perfring_parse_config_finish(&cfg) == 0);
	{
		uint16_t size;
		const uint8_t *rec = mmap2_leaked(&b, false, misc, 0, &size);

		CHECK(perfring_record_parse(&cfg, rec, size, &d) == 0 && d.u.mmap.has_build_id);
		/* The encoder wants the layout the config decodes: an inode form under
		 * the bit is refused by a config that follows the bit. */
		d.u.mmap.has_build_id = false;
		CHECK(perfring_record_encode(&cfg, &d, enc, sizeof(enc)) < 0);
	}
}

/* ---- LOST, LOST_SAMPLES, AUX_OUTPUT_HW_ID --------------------------------- */

static void build_lost(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_LOST, 0);
	rb_u64(b, 0x0a0b0c0d0e0f1011ULL + k);
	rb_u64(b, k ? 0xfedcba9876543210ULL : 1);
}

static void check_lost(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(d->u.lost.id == 0x0a0b0c0d0e0f1011ULL + k, "%s id %#" PRIx64, ctx, d->u.lost.id);
	CHECKF(d->u.lost.lost == (k ? 0xfedcba9876543210ULL : 1), "%s lost %#" PRIx64, ctx, d->u.lost.lost);
}

TEST(record_lost)
{
	const struct type_case tc = { "LOST", PERF_RECORD_LOST, 0, 2, build_lost, check_lost };

	run_type(&tc, 0);
}

static void build_lost_samples(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_LOST_SAMPLES, 0);
	rb_u64(b, 0x8000000000000001ULL + k);
}

static void check_lost_samples(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(d->u.lost_samples.lost == 0x8000000000000001ULL + k, "%s lost %#" PRIx64, ctx,
	       d->u.lost_samples.lost);
}

TEST(record_lost_samples)
{
	const struct type_case tc = { "LOST_SAMPLES", PERF_RECORD_LOST_SAMPLES, 0, 1, build_lost_samples,
				      check_lost_samples };

	run_type(&tc, 0);
}

static void build_hw_id(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_AUX_OUTPUT_HW_ID, 0);
	rb_u64(b, 0x1234567890abcdefULL);
}

static void check_hw_id(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(d->u.aux_output_hw_id.hw_id == 0x1234567890abcdefULL, "%s hw_id %#" PRIx64, ctx,
	       d->u.aux_output_hw_id.hw_id);
}

TEST(record_aux_output_hw_id)
{
	const struct type_case tc = { "AUX_OUTPUT_HW_ID", PERF_RECORD_AUX_OUTPUT_HW_ID, 0, 1, build_hw_id,
				      check_hw_id };

	run_type(&tc, 0);
}

/* ---- COMM ------------------------------------------------------------------ */

static const char *const comms[] = { "bash", "0123456789abcde", "perf-exec", "", "1234567" };

static void build_comm(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_COMM, PERF_RECORD_MISC_USER | (k & 1 ? PERF_RECORD_MISC_COMM_EXEC : 0));
	rb_u32(b, 4242 + k);
	rb_u32(b, 0x10004243 + k);
	rb_str(b, comms[k]);
}

static void check_comm(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_comm *c = &d->u.comm;

	CHECKF(c->pid == 4242u + k && c->tid == 0x10004243u + k, "%s pid/tid %u/%#x", ctx, c->pid, c->tid);
	CHECKF(c->comm == (const char *)rec + 16 && strcmp(c->comm, comms[k]) == 0, "%s comm '%s' at %td", ctx,
	       c->comm ? c->comm : "(null)", c->comm - (const char *)rec);
	CHECKF(c->comm_field.data == rec + 16 && c->comm_field.len == padded(strlen(comms[k]) + 1),
	       "%s comm_field %td/%" PRIu64, ctx, (const uint8_t *)c->comm_field.data - rec, c->comm_field.len);
	CHECK(perfring_misc_comm_exec(d->misc) == (k & 1));
}

TEST(record_comm)
{
	const struct type_case tc = { "COMM", PERF_RECORD_COMM, 0, NELEM(comms), build_comm, check_comm };

	run_type(&tc, 0);
}

/* ---- EXIT, FORK ------------------------------------------------------------ */

static void build_fork_exit(struct rb *b, uint32_t type, int k)
{
	rb_header(b, type, k ? PERF_RECORD_MISC_FORK_EXEC : 0);
	rb_u32(b, 0x100 + k);
	rb_u32(b, 0x200 + k);
	rb_u32(b, 0x300 + k);
	rb_u32(b, 0x400 + k);
	rb_u64(b, 0x0123456789abcdefULL + k);
}

static void build_exit(struct rb *b, int k) { build_fork_exit(b, PERF_RECORD_EXIT, k); }
static void build_fork(struct rb *b, int k) { build_fork_exit(b, PERF_RECORD_FORK, k); }

static void check_fork_exit(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_fork_exit *f = &d->u.fork_exit;

	CHECKF(f->pid == 0x100u + k && f->ppid == 0x200u + k && f->tid == 0x300u + k && f->ptid == 0x400u + k,
	       "%s pid/ppid/tid/ptid %#x/%#x/%#x/%#x", ctx, f->pid, f->ppid, f->tid, f->ptid);
	CHECKF(f->time == 0x0123456789abcdefULL + k, "%s time %#" PRIx64, ctx, f->time);
	if (d->type == PERF_RECORD_FORK)
		CHECK(perfring_misc_fork_exec(d->misc) == (k != 0));
}

TEST(record_exit_fork)
{
	const struct type_case ex = { "EXIT", PERF_RECORD_EXIT, 0, 1, build_exit, check_fork_exit };
	const struct type_case fk = { "FORK", PERF_RECORD_FORK, 0, 2, build_fork, check_fork_exit };

	run_type(&ex, 0);
	run_type(&fk, 0);
}

/* ---- THROTTLE, UNTHROTTLE ------------------------------------------------- */

static void build_throttle_type(struct rb *b, uint32_t type)
{
	rb_header(b, type, 0);
	rb_u64(b, 0x1111222233334444ULL);
	rb_u64(b, 0x5555666677778888ULL);
	rb_u64(b, 0x99990000aaaabbbbULL);
}

static void build_throttle(struct rb *b, int k) { build_throttle_type(b, PERF_RECORD_THROTTLE); }
static void build_unthrottle(struct rb *b, int k) { build_throttle_type(b, PERF_RECORD_UNTHROTTLE); }

static void check_throttle(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_throttle *t = &d->u.throttle;

	CHECKF(t->time == 0x1111222233334444ULL && t->id == 0x5555666677778888ULL &&
		       t->stream_id == 0x99990000aaaabbbbULL,
	       "%s time/id/stream_id %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64, ctx, t->time, t->id, t->stream_id);
}

TEST(record_throttle_unthrottle)
{
	const struct type_case th = { "THROTTLE", PERF_RECORD_THROTTLE, 0, 1, build_throttle, check_throttle };
	const struct type_case un = { "UNTHROTTLE", PERF_RECORD_UNTHROTTLE, 0, 1, build_unthrottle,
				      check_throttle };

	run_type(&th, 0);
	run_type(&un, 0);
}

/* ---- READ (full read_format coverage is in record_sample.c) ----------------- */

static void build_read_plain(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_READ, 0);
	rb_u32(b, 77);
	rb_u32(b, 78);
	rb_u64(b, 0x1000000000000001ULL); /* value */
	rb_u64(b, 0x2000000000000002ULL); /* time_enabled */
	rb_u64(b, 0x3000000000000003ULL); /* time_running */
	rb_u64(b, 0x4000000000000004ULL); /* id */
	rb_u64(b, 0x5000000000000005ULL); /* lost */
}

static void check_read_plain(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_read *r = &d->u.read;
	struct perfring_read_value v = { 0, 0, 0 };

	CHECKF(r->pid == 77 && r->tid == 78, "%s pid/tid %u/%u", ctx, r->pid, r->tid);
	CHECKF(r->values.nr == 1, "%s nr %" PRIu64, ctx, r->values.nr);
	CHECKF(r->values.time_enabled == 0x2000000000000002ULL && r->values.time_running == 0x3000000000000003ULL,
	       "%s times %#" PRIx64 "/%#" PRIx64, ctx, r->values.time_enabled, r->values.time_running);
	perfring_read_value_at(&r->values, 0, &v);
	CHECKF(v.value == 0x1000000000000001ULL && v.id == 0x4000000000000004ULL && v.lost == 0x5000000000000005ULL,
	       "%s value/id/lost %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64, ctx, v.value, v.id, v.lost);
}

#define ALL_FORMAT                                                                           \
	(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | \
	 PERF_FORMAT_LOST)

static void build_read_group(struct rb *b, int k)
{
	uint64_t i;

	rb_header(b, PERF_RECORD_READ, 0);
	rb_u32(b, 88);
	rb_u32(b, 89);
	rb_u64(b, 3); /* nr */
	rb_u64(b, 0xe0e0e0e0e0e0e0e0ULL);
	rb_u64(b, 0xd0d0d0d0d0d0d0d0ULL);
	for (i = 0; i < 3; i++) {
		rb_u64(b, 0x1100000000000000ULL + i);
		rb_u64(b, 0x2200000000000000ULL + i);
		rb_u64(b, 0x3300000000000000ULL + i);
	}
}

static void check_read_group(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_read *r = &d->u.read;
	uint64_t i;

	CHECKF(r->pid == 88 && r->tid == 89, "%s pid/tid %u/%u", ctx, r->pid, r->tid);
	CHECKF(r->values.format == (ALL_FORMAT | PERF_FORMAT_GROUP), "%s format %#" PRIx64, ctx, r->values.format);
	CHECKF(r->values.time_enabled == 0xe0e0e0e0e0e0e0e0ULL && r->values.time_running == 0xd0d0d0d0d0d0d0d0ULL,
	       "%s times", ctx);
	REQUIREF(r->values.nr == 3, "%s nr %" PRIu64, ctx, r->values.nr);
	CHECKF(r->values.stride == 24, "%s stride %u", ctx, r->values.stride);
	for (i = 0; i < 3; i++) {
		struct perfring_read_value v = { 0, 0, 0 };

		perfring_read_value_at(&r->values, i, &v);
		CHECKF(v.value == 0x1100000000000000ULL + i && v.id == 0x2200000000000000ULL + i &&
			       v.lost == 0x3300000000000000ULL + i,
		       "%s entry %" PRIu64 ": %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64, ctx, i, v.value, v.id, v.lost);
	}
}

TEST(record_read_with_and_without_group)
{
	const struct type_case plain = { "READ", PERF_RECORD_READ, ALL_FORMAT, 1, build_read_plain,
					 check_read_plain };
	const struct type_case group = { "READ group", PERF_RECORD_READ, ALL_FORMAT | PERF_FORMAT_GROUP, 1,
					 build_read_group, check_read_group };

	run_type(&plain, 0);
	run_type(&group, 0);
}

/* ---- AUX, ITRACE_START -------------------------------------------------------- */

static void build_aux(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_AUX, 0);
	rb_u64(b, 0x0000100000002000ULL);
	rb_u64(b, 0x30000 + k);
	rb_u64(b, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL | 0x0100);
}

static void check_aux(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_aux *a = &d->u.aux;

	CHECKF(a->aux_offset == 0x0000100000002000ULL && a->aux_size == 0x30000u + k &&
		       a->flags == (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL | 0x0100),
	       "%s offset/size/flags %#" PRIx64 "/%#" PRIx64 "/%#" PRIx64, ctx, a->aux_offset, a->aux_size,
	       a->flags);
}

TEST(record_aux)
{
	const struct type_case tc = { "AUX", PERF_RECORD_AUX, 0, 1, build_aux, check_aux };

	run_type(&tc, 0);
}

static void build_itrace(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_ITRACE_START, 0);
	rb_u32(b, 0xcafe);
	rb_u32(b, 0xbeef0001);
}

static void check_itrace(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(d->u.itrace_start.pid == 0xcafe && d->u.itrace_start.tid == 0xbeef0001, "%s pid/tid %#x/%#x", ctx,
	       d->u.itrace_start.pid, d->u.itrace_start.tid);
}

TEST(record_itrace_start)
{
	const struct type_case tc = { "ITRACE_START", PERF_RECORD_ITRACE_START, 0, 1, build_itrace, check_itrace };

	run_type(&tc, 0);
}

/* ---- SWITCH (no body), SWITCH_CPU_WIDE ---------------------------------------- */

static const uint16_t switch_misc[] = {
	0,
	PERF_RECORD_MISC_SWITCH_OUT,
	PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT,
};

static void build_switch(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_SWITCH, switch_misc[k] | PERF_RECORD_MISC_USER);
}

static void check_switch(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(perfring_misc_switch_out(d->misc) == (k >= 1), "%s switch_out", ctx);
	CHECKF(perfring_misc_switch_out_preempt(d->misc) == (k == 2), "%s switch_out_preempt", ctx);
}

TEST(record_switch_no_body)
{
	const struct type_case tc = { "SWITCH", PERF_RECORD_SWITCH, 0, NELEM(switch_misc), build_switch,
				      check_switch };
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	static struct rb b;

	run_type(&tc, 0);

	/* Without sample_id_all, a SWITCH is only its header: 8 bytes. */
	REQUIRE(rb_config(&cfg, RB_TRAILER_BITS, 0, false, false) == 0);
	rb_init(&b, false);
	build_switch(&b, 1);
	CHECK_EQ_INT(rb_finish(&b), 8);
	CHECK_EQ_INT(perfring_record_parse(&cfg, rb_exact(&b), 8, &d), 0);
	CHECK_EQ_INT(d.size, 8);
	CHECK_EQ_U64(d.sample_id.present, 0);
}

static void build_switch_cpu_wide(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_SWITCH_CPU_WIDE, switch_misc[k]);
	rb_u32(b, 0x11110000 + k);
	rb_u32(b, 0x22220000 + k);
}

static void check_switch_cpu_wide(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	CHECKF(d->u.switch_cpu_wide.next_prev_pid == 0x11110000u + k &&
		       d->u.switch_cpu_wide.next_prev_tid == 0x22220000u + k,
	       "%s next_prev pid/tid %#x/%#x", ctx, d->u.switch_cpu_wide.next_prev_pid,
	       d->u.switch_cpu_wide.next_prev_tid);
	check_switch(d, rec, k, ctx);
}

TEST(record_switch_cpu_wide)
{
	const struct type_case tc = { "SWITCH_CPU_WIDE", PERF_RECORD_SWITCH_CPU_WIDE, 0, NELEM(switch_misc),
				      build_switch_cpu_wide, check_switch_cpu_wide };

	run_type(&tc, 0);
}

/* ---- NAMESPACES ------------------------------------------------------------------ */

static const uint64_t ns_counts[] = { 7, 0, 1, 3 };

static void build_namespaces(struct rb *b, int k)
{
	uint64_t i;

	rb_header(b, PERF_RECORD_NAMESPACES, 0);
	rb_u32(b, 600 + k);
	rb_u32(b, 601 + k);
	rb_u64(b, ns_counts[k]);
	for (i = 0; i < ns_counts[k]; i++) {
		rb_u64(b, 0x0d00000000000000ULL + i);  /* dev */
		rb_u64(b, 0x00000000f0000000ULL + i);  /* inode */
	}
}

static void check_namespaces(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_namespaces *n = &d->u.namespaces;
	struct perfring_u64_array a;
	uint64_t i;

	CHECKF(n->pid == 600u + k && n->tid == 601u + k, "%s pid/tid %u/%u", ctx, n->pid, n->tid);
	REQUIREF(n->nr == ns_counts[k], "%s nr %" PRIu64, ctx, n->nr);
	CHECKF(n->nr == 0 || n->entries == rec + 24, "%s entries at %td", ctx, (const uint8_t *)n->entries - rec);
	CHECKF(n->swapped == cur_swapped, "%s swapped flag", ctx);
	a.data = n->entries;
	a.nr = n->nr * 2;
	a.swapped = n->swapped;
	for (i = 0; i < n->nr; i++)
		CHECKF(perfring_u64_at(&a, 2 * i) == 0x0d00000000000000ULL + i &&
			       perfring_u64_at(&a, 2 * i + 1) == 0x00000000f0000000ULL + i,
		       "%s entry %" PRIu64, ctx, i);
}

TEST(record_namespaces)
{
	const struct type_case tc = { "NAMESPACES", PERF_RECORD_NAMESPACES, 0, NELEM(ns_counts), build_namespaces,
				      check_namespaces };

	run_type(&tc, 0);
}

/* ---- KSYMBOL, BPF_EVENT, CGROUP --------------------------------------------------- */

static const char *const ksym_names[] = { "bpf_prog_6deef7357e7b4530_sys_enter", "x", "1234567" };

static void build_ksymbol(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_KSYMBOL, PERF_RECORD_MISC_KERNEL);
	rb_u64(b, 0xffffffffc0001000ULL + k);
	rb_u32(b, 0x1a2 + k);
	rb_u16(b, PERF_RECORD_KSYMBOL_TYPE_BPF);
	rb_u16(b, k == 1 ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0);
	rb_str(b, ksym_names[k]);
}

static void check_ksymbol(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_ksymbol *s = &d->u.ksymbol;

	CHECKF(s->addr == 0xffffffffc0001000ULL + k && s->len == 0x1a2u + k, "%s addr/len %#" PRIx64 "/%#x", ctx,
	       s->addr, s->len);
	CHECKF(s->ksym_type == PERF_RECORD_KSYMBOL_TYPE_BPF &&
		       s->flags == (k == 1 ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0),
	       "%s type/flags %u/%u", ctx, s->ksym_type, s->flags);
	CHECKF(s->name == (const char *)rec + 24 && strcmp(s->name, ksym_names[k]) == 0, "%s name '%s'", ctx,
	       s->name ? s->name : "(null)");
	CHECKF(s->name_field.data == rec + 24 && s->name_field.len == padded(strlen(ksym_names[k]) + 1),
	       "%s name_field len %" PRIu64, ctx, s->name_field.len);
}

TEST(record_ksymbol)
{
	const struct type_case tc = { "KSYMBOL", PERF_RECORD_KSYMBOL, 0, NELEM(ksym_names), build_ksymbol,
				      check_ksymbol };

	run_type(&tc, 0);
}

static const uint8_t bpf_tag[8] = { 0x6d, 0xee, 0xf7, 0x35, 0x7e, 0x7b, 0x45, 0x30 };

static void build_bpf_event(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_BPF_EVENT, 0);
	rb_u16(b, k ? PERF_BPF_EVENT_PROG_UNLOAD : PERF_BPF_EVENT_PROG_LOAD);
	rb_u16(b, 0x8001);
	rb_u32(b, 0x00010203 + k);
	rb_bytes(b, bpf_tag, 8);
}

static void check_bpf_event(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_bpf_event *e = &d->u.bpf_event;

	CHECKF(e->type == (k ? PERF_BPF_EVENT_PROG_UNLOAD : PERF_BPF_EVENT_PROG_LOAD) && e->flags == 0x8001 &&
		       e->id == 0x00010203u + k,
	       "%s type/flags/id %u/%#x/%#x", ctx, e->type, e->flags, e->id);
	CHECKF(memcmp(e->tag, bpf_tag, 8) == 0, "%s tag bytes differ (a tag is bytes, never swapped)", ctx);
}

TEST(record_bpf_event)
{
	const struct type_case tc = { "BPF_EVENT", PERF_RECORD_BPF_EVENT, 0, 2, build_bpf_event, check_bpf_event };

	run_type(&tc, 0);
}

static const char *const cgroup_paths[] = { "/system.slice/ssh.service", "/", "/user.slice/a" };

static void build_cgroup(struct rb *b, int k)
{
	rb_header(b, PERF_RECORD_CGROUP, 0);
	rb_u64(b, 0x0000000100000abcULL + k);
	rb_str(b, cgroup_paths[k]);
}

static void check_cgroup(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_cgroup *c = &d->u.cgroup;

	CHECKF(c->id == 0x0000000100000abcULL + k, "%s id %#" PRIx64, ctx, c->id);
	CHECKF(c->path == (const char *)rec + 16 && strcmp(c->path, cgroup_paths[k]) == 0, "%s path '%s'", ctx,
	       c->path ? c->path : "(null)");
	CHECKF(c->path_field.data == rec + 16 && c->path_field.len == padded(strlen(cgroup_paths[k]) + 1),
	       "%s path_field len %" PRIu64, ctx, c->path_field.len);
}

TEST(record_cgroup)
{
	const struct type_case tc = { "CGROUP", PERF_RECORD_CGROUP, 0, NELEM(cgroup_paths), build_cgroup,
				      check_cgroup };

	run_type(&tc, 0);
}

/* ---- TEXT_POKE: odd old/new lengths --------------------------------------------- */

static const uint16_t poke_lens[][2] = { { 3, 5 }, { 1, 0 }, { 0, 1 }, { 7, 2 }, { 5, 5 }, { 0, 0 }, { 1, 11 } };

static void build_text_poke(struct rb *b, int k)
{
	uint16_t o = poke_lens[k][0], n = poke_lens[k][1], i;

	rb_header(b, PERF_RECORD_TEXT_POKE, PERF_RECORD_MISC_KERNEL);
	rb_u64(b, 0xffffffff81000000ULL + k);
	rb_u16(b, o);
	rb_u16(b, n);
	for (i = 0; i < o; i++)
		rb_u8(b, (uint8_t)(0x90 + i));
	for (i = 0; i < n; i++)
		rb_u8(b, (uint8_t)(0xe8 + i));
	rb_pad8(b);
}

static void check_text_poke(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_text_poke *t = &d->u.text_poke;
	uint16_t o = poke_lens[k][0], n = poke_lens[k][1], i;
	size_t field = padded(20 + o + n) - 20;

	CHECKF(t->addr == 0xffffffff81000000ULL + k, "%s addr %#" PRIx64, ctx, t->addr);
	REQUIREF(t->old_len == o && t->new_len == n, "%s old/new len %u/%u", ctx, t->old_len, t->new_len);
	CHECKF(t->bytes == rec + 20, "%s bytes at %td", ctx, t->bytes - rec);
	CHECKF(t->field.data == rec + 20 && t->field.len == field, "%s field at %td len %" PRIu64 " != %zu", ctx,
	       (const uint8_t *)t->field.data - rec, t->field.len, field);
	for (i = 0; i < o; i++)
		CHECKF(t->bytes[i] == 0x90 + i, "%s old byte %u", ctx, i);
	for (i = 0; i < n; i++)
		CHECKF(t->bytes[o + i] == 0xe8 + i, "%s new byte %u", ctx, i);
}

TEST(record_text_poke_odd_lengths)
{
	const struct type_case tc = { "TEXT_POKE", PERF_RECORD_TEXT_POKE, 0, NELEM(poke_lens), build_text_poke,
				      check_text_poke };

	run_type(&tc, 0);
}

/* ---- CALLCHAIN_DEFERRED (22) ------------------------------------------------------ */

static const uint64_t deferred_ips[] = { PERF_CONTEXT_USER, 0x00005555deadbeefULL, 0x00007fff00001234ULL,
					 0x0000000000401000ULL };

static void build_deferred(struct rb *b, int k)
{
	uint64_t i, nr = k ? NELEM(deferred_ips) : 0;

	rb_header(b, PERF_RECORD_CALLCHAIN_DEFERRED, PERF_RECORD_MISC_USER);
	rb_u64(b, 0xc00c1e0000000001ULL + k);
	rb_u64(b, nr);
	for (i = 0; i < nr; i++)
		rb_u64(b, deferred_ips[i]);
}

static void check_deferred(const struct perfring_decoded *d, const uint8_t *rec, int k, const char *ctx)
{
	const struct perfring_rec_callchain_deferred *c = &d->u.callchain_deferred;
	uint64_t i, nr = k ? NELEM(deferred_ips) : 0;

	CHECKF(c->cookie == 0xc00c1e0000000001ULL + k, "%s cookie %#" PRIx64, ctx, c->cookie);
	REQUIREF(c->ips.nr == nr, "%s nr %" PRIu64, ctx, c->ips.nr);
	CHECKF(nr == 0 || c->ips.data == rec + 24, "%s ips at %td", ctx, (const uint8_t *)c->ips.data - rec);
	for (i = 0; i < nr; i++)
		CHECKF(perfring_u64_at(&c->ips, i) == deferred_ips[i], "%s ip %" PRIu64 " = %#" PRIx64, ctx, i,
		       perfring_u64_at(&c->ips, i));
}

TEST(record_callchain_deferred)
{
	const struct type_case tc = { "CALLCHAIN_DEFERRED", PERF_RECORD_CALLCHAIN_DEFERRED, 0, 2, build_deferred,
				      check_deferred };

	run_type(&tc, 0);
}

/* ---- unknown types: raw bytes, no error ------------------------------------------ */

TEST(record_unknown_types_are_raw)
{
	static const uint32_t types[] = { 0, 23, 24, 63, 64, 65, 68, 81, 200, 0xffff, 0x10000, 0xffffffffu };
	static struct rb b;
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	size_t vi, ti, body;

	for (vi = 0; vi < NELEM(variants); vi++) {
		const struct variant *v = &variants[vi];

		REQUIRE(rb_config(&cfg, RB_TRAILER_BITS, 0, v->sid_all, v->swapped) == 0);
		for (ti = 0; ti < NELEM(types); ti++) {
			for (body = 0; body <= 40; body += 8) {
				const uint8_t *rec;
				uint16_t size;
				int ret;

				rb_init(&b, v->swapped);
				rb_header(&b, types[ti], 0x4005);
				rb_fill(&b, 0xee, body);
				size = rb_finish(&b);
				rec = rb_exact(&b);
				memset(&d, 0x5a, sizeof(d));
				ret = perfring_record_parse(&cfg, rec, size, &d);
				CHECKF(ret == 0, "type %#x body %zu swapped=%d: returned %d (%s)", types[ti], body,
				       v->swapped, ret, perfring_errmsg());
				if (ret)
					continue;
				CHECKF(d.kind == PERFRING_REC_UNKNOWN, "type %#x: kind %d", types[ti], (int)d.kind);
				CHECKF(d.type == types[ti] && d.misc == 0x4005 && d.size == size,
				       "type %#x swapped=%d: header %#x/%#x/%u", types[ti], v->swapped, d.type, d.misc,
				       d.size);
				CHECKF(d.raw == rec && d.raw_len == size, "type %#x: raw view", types[ti]);
				CHECKF(d.error_field == NULL, "type %#x: error_field set", types[ti]);
				CHECKF(d.sample_id.present == 0, "type %#x: a trailer decoded from an unknown type",
				       types[ti]);
			}
		}
	}
}

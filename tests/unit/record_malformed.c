// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoder on malformed and hostile input, in both byte orders: bad
 * header sizes, records too short for a fixed field or with bytes left over,
 * strings without their NUL, every count larger than the bytes left
 * (including counts whose byte size overflows a u64 multiplication to a
 * small number), sizes of RAW, STACK_USER and AUX beyond the record,
 * registers missing. Each must give -PERFRING_ETRUNC or -PERFRING_EBADREC
 * with the offending field in error_field (the decoder's names, asserted
 * exactly), its offset, and a message naming it. Then truncations and byte
 * mutations of valid records: any result but a crash or an out-of-bounds
 * read (every record is parsed from an allocation of exactly its length;
 * make check runs this under ASan and UBSan).
 */
#include <errno.h>
#include <stdio.h>

#include "harness.h"
#include "recbuild.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define ANY_OFFSET ((size_t)-1)

static struct rb B;

/* A config with everything a malformed case may need. */
struct mcfg {
	uint64_t sample_type, read_format, branch_type, regs_user, regs_intr;
	bool sid_all;
};

static int mk_cfg(struct perfring_parse_config *cfg, const struct mcfg *m, bool swapped)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sample_type = m->sample_type;
	attr.read_format = m->read_format;
	attr.branch_sample_type = m->branch_type;
	attr.sample_regs_user = m->regs_user;
	attr.sample_regs_intr = m->regs_intr;
	attr.sample_id_all = m->sid_all;
	attr.build_id = 1; /* MMAP2 in either form, by its misc bit */
	return perfring_parse_config_init(cfg, &attr, swapped);
}

/*
 * Parse the first len bytes of B (header.size as built) and expect err with
 * field at offset (ANY_OFFSET: not checked).
 */
static void expect_len(const struct mcfg *m, size_t len, int err, const char *field, size_t offset,
		       const char *what)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	struct perfring_sample_id sid;
	const uint8_t *rec;
	const char *msg;
	int ret;

	REQUIREF(mk_cfg(&cfg, m, B.swapped) == 0, "%s: config: %s", what, perfring_errmsg());
	rec = rb_exact_n(&B, len);
	memset(&d, 0x5a, sizeof(d));
	ret = perfring_record_parse(&cfg, rec, len, &d);
	msg = perfring_errmsg();
	CHECKF(ret == -err, "%s [swapped=%d]: returned %d, expected -%s (%d); field %s", what, B.swapped, ret,
	       err == PERFRING_ETRUNC ? "PERFRING_ETRUNC" : "PERFRING_EBADREC", -err,
	       ret && d.error_field ? d.error_field : "(none)");
	if (ret == 0)
		return;
	CHECKF(d.error_field && strcmp(d.error_field, field) == 0, "%s [swapped=%d]: error_field '%s', expected '%s'",
	       what, B.swapped, d.error_field ? d.error_field : "(null)", field);
	if (offset != ANY_OFFSET)
		CHECKF(d.error_offset == offset, "%s [swapped=%d]: error_offset %zu, expected %zu", what, B.swapped,
		       d.error_offset, offset);
	CHECKF(msg && msg[0], "%s: empty perfring_errmsg()", what);
	CHECKF(msg && strstr(msg, field), "%s: perfring_errmsg() does not name %s: '%s'", what, field, msg);
	/* the sample_id reader must survive the same bytes */
	(void)perfring_record_sample_id(&cfg, rec, len, &sid);
}

/* The whole of B (header.size = B.len unless the case changed it). */
static void expect(const struct mcfg *m, int err, const char *field, size_t offset, const char *what)
{
	expect_len(m, B.len, err, field, offset, what);
}

static void start(bool swapped, uint32_t type, uint16_t misc)
{
	rb_init(&B, swapped);
	rb_header(&B, type, misc);
}

static const struct mcfg plain = { 0, 0, 0, 0, 0, false };
static const struct mcfg trailer_all = { RB_TRAILER_BITS, 0, 0, 0, 0, true };

/* ---- header ------------------------------------------------------------------------ */

TEST(malformed_header_sizes)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	int order;
	size_t len;
	uint16_t size;

	for (order = 0; order < 2; order++) {
		/* fewer than 8 bytes given: not even a header */
		for (len = 0; len < 8; len++) {
			start(order, PERF_RECORD_LOST, 0);
			rb_u64(&B, 1);
			rb_u64(&B, 2);
			rb_finish(&B);
			expect_len(&plain, len, PERFRING_ETRUNC, "header.size", 0, "fewer than 8 bytes");
		}
		/* header.size below 8 (0 would make a reader spin) */
		for (size = 0; size < 8; size++) {
			start(order, PERF_RECORD_LOST, 0);
			rb_u64(&B, 1);
			rb_u64(&B, 2);
			rb_set_size(&B, size);
			expect(&plain, PERFRING_EBADREC, "header.size", 6, "header.size < 8");
			/* an unknown type is checked the same way */
			start(order, 0x1234, 0);
			rb_set_size(&B, size);
			expect(&plain, PERFRING_EBADREC, "header.size", 6, "unknown type, header.size < 8");
		}
		/* header.size beyond the bytes given */
		for (len = 8; len < 24; len++) {
			start(order, PERF_RECORD_LOST, 0);
			rb_u64(&B, 1);
			rb_u64(&B, 2);
			rb_finish(&B);
			expect_len(&plain, len, PERFRING_ETRUNC, "header.size", 6, "header.size > len");
		}
		start(order, 300, 0);
		rb_set_size(&B, 0xfff8);
		expect(&plain, PERFRING_ETRUNC, "header.size", 6, "unknown type, header.size > len");
	}

	/* NULL arguments */
	REQUIRE(mk_cfg(&cfg, &plain, false) == 0);
	start(false, PERF_RECORD_LOST, 0);
	rb_u64(&B, 1);
	rb_u64(&B, 2);
	rb_finish(&B);
	CHECK_EQ_INT(perfring_record_parse(NULL, rb_exact(&B), B.len, &d), -EINVAL);
	CHECK_EQ_INT(perfring_record_parse(&cfg, NULL, B.len, &d), -EINVAL);
	CHECK_EQ_INT(perfring_record_parse(&cfg, rb_exact(&B), B.len, NULL), -EINVAL);
}

/* ---- sample_id trailer ---------------------------------------------------------------- */

TEST(malformed_trailer_longer_than_record)
{
	int order;

	for (order = 0; order < 2; order++) {
		struct perfring_sample_id t = rb_trailer_values();

		/* SWITCH with 40 of the trailer's 48 bytes */
		start(order, PERF_RECORD_SWITCH, 0);
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		B.len -= 8;
		rb_finish(&B);
		expect(&trailer_all, PERFRING_ETRUNC, "sample_id", 8, "SWITCH, trailer cut");
		/* LOST: trailer whole, body one field short */
		start(order, PERF_RECORD_LOST, 0);
		rb_u64(&B, 1);
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		rb_finish(&B);
		expect(&trailer_all, PERFRING_ETRUNC, "lost.lost", 16, "LOST + trailer, body short");
	}
}

/* ---- fixed records too short ----------------------------------------------------------- */

struct short_case {
	uint32_t type;
	uint16_t misc;
	unsigned body_u64; /* u64 slots of body written */
	const char *field;
	size_t offset;
};

static const struct short_case short_cases[] = {
	{ PERF_RECORD_MMAP, 0, 2, "mmap.len", 24 },
	{ PERF_RECORD_MMAP, 0, 3, "mmap.pgoff", 32 },
	{ PERF_RECORD_MMAP2, 0, 4, "mmap.maj", 40 },
	{ PERF_RECORD_MMAP2, 0, 6, "mmap.ino_generation", 56 },
	{ PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, 4, "mmap.build_id", 40 },
	{ PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, 6, "mmap.build_id", 40 },
	{ PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, 7, "mmap.prot", 64 },
	{ PERF_RECORD_MMAP2, 0, 7, "mmap.prot", 64 },
	{ PERF_RECORD_LOST, 0, 0, "lost.id", 8 },
	{ PERF_RECORD_LOST, 0, 1, "lost.lost", 16 },
	{ PERF_RECORD_COMM, 0, 0, "comm.pid", 8 },
	{ PERF_RECORD_EXIT, 0, 1, "fork_exit.tid", 16 },
	{ PERF_RECORD_FORK, 0, 2, "fork_exit.time", 24 },
	{ PERF_RECORD_THROTTLE, 0, 2, "throttle.stream_id", 24 },
	{ PERF_RECORD_UNTHROTTLE, 0, 0, "throttle.time", 8 },
	{ PERF_RECORD_READ, 0, 1, "read.values.value", 16 },
	{ PERF_RECORD_AUX, 0, 2, "aux.flags", 24 },
	{ PERF_RECORD_ITRACE_START, 0, 0, "itrace_start.pid", 8 },
	{ PERF_RECORD_LOST_SAMPLES, 0, 0, "lost_samples.lost", 8 },
	{ PERF_RECORD_SWITCH_CPU_WIDE, 0, 0, "switch_cpu_wide.next_prev_pid", 8 },
	{ PERF_RECORD_NAMESPACES, 0, 1, "namespaces.nr", 16 },
	{ PERF_RECORD_KSYMBOL, 0, 1, "ksymbol.len", 16 },
	{ PERF_RECORD_BPF_EVENT, 0, 1, "bpf_event.tag", 16 },
	{ PERF_RECORD_CGROUP, 0, 0, "cgroup.id", 8 },
	{ PERF_RECORD_TEXT_POKE, 0, 1, "text_poke.old_len", 16 },
	{ PERF_RECORD_AUX_OUTPUT_HW_ID, 0, 0, "aux_output_hw_id.hw_id", 8 },
	{ PERF_RECORD_CALLCHAIN_DEFERRED, 0, 1, "callchain_deferred.nr", 16 },
};

TEST(malformed_fixed_records_too_short)
{
	size_t i;
	int order, sid;

	for (order = 0; order < 2; order++)
		for (sid = 0; sid < 2; sid++)
			for (i = 0; i < NELEM(short_cases); i++) {
				const struct short_case *sc = &short_cases[i];
				struct perfring_sample_id t = rb_trailer_values();
				char what[96];
				unsigned k;

				snprintf(what, sizeof(what), "%s with %u body u64s%s", perfring_record_type_name(sc->type),
					 sc->body_u64, sid ? " + trailer" : "");
				start(order, sc->type, sc->misc);
				for (k = 0; k < sc->body_u64; k++)
					rb_u64(&B, 0x0101010101010101ULL * (k + 1));
				if (sid)
					rb_trailer(&B, RB_TRAILER_BITS, &t);
				rb_finish(&B);
				expect(sid ? &trailer_all : &plain, PERFRING_ETRUNC, sc->field, sc->offset, what);
			}
}

/* ---- fixed records too long: bytes after the last field -------------------------------- */

struct long_case {
	uint32_t type;
	unsigned body_u64; /* the complete body */
	uint64_t read_format;
	const char *field;
};

static const struct long_case long_cases[] = {
	{ PERF_RECORD_LOST, 2, 0, "lost: trailing bytes" },
	{ PERF_RECORD_EXIT, 3, 0, "fork_exit: trailing bytes" },
	{ PERF_RECORD_FORK, 3, 0, "fork_exit: trailing bytes" },
	{ PERF_RECORD_THROTTLE, 3, 0, "throttle: trailing bytes" },
	{ PERF_RECORD_UNTHROTTLE, 3, 0, "throttle: trailing bytes" },
	{ PERF_RECORD_READ, 2, 0, "read: trailing bytes" },
	{ PERF_RECORD_READ, 4, PERF_FORMAT_GROUP, "read: trailing bytes" }, /* nr 2, 2 values */
	{ PERF_RECORD_AUX, 3, 0, "aux: trailing bytes" },
	{ PERF_RECORD_ITRACE_START, 1, 0, "itrace_start: trailing bytes" },
	{ PERF_RECORD_LOST_SAMPLES, 1, 0, "lost_samples: trailing bytes" },
	{ PERF_RECORD_SWITCH, 0, 0, "switch: trailing bytes" },
	{ PERF_RECORD_SWITCH_CPU_WIDE, 1, 0, "switch_cpu_wide: trailing bytes" },
	{ PERF_RECORD_NAMESPACES, 4, 0, "namespaces: trailing bytes" },
	{ PERF_RECORD_BPF_EVENT, 2, 0, "bpf_event: trailing bytes" },
	{ PERF_RECORD_AUX_OUTPUT_HW_ID, 1, 0, "aux_output_hw_id: trailing bytes" },
	{ PERF_RECORD_CALLCHAIN_DEFERRED, 3, 0, "callchain_deferred: trailing bytes" },
};

/* Slot k of a complete body: counts (NAMESPACES nr, READ group nr,
 * CALLCHAIN_DEFERRED nr) are 1, the rest filler. */
static uint64_t long_slot(const struct long_case *lc, unsigned k)
{
	if (lc->type == PERF_RECORD_NAMESPACES && k == 1)
		return 1;
	if (lc->type == PERF_RECORD_CALLCHAIN_DEFERRED && k == 1)
		return 1;
	if (lc->type == PERF_RECORD_READ && lc->read_format & PERF_FORMAT_GROUP && k == 1)
		return 2;
	return 0x0101010101010101ULL * (k + 1);
}

TEST(malformed_fixed_records_too_long)
{
	size_t i;
	int order, sid, extra;

	for (order = 0; order < 2; order++)
		for (sid = 0; sid < 2; sid++)
			for (extra = 8; extra <= 16; extra += 8)
				for (i = 0; i < NELEM(long_cases); i++) {
					const struct long_case *lc = &long_cases[i];
					struct perfring_sample_id t = rb_trailer_values();
					struct mcfg m = sid ? trailer_all : plain;
					char what[96];
					unsigned k;
					size_t body_end;

					m.read_format = lc->read_format;
					snprintf(what, sizeof(what), "%s + %d bytes%s", perfring_record_type_name(lc->type),
						 extra, sid ? " + trailer" : "");
					start(order, lc->type, 0);
					for (k = 0; k < lc->body_u64; k++)
						rb_u64(&B, long_slot(lc, k));
					body_end = B.len;
					rb_fill(&B, 0, (size_t)extra);
					if (sid)
						rb_trailer(&B, RB_TRAILER_BITS, &t);
					rb_finish(&B);
					expect(&m, PERFRING_EBADREC, lc->field, body_end, what);
				}
}

/* ---- strings without their NUL ---------------------------------------------------------- */

struct str_case {
	uint32_t type;
	unsigned fixed_u64; /* u64 slots before the string */
	const char *field;
};

static const struct str_case str_cases[] = {
	{ PERF_RECORD_MMAP, 4, "mmap.filename" },
	{ PERF_RECORD_MMAP2, 8, "mmap.filename" },
	{ PERF_RECORD_COMM, 1, "comm.comm" },
	{ PERF_RECORD_KSYMBOL, 2, "ksymbol.name" },
	{ PERF_RECORD_CGROUP, 1, "cgroup.path" },
};

TEST(malformed_strings_without_nul)
{
	size_t i;
	int order, sid, n;

	for (order = 0; order < 2; order++)
		for (sid = 0; sid < 2; sid++)
			for (i = 0; i < NELEM(str_cases); i++)
				for (n = 0; n <= 16; n += 8) {
					const struct str_case *sc = &str_cases[i];
					struct perfring_sample_id t = rb_trailer_values();
					char what[96];
					unsigned k;

					/* the trailer has zero bytes (cpu_res, small
					 * values): a NUL search that runs into it
					 * would find one */
					t.cpu_res = 0;
					snprintf(what, sizeof(what), "%s, %d string bytes, no NUL%s",
						 perfring_record_type_name(sc->type), n, sid ? " + trailer" : "");
					start(order, sc->type, 0);
					for (k = 0; k < sc->fixed_u64; k++)
						rb_u64(&B, 0x1111111111111111ULL * (k + 1));
					rb_fill(&B, 'a', (size_t)n);
					if (sid)
						rb_trailer(&B, RB_TRAILER_BITS, &t);
					rb_finish(&B);
					expect(sid ? &trailer_all : &plain, PERFRING_EBADREC, sc->field,
					       8 + 8 * sc->fixed_u64, what);
				}
}

/* header.size is authoritative: a NUL just after the record does not count. */
TEST(malformed_string_nul_only_after_header_size)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	uint8_t *buf;
	int order, ret;

	for (order = 0; order < 2; order++) {
		REQUIRE(mk_cfg(&cfg, &plain, order) == 0);
		start(order, PERF_RECORD_COMM, 0);
		rb_u32(&B, 1);
		rb_u32(&B, 2);
		rb_fill(&B, 'x', 16);
		rb_finish(&B);
		buf = calloc(1, B.len + 16);
		REQUIRE(buf);
		memcpy(buf, B.buf, B.len);
		ret = perfring_record_parse(&cfg, buf, B.len + 16, &d);
		CHECK_EQ_INT(ret, -PERFRING_EBADREC);
		CHECK(ret == 0 || (d.error_field && strcmp(d.error_field, "comm.comm") == 0));
		free(buf);
	}
}

/* ---- counts and sizes beyond the record -------------------------------------------------- */

/* A SAMPLE of sample_type st: IP, then the writer's fields. */
static void sample_start(bool swapped)
{
	start(swapped, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_u64(&B, 0x401000); /* ip */
}

/*
 * nr values that are too large: by one, and ones whose byte size wraps a
 * u64 multiplication around to exactly the bytes present (elem * nr ==
 * present mod 2^64), which a check of nr * elem <= left would accept.
 */
static void wrap_counts(uint64_t elem, uint64_t present_elems, uint64_t out[4])
{
	out[0] = present_elems + 1;
	/* 2^61 * 24 = 3 * 2^64 */
	out[1] = present_elems + (elem == 16 ? (1ULL << 60) : elem == 32 ? (1ULL << 59) : (1ULL << 61));
	out[2] = UINT64_MAX;
	out[3] = 1ULL << 63;
}

TEST(malformed_callchain_nr)
{
	const struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0, 0, 0, 0, false };
	uint64_t nrs[4];
	int order, i;

	wrap_counts(8, 2, nrs);
	for (order = 0; order < 2; order++)
		for (i = 0; i < 4; i++) {
			sample_start(order);
			rb_u64(&B, nrs[i]);
			rb_u64(&B, PERF_CONTEXT_USER);
			rb_u64(&B, 0x401234);
			rb_finish(&B);
			expect(&m, PERFRING_EBADREC, "callchain.nr", 16, "callchain.nr too large");
		}
}

TEST(malformed_callchain_deferred_nr)
{
	uint64_t nrs[4];
	int order, i;

	wrap_counts(8, 1, nrs);
	for (order = 0; order < 2; order++)
		for (i = 0; i < 4; i++) {
			start(order, PERF_RECORD_CALLCHAIN_DEFERRED, 0);
			rb_u64(&B, 0xc00c1e);
			rb_u64(&B, nrs[i]);
			rb_u64(&B, 0x401234);
			rb_finish(&B);
			expect(&plain, PERFRING_EBADREC, "callchain_deferred.nr", 16, "callchain_deferred.nr too large");
		}
}

TEST(malformed_branch_nr)
{
	struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_ANY, 0, 0, false };
	uint64_t nrs[4];
	int order, i, variant;

	for (variant = 0; variant < 3; variant++) {
		/* 0: plain entries; 1: hw_idx; 2: entries + counters (32 bytes each) */
		m.branch_type = PERF_SAMPLE_BRANCH_ANY | (variant == 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0) |
				(variant == 2 ? PERF_SAMPLE_BRANCH_COUNTERS : 0);
		wrap_counts(variant == 2 ? 32 : 24, 1, nrs);
		for (order = 0; order < 2; order++)
			for (i = 0; i < 4; i++) {
				sample_start(order);
				rb_u64(&B, nrs[i]);
				if (variant == 1)
					rb_u64(&B, 7); /* hw_idx */
				rb_u64(&B, 0xffffffff81000000ULL);
				rb_u64(&B, 0xffffffff81000100ULL);
				rb_u64(&B, 1);
				if (variant == 2)
					rb_u64(&B, 3); /* counter */
				rb_finish(&B);
				expect(&m, PERFRING_EBADREC, "branch_stack.nr", 16, "branch_stack.nr too large");
			}
	}
	/* counters asked for but missing: the entries alone do not fit nr */
	m.branch_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_COUNTERS;
	for (order = 0; order < 2; order++) {
		sample_start(order);
		rb_u64(&B, 2);
		for (i = 0; i < 6; i++)
			rb_u64(&B, 0x100 + i);
		rb_finish(&B);
		expect(&m, PERFRING_EBADREC, "branch_stack.nr", 16, "branch counters missing");
	}
	/* hw_idx missing */
	m.branch_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	for (order = 0; order < 2; order++) {
		sample_start(order);
		rb_u64(&B, 1);
		rb_finish(&B);
		expect(&m, PERFRING_ETRUNC, "branch_stack.hw_idx", 24, "hw_idx missing");
	}
}

/* GROUP read values: stride 8 (value), 16 (value, id), 24 (value, id, lost). */
TEST(malformed_read_group_nr)
{
	static const uint64_t formats[] = { PERF_FORMAT_GROUP, PERF_FORMAT_GROUP | PERF_FORMAT_ID,
					    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
						    PERF_FORMAT_TOTAL_TIME_ENABLED };
	size_t fi;
	int order, i, as_record;

	for (fi = 0; fi < NELEM(formats); fi++) {
		uint64_t f = formats[fi], stride = 8 * (1 + !!(f & PERF_FORMAT_ID) + !!(f & PERF_FORMAT_LOST));
		uint64_t nrs[4];

		wrap_counts(stride, 1, nrs);
		for (as_record = 0; as_record < 2; as_record++)
			for (order = 0; order < 2; order++)
				for (i = 0; i < 4; i++) {
					struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_READ, f, 0, 0, 0, false };
					uint64_t k;

					if (as_record) {
						start(order, PERF_RECORD_READ, 0);
						rb_u32(&B, 1);
						rb_u32(&B, 2);
					} else {
						sample_start(order);
					}
					rb_u64(&B, nrs[i]);
					if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
						rb_u64(&B, 1000);
					for (k = 0; k < stride / 8; k++)
						rb_u64(&B, 0x77 + k);
					rb_finish(&B);
					expect(&m, PERFRING_EBADREC, as_record ? "read.values.nr" : "read.nr", 16,
					       as_record ? "READ record nr too large" : "SAMPLE read.nr too large");
				}
	}
}

TEST(malformed_namespaces_nr)
{
	uint64_t nrs[4];
	int order, i;

	wrap_counts(16, 1, nrs);
	for (order = 0; order < 2; order++)
		for (i = 0; i < 4; i++) {
			start(order, PERF_RECORD_NAMESPACES, 0);
			rb_u32(&B, 1);
			rb_u32(&B, 2);
			rb_u64(&B, nrs[i]);
			rb_u64(&B, 0xdead);
			rb_u64(&B, 0xbeef);
			rb_finish(&B);
			expect(&plain, PERFRING_EBADREC, "namespaces.nr", 16, "namespaces.nr too large");
		}
}

TEST(malformed_raw_size)
{
	const struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_RAW, 0, 0, 0, 0, false };
	static const uint32_t sizes[] = { 13, 20, 0x7fffffff, 0xffffffffu };
	size_t i;
	int order;

	for (order = 0; order < 2; order++) {
		for (i = 0; i < NELEM(sizes); i++) {
			sample_start(order);
			rb_u32(&B, sizes[i]);
			rb_fill(&B, 0x61, 12); /* 12 bytes present */
			rb_finish(&B);
			expect(&m, PERFRING_EBADREC, "raw.size", 16, "raw.size too large");
		}
		/* the size itself cut */
		sample_start(order);
		rb_finish(&B);
		expect(&m, PERFRING_ETRUNC, "raw.size", 16, "raw.size missing");
	}
}

TEST(malformed_stack_user)
{
	const struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER, 0, 0, 0, 0, false };
	static const uint64_t sizes[] = { 24, 32, 1ULL << 32, UINT64_MAX - 7, UINT64_MAX };
	size_t i;
	int order;

	for (order = 0; order < 2; order++) {
		for (i = 0; i < NELEM(sizes); i++) {
			sample_start(order);
			rb_u64(&B, sizes[i]);
			rb_fill(&B, 0x62, 16); /* 16 stack bytes present */
			rb_finish(&B);
			expect(&m, PERFRING_EBADREC, "stack_user.size", 16, "stack_user.size too large");
		}
		/* size > 0: dyn_size must follow */
		sample_start(order);
		rb_u64(&B, 16);
		rb_fill(&B, 0x62, 16);
		rb_finish(&B);
		expect(&m, PERFRING_ETRUNC, "stack_user.dyn_size", 40, "stack_user.dyn_size missing");
	}
}

TEST(malformed_aux_size)
{
	const struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_AUX, 0, 0, 0, 0, false };
	static const uint64_t sizes[] = { 9, 1ULL << 40, UINT64_MAX - 7, UINT64_MAX };
	size_t i;
	int order;

	for (order = 0; order < 2; order++)
		for (i = 0; i < NELEM(sizes); i++) {
			sample_start(order);
			rb_u64(&B, sizes[i]);
			rb_fill(&B, 0x63, 8);
			rb_finish(&B);
			expect(&m, PERFRING_EBADREC, "aux.size", 16, "aux.size too large");
		}
}

/* abi != 0: popcount(mask) registers must follow. */
TEST(malformed_regs_missing)
{
	struct mcfg m = { PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER, 0, 0, 0x7, 0, false };
	int order, have;

	for (order = 0; order < 2; order++)
		for (have = 0; have < 3; have++) {
			int k;

			m.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER;
			m.regs_user = 0x7;
			sample_start(order);
			rb_u64(&B, PERF_SAMPLE_REGS_ABI_64);
			for (k = 0; k < have; k++)
				rb_u64(&B, 0x1000 + k);
			rb_finish(&B);
			expect(&m, PERFRING_ETRUNC, "regs_user.regs", 24, "regs_user: registers missing");

			m.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR;
			m.regs_intr = ~0ULL; /* 64 registers */
			sample_start(order);
			rb_u64(&B, PERF_SAMPLE_REGS_ABI_32);
			for (k = 0; k < have * 20; k++)
				rb_u64(&B, 0x2000 + k);
			rb_finish(&B);
			expect(&m, PERFRING_ETRUNC, "regs_intr.regs", 24, "regs_intr: registers missing");
		}
	/* the abi itself cut */
	m.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER;
	sample_start(true);
	rb_finish(&B);
	expect(&m, PERFRING_ETRUNC, "regs_user.abi", 16, "regs_user.abi missing");
}

TEST(malformed_text_poke_lengths)
{
	static const uint16_t lens[][2] = { { 5, 4 }, { 0xffff, 0xffff }, { 0, 13 }, { 13, 0 } };
	size_t i;
	int order;

	for (order = 0; order < 2; order++)
		for (i = 0; i < NELEM(lens); i++) {
			start(order, PERF_RECORD_TEXT_POKE, 0);
			rb_u64(&B, 0xffffffff81000000ULL);
			rb_u16(&B, lens[i][0]);
			rb_u16(&B, lens[i][1]);
			rb_fill(&B, 0x90, 4); /* 4 bytes: 8 with the lengths */
			rb_finish(&B);
			expect(&plain, PERFRING_EBADREC, "text_poke.bytes", 20, "text_poke lengths too large");
		}
}

TEST(malformed_mmap2_build_id_size)
{
	static const uint8_t sizes[] = { 21, 32, 255 };
	size_t i;
	int order;

	for (order = 0; order < 2; order++)
		for (i = 0; i < NELEM(sizes); i++) {
			start(order, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
			rb_u32(&B, 1);
			rb_u32(&B, 2);
			rb_u64(&B, 0x1000);
			rb_u64(&B, 0x2000);
			rb_u64(&B, 0);
			rb_u8(&B, sizes[i]);
			rb_zeros(&B, 23);
			rb_u32(&B, 5);
			rb_u32(&B, 2);
			rb_str(&B, "/bin/true");
			rb_finish(&B);
			expect(&plain, PERFRING_EBADREC, "mmap.build_id_size", 40, "build_id_size > 20");
		}
}

/* ---- samples: fields cut, bytes left over -------------------------------------------------- */

TEST(malformed_sample_short_and_trailing)
{
	const struct mcfg m = { PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
				0, 0, 0, 0, true };
	const struct mcfg mr = { PERF_SAMPLE_READ, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID, 0, 0, 0, false };
	static const char *const fields[] = { "identifier", "ip", "tid", "time", "cpu", "period" };
	int order, k, extra;

	for (order = 0; order < 2; order++) {
		/* each fixed field in turn is the one cut off */
		for (k = 0; k < 6; k++) {
			int j;

			start(order, PERF_RECORD_SAMPLE, 0);
			for (j = 0; j < k; j++)
				rb_u64(&B, 0x1000 + j);
			rb_finish(&B);
			expect(&m, PERFRING_ETRUNC, fields[k], 8 + 8 * (size_t)k, "sample cut");
		}
		/* complete, then 8 or 16 bytes more (sample_id_all adds no
		 * trailer to a SAMPLE) */
		for (extra = 8; extra <= 16; extra += 8) {
			start(order, PERF_RECORD_SAMPLE, 0);
			for (k = 0; k < 6; k++)
				rb_u64(&B, 0x1000 + k);
			rb_fill(&B, 0, (size_t)extra);
			rb_finish(&B);
			expect(&m, PERFRING_EBADREC, "sample: trailing bytes", 56, "sample + trailing bytes");
		}
		/* read values (no GROUP) cut before the id */
		start(order, PERF_RECORD_SAMPLE, 0);
		rb_u64(&B, 5);
		rb_u64(&B, 6);
		rb_finish(&B);
		expect(&mr, PERFRING_ETRUNC, "read.id", 24, "read.id missing");
	}
}

/* ---- robustness: truncations and mutations of valid records --------------------------------- */

static bool parse_is_sane(const struct perfring_parse_config *cfg, const uint8_t *rec, size_t len)
{
	struct perfring_decoded d;
	struct perfring_sample_id sid;
	int ret;

	memset(&d, 0x5a, sizeof(d));
	ret = perfring_record_parse(cfg, rec, len, &d);
	(void)perfring_record_sample_id(cfg, rec, len, &sid);
	if (ret == 0)
		return d.error_field == NULL && d.raw == rec && d.raw_len <= len;
	if (ret != -PERFRING_ETRUNC && ret != -PERFRING_EBADREC)
		return false;
	return d.error_field != NULL && d.error_field[0] && perfring_errmsg()[0] &&
	       (d.error_offset <= len || len < 8);
}

/* Build one valid record of kind k into B, its config into m. */
static void build_valid(int k, bool swapped, struct mcfg *m)
{
	struct perfring_sample_id t = rb_trailer_values();
	uint64_t i;

	memset(m, 0, sizeof(*m));
	switch (k) {
	case 0: /* MMAP2 + trailer */
		*m = trailer_all;
		start(swapped, PERF_RECORD_MMAP2, 0);
		rb_u32(&B, 1);
		rb_u32(&B, 2);
		rb_u64(&B, 0x1000);
		rb_u64(&B, 0x2000);
		rb_u64(&B, 0x3000);
		rb_u32(&B, 8);
		rb_u32(&B, 1);
		rb_u64(&B, 42);
		rb_u64(&B, 0);
		rb_u32(&B, 5);
		rb_u32(&B, 2);
		rb_str(&B, "/usr/lib/libfoo.so");
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		break;
	case 1: /* a SAMPLE with every variable-length field */
		m->sample_type = ((1ULL << 25) - 1) & ~PERF_SAMPLE_WEIGHT_STRUCT;
		m->read_format = 0x1f;
		m->branch_type = PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS;
		m->regs_user = 0x3;
		m->regs_intr = 0x5;
		start(swapped, PERF_RECORD_SAMPLE, 0);
		for (i = 0; i < 9; i++) /* IDENTIFIER .. PERIOD */
			rb_u64(&B, 0x100 + i);
		rb_u64(&B, 2); /* read: nr, te, tr, 2 x {value, id, lost} */
		for (i = 0; i < 8; i++)
			rb_u64(&B, 0x200 + i);
		rb_u64(&B, 3); /* callchain */
		for (i = 0; i < 3; i++)
			rb_u64(&B, 0x300 + i);
		rb_u32(&B, 12); /* raw */
		rb_fill(&B, 0x72, 12);
		rb_u64(&B, 2); /* branch: nr, hw_idx, 2 entries, 2 counters */
		for (i = 0; i < 9; i++)
			rb_u64(&B, 0x400 + i);
		rb_u64(&B, 2); /* regs_user: abi, 2 regs */
		rb_u64(&B, 0x501);
		rb_u64(&B, 0x502);
		rb_u64(&B, 16); /* stack: size, 16 bytes, dyn_size */
		rb_fill(&B, 0x73, 16);
		rb_u64(&B, 8);
		for (i = 0; i < 3; i++) /* weight, data_src, transaction */
			rb_u64(&B, 0x600 + i);
		rb_u64(&B, 1); /* regs_intr: abi, 2 regs */
		rb_u64(&B, 0x701);
		rb_u64(&B, 0x702);
		for (i = 0; i < 4; i++) /* phys, cgroup, page sizes */
			rb_u64(&B, 0x800 + i);
		rb_u64(&B, 8); /* aux */
		rb_fill(&B, 0x74, 8);
		break;
	case 2: /* NAMESPACES + trailer */
		*m = trailer_all;
		start(swapped, PERF_RECORD_NAMESPACES, 0);
		rb_u32(&B, 1);
		rb_u32(&B, 2);
		rb_u64(&B, 3);
		for (i = 0; i < 6; i++)
			rb_u64(&B, 0x900 + i);
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		break;
	case 3: /* READ group + trailer */
		*m = trailer_all;
		m->read_format = 0x1f;
		start(swapped, PERF_RECORD_READ, 0);
		rb_u32(&B, 1);
		rb_u32(&B, 2);
		rb_u64(&B, 2);
		for (i = 0; i < 8; i++)
			rb_u64(&B, 0xa00 + i);
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		break;
	default: /* TEXT_POKE + trailer */
		*m = trailer_all;
		start(swapped, PERF_RECORD_TEXT_POKE, 0);
		rb_u64(&B, 0xffffffff81000000ULL);
		rb_u16(&B, 3);
		rb_u16(&B, 5);
		rb_fill(&B, 0xcc, 8);
		rb_pad8(&B);
		rb_trailer(&B, RB_TRAILER_BITS, &t);
		break;
	}
	rb_finish(&B);
}

TEST(robust_truncations_of_valid_records)
{
	struct perfring_parse_config cfg;
	struct mcfg m;
	int k, order;
	size_t n;

	for (order = 0; order < 2; order++)
		for (k = 0; k < 5; k++) {
			build_valid(k, order, &m);
			REQUIRE(mk_cfg(&cfg, &m, order) == 0);
			REQUIREF(parse_is_sane(&cfg, rb_exact(&B), B.len), "valid record %d does not parse", k);
			for (n = 0; n < B.len; n++) {
				size_t full = B.len;

				/* bytes cut, header.size unchanged */
				CHECKF(parse_is_sane(&cfg, rb_exact_n(&B, n), n), "record %d cut to %zu bytes", k, n);
				/* header.size shrunk to n: the end moves in */
				if (n >= 8) {
					rb_set_size(&B, (uint16_t)n);
					CHECKF(parse_is_sane(&cfg, rb_exact_n(&B, n), n), "record %d, size %zu", k, n);
					rb_set_size(&B, (uint16_t)full);
				}
			}
		}
}

TEST(robust_byte_mutations_of_valid_records)
{
	static const uint8_t values[] = { 0x00, 0xff, 0x80, 0x7f, 0x01 };
	struct perfring_parse_config cfg;
	struct mcfg m;
	int k, order;
	size_t pos, vi;

	for (order = 0; order < 2; order++)
		for (k = 0; k < 5; k++) {
			build_valid(k, order, &m);
			REQUIRE(mk_cfg(&cfg, &m, order) == 0);
			for (pos = 0; pos < B.len; pos++) {
				uint8_t saved = B.buf[pos];

				for (vi = 0; vi < NELEM(values); vi++) {
					const uint8_t *rec;
					uint16_t size;

					B.buf[pos] = values[vi];
					/* header.size may now be anything: give
					 * exactly the bytes it claims, up to B.len */
					size = (uint16_t)rb_get_uint(&B, 6, 2);
					rec = rb_exact_n(&B, size < B.len ? size : B.len);
					CHECKF(parse_is_sane(&cfg, rec, size < B.len ? size : B.len),
					       "record %d, byte %zu = %#x", k, pos, values[vi]);
				}
				B.buf[pos] = saved;
			}
		}
}

TEST(robust_random_records)
{
	struct perfring_parse_config cfg;
	uint64_t x = 0x2545f4914f6cdd1dULL;
	struct mcfg m;
	int iter;

	for (iter = 0; iter < 4000; iter++) {
		size_t len, i;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		build_valid((int)(x % 5), x & 0x100, &m);
		m.sample_type = (x >> 9) & ((1ULL << 25) - 1);
		m.read_format = (x >> 34) & 0x1f;
		m.branch_type = (x >> 40) & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS : 0;
		m.sid_all = (x >> 41) & 1;
		m.regs_user = x;
		m.regs_intr = ~x;
		REQUIRE(mk_cfg(&cfg, &m, x & 0x100) == 0);
		/* random type (kernel types mostly), random body words */
		B.len = 0;
		rb_u32(&B, (uint32_t)((x >> 42) % 24));
		rb_u16(&B, (uint16_t)(x >> 20));
		len = 8 + 8 * ((x >> 50) % 24);
		rb_u16(&B, (uint16_t)len);
		for (i = 8; i < len; i += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* small numbers are counts that often fit */
			rb_u64(&B, (x & 3) ? x % 5 : x);
		}
		CHECKF(parse_is_sane(&cfg, rb_exact(&B), B.len), "random record %d", iter);
	}
}

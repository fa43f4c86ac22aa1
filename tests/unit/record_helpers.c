// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record layer helpers: parse configs from struct perf_event_attr of every
 * published size (fields beyond attr->size are never read: the attr is
 * given in an allocation of exactly that size), unknown bits refused,
 * derived fields (id_trailer_size, nr_regs_*), configs set by hand;
 * perfring_record_sample_id() for SAMPLE and other records in both byte
 * orders; record type names; misc bits; call chain context markers;
 * WEIGHT_STRUCT and DATA_SRC bitfields.
 */
#include <errno.h>
#include <stdio.h>

#include "harness.h"
#include "recbuild.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static struct rb B;

#ifndef PERF_ATTR_SIZE_VER8
#define PERF_ATTR_SIZE_VER8 136
#endif

/*
 * An attr of the given size (0: the first version's 64 bytes), every field
 * the struct has set, those beyond size included: they must be ignored.
 * exact: allocate only the attr's size bytes (then the fields beyond it are
 * not there at all, and ASan reports a read of them).
 */
static struct perf_event_attr *attr_of_size(uint32_t size, uint64_t sample_type, uint64_t read_format, bool exact)
{
	size_t need = size ? size : PERF_ATTR_SIZE_VER0;
	size_t alloc = exact || need > sizeof(struct perf_event_attr) ? need : sizeof(struct perf_event_attr);
	struct perf_event_attr full;
	uint8_t *p;

	memset(&full, 0, sizeof(full));
	full.type = PERF_TYPE_SOFTWARE;
	full.size = size;
	full.config = PERF_COUNT_SW_CPU_CLOCK;
	full.sample_period = 4000;
	full.sample_type = sample_type;
	full.read_format = read_format;
	full.sample_id_all = 1;
	full.exclude_kernel = 1;
	full.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS;
	full.sample_regs_user = 0xff;       /* 8 registers */
	full.sample_stack_user = 8192;
	full.sample_regs_intr = 0xf000000f; /* 8 registers */
	p = calloc(1, alloc);
	if (!p)
		abort();
	memcpy(p, &full, alloc < sizeof(full) ? alloc : sizeof(full));
	return (struct perf_event_attr *)p;
}

TEST(config_from_attr_of_every_size)
{
	static const uint32_t sizes[] = { 0,
					  PERF_ATTR_SIZE_VER0,
					  PERF_ATTR_SIZE_VER1,
					  PERF_ATTR_SIZE_VER2,
					  PERF_ATTR_SIZE_VER3,
					  PERF_ATTR_SIZE_VER4,
					  PERF_ATTR_SIZE_VER5,
					  PERF_ATTR_SIZE_VER6,
					  PERF_ATTR_SIZE_VER7,
					  sizeof(struct perf_event_attr),
					  PERF_ATTR_SIZE_VER8,
					  256 };
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK |
			    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_IDENTIFIER;
	const uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	size_t i, k;

	/* k: bit 0 swapped, bit 1 exact allocation */
	for (k = 0; k < 4; k++)
		for (i = 0; i < NELEM(sizes); i++) {
			bool swapped = k & 1, exact = k & 2;
			uint32_t sz = sizes[i] ? sizes[i] : PERF_ATTR_SIZE_VER0;
			struct perf_event_attr *attr = attr_of_size(sizes[i], st, rf, exact);
			struct perfring_parse_config cfg;
			bool has_branch = sz >= PERF_ATTR_SIZE_VER2, has_ru = sz >= PERF_ATTR_SIZE_VER3,
			     has_ri = sz >= PERF_ATTR_SIZE_VER4;
			int ret;

			memset(&cfg, 0xa5, sizeof(cfg));
			ret = perfring_parse_config_init(&cfg, attr, swapped);
			CHECKF(ret == 0, "attr.size %u%s: returned %d: %s", sizes[i], exact ? " (exact)" : "", ret,
			       perfring_errmsg());
			if (ret == 0) {
				CHECK_EQ_U64(cfg.sample_type, st);
				CHECK_EQ_U64(cfg.read_format, rf);
				CHECK(cfg.sample_id_all);
				CHECK(cfg.swapped == swapped);
				CHECKF(cfg.branch_sample_type ==
					       (has_branch ? PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX |
								     PERF_SAMPLE_BRANCH_COUNTERS
							   : 0),
				       "attr.size %u: branch_sample_type %#" PRIx64, sizes[i], cfg.branch_sample_type);
				CHECKF(cfg.branch_counters == has_branch, "attr.size %u: branch_counters %d", sizes[i],
				       cfg.branch_counters);
				CHECKF(cfg.sample_regs_user == (has_ru ? 0xffu : 0) && cfg.nr_regs_user == (has_ru ? 8 : 0),
				       "attr.size %u: regs_user %#" PRIx64 " (%u)", sizes[i], cfg.sample_regs_user,
				       cfg.nr_regs_user);
				CHECKF(cfg.sample_regs_intr == (has_ri ? 0xf000000fu : 0) &&
					       cfg.nr_regs_intr == (has_ri ? 8 : 0),
				       "attr.size %u: regs_intr %#" PRIx64 " (%u)", sizes[i], cfg.sample_regs_intr,
				       cfg.nr_regs_intr);
				CHECK_EQ_INT(cfg.id_trailer_size, 24); /* TID, TIME, IDENTIFIER */
			}
			free(attr);
		}
}

TEST(config_refuses_what_it_cannot_decode)
{
	static const uint64_t bad_st[] = { 1ULL << 25, 1ULL << 26, 1ULL << 40, 1ULL << 63 };
	struct perfring_parse_config cfg;
	struct perf_event_attr attr;
	size_t i;

	for (i = 0; i < NELEM(bad_st); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.sample_type = PERF_SAMPLE_IP | bad_st[i];
		CHECKF(perfring_parse_config_init(&cfg, &attr, false) == -EINVAL, "sample_type bit %#" PRIx64,
		       bad_st[i]);
		CHECK(perfring_errmsg()[0] != 0);
		/* and by hand */
		memset(&cfg, 0, sizeof(cfg));
		cfg.sample_type = PERF_SAMPLE_TID | bad_st[i];
		CHECKF(perfring_parse_config_finish(&cfg) == -EINVAL, "finish: sample_type bit %#" PRIx64, bad_st[i]);
	}
	/* every known bit, alone and together, is accepted */
	for (i = 0; i < 25; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.sample_type = 1ULL << i;
		CHECKF(perfring_parse_config_init(&cfg, &attr, true) == 0, "sample_type bit %zu refused: %s", i,
		       perfring_errmsg());
	}
	attr.sample_type = (1ULL << 25) - 1;
	attr.read_format = 0x1f;
	CHECK_EQ_INT(perfring_parse_config_init(&cfg, &attr, false), 0);
	/* a read_format bit beyond PERF_FORMAT_LOST: its values cannot be laid out */
	attr.read_format = 1ULL << 5;
	CHECK_EQ_INT(perfring_parse_config_init(&cfg, &attr, false), -EINVAL);
	/* an attr size below the first version's cannot hold sample_type */
	memset(&attr, 0, sizeof(attr));
	attr.size = 32;
	CHECK_EQ_INT(perfring_parse_config_init(&cfg, &attr, false), -EINVAL);
	/* NULLs */
	CHECK_EQ_INT(perfring_parse_config_init(&cfg, NULL, false), -EINVAL);
	CHECK_EQ_INT(perfring_parse_config_init(NULL, &attr, false), -EINVAL);
	CHECK_EQ_INT(perfring_parse_config_finish(NULL), -EINVAL);
}

TEST(config_id_trailer_size_every_subset)
{
	static const uint64_t bits[6] = { PERF_SAMPLE_TID,       PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,  PERF_SAMPLE_IDENTIFIER };
	const uint64_t noise = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_RAW | PERF_SAMPLE_READ | PERF_SAMPLE_AUX;
	unsigned subset;

	for (subset = 0; subset < 64; subset++) {
		struct perfring_parse_config cfg;
		uint64_t st = 0;
		unsigned j, n = 0;

		for (j = 0; j < 6; j++)
			if (subset & (1u << j)) {
				st |= bits[j];
				n++;
			}
		REQUIRE(rb_config(&cfg, st | (subset & 1 ? noise : 0), 0, true, subset & 2) == 0);
		CHECKF(cfg.id_trailer_size == 8 * n, "subset %#x: id_trailer_size %u != %u", subset,
		       cfg.id_trailer_size, 8 * n);
	}
}

/* Set by hand, then finish: derived fields recomputed, and used by the decoder. */
TEST(config_by_hand_then_finish)
{
	static const uint64_t masks[] = { 0, 1, 0x5555555555555555ULL, ~0ULL };
	struct perfring_parse_config cfg;
	struct perfring_decoded d;
	size_t i;
	int order;

	for (i = 0; i < NELEM(masks); i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
		cfg.sample_regs_user = masks[i];
		cfg.sample_regs_intr = ~masks[i];
		cfg.nr_regs_user = 99;
		cfg.id_trailer_size = 1;
		REQUIRE(perfring_parse_config_finish(&cfg) == 0);
		CHECK_EQ_INT(cfg.nr_regs_user, __builtin_popcountll(masks[i]));
		CHECK_EQ_INT(cfg.nr_regs_intr, __builtin_popcountll(~masks[i]));
		CHECK_EQ_INT(cfg.id_trailer_size, 16);
	}

	/* a hand-made config decodes: regs counts follow the masks */
	for (order = 0; order < 2; order++) {
		uint64_t k;

		memset(&cfg, 0, sizeof(cfg));
		cfg.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR;
		cfg.sample_regs_user = 0x30;
		cfg.sample_regs_intr = 0x7;
		cfg.swapped = order;
		REQUIRE(perfring_parse_config_finish(&cfg) == 0);
		rb_init(&B, order);
		rb_header(&B, PERF_RECORD_SAMPLE, 0);
		rb_u64(&B, PERF_SAMPLE_REGS_ABI_64);
		rb_u64(&B, 0x44);
		rb_u64(&B, 0x55);
		rb_u64(&B, PERF_SAMPLE_REGS_ABI_64);
		for (k = 0; k < 3; k++)
			rb_u64(&B, 0x100 + k);
		rb_finish(&B);
		REQUIREF(perfring_record_parse(&cfg, rb_exact(&B), B.len, &d) == 0, "%s", perfring_errmsg());
		CHECK_EQ_U64(d.u.sample.regs_user.regs.nr, 2);
		CHECK_EQ_U64(perfring_u64_at(&d.u.sample.regs_user.regs, 1), 0x55);
		CHECK_EQ_U64(d.u.sample.regs_intr.regs.nr, 3);
		CHECK_EQ_U64(perfring_u64_at(&d.u.sample.regs_intr.regs, 2), 0x102);
	}
}

/* ---- perfring_record_sample_id ------------------------------------------------------------ */

static const uint64_t id_bits[6] = { PERF_SAMPLE_TID,       PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
				     PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,  PERF_SAMPLE_IDENTIFIER };

static void check_sid(const struct perfring_sample_id *got, uint64_t st, const char *what, unsigned subset)
{
	struct perfring_sample_id want = rb_trailer_values();
	uint64_t bits = st & RB_TRAILER_BITS;

	CHECKF(got->present == bits, "%s %#x: present %#" PRIx64 " != %#" PRIx64, what, subset, got->present, bits);
	if (bits & PERF_SAMPLE_TID)
		CHECKF(got->pid == want.pid && got->tid == want.tid, "%s %#x: pid/tid", what, subset);
	if (bits & PERF_SAMPLE_TIME)
		CHECKF(got->time == want.time, "%s %#x: time", what, subset);
	if (bits & PERF_SAMPLE_ID)
		CHECKF(got->id == want.id, "%s %#x: id", what, subset);
	if (bits & PERF_SAMPLE_STREAM_ID)
		CHECKF(got->stream_id == want.stream_id, "%s %#x: stream_id", what, subset);
	if (bits & PERF_SAMPLE_CPU)
		CHECKF(got->cpu == want.cpu && got->cpu_res == want.cpu_res, "%s %#x: cpu", what, subset);
	if (bits & PERF_SAMPLE_IDENTIFIER)
		CHECKF(got->identifier == want.identifier, "%s %#x: identifier", what, subset);
}

/* A SAMPLE: IDENTIFIER first, then IP, TID, TIME, ADDR, ID, STREAM_ID, CPU,
 * PERIOD, and more fields the reader need not look at. */
TEST(sample_id_of_samples)
{
	const struct perfring_sample_id v = rb_trailer_values();
	unsigned subset;
	int order;

	for (order = 0; order < 2; order++)
		for (subset = 0; subset < 64; subset++) {
			struct perfring_parse_config cfg;
			struct perfring_sample_id sid;
			uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
			unsigned j;
			int ret;

			for (j = 0; j < 6; j++)
				if (subset & (1u << j))
					st |= id_bits[j];
			REQUIRE(rb_config(&cfg, st, 0, subset & 1, order) == 0);
			rb_init(&B, order);
			rb_header(&B, PERF_RECORD_SAMPLE, 0);
			if (st & PERF_SAMPLE_IDENTIFIER)
				rb_u64(&B, v.identifier);
			rb_u64(&B, 0xaaaa); /* ip */
			if (st & PERF_SAMPLE_TID) {
				rb_u32(&B, v.pid);
				rb_u32(&B, v.tid);
			}
			if (st & PERF_SAMPLE_TIME)
				rb_u64(&B, v.time);
			rb_u64(&B, 0xbbbb); /* addr */
			if (st & PERF_SAMPLE_ID)
				rb_u64(&B, v.id);
			if (st & PERF_SAMPLE_STREAM_ID)
				rb_u64(&B, v.stream_id);
			if (st & PERF_SAMPLE_CPU) {
				rb_u32(&B, v.cpu);
				rb_u32(&B, v.cpu_res);
			}
			rb_u64(&B, 0xcccc); /* period */
			rb_u64(&B, 2);      /* callchain */
			rb_u64(&B, PERF_CONTEXT_USER);
			rb_u64(&B, 0x401000);
			rb_finish(&B);
			memset(&sid, 0x5a, sizeof(sid));
			ret = perfring_record_sample_id(&cfg, rb_exact(&B), B.len, &sid);
			CHECKF(ret == 0, "SAMPLE %#x swapped=%d: %d %s", subset, order, ret, perfring_errmsg());
			if (ret == 0)
				check_sid(&sid, st, order ? "SAMPLE swapped" : "SAMPLE", subset);
		}
}

/* Other records: the trailer, from the end; nothing without sample_id_all. */
TEST(sample_id_of_other_records)
{
	static const uint32_t types[] = { PERF_RECORD_MMAP, PERF_RECORD_COMM, PERF_RECORD_LOST, PERF_RECORD_SWITCH,
					  PERF_RECORD_CGROUP, PERF_RECORD_CALLCHAIN_DEFERRED };
	const struct perfring_sample_id v = rb_trailer_values();
	unsigned subset;
	size_t ti;
	int order, sid_all;

	for (order = 0; order < 2; order++)
		for (sid_all = 0; sid_all < 2; sid_all++)
			for (ti = 0; ti < NELEM(types); ti++)
				for (subset = 0; subset < 64; subset += 7) {
					struct perfring_parse_config cfg;
					struct perfring_sample_id sid;
					uint64_t st = PERF_SAMPLE_IP;
					unsigned j;
					int ret;

					for (j = 0; j < 6; j++)
						if (subset & (1u << j))
							st |= id_bits[j];
					REQUIRE(rb_config(&cfg, st, 0, sid_all, order) == 0);
					rb_init(&B, order);
					rb_header(&B, types[ti], 0);
					switch (types[ti]) {
					case PERF_RECORD_MMAP:
						rb_u32(&B, 1);
						rb_u32(&B, 2);
						rb_u64(&B, 3);
						rb_u64(&B, 4);
						rb_u64(&B, 5);
						rb_str(&B, "/x");
						break;
					case PERF_RECORD_COMM:
						rb_u32(&B, 1);
						rb_u32(&B, 2);
						rb_str(&B, "sh");
						break;
					case PERF_RECORD_LOST:
						rb_u64(&B, 1);
						rb_u64(&B, 2);
						break;
					case PERF_RECORD_CGROUP:
						rb_u64(&B, 1);
						rb_str(&B, "/");
						break;
					case PERF_RECORD_CALLCHAIN_DEFERRED:
						rb_u64(&B, 1);
						rb_u64(&B, 1);
						rb_u64(&B, 0x401000);
						break;
					default:
						break;
					}
					if (sid_all)
						rb_trailer(&B, st, &v);
					rb_finish(&B);
					memset(&sid, 0x5a, sizeof(sid));
					ret = perfring_record_sample_id(&cfg, rb_exact(&B), B.len, &sid);
					CHECKF(ret == 0, "type %u: %d %s", types[ti], ret, perfring_errmsg());
					if (ret)
						continue;
					if (sid_all)
						check_sid(&sid, st, perfring_record_type_name(types[ti]), subset);
					else
						CHECKF(sid.present == 0, "type %u without sample_id_all: present %#" PRIx64,
						       types[ti], sid.present);
				}
}

TEST(sample_id_errors)
{
	const struct perfring_sample_id v = rb_trailer_values();
	struct perfring_parse_config cfg;
	struct perfring_sample_id sid;
	int order;

	for (order = 0; order < 2; order++) {
		/* a SAMPLE cut inside its id fields */
		REQUIRE(rb_config(&cfg, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 0, false, order) ==
			0);
		rb_init(&B, order);
		rb_header(&B, PERF_RECORD_SAMPLE, 0);
		rb_u64(&B, v.identifier);
		rb_finish(&B);
		CHECK_EQ_INT(perfring_record_sample_id(&cfg, rb_exact(&B), B.len, &sid), -PERFRING_ETRUNC);
		/* a COMM shorter than its trailer */
		REQUIRE(rb_config(&cfg, RB_TRAILER_BITS, 0, true, order) == 0);
		rb_init(&B, order);
		rb_header(&B, PERF_RECORD_COMM, 0);
		rb_u64(&B, 1);
		rb_finish(&B);
		CHECK_EQ_INT(perfring_record_sample_id(&cfg, rb_exact(&B), B.len, &sid), -PERFRING_ETRUNC);
		/* header.size beyond the bytes */
		CHECK_EQ_INT(perfring_record_sample_id(&cfg, rb_exact(&B), B.len - 1, &sid), -PERFRING_ETRUNC);
		/* user record types carry no trailer */
		rb_init(&B, order);
		rb_header(&B, 68 /* FINISHED_ROUND */, 0);
		rb_finish(&B);
		CHECK_EQ_INT(perfring_record_sample_id(&cfg, rb_exact(&B), B.len, &sid), 0);
		CHECK_EQ_U64(sid.present, 0);
	}
	CHECK_EQ_INT(perfring_record_sample_id(NULL, B.buf, B.len, &sid), -EINVAL);
	CHECK_EQ_INT(perfring_record_sample_id(&cfg, NULL, B.len, &sid), -EINVAL);
	CHECK_EQ_INT(perfring_record_sample_id(&cfg, B.buf, B.len, NULL), -EINVAL);
}

/* ---- names, misc ------------------------------------------------------------------------------ */

TEST(record_type_names)
{
	static const char *const names[23] = {
		NULL,         "MMAP",         "LOST",      "COMM",          "EXIT",
		"THROTTLE",   "UNTHROTTLE",   "FORK",      "READ",          "SAMPLE",
		"MMAP2",      "AUX",          "ITRACE_START", "LOST_SAMPLES", "SWITCH",
		"SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL", "BPF_EVENT",    "CGROUP",
		"TEXT_POKE",  "AUX_OUTPUT_HW_ID", "CALLCHAIN_DEFERRED",
	};
	static const uint32_t unknown[] = { 0, 23, 24, 50, 63, 200, 1000, 0xffff, 0x10000, 0xffffffffu };
	uint32_t t;
	size_t i;

	for (t = 1; t <= 22; t++) {
		const char *n = perfring_record_type_name(t);

		CHECKF(n && strcmp(n, names[t]) == 0, "type %u: '%s' != '%s'", t, n ? n : "(null)", names[t]);
	}
	for (i = 0; i < NELEM(unknown); i++)
		CHECKF(perfring_record_type_name(unknown[i]) == NULL, "type %u has a name: %s", unknown[i],
		       perfring_record_type_name(unknown[i]));
}

TEST(misc_helpers)
{
	unsigned bit, mode;

	for (mode = 0; mode < 8; mode++) {
		CHECK_EQ_INT(perfring_misc_cpumode((uint16_t)mode), mode);
		CHECK_EQ_INT(perfring_misc_cpumode((uint16_t)(mode | 0xfff8)), mode);
	}
	CHECK_EQ_INT(perfring_misc_cpumode(PERF_RECORD_MISC_GUEST_USER | PERF_RECORD_MISC_EXACT_IP),
		     PERF_RECORD_MISC_GUEST_USER);
	for (bit = 0; bit < 16; bit++) {
		uint16_t m = (uint16_t)(1u << bit);
		bool b13 = bit == 13, b14 = bit == 14;

		CHECKF(perfring_misc_comm_exec(m) == b13, "comm_exec bit %u", bit);
		CHECKF(perfring_misc_fork_exec(m) == b13, "fork_exec bit %u", bit);
		CHECKF(perfring_misc_mmap_data(m) == b13, "mmap_data bit %u", bit);
		CHECKF(perfring_misc_switch_out(m) == b13, "switch_out bit %u", bit);
		CHECKF(perfring_misc_mmap_build_id(m) == b14, "mmap_build_id bit %u", bit);
		CHECKF(perfring_misc_switch_out_preempt(m) == b14, "switch_out_preempt bit %u", bit);
		CHECKF(perfring_misc_exact_ip(m) == b14, "exact_ip bit %u", bit);
	}
	CHECK(perfring_misc_comm_exec(PERF_RECORD_MISC_COMM_EXEC));
	CHECK(perfring_misc_fork_exec(PERF_RECORD_MISC_FORK_EXEC));
	CHECK(perfring_misc_mmap_data(PERF_RECORD_MISC_MMAP_DATA));
	CHECK(perfring_misc_switch_out(PERF_RECORD_MISC_SWITCH_OUT));
	CHECK(perfring_misc_mmap_build_id(PERF_RECORD_MISC_MMAP_BUILD_ID));
	CHECK(perfring_misc_switch_out_preempt(PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
	CHECK(perfring_misc_exact_ip(PERF_RECORD_MISC_EXACT_IP));
}

TEST(callchain_context_helpers)
{
	static const struct {
		uint64_t ip;
		bool context;
		const char *name;
	} cases[] = {
		{ PERF_CONTEXT_HV, true, "hv" },
		{ PERF_CONTEXT_KERNEL, true, "kernel" },
		{ PERF_CONTEXT_USER, true, "user" },
		{ RB_CONTEXT_USER_DEFERRED, true, "user-deferred" },
		{ PERF_CONTEXT_GUEST, true, "guest" },
		{ PERF_CONTEXT_GUEST_KERNEL, true, "guest-kernel" },
		{ PERF_CONTEXT_GUEST_USER, true, "guest-user" },
		{ PERF_CONTEXT_MAX, true, NULL },      /* the bound itself */
		{ (uint64_t)-1, true, NULL },          /* in the marker range, no name */
		{ (uint64_t)-129, true, NULL },
		{ (uint64_t)-4096, false, NULL },      /* just below: an address */
		{ 0xffffffff81000000ULL, false, NULL }, /* kernel text */
		{ 0x0000000000401000ULL, false, NULL },
		{ 0, false, NULL },
	};
	size_t i;

	for (i = 0; i < NELEM(cases); i++) {
		const char *n = perfring_callchain_context_name(cases[i].ip);

		CHECKF(perfring_callchain_is_context(cases[i].ip) == cases[i].context, "%#" PRIx64 ": is_context",
		       cases[i].ip);
		CHECKF((n == NULL && cases[i].name == NULL) || (n && cases[i].name && strcmp(n, cases[i].name) == 0),
		       "%#" PRIx64 ": name '%s' != '%s'", cases[i].ip, n ? n : "(null)",
		       cases[i].name ? cases[i].name : "(null)");
	}
}

/* ---- WEIGHT_STRUCT, DATA_SRC --------------------------------------------------------------------- */

TEST(weight_struct_fields)
{
	/* what union perf_sample_weight gives on this host */
	static const uint64_t vals[] = { 0, 0x0123456789abcdefULL, ~0ULL, 0x0000ffff00000000ULL, 0xffff000000000000ULL,
					 0x00000000ffffffffULL };
	size_t i;

	for (i = 0; i < NELEM(vals); i++) {
		union perf_sample_weight u;
		struct perfring_weight w = perfring_weight_struct(vals[i]);

		u.full = vals[i];
		CHECKF(w.var1_dw == u.var1_dw && w.var2_w == u.var2_w && w.var3_w == u.var3_w,
		       "%#" PRIx64 ": %#x/%#x/%#x != %#x/%#x/%#x", vals[i], w.var1_dw, w.var2_w, w.var3_w, u.var1_dw,
		       u.var2_w, u.var3_w);
	}
	/* and in numbers: var1 low 32 bits, var2 next 16, var3 top 16 */
	CHECK_EQ_U64(perfring_weight_struct(0x0123456789abcdefULL).var1_dw, 0x89abcdef);
	CHECK_EQ_U64(perfring_weight_struct(0x0123456789abcdefULL).var2_w, 0x4567);
	CHECK_EQ_U64(perfring_weight_struct(0x0123456789abcdefULL).var3_w, 0x0123);
}

static bool data_src_equals_union(uint64_t v, char *why, size_t n)
{
	union perf_mem_data_src u;
	struct perfring_data_src d = perfring_data_src_decode(v);

	u.val = v;
	snprintf(why, n, "%#" PRIx64 ": op %u/%u lvl %#x/%#x snoop %u/%u lock %u/%u dtlb %#x/%#x lvlnum %u/%u remote %u/%u "
		 "snoopx %u/%u blk %u/%u hops %u/%u", v, d.mem_op, (unsigned)u.mem_op, d.mem_lvl, (unsigned)u.mem_lvl,
		 d.mem_snoop, (unsigned)u.mem_snoop, d.mem_lock, (unsigned)u.mem_lock, d.mem_dtlb, (unsigned)u.mem_dtlb,
		 d.mem_lvl_num, (unsigned)u.mem_lvl_num, d.mem_remote, (unsigned)u.mem_remote, d.mem_snoopx,
		 (unsigned)u.mem_snoopx, d.mem_blk, (unsigned)u.mem_blk, d.mem_hops, (unsigned)u.mem_hops);
	return d.mem_op == u.mem_op && d.mem_lvl == u.mem_lvl && d.mem_snoop == u.mem_snoop &&
	       d.mem_lock == u.mem_lock && d.mem_dtlb == u.mem_dtlb && d.mem_lvl_num == u.mem_lvl_num &&
	       d.mem_remote == u.mem_remote && d.mem_snoopx == u.mem_snoopx && d.mem_blk == u.mem_blk &&
	       d.mem_hops == u.mem_hops;
}

TEST(data_src_decode_bit_patterns)
{
	/* each field at its maximum alone (its bit boundaries), everything set, and
	 * what perf mem records for a few accesses */
	static const struct {
		unsigned shift, width;
	} fields[] = { { PERF_MEM_OP_SHIFT, 5 },     { PERF_MEM_LVL_SHIFT, 14 },  { PERF_MEM_SNOOP_SHIFT, 5 },
		       { PERF_MEM_LOCK_SHIFT, 2 },   { PERF_MEM_TLB_SHIFT, 7 },   { PERF_MEM_LVLNUM_SHIFT, 4 },
		       { PERF_MEM_REMOTE_SHIFT, 1 }, { PERF_MEM_SNOOPX_SHIFT, 2 }, { PERF_MEM_BLK_SHIFT, 3 },
		       { PERF_MEM_HOPS_SHIFT, 3 } };
	const uint64_t known[] = {
		PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, MISS) | PERF_MEM_S(LVL, LOC_RAM) | PERF_MEM_S(SNOOP, HITM) |
			PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, WK) | PERF_MEM_S(LVLNUM, RAM),
		PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L3) | PERF_MEM_S(SNOOP, HIT) |
			PERF_MEM_S(LOCK, LOCKED) | PERF_MEM_S(LVLNUM, L3) | PERF_MEM_S(REMOTE, REMOTE) |
			PERF_MEM_S(SNOOPX, FWD) | PERF_MEM_S(BLK, ADDR) | PERF_MEM_S(HOPS, 3),
		PERF_MEM_S(OP, PFETCH) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) |
			PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA),
		~0ULL,
		0,
	};
	char why[400];
	size_t i;

	for (i = 0; i < NELEM(fields); i++) {
		uint64_t v = ((1ULL << fields[i].width) - 1) << fields[i].shift;

		CHECKF(data_src_equals_union(v, why, sizeof(why)), "field %zu alone: %s", i, why);
		CHECKF(data_src_equals_union(~v, why, sizeof(why)), "all but field %zu: %s", i, why);
	}
	for (i = 0; i < NELEM(known); i++)
		CHECKF(data_src_equals_union(known[i], why, sizeof(why)), "pattern %zu: %s", i, why);
	/* a store that missed to local RAM, in numbers */
	{
		struct perfring_data_src d = perfring_data_src_decode(known[0]);

		CHECK_EQ_INT(d.mem_op, PERF_MEM_OP_STORE);
		CHECK_EQ_INT(d.mem_lvl, PERF_MEM_LVL_MISS | PERF_MEM_LVL_LOC_RAM);
		CHECK_EQ_INT(d.mem_snoop, PERF_MEM_SNOOP_HITM);
		CHECK_EQ_INT(d.mem_dtlb, PERF_MEM_TLB_MISS | PERF_MEM_TLB_WK);
		CHECK_EQ_INT(d.mem_lvl_num, PERF_MEM_LVLNUM_RAM);
		CHECK_EQ_INT(d.mem_remote, 0);
	}
}

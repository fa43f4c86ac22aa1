// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoder: the SAMPLE fast path (record_sample_fast.c) against the
 * general decoder. The same records are decoded with a config from
 * perfring_parse_config_finish() (fast path) and with a copy whose
 * precomputed layout is cleared (the decoder then takes the general path,
 * as for a config changed by hand): the results must be identical, return
 * code, the whole struct perfring_decoded byte for byte (both pre-filled
 * with the same pattern), error_field and error_offset. Records: every
 * sample_type of the front slots (IDENTIFIER .. PERIOD) with and without a
 * call chain, random values and call chain lengths, then every truncation
 * (len and header.size), call chain counts off by one and huge, trailing
 * bytes, a wrong type; and sample_types the fast path does not take (READ,
 * RAW, ...) and byte-swapped configs, which must decline to the general path.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include <perfring/record.h>

#include "harness.h"

#define FRONT_BITS                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static const uint64_t front_order[9] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,       PERF_SAMPLE_TIME,   PERF_SAMPLE_ADDR,
	PERF_SAMPLE_ID,         PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static void put64(uint8_t *p, uint64_t v, bool swapped)
{
	if (swapped)
		v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

/* A SAMPLE of sample_type st in host order (or swapped), cc_nr call chain
 * entries, extra zero bytes at the end; returns its size. */
static size_t build(uint8_t *buf, uint64_t st, uint64_t cc_nr, size_t extra, bool swapped)
{
	size_t n = 8, i;
	uint32_t type = PERF_RECORD_SAMPLE;
	uint16_t misc = (uint16_t)(rnd() & 7), size;

	for (i = 0; i < 9; i++)
		if (st & front_order[i]) {
			put64(buf + n, rnd(), swapped);
			n += 8;
		}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(buf + n, cc_nr, swapped);
		n += 8;
		for (i = 0; i < cc_nr; i++, n += 8)
			put64(buf + n, rnd(), swapped);
	}
	memset(buf + n, 0, extra);
	n += extra;
	size = (uint16_t)n;
	if (swapped) {
		type = __builtin_bswap32(type);
		misc = __builtin_bswap16(misc);
		size = __builtin_bswap16(size);
	}
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	memcpy(buf + 6, &size, 2);
	return n;
}

static void set_size(uint8_t *buf, uint16_t size, bool swapped)
{
	if (swapped)
		size = __builtin_bswap16(size);
	memcpy(buf + 6, &size, 2);
}

static unsigned compared, fast_ok, errors;

/* Decode rec both ways and require the same outcome. */
static void same(const struct perfring_parse_config *fast, const struct perfring_parse_config *slow,
		 const uint8_t *rec, size_t len, const char *what)
{
	static struct perfring_decoded a, b;
	int ra, rb;

	memset(&a, 0xa5, sizeof(a));
	memset(&b, 0xa5, sizeof(b));
	ra = perfring_record_parse(fast, rec, len, &a);
	rb = perfring_record_parse(slow, rec, len, &b);
	compared++;
	CHECKF(ra == rb, "%s (sample_type %#llx, len %zu): fast %d, general %d", what,
	       (unsigned long long)fast->sample_type, len, ra, rb);
	if (ra != rb)
		return;
	if (ra) {
		errors++;
		CHECKF(a.error_field && b.error_field && !strcmp(a.error_field, b.error_field) &&
			       a.error_offset == b.error_offset,
		       "%s (sample_type %#llx, len %zu): error_field %s@%zu vs %s@%zu", what,
		       (unsigned long long)fast->sample_type, len, a.error_field ? a.error_field : "NULL",
		       a.error_offset, b.error_field ? b.error_field : "NULL", b.error_offset);
		return;
	}
	fast_ok++;
	CHECKF(!memcmp(&a, &b, sizeof(a)), "%s (sample_type %#llx, len %zu): decoded structs differ", what,
	       (unsigned long long)fast->sample_type, len);
}

static void configs(uint64_t st, bool swapped, struct perfring_parse_config *fast, struct perfring_parse_config *slow)
{
	memset(fast, 0, sizeof(*fast));
	fast->sample_type = st;
	fast->swapped = swapped;
	fast->sample_id_all = true;
	REQUIRE(perfring_parse_config_finish(fast) == 0);
	*slow = *fast;
	/* No precomputed layout: what a config set by hand without
	 * finish() has; the decoder takes the general path. */
	memset(slow->reserved, 0, sizeof(slow->reserved));
}

/* Every front subset, with and without a call chain: valid, truncated, corrupt. */
TEST(fast_matches_general)
{
	static uint8_t buf[8 + 10 * 8 + 8 * 40 + 64];
	struct perfring_parse_config fast, slow;
	uint64_t mask, st;
	unsigned k;
	size_t n, len;

	for (mask = 0; mask < (1u << 10); mask++) {
		st = 0;
		for (k = 0; k < 9; k++)
			if (mask & (1u << k))
				st |= front_order[k];
		if (mask & (1u << 9))
			st |= PERF_SAMPLE_CALLCHAIN;
		configs(st, false, &fast, &slow);
		for (k = 0; k < 4; k++) {
			uint64_t cc = (k == 0) ? 0 : rnd() % 40;
			size_t sz;

			n = build(buf, st, cc, 0, false);
			same(&fast, &slow, buf, n, "valid");
			/* every shorter len (the header's size then exceeds it) */
			for (len = 0; len < n; len++)
				same(&fast, &slow, buf, len, "short len");
			/* every smaller header.size, len as given */
			for (sz = 0; sz < n; sz++) {
				set_size(buf, (uint16_t)sz, false);
				same(&fast, &slow, buf, n, "small header.size");
			}
			set_size(buf, (uint16_t)n, false);
			if (st & PERF_SAMPLE_CALLCHAIN) {
				size_t at = 8 + 8 * (size_t)__builtin_popcountll(st & FRONT_BITS);
				uint64_t bad[] = { cc + 1, cc ? cc - 1 : 1, UINT64_MAX, UINT64_MAX / 8 + 1, 1ull << 61 };
				unsigned j;

				for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
					put64(buf + at, bad[j], false);
					same(&fast, &slow, buf, n, "call chain nr");
				}
				put64(buf + at, cc, false);
			}
			/* trailing bytes */
			n = build(buf, st, cc, 8 * (1 + rnd() % 3), false);
			same(&fast, &slow, buf, n, "trailing bytes");
			/* not a SAMPLE */
			n = build(buf, st, cc, 0, false);
			buf[0] = PERF_RECORD_LOST_SAMPLES;
			same(&fast, &slow, buf, n, "other type");
		}
	}
	printf("# %u records compared: %u decoded alike, %u failed alike\n", compared, fast_ok, errors);
	CHECK(fast_ok > 4000 && errors > 100000);
}

/* A layout is precomputed exactly for the fast kinds, and others decode alike. */
TEST(fast_declines_other_configs)
{
	static const uint64_t others[] = {
		PERF_SAMPLE_READ, PERF_SAMPLE_RAW, PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_WEIGHT,
		PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_REGS_USER,
	};
	static uint8_t buf[1024];
	struct perfring_parse_config fast, slow;
	uint32_t tag[6];
	unsigned i;
	size_t n;

	configs(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, false, &fast, &slow);
	memset(tag, 0, sizeof(tag));
	CHECK(memcmp(fast.reserved, tag, sizeof(tag)) != 0);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		configs(PERF_SAMPLE_IP | PERF_SAMPLE_TID | others[i], false, &fast, &slow);
		CHECKF(!memcmp(fast.reserved, tag, sizeof(tag)), "sample_type %#llx has a fast layout",
		       (unsigned long long)fast.sample_type);
	}
	/* byte-swapped records: no layout; decoded (and failed) alike */
	configs(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN, true, &fast, &slow);
	CHECK(!memcmp(fast.reserved, tag, sizeof(tag)));
	n = build(buf, fast.sample_type, 5, 0, true);
	same(&fast, &slow, buf, n, "swapped");
	same(&fast, &slow, buf, n - 8, "swapped short");
	/* a config whose sample_type was changed after finish(): the stale
	 * layout must not be used */
	configs(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, false, &fast, &slow);
	fast.sample_type = slow.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	n = build(buf, fast.sample_type, 3, 0, false);
	same(&fast, &slow, buf, n, "stale layout");
	{
		struct perfring_decoded d;

		REQUIRE(perfring_record_parse(&fast, buf, n, &d) == 0);
		CHECK_EQ_U64(d.u.sample.callchain.nr, 3);
		CHECK(d.u.sample.time != 0 || d.u.sample.ip != 0);
	}
	/* and swapped flipped after finish() */
	configs(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, false, &fast, &slow);
	fast.swapped = slow.swapped = true;
	n = build(buf, fast.sample_type, 2, 0, true);
	same(&fast, &slow, buf, n, "swapped after finish");
	{
		struct perfring_decoded d;

		REQUIRE(perfring_record_parse(&fast, buf, n, &d) == 0);
		CHECK_EQ_U64(d.u.sample.callchain.nr, 2);
	}
}

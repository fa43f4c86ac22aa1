// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hostile ring geometry and heads, each a regression test of a reported
 * out-of-bounds read (run under ASan/UBSan and valgrind, which see the reads):
 *  - an overwrite ring whose data_head is not a multiple of 8: records were
 *    read at misaligned offsets, a header running past the data area's end;
 *  - memory rings with a data area of 1, 2 or 4 bytes, or an unaligned
 *    data_offset or base: refused at creation, naming the field;
 *  - a data area overlapping the metadata page's own fields (data_head ...
 *    aux_size end at sizeof(struct perf_event_mmap_page)): refused, so records
 *    can never overwrite the head.
 * Every buffer is heap memory of exactly the ring's length.
 */
#include <stdio.h>

#include "harness.h"
#include "ringsim.h"

static int count_cb(const struct perfring_ring_record *rec, void *ctx)
{
	(void)rec;
	(*(int *)ctx)++;
	return PERFRING_CONTINUE;
}

/* An overwrite ring with a few records, then head moved to every misaligned
 * value around the end of the data area: never an out-of-bounds read. */
TEST(overwrite_misaligned_head_is_corrupt)
{
	static const uint64_t deltas[] = { 1, 2, 3, 4, 5, 6, 7 };
	size_t i;

	for (i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++) {
		struct ringsim rs;
		struct perfring_ring *ring;
		uint8_t rec[32];
		int n = 0, ret;

		REQUIRE(rs_init(&rs, 4096, true) == 0);
		rs_make(rec, PERF_RECORD_SAMPLE, 0, sizeof(rec), 1);
		rs_put_raw(&rs, rec, sizeof(rec));
		rs_put_raw(&rs, rec, sizeof(rec));
		/* Head 4 bytes before the end of the data area (as free-running
		 * position: -4 - k), so a header read there crosses the end. */
		rs_set_head(&rs, (uint64_t)0 - deltas[i]);
		ring = rs_ring(&rs, false);
		REQUIREF(ring, "%s", perfring_errmsg());
		ret = perfring_ring_consume(ring, count_cb, &n);
		CHECKF(ret == -PERFRING_ECORRUPT, "head -%llu: consume gave %d", (unsigned long long)deltas[i], ret);
		CHECK_EQ_INT(n, 0);
		CHECKF(strstr(perfring_errmsg(), "misaligned") != NULL, "%s", perfring_errmsg());
		/* The iterator form says the same, and does not spin. */
		perfring_ring_begin(ring);
		CHECK_EQ_INT(perfring_ring_next(ring, &(struct perfring_ring_record){ 0 }), -PERFRING_ECORRUPT);
		perfring_ring_free(ring);
		rs_fini(&rs);
	}
}

/* A valid overwrite ring still reads after a misaligned head is fixed. */
TEST(overwrite_recovers_when_head_is_sane_again)
{
	struct ringsim rs;
	struct perfring_ring *ring;
	uint8_t rec[32];
	int n = 0;

	REQUIRE(rs_init(&rs, 4096, true) == 0);
	rs_make(rec, PERF_RECORD_SAMPLE, 0, sizeof(rec), 2);
	rs_put_raw(&rs, rec, sizeof(rec));
	ring = rs_ring(&rs, false);
	REQUIRE(ring);
	rs_set_head(&rs, rs.wpos - 3);
	CHECK_EQ_INT(perfring_ring_consume(ring, count_cb, &n), -PERFRING_ECORRUPT);
	rs_put_raw(&rs, rec, sizeof(rec)); /* the producer writes on: head aligned again */
	n = 0;
	CHECKF(perfring_ring_consume(ring, count_cb, &n) >= 1, "%s", perfring_errmsg());
	CHECK(n >= 1);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* Build a memory ring over exactly len bytes with the given metadata fields;
 * NULL is expected: the message must name want. */
static void expect_refused(size_t len, uint64_t data_offset, uint64_t data_size, size_t page, size_t shift,
			   const char *want)
{
	uint8_t *buf = aligned_alloc(4096, (len + shift + 4095) & ~(size_t)4095);
	struct perf_event_mmap_page *meta;
	struct perfring_ring *ring;

	REQUIRE(buf);
	memset(buf, 0, (len + shift + 4095) & ~(size_t)4095);
	meta = (struct perf_event_mmap_page *)(void *)(buf + shift);
	if (!shift) {
		meta->data_offset = data_offset;
		meta->data_size = data_size;
	}
	errno = 0;
	ring = perfring_ring_new_mem(buf + shift, len, page, NULL);
	CHECKF(!ring && errno == EINVAL, "offset %llu size %llu len %zu shift %zu: ring %p errno %d",
	       (unsigned long long)data_offset, (unsigned long long)data_size, len, shift, (void *)ring, errno);
	CHECKF(strstr(perfring_errmsg(), want) != NULL, "want '%s' in: %s", want, perfring_errmsg());
	perfring_ring_free(ring);
	free(buf);
}

TEST(mem_ring_tiny_data_areas_refused)
{
	size_t page = rs_page(), sz;

	/* data_size says 1, 2 or 4 bytes inside a mapping that holds more. */
	for (sz = 1; sz <= 4; sz *= 2)
		expect_refused(page + 4096, page, sz, page, 0, "data_size");
	/* The legacy layout (data_size 0: the data area is the rest of the mapping). */
	for (sz = 1; sz <= 4; sz *= 2)
		expect_refused(page + sz, 0, 0, page, 0, "data area");
}

TEST(mem_ring_unaligned_offset_refused)
{
	size_t page = rs_page();

	expect_refused(page + 4096 + 8, page + 4, 4096, page, 0, "not 8-byte aligned");
	expect_refused(page + 4096 + 8, page + 1, 4096, page, 0, "not 8-byte aligned");
}

TEST(mem_ring_unaligned_base_refused)
{
	size_t page = rs_page();

	expect_refused(page + 4096, 0, 0, page, 4, "not 8-byte aligned");
}

/* Data areas that start inside the metadata fields (160 .. 1087 used to pass). */
TEST(mem_ring_data_over_metadata_refused)
{
	static const uint64_t offs[] = { 160, 512, 1024, 1040, 1080 };
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		expect_refused(8192, offs[i], 4096, 4096, 0, "overlaps the metadata page");
	/* Just past the fields is allowed: records then cannot touch them. */
	{
		uint8_t *buf = aligned_alloc(4096, 8192);
		struct perf_event_mmap_page *meta = (struct perf_event_mmap_page *)(void *)buf;
		struct perfring_ring *ring;
		uint64_t off = (sizeof(*meta) + 7) & ~(uint64_t)7;

		REQUIRE(buf);
		memset(buf, 0, 8192);
		meta->data_offset = off;
		meta->data_size = 4096;
		ring = perfring_ring_new_mem(buf, 8192, 4096, NULL);
		CHECKF(ring, "offset %llu: %s", (unsigned long long)off, perfring_errmsg());
		perfring_ring_free(ring);
		free(buf);
	}
}

/* A data area reaching past the mapping (with an offset that would wrap a
 * 64-bit sum) is refused too. */
TEST(mem_ring_data_beyond_mapping_refused)
{
	expect_refused(8192, 4096, 8192, 4096, 0, "does not fit");
	expect_refused(8192, 4096 + 8, 4096, 4096, 0, "does not fit");
	expect_refused(8192, UINT64_MAX - 7, 4096, 4096, 0, "does not fit");
}

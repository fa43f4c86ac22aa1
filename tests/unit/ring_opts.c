// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ring construction: size options (data_pages / data_bytes), the mmap
 * length, options structs of other sizes, memory rings with good and bad
 * metadata pages, and NULL handling. perfring_ring_new() is called with
 * fd -1: size validation comes first (EINVAL), a valid size then fails in
 * mmap (EBADF), which shows that EINVAL is about the size and not the fd.
 */
#include <stddef.h>

#include "harness.h"
#include "ringsim.h"

/* A failure the library surely reports, so that the next message is known to be fresh. */
static void prime_errmsg(char *copy, size_t len)
{
	errno = 0;
	if (perfring_ring_new_mem(NULL, 0, 0, NULL) == NULL)
		snprintf(copy, len, "%s", perfring_errmsg());
	else
		copy[0] = 0;
}

/* perfring_ring_new(-1, opts) must fail with want, with a fresh non-empty message. */
static void expect_new_fails(const struct perfring_ring_opts *opts, int want, const char *what)
{
	char before[600];
	struct perfring_ring *ring;
	int err;

	prime_errmsg(before, sizeof(before));
	errno = 0;
	ring = perfring_ring_new(-1, opts);
	err = errno;
	CHECKF(ring == NULL, "%s: ring created", what);
	CHECKF(err == want, "%s: errno %d (%s), want %d", what, err, strerror(err), want);
	CHECKF(perfring_errmsg()[0] != 0, "%s: empty perfring_errmsg()", what);
	CHECKF(strcmp(before, perfring_errmsg()) != 0, "%s: perfring_errmsg() not updated: %s", what, before);
	if (ring)
		perfring_ring_free(ring);
}

TEST(ring_opts_data_pages_not_power_of_two)
{
	static const size_t bad[] = { 3, 5, 6, 7, 12, 100, 65535, SIZE_MAX };
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = bad[i]);

		snprintf(what, sizeof(what), "data_pages %zu", bad[i]);
		expect_new_fails(&o, EINVAL, what);
	}
}

TEST(ring_opts_data_bytes_not_page_times_power_of_two)
{
	size_t ps = perfring_page_size();
	const size_t bad[] = { 1, 8, ps / 2, ps + 8, 3 * ps, 4 * ps + 1, 6 * ps, 12 * ps, SIZE_MAX };
	char what[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_bytes = bad[i]);

		snprintf(what, sizeof(what), "data_bytes %zu", bad[i]);
		expect_new_fails(&o, EINVAL, what);
	}
}

TEST(ring_opts_both_sizes_given)
{
	size_t ps = perfring_page_size();
	struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = 4, .data_bytes = 4 * ps);

	/* Even when they agree: at most one may be given. */
	expect_new_fails(&o, EINVAL, "data_pages 4 + data_bytes 4 pages");
	o.data_pages = 2;
	expect_new_fails(&o, EINVAL, "data_pages 2 + data_bytes 4 pages");
}

TEST(ring_opts_valid_sizes_reach_mmap)
{
	size_t ps = perfring_page_size();
	struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = 1);

	expect_new_fails(&o, EBADF, "data_pages 1");
	o.data_pages = 64;
	expect_new_fails(&o, EBADF, "data_pages 64");
	o.data_pages = 0;
	o.data_bytes = 8 * ps;
	expect_new_fails(&o, EBADF, "data_bytes 8 pages");
	expect_new_fails(NULL, EBADF, "NULL options (default size)");
}

TEST(ring_opts_mmap_len)
{
	size_t ps = perfring_page_size();
	unsigned k;

	CHECK_EQ_U64(ps, (size_t)sysconf(_SC_PAGESIZE));
	for (k = 0; k <= 12; k++)
		CHECKF(perfring_ring_mmap_len(ps << k) == (int64_t)((ps << k) + ps), "mmap_len(%zu) = %" PRId64,
		       ps << k, perfring_ring_mmap_len(ps << k));
	/* 0 is not page * 2^n, but 0 also means "the default" in the options:
	 * either reading is fair (-EINVAL, or the 64-page default). */
	CHECKF(perfring_ring_mmap_len(0) == -EINVAL || perfring_ring_mmap_len(0) == (int64_t)(65 * ps),
	       "mmap_len(0) = %" PRId64, perfring_ring_mmap_len(0));
	CHECK_EQ_INT(perfring_ring_mmap_len(1), -EINVAL);
	CHECK_EQ_INT(perfring_ring_mmap_len(ps / 2), -EINVAL);
	CHECK_EQ_INT(perfring_ring_mmap_len(ps + 8), -EINVAL);
	CHECK_EQ_INT(perfring_ring_mmap_len(3 * ps), -EINVAL);
	CHECK_EQ_INT(perfring_ring_mmap_len(5 * ps), -EINVAL);
	CHECK_EQ_INT(perfring_ring_mmap_len(SIZE_MAX), -EINVAL);
	CHECK(perfring_errmsg()[0] != 0);
}

TEST(ring_free_null_is_noop)
{
	perfring_ring_free(NULL);
	CHECK(1); /* reaching here is the test: no crash */
}

/* Opts from a newer caller: unknown trailing bytes must be zero. */
TEST(ring_opts_larger_struct)
{
	struct {
		struct perfring_ring_opts o;
		uint64_t future;
	} big;
	struct ringsim rs;
	struct perfring_ring *ring;

	REQUIRE(rs_init(&rs, 4096, false) == 0);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.future = 1;
	errno = 0;
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, &big.o);
	CHECK(ring == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(perfring_errmsg()[0] != 0);
	perfring_ring_free(ring);

	big.future = 0;
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, &big.o);
	CHECK(ring != NULL);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* Opts from an older caller: fields beyond sz are not read (here: linearize). */
TEST(ring_opts_smaller_struct_ignores_later_fields)
{
	struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .linearize = true);
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;

	REQUIRE(rs_init_at(&rs, 4096, false, 4096 - 16) == 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 48, 3);
	o.sz = offsetof(struct perfring_ring_opts, linearize);
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, &o);
	REQUIRE(ring);
	REQUIRE(perfring_ring_begin(ring) == 48);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.len, 16);
	CHECK_EQ_U64(rec.len2, 32);
	perfring_ring_commit(ring);
	perfring_ring_free(ring);

	/* The full struct: linearized. */
	o.sz = sizeof(o);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 16, 4);
	rs.meta->data_tail = 4096 - 16;
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, &o);
	REQUIRE(ring);
	REQUIRE(perfring_ring_begin(ring) == 64);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.len, 48);
	CHECK_EQ_U64(rec.len2, 0);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

TEST(ring_new_mem_null_opts_defaults)
{
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;

	REQUIRE(rs_init_at(&rs, 8192, false, 8192 - 8) == 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 24, 1);
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, NULL);
	REQUIRE(ring);
	CHECK(!perfring_ring_is_overwrite(ring));
	CHECK_EQ_U64(perfring_ring_data_size(ring), 8192);
	REQUIRE(perfring_ring_begin(ring) == 24);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_U64(rec.len, 8); /* not linearized by default */
	CHECK_EQ_U64(rec.len2, 16);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

static void expect_mem_fails(struct ringsim *rs, size_t len, const char *what)
{
	struct perfring_ring *ring;

	errno = 0;
	ring = perfring_ring_new_mem(rs->base, len, rs->page_size, NULL);
	CHECKF(ring == NULL, "%s: ring created", what);
	CHECKF(errno == EINVAL, "%s: errno %d", what, errno);
	CHECKF(perfring_errmsg()[0] != 0, "%s: empty perfring_errmsg()", what);
	perfring_ring_free(ring);
}

TEST(ring_new_mem_bad_metadata)
{
	struct ringsim rs;
	struct perfring_ring *ring;

	REQUIRE(rs_init(&rs, 8192, false) == 0);
	errno = 0;
	CHECK(perfring_ring_new_mem(NULL, rs_len(&rs), rs.page_size, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);

	/* data_size claiming more than the memory holds. */
	rs.meta->data_size = 16384;
	expect_mem_fails(&rs, rs_len(&rs), "data_size 16384 in 8192");
	/* data_size not a power of two. */
	rs.meta->data_size = 6144;
	expect_mem_fails(&rs, rs_len(&rs), "data_size 6144");
	/* data area running past the end. */
	rs.meta->data_size = 8192;
	rs.meta->data_offset = rs.page_size + 4096;
	expect_mem_fails(&rs, rs_len(&rs), "data_offset past the start");
	/* Memory shorter than the metadata page says. */
	rs.meta->data_offset = rs.page_size;
	expect_mem_fails(&rs, rs_len(&rs) - 4096, "len short of data_size");

	/* Legacy page (both 0): the area follows the page; len - page must be 2^n. */
	rs.meta->data_offset = 0;
	rs.meta->data_size = 0;
	expect_mem_fails(&rs, rs.page_size + 6144, "legacy layout, 6144-byte area");
	ring = perfring_ring_new_mem(rs.base, rs_len(&rs), rs.page_size, NULL);
	CHECK(ring != NULL);
	if (ring) {
		struct rs_collect c;

		CHECK_EQ_U64(perfring_ring_data_size(ring), 8192);
		REQUIRE(rs_collect_init(&c, &rs) == 0);
		rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 5);
		CHECK_EQ_INT(perfring_ring_consume(ring, rs_collect_cb, &c), 1);
		CHECK(c.n == 1 && c.recs[0].data == rs.data && rs_rec_is(&c, 0, PERF_RECORD_SAMPLE, 0, 32, 5));
		rs_collect_fini(&c);
	}
	perfring_ring_free(ring);
	rs_fini(&rs);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * max_sample_size: a sample that can never fit in a ring is dropped by the
 * kernel every time and never wakes the reader, so the reader refuses to be
 * built for it (E2BIG, with the buffer size needed in the message). The
 * boundary is the kernel's, measured here: the largest payload it writes
 * into an empty ring of that size.
 */
#include "ktest.h"

/* The largest payload in [lo, hi] the kernel writes into an empty ring of
 * data_bytes (found by trying), or 0. */
static uint32_t kernel_max_payload(struct ktest *kt, size_t data_bytes, uint32_t lo, uint32_t hi)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = data_bytes);
	struct perfring_reader *rd = perfring_reader_new_bpf(kt->map_fd, &opts);
	struct ktest_collect c;
	uint32_t len, best = 0;

	if (!rd)
		return 0;
	ktest_collect_init(&c, rd, 0);
	for (len = lo; len <= hi; len++) {
		struct ktest_counts b = ktest_counts(kt);

		ktest_set_len(kt, len);
		if (ktest_produce(kt, 0, 1) != 1)
			break;
		if (ktest_counts(kt).ok > b.ok)
			best = len;
		perfring_reader_consume(rd, ktest_collect_fn, &c); /* empty again */
	}
	perfring_reader_free(rd); /* its rings, and any lost count, go with it */
	return best;
}

static bool mentions_any(const char *msg, const char *const *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(msg, words[i]))
			return true;
	return false;
}

TEST(oversize_boundary_is_the_kernels)
{
	static const char *const need_2_pages[] = { "8192", "8 KiB", "2 pages" };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = page);
	struct perfring_reader *rd;
	struct ktest kt;
	uint32_t pmax;

	KTEST_SETUP(&kt, 0);
	REQUIRE(page == 4096); /* the message checks below name 4 KiB pages */
	pmax = kernel_max_payload(&kt, page, (uint32_t)page - 64, (uint32_t)page + 16);
	REQUIREF(pmax > 0, "the kernel took no payload near one page into a one-page ring");
	printf("# largest payload the kernel writes into an empty %zu-byte ring: %u\n", page, pmax);

	/* What the kernel takes, the reader accepts. */
	opts.max_sample_size = pmax;
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	CHECKF(rd != NULL, "max_sample_size %u, which the kernel writes into a %zu-byte ring, refused: %s (%s)",
	       pmax, page, strerror(errno), perfring_errmsg());
	if (rd) {
		/* And it is delivered. */
		struct ktest_collect c;

		ktest_collect_init(&c, rd, pmax);
		ktest_set_len(&kt, pmax);
		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		CHECK_EQ_INT(ktest_poll_until(rd, &c, 1, 2000000000ull), 0);
		CHECK_EQ_U64(c.samples, 1);
		KTEST_CHECK_COLLECT(&c);
		perfring_reader_free(rd);
	}

	/* One byte more, it never could: refused. */
	opts.max_sample_size = pmax + 1;
	errno = 0;
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	CHECKF(rd == NULL, "max_sample_size %u, which the kernel never writes into a %zu-byte ring, accepted",
	       pmax + 1, page);
	if (rd) {
		perfring_reader_free(rd);
	} else {
		CHECK_EQ_INT(errno, E2BIG);
		CHECKF(mentions_any(perfring_errmsg(), need_2_pages, 3),
		       "message does not name the 8192 bytes needed: %s", perfring_errmsg());
	}
	ktest_teardown(&kt);
}

TEST(oversize_larger_samples)
{
	static const char *const need_8_pages[] = { "32768", "32 KiB", "8 pages" };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1,
							      .max_sample_size = 20000);
	struct perfring_reader *rd;
	struct ktest_counts c0;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	REQUIRE(sysconf(_SC_PAGESIZE) == 4096);
	/* The kernel agrees: a 20000-byte sample does not go into 16 KiB but into 32 KiB. */
	REQUIRE(kernel_max_payload(&kt, 16384, 20000, 20000) == 0);
	REQUIRE(kernel_max_payload(&kt, 32768, 20000, 20000) == 20000);

	errno = 0;
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	CHECK(rd == NULL);
	if (rd) {
		perfring_reader_free(rd);
	} else {
		CHECK_EQ_INT(errno, E2BIG);
		CHECKF(mentions_any(perfring_errmsg(), need_8_pages, 3),
		       "message does not name the 32768 bytes needed: %s", perfring_errmsg());
	}
	opts.data_pages = 4;
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	CHECK(rd == NULL && errno == E2BIG);
	if (rd)
		perfring_reader_free(rd);
	opts.data_pages = 8;
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	CHECKF(rd != NULL, "max_sample_size 20000 with 32 KiB rings refused: %s", perfring_errmsg());
	if (rd) {
		struct ktest_collect c;

		ktest_collect_init(&c, rd, 20000);
		ktest_set_len(&kt, 20000);
		c0 = ktest_counts(&kt);
		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		CHECK_EQ_U64(ktest_counts(&kt).ok - c0.ok, 1);
		CHECK_EQ_INT(ktest_poll_until(rd, &c, 1, 2000000000ull), 0);
		CHECK_EQ_U64(c.samples, 1);
		KTEST_CHECK_COLLECT(&c);
		perfring_reader_free(rd);
	}
	ktest_teardown(&kt);
}

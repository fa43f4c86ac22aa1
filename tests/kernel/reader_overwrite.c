// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Overwritable rings (write_backward): the kernel keeps the newest records
 * and never drops; a read returns them newest first, each whole, and the
 * next read only what was written since.
 */
#include "ktest.h"

static void overwrite_case(uint32_t len, uint32_t produce, int cpu, bool linearize)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1,
							      .overwrite = true, .linearize = linearize);
	struct ktest_counts c0, c1;
	struct perfring_reader *rd;
	struct ktest_collect c;
	uint64_t fit, last, i;
	size_t bufsz;
	struct ktest kt;
	int ret, ri;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, cpu + 1);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf(overwritable): %s", perfring_errmsg());
	ri = perfring_reader_cpu_ring(rd, cpu);
	REQUIRE(ri >= 0);
	CHECK(perfring_ring_is_overwrite(perfring_reader_ring(rd, ri)));
	bufsz = perfring_reader_data_size(rd);
	/* Whole records in the last bufsz bytes written: the one beyond was
	 * partly overwritten and must not be delivered. */
	fit = bufsz / ktest_record_size(len);

	ktest_collect_init(&c, rd, len);
	c.backward = true;
	c.linear = linearize;
	c.want_cpu = cpu;
	c.seq_cap = produce + 16;
	c.seqs = calloc(c.seq_cap, sizeof(*c.seqs));
	REQUIRE(c.seqs);

	ktest_set_len(&kt, len);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, cpu, produce) == produce);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.ok - c0.ok, produce);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 0);
	last = c1.seq - 1;

	ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
	CHECKF(ret == (int)(produce < fit ? produce : fit),
	       "len %u: %u records in a %zu-byte overwrite ring: read %d, %llu fit whole", len, produce, bufsz, ret,
	       (unsigned long long)fit);
	KTEST_CHECK_COLLECT(&c);
	CHECK_EQ_U64(c.lost, 0);
	REQUIRE(c.nseq >= 1);
	CHECK_EQ_U64(c.seqs[0], last);
	for (i = 1; i < c.nseq && i < c.seq_cap; i++)
		if (c.seqs[i] != c.seqs[i - 1] - 1) {
			CHECKF(0, "record %llu: seq %llu after %llu", (unsigned long long)i,
			       (unsigned long long)c.seqs[i], (unsigned long long)c.seqs[i - 1]);
			break;
		}
	/* Read again with nothing new: nothing. */
	ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, 0);

	/* Output was resumed after the read: three more, and only those come. */
	c.nseq = 0;
	c.ring[ri].any_sample = false;
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, cpu, 3) == 3);
	c1 = ktest_counts(&kt);
	CHECKF(c1.ok - c0.ok == 3, "after a read the producer got ok %llu, enoent %llu of 3",
	       (unsigned long long)(c1.ok - c0.ok), (unsigned long long)(c1.enoent - c0.enoent));
	ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, 3);
	KTEST_CHECK_COLLECT(&c);
	if (c.nseq == 3) {
		CHECK_EQ_U64(c.seqs[0], c1.seq - 1);
		CHECK_EQ_U64(c.seqs[1], c1.seq - 2);
		CHECK_EQ_U64(c.seqs[2], c1.seq - 3);
	}

	/* And overflowing again gives the newest window again. */
	c.nseq = 0;
	c.ring[ri].any_sample = false;
	REQUIRE(ktest_produce(&kt, cpu, produce) == produce);
	c1 = ktest_counts(&kt);
	ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, (int)(produce < fit ? produce : fit));
	KTEST_CHECK_COLLECT(&c);
	if (c.nseq >= 1) {
		CHECK_EQ_U64(c.seqs[0], c1.seq - 1);
		CHECK_EQ_U64(c.seqs[c.nseq - 1], c1.seq - c.nseq);
	}
	free(c.seqs);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* 72-byte records: 56 whole in a page, the 57th partly overwritten. */
TEST(overwrite_newest_first)
{
	overwrite_case(60, 200, 0, false);
}

/* Records that do not divide the ring and straddle its end. */
TEST(overwrite_straddling)
{
	overwrite_case(100, 300, 1, false);
}

TEST(overwrite_straddling_linearize)
{
	overwrite_case(1000, 40, 0, true);
}

/* A ring never filled: the read stops at the end of what was written. */
TEST(overwrite_not_full)
{
	overwrite_case(64, 5, 0, false);
}

/* Records that divide the ring exactly: the whole ring is valid. */
TEST(overwrite_exact_fit)
{
	overwrite_case(116, 100, 1, false);
}

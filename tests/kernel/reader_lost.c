// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Ring overflow: with nobody reading, a small ring takes the first records
 * and the kernel drops the rest, counting them; the count arrives as a
 * PERF_RECORD_LOST in front of the next record that fits. Received + lost
 * must equal produced exactly, and match the producer's own counts of
 * bpf_perf_event_output() results (out_ok, out_enospc).
 */
#include "ktest.h"

/* One overflow round on both CPUs, then the reads that must account for it. */
static void overflow_round(struct ktest *kt, struct perfring_reader *rd, uint32_t len, uint32_t per_cpu)
{
	struct ktest_counts before = ktest_counts(kt), mid, after;
	struct perfring_ring_stats st0[2], st;
	uint64_t first[2], ok[2], dropped[2], got[2] = { 0, 0 };
	size_t bufsz = perfring_reader_data_size(rd), i;
	struct ktest_collect c;
	int cpu, ri, ret;

	for (cpu = 0; cpu < 2; cpu++)
		REQUIRE(perfring_reader_stats(rd, perfring_reader_cpu_ring(rd, cpu), &st0[cpu]) == 0);

	ktest_set_len(kt, len);
	for (cpu = 0; cpu < 2; cpu++) {
		struct ktest_counts b = ktest_counts(kt), a;

		first[cpu] = b.seq;
		REQUIRE(ktest_produce(kt, cpu, per_cpu) == per_cpu);
		a = ktest_counts(kt);
		ok[cpu] = a.ok - b.ok;
		dropped[cpu] = a.enospc - b.enospc;
		CHECK_EQ_U64(ok[cpu] + dropped[cpu], per_cpu);
		CHECKF(dropped[cpu] > 0, "cpu %d: %u records of %u bytes into a %zu-byte ring: none dropped", cpu,
		       per_cpu, len, bufsz);
		/* The ring was empty (everything before was read and committed):
		 * it takes as many records as fit, the kernel keeping 8 bytes free. */
		CHECKF(ok[cpu] == (bufsz - 8) / ktest_record_size(len),
		       "cpu %d: an empty %zu-byte ring took %llu records of %zu bytes", cpu, bufsz,
		       (unsigned long long)ok[cpu], ktest_record_size(len));
	}
	mid = ktest_counts(kt);
	CHECK_EQ_U64(mid.enoent - before.enoent, 0);
	CHECK_EQ_U64(mid.other - before.other, 0);

	ktest_collect_init(&c, rd, len);
	c.seq_cap = 2 * (size_t)per_cpu + 2;
	c.seqs = calloc(c.seq_cap, sizeof(*c.seqs));
	REQUIRE(c.seqs);

	/* The records that fitted are all there, the lost count not yet. */
	ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
	CHECK_EQ_INT(ret, (int)(ok[0] + ok[1]));
	CHECK_EQ_U64(c.lost, 0);
	/* Exactly the first ok[cpu] records of each CPU's block. */
	for (i = 0; i < c.nseq && i < c.seq_cap; i++)
		for (cpu = 0; cpu < 2; cpu++)
			if (c.seqs[i] >= first[cpu] && c.seqs[i] < first[cpu] + ok[cpu])
				got[cpu]++;
	CHECK_EQ_U64(got[0], ok[0]);
	CHECK_EQ_U64(got[1], ok[1]);

	/* One more record on each CPU brings the LOST record out, in front of it. */
	for (cpu = 0; cpu < 2; cpu++) {
		uint64_t lost_before, samples_before, s0 = ktest_counts(kt).seq;

		ri = perfring_reader_cpu_ring(rd, cpu);
		lost_before = c.ring[ri].lost;
		samples_before = c.ring[ri].samples;
		REQUIRE(ktest_produce(kt, cpu, 1) == 1);
		ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
		CHECKF(ret == 2, "cpu %d: consume after the overflow returned %d, expected LOST + SAMPLE", cpu, ret);
		CHECK_EQ_U64(c.ring[ri].lost - lost_before, dropped[cpu]);
		CHECK_EQ_U64(c.ring[ri].samples - samples_before, 1);
		CHECK_EQ_U64(c.ring[ri].last_seq, s0);
	}
	after = ktest_counts(kt);
	CHECK_EQ_U64(after.ok - before.ok, c.samples);
	CHECK_EQ_U64(after.enospc - before.enospc, c.lost);
	CHECK_EQ_U64(c.samples + c.lost, after.seq - before.seq);
	CHECK_EQ_U64(c.lost_events, 2);
	KTEST_CHECK_COLLECT(&c);

	/* Per-ring counters agree with what was delivered. */
	for (cpu = 0; cpu < 2; cpu++) {
		ri = perfring_reader_cpu_ring(rd, cpu);
		CHECK_EQ_INT(perfring_reader_stats(rd, ri, &st), 0);
		CHECK_EQ_U64(st.lost - st0[cpu].lost, dropped[cpu]);
		CHECK_EQ_U64(st.lost_records - st0[cpu].lost_records, 1);
		CHECK_EQ_U64(st.records - st0[cpu].records, c.ring[ri].events);
		CHECK_EQ_U64(st.bytes - st0[cpu].bytes, c.ring[ri].bytes);
		CHECK_EQ_U64(st.corrupt, 0);
	}
	free(c.seqs);
}

/* Several rounds on the smallest ring, with sizes that do and do not divide it. */
TEST(lost_exact_accounting)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	overflow_round(&kt, rd, 64, 1000);
	overflow_round(&kt, rd, 100, 500);
	overflow_round(&kt, rd, 17, 3000);
	overflow_round(&kt, rd, 1000, 50);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* The same through perfring_reader_read(): LOST comes out as its own record. */
TEST(lost_read_copyout)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	struct perfring_msg_buf rr;
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	uint64_t samples = 0, lost = 0, next_seq = 0;
	struct ktest kt;
	char why[256];
	int ret;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_set_len(&kt, 200);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 400) == 400);
	REQUIRE(ktest_produce(&kt, 0, 1) == 1); /* still full: also lost */
	c1 = ktest_counts(&kt);
	REQUIRE(c1.enospc - c0.enospc > 0);
	/* Drain, then one record that fits carries the lost count. */
	while ((ret = perfring_reader_read(rd, &rr, 0)) == 0) {
		struct ktest_sample s;

		REQUIRE(rr.kind == PERFRING_MSG_SAMPLE);
		if (ktest_check_payload(rr.data, rr.size, NULL, 0, 200, 0, &s, why, sizeof(why)))
			CHECKF(0, "%s", why);
		CHECK_EQ_U64(s.seq, next_seq);
		next_seq = s.seq + 1;
		samples++;
	}
	CHECKF(ret == -ETIMEDOUT, "read on an empty reader with timeout 0: %d (%s)", ret, perfring_strerror(ret));
	CHECK_EQ_U64(samples, c1.ok - c0.ok);
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	ret = perfring_reader_read(rd, &rr, 1000000000ll);
	REQUIREF(ret == 0, "read: %d", ret);
	CHECK_EQ_INT(rr.kind, PERFRING_MSG_LOST);
	CHECK_EQ_INT(rr.cpu, 0);
	CHECK_EQ_INT(rr.type, 2 /* PERF_RECORD_LOST */);
	lost = rr.lost;
	CHECK_EQ_U64(lost, c1.enospc - c0.enospc);
	ret = perfring_reader_read(rd, &rr, 1000000000ll);
	REQUIREF(ret == 0, "read: %d", ret);
	CHECK_EQ_INT(rr.kind, PERFRING_MSG_SAMPLE);
	samples++;
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(samples + lost, c1.seq - c0.seq);
	CHECK_EQ_U64(samples, c1.ok - c0.ok);
	CHECK_EQ_U64(lost, c1.enospc - c0.enospc);
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

struct order_count {
	uint64_t samples, lost;
};

static int order_count_fn(const struct perfring_msg *ev, void *ctx)
{
	struct order_count *c = ctx;

	if (ev->kind == PERFRING_MSG_LOST)
		c->lost += ev->lost;
	else if (ev->kind == PERFRING_MSG_SAMPLE)
		c->samples++;
	return PERFRING_CONTINUE;
}

/* Drain a time-ordered reader until nothing is held (the window is 1 ns: a
 * drain that sees nothing new releases what it held). */
static void order_drain_all(struct perfring_reader *rd, struct order_count *c)
{
	int i;

	for (i = 0; i < 4; i++)
		REQUIRE(perfring_reader_consume(rd, order_count_fn, c) >= 0);
}

/* Through the time-order merge (order_window_ns) the ring's counters count
 * the LOST records as an unordered drain does: perfring trace's default
 * reader once said "cpu 0: 0 lost" beside thousands of LOST events. */
TEST(lost_counted_in_time_order)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1,
							      .order_window_ns = 1, .order_time_offset = 0);
	struct perfring_ring_stats st0, st;
	struct order_count c = { 0, 0 };
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	struct ktest kt;
	int ri;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ri = perfring_reader_cpu_ring(rd, 0);
	REQUIRE(ri >= 0);
	REQUIRE(perfring_reader_stats(rd, ri, &st0) == 0);
	ktest_set_len(&kt, 200);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 400) == 400);
	order_drain_all(rd, &c);
	REQUIRE(ktest_produce(&kt, 0, 1) == 1); /* fits: the LOST record in front of it */
	order_drain_all(rd, &c);
	c1 = ktest_counts(&kt);
	REQUIRE(c1.enospc - c0.enospc > 0);
	CHECK_EQ_U64(c.lost, c1.enospc - c0.enospc);
	CHECK_EQ_U64(c.samples, c1.ok - c0.ok);
	CHECK_EQ_U64(c.samples + c.lost, c1.seq - c0.seq);
	CHECK_EQ_INT(perfring_reader_stats(rd, ri, &st), 0);
	CHECK_EQ_U64(st.lost - st0.lost, c.lost);
	CHECK_EQ_U64(st.lost_records - st0.lost_records, 1);
	CHECK_EQ_U64(st.records - st0.records, c.samples + 1);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

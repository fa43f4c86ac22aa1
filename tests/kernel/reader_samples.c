// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_reader_consume_samples(): the libbpf-shaped drain. Every payload
 * arrives whole and contiguous (wrapped ones linearised), LOST counts go to
 * lost_fn and add up with the received samples to what was produced, and
 * early stop and callback errors behave as for the other drains.
 */
#include <linux/perf_event.h>

#include "ktest.h"

struct samples_seen {
	uint64_t samples, lost, lost_calls, bad;
	uint32_t want_len;
	int want_cpu;
	int stop_after;  /* return PERFRING_STOP at this sample (0: never) */
	int fail_at;     /* return -EIO at this sample, once (0: never) */
	uint64_t next_seq;
	char why[256];
};

static int on_sample(void *ctx, int cpu, const void *data, size_t size)
{
	struct samples_seen *s = ctx;
	struct ktest_sample ks;

	if (s->fail_at && (int)s->samples + 1 == s->fail_at) {
		s->fail_at = 0;
		return -EIO;
	}
	if (cpu != s->want_cpu ||
	    ktest_check_payload(data, size, NULL, 0, s->want_len, s->want_cpu, &ks, s->why, sizeof(s->why)))
		s->bad++;
	else if (s->next_seq && ks.seq < s->next_seq)
		s->bad++; /* out of order or delivered twice */
	else
		s->next_seq = ks.seq + 1;
	s->samples++;
	if (s->stop_after && (int)s->samples == s->stop_after)
		return PERFRING_STOP;
	return PERFRING_CONTINUE;
}

static void on_lost(void *ctx, int cpu, uint64_t lost)
{
	struct samples_seen *s = ctx;

	s->lost += lost;
	s->lost_calls++;
}

/* One page per CPU and odd sizes: records wrap at many offsets. */
TEST(consume_samples_whole_payloads_and_lost)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	static const uint32_t lens[] = { 16, 17, 100, 333, 1000, 2500, 4000 };
	struct perfring_reader *rd;
	struct ktest kt;
	size_t i;
	int round;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "reader: %s", perfring_errmsg());
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct samples_seen s = { .want_len = lens[i], .want_cpu = 0 };
		struct ktest_counts before, after;
		uint64_t records = 0;

		ktest_set_len(&kt, lens[i]);
		before = ktest_counts(&kt);
		for (round = 0; round < 12; round++) {
			int n;

			/* Rounds 0-9 fit; 10 and 11 overflow the ring. */
			uint32_t overflow = (uint32_t)(2 * perfring_reader_data_size(rd) / ktest_record_size(lens[i]) + 2);

			REQUIRE(ktest_produce(&kt, 0, round < 10 ? (uint32_t)(1 + round % 3) : overflow) > 0);
			n = perfring_reader_consume_samples(rd, on_sample, on_lost, &s);
			REQUIREF(n >= 0, "len %u round %d: %d %s", lens[i], round, n, perfring_errmsg());
			records += (uint64_t)n;
		}
		after = ktest_counts(&kt);
		CHECKF(s.bad == 0, "len %u: %llu bad samples, first: %s", lens[i], (unsigned long long)s.bad, s.why);
		CHECK_EQ_U64(s.samples, after.ok - before.ok);
		/* The last overflow's LOST record comes with the next record that fits. */
		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		REQUIRE(perfring_reader_consume_samples(rd, on_sample, on_lost, &s) >= 1);
		after = ktest_counts(&kt);
		CHECK_EQ_U64(s.samples, after.ok - before.ok);
		CHECK_EQ_U64(s.lost, after.enospc - before.enospc);
		CHECKF(s.lost > 0, "len %u: the overflow rounds lost nothing", lens[i]);
		CHECK(s.lost_calls > 0);
		(void)records;
	}
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

TEST(consume_samples_early_stop_and_error)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 4);
	struct samples_seen s = { .want_len = 64, .want_cpu = 1, .stop_after = 3 };
	struct perfring_reader *rd;
	struct perfring_ring_stats st;
	struct ktest kt;
	int n;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "reader: %s", perfring_errmsg());
	ktest_set_len(&kt, 64);
	REQUIRE(ktest_produce(&kt, 1, 10) == 10);
	n = perfring_reader_consume_samples(rd, on_sample, NULL, &s);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_U64(s.samples, 3);
	/* The sample after the stop fails: not consumed, so it comes again. */
	s.stop_after = 0;
	s.fail_at = 4;
	n = perfring_reader_consume_samples(rd, on_sample, NULL, &s);
	CHECK_EQ_INT(n, -EIO);
	CHECK_EQ_U64(s.samples, 3);
	n = perfring_reader_consume_samples(rd, on_sample, NULL, &s);
	CHECK_EQ_INT(n, 7);
	CHECK_EQ_U64(s.samples, 10);
	CHECKF(s.bad == 0, "%llu bad samples, first: %s", (unsigned long long)s.bad, s.why);
	REQUIRE(perfring_reader_stats(rd, perfring_reader_cpu_ring(rd, 1), &st) == 0);
	CHECK_EQ_U64(st.records, 10);
	CHECK_EQ_U64(st.bytes, 10 * ktest_record_size(64));
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, NULL, NULL, NULL), -EINVAL);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/*
 * The same over batches longer than the drain's prefetch distance (2 KiB),
 * whose walk takes the records ending that far before the stretch's end in
 * a loop of its own, then the rest: a stop and a failure inside the first
 * loop, a stop at the first record past it (the 125th of 150 80-byte
 * records ends 2000 bytes before the end), then a batch that wraps at the
 * end of the 16 KiB data area. Every sample once, in order.
 */
TEST(consume_samples_stop_and_error_long_batches)
{
	static const int cpus[] = { 1 };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 4, .cpus = cpus,
							      .cpu_cnt = 1);
	struct samples_seen s = { .want_len = 64, .want_cpu = 1, .stop_after = 30 };
	struct perfring_reader *rd;
	struct perfring_ring_stats st;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "reader: %s", perfring_errmsg());
	REQUIRE(perfring_reader_data_size(rd) == 4 * 4096 && ktest_record_size(64) == 80);
	ktest_set_len(&kt, 64);
	REQUIRE(ktest_produce(&kt, 1, 150) == 150);
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), 30);
	s.stop_after = 0;
	s.fail_at = 60; /* samples 31-59, then the 60th fails */
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), -EIO);
	CHECK_EQ_U64(s.samples, 59);
	s.stop_after = 125;
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), 66);
	s.stop_after = 0;
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), 25);
	CHECK_EQ_U64(s.samples, 150);
	/* From byte 12000 on: the 55th record straddles the end. */
	REQUIRE(ktest_produce(&kt, 1, 150) == 150);
	s.fail_at = 250;
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), -EIO);
	CHECK_EQ_U64(s.samples, 249);
	CHECK_EQ_INT(perfring_reader_consume_samples(rd, on_sample, NULL, &s), 51);
	CHECK_EQ_U64(s.samples, 300);
	CHECKF(s.bad == 0, "%llu bad samples, first: %s", (unsigned long long)s.bad, s.why);
	REQUIRE(perfring_reader_stats(rd, perfring_reader_cpu_ring(rd, 1), &st) == 0);
	CHECK_EQ_U64(st.records, 300);
	CHECK_EQ_U64(st.bytes, 300 * ktest_record_size(64));
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/* The inline cursor over a reader's rings, on real BPF output: the same
 * guarantees as the callbacks (whole payloads, exact lost counts). */
TEST(cursor_on_real_rings)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	static const uint32_t lens[] = { 16, 100, 1000, 3000 };
	struct perfring_reader *rd;
	struct ktest kt;
	size_t i;
	int round;

	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "reader: %s", perfring_errmsg());
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct ktest_counts before, after;
		uint64_t samples = 0, lost = 0, bad = 0;
		struct perfring_ring *ring = perfring_reader_ring(rd, perfring_reader_cpu_ring(rd, 0));
		char why[256] = "";

		REQUIRE(ring);
		ktest_set_len(&kt, lens[i]);
		before = ktest_counts(&kt);
		for (round = 0; round < 13; round++) {
			uint32_t overflow = (uint32_t)(2 * perfring_reader_data_size(rd) / ktest_record_size(lens[i]) + 2);
			const struct perfring_header *h;
			struct perfring_cursor c;

			/* Rounds 0-9 fit, 10 and 11 overflow, 12 brings the last LOST. */
			REQUIRE(ktest_produce(&kt, 0, round < 10 || round == 12 ? (uint32_t)(1 + round % 3) : overflow) > 0);
			CHECK(perfring_ring_cursor(ring, &c) >= 0);
			while ((h = perfring_cursor_next(&c))) {
				struct ktest_sample ks;
				uint32_t size;
				const void *payload;

				if (h->type == PERF_RECORD_LOST) {
					uint64_t n;

					memcpy(&n, (const char *)h + 16, sizeof(n));
					lost += n;
					continue;
				}
				payload = h->type == PERF_RECORD_SAMPLE ? perfring_bpf_sample(h, &size) : NULL;
				if (!payload || ktest_check_payload(payload, size, NULL, 0, lens[i], 0, &ks, why, sizeof(why)))
					bad++;
				samples++;
			}
			CHECK_EQ_INT(c.err, 0);
			perfring_ring_cursor_commit(ring, &c);
		}
		after = ktest_counts(&kt);
		CHECKF(bad == 0, "len %u: %llu bad samples, first: %s", lens[i], (unsigned long long)bad, why);
		CHECK_EQ_U64(samples, after.ok - before.ok);
		CHECK_EQ_U64(lost, after.enospc - before.enospc);
		CHECKF(lost > 0, "len %u: the overflow rounds lost nothing", lens[i]);
	}
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

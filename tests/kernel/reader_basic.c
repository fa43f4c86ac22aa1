// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Payloads written by bpf_perf_event_output() arrive intact through every
 * delivery path of a BPF reader (poll, consume, read, with and without
 * linearize), for payload sizes around the kernel's padding and up to the
 * smallest buffer that holds them, so that records straddle the end of the
 * ring again and again.
 */
#include "ktest.h"

static const uint32_t payload_sizes[] = { 16, 17, 63, 64, 100, 1000, 4000, 8000 };

enum mode { MODE_POLL, MODE_CONSUME, MODE_READ };

/* The smallest legal data area that takes one record of len bytes: the
 * kernel leaves at least 8 bytes free between head and tail. */
static size_t smallest_buffer(uint32_t len)
{
	size_t b = (size_t)sysconf(_SC_PAGESIZE);

	while (ktest_record_size(len) + 8 > b)
		b *= 2;
	return b;
}

/* Read exactly cnt samples produced on cpu as seqs first..first+cnt-1.
 * Returns false if they did not arrive (the test has failed). */
static bool read_batch(struct perfring_reader *rd, enum mode mode, struct ktest_collect *c,
		       struct perfring_msg_buf *rr, uint32_t len, int cpu, uint64_t first, uint64_t cnt)
{
	uint64_t before = c->nseq, i;
	char why[256];
	int ret;

	c->want_cpu = cpu;
	switch (mode) {
	case MODE_POLL:
		ret = ktest_poll_until(rd, c, c->events + cnt, 5000000000ull);
		CHECKF(ret == 0, "len %u: poll for %llu records: %d (%s)", len, (unsigned long long)cnt, ret,
		       perfring_strerror(ret));
		break;
	case MODE_CONSUME:
		ret = perfring_reader_consume(rd, ktest_collect_fn, c);
		CHECKF(ret == (int)cnt, "len %u: consume returned %d, %llu records were written", len, ret,
		       (unsigned long long)cnt);
		break;
	case MODE_READ:
		for (i = 0; i < cnt; i++) {
			struct ktest_sample s;

			ret = perfring_reader_read(rd, rr, 1000000000ll);
			if (ret) {
				CHECKF(ret == 0, "len %u: read %llu of %llu: %d (%s)", len, (unsigned long long)i,
				       (unsigned long long)cnt, ret, perfring_strerror(ret));
				return false;
			}
			CHECK_EQ_INT(rr->kind, PERFRING_MSG_SAMPLE);
			CHECK_EQ_INT(rr->cpu, cpu);
			CHECK_EQ_INT(rr->type, 9 /* PERF_RECORD_SAMPLE */);
			CHECK_EQ_U64(rr->size, ktest_padded(len));
			CHECK(rr->capacity >= rr->size);
			if (ktest_check_payload(rr->data, rr->size, NULL, 0, len, cpu, &s, why, sizeof(why)))
				CHECKF(0, "len %u: read: %s", len, why);
			else
				CHECK_EQ_U64(s.seq, first + i);
		}
		c->nseq += cnt;
		return true;
	}
	CHECKF(c->nseq - before == cnt, "len %u: %llu samples arrived, %llu were written", len,
	       (unsigned long long)(c->nseq - before), (unsigned long long)cnt);
	for (i = 0; i < cnt && before + i < c->nseq; i++)
		if (c->seqs[before + i] != first + i) {
			CHECKF(0, "len %u: sample %llu of the batch has seq %llu, expected %llu", len,
			       (unsigned long long)i, (unsigned long long)c->seqs[before + i],
			       (unsigned long long)(first + i));
			break;
		}
	return c->nseq - before == cnt;
}

static void run_size(struct ktest *kt, enum mode mode, bool linearize, uint32_t len, struct perfring_msg_buf *rr)
{
	size_t buf = smallest_buffer(len), rsz = ktest_record_size(len);
	uint64_t batch = (buf - 8) / rsz;
	/* Enough records for every ring to wrap several times. */
	uint64_t total = 8 * buf / rsz + 2, done = 0, b;
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = buf,
							      .linearize = linearize);
	struct ktest_counts c0 = ktest_counts(kt), c1;
	struct perfring_reader *rd;
	struct perfring_ring_stats st;
	struct ktest_collect c;
	uint64_t ring_samples[2] = { 0, 0 };
	int cpu, idx;

	if (total < 8)
		total = 8;
	ktest_set_len(kt, len);
	rd = perfring_reader_new_bpf(kt->map_fd, &opts);
	REQUIREF(rd, "len %u buffer %zu: perfring_reader_new_bpf: %s (%s)", len, buf, strerror(errno),
		 perfring_errmsg());
	CHECK_EQ_U64(perfring_reader_data_size(rd), buf);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), kt->ncpus);
	for (cpu = 0; cpu < 2; cpu++) {
		idx = perfring_reader_cpu_ring(rd, cpu);
		CHECKF(idx >= 0 && perfring_reader_ring_cpu(rd, idx) == cpu, "cpu %d: ring %d labelled cpu %d", cpu,
		       idx, idx >= 0 ? perfring_reader_ring_cpu(rd, idx) : -1);
	}
	ktest_collect_init(&c, rd, len);
	c.linear = linearize;
	c.seq_cap = total;
	c.seqs = calloc(total, sizeof(*c.seqs));
	REQUIRE(c.seqs);

	for (b = 0; done < total; b++) {
		uint64_t n = batch < total - done ? batch : total - done;
		uint64_t first = ktest_counts(kt).seq;
		int64_t ran;

		cpu = (int)(b % 2);
		ran = ktest_produce(kt, cpu, (uint32_t)n);
		if (ran != (int64_t)n) {
			CHECKF(0, "len %u: producing %llu on cpu %d: %lld", len, (unsigned long long)n, cpu,
			       (long long)ran);
			break;
		}
		if (!read_batch(rd, mode, &c, rr, len, cpu, first, n))
			break; /* reported; the rest would only repeat it */
		ring_samples[cpu] += n;
		done += n;
	}

	c1 = ktest_counts(kt);
	CHECK_EQ_U64(c1.ok - c0.ok, total);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 0);
	CHECK_EQ_U64(c1.enoent - c0.enoent, 0);
	CHECK_EQ_U64(c1.other - c0.other, 0);
	CHECK_EQ_U64(c.nseq, total);
	CHECK_EQ_U64(c.lost, 0);
	KTEST_CHECK_COLLECT(&c);
	if (mode != MODE_READ && rsz % 8 == 0 && buf % rsz != 0)
		CHECKF(c.straddled > 0, "len %u: no record straddled the end of a %zu-byte ring", len, buf);
	for (cpu = 0; cpu < 2; cpu++) {
		idx = perfring_reader_cpu_ring(rd, cpu);
		if (idx < 0)
			continue;
		CHECK_EQ_INT(perfring_reader_stats(rd, idx, &st), 0);
		CHECK_EQ_U64(st.records, ring_samples[cpu]);
		CHECK_EQ_U64(st.bytes, ring_samples[cpu] * rsz);
		CHECK_EQ_U64(st.lost, 0);
		CHECK_EQ_U64(st.corrupt, 0);
	}
	free(c.seqs);
	perfring_reader_free(rd);
}

static void run_mode(enum mode mode, bool linearize)
{
	struct perfring_msg_buf rr;
	struct ktest kt;
	size_t i;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	for (i = 0; i < sizeof(payload_sizes) / sizeof(payload_sizes[0]); i++)
		run_size(&kt, mode, linearize, payload_sizes[i], &rr);
	perfring_msg_buf_release(&rr);
	ktest_teardown(&kt);
}

TEST(basic_poll)
{
	run_mode(MODE_POLL, false);
}

TEST(basic_poll_linearize)
{
	run_mode(MODE_POLL, true);
}

TEST(basic_consume)
{
	run_mode(MODE_CONSUME, false);
}

TEST(basic_consume_linearize)
{
	run_mode(MODE_CONSUME, true);
}

TEST(basic_read)
{
	run_mode(MODE_READ, false);
}

TEST(basic_read_linearize)
{
	run_mode(MODE_READ, true);
}

/* perfring_reader_read() reuses the caller's buffer: after the first large
 * record neither its address nor its capacity changes. */
TEST(basic_read_buffer_reuse)
{
	static const uint32_t order[] = { 8000, 16, 4000, 8000, 100, 63, 1000, 17 };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 4);
	struct perfring_msg_buf rr;
	struct perfring_reader *rd;
	struct ktest kt;
	size_t cap0 = 0, i;
	void *data0 = NULL;
	char why[256];

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &opts);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint64_t first = ktest_counts(&kt).seq;
		struct ktest_sample s;
		int ret;

		ktest_set_len(&kt, order[i]);
		REQUIRE(ktest_produce(&kt, 0, 1) == 1);
		ret = perfring_reader_read(rd, &rr, 1000000000ll);
		REQUIREF(ret == 0, "read %zu: %d (%s)", i, ret, perfring_strerror(ret));
		CHECK_EQ_INT(rr.kind, PERFRING_MSG_SAMPLE);
		CHECK_EQ_INT(rr.cpu, 0);
		CHECK_EQ_U64(rr.size, ktest_padded(order[i]));
		if (ktest_check_payload(rr.data, rr.size, NULL, 0, order[i], 0, &s, why, sizeof(why)))
			CHECKF(0, "read %zu: %s", i, why);
		else
			CHECK_EQ_U64(s.seq, first);
		if (i == 0) {
			cap0 = rr.capacity;
			data0 = rr.data;
			CHECK(cap0 >= ktest_padded(8000));
		} else {
			CHECKF(rr.capacity == cap0, "read %zu (len %u): capacity %zu, was %zu after the first record", i,
			       order[i], rr.capacity, cap0);
			CHECKF(rr.data == data0, "read %zu (len %u): buffer moved", i, order[i]);
		}
	}
	CHECK_EQ_U64(ktest_counts(&kt).ok, sizeof(order) / sizeof(order[0]));
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/*
 * A record placed at each awkward position near the end of a one-page ring:
 * header in the last 8 bytes (size field and payload at the start), size
 * field last (payload all at the start), payload split after 4, 12, 20 bytes.
 * A filler record of exactly the right size puts it there.
 */
TEST(basic_boundary_positions)
{
	static const uint32_t lens[] = { 16, 17, 100 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perfring_msg_buf rr;
	struct ktest kt;
	size_t p, li;
	int mode;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	for (p = page - 8; p >= page - 40; p -= 8) {
		/* Filler: a record of p bytes is a payload of p - 12 (already padded). */
		uint32_t filler = (uint32_t)(p - 12);

		REQUIRE(ktest_record_size(filler) == p);
		for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			for (mode = 0; mode < 3; mode++) {
				struct perfring_reader_opts opts = PERFRING_OPTS_INIT(
					perfring_reader_opts, .data_bytes = page, .linearize = mode == 1);
				struct perfring_reader *rd = perfring_reader_new_bpf(kt.map_fd, &opts);
				struct ktest_collect c;
				uint64_t seq;
				int ret;

				REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
				ktest_collect_init(&c, rd, 0);
				c.linear = mode == 1;
				c.want_cpu = 0;
				ktest_set_len(&kt, filler);
				REQUIRE(ktest_produce(&kt, 0, 1) == 1);
				CHECK_EQ_INT(perfring_reader_consume(rd, ktest_collect_fn, &c), 1);
				ktest_set_len(&kt, lens[li]);
				seq = ktest_counts(&kt).seq;
				REQUIRE(ktest_produce(&kt, 0, 1) == 1);
				if (mode < 2) {
					ret = perfring_reader_consume(rd, ktest_collect_fn, &c);
					CHECKF(ret == 1, "record at ring position %zu: consume returned %d", p, ret);
					CHECK_EQ_U64(c.ring[0].last_seq, seq);
					CHECK_EQ_U64(c.ring[0].last_offset, p);
				} else {
					char why[256];
					struct ktest_sample s;

					ret = perfring_reader_read(rd, &rr, 1000000000ll);
					CHECKF(ret == 0, "record at ring position %zu: read returned %d", p, ret);
					if (ret == 0 && ktest_check_payload(rr.data, rr.size, NULL, 0, lens[li], 0, &s,
									    why, sizeof(why)))
						CHECKF(0, "record at ring position %zu: %s", p, why);
					else if (ret == 0)
						CHECK_EQ_U64(s.seq, seq);
				}
				CHECKF(c.errors == 0, "len %u at ring position %zu (%s): %s", lens[li], p,
				       mode == 0 ? "consume" : mode == 1 ? "linearize" : "read", c.error);
				CHECK_EQ_U64(ktest_counts(&kt).enospc, 0);
				perfring_reader_free(rd);
			}
		}
	}
	perfring_msg_buf_release(&rr);
	ktest_teardown(&kt);
}

/*
 * The zero-copy callback stopped and failed mid-batch, and the raw record
 * and remaining bytes worked out on demand (perfring_msg_record(),
 * perfring_msg_remaining()): a record the callback fails is delivered again
 * by the next call, a record it stops at is consumed, and every record's
 * view agrees with the ring: payload right after the header and raw size,
 * offsets contiguous, remaining counting down by record sizes to 0 at the
 * end of the batch.
 */
struct stop_check {
	int cpu;
	uint32_t len;
	uint64_t calls, fail_at, stop_at; /* call numbers from 1; 0: never */
	uint64_t seqs[320];
	size_t nseq;
	uint64_t first_remaining, last_remaining, next_offset;
	bool any, in_call; /* a record seen at all, and in this call */
	int errors;
	char error[256];
};

static int stop_check_fn(const struct perfring_msg *ev, void *ctx)
{
	struct stop_check *k = ctx;
	const struct perfring_ring_record *rec = perfring_msg_record(ev);
	uint64_t remaining = perfring_msg_remaining(ev);
	struct ktest_sample s;
	char why[256];

	if (++k->calls == k->fail_at)
		return -EIO;
	if (ev->kind != PERFRING_MSG_SAMPLE || ev->cpu != k->cpu || !rec || rec->type != 9 ||
	    rec->len + rec->len2 != rec->size || rec->remaining != remaining ||
	    (!rec->len2 && (const char *)ev->data != (const char *)rec->data + 12) ||
	    (k->any && rec->offset != k->next_offset) || k->nseq == sizeof(k->seqs) / sizeof(k->seqs[0])) {
		if (!k->errors++)
			snprintf(k->error, sizeof(k->error),
				 "call %llu: kind %d cpu %d, record %s (type %u size %u, remaining %llu/%llu, "
				 "offset %llu, want %llu)",
				 (unsigned long long)k->calls, (int)ev->kind, ev->cpu, rec ? "present" : "missing",
				 rec ? rec->type : 0, rec ? rec->size : 0, (unsigned long long)remaining,
				 rec ? (unsigned long long)rec->remaining : 0ull,
				 rec ? (unsigned long long)rec->offset : 0ull, (unsigned long long)k->next_offset);
		return PERFRING_CONTINUE;
	}
	if (ktest_check_payload(ev->data, ev->size, ev->data2, ev->size2, k->len, k->cpu, &s, why, sizeof(why))) {
		if (!k->errors++)
			snprintf(k->error, sizeof(k->error), "call %llu: %.200s", (unsigned long long)k->calls, why);
		return PERFRING_CONTINUE;
	}
	if (!k->in_call)
		k->first_remaining = remaining;
	k->any = k->in_call = true;
	k->next_offset = rec->offset + rec->size;
	k->last_remaining = remaining;
	k->seqs[k->nseq++] = s.seq;
	return k->calls == k->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

/* One perfring_reader_consume() call of the test below: its return value, the
 * samples taken so far, and the remaining bytes after this call's first. */
static void consume_step(struct perfring_reader *rd, struct stop_check *k, uint64_t fail_at, uint64_t stop_at,
			 int want_ret, size_t want_nseq, uint64_t want_first_remaining)
{
	int ret;

	k->fail_at = fail_at;
	k->stop_at = stop_at;
	k->in_call = false;
	ret = perfring_reader_consume(rd, stop_check_fn, k);
	CHECKF(ret == want_ret, "consume returned %d, want %d", ret, want_ret);
	CHECK_EQ_U64(k->nseq, want_nseq);
	CHECK_EQ_U64(k->first_remaining, want_first_remaining);
}

/* The reader of the two tests below: CPU 0, 4 data pages (16 KiB); k reset. */
static struct perfring_reader *stop_check_reader(struct ktest *kt, struct stop_check *k, uint32_t len)
{
	static const int cpus[] = { 0 };
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 4, .cpus = cpus,
							      .cpu_cnt = 1);

	ktest_set_len(kt, len);
	memset(k, 0, sizeof(*k));
	k->cpu = 0;
	k->len = len;
	return perfring_reader_new_bpf(kt->map_fd, &opts);
}

/* Every record seen once, in order from first, and nothing left. */
static void stop_check_end(struct perfring_reader *rd, struct stop_check *k, uint64_t first)
{
	size_t i;

	CHECKF(k->errors == 0, "%s", k->error);
	for (i = 0; i < k->nseq; i++)
		CHECK_EQ_U64(k->seqs[i], first + i);
	CHECK_EQ_INT(perfring_reader_consume(rd, stop_check_fn, k), 0);
}

TEST(basic_consume_stop_error_views)
{
	uint64_t rsz = ktest_record_size(64), first;
	struct stop_check k;
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	rd = stop_check_reader(&kt, &k, 64);
	REQUIREF(rd, "perfring_reader_new_bpf: %s (%s)", strerror(errno), perfring_errmsg());
	first = ktest_counts(&kt).seq;
	REQUIRE(ktest_produce(&kt, 0, 10) == 10);

	/* Records 1-3 delivered, the 4th fails: it stays for the next call. */
	consume_step(rd, &k, 4, 0, -EIO, 3, 9 * rsz);
	/* Records 4-6, stopped at the 6th, which is consumed. */
	consume_step(rd, &k, 0, k.calls + 3, 3, 6, 6 * rsz);
	/* The rest, 7-10: the last one ends the batch. */
	consume_step(rd, &k, 0, 0, 4, 10, 3 * rsz);
	CHECK_EQ_U64(k.last_remaining, 0);
	stop_check_end(rd, &k, first);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

/*
 * The same over batches longer than the drain's prefetch distance (2 KiB):
 * the walk delivers the records that end that far before the stretch's end
 * in a loop of its own, then the rest. A failure and a stop inside the
 * first loop, a stop at the change between the two (record 125 of 150, the
 * first to end less than 2 KiB before the batch's end: 2000 bytes), and a
 * second batch that wraps at the end of the data area (16 KiB): every
 * record once, in order.
 */
TEST(basic_consume_stop_error_long_batches)
{
	const uint32_t n = 150;
	const uint64_t rsz = ktest_record_size(64);
	uint64_t first;
	struct stop_check k;
	struct perfring_reader *rd;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	rd = stop_check_reader(&kt, &k, 64);
	REQUIREF(rd, "perfring_reader_new_bpf: %s (%s)", strerror(errno), perfring_errmsg());
	REQUIRE(rsz == 80 && perfring_reader_data_size(rd) == 4 * 4096);
	REQUIRE(2 * n <= sizeof(k.seqs) / sizeof(k.seqs[0]));
	first = ktest_counts(&kt).seq;
	REQUIRE(ktest_produce(&kt, 0, n) == (int)n);
	/* Records 1-4, the 5th fails. */
	consume_step(rd, &k, 5, 0, -EIO, 4, (n - 1) * rsz);
	/* 5-40, stopped at the 40th. */
	consume_step(rd, &k, 0, k.calls + 36, 36, 40, (n - 5) * rsz);
	/* 41-125: the stop is at the first record that ends past the
	 * prefetching loop's bound (n * rsz - 2048). */
	consume_step(rd, &k, 0, k.calls + 85, 85, 125, (n - 41) * rsz);
	consume_step(rd, &k, 0, 0, (int)(n - 125), n, (n - 126) * rsz);
	CHECK_EQ_U64(k.last_remaining, 0);
	/* A second batch from byte 12000 on: it wraps after 54 records. */
	REQUIRE(ktest_produce(&kt, 0, n) == (int)n);
	consume_step(rd, &k, k.calls + 100, 0, -EIO, n + 99, (n - 1) * rsz);
	consume_step(rd, &k, 0, 0, (int)(n - 99), 2 * n, (n - 100) * rsz);
	CHECK_EQ_U64(k.last_remaining, 0);
	stop_check_end(rd, &k, first);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
}

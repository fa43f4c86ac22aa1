// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring layer on perf events opened here: a PERF_COUNT_SW_BPF_OUTPUT
 * event per test (sample_type TID | TIME | RAW, CLOCK_MONOTONIC), stored in
 * the producer's map at the CPU's key. Records arrive whole, views point
 * into the mapping, the tail is committed to the metadata page, pausing
 * works, and a write_backward ring reads newest first.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "ktest.h"

/* header, u32 pid, u32 tid, u64 time, u32 raw size, raw payload */
#define RAW_OFF 24

static int open_output_event(int cpu, bool backward)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.sample_period = 1;
	a.wakeup_events = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.write_backward = backward;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static size_t ring_record_size(uint32_t len)
{
	return 16 + ktest_record_size(len);
}

struct ring_check {
	struct perfring_ring *ring;
	uint32_t len;
	uint64_t t_min, t_max;   /* the records' times lie in between */
	bool backward;
	uint64_t count, lost, lost_records, straddled;
	uint64_t seqs[256];
	uint64_t last_time;
	int errors;
	char error[256];
};

__attribute__((format(printf, 2, 3))) static void ring_err(struct ring_check *k, const char *fmt, ...)
{
	va_list ap;

	if (!k->errors++) {
		va_start(ap, fmt);
		vsnprintf(k->error, sizeof(k->error), fmt, ap);
		va_end(ap);
	}
}

static int check_record(const struct perfring_ring_record *rec, void *ctx)
{
	struct ring_check *k = ctx;
	const struct perf_event_mmap_page *meta = perfring_ring_meta(k->ring);
	const unsigned char *area = (const unsigned char *)meta + meta->data_offset;
	size_t size = perfring_ring_data_size(k->ring);
	static unsigned char buf[70000];
	const unsigned char *lin;
	struct ktest_sample s;
	uint32_t pid, tid, raw;
	uint64_t t;
	char why[256];

	if (rec->type == PERF_RECORD_LOST) {
		uint64_t lost;

		if (perfring_ring_record_copy(rec, 16, &lost, 8))
			ring_err(k, "LOST record of %u bytes", rec->size);
		k->lost += lost;
		k->lost_records++;
		return PERFRING_CONTINUE;
	}
	if (rec->type != PERF_RECORD_SAMPLE) {
		ring_err(k, "record type %u", rec->type);
		return PERFRING_CONTINUE;
	}
	/* The views point into the mapping, split at its end. */
	if (rec->data != area + (rec->offset & (size - 1)))
		ring_err(k, "record at offset %llu: data is not at its place in the ring",
			 (unsigned long long)rec->offset);
	if (rec->len + rec->len2 != rec->size || (rec->len2 && rec->data2 != area) ||
	    (!rec->len2 && rec->data2) || rec->len != ((rec->offset & (size - 1)) + rec->size > size ?
							       size - (rec->offset & (size - 1)) : rec->size))
		ring_err(k, "record at offset %llu size %u split as %zu + %zu", (unsigned long long)rec->offset,
			 rec->size, rec->len, rec->len2);
	if (rec->len2)
		k->straddled++;
	if (rec->size != ring_record_size(k->len)) {
		ring_err(k, "record size %u, expected %zu", rec->size, ring_record_size(k->len));
		return PERFRING_CONTINUE;
	}
	if (perfring_ring_record_copy(rec, 0, buf, rec->size)) {
		ring_err(k, "perfring_ring_record_copy of a whole record failed");
		return PERFRING_CONTINUE;
	}
	if (perfring_ring_record_copy(rec, 1, buf + rec->size, rec->size) != -ERANGE)
		ring_err(k, "perfring_ring_record_copy past the end did not say -ERANGE");
	lin = perfring_ring_linear(k->ring, rec);
	if (!lin || memcmp(lin, buf, rec->size))
		ring_err(k, "perfring_ring_linear differs from perfring_ring_record_copy");
	if (!rec->len2 && lin != rec->data)
		ring_err(k, "perfring_ring_linear copied a record that does not straddle");
	memcpy(&pid, buf + 8, 4);
	memcpy(&tid, buf + 12, 4);
	memcpy(&t, buf + 16, 8);
	memcpy(&raw, buf + RAW_OFF, 4);
	if (pid != (uint32_t)getpid() || tid != (uint32_t)gettid())
		ring_err(k, "pid/tid %u/%u, the producer was %d/%d", pid, tid, getpid(), gettid());
	if (t < k->t_min || t > k->t_max)
		ring_err(k, "time %llu outside [%llu, %llu]", (unsigned long long)t, (unsigned long long)k->t_min,
			 (unsigned long long)k->t_max);
	if (k->count && (k->backward ? t > k->last_time : t < k->last_time))
		ring_err(k, "time %llu after %llu", (unsigned long long)t, (unsigned long long)k->last_time);
	k->last_time = t;
	if (raw != ktest_padded(k->len))
		ring_err(k, "raw size %u for a %u-byte payload", raw, k->len);
	else if (ktest_check_payload(buf + RAW_OFF + 4, raw, NULL, 0, k->len, 0, &s, why, sizeof(why)))
		ring_err(k, "%s", why);
	else if (k->count < 256)
		k->seqs[k->count] = s.seq;
	k->count++;
	return PERFRING_CONTINUE;
}

struct ring_fixture {
	struct ktest kt;
	int fd;
	struct perfring_ring *ring;
};

/* The producer's events[0] = our own event on CPU 0, and a ring on it. */
static int fixture_open(struct ring_fixture *f, bool backward, size_t pages)
{
	struct perfring_ring_opts opts = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = pages,
							    .overwrite = backward);
	uint32_t key = 0;

	f->fd = open_output_event(0, backward);
	if (f->fd < 0)
		return -errno;
	f->ring = perfring_ring_new(f->fd, &opts);
	if (!f->ring)
		return -errno;
	if (bpf_map_update_elem(f->kt.map_fd, &key, &f->fd, BPF_ANY))
		return -errno;
	return 0;
}

static void fixture_close(struct ring_fixture *f)
{
	perfring_ring_free(f->ring);
	if (f->fd >= 0)
		close(f->fd);
	ktest_teardown(&f->kt);
}

TEST(ring_kernel_forward)
{
	struct ring_fixture f;
	struct ring_check *k;
	const volatile struct perf_event_mmap_page *meta;
	struct perfring_ring_stats st;
	uint64_t head, total = 0, seq0;
	int round, ret;

	KTEST_SETUP(&f.kt, 0);
	ret = fixture_open(&f, false, 1);
	REQUIREF(ret == 0, "opening the event and its ring: %s (%s)", strerror(-ret), perfring_errmsg());
	CHECK_EQ_INT(perfring_ring_fd(f.ring), f.fd);
	CHECK_EQ_U64(perfring_ring_data_size(f.ring), 4096);
	CHECK_EQ_U64(perfring_ring_mmap_size(f.ring), 8192);
	CHECK(!perfring_ring_is_overwrite(f.ring));
	meta = perfring_ring_meta(f.ring);
	REQUIRE(meta);
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	k->ring = f.ring;
	k->len = 60;
	ktest_set_len(&f.kt, 60);

	/* Rounds of 20 records of 88 bytes: the ring wraps many times. */
	for (round = 0; round < 12; round++) {
		uint64_t before = k->count;

		k->t_min = ktest_now_ns();
		seq0 = ktest_counts(&f.kt).seq;
		REQUIRE(ktest_produce(&f.kt, 0, 20) == 20);
		k->t_max = ktest_now_ns();
		head = meta->data_head;
		CHECK_EQ_U64(head - meta->data_tail, 20 * ring_record_size(60));
		CHECK_EQ_U64(perfring_ring_bytes_available(f.ring), 20 * ring_record_size(60));
		ret = perfring_ring_consume(f.ring, check_record, k);
		CHECK_EQ_INT(ret, 20);
		/* The tail was committed to the metadata page, up to the head. */
		CHECK_EQ_U64(meta->data_tail, head);
		CHECK_EQ_U64(perfring_ring_bytes_available(f.ring), 0);
		if (k->count == before + 20 && before + 20 <= 256)
			for (int i = 0; i < 20; i++)
				CHECK_EQ_U64(k->seqs[before + (uint64_t)i], seq0 + (uint64_t)i);
		total += 20;
	}
	CHECKF(k->errors == 0, "%d bad records, first: %s", k->errors, k->error);
	CHECK(k->straddled > 0);
	CHECK_EQ_U64(k->count, total);
	perfring_ring_stats(f.ring, &st);
	CHECK_EQ_U64(st.records, total);
	CHECK_EQ_U64(st.bytes, total * ring_record_size(60));
	CHECK_EQ_U64(st.lost, 0);
	CHECK_EQ_U64(st.corrupt, 0);
	free(k);
	fixture_close(&f);
}

static int count_only(const struct perfring_ring_record *rec, void *ctx)
{
	(*(uint64_t *)ctx)++;
	return rec->size ? PERFRING_CONTINUE : -1;
}

TEST(ring_kernel_iterator_commit)
{
	const volatile struct perf_event_mmap_page *meta;
	struct perfring_ring_record rec, first;
	struct ring_fixture f;
	uint64_t tail0, n = 0;
	int64_t avail;
	int i, ret;

	KTEST_SETUP(&f.kt, 0);
	ret = fixture_open(&f, false, 2);
	REQUIREF(ret == 0, "opening the event and its ring: %s (%s)", strerror(-ret), perfring_errmsg());
	meta = perfring_ring_meta(f.ring);
	ktest_set_len(&f.kt, 100);
	REQUIRE(ktest_produce(&f.kt, 0, 5) == 5);
	tail0 = meta->data_tail;

	avail = perfring_ring_begin(f.ring);
	CHECK_EQ_U64(avail, 5 * ring_record_size(100));
	for (i = 0; i < 5; i++) {
		ret = perfring_ring_next(f.ring, &rec);
		CHECK_EQ_INT(ret, 1);
		if (i == 0)
			first = rec;
		CHECK_EQ_U64(rec.remaining, (uint64_t)(4 - i) * ring_record_size(100));
	}
	CHECK_EQ_INT(perfring_ring_next(f.ring, &rec), 0);
	/* No commit: the kernel still sees the old tail, and begin() restarts. */
	CHECK_EQ_U64(meta->data_tail, tail0);
	avail = perfring_ring_begin(f.ring);
	CHECK_EQ_U64(avail, 5 * ring_record_size(100));
	CHECK_EQ_INT(perfring_ring_next(f.ring, &rec), 1);
	CHECK_EQ_U64(rec.offset, first.offset);
	CHECK_EQ_INT(perfring_ring_next(f.ring, &rec), 1);
	/* Commit after two: the tail moves past those two only. */
	perfring_ring_commit(f.ring);
	CHECK_EQ_U64(meta->data_tail, tail0 + 2 * ring_record_size(100));
	CHECK_EQ_U64(perfring_ring_bytes_available(f.ring), 3 * ring_record_size(100));
	ret = perfring_ring_consume(f.ring, count_only, &n);
	CHECK_EQ_INT(ret, 3);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(meta->data_tail, meta->data_head);
	fixture_close(&f);
}

/* PERF_EVENT_IOC_PAUSE_OUTPUT: the kernel drops and counts, then reports
 * the count in a LOST record once resumed. */
TEST(ring_kernel_pause)
{
	struct ring_fixture f;
	struct ring_check *k;
	struct perfring_ring_stats st;
	struct ktest_counts c0, c1;
	int ret;

	KTEST_SETUP(&f.kt, 0);
	ret = fixture_open(&f, false, 1);
	REQUIREF(ret == 0, "opening the event and its ring: %s (%s)", strerror(-ret), perfring_errmsg());
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	k->ring = f.ring;
	k->len = 32;
	k->t_min = ktest_now_ns();
	k->t_max = UINT64_MAX;
	ktest_set_len(&f.kt, 32);
	REQUIRE(ktest_produce(&f.kt, 0, 3) == 3);
	CHECK_EQ_INT(perfring_ring_pause(f.ring), 0);
	c0 = ktest_counts(&f.kt);
	REQUIRE(ktest_produce(&f.kt, 0, 7) == 7);
	c1 = ktest_counts(&f.kt);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 7);
	CHECK_EQ_U64(c1.ok - c0.ok, 0);
	/* What was there before the pause is readable while paused. */
	CHECK_EQ_U64(perfring_ring_bytes_available(f.ring), 3 * ring_record_size(32));
	CHECK_EQ_INT(perfring_ring_consume(f.ring, check_record, k), 3);
	CHECK_EQ_INT(perfring_ring_resume(f.ring), 0);
	REQUIRE(ktest_produce(&f.kt, 0, 1) == 1);
	CHECK_EQ_INT(perfring_ring_consume(f.ring, check_record, k), 2);
	CHECK_EQ_U64(k->lost, 7);
	CHECK_EQ_U64(k->lost_records, 1);
	CHECK_EQ_U64(k->count, 4);
	CHECKF(k->errors == 0, "%d bad records, first: %s", k->errors, k->error);
	perfring_ring_stats(f.ring, &st);
	CHECK_EQ_U64(st.lost, 7);
	CHECK_EQ_U64(st.lost_records, 1);
	free(k);
	fixture_close(&f);
}

/* write_backward: read newest first from the paused ring; whole records only. */
static void overwrite_round(struct ring_fixture *f, struct ring_check *k, uint32_t n, uint64_t want)
{
	uint64_t last;
	int ret;

	k->count = 0;
	k->t_min = ktest_now_ns();
	REQUIRE(perfring_ring_resume(f->ring) == 0);
	REQUIRE(ktest_produce(&f->kt, 0, n) == n);
	REQUIRE(perfring_ring_pause(f->ring) == 0);
	k->t_max = ktest_now_ns();
	last = ktest_counts(&f->kt).seq - 1;
	ret = perfring_ring_consume(f->ring, check_record, k);
	CHECKF(ret == (int)want, "%u records of %zu bytes in a %zu-byte overwrite ring: read %d, expected %llu", n,
	       ring_record_size(k->len), perfring_ring_data_size(f->ring), ret, (unsigned long long)want);
	CHECKF(k->errors == 0, "%d bad records, first: %s", k->errors, k->error);
	for (uint64_t i = 0; i < k->count && i < 256; i++)
		if (k->seqs[i] != last - i) {
			CHECKF(0, "record %llu: seq %llu, expected %llu (newest first)", (unsigned long long)i,
			       (unsigned long long)k->seqs[i], (unsigned long long)(last - i));
			break;
		}
}

TEST(ring_kernel_overwrite)
{
	struct ring_fixture f;
	struct ring_check *k;
	uint64_t fit;
	int ret;

	KTEST_SETUP(&f.kt, 0);
	ret = fixture_open(&f, true, 1);
	REQUIREF(ret == 0, "opening the backward event and its ring: %s (%s)", strerror(-ret), perfring_errmsg());
	CHECK(perfring_ring_is_overwrite(f.ring));
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	k->ring = f.ring;
	k->backward = true;
	k->len = 60;
	ktest_set_len(&f.kt, 60);
	fit = perfring_ring_data_size(f.ring) / ring_record_size(60);

	overwrite_round(&f, k, 5, 5);          /* not yet full */
	overwrite_round(&f, k, 200, fit);      /* overwritten many times: the newest window */
	CHECK_EQ_U64(perfring_ring_bytes_available(f.ring), 0);
	overwrite_round(&f, k, 3, 3);          /* only what was written since */
	overwrite_round(&f, k, 0, 0);
	CHECK_EQ_U64(ktest_counts(&f.kt).enospc, 0);
	free(k);
	fixture_close(&f);
}

TEST(ring_kernel_bad_sizes)
{
	struct perfring_ring_opts o;
	struct perfring_ring *r;
	int fd;

	if (geteuid() != 0)
		SKIP("needs root to open a BPF output event on a CPU");
	fd = open_output_event(0, false);
	REQUIREF(fd >= 0, "perf_event_open: %s", strerror(errno));
	o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = 3);
	errno = 0;
	r = perfring_ring_new(fd, &o);
	CHECK(r == NULL && errno == EINVAL);
	CHECKF(strstr(perfring_errmsg(), "power of two"), "message does not state the rule: \"%s\"",
	       perfring_errmsg());
	perfring_ring_free(r);
	o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = 2, .data_bytes = 8192);
	errno = 0;
	r = perfring_ring_new(fd, &o);
	CHECK(r == NULL && errno == EINVAL);
	perfring_ring_free(r);
	o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_bytes = 8192);
	r = perfring_ring_new(fd, &o);
	CHECKF(r != NULL, "data_bytes 8192: %s", perfring_errmsg());
	if (r)
		CHECK_EQ_U64(perfring_ring_data_size(r), 8192);
	perfring_ring_free(r);
	/* Defaults: 64 pages. */
	r = perfring_ring_new(fd, NULL);
	CHECKF(r != NULL, "default size: %s", perfring_errmsg());
	if (r)
		CHECK_EQ_U64(perfring_ring_data_size(r), 64 * (size_t)sysconf(_SC_PAGESIZE));
	perfring_ring_free(r);
	close(fd);
}

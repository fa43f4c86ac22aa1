// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many rings, one wakeup per record: the reader looks only at the rings the
 * kernel reported (reader_owed.c), and must still never leave a record
 * behind in a ring that will not be reported again. Records written while
 * a poll drains (after it read a ring's head, into that ring and others),
 * records left by early stops spread over many rings, a producer racing
 * the reader across 96 rings, and a program that polls the reader's epoll
 * fd itself (which takes the kernel's reports): every record arrives, and
 * poll(0) returns those already written without waiting for another one.
 */
#include <poll.h>
#include <sys/ioctl.h>

#include "ktest.h"

#define MAX_RINGS 96

struct many {
	struct ktest kt;
	struct perfring_reader *rd;
	int n;
	int fds[MAX_RINGS];
};

/* Ring i on CPU i % 2, stored at map key i, one wakeup per record. */
static void many_open(struct many *m, int n)
{
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2);
	int i;

	m->n = n;
	m->rd = perfring_reader_new(&o);
	REQUIREF(m->rd, "perfring_reader_new: %s", perfring_errmsg());
	for (i = 0; i < n; i++) {
		__u32 key = (__u32)i;

		m->fds[i] = ktest_open_bpf_output(i % 2);
		REQUIREF(m->fds[i] >= 0, "perf_event_open on CPU %d: %s", i % 2, strerror(errno));
		REQUIREF(perfring_reader_add(m->rd, m->fds[i], i % 2) == i, "perfring_reader_add: %s", perfring_errmsg());
		REQUIRE(ioctl(m->fds[i], PERF_EVENT_IOC_ENABLE, 0) == 0);
		REQUIRE(bpf_map_update_elem(m->kt.map_fd, &key, &m->fds[i], BPF_ANY) == 0);
	}
}

static void many_close(struct many *m)
{
	int i;

	perfring_reader_free(m->rd);
	for (i = 0; i < m->n; i++)
		close(m->fds[i]);
	ktest_teardown(&m->kt);
}

/* Write cnt records into ring key (its CPU: key % 2). */
static int64_t produce_into(struct many *m, int key, uint32_t cnt)
{
	m->kt.skel->data->out_flags = (__u64)key;
	return ktest_produce_concurrent(&m->kt, key % 2, cnt);
}

/* Counts per ring, and every sample's sequence number seen once. */
struct tally {
	struct many *m;
	uint64_t samples, lost, dup;
	uint64_t per_ring[MAX_RINGS];
	uint8_t seen[1 << 16];
	int last_ring;
	/* during a poll: write into these rings when the first record of
	 * ring `trigger` arrives (after the drain read that ring's head) */
	int trigger, extra[4], extra_cnt;
	int stop_each; /* return PERFRING_STOP after every record */
};

static int tally_fn(const struct perfring_msg *ev, void *ctx)
{
	struct tally *t = ctx;
	uint64_t seq;
	int i;

	if (ev->kind == PERFRING_MSG_LOST) {
		t->lost += ev->lost;
		return PERFRING_CONTINUE;
	}
	if (ev->kind != PERFRING_MSG_SAMPLE || ev->size < 8)
		return PERFRING_CONTINUE;
	memcpy(&seq, ev->data, sizeof(seq));
	if (seq < sizeof(t->seen) && t->seen[seq]++)
		t->dup++;
	t->samples++;
	t->last_ring = ev->ring_idx;
	if (ev->ring_idx >= 0 && ev->ring_idx < MAX_RINGS)
		t->per_ring[ev->ring_idx]++;
	if (ev->ring_idx == t->trigger) {
		t->trigger = -1;
		for (i = 0; i < t->extra_cnt; i++)
			if (produce_into(t->m, t->extra[i], 1) != 1)
				return -EIO;
	}
	return t->stop_each ? PERFRING_STOP : PERFRING_CONTINUE;
}

static void tally_init(struct tally *t, struct many *m)
{
	memset(t, 0, sizeof(*t));
	t->m = m;
	t->trigger = -1;
	t->last_ring = -1;
}

/* Records written while poll drains, into the ring being drained (after
 * its head was read) and into rings drained before and after it: the
 * drain does not see them, the kernel reported them, and the next poll(0)
 * delivers them at once. */
TEST(written_during_the_drain)
{
	struct many m;
	struct tally t;
	int ret, round;

	KTEST_SETUP(&m.kt, 64);
	KTEST_NEED_CPUS(&m.kt, 2);
	ktest_set_len(&m.kt, 16);
	many_open(&m, 64);
	tally_init(&t, &m);
	for (round = 0; round < 20; round++) {
		uint64_t before = t.samples;

		/* Ring 30 and ring 2 get a record; while ring 30's is
		 * delivered, rings 30, 2, 62 and 40 get one each. */
		REQUIRE(produce_into(&m, 30, 1) == 1);
		REQUIRE(produce_into(&m, 2, 1) == 1);
		t.trigger = 30;
		t.extra[0] = 30;
		t.extra[1] = 2;
		t.extra[2] = 62;
		t.extra[3] = 40;
		t.extra_cnt = 4;
		ret = perfring_reader_poll(m.rd, 1000000000, tally_fn, &t);
		REQUIREF(ret > 0, "round %d: poll: %d (%s)", round, ret, perfring_strerror(ret));
		CHECKF(t.trigger == -1, "round %d: ring 30's record did not come", round);
		/* Whatever the first poll did not take is there now. */
		while (t.samples < before + 6) {
			ret = perfring_reader_poll(m.rd, 0, tally_fn, &t);
			if (ret <= 0)
				break;
		}
		CHECKF(t.samples == before + 6, "round %d: %llu of 6 records delivered, then poll(0) said %d (%s)",
		       round, (unsigned long long)(t.samples - before), ret, perfring_strerror(ret));
		if (t.samples != before + 6)
			break;
		ret = perfring_reader_poll(m.rd, 0, tally_fn, &t);
		CHECKF(ret == -ETIMEDOUT, "round %d: poll(0) with nothing written: %d", round, ret);
	}
	CHECK_EQ_U64(t.dup, 0);
	CHECK_EQ_U64(t.lost, 0);
	CHECK_EQ_U64(t.per_ring[30], 40);
	CHECK_EQ_U64(t.per_ring[2], 40);
	CHECK_EQ_U64(t.per_ring[62], 20);
	CHECK_EQ_U64(t.per_ring[40], 20);
	many_close(&m);
}

/* A callback that stops after every record, records in 16 rings: each
 * poll(0) delivers one, the rings take turns (no ring twice in a row while
 * others wait), and all arrive with no new wakeup. */
TEST(early_stops_over_many_rings)
{
	static const int rings[] = { 0, 1, 6, 7, 12, 13, 20, 21, 34, 35, 48, 49, 56, 57, 62, 63 };
	const int nr = (int)(sizeof(rings) / sizeof(rings[0]));
	struct many m;
	struct tally t;
	int i, ret, calls = 0, repeats = 0, prev = -1;

	KTEST_SETUP(&m.kt, 64);
	KTEST_NEED_CPUS(&m.kt, 2);
	ktest_set_len(&m.kt, 16);
	many_open(&m, 64);
	tally_init(&t, &m);
	for (i = 0; i < nr; i++)
		REQUIRE(produce_into(&m, rings[i], 3) == 3);
	t.stop_each = 1;
	while ((ret = perfring_reader_poll(m.rd, 0, tally_fn, &t)) > 0) {
		CHECKF(ret == 1, "poll %d delivered %d records past a stop", calls, ret);
		calls++;
		/* Until the last ring's records remain, a ring never goes twice in a row. */
		if (t.last_ring == prev && t.samples <= (uint64_t)(3 * nr - 3))
			repeats++;
		prev = t.last_ring;
		if (calls > 10 * nr)
			break;
	}
	CHECKF(ret == -ETIMEDOUT, "the last poll(0): %d (%s)", ret, perfring_strerror(ret));
	CHECK_EQ_U64(t.samples, (uint64_t)(3 * nr));
	CHECK_EQ_INT(calls, 3 * nr);
	CHECKF(repeats == 0, "a ring was served twice in a row %d times while others waited", repeats);
	for (i = 0; i < nr; i++)
		CHECK_EQ_U64(t.per_ring[rings[i]], 3);
	CHECK_EQ_U64(t.dup, 0);
	many_close(&m);
}

struct racer {
	struct many *m;
	int per_cpu_rings;
	uint32_t records;
	int64_t written;
};

/* CPU 0's rings in turn, a record each, with pauses of 0-50 us so that
 * records land while the reader drains, sleeps or is between the two. */
static void *race_producer(void *arg)
{
	struct racer *r = arg;
	uint32_t i;

	for (i = 0; i < r->records; i++) {
		int key = 2 * (int)((i * 7u) % (uint32_t)r->per_cpu_rings);

		if (produce_into(r->m, key, 1) != 1)
			break;
		r->written++;
		if (i % 3)
			ktest_sleep_ns((i * 17u) % 50000u);
	}
	return NULL;
}

/* A producer racing a blocking poll loop over 96 rings: every record
 * arrives, and once the producer is done the records already written come
 * out without a new one being written. */
TEST(racing_producer_many_rings)
{
	struct racer rc;
	struct many m;
	struct tally t;
	pthread_t th;
	uint64_t end;
	int ret = 0;

	KTEST_SETUP(&m.kt, MAX_RINGS);
	KTEST_NEED_CPUS(&m.kt, 2);
	ktest_set_len(&m.kt, 16);
	many_open(&m, MAX_RINGS);
	tally_init(&t, &m);
	memset(&rc, 0, sizeof(rc));
	rc.m = &m;
	rc.per_cpu_rings = MAX_RINGS / 2;
	rc.records = 6000;
	REQUIRE(ktest_pin_self(1) == 0);
	REQUIRE(pthread_create(&th, NULL, race_producer, &rc) == 0);
	end = ktest_now_ns() + 20000000000ull;
	while (t.samples + t.lost < rc.records && ktest_now_ns() < end) {
		ret = perfring_reader_poll(m.rd, 200000000, tally_fn, &t);
		if (ret < 0 && ret != -ETIMEDOUT)
			break;
	}
	pthread_join(th, NULL);
	/* The producer is done: what is missing must come out at once. */
	while (t.samples + t.lost < (uint64_t)rc.written) {
		ret = perfring_reader_poll(m.rd, 0, tally_fn, &t);
		if (ret <= 0)
			break;
	}
	CHECK_EQ_U64((uint64_t)rc.written, rc.records);
	CHECKF(t.samples + t.lost == (uint64_t)rc.written,
	       "%llu records and %llu lost of %lld written; the last poll said %d (%s)",
	       (unsigned long long)t.samples, (unsigned long long)t.lost, (long long)rc.written, ret,
	       perfring_strerror(ret));
	CHECK_EQ_U64(t.dup, 0);
	many_close(&m);
}

/* A program polls the reader's epoll fd itself (poll() on an epoll fd polls
 * the rings ready in it, which takes their reports), then asks the reader
 * without blocking: the records are still delivered. */
TEST(external_poll_of_the_epoll_fd)
{
	struct many m;
	struct tally t;
	struct pollfd p;
	int ret, round;

	KTEST_SETUP(&m.kt, 16);
	KTEST_NEED_CPUS(&m.kt, 2);
	ktest_set_len(&m.kt, 16);
	many_open(&m, 16);
	tally_init(&t, &m);
	p.fd = perfring_reader_epoll_fd(m.rd);
	p.events = POLLIN;
	for (round = 0; round < 10; round++) {
		REQUIRE(produce_into(&m, 2 * (round % 8), 1) == 1);
		p.revents = 0;
		CHECKF(poll(&p, 1, 1000) == 1, "round %d: the epoll fd is not readable", round);
		ret = perfring_reader_poll(m.rd, 0, tally_fn, &t);
		CHECKF(ret == 1, "round %d: poll(0) after the program's own poll: %d (%s)", round, ret,
		       perfring_strerror(ret));
	}
	CHECK_EQ_U64(t.samples, 10);
	many_close(&m);
}

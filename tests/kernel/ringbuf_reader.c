// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF ring buffers in a reader, fed by a real BPF program
 * (tests/bpf/rb_producer.bpf.c under BPF_PROG_TEST_RUN on pinned CPUs): payloads
 * intact and in order, reserve/submit/discard, lost records counted by
 * perfring_ringbuf.bpf.h (received + lost == produced), copy-out read,
 * budgets, one ring per CPU from an array of maps, a perf event array and a
 * ring buffer in one reader, errors (wrong map type, lost map, overwrite on
 * a kernel without it).
 */
#include <sys/utsname.h>

#include "rbtest.h"

static struct perfring_reader *rb_reader(struct rbtest *rt, bool lost, size_t budget)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .lost_map_fd = lost ? rt->lost_fd : 0,
							    .budget = budget);
	struct perfring_reader *rd = perfring_reader_new(NULL);

	if (!rd)
		return NULL;
	if (perfring_reader_add_ringbuf(rd, rt->rb_fd, &o) != 0) {
		perfring_reader_free(rd);
		return NULL;
	}
	return rd;
}

TEST(rb_reader_payloads_in_order)
{
	struct perfring_reader_ring_info info = { .sz = sizeof(info) };
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	uint32_t lens[] = { 16, 17, 100, 1000, 4093 };
	uint64_t want = 0, i;
	size_t k;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt, true, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	REQUIRE(perfring_reader_ring_info(rd, 0, &info) == 0);
	CHECK_EQ_INT(info.kind, PERFRING_RING_BPF_RINGBUF);
	CHECK_EQ_INT(info.cpu, -1);
	CHECK_EQ_U64(info.data_size, 256 * 1024);
	CHECK(info.lost_known);
	CHECK(perfring_reader_ringbuf(rd, 0) != NULL);
	CHECK(perfring_reader_ring(rd, 0) == NULL && errno == ENOTTY);
	rb_collect_init(&c, 4096, 0);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		rt.skel->data->payload_len = lens[k];
		REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 20) == 20);
		want += 20;
	}
	CHECK_EQ_U64(rt.skel->bss->out_ok, want);
	ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
	CHECKF(ret == (int)want, "poll: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_U64(c.rb_samples, want);
	CHECK_EQ_U64(rb_collect_once(&c, want), want);
	CHECK_EQ_U64(c.lost, 0);
	RB_CHECK_COLLECT(&c);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);
	REQUIRE(perfring_reader_stats(rd, 0, &st) == 0);
	CHECK_EQ_U64(st.records, want);
	/* Nothing more: a timeout, not a spin. */
	CHECK_EQ_INT(perfring_reader_poll(rd, 10000000ll, rb_collect_fn, &c), -ETIMEDOUT);
	/* Order: seq 0..want-1 in turn (one producer CPU). */
	for (i = 0; i < want; i++)
		CHECK(c.seen[i] == 1);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_reader_reserve_discard)
{
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt, true, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	RBTEST_PRODUCE_DISCARDING(&rt);
	rb_collect_init(&c, 300, 64);
	ret = perfring_reader_consume(rd, rb_collect_fn, &c);
	CHECKF(ret == 200, "consume: %d (%s)", ret, perfring_errmsg());
	RB_CHECK_DISCARDED(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* Only DISCARD records: the drain moves past them and delivers nothing;
 * the wait looks once more (the position moved) and then sleeps, neither
 * spinning nor missing the record that comes next. */
TEST(rb_reader_only_discarded)
{
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	struct timespec t0, t1;
	double cpu_ms;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt, true, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	rt.skel->bss->discard_every = 1;
	REQUIRE(rbtest_run(rt.skel->progs.produce_reserve, 0, 50) == 50);
	CHECK_EQ_U64(rt.skel->bss->out_discarded, 50);
	rb_collect_init(&c, 64, 64);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	ret = perfring_reader_poll(rd, 50000000ll, rb_collect_fn, &c);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	CHECKF(ret == -ETIMEDOUT, "poll: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_U64(c.rb_samples, 0);
	cpu_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	CHECKF(cpu_ms < 25.0, "a 50 ms poll over discarded records used %.1f ms of CPU (a spin)", cpu_ms);
	CHECK_EQ_INT(perfring_reader_pending(rd), 0);
	/* A record after them comes out. */
	rt.skel->bss->discard_every = 0;
	REQUIRE(rbtest_run(rt.skel->progs.produce_reserve, 0, 1) == 1);
	ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
	CHECKF(ret == 1, "poll: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_U64(c.rb_samples, 1);
	CHECK(c.seen[50] == 1);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* A ring too small for the burst: received + counted lost == produced. */
TEST(rb_reader_lost_counted)
{
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	uint64_t produced, fail, total;
	int ret;

	RBTEST_SETUP(&rt, 16384);
	rd = rb_reader(&rt, true, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	rt.skel->data->payload_len = 200;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 500) == 500);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 1 % rt.ncpus, 300) == 300);
	produced = rt.skel->bss->seq_next;
	fail = rt.skel->bss->out_fail;
	CHECK_EQ_U64(produced, 800);
	CHECK(fail > 0);
	REQUIRE(perfring_ringbuf_lost(perfring_reader_ringbuf(rd, 0), &total) == 0);
	CHECK_EQ_U64(total, fail);
	rb_collect_init(&c, produced, 200);
	perfring_reader_flush(rd);
	/* The flush drains everything (the lost map too) and says so at once. */
	ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
	CHECKF(ret == -PERFRING_EFLUSHED, "poll: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_U64(c.rb_samples, rt.skel->bss->out_ok);
	CHECK_EQ_U64(c.lost, fail);
	CHECK_EQ_U64(c.lost_events, 1);
	CHECK_EQ_U64(c.rb_samples + c.lost, produced);
	REQUIRE(perfring_reader_stats(rd, 0, &st) == 0);
	CHECK_EQ_U64(st.lost, fail);
	CHECK_EQ_U64(st.lost_records, 1);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_reader_lost_unknown)
{
	struct perfring_reader_ring_info info = { .sz = sizeof(info) };
	struct perfring_reader *rd;
	uint64_t n;
	struct rbtest rt;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt, false, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_ring_info(rd, 0, &info) == 0);
	CHECK(!info.lost_known);
	CHECK_EQ_INT(perfring_ringbuf_lost(perfring_reader_ringbuf(rd, 0), &n), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "unknown"), "%s", perfring_errmsg());
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_reader_copy_out)
{
	struct perfring_msg_buf m = { 0 };
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	uint64_t samples = 0, lost = 0;
	int ret;

	RBTEST_SETUP(&rt, 16384);
	rd = rb_reader(&rt, true, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	rt.skel->data->payload_len = 300;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 100) == 100);
	rb_collect_init(&c, 100, 300);
	perfring_reader_flush(rd);
	while ((ret = perfring_reader_read(rd, &m, 1000000000ll)) == 0) {
		if (m.kind == PERFRING_MSG_SAMPLE) {
			CHECK_EQ_INT(m.cpu, -1);
			rb_collect_sample(&c, m.data, m.size, false, 0);
			samples++;
		} else if (m.kind == PERFRING_MSG_LOST) {
			lost += m.lost;
		}
	}
	CHECKF(ret == -PERFRING_EFLUSHED, "read: %d (%s)", ret, perfring_errmsg());
	CHECK_EQ_U64(samples, rt.skel->bss->out_ok);
	CHECK_EQ_U64(lost, rt.skel->bss->out_fail);
	CHECK_EQ_U64(samples + lost, 100);
	RB_CHECK_COLLECT(&c);
	perfring_msg_buf_release(&m);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

TEST(rb_reader_budgets)
{
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = rb_reader(&rt, false, 0);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 50) == 50);
	rb_collect_init(&c, 100, 0);
	CHECK_EQ_INT(perfring_reader_consume_n(rd, 10, rb_collect_fn, &c), 10);
	CHECK_EQ_INT(perfring_reader_consume_ring_n(rd, 0, 15, rb_collect_fn, &c), 15);
	c.stop_after = 30; /* early stop: the 30th event is consumed */
	CHECK_EQ_INT(perfring_reader_consume(rd, rb_collect_fn, &c), 5);
	c.stop_after = 0;
	CHECK_EQ_INT(perfring_reader_consume(rd, rb_collect_fn, &c), 20);
	CHECK_EQ_U64(rb_collect_once(&c, 50), 50);
	RB_CHECK_COLLECT(&c);
	perfring_reader_free(rd);

	/* A per-ring budget: each drain of the ring takes at most 7. */
	rd = rb_reader(&rt, false, 7);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 20) == 20);
	ret = perfring_reader_consume(rd, rb_collect_fn, &c);
	CHECK_EQ_INT(ret, 7);
	CHECK_EQ_INT(perfring_reader_pending(rd), 1);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, rb_collect_fn, &c), 7);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, rb_collect_fn, &c), 6);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, rb_collect_fn, &c), -ETIMEDOUT);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* One ring buffer per CPU in an array of maps, Falco's layout. */
TEST(rb_reader_percpu_array)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	int fds[2], i, n, idx0 = -1, idx1 = -1;
	uint32_t key;

	RBTEST_SETUP(&rt, 0);
	RBTEST_NEED_CPUS(&rt, 2);
	for (key = 0; key < 2; key++) {
		fds[key] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_cpu", 0, 0, 64 * 1024, NULL);
		REQUIREF(fds[key] >= 0, "bpf_map_create: %s", strerror(errno));
		REQUIRE(bpf_map_update_elem(rt.outer_fd, &key, &fds[key], BPF_ANY) == 0);
	}
	o.lost_map_fd = rt.lost_fd;
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	n = perfring_reader_add_ringbuf_array(rd, rt.outer_fd, &o);
	CHECKF(n == 2, "add_ringbuf_array: %d (%s)", n, perfring_errmsg());
	for (i = 0; i < perfring_reader_ring_cnt(rd); i++) {
		if (perfring_reader_ring_cpu(rd, i) == 0)
			idx0 = i;
		if (perfring_reader_ring_cpu(rd, i) == 1)
			idx1 = i;
	}
	REQUIRE(idx0 >= 0 && idx1 >= 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 1), idx1);
	REQUIRE(rbtest_run(rt.skel->progs.produce_percpu, 0, 30) == 30);
	REQUIRE(rbtest_run(rt.skel->progs.produce_percpu, 1, 12) == 12);
	rb_collect_init(&c, 100, 0);
	CHECK_EQ_INT(perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c), 42);
	CHECK_EQ_U64(c.per_ring[idx0], 30);
	CHECK_EQ_U64(c.per_ring[idx1], 12);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	close(fds[0]);
	close(fds[1]);
	rbtest_teardown(&rt);
}

/* A perf event array and a ring buffer under one poller. */
TEST(rb_reader_mixed_with_perf_array)
{
	struct perfring_reader_ring_info info = { .sz = sizeof(info) };
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	struct ktest kt;
	int idx, ret, total = 0, i;

	RBTEST_SETUP(&rt, 0);
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	o.lost_map_fd = rt.lost_fd;
	idx = perfring_reader_add_ringbuf(rd, rt.rb_fd, &o);
	REQUIREF(idx == kt.ncpus, "add_ringbuf: %d (%s)", idx, perfring_errmsg());
	REQUIRE(perfring_reader_ring_info(rd, 0, &info) == 0);
	CHECK_EQ_INT(info.kind, PERFRING_RING_PERF);
	REQUIRE(perfring_reader_ring_info(rd, idx, &info) == 0);
	CHECK_EQ_INT(info.kind, PERFRING_RING_BPF_RINGBUF);
	/* The perf array's sequence numbers and the ring buffer's overlap: count each side. */
	ktest_set_len(&kt, 40);
	REQUIRE(ktest_produce(&kt, 0, 25) == 25);
	rt.skel->data->payload_len = 40;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 33) == 33);
	rb_collect_init(&c, 0, 40);
	for (i = 0; i < 10 && total < 58; i++) {
		ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
		REQUIREF(ret > 0, "poll: %d (%s)", ret, perfring_errmsg());
		total += ret;
	}
	CHECK_EQ_INT(total, 58);
	CHECK_EQ_U64(c.perf_samples, 25);
	CHECK_EQ_U64(c.rb_samples, 33);
	CHECK_EQ_U64(c.per_ring[idx], 33);
	/* Pause leaves the ring buffer alone; pause_ring on it says why not. */
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(perfring_reader_pause_ring(rd, idx), -EOPNOTSUPP);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	rbtest_teardown(&rt);
}

TEST(rb_reader_errors)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader *rd;
	struct rbtest rt;
	int ret;

	RBTEST_SETUP(&rt, 0);
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	/* A map of another type is named. */
	ret = perfring_reader_add_ringbuf(rd, bpf_map__fd(rt.skel->maps.scratch), NULL);
	CHECK_EQ_INT(ret, -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "BPF_MAP_TYPE_ARRAY") && strstr(perfring_errmsg(), "BPF_MAP_TYPE_RINGBUF"),
	       "%s", perfring_errmsg());
	CHECK(perfring_reader_add_ringbuf(rd, 1000, NULL) < 0);
	CHECKF(strstr(perfring_errmsg(), "fd 1000 is not a BPF map"), "%s", perfring_errmsg());
	/* A lost map that is not the header's. */
	o.lost_map_fd = bpf_map__fd(rt.skel->maps.scratch);
	CHECK_EQ_INT(perfring_reader_add_ringbuf(rd, rt.rb_fd, &o), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), PERFRING_RINGBUF_LOST_MAP), "%s", perfring_errmsg());
	/* The ring buffer in perfring_reader_new_bpf(): pointed at the right call. */
	errno = 0;
	CHECK(!perfring_reader_new_bpf(rt.rb_fd, NULL));
	CHECK_EQ_INT(errno, EINVAL);
	CHECK_EQ_INT(perfring_reader_add_ringbuf_array(rd, rt.rb_fd, NULL), -EINVAL);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 0);
	perfring_reader_close(rd);
	CHECK_EQ_INT(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL), -PERFRING_ECLOSED);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

/* Newest first: what perfring_ringbuf_consume() gave of an overwrite ring. */
struct ow_seen {
	struct rb_collect c;
	uint64_t first, prev;
	int n, order;
};

static int ow_seen_fn(void *ctx, const void *data, size_t size)
{
	struct ow_seen *o = ctx;
	struct producer_sample smp;

	rb_collect_sample(&o->c, data, size, false, 0);
	if (size >= sizeof(smp)) {
		memcpy(&smp, data, sizeof(smp));
		if (o->n == 0)
			o->first = smp.seq;
		else if (smp.seq != o->prev - 1)
			o->order++; /* one producer CPU: seq down by one each record */
		o->prev = smp.seq;
	}
	o->n++;
	return PERFRING_CONTINUE;
}

#define OW_FLAG (1u << 19) /* BPF_F_RB_OVERWRITE, Linux 6.19 */
#define OW_SIZE 16384u
#define OW_LEN 200u        /* payload bytes: 208-byte records */

TEST(rb_overwrite_ring)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .overwrite = true);
	struct perfring_reader_ring_info info = { .sz = sizeof(info) };
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	struct perfring_ringbuf *rb;
	struct ow_seen seen;
	struct rb_collect c;
	struct rbtest rt;
	struct utsname u;
	uint64_t rec = (OW_LEN + 8 + 7) & ~7u, fits = (OW_SIZE - 8) / rec;
	int fd, ret;

	RBTEST_SETUP(&rt, 0);
	uname(&u);
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb_ow", 0, 0, 4096, &(struct bpf_map_create_opts){
		.sz = sizeof(struct bpf_map_create_opts), .map_flags = OW_FLAG });
	if (fd < 0) {
		/* The reader says so clearly when asked for one. */
		errno = 0;
		rb = perfring_ringbuf_new(rt.rb_fd, &o);
		CHECK(!rb);
		CHECK_EQ_INT(errno, EOPNOTSUPP);
		CHECKF(strstr(perfring_errmsg(), u.release) && strstr(perfring_errmsg(), "6.19"), "%s",
		       perfring_errmsg());
		rbtest_teardown(&rt);
		SKIP("kernel %s lacks BPF_F_RB_OVERWRITE ring buffers (Linux 6.19+)", u.release);
	}
	close(fd);
	/* A map without the flag is not taken for one with it. */
	errno = 0;
	CHECK(!perfring_ringbuf_new(rt.rb_fd, &o));
	CHECK_EQ_INT(errno, EINVAL);
	CHECKF(strstr(perfring_errmsg(), "BPF_F_RB_OVERWRITE"), "%s", perfring_errmsg());
	rbtest_teardown(&rt);

	/* The producer's own ring, created overwrite: 500 records of 208
	 * bytes into 16 KiB, the newest "fits" of them survive. */
	if (rbtest_setup_flags_rc(&rt, OW_SIZE, OW_FLAG) != 0)
		REQUIREF(0, "setup of an overwrite ring on kernel %s: %s", u.release, rt.why);
	rb = perfring_ringbuf_new(rt.rb_fd, NULL);
	REQUIREF(rb, "%s", perfring_errmsg());
	CHECK(perfring_ringbuf_is_overwrite(rb));
	rt.skel->data->payload_len = OW_LEN;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 500) == 500);
	CHECK_EQ_U64(rt.skel->bss->out_ok, 500); /* overwrite: no reservation fails */
	memset(&seen, 0, sizeof(seen));
	rb_collect_init(&seen.c, 1000, OW_LEN);
	ret = perfring_ringbuf_consume(rb, 0, ow_seen_fn, &seen);
	CHECKF(ret >= (int)fits - 1 && ret <= (int)fits, "%d records, %llu fit (%s)", ret, (unsigned long long)fits,
	       ret < 0 ? perfring_errmsg() : "");
	CHECK_EQ_U64(seen.first, 499);
	CHECK_EQ_INT(seen.order, 0);
	RB_CHECK_COLLECT(&seen.c);
	REQUIRE(perfring_ringbuf_stats(rb, &st) == 0);
	CHECK_EQ_U64(st.bytes + st.dropped_bytes, 500 * rec); /* every byte delivered or dropped */
	CHECK_EQ_INT(perfring_ringbuf_consume(rb, 0, ow_seen_fn, &seen), 0);
	rb_collect_free(&seen.c);
	perfring_ringbuf_free(rb);

	/* In a reader: poll wakes for new records and delivers them newest
	 * first; the copy-out read too. */
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	REQUIREF(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) == 0, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_ring_info(rd, 0, &info) == 0);
	CHECK(info.overwrite);
	rb_collect_init(&c, 2000, OW_LEN);
	ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c); /* the 500 already there */
	CHECKF(ret >= (int)fits - 1 && ret <= (int)fits, "poll: %d (%s)", ret, perfring_errmsg());
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 20) == 20);
	ret = perfring_reader_poll(rd, 1000000000ll, rb_collect_fn, &c);
	CHECKF(ret == 20, "poll: %d (%s)", ret, perfring_errmsg());
	CHECK(c.seen[519] == 1 && c.seen[500] == 1);
	RB_CHECK_COLLECT(&c);
	CHECK_EQ_INT(perfring_reader_poll(rd, 10000000ll, rb_collect_fn, &c), -ETIMEDOUT);
	rb_collect_free(&c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);
}

static int pb_count, pb_rb_count;

/* libbpf's perf_buffer sample callback type. */
static void pb_sample(void *ctx, int cpu, void *data, unsigned int size)
{
	(void)ctx;
	(void)data;
	(void)size;
	pb_count++;
	pb_rb_count += cpu == -1;
}

struct samples_seen {
	struct rb_collect c;
	uint64_t lost, lost_calls;
	int bad_cpu;
};

static int on_rb_sample(void *ctx, int cpu, const void *data, size_t size)
{
	struct samples_seen *s = ctx;

	if (cpu != -1)
		s->bad_cpu++;
	rb_collect_sample(&s->c, data, size, false, 0);
	return PERFRING_CONTINUE;
}

static void on_rb_lost(void *ctx, int cpu, uint64_t lost)
{
	struct samples_seen *s = ctx;

	if (cpu != -1)
		s->bad_cpu++;
	s->lost += lost;
	s->lost_calls++;
}

/* consume_samples and the libbpf-shaped poll_ms path serve ring buffers too. */
TEST(rb_reader_consume_samples_and_poll_ms)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader *rd;
	struct samples_seen s;
	struct rbtest rt;
	struct ktest kt;
	int ret, total = 0, i;

	RBTEST_SETUP(&rt, 16384);
	o.lost_map_fd = rt.lost_fd;
	rd = perfring_reader_new(NULL);
	REQUIRE(rd);
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, &o) == 0);
	rt.skel->data->payload_len = 500;
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 100) == 100);
	memset(&s, 0, sizeof(s));
	rb_collect_init(&s.c, 100, 500);
	perfring_reader_flush(rd); /* a flush reads the lost map at once */
	for (i = 0; i < 5 && (ret = perfring_reader_consume_samples(rd, on_rb_sample, on_rb_lost, &s)) > 0; i++)
		total += ret;
	CHECK_EQ_U64(s.c.samples, rt.skel->bss->out_ok);
	CHECK_EQ_U64(s.lost, rt.skel->bss->out_fail);
	CHECK_EQ_U64(s.lost_calls, 1);
	CHECK_EQ_U64(s.c.samples + s.lost, 100);
	CHECK_EQ_INT(total, (int)(s.c.samples + 1));
	CHECK_EQ_INT(s.bad_cpu, 0);
	RB_CHECK_COLLECT(&s.c);
	rb_collect_free(&s.c);
	perfring_reader_free(rd);
	rbtest_teardown(&rt);

	/* perfring_reader_new_perf_buffer() + a ring buffer, through poll_ms. */
	RBTEST_SETUP(&rt, 0);
	KTEST_SETUP(&kt, 0);
	pb_count = 0;
	rd = perfring_reader_new_perf_buffer(kt.map_fd, 8, pb_sample, NULL, NULL, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) == kt.ncpus);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 7) == 7);
	REQUIRE(ktest_produce(&kt, 0, 5) == 5);
	for (i = 0; i < 10 && pb_count < 12; i++)
		CHECK(perfring_reader_poll_ms(rd, 1000) >= 0);
	CHECK_EQ_INT(pb_count, 12);
	CHECK_EQ_INT(pb_rb_count, 7);
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	rbtest_teardown(&rt);
}

/* The reader's wakeup threshold is for perf rings: ring buffer records are
 * due at once; a reader in time order takes no ring buffer. */
TEST(rb_reader_threshold_and_order)
{
	struct perfring_reader_opts wo = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 1000);
	struct perfring_reader_opts oo = PERFRING_OPTS_INIT(perfring_reader_opts, .order_window_ns = 1000000);
	struct perfring_reader *rd;
	struct rb_collect c;
	struct rbtest rt;
	struct ktest kt;
	uint64_t t0;
	int ret;

	RBTEST_SETUP(&rt, 0);
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, &wo);
	REQUIREF(rd, "%s", perfring_errmsg());
	REQUIRE(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL) == kt.ncpus);
	REQUIRE(rbtest_run(rt.skel->progs.produce, 0, 3) == 3);
	REQUIRE(ktest_produce(&kt, 0, 2) == 2);
	rb_collect_init(&c, 0, 0); /* two producers: their sequence numbers overlap */
	t0 = ktest_now_ns();
	ret = perfring_reader_poll(rd, 2000000000ll, rb_collect_fn, &c);
	/* At once, not after the timeout: the ring buffer's records are due
	 * (the drain then takes every ring, the perf samples too). */
	CHECKF(ret >= 3, "poll: %d (%s)", ret, ret < 0 ? perfring_errmsg() : "");
	CHECKF(ktest_now_ns() - t0 < 1000000000ull, "poll took %.0f ms", (ktest_now_ns() - t0) / 1e6);
	CHECK_EQ_U64(c.rb_samples, 3);
	RB_CHECK_COLLECT(&c);
	rb_collect_free(&c);
	perfring_reader_free(rd);

	rd = perfring_reader_new_bpf(kt.map_fd, &oo);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_add_ringbuf(rd, rt.rb_fd, NULL), -EOPNOTSUPP);
	CHECKF(strstr(perfring_errmsg(), "time order"), "%s", perfring_errmsg());
	perfring_reader_free(rd);
	ktest_teardown(&kt);
	rbtest_teardown(&rt);
}

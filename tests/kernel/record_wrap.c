// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live records through a one-page ring: cpu-clock samples of this process
 * with call chains (so their sizes vary) and 512 bytes of user stack (so
 * that the ring wraps often and many records straddle its end), read while
 * the test spins, by four paths:
 *  - perfring_ring_next() + perfring_ring_linear(), cross-checked against a
 *    private copy made with perfring_ring_record_copy();
 *  - a ring with the linearize option (one span always);
 *  - the inline cursor (perfring_ring_cursor()/perfring_cursor_next());
 *  - a reader of the caller's fd (perfring_reader_new() + _add(), linearize).
 * Every record must decode (LOST records included), samples must all be
 * ours, with the sample_period, times non-decreasing, well-formed call
 * chains and stack dumps; and enough records must have straddled for the
 * test to mean something. The first path also lets the ring overflow once:
 * the kernel's LOST record must decode with the event's id and a count.
 * Each path runs for RUN_NS of this thread's CPU time (what cpu-clock counts),
 * not of wall time: on a busy machine a wall-time run gets few samples. What
 * is checked against is what the kernel produced: the samples read plus
 * those LOST records count must make up the event's count over its period,
 * and the records that straddled, the times the bytes read went round the ring.
 */
#include "rectest.h"

#define PERIOD_NS 100000ull
#define RUN_NS 250000000ull
#define SLICE_NS 300000ull
#define STACK_BYTES 512u

struct wrap_check {
	const struct perfring_parse_config *cfg;
	size_t data_size;
	uint64_t t0;
	struct perfring_reader *rd; /* the reader test's */
	uint64_t id;                /* the event's */
	uint64_t records, samples, lost_records, lost, straddled, last_time;
	uint64_t bytes;             /* of every record read */
	uint64_t cpu0, give_up;     /* thread CPU time at the start; wall time to stop at */
	struct rt_err e;
};

/* Start the run's clocks: RUN_NS of this thread's CPU time, or at most 4 x that
 * plus 1 s of wall time on a machine that gives the test less. */
static void wrap_start(struct wrap_check *w)
{
	w->t0 = rt_now_ns();
	w->cpu0 = rt_thread_cpu_ns();
	w->give_up = w->t0 + 4 * RUN_NS + 1000000000ull;
}

static uint64_t wrap_cpu_used(const struct wrap_check *w)
{
	return rt_thread_cpu_ns() - w->cpu0;
}

static bool wrap_running(const struct wrap_check *w)
{
	return wrap_cpu_used(w) < RUN_NS && rt_now_ns() < w->give_up;
}

/* Spin for cpu_ns of this thread's CPU time (bounded in wall time by the run's end). */
static void wrap_spin_cpu(const struct wrap_check *w, uint64_t cpu_ns)
{
	uint64_t start = rt_thread_cpu_ns();

	while (rt_thread_cpu_ns() - start < cpu_ns && rt_now_ns() < w->give_up)
		rt_spin_ns(SLICE_NS);
}

static void wrap_attr(struct perf_event_attr *a)
{
	rt_attr_init(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a->sample_period = PERIOD_NS;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER;
	a->sample_stack_user = STACK_BYTES;
	a->sample_id_all = 1;
	a->disabled = 1;
}

/* Decode and check one contiguous record that sat at ring position offset
 * and crossed the end of the ring or not. */
static void wrap_record(struct wrap_check *w, const void *rec, size_t size, uint64_t offset, bool straddled)
{
	struct perfring_decoded d;
	uint64_t now = rt_now_ns();

	w->records++;
	w->bytes += size;
	if (straddled)
		w->straddled++;
	if (rt_decode(w->cfg, rec, size, &d, &w->e))
		return;
	if (d.type == PERF_RECORD_LOST) {
		if (d.u.lost.id != w->id || d.u.lost.lost == 0)
			rt_errf(&w->e, "LOST id %llu lost %llu, event id %llu", (unsigned long long)d.u.lost.id,
				(unsigned long long)d.u.lost.lost, (unsigned long long)w->id);
		w->lost_records++;
		w->lost += d.u.lost.lost;
		rt_check_trailer(w->cfg, &d, getpid(), gettid(), w->t0, now, &w->e);
		return;
	}
	if (d.type == PERF_RECORD_THROTTLE || d.type == PERF_RECORD_UNTHROTTLE) {
		rt_check_trailer(w->cfg, &d, getpid(), gettid(), w->t0, now, &w->e);
		return;
	}
	if (d.type != PERF_RECORD_SAMPLE) {
		rt_errf(&w->e, "unexpected %s", perfring_record_type_name(d.type) ?: "?");
		return;
	}
	w->samples++;
	if (d.u.sample.pid != (uint32_t)getpid() || d.u.sample.tid != (uint32_t)gettid() ||
	    d.u.sample.period != PERIOD_NS)
		rt_errf(&w->e, "sample at ring offset %llu: pid/tid %u/%u period %llu", (unsigned long long)offset,
			d.u.sample.pid, d.u.sample.tid, (unsigned long long)d.u.sample.period);
	if (d.u.sample.time < w->last_time || d.u.sample.time < w->t0 || d.u.sample.time > now)
		rt_errf(&w->e, "sample at ring offset %llu: time %llu, previous %llu, window [%llu, %llu]",
			(unsigned long long)offset, (unsigned long long)d.u.sample.time,
			(unsigned long long)w->last_time, (unsigned long long)w->t0, (unsigned long long)now);
	w->last_time = d.u.sample.time;
	/* header, ip, tid, time, period, nr, ips, stack size, stack, dyn_size */
	if (d.u.sample.stack_user.size != STACK_BYTES || d.u.sample.stack_user.dyn_size > STACK_BYTES ||
	    d.u.sample.stack_user.dyn_size == 0)
		rt_errf(&w->e, "sample at ring offset %llu: stack size %llu dyn_size %llu", (unsigned long long)offset,
			(unsigned long long)d.u.sample.stack_user.size,
			(unsigned long long)d.u.sample.stack_user.dyn_size);
	if (d.u.sample.callchain.nr < 2 || d.size != 48 + 8 * d.u.sample.callchain.nr + 16 + STACK_BYTES ||
	    !perfring_callchain_is_context(perfring_u64_at(&d.u.sample.callchain, 0)) ||
	    perfring_u64_at(&d.u.sample.callchain, 1) != d.u.sample.ip)
		rt_errf(&w->e, "sample at ring offset %llu (%zu bytes): callchain of %llu, [0] %#llx, ip %#llx",
			(unsigned long long)offset, size, (unsigned long long)d.u.sample.callchain.nr,
			(unsigned long long)(d.u.sample.callchain.nr ? perfring_u64_at(&d.u.sample.callchain, 0) : 0),
			(unsigned long long)d.u.sample.ip);
}

/*
 * The thresholds come from what the kernel produced: its count of the
 * event (task-clock nanoseconds) over the period is the samples it took, and
 * every one must have been read or counted by a LOST record (the kernel's
 * THROTTLE aside: a throttled event takes none, so the figure may come short,
 * never over, by one per period of the count); and every time the bytes read
 * went round the ring a record ended exactly at its end or straddled it.
 */
static void wrap_report(struct wrap_check *w, int fd, const char *path)
{
	uint64_t count = 0, taken, wraps = w->bytes / w->data_size;

	CHECKF(read(fd, &count, sizeof(count)) == (ssize_t)sizeof(count), "%s: read the count: %s", path,
	       strerror(errno));
	taken = count / PERIOD_NS;
	printf("  %s: %llu records (%llu samples, %llu LOST of %llu), %llu straddled the end of the %zu-byte ring "
	       "%llu times round; %llu ms of CPU, count %llu ns (%llu periods)\n",
	       path, (unsigned long long)w->records, (unsigned long long)w->samples,
	       (unsigned long long)w->lost_records, (unsigned long long)w->lost, (unsigned long long)w->straddled,
	       w->data_size, (unsigned long long)wraps, (unsigned long long)(wrap_cpu_used(w) / 1000000),
	       (unsigned long long)count, (unsigned long long)taken);
	RT_CHECK_NO_ERR(&w->e, path);
	/* enough to mean something: RUN_NS of CPU at PERIOD_NS is 2500 periods */
	CHECKF(taken >= 200, "%s: the event counted %llu ns: %llu periods", path, (unsigned long long)count,
	       (unsigned long long)taken);
	CHECKF(w->samples + w->lost <= taken + 1 && w->samples + w->lost + taken / 10 + 1 >= taken,
	       "%s: %llu samples read and %llu lost, of %llu the event's count makes", path,
	       (unsigned long long)w->samples, (unsigned long long)w->lost, (unsigned long long)taken);
	/* a record ends exactly at the ring's end one time in tens at most (sizes of 600+ bytes in
	 * steps of 8); half the laps straddled is a wide margin */
	CHECKF(wraps >= 10 && w->straddled * 2 >= wraps, "%s: %llu records straddled in %llu laps of the ring",
	       path, (unsigned long long)w->straddled, (unsigned long long)wraps);
}

/* Open the event and its one-page ring; enable it. */
static int wrap_open(struct perf_event_attr *a, struct perfring_parse_config *cfg, bool linearize,
		     struct perfring_ring **ring, struct wrap_check *w)
{
	struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = 1, .linearize = linearize);
	int fd;

	wrap_attr(a);
	memset(w, 0, sizeof(*w));
	if (perfring_parse_config_init(cfg, a, false))
		return -EINVAL;
	w->cfg = cfg;
	fd = rt_perf_open(a, 0, -1, -1);
	if (fd < 0)
		return fd;
	w->id = rt_event_id(fd);
	*ring = perfring_ring_new(fd, &o);
	if (!*ring) {
		close(fd);
		return -errno;
	}
	w->data_size = perfring_ring_data_size(*ring);
	wrap_start(w);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return fd;
}

TEST(wrap_ring_linear)
{
	static uint8_t copy[65536];
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring = NULL;
	struct wrap_check w;
	uint64_t twospan = 0;
	bool overflowed = false;
	int fd = wrap_open(&a, &cfg, false, &ring, &w);

	REQUIREF(fd >= 0, "open: %s (%s)", strerror(-fd), perfring_errmsg());
	while (wrap_running(&w)) {
		struct perfring_ring_record rec;
		int ret;

		/* Once, halfway, let the ring overflow (20 slices of CPU: some 36 KiB of samples into
		 * 4 KiB): the kernel then writes a LOST record. */
		if (!overflowed && wrap_cpu_used(&w) >= RUN_NS / 2) {
			overflowed = true;
			wrap_spin_cpu(&w, 20 * SLICE_NS);
		} else {
			rt_spin_ns(SLICE_NS);
		}
		if (perfring_ring_begin(ring) < 0)
			break;
		while ((ret = perfring_ring_next(ring, &rec)) == 1) {
			const void *lin = perfring_ring_linear(ring, &rec);

			if (!lin || rec.len + rec.len2 != rec.size) {
				rt_errf(&w.e, "record of %u bytes: linear %p, spans %zu + %zu", rec.size, lin,
					rec.len, rec.len2);
				continue;
			}
			if (rec.len2) {
				/* The copy must hold the very bytes of both spans. */
				twospan++;
				if (perfring_ring_record_copy(&rec, 0, copy, rec.size) ||
				    memcmp(copy, lin, rec.size) || memcmp(copy, rec.data, rec.len) ||
				    memcmp(copy + rec.len, rec.data2, rec.len2))
					rt_errf(&w.e, "straddling record at %llu: linear copy differs from its spans",
						(unsigned long long)rec.offset);
			}
			if (!!rec.len2 != ((rec.offset & (w.data_size - 1)) + rec.size > w.data_size))
				rt_errf(&w.e, "record at %llu of %u bytes given as %zu + %zu",
					(unsigned long long)rec.offset, rec.size, rec.len, rec.len2);
			wrap_record(&w, lin, rec.size, rec.offset, rec.len2 > 0);
		}
		perfring_ring_commit(ring);
		if (ret < 0)
			rt_errf(&w.e, "perfring_ring_next: %d %s", ret, perfring_errmsg());
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	wrap_report(&w, fd, "ring_next + ring_linear");
	CHECK_EQ_U64(twospan, w.straddled);
	/* (each LOST's id and count are checked, and their sum with the samples read) */
	CHECKF(w.lost_records >= 1, "no LOST record after letting the ring overflow");
	perfring_ring_free(ring);
	close(fd);
}

static int wrap_consume_fn(const struct perfring_ring_record *rec, void *ctx)
{
	struct wrap_check *w = ctx;

	if (rec->len2 || rec->data2 || rec->len != rec->size)
		rt_errf(&w->e, "linearize ring gave a record of %u bytes as %zu + %zu", rec->size, rec->len,
			rec->len2);
	else
		wrap_record(w, rec->data, rec->size, rec->offset,
			    (rec->offset & (w->data_size - 1)) + rec->size > w->data_size);
	return PERFRING_CONTINUE;
}

TEST(wrap_ring_linearize_option)
{
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring = NULL;
	struct wrap_check w;
	int fd = wrap_open(&a, &cfg, true, &ring, &w);

	REQUIREF(fd >= 0, "open: %s (%s)", strerror(-fd), perfring_errmsg());
	while (wrap_running(&w)) {
		int ret;

		rt_spin_ns(SLICE_NS);
		ret = perfring_ring_consume(ring, wrap_consume_fn, &w);
		if (ret < 0)
			rt_errf(&w.e, "perfring_ring_consume: %d %s", ret, perfring_errmsg());
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	wrap_report(&w, fd, "linearize option");
	perfring_ring_free(ring);
	close(fd);
}

TEST(wrap_cursor)
{
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring = NULL;
	struct wrap_check w;
	const struct perf_event_mmap_page *meta;
	const uint8_t *data;
	int fd = wrap_open(&a, &cfg, false, &ring, &w);

	REQUIREF(fd >= 0, "open: %s (%s)", strerror(-fd), perfring_errmsg());
	meta = perfring_ring_meta(ring);
	data = (const uint8_t *)meta + (meta->data_offset ? meta->data_offset : perfring_page_size());
	while (wrap_running(&w)) {
		struct perfring_cursor c;
		const struct perfring_header *h;
		int64_t avail;

		rt_spin_ns(SLICE_NS);
		avail = perfring_ring_cursor(ring, &c);
		if (avail < 0) {
			rt_errf(&w.e, "perfring_ring_cursor: %lld", (long long)avail);
			break;
		}
		/* A record in place lies whole inside the data area; one that
		 * straddled comes from the ring's scratch copy. */
		while ((h = perfring_cursor_next(&c))) {
			const uint8_t *p = (const uint8_t *)h;
			bool in_place = p >= data && p < data + w.data_size;

			if (in_place && p + h->size > data + w.data_size)
				rt_errf(&w.e, "cursor record of %u bytes at %td runs past the ring", h->size,
					p - data);
			wrap_record(&w, h, h->size, in_place ? (uint64_t)(p - data) : 0, !in_place);
		}
		if (c.err)
			rt_errf(&w.e, "cursor error %d", c.err);
		perfring_ring_cursor_commit(ring, &c);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	wrap_report(&w, fd, "inline cursor");
	perfring_ring_free(ring);
	close(fd);
}

/*
 * The reader's linearize option makes both the event's spans (the body after
 * the header) and the raw record (perfring_msg_record()) one contiguous span; whether a
 * record straddled the end of the ring is told by its offset.
 */
static int wrap_event_fn(const struct perfring_msg *ev, void *ctx)
{
	struct wrap_check *w = ctx;
	const struct perfring_ring_record *rec = perfring_msg_record(ev);
	const uint8_t *lin;

	if (!rec || ev->data2 || ev->size2 || ev->size != (size_t)rec->size - 8) {
		rt_errf(&w->e, "linearize reader: a %u-byte record's body given as %zu + %zu", rec ? rec->size : 0,
			ev->size, ev->size2);
		return PERFRING_CONTINUE;
	}
	if (rec->len2 || rec->data2 || rec->len != rec->size) {
		rt_errf(&w->e, "linearize reader: record at %llu of %u bytes given as %zu + %zu",
			(unsigned long long)rec->offset, rec->size, rec->len, rec->len2);
		return PERFRING_CONTINUE;
	}
	lin = rec->data;
	if (memcmp(lin + 8, ev->data, ev->size)) {
		rt_errf(&w->e, "linearize reader: the body differs from the record's");
		return PERFRING_CONTINUE;
	}
	wrap_record(w, lin, rec->size, rec->offset,
		    (rec->offset & (w->data_size - 1)) + rec->size > w->data_size);
	return PERFRING_CONTINUE;
}

TEST(wrap_reader_linearize)
{
	struct perfring_reader_opts o =
		PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1, .linearize = true);
	struct perf_event_attr a;
	struct perfring_parse_config cfg;
	struct perfring_reader *rd;
	struct wrap_check w;
	int fd, idx;

	wrap_attr(&a);
	memset(&w, 0, sizeof(w));
	REQUIRE(perfring_parse_config_init(&cfg, &a, false) == 0);
	w.cfg = &cfg;
	fd = rt_perf_open(&a, 0, -1, -1);
	REQUIREF(fd >= 0, "perf_event_open: %s", strerror(-fd));
	rd = perfring_reader_new(&o);
	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	idx = perfring_reader_add(rd, fd, -1);
	REQUIREF(idx == 0, "perfring_reader_add: %d %s", idx, perfring_errmsg());
	w.rd = rd;
	w.id = rt_event_id(fd);
	w.data_size = perfring_reader_data_size(rd);
	CHECK_EQ_U64(w.data_size, (uint64_t)perfring_page_size());
	wrap_start(&w);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	while (wrap_running(&w)) {
		int ret;

		rt_spin_ns(SLICE_NS);
		ret = perfring_reader_consume(rd, wrap_event_fn, &w);
		if (ret < 0)
			rt_errf(&w.e, "perfring_reader_consume: %d %s", ret, perfring_errmsg());
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	wrap_report(&w, fd, "reader, linearize");
	perfring_reader_free(rd);
	close(fd);
}

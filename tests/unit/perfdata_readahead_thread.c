// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_perfdata_opts.readahead_thread: a 25 MB perf.data written at
 * test time (two CPUs' samples with call chains, their blocks written a
 * round at a time as perf does) reads the same with the thread as without,
 * record for record, in file order and in time order; the thread is there
 * while a large mapped file is read (its name counted in /proc/self/task)
 * and gone after perfring_perfdata_free(), also when the reader stops
 * early; it is not started for a small file or on one CPU. Run under TSan by the tsan
 * suite ("thread" in the name).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include <perfring/perfdata.h>
#include <perfring/perfdata_write.h>

#include "harness.h"
#include "readahead_threads.h"

#define NR_IPS 20
#define PER_CPU 32 /* samples of each CPU per round */

struct sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
	uint64_t nr;
	uint64_t ips[NR_IPS];
};

/* How a test file is written: extras_every > 0 puts, in every such round,
 * the user records the reader acts on (EVENT_UPDATE naming the event,
 * ID_INDEX) and one it passes on (TIME_CONV); no_rounds leaves out the
 * FINISHED_ROUNDs (time ordering then reaches its bound). */
struct file_opts {
	int compress_level;
	unsigned extras_every;
	bool no_rounds;
};

static int write_extras(struct perfring_perfdata_writer *w, unsigned r)
{
	struct {
		struct perf_event_header h;
		uint64_t type, id;
		char name[16];
	} upd = { .h = { .type = PERFRING_RECORD_EVENT_UPDATE, .size = sizeof(upd) }, .type = 2, .id = 7 };
	struct {
		struct perf_event_header h;
		uint64_t nr, id, idx, cpu, tid;
	} idx = { .h = { .type = PERFRING_RECORD_ID_INDEX, .size = sizeof(idx) }, .nr = 1, .id = 7, .tid = -1ull };
	struct {
		struct perf_event_header h;
		uint64_t shift, mult, zero;
	} conv = { .h = { .type = PERFRING_RECORD_TIME_CONV, .size = sizeof(conv) }, .shift = 10, .mult = 3 };
	int err;

	snprintf(upd.name, sizeof(upd.name), "clock-%u", r);
	err = perfring_perfdata_writer_write(w, &upd, sizeof(upd));
	if (!err)
		err = perfring_perfdata_writer_write(w, &conv, sizeof(conv));
	if (!err)
		err = perfring_perfdata_writer_write(w, &idx, sizeof(idx));
	return err;
}

/* rounds of 2 * PER_CPU samples (about 14 KB each); NULL on failure */
static char *write_file_opts(unsigned rounds, const struct file_opts *fo)
{
	static char path[64];
	struct perf_event_attr attr = { .size = sizeof(attr),
					.type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
					.sample_id_all = 1 };
	const struct perf_event_header round = { .type = PERFRING_RECORD_FINISHED_ROUND, .size = 8 };
	struct perfring_perfdata_writer *w;
	uint64_t id = 7;
	unsigned r, cpu, k, i;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/tmp/perfdata_readahead.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	struct perfring_perfdata_writer_opts wo = { .sz = sizeof(wo), .compress_level = fo->compress_level };

	w = perfring_perfdata_writer_open(path, &wo);
	if (!w || perfring_perfdata_writer_add_attr(w, &attr, &id, 1, "cpu-clock") < 0)
		return NULL;
	for (r = 0; r < rounds && !err; r++) {
		if (fo->extras_every && r % fo->extras_every == fo->extras_every / 2)
			err = write_extras(w, r);
		for (cpu = 0; cpu < 2 && !err; cpu++)
			for (k = 0; k < PER_CPU && !err; k++) {
				/* each CPU's block in order, the two blocks interleaved in time */
				uint64_t t = 1000000 + ((uint64_t)r * 2 * PER_CPU + 2 * k + cpu) * 100;
				struct sample s = { .h = { .type = PERF_RECORD_SAMPLE, .size = sizeof(s) },
						    .ip = 0xffffffff81000000ull + t,
						    .pid = 100 + cpu,
						    .tid = 100 + cpu,
						    .time = t,
						    .cpu = cpu,
						    .period = 100000,
						    .nr = NR_IPS };

				for (i = 0; i < NR_IPS; i++)
					s.ips[i] = 0x400000 + t * 3 + i;
				err = perfring_perfdata_writer_write(w, &s, sizeof(s));
			}
		if (!err && !fo->no_rounds)
			err = perfring_perfdata_writer_write(w, &round, sizeof(round));
	}
	if (err) {
		perfring_perfdata_writer_free(w);
		return NULL;
	}
	return perfring_perfdata_writer_close(w) ? NULL : path;
}

static char *write_file(unsigned rounds)
{
	const struct file_opts fo = { 0 };

	return write_file_opts(rounds, &fo);
}

struct pass {
	uint64_t *offsets; /* every record's, in delivery order */
	size_t n, cap;
	int threads_seen;  /* the most readahead threads counted while reading */
	uint64_t samples, disorder, sum;
	/* how it ended: the error, its offset and message; the event's name */
	int err;
	uint64_t err_offset, early_flushed;
	char msg[512], name[32];
	/* warnings logged, and how many of them from another thread */
	unsigned warnings, warnings_elsewhere;
};

static uint64_t max_queue_bytes; /* the passes' opts.max_queue_bytes */
static pthread_t reading_thread;

static void on_log(enum perfring_log_level level, const char *msg, void *ctx)
{
	struct pass *p = ctx;

	if (level != PERFRING_LOG_WARN)
		return;
	p->warnings++;
	p->warnings_elsewhere += !pthread_equal(pthread_self(), reading_thread);
}

/* Read path whole (or its first max records); 0 or the error. */
static int read_pass(const char *path, bool ordered, bool thread, size_t max, struct pass *p)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered, .readahead_thread = thread,
					    .max_queue_bytes = max_queue_bytes };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	uint64_t last = 0, i;
	int ret = 0, t;

	memset(p, 0, sizeof(*p));
	reading_thread = pthread_self();
	perfring_set_log(on_log, PERFRING_LOG_WARN, p);
	pd = perfring_perfdata_open(path, &o);
	if (!pd)
		return -1;
	while (p->n < max && (ret = perfring_perfdata_next(pd, &rec)) > 0) {
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 4096;
			p->offsets = realloc(p->offsets, p->cap * sizeof(*p->offsets));
			if (!p->offsets)
				return -ENOMEM;
		}
		p->offsets[p->n++] = rec.offset;
		if (rec.type == PERF_RECORD_SAMPLE) {
			const struct sample *s = (const void *)rec.data;

			p->samples++;
			p->disorder += s->time < last;
			last = s->time;
			for (i = 0; i < s->nr && i < NR_IPS; i++)
				p->sum += s->ips[i]; /* every byte read, as a consumer would */
		}
		if ((p->n == 1000 || p->n % 8192 == 0) && (t = nr_threads()) > p->threads_seen)
			p->threads_seen = t;
	}
	p->err = ret < 0 ? ret : 0;
	if (ret < 0) {
		p->err_offset = perfring_perfdata_error_offset(pd);
		snprintf(p->msg, sizeof(p->msg), "%s", perfring_errmsg());
		/* asked again, the error stays */
		if (perfring_perfdata_next(pd, &rec) != ret)
			p->err = 1;
	}
	p->early_flushed = perfring_perfdata_early_flushed(pd);
	snprintf(p->name, sizeof(p->name), "%s",
		 perfring_perfdata_attr(pd, 0)->name ? perfring_perfdata_attr(pd, 0)->name : "");
	perfring_perfdata_free(pd);
	perfring_set_log(NULL, PERFRING_LOG_WARN, NULL);
	return p->err;
}

static bool same_records(const struct pass *a, const struct pass *b)
{
	return a->n == b->n && a->sum == b->sum && !memcmp(a->offsets, b->offsets, a->n * sizeof(*a->offsets));
}

/* The same records, the same end, the same warnings, said by the reading thread. */
static void check_same_pass(const struct pass *plain, const struct pass *ra, const char *what)
{
	CHECKF(same_records(plain, ra), "%s: %zu and %zu records, not the same", what, plain->n, ra->n);
	CHECKF(plain->err == ra->err && plain->err_offset == ra->err_offset && !strcmp(plain->msg, ra->msg),
	       "%s: ended with %d at %" PRIu64 " (%s) without the thread, %d at %" PRIu64 " (%s) with it", what,
	       plain->err, plain->err_offset, plain->msg, ra->err, ra->err_offset, ra->msg);
	CHECKF(!strcmp(plain->name, ra->name), "%s: event named %s and %s", what, plain->name, ra->name);
	CHECK_EQ_U64(plain->early_flushed, ra->early_flushed);
	CHECK_EQ_INT(plain->warnings, ra->warnings);
	CHECK_EQ_INT(ra->warnings_elsewhere, 0);
}

TEST(perfdata_readahead_thread_same_records)
{
	const unsigned rounds = 1800; /* 1800 * 64 * 216 bytes: 25 MB */
	char *path = write_file(rounds);
	struct pass plain, ra;
	cpu_set_t all;

	REQUIREF(path != NULL, "writing the file: %s", perfring_errmsg());
	CHECK_EQ_INT(nr_threads(), 0);
	REQUIRE(sched_getaffinity(0, sizeof(all), &all) == 0);
	for (int ordered = 0; ordered < 2; ordered++) {
		CHECK_EQ_INT(read_pass(path, ordered, false, SIZE_MAX, &plain), 0);
		CHECK_EQ_INT(read_pass(path, ordered, true, SIZE_MAX, &ra), 0);
		CHECK_EQ_U64(plain.samples, (uint64_t)rounds * 2 * PER_CPU);
		CHECKF(same_records(&plain, &ra), "ordered %d: %zu and %zu records, not the same", ordered, plain.n,
		       ra.n);
		/* time order is an order: the blocks of the two CPUs come interleaved */
		CHECK_EQ_U64(ra.disorder, ordered ? 0 : (uint64_t)rounds);
		CHECK_EQ_INT(plain.threads_seen, 0);
		if (CPU_COUNT(&all) > 1)
			CHECKF(ra.threads_seen == 1, "%d readahead threads while reading with one", ra.threads_seen);
		else
			CHECK_EQ_INT(ra.threads_seen, 0);
		CHECK_EQ_INT(nr_threads(), 0); /* joined by perfring_perfdata_free() */
		free(plain.offsets);
		free(ra.offsets);
	}
	unlink(path);
}

TEST(perfdata_readahead_thread_stops_early_and_stays_out_of_small_or_one_cpu)
{
	char *path = write_file(1800);
	struct pass p, whole;
	cpu_set_t all, one;

	REQUIREF(path != NULL, "writing the file: %s", perfring_errmsg());
	CHECK_EQ_INT(nr_threads(), 0);
	/* a reader freed after a few records stops its thread (waiting or populating) */
	for (size_t max = 1; max <= 100000; max *= 10) {
		CHECK_EQ_INT(read_pass(path, true, true, max, &p), 0);
		CHECK_EQ_U64(p.n, max);
		CHECK_EQ_INT(nr_threads(), 0);
		free(p.offsets);
	}
	/* one CPU: no thread, the same records */
	REQUIRE(sched_getaffinity(0, sizeof(all), &all) == 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
	CHECK_EQ_INT(read_pass(path, true, true, SIZE_MAX, &p), 0);
	REQUIRE(sched_setaffinity(0, sizeof(all), &all) == 0);
	CHECK_EQ_INT(p.threads_seen, 0);
	CHECK_EQ_INT(read_pass(path, true, false, SIZE_MAX, &whole), 0);
	CHECK(same_records(&p, &whole));
	free(p.offsets);
	free(whole.offsets);
	unlink(path);

	/* a small file (under 16 MiB): no thread */
	path = write_file(100);
	REQUIRE(path != NULL);
	CHECK_EQ_INT(read_pass(path, true, true, SIZE_MAX, &p), 0);
	CHECK_EQ_U64(p.samples, 100 * 2 * PER_CPU);
	CHECK_EQ_INT(p.threads_seen, 0);
	free(p.offsets);
	unlink(path);
}

/* The records the thread leaves to the caller's thread: user records the
 * reader acts on, compressed records, a broken record, the queue's bound. */
TEST(perfdata_readahead_thread_hands_back)
{
	struct file_opts fo = { .extras_every = 97 };
	struct pass plain, ra;
	char *path;
	int fd;

	/* EVENT_UPDATE, ID_INDEX and TIME_CONV every 97 rounds */
	path = write_file_opts(1800, &fo);
	REQUIREF(path != NULL, "writing the file: %s", perfring_errmsg());
	for (int ordered = 0; ordered < 2; ordered++) {
		CHECK_EQ_INT(read_pass(path, ordered, false, SIZE_MAX, &plain), 0);
		CHECK_EQ_INT(read_pass(path, ordered, true, SIZE_MAX, &ra), 0);
		CHECK_EQ_U64(plain.samples, 1800 * 2 * PER_CPU);
		CHECK(strcmp(plain.name, "clock-1794") == 0); /* the last EVENT_UPDATE's */
		check_same_pass(&plain, &ra, ordered ? "extras, time order" : "extras, file order");
		if (ordered) {
			/* a record whose size says 4, in the middle: the same error at the same place */
			uint16_t four = 4;

			fd = open(path, O_WRONLY);
			REQUIRE(fd >= 0);
			REQUIRE(pwrite(fd, &four, 2, (off_t)plain.offsets[plain.n * 2 / 3] + 6) == 2);
			close(fd);
		}
		free(plain.offsets);
		free(ra.offsets);
	}
	for (int ordered = 0; ordered < 2; ordered++) {
		CHECK(read_pass(path, ordered, false, SIZE_MAX, &plain) < 0);
		CHECK(read_pass(path, ordered, true, SIZE_MAX, &ra) < 0);
		CHECK(plain.n > 70000); /* two thirds of the records come before */
		check_same_pass(&plain, &ra, ordered ? "broken record, time order" : "broken record, file order");
		free(plain.offsets);
		free(ra.offsets);
	}
	unlink(path);

	/* zstd-compressed records: all read by the caller's thread */
	fo = (struct file_opts){ .compress_level = 1 };
	path = write_file_opts(1800, &fo);
	REQUIREF(path != NULL, "writing the file: %s", perfring_errmsg());
	CHECK_EQ_INT(read_pass(path, true, false, SIZE_MAX, &plain), 0);
	CHECK_EQ_INT(read_pass(path, true, true, SIZE_MAX, &ra), 0);
	CHECK_EQ_U64(plain.samples, 1800 * 2 * PER_CPU);
	check_same_pass(&plain, &ra, "compressed");
	free(plain.offsets);
	free(ra.offsets);
	unlink(path);

	/* no FINISHED_ROUND: time ordering reaches a 1 MiB bound, once warned
	 * of, by the reading thread, and flushes early as often either way */
	fo = (struct file_opts){ .no_rounds = true };
	path = write_file_opts(1800, &fo);
	REQUIREF(path != NULL, "writing the file: %s", perfring_errmsg());
	max_queue_bytes = 1 << 20;
	CHECK_EQ_INT(read_pass(path, true, false, SIZE_MAX, &plain), 0);
	CHECK_EQ_INT(read_pass(path, true, true, SIZE_MAX, &ra), 0);
	max_queue_bytes = 0;
	CHECK(plain.early_flushed > 100000);
	CHECK_EQ_INT(plain.warnings, 1);
	check_same_pass(&plain, &ra, "queue bound");
	free(plain.offsets);
	free(ra.offsets);
	unlink(path);
}

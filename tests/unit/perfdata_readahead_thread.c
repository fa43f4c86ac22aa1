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
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include <perfring/perfdata.h>
#include <perfring/perfdata_write.h>

#include "harness.h"

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

/* rounds of 2 * PER_CPU samples (about 14 KB each); NULL on failure */
static char *write_file(unsigned rounds)
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
	w = perfring_perfdata_writer_open(path, NULL);
	if (!w || perfring_perfdata_writer_add_attr(w, &attr, &id, 1, "cpu-clock") < 0)
		return NULL;
	for (r = 0; r < rounds && !err; r++) {
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
		if (!err)
			err = perfring_perfdata_writer_write(w, &round, sizeof(round));
	}
	if (err) {
		perfring_perfdata_writer_free(w);
		return NULL;
	}
	return perfring_perfdata_writer_close(w) ? NULL : path;
}

/* The reader's threads: this process's tasks named perfring-ra. */
static int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f) {
			n += fgets(comm, sizeof(comm), f) && strcmp(comm, "perfring-ra\n") == 0;
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

struct pass {
	uint64_t *offsets; /* every record's, in delivery order */
	size_t n, cap;
	int threads_seen;  /* the most readahead threads counted while reading */
	uint64_t samples, disorder, sum;
};

/* Read path whole (or its first max records); 0 or the error. */
static int read_pass(const char *path, bool ordered, bool thread, size_t max, struct pass *p)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered, .readahead_thread = thread };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	uint64_t last = 0, i;
	int ret = 0, t;

	memset(p, 0, sizeof(*p));
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
	perfring_perfdata_free(pd);
	return ret < 0 ? ret : 0;
}

static bool same_records(const struct pass *a, const struct pass *b)
{
	return a->n == b->n && a->sum == b->sum && !memcmp(a->offsets, b->offsets, a->n * sizeof(*a->offsets));
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

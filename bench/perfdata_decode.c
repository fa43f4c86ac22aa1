// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data decoding speed: open a file written by `perf record -g`, read
 * every record with perfring_perfdata_next(), decode every kernel record
 * with perfring_record_parse() and touch the sample fields a profiler reads
 * (time, pid, tid, cpu, ip and every call chain entry, summed). The sum is
 * the one bench/rust (linux-perf-data) prints, so that scripts/
 * bench_perfdata.sh can check both did the same work.
 *
 * Each pass includes opening the file (header, attrs, features), as the
 * peers' passes do. With --ordered the records come in time order (what
 * linux-perf-data 0.6 and perf report always do); without, in file order.
 * With --readahead-thread (also for --stats) the reader is opened with
 * perfring_perfdata_opts.readahead_thread: a second thread reads (and
 * orders) the records ahead, and perfring_perfdata_next() takes them.
 *
 *   perfdata_decode FILE [--reps N] [--ordered] [--readahead-thread]
 *   perfdata_decode FILE --stats [--reps N]
 *           what `perf report --stats` does: time order, records counted
 *           by type and samples by event, nothing else decoded
 *   perfdata_decode FILE --floor [--reps N]
 *           the memory floor: map the file and add up its 8-byte words,
 *           nothing decoded (no reader can touch every byte in less)
 *   perfdata_decode FILE --floor-pread [--reps N]
 *           the same by copy: pread() into a reused 4 MiB buffer
 *   perfdata_decode FILE --floor-headers [--reps N]
 *           the least an ordering or counting reader can take: map the
 *           file and walk its data section's record headers, nothing else
 *           (every line prefetched 8 KiB ahead, the fastest such walk here)
 *   perfdata_decode FILE --floor-consumer [--reps N]
 *           the decoding pass's consumer alone: its records first copied
 *           in time order into one buffer (not timed), then parsed and
 *           summed as decode_file() does, with no reader at all
 *   perfdata_decode FILE --callgrind [--max-records N] [--ordered]
 *           one pass through decode_file() for valgrind --tool=callgrind
 *           --toggle-collect=decode_file, stopping after N records
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perfdata.h>

#include "bench.h"

struct result {
	uint64_t records, kernel, samples, sum;
};

static bool readahead_thread; /* --readahead-thread */

/* The consumer's work on a decoded kernel record: a sample's fields a
 * profiler reads, and every call chain entry, added up. */
static inline __attribute__((always_inline)) void consume(struct result *r, const struct perfring_decoded *d)
{
	uint64_t i;

	r->kernel++;
	if (d->type == PERF_RECORD_SAMPLE) {
		/* A local copy: d's address escapes into the decoder. */
		const struct perfring_u64_array cc = d->u.sample.callchain;

		r->samples++;
		r->sum += d->u.sample.time + d->u.sample.pid + d->u.sample.tid + d->u.sample.cpu + d->u.sample.ip;
		for (i = 0; i < cc.nr; i++)
			r->sum += perfring_u64_at(&cc, i);
	}
}

/* The measured pass: the whole file (or its first max records). */
static BENCH_NOINLINE struct result decode_file(const char *path, bool ordered, uint64_t max)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts), .ordered = ordered,
					       .readahead_thread = readahead_thread };
	struct result r = { 0, 0, 0, 0 };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	struct perfring_decoded d;
	int ret;

	pd = perfring_perfdata_open(path, &opts);
	if (!pd)
		bench_die("%s: %s", path, perfring_errmsg());
	while (r.records < max && (ret = perfring_perfdata_next(pd, &rec)) > 0) {
		r.records++;
		if (!rec.attr)
			continue; /* a user record */
		ret = perfring_record_parse(&rec.attr->cfg, rec.data, rec.size, &d);
		if (ret)
			bench_die("%s: record at offset %" PRIu64 ": %s (%s)", path, rec.offset,
				  perfring_strerror(ret), perfring_errmsg());
		consume(&r, &d);
	}
	if (r.records < max && ret < 0)
		bench_die("%s: at offset %" PRIu64 ": %s (%s)", path, perfring_perfdata_error_offset(pd),
			  perfring_strerror(ret), perfring_errmsg());
	perfring_perfdata_free(pd);
	return r;
}

/*
 * What `perf report --stats` does with a file: every record read in time
 * order (perf report always orders), counted by type, and the samples
 * counted per event; nothing else decoded (a consumer asks for what it
 * needs). r.sum is the number of records of the types perf counts,
 * r.samples the SAMPLE records: the script checks them against perf's
 * "TOTAL events" and "SAMPLE events" lines.
 */
static BENCH_NOINLINE struct result count_file(const char *path)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts), .ordered = true,
					       .readahead_thread = readahead_thread };
	uint64_t by_type[PERF_RECORD_MAX + 64] = { 0 }, per_attr[64] = { 0 };
	struct result r = { 0, 0, 0, 0 };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	const struct perfring_perfdata_attr *last = NULL;
	int ret, idx = 0, i, n;

	pd = perfring_perfdata_open(path, &opts);
	if (!pd)
		bench_die("%s: %s", path, perfring_errmsg());
	while ((ret = perfring_perfdata_next(pd, &rec)) > 0) {
		r.records++;
		if (rec.type < sizeof(by_type) / sizeof(by_type[0]))
			by_type[rec.type]++;
		if (rec.type != PERF_RECORD_SAMPLE || !rec.attr)
			continue;
		if (rec.attr != last) { /* which event: its position among the attrs */
			n = perfring_perfdata_attr_cnt(pd);
			for (i = 0; i < n; i++)
				if (perfring_perfdata_attr(pd, i) == rec.attr)
					break;
			last = rec.attr;
			idx = i < 64 ? i : 63;
		}
		per_attr[idx]++;
	}
	if (ret < 0)
		bench_die("%s: at offset %" PRIu64 ": %s (%s)", path, perfring_perfdata_error_offset(pd),
			  perfring_strerror(ret), perfring_errmsg());
	perfring_perfdata_free(pd);
	for (i = 0; i < 64; i++)
		r.samples += per_attr[i];
	for (i = 0; i < (int)(sizeof(by_type) / sizeof(by_type[0])); i++)
		r.sum += by_type[i];
	return r;
}

/*
 * The consumer's floor: decode_file()'s work on each record (parse, the
 * sample's fields and call chain summed) with no reading at all. The
 * records are first copied, in time order, one after another into one
 * buffer (not timed), so the consumer streams through memory as no reader
 * of a perf.data can make it: a round's records come from two or more
 * places of the file. A time-ordered pass of decode_file() cannot take
 * less than this on one CPU, whatever the reader does.
 */
struct held {
	uint8_t *bytes;
	uint32_t *size;        /* each record's size, in order */
	const struct perfring_parse_config **cfg; /* its attr's (NULL: a user record) */
	uint64_t n, len;
	struct perfring_perfdata *pd; /* open: the cfgs are its */
};

static void hold_records(const char *path, struct held *h)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts), .ordered = true };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	uint64_t cap = 0;
	struct stat st;
	int ret;

	memset(h, 0, sizeof(*h));
	if (stat(path, &st))
		bench_die("%s: %s", path, strerror(errno));
	pd = perfring_perfdata_open(path, &opts);
	if (!pd)
		bench_die("%s: %s", path, perfring_errmsg());
	h->bytes = malloc((size_t)st.st_size); /* more than the records take */
	if (!h->bytes)
		bench_die("out of memory");
	while ((ret = perfring_perfdata_next(pd, &rec)) > 0) {
		if (h->n == cap) {
			cap = cap ? cap * 2 : 1u << 16;
			h->size = realloc(h->size, cap * sizeof(*h->size));
			h->cfg = realloc(h->cfg, cap * sizeof(*h->cfg));
			if (!h->size || !h->cfg)
				bench_die("out of memory");
		}
		h->cfg[h->n] = rec.attr ? &rec.attr->cfg : NULL;
		h->size[h->n++] = rec.attr ? rec.size : 0;
		if (rec.attr) {
			if (rec.size > (uint64_t)st.st_size - h->len)
				bench_die("%s: --floor-consumer takes an uncompressed file", path);
			memcpy(h->bytes + h->len, rec.data, rec.size);
			h->len += rec.size;
		}
	}
	if (ret < 0)
		bench_die("%s: %s", path, perfring_errmsg());
	h->pd = pd;
}

static BENCH_NOINLINE struct result consume_held(const struct held *h)
{
	struct result r = { 0, 0, 0, 0 };
	struct perfring_decoded d;
	uint64_t off = 0, k;
	int ret;

	for (k = 0; k < h->n; k++) {
		r.records++;
		if (!h->cfg[k])
			continue;
		ret = perfring_record_parse(h->cfg[k], h->bytes + off, h->size[k], &d);
		off += h->size[k];
		if (ret)
			bench_die("record %" PRIu64 ": %s", k, perfring_strerror(ret));
		consume(&r, &d);
	}
	return r;
}

/* The floor: every byte of the file read once, through a populated mapping. */
static BENCH_NOINLINE uint64_t touch_file(const char *path)
{
	const uint64_t *w;
	uint64_t sum = 0;
	struct stat st;
	size_t i, n;
	void *m;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		bench_die("%s: %s", path, strerror(errno));
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		bench_die("%s: mmap: %s", path, strerror(errno));
	w = m;
	n = (size_t)st.st_size / 8;
	for (i = 0; i < n; i++)
		sum += w[i];
	munmap(m, (size_t)st.st_size);
	close(fd);
	return sum;
}

/*
 * The floor of a reader that needs only each record's header (and its
 * time, in the same line): the data section's headers walked, each found
 * from the size of the one before. A walk that loads only the headers
 * waits on memory at every record (about three times the whole-file sum
 * on this file); prefetching every line 8 KiB ahead makes it stream, so
 * this is about the whole-file floor: records are a few lines each, and
 * memory is read by the line, not by the header.
 */
#define HEADERS_AHEAD 8192
static BENCH_NOINLINE uint64_t walk_headers(const char *path)
{
	uint64_t sum = 0, off, end, pf;
	const uint8_t *b;
	struct stat st;
	void *m;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		bench_die("%s: %s", path, strerror(errno));
	if (st.st_size < 56)
		bench_die("%s: too small for a perf.data header", path);
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (m == MAP_FAILED)
		bench_die("%s: mmap: %s", path, strerror(errno));
	b = m;
	if (memcmp(b, "PERFILE2", 8))
		bench_die("%s: not a native-endian perf.data file", path);
	memcpy(&off, b + 40, 8); /* the data section: offset, size */
	memcpy(&end, b + 48, 8);
	if (off > (uint64_t)st.st_size || end > (uint64_t)st.st_size - off)
		bench_die("%s: the data section is outside the file", path);
	end += off;
	for (pf = off; off + 8 <= end;) {
		uint32_t type;
		uint16_t size;

		for (; pf < off + HEADERS_AHEAD && pf < end; pf += 64)
			__builtin_prefetch(b + pf);
		memcpy(&type, b + off, 4);
		memcpy(&size, b + off + 6, 2);
		if (size < 8)
			bench_die("%s: record at %" PRIu64 " has size %u", path, off, size);
		sum += type;
		off += size;
	}
	munmap(m, (size_t)st.st_size);
	close(fd);
	return sum;
}

/*
 * The floor by copy: every byte of the file read once with pread() into one
 * reused 4 MiB buffer (allocated per pass, as a reader would), its words
 * added up. Against touch_file(): is copying from the page cache cheaper
 * than faulting in and walking a mapping of the whole file?
 */
#define FLOOR_CHUNK (4u << 20)
static BENCH_NOINLINE uint64_t read_file(const char *path)
{
	uint64_t sum = 0, *w;
	off_t off = 0;
	ssize_t got;
	size_t i;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		bench_die("%s: %s", path, strerror(errno));
	w = malloc(FLOOR_CHUNK);
	if (!w)
		bench_die("out of memory");
	while ((got = pread(fd, w, FLOOR_CHUNK, off)) > 0) {
		for (i = 0; i < (size_t)got / 8; i++)
			sum += w[i];
		off += got;
	}
	if (got < 0)
		bench_die("%s: pread: %s", path, strerror(errno));
	free(w);
	close(fd);
	return sum;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },	 { "ordered", no_argument, NULL, 'o' },
		{ "callgrind", no_argument, NULL, 'g' },	 { "max-records", required_argument, NULL, 'm' },
		{ "floor", no_argument, NULL, 'f' },		 { "floor-pread", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },		 { "floor-headers", no_argument, NULL, 'H' },
		{ "readahead-thread", no_argument, NULL, 'R' }, { "floor-consumer", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name, *path;
	uint64_t max = UINT64_MAX;
	int reps = 3, callgrind = 0, floor = 0, opt, i;
	bool ordered = false, stats = false, consumer = false;
	struct result r = { 0, 0, 0, 0 };
	double *t, med;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'o':
			ordered = true;
			break;
		case 'g':
			callgrind = 1;
			break;
		case 'f':
			floor = 1;
			break;
		case 'p':
			floor = 2;
			break;
		case 'H':
			floor = 3;
			break;
		case 'm':
			max = strtoull(optarg, NULL, 0);
			break;
		case 's':
			stats = true;
			break;
		case 'R':
			readahead_thread = true;
			break;
		case 'C':
			consumer = true;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || reps < 1)
		goto usage;
	path = argv[optind];
	name = ordered ? (readahead_thread ? "perfring-ordered" : "perfring-ordered-1thread")
		       : (readahead_thread ? "perfring" : "perfring-1thread");

	if (floor) {
		t = calloc((size_t)reps, sizeof(*t));
		if (!t)
			bench_die("out of memory");
		static const char *const names[] = { "", "floor", "floor-pread", "floor-headers" };
		static const char *const what[] = {
			"",
			"the file mapped and its words added up",
			"the file read with pread into a reused 4 MiB buffer and its words added up",
			"the file mapped and its record headers walked",
		};

		for (i = 0; i < reps; i++) {
			uint64_t t0 = bench_now_ns();
			uint64_t sum = floor == 1 ? touch_file(path) : floor == 2 ? read_file(path) : walk_headers(path);

			t[i] = (double)(bench_now_ns() - t0) / 1e9;
			printf("perfdata_decode_pass %s seconds %.6f sum %" PRIx64 "\n", names[floor], t[i], sum);
		}
		printf("perfdata_decode %s seconds %.6f (median of %d: %s)\n", names[floor],
		       bench_median(t, (size_t)reps), reps, what[floor]);
		free(t);
		return 0;
	}
	if (consumer) {
		struct held h;

		t = calloc((size_t)reps, sizeof(*t));
		if (!t)
			bench_die("out of memory");
		hold_records(path, &h);
		for (i = 0; i < reps; i++) {
			uint64_t t0 = bench_now_ns();

			r = consume_held(&h);
			t[i] = (double)(bench_now_ns() - t0) / 1e9;
			printf("perfdata_decode_pass floor-consumer records %" PRIu64 " kernel %" PRIu64 " samples %" PRIu64
			       " seconds %.6f sum %" PRIx64 "\n", r.records, r.kernel, r.samples, t[i], r.sum);
		}
		printf("perfdata_decode floor-consumer records %" PRIu64 " seconds %.6f (median of %d: decode_file's "
		       "consumer alone, on the records copied in time order into one buffer beforehand)\n",
		       r.records, bench_median(t, (size_t)reps), reps);
		perfring_perfdata_free(h.pd);
		free(h.bytes);
		free(h.size);
		free(h.cfg);
		free(t);
		return 0;
	}
	if (stats) {
		t = calloc((size_t)reps, sizeof(*t));
		if (!t)
			bench_die("out of memory");
		for (i = 0; i < reps; i++) {
			uint64_t t0 = bench_now_ns();

			r = count_file(path);
			t[i] = (double)(bench_now_ns() - t0) / 1e9;
			printf("perfdata_stats_pass perfring records %" PRIu64 " total %" PRIu64 " samples %" PRIu64
			       " seconds %.6f\n", r.records, r.sum, r.samples, t[i]);
		}
		printf("perfdata_stats perfring records %" PRIu64 " total %" PRIu64 " samples %" PRIu64
		       " seconds %.6f (median of %d: time order, records counted by type and samples by event)\n",
		       r.records, r.sum, r.samples, bench_median(t, (size_t)reps), reps);
		free(t);
		return 0;
	}
	if (callgrind) {
		r = decode_file(path, ordered, max);
		printf("perfdata_decode_callgrind %s records %" PRIu64 " samples %" PRIu64 " sum %" PRIx64 "\n", name,
		       r.records, r.samples, r.sum);
		return 0;
	}
	t = calloc((size_t)reps, sizeof(*t));
	if (!t)
		bench_die("out of memory");
	for (i = 0; i < reps; i++) {
		uint64_t t0 = bench_now_ns();

		r = decode_file(path, ordered, max);
		t[i] = (double)(bench_now_ns() - t0) / 1e9;
		printf("perfdata_decode_pass %s records %" PRIu64 " kernel %" PRIu64 " samples %" PRIu64
		       " seconds %.6f sum %" PRIx64 "\n",
		       name, r.records, r.kernel, r.samples, t[i], r.sum);
	}
	med = bench_median(t, (size_t)reps);
	printf("perfdata_decode %s records %" PRIu64 " seconds %.6f records_per_s %.0f ns_per_record %.1f"
	       " (median of %d)\n",
	       name, r.records, med, (double)r.records / med, med * 1e9 / (double)r.records, reps);
	free(t);
	return 0;
usage:
	fprintf(stderr, "usage: %s FILE [--reps N] [--ordered | --stats | --floor | --floor-pread | --floor-headers | --floor-consumer] [--readahead-thread] [--callgrind [--max-records N]]\n", argv[0]);
	return 2;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer: files of synthetic records (built with
 * perfring_record_encode: SAMPLE with ip/tid/time/cpu/period/callchain,
 * MMAP2, COMM, FORK, EXIT), for one attr and for two attrs with ids, are
 * (a) read back with perfring_perfdata_open: every record byte-identical,
 * attrs, ids, names and features equal; (b) read by perf 6.1: `perf report
 * --stats` counts what was written, `perf script` and `perf report --stdio`
 * exit 0 with nothing that looks like a warning on stderr. (c) real
 * records of a cpu-clock event on this process, read through a ring, make
 * a file perf agrees with.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/perf_event.h>

#include <perfring/perfring.h>

#include "harness.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PD_FEAT_HOSTNAME 3
#define PD_FEAT_EVENT_DESC 12
#define PD_FEAT_CLOCKID 23
#define PD_FEAT_CLOCK_DATA 29

/* The records a file holds, as written, and the counts per type. */
struct recs {
	uint8_t *buf;
	size_t len, cap;
	unsigned count[PERF_RECORD_MAX];
	unsigned total;
};

static void recs_add(struct recs *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->buf = realloc(r->buf, r->cap);
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	r->count[((const struct perf_event_header *)p)->type % PERF_RECORD_MAX]++;
	r->total++;
}

static void make_attr(struct perf_event_attr *a, uint64_t sample_type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	a->sample_period = 10000;
	a->sample_type = sample_type;
	a->sample_id_all = 1;
	a->exclude_kernel = 1;
	a->mmap = a->mmap2 = a->comm = a->task = 1;
}

/* The sample_id fields of a record of attr with id, at time t. */
static void fill_sid(const struct perfring_parse_config *cfg, struct perfring_sample_id *s, uint64_t id, uint64_t t)
{
	memset(s, 0, sizeof(*s));
	if (!cfg->sample_id_all)
		return;
	s->present = cfg->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
					 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	s->pid = 4242;
	s->tid = 4243;
	s->time = t;
	s->id = s->identifier = id;
	s->cpu = 1;
}

static int encode(const struct perfring_parse_config *cfg, struct perfring_decoded *d, struct recs *r)
{
	uint8_t buf[4096];
	int n = perfring_record_encode(cfg, d, buf, sizeof(buf));

	CHECKF(n == d->size, "encode type %u size %u: %d (%s)", d->type, d->size, n, perfring_errmsg());
	if (n == d->size)
		recs_add(r, buf, (size_t)n);
	return n;
}

/* Synthetic records for the attrs of cfgs (ids[i] is attr i's id): a FORK, a
 * COMM (after the FORK, which would reset the thread's name), an MMAP2,
 * then samples with call chains, per attr; then an EXIT per attr. */
static void build_records(const struct perfring_parse_config *cfgs, const uint64_t *ids, int nr, struct recs *r)
{
	static const char comm[] = "perfring-test";
	static const char file[] = "/usr/bin/perfring-test";
	char comm_f[16] = { 0 }, file_f[24] = { 0 };
	uint64_t t = 1000000, chain[4] = { 0x401000, 0x401100, 0x401200, 0x401300 };
	struct perfring_decoded d;
	int i, k;

	memcpy(comm_f, comm, sizeof(comm));
	memcpy(file_f, file, sizeof(file));
	for (i = 0; i < nr; i++) {
		const struct perfring_parse_config *c = &cfgs[i];
		size_t trailer = c->id_trailer_size;

		memset(&d, 0, sizeof(d));
		d.type = PERF_RECORD_FORK;
		d.size = (uint16_t)(8 + 16 + 8 + trailer);
		d.u.fork_exit = (struct perfring_rec_fork_exit){ 4242, 1, 4243, 1, t };
		fill_sid(c, &d.sample_id, ids[i], t++);
		encode(c, &d, r);

		memset(&d, 0, sizeof(d));
		d.type = PERF_RECORD_COMM;
		d.size = (uint16_t)(8 + 8 + sizeof(comm_f) + trailer);
		d.u.comm.pid = 4242;
		d.u.comm.tid = 4243;
		d.u.comm.comm = comm_f;
		d.u.comm.comm_field = (struct perfring_bytes){ comm_f, sizeof(comm_f) };
		fill_sid(c, &d.sample_id, ids[i], t++);
		encode(c, &d, r);

		memset(&d, 0, sizeof(d));
		d.type = PERF_RECORD_MMAP2;
		d.misc = PERF_RECORD_MISC_USER;
		d.size = (uint16_t)(8 + 8 + 24 + 8 + 16 + 8 + sizeof(file_f) + trailer);
		d.u.mmap.pid = 4242;
		d.u.mmap.tid = 4243;
		d.u.mmap.addr = 0x400000;
		d.u.mmap.len = 0x10000;
		d.u.mmap.maj = 8;
		d.u.mmap.ino = 1234;
		d.u.mmap.prot = 5;
		d.u.mmap.flags = 2;
		d.u.mmap.filename = file_f;
		d.u.mmap.filename_field = (struct perfring_bytes){ file_f, sizeof(file_f) };
		fill_sid(c, &d.sample_id, ids[i], t++);
		encode(c, &d, r);

		for (k = 0; k < 20; k++) {
			struct perfring_sample *s = &d.u.sample;
			uint64_t nr_ips = 1 + k % 4;

			memset(&d, 0, sizeof(d));
			d.type = PERF_RECORD_SAMPLE;
			d.misc = PERF_RECORD_MISC_USER;
			s->present = c->sample_type;
			d.size = (uint16_t)(8 + 8 * (size_t)__builtin_popcountll(c->sample_type) +
					    (c->sample_type & PERF_SAMPLE_CALLCHAIN ? 8 * nr_ips : 0));
			s->identifier = s->id = ids[i];
			s->ip = chain[0] + 16 * (uint64_t)k;
			s->pid = 4242;
			s->tid = 4243;
			s->time = t++;
			s->cpu = (uint32_t)(k & 1);
			s->period = 10000;
			s->callchain = (struct perfring_u64_array){ chain, nr_ips, false };
			fill_sid(c, &d.sample_id, ids[i], s->time);
			d.sample_id.cpu = s->cpu;
			encode(c, &d, r);
		}
	}
	for (i = 0; i < nr; i++) {
		memset(&d, 0, sizeof(d));
		d.type = PERF_RECORD_EXIT;
		d.size = (uint16_t)(8 + 16 + 8 + cfgs[i].id_trailer_size);
		d.u.fork_exit = (struct perfring_rec_fork_exit){ 4242, 1, 4243, 1, t };
		fill_sid(&cfgs[i], &d.sample_id, ids[i], t++);
		encode(&cfgs[i], &d, r);
	}
}

/* Write a file: attrs with their ids and names, then every record of r. */
/* The writer's compression level and build ids option for write_file(). */
static int write_level;
static bool write_build_ids;
/* Pipe mode (opts.pipe), to an fd the test opens: read back as a pipe, and
 * by perf from its standard input (perf reads a pipe-mode file only so). */
static bool write_pipe;

static int write_file(const char *path, const struct perf_event_attr *attrs, const uint64_t (*ids)[2], int nr,
		      const char *const *names, const struct recs *r)
{
	struct perfring_perfdata_writer_opts o = {
		.sz = sizeof(o), .hostname = "testhost", .osrelease = "6.6.6-test", .arch = "x86_64",
		.cmdline = "perfring record -e cpu-clock", .nr_cpus_online = 2, .nr_cpus_available = 4,
		.compress_level = write_level, .build_ids = write_build_ids, .pipe = write_pipe,
	};
	struct perfring_perfdata_writer *w;
	size_t off;
	int i, fd = -1, err;

	if (write_pipe) {
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		o.fd = fd;
	}
	w = perfring_perfdata_writer_open(write_pipe ? NULL : path, &o);
	if (!w) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	for (i = 0; i < nr; i++)
		CHECK_EQ_INT(perfring_perfdata_writer_add_attr(w, &attrs[i], ids[i], 2, names[i]), i);
	for (off = 0; off < r->len;) {
		const struct perf_event_header *h = (const void *)(r->buf + off);
		err = perfring_perfdata_writer_write(w, h, h->size);
		if (err) {
			perfring_perfdata_writer_free(w);
			if (fd >= 0)
				close(fd);
			return err;
		}
		off += h->size;
	}
	err = perfring_perfdata_writer_close(w);
	/* the writer leaves the caller's fd open */
	if (fd >= 0)
		CHECK(close(fd) == 0);
	return err;
}

/* (a): read path back and compare with what was written. */
static void check_read_back(const char *path, const struct perf_event_attr *attrs, const uint64_t (*ids)[2], int nr,
			    const char *const *names, const struct recs *r)
{
	struct perfring_perfdata *pd = perfring_perfdata_open(path, NULL);
	const struct perfring_perfdata_info *info;
	struct perfring_perfdata_record rec;
	size_t off = 0;
	unsigned n = 0;
	int i, ret;

	REQUIREF(pd, "perfring_perfdata_open(%s): %s", path, perfring_errmsg());
	CHECK_EQ_INT(perfring_perfdata_is_pipe(pd), write_pipe);
	while ((ret = perfring_perfdata_next(pd, &rec)) > 0) {
		if (write_pipe && (rec.type == PERFRING_RECORD_HEADER_ATTR || rec.type == PERFRING_RECORD_EVENT_UPDATE ||
				   rec.type == PERFRING_RECORD_HEADER_FEATURE)) {
			/* the head of a pipe: attrs, names, features */
			CHECKF(n == 0, "a pipe's head record of type %u after %u records", rec.type, n);
			continue;
		}
		if (rec.type == PERFRING_RECORD_COMPRESSED) {
			/* delivered before the records it holds */
			CHECK(write_level > 0);
			continue;
		}
		CHECKF(rec.from_compressed == (write_level > 0), "record %u: from_compressed %d", n, rec.from_compressed);
		CHECKF(off + rec.size <= r->len && memcmp(rec.data, r->buf + off, rec.size) == 0,
		       "record %u (offset %llu) differs", n, (unsigned long long)rec.offset);
		CHECK(rec.attr != NULL);
		if (rec.attr && rec.type == PERF_RECORD_SAMPLE) {
			/* each sample decodes with its own event's layout, found by its id */
			struct perfring_decoded d;
			uint64_t k;
			bool mine = false;

			CHECKF(perfring_record_parse(&rec.attr->cfg, rec.data, rec.size, &d) == 0,
			       "sample %u (offset %llu): %s", n, (unsigned long long)rec.offset, perfring_errmsg());
			for (k = 0; k < rec.attr->nr_ids; k++)
				mine |= rec.attr->ids[k] == d.u.sample.identifier;
			CHECKF(nr == 1 || mine, "sample %u with id %llu given event %s", n,
			       (unsigned long long)d.u.sample.identifier, rec.attr->name);
		}
		off += rec.size;
		n++;
	}
	CHECKF(ret == 0, "perfring_perfdata_next: %d (%s)", ret, perfring_errmsg());
	/* after the records: a pipe's attrs and names come in its first ones */
	CHECK_EQ_INT(perfring_perfdata_attr_cnt(pd), nr);
	for (i = 0; i < nr && i < perfring_perfdata_attr_cnt(pd); i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		CHECK(memcmp(a->attr, &attrs[i], sizeof(attrs[i])) == 0);
		CHECK_EQ_U64(a->nr_ids, 2);
		CHECK(a->nr_ids == 2 && a->ids[0] == ids[i][0] && a->ids[1] == ids[i][1]);
		CHECKF(a->name && strcmp(a->name, names[i]) == 0, "attr %d name %s, want %s", i,
		       a->name ? a->name : "(null)", names[i]);
	}
	CHECK_EQ_U64(n, r->total);
	CHECK_EQ_U64(off, r->len);
	info = perfring_perfdata_info(pd);
	CHECK(info->hostname && strcmp(info->hostname, "testhost") == 0);
	CHECK(info->osrelease && strcmp(info->osrelease, "6.6.6-test") == 0);
	CHECK(info->version && strcmp(info->version, "perfring 0.1.0") == 0);
	CHECK(info->arch && strcmp(info->arch, "x86_64") == 0);
	CHECK(info->cmdline && strcmp(info->cmdline, "perfring record -e cpu-clock") == 0);
	CHECK_EQ_U64(info->nr_cpus_online, 2);
	CHECK_EQ_U64(info->nr_cpus_available, 4);
	CHECK(perfring_perfdata_has_feature(pd, PD_FEAT_HOSTNAME));
	CHECK(perfring_perfdata_has_feature(pd, PD_FEAT_EVENT_DESC));
	/* no clock features without perfring_perfdata_writer_set_clock() */
	CHECK(!perfring_perfdata_has_feature(pd, PD_FEAT_CLOCKID));
	CHECK(!perfring_perfdata_has_feature(pd, PD_FEAT_CLOCK_DATA));
	perfring_perfdata_free(pd);
}

static bool have_perf(void)
{
	return system("perf version >/dev/null 2>&1") == 0;
}

/* Run cmd with stdout and stderr into files; returns the exit status and the stderr text. */
static int run(const char *cmd, const char *out, char *err, size_t errcap)
{
	char full[1024], errfile[256];
	FILE *f;
	size_t n = 0;
	int st;

	snprintf(errfile, sizeof(errfile), "%s.err", out);
	snprintf(full, sizeof(full), "%s >%s 2>%s", cmd, out, errfile);
	st = system(full);
	err[0] = 0;
	f = fopen(errfile, "r");
	if (f) {
		n = fread(err, 1, errcap - 1, f);
		fclose(f);
	}
	err[n] = 0;
	unlink(errfile);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool looks_bad(const char *s)
{
	return strcasestr(s, "warning") || strcasestr(s, "failed") || strcasestr(s, "bad");
}

/*
 * The same, except for the one warning perf owes the data itself: when the
 * records written include PERF_RECORD_LOST (the kernel dropped samples
 * because the test read its ring too slowly, e.g. under valgrind), perf says
 * "Processed N events and lost M chunks! Check IO/CPU overload!". Those lines
 * are accepted then; anything else still counts.
 */
static bool looks_bad_for(const char *s, bool wrote_lost)
{
	char rest[8192];
	size_t n = 0;
	const char *line = s;

	if (!wrote_lost)
		return looks_bad(s);
	while (*line && n < sizeof(rest) - 1) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		bool expected = (len == 8 && !strncmp(line, "Warning:", 8)) ||
				(strstr(line, "Processed ") && strstr(line, " lost ") && strstr(line, "chunks")) ||
				strstr(line, "Check IO/CPU overload");

		if (!expected && len && n + len + 1 < sizeof(rest)) {
			memcpy(rest + n, line, len);
			n += len;
			rest[n++] = '\n';
		}
		line = end ? end + 1 : line + len;
	}
	rest[n] = 0;
	return looks_bad(rest);
}

/* The "NAME events: N" counts of `perf report --stats` (the aggregated part). */
static long stat_count(const char *file, const char *name)
{
	char line[256], want[64];
	FILE *f = fopen(file, "r");
	long v = -1;

	snprintf(want, sizeof(want), " %s events:", name);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want);

		if (strstr(line, " stats:") && !strstr(line, "Aggregated"))
			break; /* per-event stats follow */
		if (p && (p == line || p[-1] == ' ')) {
			v = strtol(p + strlen(want), NULL, 10);
			break;
		}
	}
	if (f)
		fclose(f);
	return v == -1 ? 0 : v;
}

static long count_lines(const char *file)
{
	FILE *f = fopen(file, "r");
	long n = 0;
	int c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/* (b): perf reads path; its stats agree with r. */
static void check_perf(const char *path, const struct recs *r, bool counts_exact, const char *comm)
{
	static const struct { uint32_t type; const char *name; } types[] = {
		{ PERF_RECORD_SAMPLE, "SAMPLE" }, { PERF_RECORD_MMAP2, "MMAP2" }, { PERF_RECORD_COMM, "COMM" },
		{ PERF_RECORD_FORK, "FORK" },     { PERF_RECORD_EXIT, "EXIT" },   { PERF_RECORD_MMAP, "MMAP" },
	};
	char cmd[512], out[300], err[8192];
	size_t i;
	int st;

	if (r->count[PERF_RECORD_LOST])
		printf("  (%u LOST records written: perf's lost-chunks warning is expected)\n",
		       r->count[PERF_RECORD_LOST]);

	snprintf(out, sizeof(out), "%s.out", path);
	snprintf(cmd, sizeof(cmd), "perf report --stats -i %s%s", write_pipe ? "- <" : "", path);
	st = run(cmd, out, err, sizeof(err));
	CHECKF(st == 0 && !looks_bad_for(err, r->count[PERF_RECORD_LOST] > 0), "%s: exit %d, stderr: %s", cmd, st, err);
	for (i = 0; i < NELEM(types); i++)
		CHECKF(stat_count(out, types[i].name) == (long)r->count[types[i].type],
		       "perf report --stats: %s %ld, written %u", types[i].name, stat_count(out, types[i].name),
		       r->count[types[i].type]);
	/* (a pipe's TOTAL counts its head records too) */
	if (counts_exact && !write_pipe)
		CHECKF(stat_count(out, "TOTAL") == (long)r->total, "perf report --stats: TOTAL %ld, written %u",
		       stat_count(out, "TOTAL"), r->total);

	snprintf(cmd, sizeof(cmd), "perf script -i %s%s -F tid,time,ip -G", write_pipe ? "- <" : "", path);
	st = run(cmd, out, err, sizeof(err));
	CHECKF(st == 0 && !looks_bad_for(err, r->count[PERF_RECORD_LOST] > 0), "%s: exit %d, stderr: %s", cmd, st, err);
	CHECKF(count_lines(out) == (long)r->count[PERF_RECORD_SAMPLE], "perf script printed %ld lines for %u samples",
	       count_lines(out), r->count[PERF_RECORD_SAMPLE]);

	snprintf(cmd, sizeof(cmd), "perf script -i %s%s", write_pipe ? "- <" : "", path);
	st = run(cmd, out, err, sizeof(err));
	CHECKF(st == 0 && !looks_bad_for(err, r->count[PERF_RECORD_LOST] > 0), "%s: exit %d, stderr: %s", cmd, st, err);
	if (comm) {
		/* every sample line names the thread from the COMM record */
		snprintf(cmd, sizeof(cmd), "perf script -i %s%s -F comm -G | grep -c '^ *%s *$' >%s.n", write_pipe ? "- <" : "", path, comm, out);
		CHECK(system(cmd) == 0);
		snprintf(cmd, sizeof(cmd), "%s.n", out);
		{
			FILE *f = fopen(cmd, "r");
			long n = -1;

			if (f && fscanf(f, "%ld", &n) != 1)
				n = -1;
			if (f)
				fclose(f);
			unlink(cmd);
			CHECKF(n == (long)r->count[PERF_RECORD_SAMPLE], "perf script: %ld samples of %s, %u written",
			       n, comm, r->count[PERF_RECORD_SAMPLE]);
		}
	}

	snprintf(cmd, sizeof(cmd), "perf report -i %s%s --stdio", write_pipe ? "- <" : "", path);
	st = run(cmd, out, err, sizeof(err));
	CHECKF(st == 0 && !looks_bad_for(err, r->count[PERF_RECORD_LOST] > 0), "%s: exit %d, stderr: %s", cmd, st, err);
	unlink(out);
}

static void synthetic(int nr, bool mixed)
{
	static const char *const names[] = { "cpu-clock", "task-clock" };
	static const uint64_t ids[2][2] = { { 101, 102 }, { 201, 202 } };
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		      PERF_SAMPLE_CALLCHAIN;
	struct perf_event_attr attrs[2];
	struct perfring_parse_config cfgs[2];
	uint64_t first_ids[2] = { ids[0][0], ids[1][1] };
	struct recs r = { 0 };
	char path[] = "/tmp/perfring-pdw-XXXXXX";
	int fd, i, err;

	/* with two events, perf needs every record to carry its id */
	if (nr > 1)
		st |= PERF_SAMPLE_IDENTIFIER;
	for (i = 0; i < nr; i++) {
		/* mixed: the second event's samples (no CPU, no call chain) are shorter than
		 * the first's front, as perf record -e sched:sched_switch -e cpu-clock writes them */
		make_attr(&attrs[i], i && mixed ? st & ~(PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN) : st,
			  i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK);
		REQUIRE(perfring_parse_config_init(&cfgs[i], &attrs[i], false) == 0);
	}
	build_records(cfgs, first_ids, nr, &r);
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	err = write_file(path, attrs, ids, nr, names, &r);
	CHECKF(err == 0, "writing %s: %d (%s)", path, err, perfring_errmsg());
	check_read_back(path, attrs, ids, nr, names, &r);
	if (write_pipe && write_level)
		/* perf 6.1 report --stats did not expand these COMPRESSED
		 * records from a pipe ("failed to decompress ... dst_size 0"):
		 * perfring record refuses -z with -o - */
		;
	else if (have_perf())
		/* perf's TOTAL counts the COMPRESSED records as well */
		check_perf(path, &r, write_level == 0, "perfring-test");
	else
		printf("  (perf not installed: the perf checks of %s were not run)\n", __func__);
	unlink(path);
	free(r.buf);
}

TEST(write_one_attr)
{
	synthetic(1, false);
}

TEST(write_two_attrs)
{
	synthetic(2, false);
}

/* Events of different sample types: each sample goes to its event by the id
 * at IDENTIFIER's place, even when shorter than the first event's front. */
TEST(write_two_attrs_mixed_sample_types)
{
	synthetic(2, true);
}

/* -z: the same records in PERF_RECORD_COMPRESSED records (read back
 * identical by perfring and counted by perf), with the build id feature. */
TEST(write_compressed_with_build_ids)
{
	write_level = 3;
	write_build_ids = true;
	synthetic(2, false);
	write_level = 0;
	write_build_ids = false;
}

/* opts.pipe, as perf record -o - writes: the same records after a head of
 * HEADER_ATTR, EVENT_UPDATE and HEADER_FEATURE records, read back as a pipe
 * by perfring and by perf from its standard input; compressed too. */
TEST(write_pipe_one_attr)
{
	write_pipe = true;
	synthetic(1, false);
	write_pipe = false;
}

TEST(write_pipe_two_attrs_compressed)
{
	write_pipe = true;
	write_level = 3;
	synthetic(2, false);
	write_level = 0;
	write_pipe = false;
}

TEST(write_pipe_needs_an_fd)
{
	struct perfring_perfdata_writer_opts o = { .sz = sizeof(o), .pipe = true, .fd = -1 };

	CHECK(perfring_perfdata_writer_open(NULL, &o) == NULL && errno == EBADF);
}

TEST(write_bad_compression_level)
{
	struct perfring_perfdata_writer_opts o = { .sz = sizeof(o), .compress_level = 99 };

	CHECK(perfring_perfdata_writer_open("/tmp/perfring-pdw-never", &o) == NULL && errno == EINVAL);
	CHECKF(strstr(perfring_errmsg(), "compression level 99") != NULL, "%s", perfring_errmsg());
}

TEST(write_api_errors)
{
	struct perfring_perfdata_writer *w;
	struct perf_event_attr a;
	uint64_t rec[2] = { 0 };
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 12 };
	char path[] = "/tmp/perfring-pdw-XXXXXX";
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	CHECK(perfring_perfdata_writer_open("/nonexistent-dir/x", NULL) == NULL && errno == ENOENT);
	w = perfring_perfdata_writer_open(path, NULL);
	REQUIRE(w);
	make_attr(&a, PERF_SAMPLE_IP, PERF_COUNT_SW_CPU_CLOCK);
	CHECK(perfring_perfdata_writer_write(w, rec, 16) == -EINVAL); /* no attr yet */
	CHECK_EQ_INT(perfring_perfdata_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	memcpy(rec, &h, sizeof(h));
	CHECK(perfring_perfdata_writer_write(w, rec, 16) == -EINVAL); /* len != header.size */
	h.size = 16;
	memcpy(rec, &h, sizeof(h));
	CHECK_EQ_INT(perfring_perfdata_writer_write(w, rec, 16), 0);
	CHECK(perfring_perfdata_writer_add_attr(w, &a, NULL, 0, NULL) == -EINVAL); /* after a record */
	CHECK_EQ_INT(perfring_perfdata_writer_close(w), 0);
	perfring_perfdata_writer_free(NULL);
	{
		struct perfring_perfdata *pd = perfring_perfdata_open(path, NULL);

		REQUIREF(pd, "%s", perfring_errmsg());
		/* no name given: one derived from the attr */
		CHECK(perfring_perfdata_attr_cnt(pd) == 1 && perfring_perfdata_attr(pd, 0)->name &&
		      strcmp(perfring_perfdata_attr(pd, 0)->name, "cpu-clock") == 0);
		perfring_perfdata_free(pd);
	}
	unlink(path);
}

/* Write an empty file whose event runs on CLOCK_MONOTONIC, with set_clock(tod_ns, clock_ns);
 * return the reader on it. */
static struct perfring_perfdata *clock_file(char *path, uint64_t tod_ns, uint64_t clock_ns)
{
	struct perfring_perfdata_writer *w;
	struct perfring_perfdata *pd;
	struct perf_event_attr a;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	w = perfring_perfdata_writer_open(path, NULL);
	if (!w)
		return NULL;
	make_attr(&a, PERF_SAMPLE_IP | PERF_SAMPLE_TIME, PERF_COUNT_SW_CPU_CLOCK);
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	CHECK_EQ_INT(perfring_perfdata_writer_add_attr(w, &a, NULL, 0, NULL), 0);
	CHECKF(perfring_perfdata_writer_set_clock(w, CLOCK_MONOTONIC, tod_ns, clock_ns) == 0, "%s", perfring_errmsg());
	CHECKF(perfring_perfdata_writer_close(w) == 0, "%s", perfring_errmsg());
	pd = perfring_perfdata_open(path, NULL);
	CHECKF(pd, "%s", perfring_errmsg());
	return pd;
}

/* perf record -k's features: CLOCKID (the resolution) and CLOCK_DATA
 * (version 1, clockid, TOD, clock) read back by perfring and by perf. */
TEST(write_clock)
{
	char path[] = "/tmp/perfring-pdw-XXXXXX", out[] = "/tmp/perfring-pdw-hdr-XXXXXX", cmd[512], err[4096];
	const struct perfring_perfdata_info *in;
	struct perfring_perfdata *pd = clock_file(path, 1795524610616434123ULL, 16427983545292ULL);
	struct timespec res;
	uint64_t m0, r0, off;
	int fd;

	REQUIRE(pd);
	in = perfring_perfdata_info(pd);
	CHECK(perfring_perfdata_has_feature(pd, PD_FEAT_CLOCKID) && perfring_perfdata_has_feature(pd, PD_FEAT_CLOCK_DATA));
	CHECK_EQ_U64(in->clockid, CLOCK_MONOTONIC);
	CHECK_EQ_U64(in->clock_tod_ns, 1795524610616434123ULL);
	CHECK_EQ_U64(in->clock_ns, 16427983545292ULL);
	REQUIRE(clock_getres(CLOCK_MONOTONIC, &res) == 0);
	CHECK_EQ_U64(in->clock_res_ns, (uint64_t)res.tv_nsec);
	perfring_perfdata_free(pd);
	if (have_perf()) {
		fd = mkstemp(out);
		REQUIRE(fd >= 0);
		close(fd);
		snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s 2>/dev/null | grep -E '^# (clockid|reference time)'", path);
		CHECK_EQ_INT(run(cmd, out, err, sizeof(err)), 0);
		snprintf(cmd, sizeof(cmd),
			 "grep -qx '# clockid: monotonic (1)' %s && grep -q '= 1795524610.616434 (TOD) = "
			 "16427.983545292 (monotonic)$' %s", out, out);
		CHECKF(system(cmd) == 0, "perf's clock lines (%s) lack clockid monotonic (1) or the reference time", out);
		unlink(out);
	}
	unlink(path);

	/* 0, 0: the writer reads both clocks, at one moment */
	strcpy(path, "/tmp/perfring-pdw-XXXXXX");
	m0 = th_clock_ns(CLOCK_MONOTONIC);
	r0 = th_clock_ns(CLOCK_REALTIME);
	pd = clock_file(path, 0, 0);
	REQUIRE(pd);
	in = perfring_perfdata_info(pd);
	off = in->clock_tod_ns - in->clock_ns;
	CHECKF(in->clock_ns >= m0 && in->clock_tod_ns >= r0 && in->clock_ns - m0 < 5000000000ULL,
	       "clock %llu tod %llu, before: %llu %llu", (unsigned long long)in->clock_ns,
	       (unsigned long long)in->clock_tod_ns, (unsigned long long)m0, (unsigned long long)r0);
	/* realtime - monotonic as read here, within 1 ms either way (unsigned: a wrap is a negative difference) */
	CHECKF(off - (r0 - m0) + 1000000 < 2000000, "offset %llu, here %llu", (unsigned long long)off,
	       (unsigned long long)(r0 - m0));
	perfring_perfdata_free(pd);
	unlink(path);
}

TEST(write_clock_errors)
{
	struct perfring_perfdata_writer *w;
	char path[] = "/tmp/perfring-pdw-XXXXXX";
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	close(fd);
	CHECK(perfring_perfdata_writer_set_clock(NULL, CLOCK_MONOTONIC, 0, 0) == -EINVAL);
	w = perfring_perfdata_writer_open(path, NULL);
	REQUIRE(w);
	/* a clock clock_gettime() does not know, nothing given to pair */
	CHECK(perfring_perfdata_writer_set_clock(w, 99, 0, 0) == -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "clock 99") != NULL, "%s", perfring_errmsg());
	perfring_perfdata_writer_free(w);
	unlink(path);
}

/* (c) */
static volatile uint64_t spin_sink; /* cpu time for cpu-clock to sample */
struct real_ctx {
	struct perfring_perfdata_writer *w;
	struct recs r;
	int err;
};

static int real_record(const struct perfring_ring_record *rec, void *ctx)
{
	struct real_ctx *c = ctx;
	uint8_t buf[65536];

	if (perfring_ring_record_copy(rec, 0, buf, rec->size))
		return -EIO;
	if (!c->err)
		c->err = perfring_perfdata_writer_write(c->w, buf, rec->size);
	recs_add(&c->r, buf, rec->size);
	return PERFRING_CONTINUE;
}

TEST(write_real_records)
{
	struct perf_event_attr a;
	struct perfring_ring_opts ro = { .sz = sizeof(ro), .data_pages = 64 };
	struct real_ctx c = { 0 };
	struct perfring_ring *ring;
	char path[] = "/tmp/perfring-pdw-XXXXXX";
	uint64_t id;
	struct timespec t0, t1;
	int fd, pfd, n;

	if (!have_perf())
		SKIP("perf is not installed: nothing to compare the file with");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000; /* 100 us of cpu time */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	a.disabled = 1;
	pfd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	REQUIREF(pfd >= 0, "perf_event_open: %s", strerror(errno));
	REQUIRE(ioctl(pfd, PERF_EVENT_IOC_ID, &id) == 0);
	ring = perfring_ring_new(pfd, &ro);
	REQUIREF(ring, "perfring_ring_new: %s", perfring_errmsg());
	fd = mkstemp(path);
	REQUIRE(fd >= 0);
	close(fd);
	c.w = perfring_perfdata_writer_open(path, NULL);
	REQUIREF(c.w, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_perfdata_writer_add_attr(c.w, &a, &id, 1, "cpu-clock"), 0);
	ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (n = 0; n < 100000; n++)
			spin_sink += (uint64_t)n;
		if (perfring_ring_consume(ring, real_record, &c) < 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (c.r.count[PERF_RECORD_SAMPLE] < 300 && t1.tv_sec - t0.tv_sec < 10);
	ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
	perfring_ring_consume(ring, real_record, &c);
	CHECKF(c.err == 0, "writer: %d (%s)", c.err, perfring_errmsg());
	CHECKF(c.r.count[PERF_RECORD_SAMPLE] >= 300, "only %u samples", c.r.count[PERF_RECORD_SAMPLE]);
	CHECK_EQ_INT(perfring_perfdata_writer_close(c.w), 0);
	perfring_ring_free(ring);
	close(pfd);
	{
		struct perfring_perfdata *pd = perfring_perfdata_open(path, NULL);
		const struct perfring_perfdata_attr *pa;
		struct perfring_perfdata_record rec;
		struct perfring_decoded d;
		size_t off = 0;
		int ret;

		REQUIREF(pd, "%s", perfring_errmsg());
		pa = perfring_perfdata_attr(pd, 0);
		REQUIRE(pa && pa->nr_ids == 1 && pa->ids[0] == id);
		/* the event counts kernel samples: the writer put the kernel's
		 * MMAP first, as perf record does */
		REQUIRE(perfring_perfdata_next(pd, &rec) == 1);
		CHECK(rec.type == PERF_RECORD_MMAP && rec.misc == PERF_RECORD_MISC_KERNEL);
		CHECK(perfring_record_parse(&pa->cfg, rec.data, rec.size, &d) == 0 &&
		      strcmp(d.u.mmap.filename, "[kernel.kallsyms]_text") == 0 && d.u.mmap.pid == UINT32_MAX &&
		      d.u.mmap.pgoff == d.u.mmap.addr && d.u.mmap.addr != 0);
		while ((ret = perfring_perfdata_next(pd, &rec)) > 0) {
			CHECK(off + rec.size <= c.r.len && memcmp(rec.data, c.r.buf + off, rec.size) == 0);
			off += rec.size;
		}
		CHECK_EQ_INT(ret, 0);
		CHECK_EQ_U64(off, c.r.len);
		perfring_perfdata_free(pd);
	}
	c.r.count[PERF_RECORD_MMAP]++;
	c.r.total++;
	/* LOST, THROTTLE... may come too: compare the types listed, not the total */
	check_perf(path, &c.r, false, NULL);
	unlink(path);
	free(c.r.buf);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data reader on synthetic images (perfdata_build.h): file and pipe
 * mode, both byte orders, in memory, on disk and through a real pipe,
 * zstd-compressed data, time ordering, and truncated or corrupt input
 * (an error naming the right offset after every record before it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfdata.h>

#include "harness.h"
#include "perfdata_build.h"

struct seen {
	uint64_t offset;
	uint32_t type, size;
	uint64_t payload_len;
	bool from_compressed;
};

/* Read everything; check each scenario record against pdb_expect (in file
 * or time order); return the reader's final status. */
static int read_scenario(struct perfring_perfdata *pd, bool ordered, bool swapped, size_t *nr_scenario,
			 struct seen *seen, size_t *nr_seen, size_t cap)
{
	struct perfring_perfdata_record r;
	uint64_t last_compressed = UINT64_MAX;
	size_t n = 0, k = 0;
	int ret;

	while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
		const struct pdb_expect *e;
		struct perfring_decoded d;

		if (seen && k < cap)
			seen[k++] = (struct seen){ r.offset, r.type, r.size, r.payload_len, r.from_compressed };
		if (r.type == 81 || r.type == 83) {
			CHECK(!r.from_compressed);
			last_compressed = r.offset;
			continue;
		}
		/* in file order a record comes right after the compressed record that completed it */
		if (r.from_compressed && !ordered)
			CHECK_EQ_U64(r.offset, last_compressed);
		if (r.type == 64 || r.type == 80)
			continue; /* pipe mode's attrs and features */
		if (n >= PDB_NR_EXPECT) {
			CHECKF(0, "more records than the scenario has (type %u)", r.type);
			return -1000;
		}
		e = &pdb_expect[ordered ? (size_t)pdb_ordered[n] : n];
		n++;
		CHECK_EQ_INT(r.type, e->type);
		CHECK_EQ_U64(r.payload_len, e->payload);
		if (e->payload) {
			const uint8_t *p = r.payload;
			int base = e->type == 66 ? 0xa0 : 0xb0;

			CHECK(p != NULL);
			if (!p)
				return -1000;
			CHECK_EQ_INT(p[0], base);
			CHECK_EQ_INT(p[e->payload - 1], base + (int)e->payload - 1);
		}
		if (e->attr < 0) {
			CHECK(r.attr == NULL);
			continue;
		}
		CHECK(r.attr != NULL);
		if (!r.attr)
			return -1000;
		CHECK(r.attr == perfring_perfdata_attr(pd, e->attr));
		CHECK_EQ_INT(r.attr->cfg.swapped, swapped);
		CHECKF(perfring_record_parse(&r.attr->cfg, r.data, r.size, &d) == 0, "%s", perfring_errmsg());
		CHECK_EQ_U64(d.sample_id.time, e->time);
		CHECK_EQ_U64(d.sample_id.pid, 42);
		CHECK_EQ_U64(d.sample_id.tid, 43);
		if (r.type == PERF_RECORD_COMM)
			CHECK(d.u.comm.comm && strcmp(d.u.comm.comm, "worker") == 0);
	}
	if (nr_scenario)
		*nr_scenario = n;
	if (nr_seen)
		*nr_seen = k;
	return ret;
}

static void check_attrs_and_info(struct perfring_perfdata *pd)
{
	const struct perfring_perfdata_info *in = perfring_perfdata_info(pd);
	const struct perfring_perfdata_build_id *b;
	const void *raw;
	size_t len;
	int i;

	REQUIRE(perfring_perfdata_attr_cnt(pd) == 2);
	for (i = 0; i < 2; i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		REQUIRE(a != NULL);
		CHECK_EQ_U64(a->attr->sample_type, PDB_ST);
		CHECK_EQ_U64(a->attr->sample_period, 4000 + (uint64_t)i);
		CHECK_EQ_U64(a->attr->config, i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK);
		CHECK_EQ_INT(a->attr->sample_id_all, 1);
		CHECK_EQ_INT(a->attr->disabled, 1);
		CHECK_EQ_INT(a->attr->exclude_kernel, i);
		CHECK_EQ_INT(a->attr->precise_ip, 2);
		CHECK_EQ_INT(a->attr->comm, !i);
		CHECK_EQ_INT(a->attr->use_clockid, 1);
		CHECK_EQ_INT(a->attr->exclude_user, 0);
		CHECK_EQ_INT(a->attr->wakeup_events, 7);
		CHECK_EQ_INT(a->attr->clockid, 1);
		REQUIRE(a->nr_ids == 2);
		CHECK_EQ_U64(a->ids[0], pdb_ids[i][0]);
		CHECK_EQ_U64(a->ids[1], pdb_ids[i][1]);
		CHECKF(a->name && strcmp(a->name, pdb_names[i]) == 0, "name %s", a->name ? a->name : "(null)");
	}
	REQUIRE(in != NULL);
	CHECK(in->hostname && strcmp(in->hostname, "testhost") == 0);
	CHECK(in->osrelease && strcmp(in->osrelease, "6.1.0-test") == 0);
	CHECK(in->version == NULL);
	CHECK_EQ_INT(in->nr_cpus_available, 4);
	CHECK_EQ_INT(in->nr_cpus_online, 2);
	CHECK_EQ_U64(in->total_mem_kb, 123456);
	CHECKF(in->cmdline && strcmp(in->cmdline, "perf record -a") == 0, "cmdline %s", in->cmdline);
	CHECK_EQ_INT(in->clockid, 1);
	CHECK_EQ_U64(in->clock_tod_ns, 1700000000000000000ULL);
	CHECK_EQ_U64(in->clock_ns, 123456789);
	CHECK_EQ_INT(in->comp_type, 1);
	CHECK_EQ_INT(in->comp_level, 3);
	CHECK_EQ_U64(in->comp_ratio, 7);
	CHECK_EQ_U64(in->comp_mmap_len, 65536);
	REQUIRE(in->nr_build_ids == 2);
	b = perfring_perfdata_build_id(pd, 0);
	REQUIRE(b != NULL);
	CHECK_EQ_INT(b->pid, -1);
	CHECK_EQ_INT(b->size, 20);
	CHECK_EQ_INT(b->build_id[19], 0x11);
	CHECK(strcmp(b->filename, "[kernel.kallsyms]") == 0);
	b = perfring_perfdata_build_id(pd, 1);
	REQUIRE(b != NULL);
	CHECK_EQ_INT(b->pid, 42);
	CHECK_EQ_INT(b->size, 16);
	CHECK_EQ_INT(b->build_id[15], 0x22);
	CHECK(strcmp(b->filename, "/usr/bin/worker") == 0);
	CHECK(perfring_perfdata_build_id(pd, 2) == NULL);
	CHECK(perfring_perfdata_has_feature(pd, PDB_F_HOSTNAME));
	CHECK(!perfring_perfdata_has_feature(pd, 5));
	CHECK_EQ_INT(perfring_perfdata_feature(pd, PDB_F_TOTAL_MEM, &raw, &len), 0);
	CHECK_EQ_U64(len, 8);
	CHECK_EQ_INT(perfring_perfdata_feature(pd, 5, &raw, &len), -ENOENT);
}

static void run_mem(bool pipe, bool swapped, enum pdb_data kind, bool ordered, unsigned extra)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered };
	struct perfring_perfdata *pd;
	struct pdb b;
	uint64_t doff, dsize;
	size_t n = 0;
	int ret;

	pdb_init(&b, swapped);
	if (pipe)
		pdb_pipe(&b, kind, &doff);
	else
		pdb_file(&b, kind, extra, &doff, &dsize);
	pd = perfring_perfdata_open_mem(b.buf, b.len, &o);
	REQUIREF(pd != NULL, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_perfdata_is_pipe(pd), pipe);
	CHECK_EQ_INT(perfring_perfdata_is_swapped(pd), swapped);
	ret = read_scenario(pd, ordered, swapped, &n, NULL, NULL, 0);
	CHECKF(ret == 0, "ret %d: %s", ret, perfring_errmsg());
	CHECK_EQ_U64(n, PDB_NR_EXPECT);
	check_attrs_and_info(pd);
	if (extra)
		CHECK_EQ_U64(perfring_perfdata_attr(pd, 0)->file_attr_size, sizeof(struct perf_event_attr) + extra);
	CHECK_EQ_INT(perfring_perfdata_next(pd, &(struct perfring_perfdata_record){ 0 }), 0);
	perfring_perfdata_free(pd);
	free(b.buf);
}

TEST(perfdata_file_both_orders)
{
	for (int sw = 0; sw < 2; sw++)
		for (int ord = 0; ord < 2; ord++)
			run_mem(false, sw, PDB_PLAIN, ord, 0);
}

TEST(perfdata_file_newer_attr)
{
	for (int sw = 0; sw < 2; sw++)
		run_mem(false, sw, PDB_PLAIN, false, 8);
}

TEST(perfdata_pipe_mem_both_orders)
{
	for (int sw = 0; sw < 2; sw++)
		for (int ord = 0; ord < 2; ord++)
			run_mem(true, sw, PDB_PLAIN, ord, 0);
}

TEST(perfdata_compressed_straddling)
{
	for (int sw = 0; sw < 2; sw++)
		for (int ord = 0; ord < 2; ord++) {
			run_mem(false, sw, PDB_COMPRESSED, ord, 0);
			run_mem(false, sw, PDB_COMPRESSED2, ord, 0);
			run_mem(true, sw, PDB_COMPRESSED, ord, 0);
			run_mem(true, sw, PDB_COMPRESSED2, ord, 0);
		}
}

/* The compressed records come before what they carry, and a record cut by
 * the flush comes after the second one. */
TEST(perfdata_compressed_order_of_delivery)
{
	struct perfring_perfdata *pd;
	struct seen seen[64];
	size_t n = 0, k = 0, i, nc = 0, from = 0;
	struct pdb b;
	uint64_t doff, dsize;

	pdb_init(&b, false);
	pdb_file(&b, PDB_COMPRESSED, 0, &doff, &dsize);
	pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
	REQUIRE(pd != NULL);
	CHECK_EQ_INT(read_scenario(pd, false, false, &n, seen, &k, 64), 0);
	CHECK(k > 0 && seen[0].type == 81 && seen[0].offset == doff);
	for (i = 0; i < k; i++) {
		nc += seen[i].type == 81;
		from += seen[i].from_compressed;
	}
	CHECK_EQ_U64(nc, 3);
	CHECK_EQ_U64(from, PDB_NR_EXPECT);
	/* the first flush (at a quarter of the bytes) cut the 3rd record: it
	 * waits for the second compressed record */
	REQUIRE(k > 4);
	CHECK(seen[1].from_compressed && seen[2].from_compressed);
	CHECK_EQ_INT(seen[3].type, 81);
	CHECK(seen[4].from_compressed && seen[4].type == PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(seen[4].offset, seen[3].offset);
	perfring_perfdata_free(pd);
	free(b.buf);
}

static char *write_tmp(const struct pdb *b)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/perfdata_synth.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, b->buf, b->len) != (ssize_t)b->len) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

TEST(perfdata_on_disk_path_and_fd)
{
	for (int sw = 0; sw < 2; sw++) {
		struct perfring_perfdata *pd;
		struct pdb b;
		uint64_t doff, dsize;
		size_t n = 0;
		char *path;
		int fd;

		pdb_init(&b, sw);
		pdb_file(&b, PDB_COMPRESSED2, 0, &doff, &dsize);
		path = write_tmp(&b);
		REQUIRE(path != NULL);
		pd = perfring_perfdata_open(path, NULL);
		REQUIREF(pd != NULL, "%s", perfring_errmsg());
		CHECK_EQ_INT(read_scenario(pd, false, sw, &n, NULL, NULL, 0), 0);
		CHECK_EQ_U64(n, PDB_NR_EXPECT);
		check_attrs_and_info(pd);
		perfring_perfdata_free(pd);
		fd = open(path, O_RDONLY);
		REQUIRE(fd >= 0);
		pd = perfring_perfdata_open_fd(fd, &(struct perfring_perfdata_opts){
							   .sz = sizeof(struct perfring_perfdata_opts), .ordered = true });
		REQUIRE(pd != NULL);
		CHECK_EQ_INT(read_scenario(pd, true, sw, &n, NULL, NULL, 0), 0);
		CHECK_EQ_U64(n, PDB_NR_EXPECT);
		perfring_perfdata_free(pd);
		CHECK(fcntl(fd, F_GETFD) == 0); /* open_fd does not close the caller's fd */
		close(fd);
		unlink(path);
		free(b.buf);
	}
}

/* A child writes the image in small pieces into a pipe(2). */
static pid_t feed_pipe(const struct pdb *b, int *rfd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		size_t off = 0;

		close(p[0]);
		while (off < b->len) {
			size_t n = b->len - off < 7 ? b->len - off : 7;

			if (write(p[1], b->buf + off, n) != (ssize_t)n)
				_exit(1);
			off += n;
			if (off % 70 == 0)
				usleep(100);
		}
		_exit(0);
	}
	close(p[1]);
	*rfd = p[0];
	return pid;
}

TEST(perfdata_pipe_through_pipe2)
{
	for (int sw = 0; sw < 2; sw++)
		for (int kind = PDB_PLAIN; kind <= PDB_COMPRESSED2; kind++) {
			struct perfring_perfdata *pd;
			struct pdb b;
			uint64_t doff;
			size_t n = 0;
			int rfd, st;
			pid_t child;

			pdb_init(&b, sw);
			pdb_pipe(&b, kind, &doff);
			child = feed_pipe(&b, &rfd);
			REQUIRE(child > 0);
			pd = perfring_perfdata_open_fd(rfd, &(struct perfring_perfdata_opts){
								 .sz = sizeof(struct perfring_perfdata_opts),
								 .ordered = kind == PDB_PLAIN });
			REQUIREF(pd != NULL, "%s", perfring_errmsg());
			CHECK(perfring_perfdata_is_pipe(pd));
			CHECKF(read_scenario(pd, kind == PDB_PLAIN, sw, &n, NULL, NULL, 0) == 0, "%s", perfring_errmsg());
			CHECK_EQ_U64(n, PDB_NR_EXPECT);
			check_attrs_and_info(pd);
			perfring_perfdata_free(pd);
			close(rfd);
			REQUIRE(waitpid(child, &st, 0) == child);
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			free(b.buf);
		}
}

TEST(perfdata_pipe_stdin_dash)
{
	struct perfring_perfdata *pd;
	struct pdb b;
	uint64_t doff;
	size_t n = 0;
	int rfd, saved, st;
	pid_t child;

	pdb_init(&b, false);
	pdb_pipe(&b, PDB_COMPRESSED, &doff);
	child = feed_pipe(&b, &rfd);
	REQUIRE(child > 0);
	saved = dup(STDIN_FILENO);
	REQUIRE(dup2(rfd, STDIN_FILENO) == STDIN_FILENO);
	close(rfd);
	pd = perfring_perfdata_open("-", NULL);
	CHECKF(pd != NULL, "%s", perfring_errmsg());
	if (pd) {
		CHECK_EQ_INT(read_scenario(pd, false, false, &n, NULL, NULL, 0), 0);
		CHECK_EQ_U64(n, PDB_NR_EXPECT);
		perfring_perfdata_free(pd);
	}
	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(child, &st, 0);
	free(b.buf);
}

/* Every cut inside the data: the records before the cut, then ETRUNC at
 * the first record the cut damages (pipe mode: a cut between records is a
 * clean end). */
static void truncate_all(bool pipe, bool swapped, enum pdb_data kind)
{
	struct seen full[64];
	size_t nfull = 0, n, k;
	struct perfring_perfdata *pd;
	struct pdb b;
	uint64_t doff, dsize, end, cut;

	pdb_init(&b, swapped);
	if (pipe)
		pdb_pipe(&b, kind, &doff);
	else
		pdb_file(&b, kind, 0, &doff, &dsize);
	end = pipe ? b.len : doff + dsize;
	pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
	REQUIRE(pd != NULL);
	REQUIRE(read_scenario(pd, false, swapped, &n, full, &nfull, 64) == 0);
	perfring_perfdata_free(pd);
	for (cut = doff; cut < end; cut++) {
		uint8_t *copy = malloc(cut);
		struct seen got[64];
		size_t want = 0, i;
		uint64_t bad = UINT64_MAX, rec_end = doff;
		int ret;

		memcpy(copy, b.buf, cut);
		pd = perfring_perfdata_open_mem(copy, cut, NULL);
		REQUIREF(pd != NULL, "cut %llu: %s", (unsigned long long)cut, perfring_errmsg());
		/* expected: the file-level records that end by the cut, and what they carry */
		for (i = 0; i < nfull; i++) {
			if (full[i].from_compressed) {
				if (bad == UINT64_MAX)
					want++;
				continue;
			}
			rec_end = full[i].offset + full[i].size + full[i].payload_len;
			if (rec_end > cut) {
				bad = full[i].offset;
				break;
			}
			want++;
		}
		ret = read_scenario(pd, false, swapped, &n, got, &k, 64);
		if (bad == UINT64_MAX || (pipe && bad == cut)) {
			CHECKF(ret == 0 || (kind != PDB_PLAIN && ret == -PERFRING_ETRUNC),
			       "cut %llu: ret %d", (unsigned long long)cut, ret);
		} else {
			CHECKF(ret == -PERFRING_ETRUNC, "cut %llu: ret %d (%s)", (unsigned long long)cut, ret,
			       perfring_errmsg());
			CHECK_EQ_U64(perfring_perfdata_error_offset(pd), bad);
			CHECKF(strstr(perfring_errmsg(), "offset") != NULL, "%s", perfring_errmsg());
			CHECK_EQ_U64(k, want);
		}
		perfring_perfdata_free(pd);
		free(copy);
	}
	free(b.buf);
}

TEST(perfdata_truncated_everywhere)
{
	for (int sw = 0; sw < 2; sw++) {
		truncate_all(false, sw, PDB_PLAIN);
		truncate_all(true, sw, PDB_PLAIN);
		truncate_all(false, sw, PDB_COMPRESSED2);
	}
}

/*
 * Time order delivers what it queued before it reports an error; the
 * consumer works on those records meanwhile, and its own failed calls set
 * the thread's message (perfring script symbolizing them did): the error,
 * when it comes, still carries the reader's message.
 */
TEST(perfdata_ordered_error_keeps_its_message)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = true };
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	uint64_t doff, dsize;
	struct pdb b;
	int ret, n = 0, again;

	pdb_init(&b, false);
	pdb_file(&b, PDB_PLAIN, 0, &doff, &dsize);
	pd = perfring_perfdata_open_mem(b.buf, (size_t)(doff + dsize - 4), &o); /* the last record cut */
	REQUIRE(pd != NULL);
	while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
		n++;
		CHECK(perfring_perfdata_next(NULL, &r) == -EINVAL); /* the consumer's own failure */
	}
	CHECK(n > 0);
	CHECK_EQ_INT(ret, -PERFRING_ETRUNC);
	CHECKF(strstr(perfring_errmsg(), "perf.data: at offset") != NULL, "%s", perfring_errmsg());
	/* and again on the next call, not a stale one */
	perfring_perfdata_next(NULL, &r);
	again = perfring_perfdata_next(pd, &r);
	CHECK_EQ_INT(again, -PERFRING_ETRUNC);
	CHECKF(strstr(perfring_errmsg(), "perf.data: at offset") != NULL, "%s", perfring_errmsg());
	perfring_perfdata_free(pd);
	free(b.buf);
}

TEST(perfdata_corrupt_record_size)
{
	for (int sw = 0; sw < 2; sw++)
		for (int pipe = 0; pipe < 2; pipe++) {
			struct perfring_perfdata *pd;
			struct seen full[64], got[64];
			size_t nfull, n, k;
			struct pdb b;
			uint64_t doff, dsize;
			int ret;

			pdb_init(&b, sw);
			if (pipe)
				pdb_pipe(&b, PDB_PLAIN, &doff);
			else
				pdb_file(&b, PDB_PLAIN, 0, &doff, &dsize);
			pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
			REQUIRE(pd != NULL);
			REQUIRE(read_scenario(pd, false, sw, &n, full, &nfull, 64) == 0);
			perfring_perfdata_free(pd);
			/* the 3rd scenario record (after any pipe-mode attr/feature records) */
			size_t victim = nfull - PDB_NR_EXPECT + 2;
			for (uint16_t bad_size = 0; bad_size < 8; bad_size += 4) {
				pdb_put_at(&b, full[victim].offset + 6, bad_size, 2);
				pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
				REQUIRE(pd != NULL);
				ret = read_scenario(pd, false, sw, &n, got, &k, 64);
				CHECK_EQ_INT(ret, -PERFRING_EBADREC);
				CHECK_EQ_U64(perfring_perfdata_error_offset(pd), full[victim].offset);
				CHECK_EQ_U64(k, victim);
				CHECK_EQ_U64(n, 2);
				perfring_perfdata_free(pd);
			}
			free(b.buf);
		}
}

TEST(perfdata_data_section_too_short)
{
	struct perfring_perfdata *pd;
	struct pdb b;
	uint64_t doff, dsize;
	size_t n;
	int ret;

	pdb_init(&b, true);
	pdb_file(&b, PDB_PLAIN, 0, &doff, &dsize);
	pdb_put_at(&b, 48, dsize - 4, 8); /* the last record crosses the section's end */
	pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
	REQUIRE(pd != NULL);
	ret = read_scenario(pd, false, true, &n, NULL, NULL, 0);
	CHECK_EQ_INT(ret, -PERFRING_ETRUNC);
	CHECK_EQ_U64(n, PDB_NR_EXPECT - 1);
	CHECK(perfring_perfdata_error_offset(pd) > doff && perfring_perfdata_error_offset(pd) < doff + dsize);
	perfring_perfdata_free(pd);
	free(b.buf);
}

TEST(perfdata_corrupt_zstd)
{
	struct perfring_perfdata *pd;
	struct seen seen[64];
	struct pdb b;
	uint64_t doff, dsize;
	size_t n, k;
	int ret;

	pdb_init(&b, false);
	pdb_file(&b, PDB_COMPRESSED, 0, &doff, &dsize);
	/* garble the zstd frame header of the first compressed record */
	memset(b.buf + doff + 8, 0xee, 6);
	pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
	REQUIRE(pd != NULL);
	ret = read_scenario(pd, false, false, &n, seen, &k, 64);
	CHECK_EQ_INT(ret, -PERFRING_EBADREC);
	CHECK_EQ_U64(perfring_perfdata_error_offset(pd), doff);
	CHECK(strstr(perfring_errmsg(), "zstd") != NULL);
	CHECK_EQ_U64(k, 0);
	perfring_perfdata_free(pd);
	free(b.buf);
}

TEST(perfdata_not_perf_data)
{
	static const uint8_t junk[128] = "this is not a perf.data file at all";
	struct pdb b;
	uint64_t doff, dsize;

	errno = 0;
	CHECK(perfring_perfdata_open_mem(junk, sizeof(junk), NULL) == NULL);
	CHECK(errno != 0);
	CHECKF(strstr(perfring_errmsg(), "magic") != NULL, "%s", perfring_errmsg());
	CHECK(perfring_perfdata_open_mem(junk, 10, NULL) == NULL);
	CHECK(perfring_perfdata_open_mem(NULL, 5, NULL) == NULL);
	CHECK(perfring_perfdata_open("/nonexistent/perf.data", NULL) == NULL);
	CHECK_EQ_INT(errno, ENOENT);
	/* attrs section pointing past the end */
	pdb_init(&b, false);
	pdb_file(&b, PDB_PLAIN, 0, &doff, &dsize);
	pdb_put_at(&b, 24, b.len + 100, 8);
	CHECK(perfring_perfdata_open_mem(b.buf, b.len, NULL) == NULL);
	CHECK(strstr(perfring_errmsg(), "attr") != NULL);
	free(b.buf);
}

/* A feature section shorter than what it says it holds: no decoded value,
 * no crash, the other features and the records still read. */
TEST(perfdata_truncated_feature)
{
	struct perfring_perfdata *pd;
	struct pdb b;
	uint64_t doff, dsize, table, size;
	size_t n;

	pdb_init(&b, false);
	pdb_file(&b, PDB_PLAIN, 0, &doff, &dsize);
	table = doff + dsize;
	/* entries 0 and 5 of the table: BUILD_ID and CMDLINE lose 6 bytes */
	for (int i = 0; i < (int)PDB_NR_FEATURES; i += 5) {
		memcpy(&size, b.buf + table + 16 * i + 8, 8);
		pdb_put_at(&b, table + 16 * i + 8, size > 6 ? size - 6 : 0, 8);
	}
	pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
	REQUIRE(pd != NULL);
	CHECK(perfring_perfdata_info(pd)->cmdline == NULL);
	CHECK(perfring_perfdata_info(pd)->hostname != NULL);
	CHECK_EQ_INT(perfring_perfdata_info(pd)->nr_build_ids, 1);
	CHECK_EQ_INT(read_scenario(pd, false, false, &n, NULL, NULL, 0), 0);
	perfring_perfdata_free(pd);
	free(b.buf);
}

/* Pipe mode: an attr without ids gets one from ID_INDEX and its name from
 * EVENT_UPDATE; a sample with that id maps to it. */
TEST(perfdata_pipe_id_index_and_event_update)
{
	for (int sw = 0; sw < 2; sw++) {
		struct perfring_perfdata_record r;
		struct perfring_perfdata *pd;
		struct perf_event_attr a;
		const struct perfring_perfdata_attr *pa;
		struct pdb b;
		size_t at;
		int k, ret, n = 0;

		pdb_init(&b, sw);
		pdb_uint(&b, 0x32454c4946524550ULL, 8);
		pdb_u64(&b, 16);
		for (k = 0; k < 2; k++) {
			at = pdb_rec_begin(&b, 64, 0);
			pdb_scenario_attr(&a, k, 0);
			pdb_attr(&b, &a);
			if (k == 0)
				pdb_u64(&b, 101);
			pdb_rec_end(&b, at);
		}
		at = pdb_rec_begin(&b, 69, 0); /* ID_INDEX: {id, idx, cpu, tid} */
		pdb_u64(&b, 1);
		pdb_u64(&b, 303);
		pdb_u64(&b, 1);
		pdb_u64(&b, 0);
		pdb_u64(&b, 43);
		pdb_rec_end(&b, at);
		at = pdb_rec_begin(&b, 78, 0); /* EVENT_UPDATE NAME */
		pdb_u64(&b, 2);
		pdb_u64(&b, 303);
		pdb_bytes(&b, "renamed\0", 8);
		pdb_rec_end(&b, at);
		at = pdb_rec_begin(&b, PERF_RECORD_SAMPLE, 0);
		pdb_u64(&b, 303);
		pdb_u64(&b, 0x1234);
		pdb_u32(&b, 42);
		pdb_u32(&b, 43);
		pdb_u64(&b, 99);
		pdb_u64(&b, 303);
		pdb_u32(&b, 1);
		pdb_u32(&b, 0);
		pdb_u64(&b, 1);
		pdb_rec_end(&b, at);

		pd = perfring_perfdata_open_mem(b.buf, b.len, NULL);
		REQUIRE(pd != NULL);
		while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
			n++;
			if (r.type == PERF_RECORD_SAMPLE)
				CHECK(r.attr == perfring_perfdata_attr(pd, 1));
		}
		CHECK_EQ_INT(ret, 0);
		CHECK_EQ_INT(n, 5);
		pa = perfring_perfdata_attr(pd, 1);
		REQUIRE(pa != NULL);
		CHECK_EQ_U64(pa->nr_ids, 1);
		CHECK(pa->name && strcmp(pa->name, "renamed") == 0);
		CHECK(perfring_perfdata_attr(pd, 0)->name == NULL);
		perfring_perfdata_free(pd);
		free(b.buf);
	}
}

/* Random byte flips (a fixed seed) in every kind of image: the reader
 * never reads outside the buffer (ASan checks), always ends, and an error
 * names an offset inside the input. */
TEST(perfdata_mutations)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	int errors = 0, clean = 0, refused = 0;

	for (int img = 0; img < 12; img++) {
		bool sw = img & 1, pipe = (img >> 1) & 1;
		enum pdb_data kind = (enum pdb_data)(img / 4);
		struct pdb b;
		uint64_t doff, dsize;

		pdb_init(&b, sw);
		if (pipe)
			pdb_pipe(&b, kind, &doff);
		else
			pdb_file(&b, kind, 0, &doff, &dsize);
		for (int iter = 0; iter < 300; iter++) {
			struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = iter & 1 };
			struct perfring_perfdata_record r;
			struct perfring_perfdata *pd;
			uint8_t *copy = malloc(b.len);
			int flips, ret, n = 0;

			memcpy(copy, b.buf, b.len);
			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			flips = 1 + (int)((rng >> 60) & 3);
			for (int f = 0; f < flips; f++) {
				rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
				copy[(rng >> 16) % b.len] ^= (uint8_t)(1u << ((rng >> 8) & 7));
			}
			pd = perfring_perfdata_open_mem(copy, b.len, &o);
			if (!pd) {
				refused++;
				free(copy);
				continue;
			}
			while ((ret = perfring_perfdata_next(pd, &r)) > 0 && n < 10000) {
				struct perfring_decoded d;

				n++;
				CHECK(r.size >= 8);
				if (r.attr)
					(void)perfring_record_parse(&r.attr->cfg, r.data, r.size, &d);
			}
			CHECK(n < 10000);
			if (ret < 0) {
				errors++;
				CHECKF(perfring_perfdata_error_offset(pd) < b.len, "error offset %llu, image %zu bytes",
				       (unsigned long long)perfring_perfdata_error_offset(pd), b.len);
			} else {
				clean++;
			}
			perfring_perfdata_free(pd);
			free(copy);
		}
		free(b.buf);
	}
	printf("  mutations: %d read to the end, %d errors, %d refused at open\n", clean, errors, refused);
	CHECK(errors > 0 && clean > 0);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hostile perf.data files of tests/data/reliability/ (README.md there),
 * each a regression test of a reported fault, read through the library:
 *  - pipe input claiming a 4 GiB TRACING_DATA or 100 GiB AUXTRACE payload
 *    that never arrives: a bounded, clear error at the record's offset, not
 *    an allocation of what was claimed;
 *  - attrs whose id sections all cover the whole file: refused at open
 *    (memory grew with the square of the file), the offset in the message;
 *  - a 5.8 KB zstd bomb expanding to 64 MiB with no FINISHED_ROUND: ordered
 *    reading stays under its memory bound (flushing early, counted), and the
 *    total decompression cap is the caller's to set;
 *  - one COMPRESSED record expanding to 600 MiB (one 48 KB record of a pipe):
 *    read whole in bounded pieces (it was expanded at once up to the 512 MiB
 *    cap, 530 MB of RSS, and refused);
 *  - open-time errors name the offset in the message itself (the reader is
 *    freed, so perfring_perfdata_error_offset() cannot be asked).
 * Memory is checked with getrusage's peak RSS, each case in a child process
 * so that one case's peak does not hide another's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zstd.h>

#include <perfring/perfdata.h>

#include "harness.h"

/* The peak-RSS bounds below measure what the reader holds. ASan's quarantine
 * keeps up to 256 MiB of freed blocks mapped (every realloc of the
 * decompression buffer, say), which would count as held: keep it small.
 * ASAN_OPTIONS from the environment still win. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=1";
}

/* ASan's realloc copies where glibc's moves pages (mremap): the old and the
 * new decompression buffer (64 and 128 MiB for the bomb) briefly coexist. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_REALLOC_KB (64 * 1024)
#endif
#endif
#if !defined(ASAN_REALLOC_KB) && defined(__SANITIZE_ADDRESS__)
#define ASAN_REALLOC_KB (64 * 1024)
#endif
#ifndef ASAN_REALLOC_KB
#define ASAN_REALLOC_KB 0
#endif

static const char *data_path(const char *name, char *buf, size_t cap)
{
	const char *src = getenv("PERFRING_SRCDIR");

	snprintf(buf, cap, "%s/tests/data/reliability/%s", src ? src : ".", name);
	return buf;
}

/* A reader over a real pipe that a child fills with the file's bytes. */
static struct perfring_perfdata *open_as_pipe(const char *name, pid_t *writer)
{
	char path[512];
	int p[2], fd;

	if (pipe(p))
		return NULL;
	*writer = fork();
	if (*writer < 0)
		return NULL;
	if (*writer == 0) {
		char buf[65536];
		ssize_t n;

		close(p[0]);
		fd = open(data_path(name, path, sizeof(path)), O_RDONLY);
		if (fd < 0)
			_exit(2);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(0); /* the reader stopped early */
		_exit(0);
	}
	close(p[1]);
	return perfring_perfdata_open_fd(p[0], NULL);
}

/* Under valgrind the RSS is valgrind's (its shadow memory and its realloc,
 * which always copies): the bounds are checked by the plain and sanitizer
 * suites, and valgrind checks the same runs for memory errors. */
static int under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p && strstr(p, "vgpreload") != NULL;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Read a pipe file to its error: the error, its offset, and the memory used. */
static void pipe_claim(const char *name, int want_err, const char *want_msg)
{
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	long before = peak_rss_kb();
	pid_t w;
	int ret, n = 0;

	pd = open_as_pipe(name, &w);
	REQUIREF(pd, "%s: %s", name, perfring_errmsg());
	while ((ret = perfring_perfdata_next(pd, &r)) > 0)
		n++;
	CHECKF(ret == want_err, "%s: %d (%s), want %d", name, ret, perfring_errmsg(), want_err);
	CHECK_EQ_U64(perfring_perfdata_error_offset(pd), 16);
	CHECKF(strstr(perfring_errmsg(), "at offset 0x10") && strstr(perfring_errmsg(), want_msg), "%s: %s",
	       name, perfring_errmsg());
	/* The claim is gigabytes; what the reader may hold is what arrived. */
	CHECKF(peak_rss_kb() - before < 64 * 1024, "%s: peak RSS grew by %ld KB", name, peak_rss_kb() - before);
	perfring_perfdata_free(pd);
	waitpid(w, NULL, 0);
}

TEST(pipe_tracing_data_4g_claim)
{
	pipe_claim("pipe-tracing-data-4g-claim.pipe.data", -E2BIG, "larger than the");
}

TEST(pipe_auxtrace_100g_payload)
{
	pipe_claim("stdin-auxtrace-100g-payload.pipe.data", -E2BIG, "107374182448 bytes");
}

TEST(pipe_oom_fuzzer_found)
{
	pipe_claim("pipe-oom-fuzzer-found.pipe.data", -E2BIG, "larger than the");
}

/* A claim below the stream bound that the pipe does not deliver is a
 * truncated record, read in chunks as the bytes come. */
TEST(pipe_claim_below_bound_is_truncated)
{
	/* A pipe header, then a TRACING_DATA record (type 66, size 16) claiming
	 * 1 GiB of payload, then 64 bytes and the end. */
	static const unsigned char hdr[] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16, 0, 0, 0, 0, 0, 0, 0,
					     66, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0x40, 0, 0, 0, 0 };
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	unsigned char zero[64] = { 0 };
	long before = peak_rss_kb();
	int p[2], ret;

	REQUIRE(pipe(p) == 0);
	REQUIRE(write(p[1], hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr));
	REQUIRE(write(p[1], zero, sizeof(zero)) == (ssize_t)sizeof(zero));
	close(p[1]);
	pd = perfring_perfdata_open_fd(p[0], NULL);
	REQUIREF(pd, "%s", perfring_errmsg());
	ret = perfring_perfdata_next(pd, &r);
	CHECKF(ret == -PERFRING_ETRUNC, "%d: %s", ret, perfring_errmsg());
	CHECKF(strstr(perfring_errmsg(), "at offset 0x10"), "%s", perfring_errmsg());
	CHECKF(peak_rss_kb() - before < 16 * 1024, "peak RSS grew by %ld KB", peak_rss_kb() - before);
	perfring_perfdata_free(pd);
	close(p[0]);
}

static void ids_overlap(const char *name)
{
	char path[512];
	long before = peak_rss_kb();
	struct perfring_perfdata *pd = perfring_perfdata_open(data_path(name, path, sizeof(path)), NULL);

	CHECKF(!pd && errno == PERFRING_EBADREC, "%s: %p errno %d", name, (void *)pd, errno);
	CHECKF(strstr(perfring_errmsg(), "perf.data: at offset ") && strstr(perfring_errmsg(), "overlap"), "%s",
	       perfring_errmsg());
	CHECKF(peak_rss_kb() - before < 16 * 1024, "%s: peak RSS grew by %ld KB", name, peak_rss_kb() - before);
	perfring_perfdata_free(pd);
}

TEST(ids_shared_section_64k)
{
	ids_overlap("ids-shared-section-64k.data");
}

TEST(ids_shared_section_256k)
{
	ids_overlap("ids-shared-section-256k.data");
}

/* Read a bomb in a child (read_in_child()); the child reports the record
 * count, the reader's status, the early-flushed count and its peak RSS
 * growth over a pipe. */
struct bomb_result {
	long records, early, rss_kb;
	int ret;
	char msg[256];
};

/* What a child reads: the bomb file with opts, or an image in memory (img). */
struct bomb_input {
	struct perfring_perfdata_opts opts;
	const uint8_t *img;
	size_t len;
	uint32_t only_type; /* count only records of this type (0: all) */
};

static struct bomb_result read_in_child(const struct bomb_input *in)
{
	struct bomb_result res = { 0 };
	int p[2];
	pid_t pid;

	if (pipe(p) || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		struct perfring_perfdata_record r;
		struct perfring_perfdata *pd;
		char path[512];
		long before = peak_rss_kb();

		close(p[0]);
		pd = in->img ? perfring_perfdata_open_mem(in->img, in->len, &in->opts)
			     : perfring_perfdata_open(data_path("zbomb-64MiB-in-5KB.data", path, sizeof(path)),
						      &in->opts);
		if (pd) {
			while ((res.ret = perfring_perfdata_next(pd, &r)) > 0)
				res.records += !in->only_type || r.type == in->only_type;
			res.early = (long)perfring_perfdata_early_flushed(pd);
		} else {
			res.ret = -errno;
		}
		snprintf(res.msg, sizeof(res.msg), "%s", perfring_errmsg());
		res.rss_kb = peak_rss_kb() - before;
		perfring_perfdata_free(pd);
		if (write(p[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		res.ret = -EPIPE; /* the child died: the checks below say so */
	close(p[0]);
	waitpid(pid, NULL, 0);
	return res;
}

static struct bomb_result read_bomb(bool ordered, uint64_t max_queue, uint64_t max_decompressed)
{
	struct bomb_input in = { .opts = { .sz = sizeof(in.opts), .ordered = ordered, .max_queue_bytes = max_queue,
					   .max_decompressed = max_decompressed } };

	return read_in_child(&in);
}

/* File order: every record, memory bounded by one decompressed record run. */
TEST(zbomb_file_order)
{
	struct bomb_result b = read_bomb(false, 0, 0);

	CHECKF(b.ret == 0, "%d: %s", b.ret, b.msg);
	CHECKF(b.records > 4000000, "%ld records", b.records);
	CHECKF(under_valgrind() || b.rss_kb < 128 * 1024 + ASAN_REALLOC_KB, "peak RSS grew by %ld KB", b.rss_kb);
}

/* Time order with no FINISHED_ROUND: bounded (was 697 MB), the same records,
 * and the early deliveries counted. */
TEST(zbomb_ordered_bounded)
{
	struct bomb_result all = read_bomb(false, 0, 0);
	struct bomb_result b = read_bomb(true, 16 << 20, 0);

	CHECKF(b.ret == 0, "%d: %s", b.ret, b.msg);
	CHECK_EQ_U64((uint64_t)b.records, (uint64_t)all.records);
	CHECKF(b.early > 0, "early-flushed %ld", b.early);
	/* 16 MiB of queue, allocated by doubling (x2), plus the decompression
	 * buffer and the file's mapping. */
	CHECKF(under_valgrind() || b.rss_kb < 96 * 1024 + ASAN_REALLOC_KB, "peak RSS grew by %ld KB", b.rss_kb);
}

/* The caller's total decompression cap: -E2BIG naming the cap and the offset. */
TEST(zbomb_decompression_cap)
{
	struct bomb_result b = read_bomb(false, 0, 8 << 20);

	CHECKF(b.ret == -E2BIG, "%d: %s", b.ret, b.msg);
	CHECKF(strstr(b.msg, "8388608 bytes") && strstr(b.msg, "max_decompressed") && strstr(b.msg, "at offset "),
	       "%s", b.msg);
	CHECKF(b.records < 4000000, "%ld records before the cap", b.records);
}

/*
 * One COMPRESSED record, 5 MiB short of the 64 KiB a record can hold,
 * expanding to BOMB1_NR records of BOMB1_REC bytes (an unknown user type,
 * 64 KiB of zeros each: ~600 MiB), in a pipe-mode image. *out is malloc'd.
 * PERFRING_WRITE_BOMB1=PATH also writes it to PATH (how
 * tests/data/reliability/zbomb-one-record-600MiB.pipe.data was made).
 */
#define BOMB1_REC 65528u
#define BOMB1_NR 9600u
#define BOMB1_TYPE 99u

/* A pipe-mode image of one COMPRESSED record holding n copies of the
 * reclen bytes at rec (0 when they do not compress into one record). */
static size_t compressed_image(const uint8_t *rec, size_t reclen, uint32_t n, uint8_t **out)
{
	static uint8_t z[65536];
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_outBuffer o = { z, sizeof(z), 0 };
	uint8_t *img;
	size_t rem = 1, len;
	uint32_t i;

	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 19);
	for (i = 0; i < n && !ZSTD_isError(rem); i++) {
		ZSTD_inBuffer in = { rec, reclen, 0 };

		while (in.pos < in.size && !ZSTD_isError(rem))
			rem = ZSTD_compressStream2(cc, &o, &in, ZSTD_e_continue);
	}
	do {
		ZSTD_inBuffer in = { rec, 0, 0 };

		rem = ZSTD_compressStream2(cc, &o, &in, ZSTD_e_end);
	} while (rem && !ZSTD_isError(rem) && o.pos < o.size);
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(rem) || rem || o.pos > 65535 - 8)
		return 0;
	/* COMPRESSED's data is size - 8 bytes, unpadded (COMPRESSED2 came for that) */
	len = 16 + 8 + o.pos;
	img = calloc(1, len);
	if (!img)
		return 0;
	memcpy(img, "PERFILE2", 8);
	memcpy(img + 8, &(uint64_t){ 16 }, 8);
	memcpy(img + 16, &(uint32_t){ 81 }, 4); /* PERF_RECORD_COMPRESSED */
	memcpy(img + 22, &(uint16_t){ (uint16_t)(len - 16) }, 2);
	memcpy(img + 24, z, o.pos);
	*out = img;
	return len;
}

static size_t bomb1_image(uint8_t **out)
{
	static uint8_t rec[BOMB1_REC];
	const char *dump = getenv("PERFRING_WRITE_BOMB1");
	size_t len;

	/* host order: {type, misc 0, size}, then zeros */
	memcpy(rec, &(uint32_t){ BOMB1_TYPE }, 4);
	memcpy(rec + 6, &(uint16_t){ BOMB1_REC }, 2);
	len = compressed_image(rec, sizeof(rec), BOMB1_NR, out);
	if (len && dump) {
		FILE *f = fopen(dump, "wb");

		if (f) {
			fwrite(*out, 1, len, f);
			fclose(f);
		}
	}
	return len;
}

/* A record inside the stream claiming more than a record there may hold
 * (a TRACING_DATA payload of 32 MiB): refused before it is expanded. */
TEST(compressed_record_claiming_32MiB_refused)
{
	uint8_t rec[16] = { 0 }, *img = NULL;
	struct perfring_perfdata_record r;
	struct perfring_perfdata *pd;
	size_t len;
	int ret;

	memcpy(rec, &(uint32_t){ 66 }, 4); /* HEADER_TRACING_DATA {header, u32 size} */
	memcpy(rec + 6, &(uint16_t){ 16 }, 2);
	memcpy(rec + 8, &(uint32_t){ 32u << 20 }, 4);
	len = compressed_image(rec, sizeof(rec), 1, &img);
	REQUIRE(len);
	pd = perfring_perfdata_open_mem(img, len, NULL);
	REQUIRE(pd);
	while ((ret = perfring_perfdata_next(pd, &r)) > 0)
		;
	CHECKF(ret == -PERFRING_EBADREC, "%d: %s", ret, perfring_errmsg());
	CHECKF(strstr(perfring_errmsg(), "a record of 33554448 bytes inside the compressed stream") &&
		       strstr(perfring_errmsg(), "at offset 0x10"),
	       "%s", perfring_errmsg());
	perfring_perfdata_free(pd);
	free(img);
}

TEST(zbomb_one_record_read_in_pieces)
{
	struct bomb_input in = { .opts = { .sz = sizeof(in.opts) }, .only_type = BOMB1_TYPE };
	struct bomb_result res;
	uint8_t *img = NULL;

	in.len = bomb1_image(&img);
	in.img = img;
	REQUIREF(in.len, "the bomb does not compress into one record");
	printf("  one COMPRESSED record of %zu bytes, %u records of %u bytes inside (%llu MiB)\n", in.len - 16,
	       BOMB1_NR, BOMB1_REC, (unsigned long long)BOMB1_NR * BOMB1_REC >> 20);
	res = read_in_child(&in);
	free(img);
	printf("  %ld records read, peak RSS grew by %ld KB\n", res.records, res.rss_kb);
	CHECKF(res.ret == 0, "%d: %s", res.ret, res.msg);
	CHECK_EQ_U64((uint64_t)res.records, BOMB1_NR);
	/* The window (256 KiB, grown to a record at most), the record's 64 KiB
	 * of input and zstd's context and window (a few MiB at level 19): 32 MiB
	 * leaves room for the allocator, far below the 600 MiB expanded. */
	CHECKF(under_valgrind() || res.rss_kb < 32 * 1024, "peak RSS grew by %ld KB", res.rss_kb);
}

/*
 * A synthesized pipe-mode stream: a HEADER_ATTR (IP, TIME, CALLCHAIN), then
 * nr 256-byte samples from two "CPUs" whose times interleave out of order,
 * a FINISHED_ROUND every round records (0: none). Written to fd.
 */
#define SYN_REC 256
static void write_stream(int fd, uint64_t nr, uint64_t round)
{
	static uint8_t buf[1 << 16];
	struct perf_event_attr attr;
	uint64_t i, fill = 0;
	uint16_t sz;

#define PUT(p, n)                                                       \
	do {                                                            \
		if (fill + (n) > sizeof(buf)) {                         \
			if (write(fd, buf, fill) != (ssize_t)fill)      \
				_exit(3);                               \
			fill = 0;                                       \
		}                                                       \
		memcpy(buf + fill, (p), (n));                           \
		fill += (n);                                            \
	} while (0)
	{
		uint64_t h[2] = { 0x32454c4946524550ULL, 16 };

		PUT(h, sizeof(h));
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	{
		uint32_t t = 64;
		uint16_t misc = 0;

		sz = (uint16_t)(8 + sizeof(attr));
		PUT(&t, 4);
		PUT(&misc, 2);
		PUT(&sz, 2);
		PUT(&attr, sizeof(attr));
	}
	for (i = 0; i < nr; i++) {
		uint64_t rec[SYN_REC / 8] = { 0 };

		if (round && i && i % round == 0) {
			uint64_t fr = (uint64_t)8 << 48 | 68; /* type 68, size 8 */

			PUT(&fr, 8);
		}
		rec[0] = (uint64_t)SYN_REC << 48 | (uint64_t)1 << 32 | PERF_RECORD_SAMPLE; /* misc: kernel */
		rec[1] = 0xffffffff81000000ULL + i;                               /* ip */
		rec[2] = 1000000 + (i % 2 ? i : i + 50);                          /* time, two runs */
		rec[3] = SYN_REC / 8 - 4;                                         /* callchain.nr */
		PUT(rec, sizeof(rec));
	}
	if (write(fd, buf, fill) != (ssize_t)fill)
		_exit(3);
#undef PUT
}

struct order_result {
	long records, early, rss_kb, misordered;
	int ret;
	char msg[256];
};

/* Read fd in time order in a child (its own peak RSS); the child reports. */
static struct order_result read_ordered(const char *path, bool as_pipe, uint64_t nr, uint64_t round,
					 uint64_t max_queue)
{
	struct order_result res = { 0 };
	int p[2];
	pid_t pid;

	if (pipe(p) || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = true, .max_queue_bytes = max_queue };
		struct perfring_perfdata_record r;
		struct perfring_perfdata *pd;
		long before;
		uint64_t last = 0;
		int sp[2] = { -1, -1 };
		pid_t w = -1;

		close(p[0]);
		before = peak_rss_kb();
		if (as_pipe) {
			if (pipe(sp) || (w = fork()) < 0)
				_exit(2);
			if (w == 0) {
				close(sp[0]);
				write_stream(sp[1], nr, round);
				_exit(0);
			}
			close(sp[1]);
			pd = perfring_perfdata_open_fd(sp[0], &o);
		} else {
			pd = perfring_perfdata_open(path, &o);
		}
		if (pd) {
			while ((res.ret = perfring_perfdata_next(pd, &r)) > 0) {
				uint64_t t;

				if (r.type != PERF_RECORD_SAMPLE)
					continue;
				memcpy(&t, (const uint8_t *)r.data + 16, 8);
				res.misordered += t < last;
				last = t;
				res.records++;
			}
			res.early = (long)perfring_perfdata_early_flushed(pd);
		} else {
			res.ret = -errno;
		}
		snprintf(res.msg, sizeof(res.msg), "%s", perfring_errmsg());
		res.rss_kb = peak_rss_kb() - before;
		perfring_perfdata_free(pd);
		if (w > 0)
			waitpid(w, NULL, 0);
		if (write(p[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &res, sizeof(res)) != (ssize_t)sizeof(res))
		res.ret = -EPIPE;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return res;
}

/* 64 MiB of samples through a pipe and no FINISHED_ROUND: the records are
 * copied as they come (a stream's bytes are reused), so without a bound
 * ordering would hold all 64 MiB. Under a 4 MiB bound the peak stays near
 * it, every record arrives, the early deliveries are counted, and only at
 * the flushes' seams can a record precede an earlier one. */
TEST(ordered_pipe_no_rounds_bounded)
{
	uint64_t nr = (64u << 20) / SYN_REC;
	struct order_result b = read_ordered(NULL, true, nr, 0, 4u << 20);

	CHECKF(b.ret == 0, "%d: %s", b.ret, b.msg);
	CHECK_EQ_U64((uint64_t)b.records, nr);
	CHECKF(b.early > (long)nr / 2, "early-flushed %ld of %llu", b.early, (unsigned long long)nr);
	/* 4 MiB of queue and copies (allocated by doubling: 8), the stream's
	 * buffer, the test's own */
	CHECKF(under_valgrind() || b.rss_kb < 20 * 1024 + ASAN_REALLOC_KB / 4, "peak RSS grew by %ld KB", b.rss_kb);
	/* the input's disorder (50 records) is far shorter than half the
	 * queue: even the early deliveries come out in order */
	CHECK_EQ_U64((uint64_t)b.misordered, 0);
}

/* The same records with a FINISHED_ROUND every 1000, from a 64 MiB file on
 * disk (mapped): in time order throughout, nothing early, and the memory
 * of a round and a window of the mapping, not of the file. */
TEST(ordered_mapped_file_memory_is_a_window)
{
	uint64_t nr = (64u << 20) / SYN_REC;
	char path[] = "/tmp/perfring-pdhostile-XXXXXX";
	struct order_result b;
	int fd = mkstemp(path);

	REQUIREF(fd >= 0, "mkstemp: %s", strerror(errno));
	write_stream(fd, nr, 1000);
	close(fd);
	b = read_ordered(path, false, nr, 1000, 0);
	unlink(path);
	CHECKF(b.ret == 0, "%d: %s", b.ret, b.msg);
	CHECK_EQ_U64((uint64_t)b.records, nr);
	CHECK_EQ_U64((uint64_t)b.early, 0);
	CHECK_EQ_U64((uint64_t)b.misordered, 0);
	CHECKF(under_valgrind() || b.rss_kb < 16 * 1024, "peak RSS grew by %ld KB reading a 64 MiB file", b.rss_kb);
}

/* Open-time errors carry the offset in the message. */
TEST(open_errors_name_the_offset)
{
	static const struct {
		size_t at;   /* byte to damage */
		uint8_t val;
		const char *want;
	} cases[] = {
		{ 0, 'X', "at offset 0x0: not a perf.data file" },
		{ 19, 0xff, "at offset 0x10: header attr_size" }, /* attr_size becomes huge */
		{ 47, 0x7f, "at offset 0x28: data section" },     /* data offset far past the file */
	};
	char path[512];
	FILE *f = fopen(data_path("zbomb-64MiB-in-5KB.data", path, sizeof(path)), "rb");
	uint8_t buf[8192];
	size_t len, i;

	REQUIRE(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	REQUIRE(len > 104);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t copy[8192];
		struct perfring_perfdata *pd;

		memcpy(copy, buf, len);
		copy[cases[i].at] = cases[i].val;
		pd = perfring_perfdata_open_mem(copy, len, NULL);
		CHECKF(!pd, "case %zu opened", i);
		CHECKF(strstr(perfring_errmsg(), cases[i].want), "case %zu: want '%s' in: %s", i, cases[i].want,
		       perfring_errmsg());
		perfring_perfdata_free(pd);
	}
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The readahead thread on every real and hostile perf.data there is: the
 * shared corpus (PERFRING_PERFDATA_CORPUS, set by scripts/run-tests.sh, else
 * ../shared/corpus/perf.data: files of many perf versions, pipe mode,
 * compressed, Intel PT), the hostile files (tests/data/reliability) and the
 * committed fuzz seeds.
 * They are all far below the 16 MiB the thread waits for, so this test is
 * built with src/perfdata/perfdata_readahead.c compiled with
 * PD_RA_MIN_INPUT=0 (Makefile): the thread starts on each; and it retires
 * after 8 batches whenever the caller waited at all, so that a file longer
 * than that is read by both, one after the other. Every file must
 * read the same with and without it, in file order and in time order:
 * the same records (offset, type, size, attr and every byte, hashed), the
 * same end, error offset and message. Run under TSan by the tsan suite
 * ("thread" in the name) and under valgrind, in time order only there.
 */
#include <dirent.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <sys/stat.h>

#include <perfring/perfdata.h>

#include "harness.h"
#include "readahead_threads.h"

struct pass {
	uint64_t n, hash, err_offset;
	int err;
	char msg[512];
};

static unsigned files, differ, started, retired;

static void mix(uint64_t *h, uint64_t v)
{
	*h = (*h ^ v) * 1099511628211ull;
}

static void read_pass(const char *path, bool ordered, bool thread, struct pass *p)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered, .readahead_thread = thread };
	struct perfring_perfdata_record rec;
	struct perfring_perfdata *pd;
	int ret;

	memset(p, 0, sizeof(*p));
	p->hash = 1469598103934665603ull;
	pd = perfring_perfdata_open(path, &o);
	if (!pd) {
		p->err = -1;
		snprintf(p->msg, sizeof(p->msg), "open: %s", perfring_errmsg());
		return;
	}
	while ((ret = perfring_perfdata_next(pd, &rec)) > 0) {
		const uint8_t *d = rec.data;

		if (++p->n == 1 && thread)
			started += nr_threads() > 0;
		mix(&p->hash, rec.offset);
		mix(&p->hash, rec.type);
		mix(&p->hash, rec.size);
		mix(&p->hash, rec.payload_len);
		mix(&p->hash, rec.attr ? (uint64_t)rec.attr->attr->config + 1 : 0);
		for (uint32_t i = 0; i < rec.size; i++)
			mix(&p->hash, d[i]);
	}
	if (thread && p->n > 8 * 256)
		retired += nr_threads() == 0; /* and joined, before the reader's end */
	p->err = ret;
	if (ret < 0) {
		p->err_offset = perfring_perfdata_error_offset(pd);
		snprintf(p->msg, sizeof(p->msg), "%s", perfring_errmsg());
	}
	perfring_perfdata_free(pd);
}

/* Under valgrind (which runs one thread at a time) and TSan a pass takes
 * 50 to 100 times as long: there only time order, which runs the most of
 * the reader's code on the thread, is read both ways. */
static bool slow_tool(void)
{
	const char *p = getenv("LD_PRELOAD");

#if defined(__SANITIZE_THREAD__)
	return true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
	return true;
#endif
#endif
	return p && strstr(p, "vgpreload") != NULL;
}

static void check_file(const char *path)
{
	for (int ordered = slow_tool() ? 1 : 0; ordered < 2; ordered++) {
		struct pass plain, ra;

		read_pass(path, ordered, false, &plain);
		read_pass(path, ordered, true, &ra);
		files += ordered;
		if (plain.n != ra.n || plain.hash != ra.hash || plain.err != ra.err ||
		    plain.err_offset != ra.err_offset || strcmp(plain.msg, ra.msg)) {
			differ++;
			CHECKF(false,
			       "%s (%s order): %llu records, end %d at %llu (%s) without the thread; "
			       "%llu, %d at %llu (%s) with it",
			       path, ordered ? "time" : "file", (unsigned long long)plain.n, plain.err,
			       (unsigned long long)plain.err_offset, plain.msg, (unsigned long long)ra.n, ra.err,
			       (unsigned long long)ra.err_offset, ra.msg);
		}
	}
}

/* Every regular file under dir (but READMEs), depth first. */
static void walk(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		if (names[i]->d_name[0] != '.' && !strstr(names[i]->d_name, ".md")) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
				walk(path);
			else if (S_ISREG(st.st_mode))
				check_file(path);
		}
		free(names[i]);
	}
	free(names);
}

TEST(perfdata_readahead_thread_reads_every_file_alike)
{
	const char *env = getenv("PERFRING_PERFDATA_CORPUS");
	const char *corpus = env && *env ? env : "../shared/corpus/perf.data";
	cpu_set_t cpus;
	struct stat st;

	if (stat(corpus, &st) != 0)
		SKIP("no perf.data corpus at %s (set PERFRING_PERFDATA_CORPUS)", corpus);
	REQUIRE(sched_getaffinity(0, sizeof(cpus), &cpus) == 0);
	if (CPU_COUNT(&cpus) < 2)
		SKIP("one CPU in the affinity mask: the thread does not start");
	walk(corpus);
	walk("tests/data/reliability");
	walk("tests/fuzz/corpus/perfdata_mem");
	printf("%u files, %u differ; the thread started in %u passes, retired in %u\n", files, differ, started,
	       retired);
	CHECK(files >= 20);
	CHECK_EQ_INT(differ, 0);
	/* not on pipes, nor on compressed files, which are a third of the corpus */
	CHECKF(started >= files / 2, "the thread started in %u passes only", started);
	CHECKF(retired > 0, "the thread never retired");
}

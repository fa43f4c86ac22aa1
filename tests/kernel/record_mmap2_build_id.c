// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Two readers at once, one asking for build ids (issue 27, point 7).
 *
 * The kernel builds one MMAP2 record per mapping and writes it to every
 * event that wants it. An event with attr.build_id gets the build id in
 * place of maj/min/ino and PERF_RECORD_MISC_MMAP_BUILD_ID in misc; the bit
 * is set on the shared header and never cleared (perf_event_mmap_output()
 * restores only the size and the type), so the events delivered after it
 * (the ones opened before it: the newest event is delivered first) get
 * the bit over their inode data. A decoder that trusts the bit refuses
 * those records (the low byte of maj read as a build id size above 20) or,
 * on tmpfs (maj 0), reads the inode as a build id; the mappings drop out
 * of the process model.
 *
 * The test opens a dummy event without build ids on this process, then one
 * with attr.build_id, maps three files executable (an ELF file on disk, a
 * copy of it on tmpfs, and a text file with no build id), and reads both
 * rings: each must decode the MMAP2 of each file with its name, and the
 * build id (the file's GNU note) or the device and inode (stat) that the
 * event asked for; perfring_procs fed each ring must hold the three
 * mappings with the same. It prints how many records the kernel marked
 * wrongly (0 on a kernel that clears the bit: the test still checks the
 * decoding, but proves nothing about the leak there).
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <perfring/symbol.h>

#include "rectest.h"

#define NFILES 3

struct target {
	char path[PATH_MAX];
	struct stat st;
	uint8_t bid[PERFRING_BUILD_ID_MAX];
	int bid_size; /* 0: the file has no build id */
	void *addr;
	size_t len;
	int seen; /* MMAP2 records of it in the ring being checked */
};

/* One event's side: its attr, ring and what its records said. */
struct reader {
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	int fd;
	struct perfring_ring *ring;
	struct rt_recs recs;
	int leaked; /* MMAP2 with the build-id bit over inode data */
};

static int copy_file(const char *from, const char *to)
{
	static char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 || n < 0 ? -1 : 0;
}

static int write_text(const char *path)
{
	static const char text[] = "not an ELF file: no build id\n";
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && write(fd, text, sizeof(text)) == (ssize_t)sizeof(text);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int target_map(struct target *t)
{
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0 || fstat(fd, &t->st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	r = perfring_elf_build_id(t->path, t->bid);
	t->bid_size = r > 0 ? r : 0;
	t->len = (size_t)t->st.st_size;
	t->addr = mmap(NULL, t->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	return t->addr == MAP_FAILED ? -1 : 0;
}

static void reader_open(struct reader *r, bool build_id, struct rt_err *e)
{
	rt_attr_init(&r->attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	r->attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
	r->attr.sample_id_all = 1;
	r->attr.task = 1;
	r->attr.comm = 1;
	r->attr.mmap = 1;
	r->attr.mmap2 = 1;
	r->attr.build_id = build_id;
	r->fd = rt_perf_open(&r->attr, 0, -1, -1);
	if (r->fd < 0) {
		rt_errf(e, "perf_event_open(dummy%s): %s", build_id ? ", build_id" : "", strerror(-r->fd));
		return;
	}
	r->ring = rt_ring(r->fd, 16, e);
	if (perfring_parse_config_init(&r->cfg, &r->attr, false))
		rt_errf(e, "perfring_parse_config_init: %s", perfring_errmsg());
}

static void reader_close(struct reader *r)
{
	if (r->ring)
		perfring_ring_free(r->ring);
	if (r->fd >= 0)
		close(r->fd);
	rt_recs_free(&r->recs);
}

/* The MMAP2 m of t says what r's event asked for: its build id, or its inode. */
static void check_mmap2(const struct reader *r, const struct perfring_rec_mmap *m, const struct target *t,
			struct rt_err *e)
{
	bool want_bid = r->attr.build_id && t->bid_size;

	if (m->addr != (uintptr_t)t->addr || m->pgoff != 0)
		rt_errf(e, "%s: MMAP2 of %s at %#llx pgoff %llu, mapped at %p", r->attr.build_id ? "build_id" : "inode",
			t->path, (unsigned long long)m->addr, (unsigned long long)m->pgoff, t->addr);
	if (m->has_build_id != want_bid) {
		rt_errf(e, "%s: MMAP2 of %s decoded %s a build id", r->attr.build_id ? "build_id" : "inode", t->path,
			m->has_build_id ? "with" : "without");
	} else if (want_bid) {
		if (m->build_id_size != t->bid_size || memcmp(m->build_id, t->bid, (size_t)t->bid_size))
			rt_errf(e, "build_id: MMAP2 of %s has a build id of %u bytes unlike the file's %d", t->path,
				m->build_id_size, t->bid_size);
	} else if (m->maj != major(t->st.st_dev) || m->min != minor(t->st.st_dev) || m->ino != t->st.st_ino) {
		rt_errf(e, "%s: MMAP2 of %s says %u:%u inode %llu, stat %u:%u inode %llu",
			r->attr.build_id ? "build_id" : "inode", t->path, m->maj, m->min, (unsigned long long)m->ino,
			major(t->st.st_dev), minor(t->st.st_dev), (unsigned long long)t->st.st_ino);
	}
}

/* The model holds t's mapping as r's records gave it. */
static void check_model(const struct reader *r, const struct perfring_procs *procs, const struct target *t,
			struct rt_err *e)
{
	struct perfring_map_hit hit;
	const char *who = r->attr.build_id ? "build_id" : "inode";

	if (perfring_procs_lookup(procs, (uint32_t)getpid(), (uintptr_t)t->addr, &hit)) {
		rt_errf(e, "%s: the model has no mapping of %s: %s", who, t->path, hit.reason ?: "?");
		return;
	}
	if (strcmp(hit.path, t->path) || hit.start != (uintptr_t)t->addr)
		rt_errf(e, "%s: the model maps %p to %s at %#llx, not %s", who, t->addr, hit.path,
			(unsigned long long)hit.start, t->path);
	else if (r->attr.build_id && t->bid_size &&
		 (hit.build_id_size != t->bid_size || memcmp(hit.build_id, t->bid, (size_t)t->bid_size)))
		rt_errf(e, "%s: the model's build id of %s is wrong (%u bytes)", who, t->path, hit.build_id_size);
	else if (!(r->attr.build_id && t->bid_size) && (hit.ino != t->st.st_ino || hit.maj != major(t->st.st_dev)))
		rt_errf(e, "%s: the model's inode of %s is %u:%u %llu, not %u:%u %llu", who, t->path, hit.maj,
			hit.min, (unsigned long long)hit.ino, major(t->st.st_dev), minor(t->st.st_dev),
			(unsigned long long)t->st.st_ino);
}

static void check_reader(struct reader *r, struct target *tg, struct rt_err *e)
{
	struct perfring_procs *procs = perfring_procs_new(NULL);
	struct perfring_decoded d;
	size_t i;
	int k;

	if (!procs) {
		rt_errf(e, "perfring_procs_new: %s", perfring_errmsg());
		return;
	}
	for (k = 0; k < NFILES; k++)
		tg[k].seen = 0;
	for (i = 0; i < r->recs.n; i++) {
		if (rt_decode(&r->cfg, rt_rec(&r->recs, i), rt_rec_size(&r->recs, i), &d, e))
			continue;
		if (perfring_procs_feed(procs, &d) < 0)
			rt_errf(e, "perfring_procs_feed: %s", perfring_errmsg());
		if (d.type != PERF_RECORD_MMAP2)
			continue;
		if (!r->attr.build_id && perfring_misc_mmap_build_id(d.misc))
			r->leaked++;
		for (k = 0; k < NFILES; k++)
			if (d.u.mmap.filename && !strcmp(d.u.mmap.filename, tg[k].path)) {
				tg[k].seen++;
				check_mmap2(r, &d.u.mmap, &tg[k], e);
			}
	}
	for (k = 0; k < NFILES; k++) {
		if (tg[k].seen != 1)
			rt_errf(e, "%s: %d MMAP2 records of %s decoded", r->attr.build_id ? "build_id" : "inode",
				tg[k].seen, tg[k].path);
		check_model(r, procs, &tg[k], e);
	}
	perfring_procs_free(procs);
}

TEST(mmap2_two_readers_build_id_bit)
{
	struct reader rd[2] = { { .fd = -1 }, { .fd = -1 } };
	struct target tg[NFILES];
	struct rt_err setup = { 0 }, e = { 0 };
	int k, n;

	memset(tg, 0, sizeof(tg));
	REQUIRE(realpath("/bin/true", tg[0].path));
	snprintf(tg[1].path, sizeof(tg[1].path), "/dev/shm/perfring-mmap2-%d", (int)getpid());
	snprintf(tg[2].path, sizeof(tg[2].path), "/dev/shm/perfring-mmap2-%d.txt", (int)getpid());
	REQUIREF(copy_file(tg[0].path, tg[1].path) == 0, "copy %s to %s: %s", tg[0].path, tg[1].path,
		 strerror(errno));
	REQUIREF(write_text(tg[2].path) == 0, "%s: %s", tg[2].path, strerror(errno));

	/* The one without build ids first: the kernel delivers to it last. */
	reader_open(&rd[0], false, &setup);
	reader_open(&rd[1], true, &setup);
	if (setup.n == 0)
		for (k = 0; k < NFILES; k++)
			if (target_map(&tg[k]))
				rt_errf(&setup, "map %s: %s", tg[k].path, strerror(errno));
	for (n = 0; n < 2 && setup.n == 0; n++)
		if (rt_drain_copy(rd[n].ring, &rd[n].recs) < 0)
			rt_errf(&setup, "drain: %s", perfring_errmsg());
	unlink(tg[1].path);
	unlink(tg[2].path);
	if (rd[1].fd == -EINVAL) {
		reader_close(&rd[0]);
		reader_close(&rd[1]);
		SKIP("attr.build_id needs Linux 5.12");
	}
	RT_CHECK_NO_ERR(&setup, "setup");
	CHECKF(tg[0].bid_size == 20, "%s: build id of %d bytes", tg[0].path, tg[0].bid_size);
	CHECK(tg[1].bid_size == tg[0].bid_size && !memcmp(tg[0].bid, tg[1].bid, 20));
	CHECK(tg[2].bid_size == 0);
	CHECK(rd[0].cfg.no_build_id && !rd[1].cfg.no_build_id);

	for (n = 0; n < 2; n++)
		check_reader(&rd[n], tg, &e);
	printf("  %zu and %zu records; the kernel marked %d MMAP2 records of the event without build ids "
	       "as build-id records\n",
	       rd[0].recs.n, rd[1].recs.n, rd[0].leaked);
	RT_CHECK_NO_ERR(&e, "records");
	for (k = 0; k < NFILES; k++)
		if (tg[k].addr && tg[k].addr != MAP_FAILED)
			munmap(tg[k].addr, tg[k].len);
	reader_close(&rd[0]);
	reader_close(&rd[1]);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process model fed from a live ring: a dummy event of this process
 * with mmap2, build_id, comm and task records on; the test maps the build's
 * sym_target binary executable and renames itself. The MMAP2 record (with
 * the file's build id, as readelf reads it) and the COMM record go through
 * perfring_procs_feed_record(); then an address inside the new mapping gives
 * that file, the right offset, and (through the symbolizer) the function
 * `nm` places there.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include "rectest.h"
#include "unit/symtest.h"

TEST(live_mmap2_build_id_and_comm)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err setup = { 0 };
	struct perfring_procs *p = perfring_procs_new(NULL);
	struct perfring_symbolizer *s = perfring_symbolizer_new(NULL);
	struct perfring_map_hit h;
	struct perfring_sym_result r;
	struct st_sym syms[16];
	char target[PATH_MAX], real[PATH_MAX], hex[64], oracle_hex[64], oldname[32] = "";
	uint64_t off;
	struct stat st;
	int fd, tfd, nsyms, fed = 0, rc;
	size_t i;
	uint8_t *map;

	REQUIRE(p && s);
	if (st_helper("sym_target", target, sizeof(target)) || !realpath(target, real))
		SKIP("tests/helpers/sym_target not built");
	nsyms = st_nm(real, "symt_alpha", syms, 16);
	REQUIRE(nsyms == 1);
	REQUIRE(st_vaddr_to_off(real, syms[0].addr, &off) == 0);
	rt_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	attr.comm = 1;
	attr.task = 1;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	fd = rt_perf_open(&attr, 0, -1, -1);
	if (fd < 0) {
		/* Kernels before 5.12 know no build_id bit. */
		attr.build_id = 0;
		fd = rt_perf_open(&attr, 0, -1, -1);
	}
	REQUIREF(fd >= 0, "perf_event_open(dummy): %s", strerror(-fd));
	ring = rt_ring(fd, 16, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	tfd = open(real, O_RDONLY);
	REQUIRE(tfd >= 0 && fstat(tfd, &st) == 0);
	prctl(PR_GET_NAME, oldname);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, tfd, 0);
	REQUIRE(map != MAP_FAILED);
	prctl(PR_SET_NAME, "symlive");
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	prctl(PR_SET_NAME, oldname);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	for (i = 0; i < recs.n; i++) {
		rc = perfring_procs_feed_record(p, &cfg, rt_rec(&recs, i), rt_rec_size(&recs, i));
		CHECKF(rc >= 0, "record %zu: %s", i, perfring_errmsg());
		fed += rc > 0;
	}
	CHECKF(fed >= 2, "%d records changed the model (MMAP2 and COMM expected)", fed);

	rc = perfring_procs_lookup(p, (uint32_t)getpid(), (uintptr_t)map + off, &h);
	REQUIREF(rc == 0, "lookup: %s", perfring_errmsg());
	CHECKF(!strcmp(h.path, real), "path %s, want %s", h.path, real);
	CHECK_EQ_U64(h.file_offset, off);
	CHECK_EQ_U64(h.start, (uintptr_t)map);
	CHECK(!strcmp(h.comm, "symlive"));
	if (attr.build_id) {
		REQUIRE(st_readelf_build_id(real, oracle_hex, sizeof(oracle_hex)) == 0);
		st_hex(h.build_id, h.build_id_size, hex);
		printf("  MMAP2 with build id %s\n", hex);
		CHECKF(!strcmp(hex, oracle_hex), "MMAP2 build id %s, readelf %s", hex, oracle_hex);
	} else {
		CHECK_EQ_U64(h.ino, st.st_ino);
	}
	rc = perfring_symbolize(s, p, (uint32_t)getpid(), (uintptr_t)map + off + 2, PERF_RECORD_MISC_USER, &r);
	CHECKF(rc == 0 && !strcmp(r.name, "symt_alpha") && r.offset == 2, "rc %d %s+%#llx (%s)", rc,
	       r.name ? r.name : "NULL", (unsigned long long)r.offset, r.reason ? r.reason : "");

	munmap(map, (size_t)st.st_size);
	close(tfd);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	perfring_symbolizer_free(s);
	perfring_procs_free(p);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fault injection over the perf.data reader (from memory, a file, an fd,
 * a pipe; a compressed data section) and the writer: each scenario is run
 * once counting the allocations and syscalls it makes (tests/unit/fault.h),
 * then once per call N with call N failing. Each run must either succeed
 * or fail with the documented error (NULL or a negative errno) and a fresh
 * perfring_errmsg(); nothing may crash, and the ASan/valgrind suites check
 * that no run leaks.
 */
#include <stdio.h>

#include <perfring/perfring.h>

#include "fault_sweep.h"
#include "perfdata_build.h"

static struct pdb img_file, img_pipe;
static char path_in[64], path_out[64];

/* Read everything; 0 or the first error (negative; errno for a NULL open). */
static int drain(struct perfring_perfdata *pd)
{
	struct perfring_perfdata_record r;
	int ret;

	if (!pd)
		return errno ? -errno : -EINVAL;
	while ((ret = perfring_perfdata_next(pd, &r)) > 0)
		;
	perfring_perfdata_free(pd);
	return ret;
}

static int sc_mem(void)
{
	return drain(perfring_perfdata_open_mem(img_file.buf, img_file.len, NULL));
}

static int sc_path(void)
{
	return drain(perfring_perfdata_open(path_in, NULL));
}

static int sc_fd(void)
{
	int fd = __real_open(path_in, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = drain(perfring_perfdata_open_fd(fd, NULL));
	close(fd);
	return ret;
}

static int pipe_rfd = -1;
static void pipe_prepare(void)
{
	int p[2];

	REQUIRE(img_pipe.len < 65536);
	REQUIRE(pipe(p) == 0);
	REQUIRE(__real_write(p[1], img_pipe.buf, img_pipe.len) == (ssize_t)img_pipe.len);
	close(p[1]);
	pipe_rfd = p[0];
}

static int sc_pipe(void)
{
	int ret = drain(perfring_perfdata_open_fd(pipe_rfd, NULL));

	close(pipe_rfd);
	pipe_rfd = -1;
	return ret;
}

static int sc_writer(void)
{
	struct perfring_perfdata_writer *w = perfring_perfdata_writer_open(path_out, NULL);
	struct perf_event_attr a;
	uint64_t ids[2] = { 11, 12 };
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
	} rec = { { PERF_RECORD_COMM, 0, sizeof(rec) }, 1, 1, "fault" };
	int ret, i;

	if (!w)
		return errno ? -errno : -EINVAL;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	ret = perfring_perfdata_writer_add_attr(w, &a, ids, 2, "cpu-clock");
	if (ret < 0) {
		perfring_perfdata_writer_free(w);
		return ret;
	}
	for (i = 0; i < 200; i++) {
		ret = perfring_perfdata_writer_write(w, &rec, sizeof(rec));
		if (ret < 0) {
			perfring_perfdata_writer_free(w);
			return ret;
		}
	}
	return perfring_perfdata_writer_close(w);
}

static void setup(void)
{
	static bool done;
	uint64_t doff, dsize;
	FILE *f;

	if (done)
		return;
	done = true;
	pdb_init(&img_file, false);
	pdb_file(&img_file, PDB_COMPRESSED, 0, &doff, &dsize);
	pdb_init(&img_pipe, false);
	pdb_pipe(&img_pipe, PDB_PLAIN, &doff);
	snprintf(path_in, sizeof(path_in), "/tmp/fault_pd_in.%d", (int)getpid());
	snprintf(path_out, sizeof(path_out), "/tmp/fault_pd_out.%d", (int)getpid());
	f = fopen(path_in, "w");
	REQUIRE(f && fwrite(img_file.buf, 1, img_file.len, f) == img_file.len);
	fclose(f);
}

TEST(fault_perfdata_mem) { setup(); fault_sweep("mem", sc_mem, NULL); }
TEST(fault_perfdata_path) { setup(); fault_sweep("path", sc_path, NULL); }
TEST(fault_perfdata_fd) { setup(); fault_sweep("fd", sc_fd, NULL); }
TEST(fault_perfdata_pipe) { setup(); fault_sweep("pipe", sc_pipe, pipe_prepare); }
TEST(fault_perfdata_writer) { setup(); fault_sweep("writer", sc_writer, NULL); }

TEST(fault_perfdata_cleanup)
{
	setup();
	unlink(path_in);
	unlink(path_out);
	free(img_file.buf);
	free(img_pipe.buf);
	img_file.buf = img_pipe.buf = NULL;
}



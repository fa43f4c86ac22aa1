// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One error rule for the ring and reader API (issue 10): every failure sets
 * a fresh perfring_errmsg(), and the same misuse gives the same code in
 * the ring and in the reader (NULL object: -EINVAL; bad ring index:
 * -EINVAL; a CPU no ring serves: -ENOENT; a memory ring's fd: -EBADF;
 * pause/resume after close: -PERFRING_ECLOSED). Needs no perf event: the
 * reader is a caller-fd reader with no rings, the ring a memory ring.
 */
#include "harness.h"
#include "ringsim.h"

#include <perfring/reader.h>

/* Set a message no library call produces, so that a call that fails
 * without setting one is caught. */
static void stale_errmsg(void)
{
	/* A bad CPU list: a failure none of the calls below repeats. */
	int cpu;

	perfring_parse_cpu_list("bogus", &cpu, 1);
}

#define EXPECT_ERR(call, want)                                                                          \
	do {                                                                                            \
		char before_[600];                                                                      \
		int got_;                                                                               \
		stale_errmsg();                                                                         \
		snprintf(before_, sizeof(before_), "%s", perfring_errmsg());                            \
		got_ = (call);                                                                          \
		CHECKF(got_ == (want), "%s: %d, want %d", #call, got_, (int)(want));                    \
		CHECKF(strcmp(before_, perfring_errmsg()) != 0, "%s: perfring_errmsg() not set", #call); \
		CHECKF(strstr(perfring_errmsg(), "perfring_") != NULL, "%s: message names no function: %s", \
		       #call, perfring_errmsg());                                                       \
	} while (0)

static int drop_msg(const struct perfring_msg *m, void *ctx)
{
	(void)m;
	(void)ctx;
	return PERFRING_CONTINUE;
}

TEST(reader_null_is_einval)
{
	struct perfring_ring_stats st;
	struct perfring_msg_buf mb = { 0 };
	int cpus[4];

	EXPECT_ERR(perfring_reader_epoll_fd(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_ring_cnt(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_ring_fd(NULL, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_ring_cpu(NULL, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_cpu_ring(NULL, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_stats(NULL, 0, &st), -EINVAL);
	EXPECT_ERR(perfring_reader_skipped_cpus(NULL, cpus, 4), -EINVAL);
	EXPECT_ERR(perfring_reader_pause(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_resume(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_poll(NULL, 0, drop_msg, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_consume(NULL, drop_msg, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_wait(NULL, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_read(NULL, &mb, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_add(NULL, 0, 0), -EINVAL);
	errno = 0;
	stale_errmsg();
	CHECK(perfring_reader_ring(NULL, 0) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_reader_ring:") != NULL);
}

/* The accessors of an event never fail: NULL (or an event the library did
 * not fill) has no record and nothing remaining. */
TEST(msg_accessors_without_event)
{
	struct perfring_msg ev;

	memset(&ev, 0, sizeof(ev));
	CHECK(perfring_msg_record(NULL) == NULL);
	CHECK_EQ_U64(perfring_msg_remaining(NULL), 0);
	CHECK(perfring_msg_record(&ev) == NULL);
	CHECK_EQ_U64(perfring_msg_remaining(&ev), 0);
}

TEST(ring_null_is_einval)
{
	struct perfring_ring_stats st;
	uint8_t b[8];

	EXPECT_ERR(perfring_ring_fd(NULL), -EINVAL);
	EXPECT_ERR(perfring_ring_stats(NULL, &st), -EINVAL);
	EXPECT_ERR(perfring_ring_record_copy(NULL, 0, b, 1), -EINVAL);
	errno = 0;
	stale_errmsg();
	CHECK(perfring_ring_linear(NULL, NULL) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(strstr(perfring_errmsg(), "perfring_ring_linear:") != NULL);
}

TEST(bad_index_is_einval_unknown_cpu_enoent)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);
	struct perfring_ring_stats st;

	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 0);
	EXPECT_ERR(perfring_reader_ring_fd(rd, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_ring_fd(rd, -1), -EINVAL);
	EXPECT_ERR(perfring_reader_ring_cpu(rd, 3), -EINVAL);
	EXPECT_ERR(perfring_reader_stats(rd, 0, &st), -EINVAL);
	EXPECT_ERR(perfring_reader_consume_ring(rd, 0, drop_msg, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_cpu_ring(rd, 0), -ENOENT);
	errno = 0;
	stale_errmsg();
	CHECK(perfring_reader_ring(rd, 0) == NULL);
	CHECK_EQ_INT(errno, EINVAL);
	CHECK(strstr(perfring_errmsg(), "index 0") != NULL);
	perfring_reader_free(rd);
}

TEST(null_callback_is_einval)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);

	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	EXPECT_ERR(perfring_reader_poll(rd, 0, NULL, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_consume(rd, NULL, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_consume_ring(rd, 0, NULL, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_read(rd, NULL, 0), -EINVAL);
	perfring_reader_free(rd);
}

/* After close, pause and resume both say the reader is closed (pause used
 * to return 0, resume -PERFRING_ECLOSED). */
TEST(pause_resume_after_close)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);

	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	perfring_reader_close(rd);
	EXPECT_ERR(perfring_reader_pause(rd), -PERFRING_ECLOSED);
	EXPECT_ERR(perfring_reader_resume(rd), -PERFRING_ECLOSED);
	perfring_reader_free(rd);
}

/* A memory ring has no fd and cannot be paused: said the documented way, with a message. */
TEST(memory_ring_fd_and_pause)
{
	struct ringsim rs;
	struct perfring_ring *ring;

	REQUIRE(rs_init(&rs, 4096, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIREF(ring, "memory ring: %s", perfring_errmsg());
	EXPECT_ERR(perfring_ring_fd(ring), -EBADF);
	EXPECT_ERR(perfring_ring_pause(ring), -ENOTTY);
	EXPECT_ERR(perfring_ring_resume(ring), -ENOTTY);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* record_copy beyond the record: -ERANGE with a message giving the sizes. */
TEST(record_copy_range)
{
	struct ringsim rs;
	struct perfring_ring *ring;
	struct perfring_ring_record rec;
	uint8_t buf[64];

	REQUIRE(rs_init(&rs, 4096, false) == 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 1);
	ring = rs_ring(&rs, false);
	REQUIREF(ring, "memory ring: %s", perfring_errmsg());
	REQUIRE(perfring_ring_begin(ring) > 0);
	REQUIRE(perfring_ring_next(ring, &rec) == 1);
	CHECK_EQ_INT(perfring_ring_record_copy(&rec, 0, buf, 32), 0);
	EXPECT_ERR(perfring_ring_record_copy(&rec, 8, buf, 32), -ERANGE);
	CHECK(strstr(perfring_errmsg(), "32-byte record") != NULL);
	EXPECT_ERR(perfring_ring_record_copy(&rec, 0, NULL, 4), -EINVAL);
	perfring_ring_commit(ring);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* bytes_available on an overwrite ring: ring.h says the bytes written
 * since the previous read, capped at the data area size. */
TEST(overwrite_bytes_available)
{
	struct ringsim rs;
	struct perfring_ring *ring;

	REQUIRE(rs_init(&rs, 4096, true) == 0);
	ring = rs_ring(&rs, false);
	REQUIREF(ring, "memory ring: %s", perfring_errmsg());
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 0);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 32, 1);
	rs_put(&rs, PERF_RECORD_SAMPLE, 0, 64, 2);
	CHECK_EQ_U64(perfring_ring_bytes_available(ring), 96);
	perfring_ring_free(ring);
	rs_fini(&rs);
}

/* The same misuse of a ring and of a reader gives the same code, side by side: a NULL object
 * (pause, resume, stats, fd), a NULL stats pointer, a ring index that does not exist. */
TEST(same_misuse_same_error_ring_and_reader)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);
	struct perfring_ring_stats st;
	struct ringsim rs;
	struct perfring_ring *ring;
	int fd_ring, fd_reader;

	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	REQUIRE(rs_init(&rs, 4096, false) == 0);
	ring = rs_ring(&rs, false);
	REQUIREF(ring, "memory ring: %s", perfring_errmsg());

	/* NULL object */
	EXPECT_ERR(perfring_ring_pause(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_pause(NULL), -EINVAL);
	EXPECT_ERR(perfring_ring_resume(NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_resume(NULL), -EINVAL);
	EXPECT_ERR(perfring_ring_stats(NULL, &st), -EINVAL);
	EXPECT_ERR(perfring_reader_stats(NULL, 0, &st), -EINVAL);
	fd_ring = perfring_ring_fd(NULL);
	fd_reader = perfring_reader_ring_fd(NULL, 0);
	CHECK_EQ_INT(fd_ring, fd_reader);
	/* NULL stats pointer; a ring index the reader does not have */
	EXPECT_ERR(perfring_ring_stats(ring, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_stats(rd, 0, NULL), -EINVAL);
	EXPECT_ERR(perfring_reader_pause_ring(rd, 0), -EINVAL);
	EXPECT_ERR(perfring_reader_resume_ring(NULL, 0), -EINVAL);

	perfring_ring_free(ring);
	rs_fini(&rs);
	perfring_reader_free(rd);
}

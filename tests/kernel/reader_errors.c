// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Failures are clean: a map of the wrong type, bad options, an fd that is
 * not a perf event, and calls on a closed reader each fail with the
 * documented code and a message, leaving nothing half built.
 */
#include <fcntl.h>

#include "ktest.h"

static void expect_refused(int map_fd, const struct perfring_reader_opts *opts, int want_errno, const char *what)
{
	struct perfring_reader *rd;

	errno = 0;
	rd = perfring_reader_new_bpf(map_fd, opts);
	CHECKF(rd == NULL, "%s: accepted", what);
	if (rd) {
		perfring_reader_free(rd);
		return;
	}
	CHECKF(errno == want_errno, "%s: errno %d (%s), expected %d (%s)", what, errno, strerror(errno), want_errno,
	       strerror(want_errno));
	CHECKF(perfring_errmsg()[0] != '\0', "%s: no message", what);
}

TEST(errors_wrong_map_type)
{
	int hash, array;

	if (geteuid() != 0)
		SKIP("needs root to create BPF maps");
	hash = bpf_map_create(BPF_MAP_TYPE_HASH, "ktest_hash", 4, 4, 8, NULL);
	REQUIREF(hash >= 0, "bpf_map_create(hash): %s", strerror(errno));
	array = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ktest_array", 4, 4, 8, NULL);
	REQUIREF(array >= 0, "bpf_map_create(array): %s", strerror(errno));
	expect_refused(hash, NULL, EINVAL, "a hash map");
	expect_refused(array, NULL, EINVAL, "an array map");
	/* The message names the map's type, whichever it is. */
	CHECKF(strstr(perfring_errmsg(), "BPF_MAP_TYPE_ARRAY"), "message: %s", perfring_errmsg());
	close(array);
	array = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "ktest_lru", 4, 4, 8, NULL);
	REQUIREF(array >= 0, "bpf_map_create(lru hash): %s", strerror(errno));
	expect_refused(array, NULL, EINVAL, "an LRU hash map");
	CHECKF(strstr(perfring_errmsg(), "BPF_MAP_TYPE_LRU_HASH"), "message: %s", perfring_errmsg());
	errno = 0;
	CHECK(perfring_reader_new_bpf(-1, NULL) == NULL && errno != 0);
	close(hash);
	close(array);
}

TEST(errors_bad_options)
{
	struct perfring_reader_opts o;
	struct ktest kt;

	KTEST_SETUP(&kt, 0);
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 3);
	expect_refused(kt.map_fd, &o, EINVAL, "data_pages 3");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = 5000);
	expect_refused(kt.map_fd, &o, EINVAL, "data_bytes 5000");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2, .data_bytes = 8192);
	expect_refused(kt.map_fd, &o, EINVAL, "both data_pages and data_bytes");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 4, .wakeup_bytes = 1024);
	expect_refused(kt.map_fd, &o, EINVAL, "both wakeup_events and wakeup_bytes");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1, .wakeup_bytes = 4096);
	expect_refused(kt.map_fd, &o, EINVAL, "wakeup_bytes == buffer size");

	/* Nothing was left in the map by the refused readers. */
	{
		struct ktest_counts c0 = ktest_counts(&kt);

		REQUIRE(ktest_produce(&kt, 0, 2) == 2);
		CHECK_EQ_U64(ktest_counts(&kt).enoent - c0.enoent, 2);
	}
	ktest_teardown(&kt);
}

TEST(errors_add_not_a_perf_fd)
{
	struct perfring_reader *rd;
	int fds[2], devnull, ret;

	rd = perfring_reader_new(NULL);
	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	REQUIRE(pipe(fds) == 0);
	devnull = open("/dev/null", O_RDWR);
	REQUIRE(devnull >= 0);
	ret = perfring_reader_add(rd, fds[0], 0);
	CHECKF(ret < 0, "adding a pipe: %d", ret);
	CHECK(perfring_errmsg()[0] != '\0');
	ret = perfring_reader_add(rd, devnull, 0);
	CHECKF(ret < 0, "adding /dev/null: %d", ret);
	ret = perfring_reader_add(rd, -1, 0);
	CHECKF(ret < 0, "adding fd -1: %d", ret);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 0);
	/* The empty reader still behaves. */
	{
		struct ktest_collect c;

		ktest_collect_init(&c, rd, 0);
		CHECK_EQ_INT(perfring_reader_consume(rd, ktest_collect_fn, &c), 0);
		CHECK_EQ_INT(perfring_reader_poll(rd, 0, ktest_collect_fn, &c), -ETIMEDOUT);
	}
	perfring_reader_free(rd);
	/* The fds stay the caller's. */
	CHECK(write(fds[1], "x", 1) == 1);
	close(fds[0]);
	close(fds[1]);
	close(devnull);
}

TEST(errors_closed_reader)
{
	struct perfring_msg_buf rr;
	struct perfring_reader *rd;
	struct ktest_collect c;
	struct ktest kt;

	memset(&rr, 0, sizeof(rr));
	KTEST_SETUP(&kt, 0);
	rd = perfring_reader_new_bpf(kt.map_fd, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	ktest_collect_init(&c, rd, 0);
	/* Records pending at close are not delivered any more. */
	ktest_set_len(&kt, 64);
	REQUIRE(ktest_produce(&kt, 0, 3) == 3);
	perfring_reader_close(rd);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, ktest_collect_fn, &c), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_poll(rd, 1000000, ktest_collect_fn, &c), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_read(rd, &rr, 0), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_wait(rd, 0), -PERFRING_ECLOSED);
	CHECK_EQ_U64(c.events, 0);
	perfring_reader_close(rd);
	CHECK_EQ_INT(perfring_reader_wait(rd, 1000000), -PERFRING_ECLOSED);
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	perfring_reader_free(NULL);
	ktest_teardown(&kt);
}

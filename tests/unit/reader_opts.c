// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reader options and construction errors: every invalid combination gives
 * the right errno and a message saying what to do. Maps are made with the
 * bpf() syscall (a perf event array, and one of another type); the few
 * cases that must open events or drop capabilities do so (root needed).
 * Also: what an empty reader's blocking calls return (no events needed).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/reader.h>
#include "harness.h"
#include "common/sys.h"

extern int pr_rd_no_epoll_pwait2; /* reader_wait.c: force the epoll_wait() fallback */

static size_t page;

__attribute__((constructor)) static void init_page(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
}

static int map_create(enum bpf_map_type type, uint32_t value_size, uint32_t max_entries)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = 4;
	attr.value_size = value_size;
	attr.max_entries = max_entries;
	strncpy(attr.map_name, "test_map", sizeof(attr.map_name) - 1);
	return pr_bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
}

static int perf_array(uint32_t max_entries)
{
	return map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, max_entries);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int n_online(void)
{
	return perfring_online_cpus(NULL, 0);
}

/* new() must fail with err and a message containing each of the words. */
#define EXPECT_FAIL(expr, err, ...)                                                                      \
	do {                                                                                             \
		struct perfring_reader *rd_ = (expr);                                                    \
		const char *words_[] = { __VA_ARGS__, NULL };                                            \
		int i_;                                                                                  \
		CHECKF(!rd_ && errno == (err), "%s: got %p errno %d, want errno %d (%s)", #expr,         \
		       (void *)rd_, errno, err, perfring_errmsg());                                      \
		for (i_ = 0; words_[i_]; i_++)                                                           \
			CHECKF(strstr(perfring_errmsg(), words_[i_]), "%s: message lacks \"%s\": %s",    \
			       #expr, words_[i_], perfring_errmsg());                                    \
		if (getenv("SHOW_MSG"))                                                                  \
			printf("  [%s] %s\n", #expr, perfring_errmsg());                                 \
		perfring_reader_free(rd_);                                                               \
	} while (0)

TEST(reader_defaults_with_null_opts)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);

	REQUIREF(rd, "perfring_reader_new(NULL): %s", perfring_errmsg());
	CHECK_EQ_U64(perfring_reader_data_size(rd), 64 * page);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 0);
	CHECK(perfring_reader_epoll_fd(rd) >= 0);
	CHECK_EQ_INT(perfring_reader_skipped_cpus(rd, NULL, 0), 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 0), -ENOENT);
	CHECK(perfring_reader_ring(rd, 0) == NULL);
	CHECK_EQ_INT(perfring_reader_ring_fd(rd, 0), -EINVAL);
	perfring_reader_free(rd);
	perfring_reader_free(NULL);
}

TEST(reader_opts_size_checked)
{
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts);
	unsigned char big[sizeof(struct perfring_reader_opts) + 16];
	struct perfring_reader_opts *bo = (void *)big;
	struct perfring_reader *rd;

	o.sz = 0;
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "sz");
	/* A newer caller asking for something this library does not know. */
	memset(big, 0, sizeof(big));
	bo->sz = sizeof(big);
	big[sizeof(big) - 1] = 1;
	EXPECT_FAIL(perfring_reader_new(bo), EINVAL, "newer");
	/* ... but zeros beyond what we know are fine. */
	big[sizeof(big) - 1] = 0;
	rd = perfring_reader_new(bo);
	CHECKF(rd, "larger zeroed opts refused: %s", perfring_errmsg());
	perfring_reader_free(rd);
}

TEST(reader_opts_buffer_size_rules)
{
	struct perfring_reader_opts o;
	struct perfring_reader *rd;

	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 3);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "data_pages", "power of two");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 4, .data_bytes = 4 * page);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "data_pages", "data_bytes", "one of them");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = 5000);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "data_bytes", "page size", "power of two");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = 3 * page);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "power of two");

	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_bytes = 8 * page);
	rd = perfring_reader_new(&o);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_U64(perfring_reader_data_size(rd), 8 * page);
	perfring_reader_free(rd);
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	rd = perfring_reader_new(&o);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_U64(perfring_reader_data_size(rd), page);
	perfring_reader_free(rd);
}

TEST(reader_opts_wakeup_rules)
{
	struct perfring_reader_opts o;
	struct perfring_reader *rd;

	o = PERFRING_OPTS_INIT(perfring_reader_opts, .wakeup_events = 10, .wakeup_bytes = 1024);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "wakeup_events", "wakeup_bytes", "mutually exclusive");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2, .wakeup_bytes = (uint32_t)(2 * page));
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "wakeup_bytes", "smaller than");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2, .wakeup_bytes = (uint32_t)(2 * page - 8));
	rd = perfring_reader_new(&o);
	CHECKF(rd, "wakeup_bytes just below the buffer refused: %s", perfring_errmsg());
	perfring_reader_free(rd);
}

TEST(reader_opts_cpus_rules)
{
	int cpus[2] = { 0, 0 };
	struct perfring_reader_opts o;
	int map = perf_array(64);

	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 1);
	EXPECT_FAIL(perfring_reader_new(&o), EINVAL, "perfring_reader_new_bpf");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = NULL, .cpu_cnt = 1);
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "cpus is NULL");
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 0);
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "cpu_cnt is 0");
	cpus[0] = 9999;
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 1);
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "CPU 9999", "not online");
	cpus[0] = -1;
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "CPU -1");
	cpus[0] = 0;
	cpus[1] = 0;
	o.cpu_cnt = 2;
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "CPU 0 twice");
	close(map);
}

TEST(reader_opts_cpu_beyond_max_entries)
{
	int cpus[1];
	int online[64], n = perfring_online_cpus(online, 64);
	struct perfring_reader_opts o;
	int map;

	REQUIRE(n > 0);
	/* the highest online CPU, in a map one slot too small for it */
	cpus[0] = online[n - 1];
	map = perf_array((uint32_t)cpus[0] ? (uint32_t)cpus[0] : 1);
	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = cpus, .cpu_cnt = 1);
	if (cpus[0] == 0) {
		close(map);
		SKIP("only CPU 0 is online: no CPU id can exceed a map's max_entries");
	}
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), EINVAL, "max_entries");
	close(map);
}

TEST(reader_opts_max_sample_size_bpf)
{
	struct perfring_reader_opts o;
	struct perfring_reader *rd;
	int map = perf_array(64);

	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	/* 1 page: the largest record that fits is page - 8 bytes, i.e. a
	 * payload of page - 20 (8 header + 4 size + payload, padded to 8). */
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1, .max_sample_size = page - 20);
	rd = perfring_reader_new_bpf(map, &o);
	CHECKF(rd, "payload %zu in 1 page refused: %s", page - 20, perfring_errmsg());
	perfring_reader_free(rd);
	o.max_sample_size = page - 19; /* record of exactly one page: never fits */
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), E2BIG, "max_sample_size", "data_pages = 2");
	o.max_sample_size = 3 * page;
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), E2BIG, "data_pages = 4");
	/* Beyond the u16 record size: no buffer helps. */
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 64, .max_sample_size = 65517);
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), E2BIG, "65528", "65516");
	o.max_sample_size = 65516;
	rd = perfring_reader_new_bpf(map, &o);
	CHECKF(rd, "payload 65516 in 64 pages refused: %s", perfring_errmsg());
	perfring_reader_free(rd);
	o.max_sample_size = (size_t)1 << 40;
	EXPECT_FAIL(perfring_reader_new_bpf(map, &o), E2BIG, "65528");
	close(map);
}

TEST(reader_opts_max_sample_size_caller_events)
{
	struct perfring_reader_opts o;
	struct perfring_reader *rd;

	/* No u32 size field: a body of page - 8 bytes is a record of page bytes. */
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1, .max_sample_size = page - 16);
	rd = perfring_reader_new(&o);
	CHECKF(rd, "%s", perfring_errmsg());
	perfring_reader_free(rd);
	o.max_sample_size = page - 8;
	EXPECT_FAIL(perfring_reader_new(&o), E2BIG, "data_pages = 2");
}

TEST(reader_bpf_wrong_map_type)
{
	int map = map_create(BPF_MAP_TYPE_ARRAY, 8, 4);
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	EXPECT_FAIL(perfring_reader_new_bpf(map, NULL), EINVAL, "BPF_MAP_TYPE_ARRAY",
		    "BPF_MAP_TYPE_PERF_EVENT_ARRAY");
	EXPECT_FAIL(perfring_reader_new_bpf(-1, NULL), EBADF, "map_fd -1");
	EXPECT_FAIL(perfring_reader_new_bpf(devnull, NULL), EINVAL, "BPF_OBJ_GET_INFO_BY_FD");
	close(map);
	close(devnull);
}

/* The reader keeps its own map reference; free releases everything. */
TEST(reader_bpf_keeps_map_and_frees_all)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	struct perfring_reader *rd;
	int map = perf_array(64), fds_before, again;

	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	REQUIRE(pr_bpf_map_info(map, &info) == 0);
	fds_before = th_open_fds();
	rd = perfring_reader_new_bpf(map, NULL);
	REQUIREF(rd, "perfring_reader_new_bpf: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), n_online());
	/* reader: map dup + epoll + eventfd + one event per CPU, and the
	 * uevent socket of hotplug when it could be opened */
	{
		struct perfring_reader_hotplug hp;

		CHECK_EQ_INT(perfring_reader_hotplug_stats(rd, &hp), 0);
		CHECK_EQ_INT(th_open_fds(), fds_before + 3 + n_online() + (hp.active ? 1 : 0));
	}
	close(map);
	memset(&attr, 0, sizeof(attr));
	attr.map_id = info.id;
	again = pr_bpf(BPF_MAP_GET_FD_BY_ID, &attr, sizeof(attr));
	CHECKF(again >= 0, "map gone after the caller closed its fd: %s", strerror(errno));
	if (again >= 0)
		close(again);
	perfring_reader_free(rd);
	CHECK_EQ_INT(th_open_fds(), fds_before - 1);
	/* The map is freed asynchronously once its last reference is gone. */
	for (again = 0; again < 200; again++) {
		int fd = pr_bpf(BPF_MAP_GET_FD_BY_ID, &attr, sizeof(attr));

		if (fd < 0)
			break;
		close(fd);
		usleep(5000);
	}
	CHECKF(again < 200, "map still alive after perfring_reader_free");
}

/* Pause/resume use the CPU id as the key, never the ring index. */
TEST(reader_bpf_pause_resume_by_cpu_id)
{
	int online[64], n = perfring_online_cpus(online, 64), cpu, map, other;
	struct perfring_reader_opts o;
	struct perfring_reader *rd;

	REQUIRE(n > 0);
	if (n < 2)
		SKIP("needs two online CPUs to tell a CPU id from a ring index");
	cpu = online[1];
	other = online[0];
	map = perf_array(64);
	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	o = PERFRING_OPTS_INIT(perfring_reader_opts, .cpus = &cpu, .cpu_cnt = 1);
	rd = perfring_reader_new_bpf(map, &o);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), cpu);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, cpu), 0);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, other), -ENOENT);
	/* stored at key = cpu only (a delete of a present key succeeds) */
	CHECK_EQ_INT(pr_bpf_map_delete_u32(map, (uint32_t)other), -ENOENT);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(pr_bpf_map_delete_u32(map, (uint32_t)cpu), -ENOENT);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0); /* idempotent */
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	CHECK_EQ_INT(pr_bpf_map_delete_u32(map, (uint32_t)cpu), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	perfring_reader_close(rd);
	CHECK_EQ_INT(pr_bpf_map_delete_u32(map, (uint32_t)cpu), -ENOENT); /* close pauses */
	CHECK_EQ_INT(perfring_reader_resume(rd), -PERFRING_ECLOSED);
	perfring_reader_free(rd);
	close(map);
}

static char log_buf[2048];
static int log_warns;

static void capture_log(enum perfring_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == PERFRING_LOG_WARN) {
		log_warns++;
		snprintf(log_buf, sizeof(log_buf), "%s", msg);
	}
}

TEST(reader_bpf_skips_cpus_beyond_max_entries)
{
	int online[64], n = perfring_online_cpus(online, 64), skipped[64], map, ns;
	struct perfring_reader *rd;

	REQUIRE(n > 0);
	if (n < 2)
		SKIP("needs two online CPUs");
	map = perf_array((uint32_t)online[0] + 1); /* a slot for the first online CPU only */
	REQUIREF(map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	log_warns = 0;
	perfring_set_log(capture_log, PERFRING_LOG_WARN, NULL);
	rd = perfring_reader_new_bpf(map, NULL);
	perfring_set_log(NULL, PERFRING_LOG_WARN, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), online[0]);
	ns = perfring_reader_skipped_cpus(rd, skipped, 64);
	CHECK_EQ_INT(ns, n - 1);
	if (ns > 0)
		CHECK_EQ_INT(skipped[0], online[1]);
	CHECK_EQ_INT(log_warns, n - 1);
	CHECKF(strstr(log_buf, "max_entries"), "log: %s", log_buf);
	CHECK_EQ_INT(perfring_reader_skipped_cpus(rd, NULL, 0), n - 1);
	perfring_reader_free(rd);
	close(map);
}

/* Run fn in a child that keeps only the capabilities in keep (bits of the
 * second capability word, i.e. caps 32..63); the child writes errno and
 * the message to a pipe. */
struct child_result {
	int err;
	char msg[512];
};

static int run_unprivileged(uint32_t keep_hi, void (*fn)(struct child_result *), struct child_result *res)
{
	int p[2], status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct data[2];
		struct child_result r;

		memset(data, 0, sizeof(data));
		data[1].effective = data[1].permitted = keep_hi;
		memset(&r, 0, sizeof(r));
		if (syscall(SYS_capset, &hdr, data)) {
			r.err = -1;
			snprintf(r.msg, sizeof(r.msg), "capset: %s", strerror(errno));
		} else {
			fn(&r);
		}
		if (write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], res, sizeof(*res)) != (ssize_t)sizeof(*res))
		res->err = -2;
	close(p[0]);
	waitpid(pid, &status, 0);
	return 0;
}

static int child_map = -1;

static void open_in_child(struct child_result *r)
{
	struct perfring_reader *rd = perfring_reader_new_bpf(child_map, NULL);

	r->err = rd ? 0 : errno;
	snprintf(r->msg, sizeof(r->msg), "%s", perfring_errmsg());
	perfring_reader_free(rd);
}

#define CAP_HI(cap) (1u << ((cap) - 32))

TEST(reader_bpf_permission_message)
{
	struct child_result res;
	char paranoid[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	if (f) {
		if (!fgets(paranoid, sizeof(paranoid), f))
			paranoid[0] = '\0';
		fclose(f);
	}
	if (atoi(paranoid) < 1)
		SKIP("perf_event_paranoid is %d: CPU-wide events need no privilege here", atoi(paranoid));
	child_map = perf_array(64);
	REQUIREF(child_map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	/* keep CAP_BPF (39) so that the map is usable, drop CAP_PERFMON and CAP_SYS_ADMIN */
	REQUIRE(run_unprivileged(CAP_HI(39), open_in_child, &res) == 0);
	close(child_map);
	if (getenv("SHOW_MSG"))
		printf("  [child] errno %d: %s\n", res.err, res.msg);
	CHECKF(res.err == EACCES || res.err == EPERM, "errno %d: %s", res.err, res.msg);
	CHECKF(strstr(res.msg, "/proc/sys/kernel/perf_event_paranoid") && strstr(res.msg, "CAP_PERFMON") &&
		       strstr(res.msg, "CAP_BPF") && strstr(res.msg, "root"),
	       "message: %s", res.msg);
}

static void mlock_in_child(struct child_result *r)
{
	struct rlimit rl = { 0, 0 };
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1024);
	struct perfring_reader *rd;

	setrlimit(RLIMIT_MEMLOCK, &rl);
	rd = perfring_reader_new_bpf(child_map, &o);
	r->err = rd ? 0 : errno;
	snprintf(r->msg, sizeof(r->msg), "%s", perfring_errmsg());
	perfring_reader_free(rd);
}

TEST(reader_bpf_mlock_message)
{
	struct child_result res;
	char want[64];

	child_map = perf_array(64);
	REQUIREF(child_map >= 0, "BPF_MAP_CREATE: %s", strerror(errno));
	/* CAP_PERFMON (38) and CAP_BPF (39), without CAP_IPC_LOCK; RLIMIT_MEMLOCK 0;
	 * 1024 pages per CPU exceed perf_event_mlock_kb (516 KiB per CPU by default). */
	REQUIRE(run_unprivileged(CAP_HI(38) | CAP_HI(39), mlock_in_child, &res) == 0);
	close(child_map);
	if (getenv("SHOW_MSG"))
		printf("  [child] errno %d: %s\n", res.err, res.msg);
	CHECKF(res.err == EPERM || res.err == ENOMEM, "errno %d: %s", res.err, res.msg);
	snprintf(want, sizeof(want), "%zu bytes", 1025 * page);
	CHECKF(strstr(res.msg, "perf_event_mlock_kb") && strstr(res.msg, "RLIMIT_MEMLOCK") && strstr(res.msg, want),
	       "message (want \"%s\"): %s", want, res.msg);
}

static int open_dummy_event(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	return pr_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

TEST(reader_add_caller_events)
{
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2);
	struct perfring_ring_stats st;
	struct perfring_reader *rd;
	int fd = open_dummy_event(), map;

	REQUIREF(fd >= 0, "perf_event_open(dummy): %s", strerror(errno));
	rd = perfring_reader_new(&o);
	REQUIRE(rd);
	CHECK_EQ_INT(perfring_reader_add(rd, fd, 5), 0);
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 1);
	CHECK_EQ_INT(perfring_reader_ring_fd(rd, 0), fd);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), 5);
	CHECK_EQ_INT(perfring_reader_cpu_ring(rd, 5), 0);
	CHECK(perfring_reader_ring(rd, 0) != NULL);
	CHECK_EQ_U64(perfring_ring_data_size(perfring_reader_ring(rd, 0)), 2 * page);
	CHECK_EQ_INT(perfring_reader_stats(rd, 0, &st), 0);
	CHECK_EQ_U64(st.records, 0);
	CHECK_EQ_INT(perfring_reader_stats(rd, 1, &st), -EINVAL);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	CHECK_EQ_INT(perfring_reader_add(rd, -1, 0), -EBADF);
	perfring_reader_free(rd);
	close(fd);

	/* a BPF reader takes no caller events */
	map = perf_array(64);
	REQUIRE(map >= 0);
	rd = perfring_reader_new_bpf(map, NULL);
	REQUIREF(rd, "%s", perfring_errmsg());
	fd = open_dummy_event();
	CHECK_EQ_INT(perfring_reader_add(rd, fd, 0), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "perfring_reader_new()"), "%s", perfring_errmsg());
	perfring_reader_free(rd);
	close(fd);
	close(map);
}

/* An event already mapped with another size cannot be mapped again: mmap
 * says EINVAL, and the message names the 1 + 2^n pages rule. */
TEST(reader_mmap_einval_message)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);
	int fd = open_dummy_event();
	void *m;

	REQUIRE(rd && fd >= 0);
	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIREF(m != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK_EQ_INT(perfring_reader_add(rd, fd, -1), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "1 metadata page") && strstr(perfring_errmsg(), "2^n"),
	       "message: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 0);
	munmap(m, 2 * page);
	perfring_reader_free(rd);
	close(fd);
}

static int never_called(const struct perfring_msg *ev, void *ctx)
{
	(void)ev;
	(*(int *)ctx)++;
	return 0;
}

static bool epoll_readable(struct perfring_reader *rd)
{
	struct pollfd p = { .fd = perfring_reader_epoll_fd(rd), .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

TEST(reader_empty_blocking_calls)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);
	struct perfring_msg_buf rec = { 0 };
	int calls = 0;
	uint64_t t0;

	REQUIRE(rd);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, never_called, &calls), -ETIMEDOUT);
	CHECK_EQ_INT(perfring_reader_read(rd, &rec, 0), -ETIMEDOUT);
	CHECK_EQ_INT(perfring_reader_wait(rd, 0), -ETIMEDOUT);
	CHECK_EQ_INT(perfring_reader_consume(rd, never_called, &calls), 0);
	/* wakeup before the call: the next call returns at once, once */
	perfring_reader_wakeup(rd);
	perfring_reader_wakeup(rd);
	CHECK_EQ_INT(perfring_reader_poll(rd, -1, never_called, &calls), -PERFRING_EWOKEN);
	CHECK_EQ_INT(perfring_reader_wait(rd, 0), -ETIMEDOUT);
	/* one -PERFRING_EFLUSHED per flush */
	perfring_reader_flush(rd);
	perfring_reader_flush(rd);
	CHECK_EQ_INT(perfring_reader_read(rd, &rec, -1), -PERFRING_EFLUSHED);
	CHECK_EQ_INT(perfring_reader_wait(rd, -1), -PERFRING_EFLUSHED);
	CHECK_EQ_INT(perfring_reader_poll(rd, 0, never_called, &calls), -ETIMEDOUT);
	/* a deadline in the past, then one 20 ms ahead, then cleared */
	perfring_reader_set_deadline(rd, 1);
	CHECK_EQ_INT(perfring_reader_poll(rd, -1, never_called, &calls), -ETIMEDOUT);
	t0 = now_ns();
	perfring_reader_set_deadline(rd, t0 + 20000000);
	CHECK_EQ_INT(perfring_reader_read(rd, &rec, -1), -ETIMEDOUT);
	CHECKF(now_ns() - t0 >= 20000000, "returned %llu ns before the deadline",
	       (unsigned long long)(t0 + 20000000 - now_ns()));
	perfring_reader_set_deadline(rd, 0);
	CHECK_EQ_INT(perfring_reader_wait(rd, 1000000), -ETIMEDOUT);
	/* the epoll fd is readable while a request is pending, not after it is served */
	perfring_reader_wakeup(rd);
	CHECK(epoll_readable(rd));
	CHECK_EQ_INT(perfring_reader_wait(rd, 0), -PERFRING_EWOKEN);
	CHECK(!epoll_readable(rd));
	/* close: idempotent, and final; the epoll fd stays readable */
	perfring_reader_close(rd);
	CHECK(epoll_readable(rd));
	perfring_reader_close(rd);
	CHECK_EQ_INT(perfring_reader_poll(rd, -1, never_called, &calls), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_read(rd, &rec, -1), -PERFRING_ECLOSED);
	CHECK_EQ_INT(perfring_reader_wait(rd, -1), -PERFRING_ECLOSED);
	CHECK_EQ_INT(calls, 0);
	CHECK(epoll_readable(rd));
	perfring_msg_buf_release(&rec);
	perfring_reader_free(rd);
}

/* Nanosecond timeouts with epoll_pwait2(); whole milliseconds, rounded up,
 * with the epoll_wait() fallback. */
TEST(reader_timeout_precision_and_fallback)
{
	struct perfring_reader *rd = perfring_reader_new(NULL);
	uint64_t t0, dt;
	int i;

	REQUIRE(rd);
	for (i = 0; i < 2; i++) {
		pr_rd_no_epoll_pwait2 = i;
		t0 = now_ns();
		CHECK_EQ_INT(perfring_reader_wait(rd, 1500000), -ETIMEDOUT);
		dt = now_ns() - t0;
		CHECKF(dt >= 1500000, "%s: returned after %llu ns, before the 1.5 ms timeout",
		       i ? "epoll_wait" : "epoll_pwait2", (unsigned long long)dt);
		if (i)
			CHECKF(dt >= 2000000, "epoll_wait fallback: %llu ns, the timeout was not rounded up",
			       (unsigned long long)dt);
	}
	pr_rd_no_epoll_pwait2 = 0;
	perfring_reader_free(rd);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A reader of perf event fds the caller opened (perfring_reader_new() +
 * perfring_reader_add()): events are the record bodies after the header,
 * pausing uses PERF_EVENT_IOC_PAUSE_OUTPUT (the kernel then counts the
 * drops and reports them in a LOST record), overwritable rings read newest
 * first, and record types other than SAMPLE come through as OTHER.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "ktest.h"

static int open_output_event(int cpu, bool backward)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	a.sample_period = 1;
	a.wakeup_events = 1;
	a.write_backward = backward;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Checks events of TID | RAW samples: body = u32 pid, u32 tid, u32 size, payload. */
struct body_check {
	uint32_t len;
	uint64_t samples, lost, other;
	uint64_t seqs[512];
	int cpus[512];
	int errors;
	char error[400];
};

static int check_body(const struct perfring_msg *ev, void *ctx)
{
	struct body_check *k = ctx;
	static unsigned char body[70000];
	uint32_t pid, tid, raw;
	struct ktest_sample s;
	char why[256];

	if (!perfring_msg_record(ev) || ev->size + ev->size2 != (size_t)perfring_msg_record(ev)->size - 8) {
		if (!k->errors++)
			snprintf(k->error, sizeof(k->error), "event of %zu + %zu bytes for a %u-byte record", ev->size,
				 ev->size2, perfring_msg_record(ev) ? perfring_msg_record(ev)->size : 0);
		return PERFRING_CONTINUE;
	}
	memcpy(body, ev->data, ev->size);
	if (ev->size2)
		memcpy(body + ev->size, ev->data2, ev->size2);
	if (ev->kind == PERFRING_MSG_LOST) {
		k->lost += ev->lost;
		return PERFRING_CONTINUE;
	}
	if (ev->kind != PERFRING_MSG_SAMPLE) {
		k->other++;
		return PERFRING_CONTINUE;
	}
	memcpy(&pid, body, 4);
	memcpy(&tid, body + 4, 4);
	memcpy(&raw, body + 8, 4);
	if (pid != (uint32_t)getpid() || tid != (uint32_t)gettid() || raw != ktest_padded(k->len) ||
	    ktest_check_payload(body + 12, raw, NULL, 0, k->len, ev->cpu, &s, why, sizeof(why))) {
		if (!k->errors++)
			snprintf(k->error, sizeof(k->error), "pid %u tid %u raw %u: %s", pid, tid, raw,
				 raw == ktest_padded(k->len) ? why : "bad raw size");
		return PERFRING_CONTINUE;
	}
	if (k->samples < 512) {
		k->seqs[k->samples] = s.seq;
		k->cpus[k->samples] = ev->cpu;
	}
	k->samples++;
	return PERFRING_CONTINUE;
}

static int poll_n(struct perfring_reader *rd, struct body_check *k, uint64_t n)
{
	uint64_t end = ktest_now_ns() + 3000000000ull;

	while (k->samples + k->other < n && ktest_now_ns() < end) {
		int ret = perfring_reader_poll(rd, 500000000ll, check_body, k);

		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
	}
	return k->samples + k->other >= n ? 0 : -ETIMEDOUT;
}

TEST(caller_fds_forward_and_pause)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 2);
	struct perfring_reader *rd;
	struct ktest_counts c0, c1;
	struct body_check *k;
	int fds[2], cpu, ret;
	struct ktest kt;
	uint32_t key;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	rd = perfring_reader_new(&opts);
	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	for (cpu = 0; cpu < 2; cpu++) {
		fds[cpu] = open_output_event(cpu, false);
		REQUIREF(fds[cpu] >= 0, "perf_event_open(BPF_OUTPUT, cpu %d): %s", cpu, strerror(errno));
		ret = perfring_reader_add(rd, fds[cpu], cpu);
		CHECKF(ret == cpu, "perfring_reader_add of the fd of cpu %d: %d (%s)", cpu, ret, perfring_errmsg());
		key = (uint32_t)cpu;
		REQUIRE(bpf_map_update_elem(kt.map_fd, &key, &fds[cpu], BPF_ANY) == 0);
	}
	CHECK_EQ_INT(perfring_reader_ring_cnt(rd), 2);
	for (cpu = 0; cpu < 2; cpu++) {
		CHECK_EQ_INT(perfring_reader_ring_cpu(rd, cpu), cpu);
		CHECK_EQ_INT(perfring_reader_ring_fd(rd, cpu), fds[cpu]);
		CHECK_EQ_INT(perfring_reader_cpu_ring(rd, cpu), cpu);
	}
	CHECK_EQ_U64(perfring_reader_data_size(rd), 2 * (size_t)sysconf(_SC_PAGESIZE));

	k->len = 60;
	ktest_set_len(&kt, 60);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 5) == 5);
	REQUIRE(ktest_produce(&kt, 1, 3) == 3);
	CHECK_EQ_INT(poll_n(rd, k, 8), 0);
	CHECKF(k->errors == 0, "%d bad events, first: %s", k->errors, k->error);
	CHECK_EQ_U64(k->samples, 8);

	/* Paused: the kernel drops and counts (-ENOSPC for the program). */
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	CHECK_EQ_INT(perfring_reader_pause(rd), 0);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 0, 4) == 4);
	c1 = ktest_counts(&kt);
	CHECK_EQ_U64(c1.enospc - c0.enospc, 4);
	ret = perfring_reader_poll(rd, 20000000ll, check_body, k);
	CHECK_EQ_INT(ret, -ETIMEDOUT);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	CHECK_EQ_INT(perfring_reader_resume(rd), 0);
	REQUIRE(ktest_produce(&kt, 0, 1) == 1);
	CHECK_EQ_INT(poll_n(rd, k, 9), 0);
	CHECK_EQ_U64(k->lost, 4);
	CHECK_EQ_U64(k->samples, 9);
	if (k->samples == 9)
		CHECK_EQ_U64(k->seqs[8], c1.seq);
	CHECKF(k->errors == 0, "%d bad events, first: %s", k->errors, k->error);

	/* Closing pauses the caller's events too. */
	perfring_reader_close(rd);
	c0 = ktest_counts(&kt);
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	CHECK_EQ_U64(ktest_counts(&kt).enospc - c0.enospc, 2);
	perfring_reader_free(rd);
	for (cpu = 0; cpu < 2; cpu++)
		close(fds[cpu]);
	free(k);
	ktest_teardown(&kt);
}

TEST(caller_fds_overwritable)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1,
							      .overwrite = true);
	struct perfring_reader *rd;
	struct body_check *k;
	struct ktest kt;
	uint64_t fit, last, i;
	uint32_t key = 1;
	int fd, ret;

	KTEST_SETUP(&kt, 0);
	KTEST_NEED_CPUS(&kt, 2);
	k = calloc(1, sizeof(*k));
	REQUIRE(k);
	rd = perfring_reader_new(&opts);
	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	fd = open_output_event(1, true);
	REQUIREF(fd >= 0, "perf_event_open(write_backward): %s", strerror(errno));
	ret = perfring_reader_add(rd, fd, 1);
	REQUIREF(ret == 0, "perfring_reader_add: %d (%s)", ret, perfring_errmsg());
	CHECK(perfring_ring_is_overwrite(perfring_reader_ring(rd, 0)));
	REQUIRE(bpf_map_update_elem(kt.map_fd, &key, &fd, BPF_ANY) == 0);
	k->len = 44; /* 8 + 8 + 4 + 44 = 64-byte records */
	ktest_set_len(&kt, 44);
	fit = perfring_reader_data_size(rd) / (8 + 8 + 4 + ktest_padded(44));
	REQUIRE(ktest_produce(&kt, 1, 150) == 150);
	last = ktest_counts(&kt).seq - 1;
	ret = perfring_reader_consume(rd, check_body, k);
	CHECK_EQ_INT(ret, (int)fit);
	CHECKF(k->errors == 0, "%d bad events, first: %s", k->errors, k->error);
	for (i = 0; i < k->samples && i < 512; i++)
		if (k->seqs[i] != last - i) {
			CHECKF(0, "record %llu: seq %llu, expected %llu (newest first)", (unsigned long long)i,
			       (unsigned long long)k->seqs[i], (unsigned long long)(last - i));
			break;
		}
	/* Output resumed after the read: 2 more, only those. */
	k->samples = 0;
	REQUIRE(ktest_produce(&kt, 1, 2) == 2);
	ret = perfring_reader_consume(rd, check_body, k);
	CHECK_EQ_INT(ret, 2);
	CHECK(k->samples == 2 && k->seqs[0] == last + 2 && k->seqs[1] == last + 1);
	CHECK_EQ_U64(ktest_counts(&kt).enospc, 0);
	perfring_reader_free(rd);
	close(fd);
	free(k);
	ktest_teardown(&kt);
}

/* Records other than samples: a child forked while a dummy event with
 * task = 1 watches this process gives a PERF_RECORD_FORK. */
TEST(caller_fds_other_records)
{
	struct perfring_reader *rd;
	struct perf_event_attr a;
	struct perfring_msg_buf rr;
	uint32_t fork_pid = 0, fork_ppid = 0;
	pid_t child;
	int fd, ret, status;

	if (geteuid() != 0)
		SKIP("needs root for a system-wide perf event");
	memset(&rr, 0, sizeof(rr));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.task = 1;
	a.wakeup_events = 1;
	fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	REQUIREF(fd >= 0, "perf_event_open(dummy, task): %s", strerror(errno));
	rd = perfring_reader_new(NULL);
	REQUIREF(rd, "perfring_reader_new: %s", perfring_errmsg());
	REQUIRE(perfring_reader_add(rd, fd, -1) == 0);
	CHECK_EQ_INT(perfring_reader_ring_cpu(rd, 0), -1);
	child = fork();
	REQUIRE(child >= 0);
	if (child == 0)
		_exit(0);
	REQUIRE(waitpid(child, &status, 0) == child);
	/* Through read(): an OTHER record is copied whole, header included. */
	for (;;) {
		ret = perfring_reader_read(rd, &rr, 2000000000ll);
		if (ret)
			break;
		CHECK_EQ_INT(rr.kind, PERFRING_MSG_OTHER);
		CHECK_EQ_INT(rr.cpu, -1);
		if (rr.type == PERF_RECORD_FORK && rr.size >= 8 + 16) {
			struct perf_event_header h;

			memcpy(&h, rr.data, sizeof(h));
			CHECK_EQ_INT(h.type, PERF_RECORD_FORK);
			CHECK_EQ_U64(h.size, rr.size);
			memcpy(&fork_pid, (char *)rr.data + 8, 4);
			memcpy(&fork_ppid, (char *)rr.data + 12, 4);
			break;
		}
	}
	CHECKF(ret == 0, "no PERF_RECORD_FORK: read returned %d (%s)", ret, perfring_strerror(ret));
	CHECK_EQ_INT(fork_pid, child);
	CHECK_EQ_INT(fork_ppid, getpid());
	perfring_msg_buf_release(&rr);
	perfring_reader_free(rd);
	close(fd);
}

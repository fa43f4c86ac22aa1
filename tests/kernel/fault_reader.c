// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fault injection over the reader on the real kernel: each scenario is run
 * once counting the allocations and syscalls the library makes
 * (tests/unit/fault.h: malloc/calloc/realloc, mmap, ioctl, perf_event_open,
 * bpf, epoll_create1/epoll_ctl/epoll_pwait2, eventfd, fcntl, read, write,
 * socket/bind/recvmsg),
 * then once per call N with call N failing. Each run must either give
 * exactly the clean run's results, or stop at a call that returned the
 * documented error (NULL + errno, or a negative errno) with a fresh
 * perfring_errmsg(), after which the reader still holds every record it did
 * not deliver (drained with no fault: received == produced); no run may leave a file descriptor open (counted in
 * /proc/self/fd) or memory allocated (the ASan suites run this test with
 * detect_leaks=1).
 *
 * Scenarios:
 *  bpf          perfring_reader_new_bpf() on the producer's perf event array
 *               (every CPU), records produced on CPU 0 and delivered by poll,
 *               read (copy-out), wait until timeout, pause/resume, pause_ring/
 *               resume_ring, flush, wakeup, close, free;
 *  caller       perfring_reader_new() + perfring_reader_add() of the test's own
 *               BPF-output event on CPU 0 (stored in the map by the test),
 *               consume, consume_samples, pause/resume (PAUSE_OUTPUT), free;
 *  ordered      a BPF reader in time order (opts.order_window_ns), polled until
 *               every record is out;
 *  perf_buffer  perfring_reader_new_perf_buffer() + perfring_reader_poll_ms().
 * The BPF readers also open the uevent socket that follows CPU hotplug
 * (socket, bind, recvmsg): its failure only turns hotplug off.
 */
#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include "unit/fault_sweep.h"
#include "ktest.h"

static struct ktest kt;

/* What a scenario run ended with. */
struct outcome {
	int ret;           /* 0: ran to the end; else the failing call's error */
	const char *step;  /* the call that failed */
	char msg[512];     /* perfring_errmsg() right after it */
	char wrong[256];   /* a call that succeeded with a wrong result */
};


static void fail_at(struct outcome *o, const char *step, int ret)
{
	o->ret = ret;
	o->step = step;
	snprintf(o->msg, sizeof(o->msg), "%s", perfring_errmsg());
}

/*
 * Run a call that returns int: a result equal to `want` goes on; a negative
 * one that is not `want` ends the run as the injected failure; anything else
 * is a wrong result.
 */
#define STEP(o, call, want)                                                                       \
	do {                                                                                     \
		int step_ret_ = (call);                                                          \
		if (step_ret_ != (want)) {                                                       \
			if (step_ret_ < 0) {                                                     \
				fail_at((o), #call, step_ret_);                                  \
			} else {                                                                 \
				(o)->ret = 1;                                                    \
				snprintf((o)->wrong, sizeof((o)->wrong), "%s gave %d, want %d", #call, \
					 step_ret_, (want));                                     \
			}                                                                        \
			goto out;                                                                \
		}                                                                                \
	} while (0)

#define NEW(o, call, rd)                                                                          \
	do {                                                                                     \
		errno = 0;                                                                       \
		(rd) = (call);                                                                   \
		if (!(rd)) {                                                                     \
			fail_at((o), #call, errno > 0 ? -errno : -1000);                         \
			goto out;                                                                \
		}                                                                                \
	} while (0)

/* Records the producer wrote into the reader's rings, and those delivered,
 * over one run. */
static int produced, received;

static int count_msg(const struct perfring_msg *m, void *ctx)
{
	if (m->kind == PERFRING_MSG_SAMPLE) {
		(*(int *)ctx)++;
		received++;
	}
	return 0;
}

static int count_sample(void *ctx, int cpu, const void *data, size_t size)
{
	(*(int *)ctx)++;
	received++;
	return 0;
}

static int produce(int n)
{
	int ret = (int)ktest_produce(&kt, 0, (uint32_t)n);

	if (ret > 0)
		produced += ret;
	return ret;
}

/*
 * After an injected failure, the reader must still hold every record it did
 * not deliver (a failed read or poll consumes nothing): drain it with no
 * fault and compare.
 */
static void check_nothing_lost(struct outcome *o, struct perfring_reader *rd)
{
	bool was = fault_on;
	int ret, got = 0;

	if (!rd || o->ret >= 0)
		return;
	fault_on = false;
	/* 20 ms per call: a time-ordered reader releases what it holds once no
	 * record came for its window. */
	do
		ret = perfring_reader_poll(rd, 20000000, count_msg, &got);
	while (ret > 0 || ret == -PERFRING_EFLUSHED || ret == -PERFRING_EWOKEN);
	fault_on = was;
	if (ret == -PERFRING_ECLOSED)
		return;
	if (received != produced)
		snprintf(o->wrong, sizeof(o->wrong), "after %s failed (%d), %d of %d records delivered (drain: %d)",
			 o->step, o->ret, received, produced, ret);
}

static void sc_bpf(struct outcome *o)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	struct perfring_msg_buf buf;
	struct perfring_reader *rd = NULL;
	int got = 0, idx;

	memset(&buf, 0, sizeof(buf));
	NEW(o, perfring_reader_new_bpf(kt.map_fd, &opts), rd);
	STEP(o, produce(5), 5);
	STEP(o, perfring_reader_poll(rd, 100000000, count_msg, &got), 5);
	STEP(o, got, 5);
	STEP(o, produce(1), 1);
	STEP(o, perfring_reader_read(rd, &buf, 100000000), 0);
	STEP(o, (int)buf.kind, PERFRING_MSG_SAMPLE);
	received++;
	STEP(o, perfring_reader_wait(rd, 1000000), -ETIMEDOUT);
	STEP(o, perfring_reader_pause(rd), 0);
	STEP(o, perfring_reader_resume(rd), 0);
	idx = perfring_reader_cpu_ring(rd, 0);
	STEP(o, idx < 0 ? idx : 0, 0);
	STEP(o, perfring_reader_pause_ring(rd, idx), 0);
	STEP(o, perfring_reader_resume_ring(rd, idx), 0);
	STEP(o, produce(2), 2);
	perfring_reader_flush(rd);
	got = 0;
	STEP(o, perfring_reader_poll(rd, 0, count_msg, &got), -PERFRING_EFLUSHED);
	STEP(o, got, 2);
	perfring_reader_wakeup(rd);
	STEP(o, perfring_reader_wait(rd, 100000000), -PERFRING_EWOKEN);
	perfring_reader_close(rd);
	STEP(o, perfring_reader_poll(rd, 0, count_msg, &got), -PERFRING_ECLOSED);
out:
	check_nothing_lost(o, rd);
	perfring_msg_buf_release(&buf);
	perfring_reader_free(rd);
}

static int caller_fd = -1;

static void sc_caller(struct outcome *o)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1);
	struct perfring_reader *rd = NULL;
	int got = 0;

	NEW(o, perfring_reader_new(&opts), rd);
	STEP(o, perfring_reader_add(rd, caller_fd, 0), 0);
	STEP(o, produce(3), 3);
	STEP(o, perfring_reader_consume(rd, count_msg, &got), 3);
	STEP(o, got, 3);
	STEP(o, produce(2), 2);
	got = 0;
	STEP(o, perfring_reader_wait(rd, 100000000), 1);
	STEP(o, perfring_reader_consume_samples(rd, count_sample, NULL, &got), 2);
	STEP(o, got, 2);
	STEP(o, perfring_reader_pause(rd), 0);
	STEP(o, perfring_reader_resume(rd), 0);
	STEP(o, perfring_reader_pause_ring(rd, 0), 0);
	STEP(o, perfring_reader_resume_ring(rd, 0), 0);
out:
	check_nothing_lost(o, rd);
	perfring_reader_free(rd);
}

/*
 * Time order across rings (opts.order_window_ns): the samples' sequence
 * number (the payload's first u64) serves as their time. Records are held
 * until the window passes with nothing newer, so the scenario polls until
 * all five are out.
 */
static void sc_ordered(struct outcome *o)
{
	struct perfring_reader_opts opts = PERFRING_OPTS_INIT(perfring_reader_opts, .data_pages = 1,
							      .order_window_ns = 1000000, .order_time_offset = 0);
	struct perfring_reader *rd = NULL;
	int got = 0, tries, ret;

	NEW(o, perfring_reader_new_bpf(kt.map_fd, &opts), rd);
	STEP(o, produce(5), 5);
	for (tries = 0; got < 5 && tries < 50; tries++) {
		ret = perfring_reader_poll(rd, 100000000, count_msg, &got);
		if (ret == -ETIMEDOUT)
			continue;
		if (ret < 0) {
			fail_at(o, "perfring_reader_poll() in time order", ret);
			goto out;
		}
	}
	STEP(o, got, 5);
out:
	check_nothing_lost(o, rd);
	perfring_reader_free(rd);
}

static int pb_got;
static void pb_sample(void *ctx, int cpu, void *data, unsigned int size)
{
	pb_got++;
	received++;
}

static void pb_lost(void *ctx, int cpu, unsigned long long cnt)
{
}

static void sc_perf_buffer(struct outcome *o)
{
	struct perfring_reader *rd = NULL;

	pb_got = 0;
	NEW(o, perfring_reader_new_perf_buffer(kt.map_fd, 1, pb_sample, pb_lost, NULL, NULL), rd);
	STEP(o, produce(4), 4);
	STEP(o, perfring_reader_poll_ms(rd, 100), 4);
	STEP(o, pb_got, 4);
	STEP(o, perfring_reader_poll_ms(rd, 1), 0);
out:
	check_nothing_lost(o, rd);
	perfring_reader_free(rd);
}

/* Which calls were failed at least once, for the summary line. */
static char hit_names[512];
static void note_hit(const char *name)
{
	char word[40];

	snprintf(word, sizeof(word), " %s", name);
	if (!strstr(hit_names, word) && strlen(hit_names) + strlen(word) < sizeof(hit_names))
		strcat(hit_names, word);
}

static void run_scenario(const char *name, void (*sc)(struct outcome *))
{
	struct outcome o;
	unsigned long total, n, failed = 0;
	int fds0, fds;

	fds0 = th_open_fds();
	memset(&o, 0, sizeof(o));
	produced = received = 0;
	fault_start(0);
	sc(&o);
	total = fault_stop();
	REQUIREF(o.ret == 0, "%s: clean run: %s%s%s %d %s", name, o.wrong, o.step ? o.step : "", o.step ? ":" : "",
		 o.ret, o.msg);
	REQUIRE(total > 0);
	CHECK_EQ_INT(th_open_fds(), fds0);
	hit_names[0] = '\0';
	for (n = 1; n <= total; n++) {
		fault_errmsg_mark();
		memset(&o, 0, sizeof(o));
		produced = received = 0;
		fault_start(n);
		sc(&o);
		fault_stop();
		fds = th_open_fds();
		CHECKF(fds == fds0, "%s: call %lu (%s) failed: %d fds open after the run, %d before", name, n,
		       fault_what ? fault_what : "?", fds, fds0);
		fds0 = fds; /* each leak reported once */
		CHECKF(!o.wrong[0], "%s: call %lu (%s) failed: %s", name, n, fault_what ? fault_what : "?", o.wrong);
		if (getenv("FAULT_VERBOSE"))
			fprintf(stderr, "%s #%lu %s: %s -> %d %s\n", name, n, fault_what ? fault_what : "-",
				o.step ? o.step : "ok", o.ret, o.msg);
		if (!o.ret)
			continue; /* the failed call was retried or not needed (a best-effort eventfd write) */
		failed++;
		if (fault_what)
			note_hit(fault_what);
		CHECKF(o.ret < 0 && o.ret != -1000, "%s: call %lu (%s): %s returned %d (NULL without errno?)", name, n,
		       fault_what ? fault_what : "?", o.step, o.ret);
		CHECKF(o.msg[0] && strcmp(o.msg, fault_sentinel) != 0, "%s: call %lu (%s): %s returned %d, errmsg not set",
		       name, n, fault_what ? fault_what : "?", o.step, o.ret);
	}
	fprintf(stderr, "# %s: %lu calls, %lu failed cleanly; failed calls:%s\n", name, total, failed, hit_names);
}

TEST(fault_reader_bpf)
{
	KTEST_SETUP(&kt, 0);
	run_scenario("bpf", sc_bpf);
	ktest_teardown(&kt);
}

TEST(fault_reader_caller_fds)
{
	uint32_t key = 0;

	KTEST_SETUP(&kt, 0);
	caller_fd = ktest_open_bpf_output(0);
	REQUIREF(caller_fd >= 0, "perf_event_open(BPF_OUTPUT, CPU 0): %s", strerror(errno));
	REQUIREF(bpf_map_update_elem(kt.map_fd, &key, &caller_fd, BPF_ANY) == 0, "map update: %s", strerror(errno));
	run_scenario("caller", sc_caller);
	close(caller_fd);
	ktest_teardown(&kt);
}

TEST(fault_reader_ordered)
{
	KTEST_SETUP(&kt, 0);
	run_scenario("ordered", sc_ordered);
	ktest_teardown(&kt);
}

TEST(fault_reader_perf_buffer)
{
	KTEST_SETUP(&kt, 0);
	run_scenario("perf_buffer", sc_perf_buffer);
	ktest_teardown(&kt);
}

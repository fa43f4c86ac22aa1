// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fault injection over a ring on a real perf event fd (a software
 * cpu-clock event of this thread): new, consume, pause, resume, free, with
 * each allocation, mmap and ioctl the library makes failing in turn
 * (tests/unit/fault.h). Each run succeeds or returns the documented error
 * (NULL + errno, negative errno) with a fresh perfring_errmsg(); the ASan
 * and valgrind suites check that no run leaks.
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <perfring/perfring.h>

#include "unit/fault_sweep.h"

static int count_fn(const struct perfring_ring_record *rec, void *ctx)
{
	(*(unsigned *)ctx)++;
	return 0;
}

static int ev_fd = -1;

/* 0, or a negative errno; *null_ret: perfring_ring_new failed. */
static int sc_ring(void)
{
	struct perfring_ring *r = perfring_ring_new(ev_fd, NULL);
	unsigned n = 0;
	volatile unsigned long spin;
	int ret;

	if (!r)
		return errno ? -errno : -EINVAL;
	for (spin = 0; spin < 2000000; spin++)
		;
	ret = perfring_ring_consume(r, count_fn, &n);
	if (ret >= 0)
		ret = perfring_ring_pause(r);
	if (ret >= 0)
		ret = perfring_ring_resume(r);
	perfring_ring_free(r);
	return ret < 0 ? ret : 0;
}

TEST(fault_ring)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	ev_fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev_fd < 0)
		SKIP("perf_event_open: %s", strerror(errno));
	fault_sweep("ring", sc_ring, NULL);
	close(ev_fd);
}

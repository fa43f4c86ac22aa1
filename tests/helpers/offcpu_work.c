// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program that blocks in known places for known times, for the off-CPU
 * test (tests/cli/profile.sh): N rounds of
 *   block_sleep   nanosleep of 100 ms
 *   block_pipe    a read of a pipe that a second thread writes 50 ms later
 *   block_futex   a futex wait that the second thread wakes 30 ms later
 * Each function measures its own blocked time (CLOCK_MONOTONIC around the
 * call) and the totals are printed at the end, one "NAME MS" line each,
 * so that the test compares the profile with what was measured, not with
 * nominal times a loaded machine stretches. Frame pointers (-O0
 * -fno-omit-frame-pointer), never inlined: each is its own frame. Each
 * blocks through a wrapper of its own (sleep_ms, read_one, futex_wait0):
 * glibc's syscall functions set up no frame, so a frame-pointer walk from
 * inside one skips its caller; the wrapper is the frame lost, the block_*
 * function above it stays.
 *
 *   offcpu_work [N]   rounds (default 5)
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WORK_FN __attribute__((noinline, used))

static int fds[2];
static atomic_int fword;
static atomic_int phase; /* 1: feed the pipe, 2: wake the futex, -1: done */
static uint64_t spent_ns[3];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

WORK_FN static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

WORK_FN static void read_one(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		exit(1);
}

WORK_FN static void futex_wait0(void)
{
	syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

void block_sleep(void);
void block_pipe(void);
void block_futex(void);

WORK_FN void block_sleep(void)
{
	uint64_t t = now_ns();

	sleep_ms(100);
	spent_ns[0] += now_ns() - t;
}

WORK_FN void block_pipe(void)
{
	uint64_t t = now_ns();

	atomic_store(&phase, 1);
	read_one();
	spent_ns[1] += now_ns() - t;
}

WORK_FN void block_futex(void)
{
	uint64_t t = now_ns();

	atomic_store(&fword, 0);
	atomic_store(&phase, 2);
	while (atomic_load(&fword) == 0)
		futex_wait0();
	spent_ns[2] += now_ns() - t;
}

static void *feeder(void *arg)
{
	int p;

	(void)arg;
	while ((p = atomic_load(&phase)) != -1) {
		if (p == 1) {
			atomic_store(&phase, 0);
			sleep_ms(50);
			if (write(fds[1], "x", 1) != 1)
				exit(1);
		} else if (p == 2) {
			atomic_store(&phase, 0);
			sleep_ms(30);
			atomic_store(&fword, 1);
			syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		} else {
			sleep_ms(1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, i;
	pthread_t th;

	if (pipe(fds) || pthread_create(&th, NULL, feeder, NULL))
		return 1;
	for (i = 0; i < n; i++) {
		block_sleep();
		block_pipe();
		block_futex();
	}
	atomic_store(&phase, -1);
	pthread_join(th, NULL);
	printf("block_sleep %.3f\nblock_pipe %.3f\nblock_futex %.3f\n", spent_ns[0] / 1e6, spent_ns[1] / 1e6,
	       spent_ns[2] / 1e6);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The readahead thread (perfring_perfdata_opts.readahead_thread): a thread
 * of the reader's own that keeps a mapped perf.data file's page tables
 * filled ahead of the reader and emptied behind it.
 *
 * Reading a file through a mapping costs the kernel a page-table entry per
 * 4 KiB page to set up and one to tear down; on a virtual machine that is
 * most of reading a warm file at all (of 14 ms for 137 MB here, 7.5 to
 * populate it with MADV_POPULATE_READ and 2 to unmap it). The reader cannot
 * skip that work, but another CPU can do it meanwhile: the thread populates
 * a window ahead of the reader (reading cold pages from disk on the way)
 * and releases (MADV_DONTNEED) what lies well behind the oldest byte the
 * reader holds, then waits on a futex until the reader moves. The reader
 * only says, once per MiB, where it is and what it holds. Releasing from
 * this thread takes the zapping (the page-table walk and the page
 * accounting) off the reader too; the reader's CPU still takes the TLB
 * shootdown each release sends, a release every 2 MiB.
 *
 * Nothing here is needed for correctness: a page the thread has not reached
 * faults in on the reader's touch, and a released page of a private
 * read-only file mapping reads the file again where it is touched.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* A file smaller than this is populated by the reader itself: the thread
 * would cost more than it saves. */
#define PD_READAHEAD_MIN_FILE (16u << 20)
/* How far ahead of the reader the thread populates, and how much per call
 * (4 to 32 MiB ahead, 512 KiB to 2 MiB per call: the same speed here; the
 * least ahead, the least memory). */
#ifndef PD_READAHEAD_AHEAD
#define PD_READAHEAD_AHEAD (4u << 20)
#endif
#ifndef PD_READAHEAD_WINDOW
#define PD_READAHEAD_WINDOW (1u << 20)
#endif
/* How far behind the reader releases itself when the thread has not. */
#define PD_READAHEAD_RELEASE_SLACK (8u << 20)

struct pd_readahead {
	pthread_t thread;
	uint8_t *map;
	size_t len;
	_Atomic size_t reader;  /* the reader's position in the mapping */
	_Atomic size_t keep;    /* the oldest byte the reader still holds */
	_Atomic size_t released; /* released from the start up to here */
	_Atomic uint32_t seq;   /* futex word: bumped when reader or stop change */
	_Atomic uint32_t waiting;
	_Atomic bool stop;
	_Atomic int reader_cpu; /* where the reader ran when it last said where it is */
	cpu_set_t cpus;         /* the process's CPUs when the thread started */
};

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Release what lies more than slack bytes behind keep (down to
 * PD_RELEASE_LAG behind it, as the reader on its own does). Either thread
 * may: whichever moves released forward first releases that span. */
static void release_behind(struct pd_readahead *ra, size_t keep, size_t slack)
{
	size_t from = atomic_load(&ra->released), to;

	if (keep <= from + slack)
		return;
	to = (keep - PD_RELEASE_LAG) & ~(size_t)4095;
	if (to > from && atomic_compare_exchange_strong(&ra->released, &from, to))
		madvise(ra->map + from, to - from, MADV_DONTNEED);
}

/*
 * Stay off the reader's CPU: the scheduler may move the reader onto the
 * thread's (it did, in about one run of four here: the thread then only
 * took turns with it). Checked before each window; a move is one
 * sched_setaffinity() call, to the process's CPUs but the reader's.
 */
static void avoid_reader_cpu(struct pd_readahead *ra)
{
	int rcpu = atomic_load(&ra->reader_cpu);
	cpu_set_t set;

	if (rcpu < 0 || rcpu >= CPU_SETSIZE || rcpu != sched_getcpu())
		return;
	set = ra->cpus;
	CPU_CLR(rcpu, &set);
	if (CPU_COUNT(&set) > 0)
		sched_setaffinity(0, sizeof(set), &set);
}

static void *readahead_main(void *arg)
{
	struct pd_readahead *ra = arg;
	size_t p = atomic_load(&ra->reader) & ~(size_t)4095; /* populated up to here */

	while (!atomic_load(&ra->stop)) {
		uint32_t s = atomic_load(&ra->seq);
		size_t reader = atomic_load(&ra->reader), end;

		release_behind(ra, atomic_load(&ra->keep), 2 * PD_RELEASE_LAG);
		if (p < reader) /* the reader got ahead (its faults did the work): skip to it */
			p = reader & ~(size_t)4095;
		if (p >= ra->len || p >= reader + PD_READAHEAD_AHEAD) {
			/* far enough ahead: sleep until the reader moves (or stop) */
			atomic_store(&ra->waiting, 1);
			if (atomic_load(&ra->seq) == s) /* else the reader moved meanwhile */
				futex_wait(&ra->seq, s);
			atomic_store(&ra->waiting, 0);
			continue;
		}
		avoid_reader_cpu(ra);
		end = ra->len - p > PD_READAHEAD_WINDOW ? p + PD_READAHEAD_WINDOW : ra->len;
		if (madvise(ra->map + p, end - p, MADV_POPULATE_READ))
			end = ra->len; /* not supported, or the file shrank: the reader's faults do it */
		p = end;
	}
	return NULL;
}

/*
 * The CPUs the thread may run on: the process's, less the one the reader
 * runs on now; false when that leaves none. Left to itself the scheduler
 * put the new thread on the reader's CPU (where it only took turns with the
 * reader) in about one start in three here.
 */
static bool other_cpus(cpu_set_t *all, cpu_set_t *set)
{
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(*all), all))
		return false;
	*set = *all;
	CPU_CLR(cpu, set);
	return CPU_COUNT(set) > 0;
}

/* Start the thread on a mapped file, from byte `from`, on the CPUs other
 * than the reader's; NULL (the reader populates on its own) when the file
 * is small, there is one CPU, or the thread cannot start. The thread takes
 * no signal: they stay the caller's. It is named perfring-ra (top -H,
 * ps -L, /proc/PID/task/TID/comm). */
struct pd_readahead *pd_readahead_start(void *map, size_t len, size_t from)
{
	struct pd_readahead *ra;
	pthread_attr_t attr;
	sigset_t sigs, old;
	cpu_set_t all, cpus;
	int err;

	if (len < PD_READAHEAD_MIN_FILE || !other_cpus(&all, &cpus))
		return NULL;
	ra = calloc(1, sizeof(*ra));
	if (!ra)
		return NULL;
	ra->cpus = all;
	atomic_store(&ra->reader_cpu, -1);
	ra->map = map;
	ra->len = len;
	atomic_store(&ra->reader, from);
	sigfillset(&sigs);
	pthread_sigmask(SIG_SETMASK, &sigs, &old);
	err = pthread_attr_init(&attr);
	if (!err) {
		err = pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		if (!err)
			err = pthread_create(&ra->thread, &attr, readahead_main, ra);
		pthread_attr_destroy(&attr);
	}
	if (err) /* the CPUs refused (a cpuset changed meanwhile, say): anywhere then */
		err = pthread_create(&ra->thread, NULL, readahead_main, ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(ra);
		return NULL;
	}
	pthread_setname_np(ra->thread, "perfring-ra"); /* what top and ps show */
	return ra;
}

/* The reader is at pos and holds nothing before keep. */
void pd_readahead_progress(struct pd_readahead *ra, size_t pos, size_t keep)
{
	atomic_store(&ra->reader, pos);
	atomic_store(&ra->keep, keep);
	atomic_store(&ra->reader_cpu, sched_getcpu());
	/* the thread releases; should it not run for a while, the reader's
	 * memory stays bounded all the same */
	release_behind(ra, keep, PD_READAHEAD_RELEASE_SLACK);
	atomic_fetch_add(&ra->seq, 1);
	if (atomic_load(&ra->waiting))
		futex_wake(&ra->seq);
}

void pd_readahead_stop(struct pd_readahead *ra)
{
	if (!ra)
		return;
	atomic_store(&ra->stop, true);
	atomic_fetch_add(&ra->seq, 1);
	futex_wake(&ra->seq);
	pthread_join(ra->thread, NULL);
	free(ra);
}

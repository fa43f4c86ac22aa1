// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The readahead thread (perfring_perfdata_opts.readahead_thread): a thread
 * of the reader's own, on another CPU, that reads the records ahead of
 * perfring_perfdata_next() and hands them over in batches, in the order
 * the reader delivers them (time order too: the thread does the queueing
 * and merging), so that the caller's thread only takes an 8-byte entry
 * per record and spends its time on the records themselves.
 *
 * The thread runs the reader's own code (pd_next_step()) on the reader's
 * state, which it owns while it reads: the caller's thread does not touch
 * that state until the thread hands it back. It reads only what needs no
 * decision of the caller's thread: kernel records and the user records the
 * reader passes on unread (FINISHED_ROUND, TIME_CONV, ...) wholly in
 * memory. At anything else (an attr, an id index, a feature, compressed
 * records, a payload, the end of the data or anything wrong) it stops
 * before the record, and the caller's thread reads on by itself, as
 * without the thread, from exactly there; it hands reading back to the
 * thread when the next record is again one the thread reads. So the
 * records, their order, the errors and their offsets are the same with
 * the thread as without it.
 *
 * The batches are a ring of PD_RA_BATCHES: the thread fills one while the
 * caller's thread delivers another; each side waits for the other
 * spinning for a while, then on a futex. The bytes the records point at
 * stay mapped until the caller's thread is past their batch: the thread
 * releases the mapping behind the oldest record any undelivered batch
 * holds.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

/* Smaller inputs are read by the caller's thread alone: starting the
 * thread would cost more than it saves. */
#ifndef PD_RA_MIN_INPUT
#define PD_RA_MIN_INPUT (16u << 20)
#endif
/* Records a batch holds, batches in the ring: 4096 records (about 800 KB
 * of a perf record -g file) read ahead at most. Decoding the bench file in
 * time order here: 18.3 ms; 20.1 with batches of 64, 19.3 with 8 batches;
 * 1024 a batch or 32 batches, no faster (18.3, 18.2). */
#ifndef PD_RA_BATCH
#define PD_RA_BATCH 256
#endif
#ifndef PD_RA_BATCHES
#define PD_RA_BATCHES 16
#endif
/* How long a side polls before it sleeps: far longer than the other side
 * takes to fill or deliver a batch (about 5 us). A sleeping caller was
 * woken onto the thread's CPU by the scheduler now and then, and the two
 * then took turns on it: polling 46 us, counting records took 25 to 45 ms
 * in 3 runs of 12 here (15 in the others); polling 460 us, in none. */
#ifndef PD_RA_SPIN_NS
#define PD_RA_SPIN_NS 400000
#endif
/* After this many batches each side judges whether the thread pays: when
 * the caller spent more than this share of the time waiting for batches
 * (it only counts records, say) or the thread waiting for room (the caller
 * spends microseconds on each), the thread hands back for good and is
 * joined. Measured on the bench file: the caller waits 4% of the time
 * decoding in file order, 23% in time order, 71% counting; the thread 99%
 * when the caller prints every record. Counting took 15.3 ms with the
 * thread to the end, 13.7 with it retiring, 12.5 without it. */
#ifndef PD_RA_JUDGE_BATCHES
#define PD_RA_JUDGE_BATCHES 256
#endif
#ifndef PD_RA_RETIRE_PCT
#define PD_RA_RETIRE_PCT 50
#endif
/* After this many hand-backs (a file whose user records come all along)
 * the caller's thread reads on alone. */
#define PD_RA_MAX_HANDBACKS 64

enum { RA_IDLE, RA_RUN, RA_STOP };

/*
 * A record handed over: its offset in the input (48 bits) and its attr's
 * index + 1 (16 bits, 0: none). The caller's thread reads the rest from the
 * record's header, which its consumer reads anyway. Eight bytes, because
 * each cache line of the batches moves between the two CPUs twice (written
 * here, read there, written here again): a quarter of the traffic of the
 * first version's 32-byte entries (the same speed here, where the lines
 * stay in the shared L3).
 */
typedef uint64_t pd_ra_entry;
#define PD_RA_ATTR_BITS 16

struct pd_ra_batch {
	uint32_t n;
	/* after the entries: 1 more batches follow; 0 the end, < 0 an
	 * error (ra->msg), PD_NEXT_HANDBACK: the caller's thread reads on */
	int result;
	uint64_t early_warn;  /* an early flush began: its record's offset + 1 */
	size_t keep;          /* the lowest input offset the entries point at */
	pd_ra_entry e[PD_RA_BATCH];
};

struct pd_readahead {
	struct perfring_perfdata *pd;
	pthread_t thread;
	cpu_set_t cpus;            /* the process's CPUs when the thread started */
	/* each word on a line of its own: one side writes it, the other polls it */
	_Alignas(64) _Atomic uint32_t head;   /* batches published by the thread */
	_Atomic uint32_t head_sleeper;        /* the caller's thread sleeps on head */
	_Alignas(64) _Atomic uint32_t tail;   /* batches delivered by the caller's thread */
	_Atomic uint32_t tail_sleeper;        /* the thread sleeps on tail ... */
	_Atomic uint32_t tail_want;           /* ... until it is this */
	_Atomic int reader_cpu;               /* where the caller's thread took its last batch */
	_Alignas(64) _Atomic uint32_t state;  /* RA_*: futex word the idle thread sleeps on */
	_Atomic bool retire;       /* asked by the caller's thread: hand back for good */
	_Atomic bool retired;      /* the thread handed back for good */
	uint64_t t_start, t_waited; /* the thread's: since it started reading, waiting for room */
	uint32_t t_batches;
	/* the caller's side, with its own copies of what it needs of the
	 * reader's state (whose lines the thread writes) */
	_Alignas(64) uint32_t cur;  /* the batch being delivered: tail */
	uint32_t at;                /* its next entry */
	bool running;               /* the thread owns the reader's state */
	bool swapped;
	unsigned handbacks;
	uint32_t c_batches;         /* batches taken, and the time spent waiting for them */
	uint64_t c_start, c_waited;
	const uint8_t *buf;         /* the input: bytes [0, len) */
	struct pd_attr **attrs;
	char msg[512];              /* the error ending the last batch */
	struct pd_ra_batch ring[PD_RA_BATCHES];
};

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Poll done() for PD_RA_SPIN_NS: true as soon as it is. */
static bool poll_for(struct pd_readahead *ra, bool (*done)(struct pd_readahead *ra, uint32_t v), uint32_t v)
{
	uint64_t start = 0;
	unsigned i;

	for (i = 0;; i++) {
		if (done(ra, v))
			return true;
		if (i % 64 == 0) { /* the clock, now and then: a pause takes 3 to 40 ns, by CPU */
			uint64_t t = pr_now_ns();

			if (!start)
				start = t;
			else if (t - start > PD_RA_SPIN_NS)
				return false;
		}
		pr_cpu_relax();
	}
}

/* The thread does not pay when a side spent more than PD_RA_RETIRE_PCT of
 * its time since start waiting for the other. */
static bool mostly_waited(uint64_t waited, uint64_t start)
{
	return waited > (pr_now_ns() - start) / 100 * PD_RA_RETIRE_PCT;
}

static bool head_moved(struct pd_readahead *ra, uint32_t head)
{
	return atomic_load_explicit(&ra->head, memory_order_acquire) != head;
}

/*
 * The caller's thread waits for the thread to publish a batch past head:
 * it polls a while, then sleeps on the futex, saying so in head_sleeper.
 * The thread stores head, then checks head_sleeper; both sides use
 * sequentially consistent accesses, so one of them sees the other.
 */
static void wait_head(struct pd_readahead *ra, uint32_t head)
{
	if (poll_for(ra, head_moved, head))
		return;
	while (atomic_load(&ra->head) == head) {
		atomic_store(&ra->head_sleeper, 1);
		if (atomic_load(&ra->head) == head)
			futex_wait(&ra->head, head);
		atomic_store(&ra->head_sleeper, 0);
	}
}

static void publish_head(struct pd_readahead *ra, uint32_t head)
{
	atomic_store(&ra->head, head);
	if (atomic_load(&ra->head_sleeper))
		futex_wake(&ra->head);
}

static bool tail_reached(struct pd_readahead *ra, uint32_t upto)
{
	return (int32_t)(atomic_load(&ra->tail) - upto) >= 0 || atomic_load(&ra->state) == RA_STOP;
}

/* The thread waits until the caller's thread has delivered the batches
 * before upto (or it is told to stop), the same way. */
static void wait_tail(struct pd_readahead *ra, uint32_t upto)
{
	if (poll_for(ra, tail_reached, upto))
		return;
	while (!tail_reached(ra, upto)) {
		uint32_t tail;

		atomic_store(&ra->tail_want, upto);
		atomic_store(&ra->tail_sleeper, 1);
		tail = atomic_load(&ra->tail);
		if ((int32_t)(tail - upto) < 0 && atomic_load(&ra->state) != RA_STOP)
			futex_wait(&ra->tail, tail);
		atomic_store(&ra->tail_sleeper, 0);
	}
}

/* The caller's thread has delivered the batches before tail. */
static void publish_tail(struct pd_readahead *ra, uint32_t tail)
{
	atomic_store(&ra->tail, tail);
	if (atomic_load(&ra->tail_sleeper) && (int32_t)(tail - atomic_load(&ra->tail_want)) >= 0)
		futex_wake(&ra->tail);
}

/*
 * Stay off the caller's CPU: the scheduler may move the caller's thread
 * onto the thread's (about one run in four here, when the readahead thread
 * only populated the mapping), and the two then take turns on one CPU.
 * Checked once a batch; a move is one sched_setaffinity() call.
 */
static void avoid_reader_cpu(struct pd_readahead *ra)
{
	int rcpu = atomic_load_explicit(&ra->reader_cpu, memory_order_relaxed);
	cpu_set_t set;

	if (rcpu < 0 || rcpu >= CPU_SETSIZE || rcpu != sched_getcpu())
		return;
	set = ra->cpus;
	CPU_CLR(rcpu, &set);
	if (CPU_COUNT(&set) > 0)
		sched_setaffinity(0, sizeof(set), &set);
}

/* Read records into the next batches until the reader's code says stop. */
static void read_ahead(struct pd_readahead *ra)
{
	struct perfring_perfdata *pd = ra->pd;
	uint32_t head = atomic_load_explicit(&ra->head, memory_order_relaxed);
	struct perfring_perfdata_record rec;
	int r = 1;

	pd->reading_ahead = true;
	while (r == 1) {
		struct pd_ra_batch *b;
		uint32_t n;

		/* room for one more batch */
		for (;;) {
			uint32_t tail = atomic_load_explicit(&ra->tail, memory_order_acquire);

			if (atomic_load_explicit(&ra->state, memory_order_relaxed) == RA_STOP)
				goto out;
			if (head - tail < PD_RA_BATCHES)
				break;
			/* full: wait until half of it is free, to be woken once
			 * for PD_RA_BATCHES / 2 batches, not once for each */
			uint64_t t0 = pr_now_ns();

			wait_tail(ra, head - PD_RA_BATCHES / 2);
			ra->t_waited += pr_now_ns() - t0;
		}
		if (!ra->t_start)
			ra->t_start = pr_now_ns();
		if (++ra->t_batches == PD_RA_JUDGE_BATCHES && mostly_waited(ra->t_waited, ra->t_start))
			atomic_store(&ra->retire, true); /* the caller is far slower: reading is not its cost */
		if (atomic_load_explicit(&ra->retire, memory_order_relaxed))
			r = PD_NEXT_HANDBACK;
		avoid_reader_cpu(ra);
		b = &ra->ring[head % PD_RA_BATCHES];
		b->keep = SIZE_MAX;
		b->early_warn = 0;
		pd->ra_filling = b;
		for (n = 0; r == 1 && n < PD_RA_BATCH; n++) {
			uint64_t a;

			r = pd_next_step(pd, &rec);
			if (r != 1)
				break;
			/* pub is a pd_attr's first member */
			a = rec.attr ? (uint64_t)((const struct pd_attr *)rec.attr)->idx + 1 : 0;
			b->e[n] = rec.offset << PD_RA_ATTR_BITS | a;
			b->keep = rec.offset < b->keep ? rec.offset : b->keep;
		}
		b->n = n;
		if (pd->early_warn) {
			b->early_warn = pd->early_warn;
			pd->early_warn = 0;
		}
		b->result = r;
		if (r < 0)
			snprintf(ra->msg, sizeof(ra->msg), "%s", perfring_errmsg());
		pd->ra_filling = NULL;
		if (r != 1) {
			/* the state goes back to the caller's thread with this
			 * batch: idle first, so that its restart is not undone */
			if (atomic_load_explicit(&ra->retire, memory_order_relaxed))
				atomic_store(&ra->retired, true);
			pd->reading_ahead = false;
			atomic_store(&ra->state, RA_IDLE);
		}
		publish_head(ra, ++head);
	}
	return;
out:
	pd->ra_filling = NULL;
	pd->reading_ahead = false;
}

static void *readahead_main(void *arg)
{
	struct pd_readahead *ra = arg;

	/* what goes wrong here is said by the caller's thread, with the batch */
	pr_log_mute(true);
	for (;;) {
		uint32_t s = atomic_load(&ra->state);

		if (s == RA_STOP)
			break;
		if (s == RA_IDLE) {
			futex_wait(&ra->state, RA_IDLE);
			continue;
		}
		read_ahead(ra);
	}
	return NULL;
}

/*
 * The CPUs the thread may run on: the process's, less the one the caller
 * runs on now; false when that leaves none. Left to itself the scheduler
 * put a new thread on the caller's CPU in about one start in three here.
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

/* Start the thread, idle; NULL (the caller's thread reads alone) when the
 * input is small, there is one CPU, or the thread cannot start. It takes
 * no signal: they stay the caller's. It is named perfring-ra (top -H,
 * ps -L, /proc/PID/task/TID/comm). */
static struct pd_readahead *start(struct perfring_perfdata *pd)
{
	struct pd_readahead *ra;
	pthread_attr_t attr;
	sigset_t sigs, old;
	cpu_set_t all, cpus;
	int err;

	if (pd->in.stream || pd->in.len < PD_RA_MIN_INPUT || pd->in.len >> (64 - PD_RA_ATTR_BITS) ||
	    pd->nr_attrs >= (1 << PD_RA_ATTR_BITS) - 1 || !other_cpus(&all, &cpus))
		return NULL;
	ra = aligned_alloc(64, (sizeof(*ra) + 63) & ~(size_t)63);
	if (!ra)
		return NULL;
	memset(ra, 0, sizeof(*ra));
	ra->pd = pd;
	ra->cpus = all;
	atomic_store(&ra->reader_cpu, -1);
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
	pthread_setname_np(ra->thread, "perfring-ra");
	return ra;
}

/* The thread may read on from pd->pos: the reader is not at its end, and
 * the next record is one the thread reads. */
static bool can_read_ahead(const struct perfring_perfdata *pd)
{
	return !pd->at_eof && pd_next_is_plain(pd);
}

/* The next entry of the batches, or the end of reading ahead: 1 with *rec,
 * PD_NEXT_HANDBACK when the caller's thread reads on, or the result that
 * ended reading (0, or an error, said again here in the caller's thread). */
static int take(struct perfring_perfdata *pd, struct pd_readahead *ra, struct perfring_perfdata_record *rec)
{
	for (;;) {
		struct pd_ra_batch *b = &ra->ring[ra->cur % PD_RA_BATCHES];
		uint32_t head;
		int result;

		if (ra->at == 0) { /* a new batch: wait until it is there */
			head = atomic_load_explicit(&ra->head, memory_order_acquire);
			if (head == ra->cur) {
				uint64_t t0 = pr_now_ns();

				wait_head(ra, head);
				ra->c_waited += pr_now_ns() - t0;
				continue;
			}
			/* the caller mostly waited: it reads faster alone */
			if (++ra->c_batches == PD_RA_JUDGE_BATCHES && mostly_waited(ra->c_waited, ra->c_start))
				atomic_store(&ra->retire, true);
			atomic_store_explicit(&ra->reader_cpu, sched_getcpu(), memory_order_relaxed);
			if (b->early_warn)
				pd_warn_early_flush(pd, b->early_warn - 1);
		}
		if (ra->at < b->n) {
			pd_ra_entry e = b->e[ra->at++];
			unsigned a = e & ((1u << PD_RA_ATTR_BITS) - 1);
			const uint8_t *p = ra->buf + (e >> PD_RA_ATTR_BITS);
			uint32_t type;
			uint16_t misc, size;

			memcpy(&type, p, 4);
			memcpy(&misc, p + 4, 2);
			memcpy(&size, p + 6, 2);
			rec->offset = e >> PD_RA_ATTR_BITS;
			rec->from_compressed = false;
			rec->type = ra->swapped ? __builtin_bswap32(type) : type;
			rec->misc = ra->swapped ? __builtin_bswap16(misc) : misc;
			rec->size = ra->swapped ? __builtin_bswap16(size) : size;
			rec->data = p;
			rec->payload = NULL;
			rec->payload_len = 0;
			rec->attr = a ? &ra->attrs[a - 1]->pub : NULL;
			return 1;
		}
		/* the batch is delivered (its last record is no longer held):
		 * the thread may fill it again, so its result is read first */
		result = b->result;
		ra->at = 0;
		publish_tail(ra, ++ra->cur);
		if (result != 1) {
			ra->running = false;
			if (result < 0)
				return pr_fail(-result, "%s", ra->msg);
			return result;
		}
	}
}

int pd_readahead_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec)
{
	struct pd_readahead *ra = pd->ra;

	if (!ra) { /* started at the first record it can read (one try) */
		if (!can_read_ahead(pd))
			return PD_NEXT_HANDBACK;
		pd->use_ra = false;
		ra = pd->ra = start(pd);
		if (!ra)
			return PD_NEXT_HANDBACK;
	}
	if (!ra->running) {
		if (atomic_load(&ra->retired)) {
			pd_readahead_stop(pd); /* for good: the caller's thread reads alone from here */
			return PD_NEXT_HANDBACK;
		}
		if (ra->handbacks >= PD_RA_MAX_HANDBACKS || !can_read_ahead(pd))
			return PD_NEXT_HANDBACK;
		if (!ra->c_start)
			ra->c_start = pr_now_ns();
		ra->handbacks++;
		ra->running = true;
		ra->buf = pd->in.buf;
		ra->attrs = pd->attrs; /* the caller's thread may have added one meanwhile */
		ra->swapped = pd->swapped;
		atomic_store(&ra->state, RA_RUN); /* the reader's state is the thread's now */
		futex_wake(&ra->state);
	}
	return take(pd, ra, rec);
}

/* The lowest input offset the batches not yet delivered (and the one being
 * filled) point at; called by the thread while it reads. */
size_t pd_ra_held(const struct perfring_perfdata *pd)
{
	const struct pd_readahead *ra = pd->ra;
	uint32_t head = atomic_load_explicit(&ra->head, memory_order_relaxed);
	uint32_t i = atomic_load_explicit(&ra->tail, memory_order_acquire);
	size_t keep = SIZE_MAX;

	for (; i != head; i++)
		if (ra->ring[i % PD_RA_BATCHES].keep < keep)
			keep = ra->ring[i % PD_RA_BATCHES].keep;
	if (pd->ra_filling && pd->ra_filling->keep < keep)
		keep = pd->ra_filling->keep;
	return keep;
}

void pd_readahead_stop(struct perfring_perfdata *pd)
{
	struct pd_readahead *ra = pd->ra;

	if (!ra)
		return;
	atomic_store(&ra->state, RA_STOP);
	futex_wake(&ra->state);
	futex_wake(&ra->tail);
	pthread_join(ra->thread, NULL);
	free(ra);
	pd->ra = NULL;
}

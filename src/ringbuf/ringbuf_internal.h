/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF ring buffer's state and its record walk, shared by ringbuf.c and
 * the reader (reader_ringbuf_drain.c), which delivers records without an extra
 * indirect call per record: pr_rb_walk() is inlined with the caller's
 * deliver function. Not installed.
 */
#ifndef PERFRING_RINGBUF_INTERNAL_H
#define PERFRING_RINGBUF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/ringbuf.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "common/prefetch.h"

#define PR_RB_BUSY (1u << 31)
#define PR_RB_DISCARD (1u << 30)
#define PR_RB_HDR 8u

struct perfring_ringbuf {
	/* Read on every record. */
	const uint8_t *data; /* the data area (mapped twice after it) */
	uint64_t mask;       /* data_size - 1 */
	uint64_t cons;       /* our consumer position (only the consuming thread
			      * writes it; other threads read it with
			      * pr_rb_cons(): pending, stats, accessors) */
	volatile uint64_t *consumer_pos;
	const volatile uint64_t *producer_pos;

	uint64_t data_size;
	uint64_t error_offset;
	size_t budget;       /* per drain in a reader, 0: none */
	int fd;              /* our dup of the map fd, -1 for memory */
	int lost_fd;         /* our dup of the lost map, -1: none */
	bool per_cpu;
	int cpu;
	uint64_t lost_seen;  /* lost count already reported (reader) */
	uint64_t lost_check_ns;
	void *cons_map;      /* our mmaps, NULL for memory */
	void *prod_map;
	size_t prod_len;
	size_t page_size;
	struct perfring_ring_stats stats; /* relaxed atomics */
	uint64_t discarded;  /* DISCARD records skipped */

	/* Overwrite rings (BPF_F_RB_OVERWRITE, ringbuf_overwrite.c). cons is
	 * then the producer position up to which records were seen (read, or
	 * dropped), also stored in consumer_pos. */
	bool overwrite;
	const volatile uint64_t *overwrite_pos; /* in the producer page */
	struct pr_rb_ow_rec *ow;  /* the snapshot's records, oldest first */
	size_t ow_cap;            /* entries allocated in ow */
	size_t ow_n;              /* records of the snapshot not yet delivered: ow[0..ow_n) */
	uint64_t ow_lo;           /* the snapshot's oldest position (ow[].off is relative to it) */
	uint64_t ow_prod;         /* producer_pos when the snapshot was taken */
	uint64_t *ow_copy;        /* the copy of the record being delivered */
	size_t ow_copy_cap;       /* its size in 8-byte words */
};

/* One record of an overwrite snapshot: its offset from ow_lo and its length
 * word as the walk read it (DISCARD bit kept, BUSY never set). */
struct pr_rb_ow_rec {
	uint32_t off;
	uint32_t len;
};

/*
 * Where the kernel keeps the producer-side positions in the producer page
 * (struct bpf_ringbuf of kernel/bpf/ringbuf.c, Linux 6.19: producer_pos,
 * pending_pos, overwrite_pos, each an unsigned long, 8 bytes on the 64-bit
 * kernels we run on), in bytes from the page's start.
 */
#define PR_RB_PENDING_POS_OFF 8u
#define PR_RB_OVERWRITE_POS_OFF 16u

/* The length word at p, for messages. */
static inline uint32_t len_word_at(const uint8_t *p)
{
	return pr_rb_load_len((const volatile uint32_t *)p);
}

/* Report a corrupt length word at pos; counts it (ringbuf_cursor.c). */
int pr_rb_corrupt(struct perfring_ringbuf *rb, uint64_t pos, const char *why);

/* Store consumer_pos after a walk from start to pos that delivered n records. */
static inline void pr_rb_commit(struct perfring_ringbuf *rb, uint64_t start, uint64_t pos, int n)
{
	if (pos == start)
		return;
	__atomic_store_n(&rb->cons, pos, __ATOMIC_RELAXED);
	pr_rb_store_consumer(rb->consumer_pos, pos);
	pr_counter_add(&rb->stats.records, (uint64_t)n);
	pr_counter_add(&rb->stats.bytes, pos - start);
}

/*
 * Walk the records from our consumer position to producer_pos: deliver()
 * each (PERFRING_CONTINUE, PERFRING_STOP: consumed and stop, < 0: not
 * consumed, stop), at most budget (0: no limit). consumer_pos is stored once.
 * Returns the count delivered, the callback's error, or -PERFRING_ECORRUPT.
 * *stopped tells a PERFRING_STOP.
 */
typedef int (*pr_rb_deliver_fn)(void *arg, const void *data, uint32_t len, uint64_t remaining);

static inline __attribute__((always_inline)) int pr_rb_walk_impl(struct perfring_ringbuf *rb, size_t budget,
								  pr_rb_deliver_fn deliver, void *arg, bool *stopped)
{
	const uint64_t start = rb->cons;
	const uint64_t prod = pr_rb_load_producer(rb->producer_pos);
	const uint8_t *p, *end, *next;
	size_t n = 0;
	int ret = 0;

	if (PR_UNLIKELY(prod - start > rb->data_size))
		return pr_rb_corrupt(rb, start, "producer_pos is more than the ring size ahead of consumer_pos");
	if (PR_UNLIKELY(start & 7))
		return pr_rb_corrupt(rb, start, "consumer_pos is not 8-byte aligned");
	/* The data area is mapped twice in a row: from an offset inside the
	 * first copy, the at most data_size bytes of a batch stay inside the
	 * two, so the walk never wraps and a record is never split. */
	p = rb->data + (start & rb->mask);
	end = p + (prod - start);
	while (p != end) {
		uint32_t len = pr_rb_load_len((const volatile uint32_t *)p);

		if (PR_UNLIKELY(len & (PR_RB_BUSY | PR_RB_DISCARD))) {
			if (len & PR_RB_BUSY)
				break; /* reserved, not yet submitted: the rest waits */
			next = p + (((uint64_t)(len & ~PR_RB_DISCARD) + PR_RB_HDR + 7) & ~(uint64_t)7);
			if (PR_UNLIKELY(next > end))
				goto corrupt;
			p = next;
			rb->discarded++;
			continue;
		}
		next = p + (((uint64_t)len + PR_RB_HDR + 7) & ~(uint64_t)7);
		if (PR_UNLIKELY(next > end))
			goto corrupt;
		pr_prefetch_ahead(p, end);
		ret = deliver(arg, p + PR_RB_HDR, len, (uint64_t)(end - next));
		if (PR_UNLIKELY(ret)) {
			if (ret < 0)
				break; /* not consumed: delivered again next time */
			p = next;
			n++;
			*stopped = true;
			ret = 0;
			break;
		}
		p = next;
		n++;
		if (budget && PR_UNLIKELY(n == budget))
			break;
	}
	pr_rb_commit(rb, start, prod - (uint64_t)(end - p), (int)n);
	return ret < 0 ? ret : (int)n;
corrupt:
	pr_rb_commit(rb, start, prod - (uint64_t)(end - p), (int)n);
	return pr_rb_corrupt(rb, prod - (uint64_t)(end - p),
			     (uint64_t)((len_word_at(p) & ~PR_RB_DISCARD) + PR_RB_HDR) > rb->data_size ?
				     "a record longer than the ring" :
				     "a record reaching beyond producer_pos");
}

/* The walk, specialised for no budget (the common drain) and a budget. */
static inline __attribute__((always_inline)) int pr_rb_walk(struct perfring_ringbuf *rb, size_t budget,
							     pr_rb_deliver_fn deliver, void *arg, bool *stopped)
{
	if (!budget)
		return pr_rb_walk_impl(rb, 0, deliver, arg, stopped);
	return pr_rb_walk_impl(rb, budget, deliver, arg, stopped);
}

/* Our consumer position, from any thread. */
static inline uint64_t pr_rb_cons(const struct perfring_ringbuf *rb)
{
	return __atomic_load_n(&rb->cons, __ATOMIC_RELAXED);
}

/* Unread bytes, no syscall; from any thread. */
static inline uint64_t pr_rb_avail(const struct perfring_ringbuf *rb)
{
	return pr_rb_load_producer(rb->producer_pos) - pr_rb_cons(rb);
}

/*
 * Overwrite rings: deliver the records of a snapshot newest first, at most
 * budget (0: no limit), each as a copy checked against the producer after
 * it was taken. A new snapshot is taken when none is pending, or when one
 * is pending but producer_pos moved since it was taken and keep_rest is
 * false (its older rest is then dropped, as an overwrite perf ring does).
 * Returns the count delivered, the callback's error (that record stays
 * pending), -PERFRING_ECORRUPT, -ENOMEM, or -EAGAIN; *stopped tells a
 * PERFRING_STOP.
 */
int pr_rb_ow_read(struct perfring_ringbuf *rb, size_t budget, pr_rb_deliver_fn deliver, void *arg, bool *stopped,
		  bool keep_rest);

/* Overwrite rings: whether a read would deliver something now (no syscall). */
bool pr_rb_ow_has_data(const struct perfring_ringbuf *rb);

/* Overwrite rings: bytes written since the last snapshot, capped at the
 * data area, plus the snapshot's undelivered rest. */
uint64_t pr_rb_ow_avail(const struct perfring_ringbuf *rb);

/* Overwrite rings: drop the pending snapshot and everything written so far. */
uint64_t pr_rb_ow_discard(struct perfring_ringbuf *rb);

/* The lost map's count for this ring (syscall). 0 or -errno (no message). */
int pr_rb_read_lost(struct perfring_ringbuf *rb, uint64_t *lost);

#endif /* PERFRING_RINGBUF_INTERNAL_H */

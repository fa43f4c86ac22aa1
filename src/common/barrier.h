/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Memory ordering of the perf ring protocol, in one place.
 *
 * The kernel (kernel/events/ring_buffer.c, perf_output_put_handle()) writes
 * the record bytes, then issues smp_wmb() and stores data_head. Its comment
 * pairs that barrier with the reader's:
 *
 *   kernel                             user
 *   if (LOAD ->data_tail) {            LOAD ->data_head
 *                      (A)             smp_rmb()       (C)
 *      STORE $data                     LOAD $data
 *      smp_wmb()       (B)             smp_mb()        (D)
 *      STORE ->data_head               STORE ->data_tail
 *   }
 *
 * (C) is our acquire load of data_head: no read of record bytes may be
 * hoisted above it. (D) is our release store of data_tail: every read of
 * the record bytes completes before the kernel can see the space as free
 * and overwrite it. (A) on the kernel side is a control dependency.
 */
#ifndef PERFRING_BARRIER_H
#define PERFRING_BARRIER_H

#include <stdint.h>
#include <linux/types.h>

/* Pairs with the kernel's smp_wmb() (B) before it stores data_head. */
static inline uint64_t pr_load_head(const volatile __u64 *head)
{
	return __atomic_load_n(head, __ATOMIC_ACQUIRE);
}

/* Pairs with the kernel's read of data_tail (A): our reads of the records
 * happen before the kernel may reuse the space. */
static inline void pr_store_tail(volatile __u64 *tail, uint64_t value)
{
	__atomic_store_n(tail, value, __ATOMIC_RELEASE);
}

/* A plain read of our own last committed tail (only we write it). */
static inline uint64_t pr_load_tail(const volatile __u64 *tail)
{
	return __atomic_load_n(tail, __ATOMIC_RELAXED);
}

/* Counters updated by the consuming thread and read by any thread. */
static inline void pr_counter_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline uint64_t pr_counter_get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/*
 * Memory ordering of the BPF ring buffer (BPF_MAP_TYPE_RINGBUF), paired
 * with kernel/bpf/ringbuf.c:
 *
 *   kernel (producer)                      user (consumer)
 *   __bpf_ringbuf_reserve():               LOAD-ACQUIRE producer_pos   (G)
 *     hdr->len = size | BUSY               for each record at cons:
 *     smp_store_release(producer_pos) (E)    LOAD-ACQUIRE hdr->len     (H)
 *   bpf_ringbuf_commit():                    BUSY: stop; DISCARD: skip
 *     xchg(&hdr->len, size [| DISCARD]) (F)  LOAD $data
 *     smp_load_acquire(consumer_pos)  (J)  STORE-RELEASE consumer_pos   (K)
 *     == rec_pos: wake the consumer        ...before sleeping:
 *                                          FULL BARRIER                (S)
 *                                          LOAD producer_pos/len again
 *
 * (G) pairs with (E): the BUSY header of every reserved record is visible
 * before the position that covers it. (H) pairs with (F): the payload the
 * program wrote before its commit is visible once the BUSY bit is seen
 * clear. (K) is a release store: our reads of the batch complete before
 * the kernel may reuse the space, pairing with (J). (S) is a full barrier
 * between our last store of consumer_pos and the check of producer_pos/len
 * that decides to sleep, as (F) is between the kernel's store of len and
 * its load of consumer_pos (J). Without it both sides can miss each
 * other's store (store buffering): the kernel sees the old consumer_pos
 * and sends no wakeup while we see the record still BUSY and go to sleep
 * with data pending. (S) sits in the check (pr_rb_fence_before_check(),
 * called by the reader's data check and perfring_ringbuf_bytes_available()),
 * not in (K): a sequentially consistent store there (an xchg on x86) waits
 * at every batch for the cache line that the producer reads at every
 * reservation, which cost a back-to-back consumer about 30 ns per batch
 * (bench/ringbuf.c live --threshold 8); a consumer that is draining needs
 * no wakeup. We store once per batch, not per record as libbpf does: the
 * kernel only compares consumer_pos with the position of the record it
 * commits, so a later store only delays a wakeup that the reader, awake
 * and draining, does not need.
 */
static inline uint64_t pr_rb_load_producer(const volatile uint64_t *producer_pos)
{
	return __atomic_load_n(producer_pos, __ATOMIC_ACQUIRE);
}

static inline uint32_t pr_rb_load_len(const volatile uint32_t *len)
{
	return __atomic_load_n(len, __ATOMIC_ACQUIRE);
}

static inline void pr_rb_store_consumer(volatile uint64_t *consumer_pos, uint64_t value)
{
	__atomic_store_n(consumer_pos, value, __ATOMIC_RELEASE);
}

/* (S): before loading producer_pos/len to decide whether to sleep. GCC's
 * TSan does not model fences (and warns): a sequentially consistent
 * read-modify-write is a full barrier too (a locked instruction on x86). */
static inline void pr_rb_fence_before_check(void)
{
#if defined(__SANITIZE_THREAD__)
	uint64_t x = 0;

	__atomic_fetch_add(&x, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * Overwrite ring buffers (map flag BPF_F_RB_OVERWRITE, Linux 6.19), paired
 * with __bpf_ringbuf_reserve() of kernel/bpf/ringbuf.c in that mode. The
 * producer never waits for consumer_pos: when a new record does not fit,
 * it first moves overwrite_pos (the oldest record not overwritten, always
 * a record boundary, in the producer page after pending_pos) past as many
 * whole old records as needed, then writes the new header over them:
 *
 *   kernel (producer, under its lock)        user (reader, ringbuf_overwrite.c)
 *   over = overwrite_pos                     LOAD-ACQUIRE producer_pos     (G)
 *   while new_prod - over > mask:            LOAD-ACQUIRE overwrite_pos    (L)
 *     over += round_up(len(over) + 8, 8)     walk [max(cons, over), prod):
 *   WRITE_ONCE(overwrite_pos, over)   (M)      LOAD-ACQUIRE hdr->len       (H)
 *   hdr->len = size | BUSY                   LOAD-ACQUIRE overwrite_pos    (N)
 *   smp_store_release(producer_pos)   (E)    per record, newest first:
 *   program writes the payload                 LOAD-ACQUIRE words: copy    (P)
 *   xchg(&hdr->len, size)             (F)      LOAD-ACQUIRE overwrite_pos,
 *                                                producer_pos              (N)
 *
 * (L) after (G) pairs with (M) before (E): the overwrite_pos we read is at
 * least the one that goes with the producer_pos we read, so the walk starts
 * on a live record boundary. It may be newer still (a fast producer between
 * the two loads): overwrite_pos then lies beyond producer_pos and we load
 * both again (a bounded number of times). (H) pairs with (F) as in the
 * forward ring. Everything else is seqlock-style: the record bytes we read,
 * length words (H) and copies (P), count only if overwrite_pos, loaded
 * after them (N), has not passed the record: the producer moves it (M)
 * before it writes a byte of the new record over an old one, and every
 * load before (N) is an acquire load, so none of them can be satisfied
 * later than (N). A record that fails the check is reported as dropped
 * (dropped_bytes), never delivered. The copy is what the callback gets:
 * the ring's bytes may change under a zero-copy view at any time.
 *
 * What we rely on beyond C11: the kernel issues no barrier between (M) and
 * its stores of the new record (the header store right after it, the
 * program's payload stores after (E), which a release does not hold
 * back). On x86 (TSO) stores become visible in program order, so the
 * check is exact; on weakly ordered CPUs a byte of a new record can in
 * principle become visible before (M), and a record torn in that window
 * would pass the check. Lengths are still validated against the snapshot
 * and the ring size, so no read leaves the mapping either way. The
 * in-memory producer of the tests issues a release fence between the two,
 * as C11 needs.
 */
static inline uint64_t pr_rb_load_overwrite(const volatile uint64_t *overwrite_pos)
{
	return __atomic_load_n(overwrite_pos, __ATOMIC_ACQUIRE);
}

/* Copy n 8-byte words out of a ring the producer may be overwriting (P):
 * acquire loads, so that the check that follows cannot pass before them
 * (and the copy is no data race for TSan). On x86 these are plain loads. */
static inline void pr_rb_copy_words(uint64_t *dst, const volatile uint64_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_ACQUIRE);
}

#endif /* PERFRING_BARRIER_H */

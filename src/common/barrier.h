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

#endif /* PERFRING_BARRIER_H */

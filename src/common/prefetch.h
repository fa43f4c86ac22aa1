/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prefetching ahead in a ring walk, shared by the BPF ring buffer's walk
 * (ringbuf_internal.h) and the perf ring drains (ring.c, reader_drain.c,
 * reader_samples.c). Not installed; the public inline cursors (ring.h,
 * ringbuf.h) use the same distance as a literal.
 *
 * Each record's address comes from the header before it, so the loads of
 * a walk wait one after another and a cache miss stalls it; the hardware
 * prefetcher stops at page ends. Measured on the project's VM
 * (bench/ringbuf.c drain and live): 512 bytes gave most of the gain, 2 KiB
 * a little more, 4 KiB no more.
 */
#ifndef PERFRING_PREFETCH_H
#define PERFRING_PREFETCH_H

#include <stdint.h>

#define PR_PREFETCH_AHEAD 2048u

/*
 * Ask for the line PR_PREFETCH_AHEAD bytes past p if it lies before end,
 * the end of what the walk may read (the batch's end: past it the producer
 * is writing, and its next line is not ours to pull over). A prefetch
 * cannot fault, but it would still move that line away from the producer.
 */
static inline __attribute__((always_inline)) void pr_prefetch_ahead(const void *p, const void *end)
{
	if ((uintptr_t)end - (uintptr_t)p > PR_PREFETCH_AHEAD)
		__builtin_prefetch((const uint8_t *)p + PR_PREFETCH_AHEAD);
}

#endif /* PERFRING_PREFETCH_H */

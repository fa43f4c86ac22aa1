/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Count heap allocations while a measured phase runs, to check that a
 * reader allocates nothing per record in steady state.
 *
 * The benchmark binary defines malloc() and friends itself, forwarding to
 * glibc's __libc_*: the static libperfring.a resolves to them at link time
 * and libbpf.so through symbol interposition, so both readers are counted.
 * Include this header from exactly one .c file of a binary. Sanitizer builds
 * have their own allocator: there the counter is absent and
 * bench_allocs_supported() is false.
 */
#ifndef PERFRING_BENCH_ALLOC_COUNT_H
#define PERFRING_BENCH_ALLOC_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define BENCH_COUNT_ALLOCS 1
#endif

static uint64_t bench_alloc_calls;
static int bench_alloc_counting;

#ifdef BENCH_COUNT_ALLOCS
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static inline void bench_alloc_note(void)
{
	if (__atomic_load_n(&bench_alloc_counting, __ATOMIC_RELAXED))
		__atomic_fetch_add(&bench_alloc_calls, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size)
{
	bench_alloc_note();
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	bench_alloc_note();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	bench_alloc_note();
	return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	bench_alloc_note();
	p = __libc_memalign(align, size);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	bench_alloc_note();
	return __libc_memalign(align, size);
}
#endif

static inline bool bench_allocs_supported(void)
{
#ifdef BENCH_COUNT_ALLOCS
	return true;
#else
	return false;
#endif
}

/* Start counting from zero. */
static inline void bench_allocs_start(void)
{
	__atomic_store_n(&bench_alloc_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&bench_alloc_counting, 1, __ATOMIC_RELAXED);
}

/* Stop counting; returns the number of allocation calls since the start. */
static inline uint64_t bench_allocs_stop(void)
{
	__atomic_store_n(&bench_alloc_counting, 0, __ATOMIC_RELAXED);
	return __atomic_load_n(&bench_alloc_calls, __ATOMIC_RELAXED);
}

#endif /* PERFRING_BENCH_ALLOC_COUNT_H */

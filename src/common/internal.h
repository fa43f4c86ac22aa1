/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal helpers shared by every perfring source file. Not installed. */
#ifndef PERFRING_INTERNAL_H
#define PERFRING_INTERNAL_H

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <perfring/common.h>

#include "common/alloc.h"

#define PR_LIKELY(x) __builtin_expect(!!(x), 1)
#define PR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Record a failure: formats the message into the calling thread's
 * perfring_errmsg() buffer, passes it to the log callback at ERROR level,
 * and returns -err (err given positive, errno or PERFRING_E*), so that
 * callers can write `return pr_fail(EINVAL, "...", ...);`.
 */
int pr_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same for constructors: sets errno = err and returns NULL. */
void *pr_fail_null(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Return NULL with errno = err, keeping the message a callee already set. */
static inline void *pr_errno_null(int err)
{
	errno = err;
	return (void *)0;
}

/* A CPU list (perfring_online_cpus or perfring_possible_cpus) in a new
 * array the caller frees. Returns the count or a negative error. */
int pr_cpu_list_alloc(int (*list)(int *cpus, size_t cnt), int **out);

/* Log a message that is not a failure (e.g. a skipped offline CPU). */
void pr_log(enum perfring_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keep the calling thread's messages (errors too) from the log callback: a
 * library thread's, which the caller's thread says again where it applies.
 * perfring_errmsg() is still set. */
void pr_log_mute(bool mute);

/* CLOCK_MONOTONIC in ns: the reader's waits and drains, the perf.data
 * readahead thread's polls. */
static inline uint64_t pr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A spinning wait's pause: kinder to the other hardware thread of the core. */
static inline void pr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Options structs: the size the caller's binary knows (0 for NULL opts),
 * checked so that bytes the library does not know are zero (a newer
 * caller asking for something this library cannot do). Returns 0 or
 * -EINVAL. */
int pr_opts_check(const void *opts, size_t caller_sz, size_t known_sz, const char *type_name);

/* Read field of opts if the caller's struct is large enough to hold it. */
#define PR_OPT(opts, field, def)                                                          \
	(((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field)) \
		 ? (opts)->field                                                          \
		 : (def))

#endif /* PERFRING_INTERNAL_H */

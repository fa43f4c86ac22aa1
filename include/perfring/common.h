/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring: errors, logging and version.
 *
 * Conventions used by every perfring header:
 *  - functions returning int give 0 (or a count) on success and a negative
 *    errno value, or a negative PERFRING_E* value, on failure;
 *  - constructors returning a pointer give NULL and set errno;
 *  - the library never prints: a detailed message for the last failure of the
 *    calling thread is available from perfring_errmsg(), and every message is
 *    also passed to the log callback, if one is installed;
 *  - option structs start with their own size (`sz`), set it with
 *    PERFRING_OPTS_INIT; a NULL options pointer means defaults.
 */
#ifndef PERFRING_COMMON_H
#define PERFRING_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PERFRING_VERSION_MAJOR 0
#define PERFRING_VERSION_MINOR 1
#define PERFRING_VERSION_PATCH 0

#if defined(__GNUC__) && !defined(PERFRING_NO_VISIBILITY)
#define PERFRING_API __attribute__((visibility("default")))
#else
#define PERFRING_API
#endif

/*
 * Library-specific error codes. They are returned negated, like errno
 * values, and lie above the errno range so that the two never collide.
 */
enum perfring_error {
	PERFRING_ERR_BASE = 4000,
	/* The ring's contents violate the perf ring protocol (a record header
	 * with size 0, not a multiple of 8, or reaching beyond head). The offset
	 * of the bad header is reported by perfring_ring_error_offset(). */
	PERFRING_ECORRUPT = PERFRING_ERR_BASE + 1,
	/* perfring_reader_flush() was called: everything written before the
	 * flush has been delivered. Reported once per flush. */
	PERFRING_EFLUSHED = PERFRING_ERR_BASE + 2,
	/* The reader was closed with perfring_reader_close(). */
	PERFRING_ECLOSED = PERFRING_ERR_BASE + 3,
	/* A blocking call was interrupted by perfring_reader_wakeup(). */
	PERFRING_EWOKEN = PERFRING_ERR_BASE + 4,
	/* The caller's record callback asked to stop with an error. */
	PERFRING_ECALLBACK = PERFRING_ERR_BASE + 5,
	/* Record layer: the record ends before a field it must hold (the field
	 * is named in perfring_errmsg()). */
	PERFRING_ETRUNC = PERFRING_ERR_BASE + 20,
	/* Record layer: a field holds an impossible value: a size below the
	 * minimum, a count larger than the bytes left, a string without its
	 * NUL, bytes left over after the last field (the field is named). */
	PERFRING_EBADREC = PERFRING_ERR_BASE + 21,
	PERFRING_ERR_MAX
};

/* A static string describing err (negative or positive errno or PERFRING_E*). */
PERFRING_API const char *perfring_strerror(int err);

/*
 * The detailed message of the last failure in the calling thread, saying
 * what was wrong and what to do (e.g. which sysctl or capability a
 * permission error needs). Valid until the next perfring call in this thread
 * fails. Never NULL; empty when nothing failed yet.
 */
PERFRING_API const char *perfring_errmsg(void);

enum perfring_log_level {
	PERFRING_LOG_ERROR = 0,
	PERFRING_LOG_WARN = 1,
	PERFRING_LOG_INFO = 2,
	PERFRING_LOG_DEBUG = 3,
};

typedef void (*perfring_log_fn)(enum perfring_log_level level, const char *msg, void *ctx);

/*
 * Install a process-wide log callback (NULL removes it). Messages up to and
 * including max_level are passed. The callback may be called from any thread
 * that calls into perfring. Not thread-safe against concurrent calls of
 * itself; set it once at start-up.
 */
PERFRING_API void perfring_set_log(perfring_log_fn fn, enum perfring_log_level max_level, void *ctx);

/* "MAJOR.MINOR.PATCH" of the library actually linked. */
PERFRING_API const char *perfring_version(void);

/* Initialise an options struct of the given type: sets sz, zeroes the rest. */
#define PERFRING_OPTS_INIT(type, ...) \
	((struct type){ .sz = sizeof(struct type), __VA_ARGS__ })

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_COMMON_H */

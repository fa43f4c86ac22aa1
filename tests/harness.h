/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small test harness: each test binary is a set of TEST()s.
 *
 *   TEST(ring_empty) { CHECK(x == 1); REQUIRE(p != NULL); SKIP("needs root"); }
 *
 * Output, one line per test: "ok NAME", "FAIL NAME: file:line: message",
 * "skip NAME: reason", then "N passed, N failed, N skipped".
 * Exit status is 1 when any test failed. Each test runs under a watchdog
 * (HARNESS_TIMEOUT seconds, default 120): a hang is a failure, not a stall.
 * `prog NAME...` runs only the tests whose name contains one of the NAMEs.
 */
#ifndef PERFRING_TEST_HARNESS_H
#define PERFRING_TEST_HARNESS_H

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The file descriptors this process has open (entries of /proc/self/fd, not counting the one
 * that reads it), or -1: compared before and after a call, it finds a leaked fd. */
static inline int th_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/* Clock c's time in nanoseconds (0 when the clock cannot be read). */
static inline uint64_t th_clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

typedef void (*th_fn)(void);

struct th_test {
	const char *name;
	th_fn fn;
};

static struct th_test th_tests[512];
static int th_ntests;
static int th_failed_now;
static int th_skipped_now;
static const char *th_current;

static void th_register(const char *name, th_fn fn)
{
	if (th_ntests < (int)(sizeof(th_tests) / sizeof(th_tests[0])))
		th_tests[th_ntests++] = (struct th_test){ name, fn };
}

#define TEST(name)                                                        \
	static void name(void);                                           \
	__attribute__((constructor)) static void th_reg_##name(void)      \
	{                                                                 \
		th_register(#name, name);                                 \
	}                                                                 \
	static void name(void)

__attribute__((format(printf, 3, 4))) static void th_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (!th_failed_now)
		printf("FAIL %s: ", th_current);
	else
		printf("     %s: ", th_current);
	printf("%s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	th_failed_now++;
}

/* CHECK records a failure and goes on; REQUIRE returns from the test. */
#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond))                                             \
			th_fail(__FILE__, __LINE__, "check failed: %s", #cond); \
	} while (0)
#define CHECKF(cond, ...)                                                \
	do {                                                             \
		if (!(cond))                                             \
			th_fail(__FILE__, __LINE__, __VA_ARGS__);        \
	} while (0)
#define REQUIRE(cond)                                                    \
	do {                                                             \
		if (!(cond)) {                                           \
			th_fail(__FILE__, __LINE__, "required: %s", #cond); \
			return;                                          \
		}                                                        \
	} while (0)
#define REQUIREF(cond, ...)                                              \
	do {                                                             \
		if (!(cond)) {                                           \
			th_fail(__FILE__, __LINE__, __VA_ARGS__);        \
			return;                                          \
		}                                                        \
	} while (0)
#define CHECK_EQ_U64(a, b)                                                                     \
	do {                                                                                   \
		uint64_t th_a = (uint64_t)(a), th_b = (uint64_t)(b);                           \
		if (th_a != th_b)                                                              \
			th_fail(__FILE__, __LINE__, "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, \
				th_a, th_b);                                                   \
	} while (0)
#define CHECK_EQ_INT(a, b)                                                                          \
	do {                                                                                        \
		long long th_a = (long long)(a), th_b = (long long)(b);                             \
		if (th_a != th_b)                                                                   \
			th_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, th_a, th_b);  \
	} while (0)

/* Skip the current test, naming the reason. */
#define SKIP(...)                                   \
	do {                                        \
		printf("skip %s: ", th_current);    \
		printf(__VA_ARGS__);                \
		printf("\n");                       \
		fflush(stdout);                     \
		th_skipped_now = 1;                 \
		return;                             \
	} while (0)

static void th_watchdog(int sig)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "FAIL %s: timed out (watchdog)\n", th_current ? th_current : "?");

	(void)sig;
	if (write(1, msg, (size_t)n) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

static int th_selected(int argc, char **argv, const char *name)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0, i;
	const char *t = getenv("HARNESS_TIMEOUT");
	unsigned timeout = t ? (unsigned)atoi(t) : 120;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, th_watchdog);
	for (i = 0; i < th_ntests; i++) {
		if (!th_selected(argc, argv, th_tests[i].name))
			continue;
		th_current = th_tests[i].name;
		th_failed_now = 0;
		th_skipped_now = 0;
		alarm(timeout);
		th_tests[i].fn();
		alarm(0);
		if (th_failed_now)
			failed++;
		else if (th_skipped_now)
			skipped++;
		else {
			passed++;
			printf("ok %s\n", th_current);
		}
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

#endif /* PERFRING_TEST_HARNESS_H */

/*
 * The fault-injection sweep shared by the fault_* tests: run a scenario once
 * cleanly to count its calls, then once per call N with call N failing
 * (tests/unit/fault.h), and check that every run that fails returns a
 * negative error with perfring_errmsg() set afresh. A run whose failed call
 * was retried or not needed may succeed (counted as recovered).
 */
#ifndef PERFRING_TEST_FAULT_SWEEP_H
#define PERFRING_TEST_FAULT_SWEEP_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/ring.h>

#include "harness.h"
#include "unit/fault.h"

static char fault_sentinel[256];

/* Set perfring_errmsg() to a known message (a failed call with a NULL
 * argument), so that a failure that leaves it alone is seen. */
static inline void fault_errmsg_mark(void)
{
	perfring_ring_fd(NULL);
	snprintf(fault_sentinel, sizeof(fault_sentinel), "%s", perfring_errmsg());
}

static inline bool fault_errmsg_fresh(void)
{
	const char *m = perfring_errmsg();

	return m && *m && strcmp(m, fault_sentinel) != 0;
}

/* Run sc for every N; prepare (may be NULL) runs before each run. */
static inline void fault_sweep(const char *name, int (*sc)(void), void (*prepare)(void))
{
	unsigned long total, n, failed = 0, survived = 0;
	int ret;

	if (prepare)
		prepare();
	fault_start(0);
	ret = sc();
	total = fault_stop();
	REQUIREF(ret == 0, "%s: clean run failed: %d %s", name, ret, perfring_errmsg());
	REQUIREF(total > 0, "%s: no call counted (is --wrap in effect?)", name);
	for (n = 1; n <= total; n++) {
		if (prepare)
			prepare();
		fault_errmsg_mark();
		errno = 0;
		fault_start(n);
		ret = sc();
		fault_stop();
		if (!fault_what)
			continue; /* this run made fewer calls */
		if (ret == 0) {
			survived++;
			continue;
		}
		failed++;
		CHECKF(ret < 0, "%s: call %lu (%s) failed: returned %d", name, n, fault_what, ret);
		CHECKF(fault_errmsg_fresh(), "%s: call %lu (%s) failed: ret %d, errmsg not set (still \"%s\")", name, n,
		       fault_what, ret, perfring_errmsg());
		if (getenv("FAULT_VERBOSE"))
			fprintf(stderr, "%s #%lu %s: %d %s\n", name, n, fault_what, ret, perfring_errmsg());
	}
	fprintf(stderr, "# %s: %lu calls, %lu failed cleanly, %lu recovered\n", name, total, failed, survived);
}

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command name of each thread, as perf keeps it (struct thread's comm):
 * by tid, set by COMM records, inherited by FORK from the parent thread.
 * The process model (perfring_procs) names processes; perf script and perf
 * report name the sampled thread, which may have renamed itself.
 */
#ifndef PERFRING_TOOL_ANS_THREADS_H
#define PERFRING_TOOL_ANS_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include <perfring/record.h>

struct ans_threads;

struct ans_threads *ans_threads_new(void);
void ans_threads_free(struct ans_threads *t);

/* Update from a decoded COMM or FORK record (others are ignored). 0 or -ENOMEM. */
int ans_threads_feed(struct ans_threads *t, const struct perfring_decoded *d);

/* The name of tid; NULL when no record named it. Valid until the next feed. */
const char *ans_threads_comm(const struct ans_threads *t, uint32_t tid);

#endif

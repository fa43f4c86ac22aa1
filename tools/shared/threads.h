/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The command name of each thread, as perf keeps it (struct thread's comm):
 * by tid, set by COMM records, inherited by FORK from the parent thread.
 * The process model (perfring_procs) names processes; perf script and perf
 * report name the sampled thread, which may have renamed itself.
 */
#ifndef PERFRING_TOOL_THREADS_H
#define PERFRING_TOOL_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include <perfring/record.h>

struct threads;

/* TASK_COMM_LEN is 16; a longer name in a hostile file is cut. */
#define THREADS_COMM_MAX 32

/* A thread (tid, and its generation: FORKs of the tid) first named comm. */
struct comm_rename {
	uint32_t tid, gen;
	char comm[THREADS_COMM_MAX];
};

struct threads *threads_new(void);
void threads_free(struct threads *t);

/* Update from a decoded COMM or FORK record (others are ignored). 0 or -ENOMEM. */
int threads_feed(struct threads *t, const struct perfring_decoded *d);

/* The name of tid; NULL when no record named it. Valid until the next feed. */
const char *threads_comm(const struct threads *t, uint32_t tid);

/* A sample of tid, which no record named: the name its thread is given
 * later, when threads_set_renames() says it, else NULL (perf report's
 * ":TID" until then). Remembered for threads_renames(). */
const char *threads_unnamed(struct threads *t, uint32_t tid);

/* The threads samples found unnamed that a later COMM named (perf report
 * shows those samples by the later name): n of them, valid until the next feed. */
const struct comm_rename *threads_renames(const struct threads *t, size_t *n);

/* Renames (of a previous reading of the same file) that
 * threads_unnamed() applies; kept by the caller. */
void threads_set_renames(struct threads *t, const struct comm_rename *r, size_t n);

#endif

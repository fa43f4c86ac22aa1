/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the commands that open events (record, top) share about their
 * targets: -p/-t lists, a process's threads, the kernel's rate cap.
 */
#ifndef PERFRING_TOOL_TARGETS_H
#define PERFRING_TOOL_TARGETS_H

#include <stdbool.h>
#include <stdint.h>

/* "1,2,3" into ids (each 1..INT32_MAX, at most cap); the count, or -1. */
int tool_id_list(const char *s, int *ids, int cap);

/* The threads of process pid (from /proc/PID/task) appended to tids[n..cap):
 * the new count, or -1 when the process does not exist. */
int tool_threads_of(int pid, int *tids, int n, int cap);

/* /proc/sys/kernel/perf_event_max_sample_rate; 0 when it cannot be read. */
uint64_t tool_max_sample_rate(void);

/* --call-graph MODE as perf takes it: fp, dwarf[,SIZE] (SIZE bytes of user stack copied, 8..65528
 * and a multiple of 8; *stack_size 0 when not given) or, with no_ok, no. 0 with *mode and
 * *stack_size set, or cmd's usage error said and its exit status. */
enum tool_call_graph { TOOL_CALL_GRAPH_FP, TOOL_CALL_GRAPH_DWARF, TOOL_CALL_GRAPH_NO };
int tool_call_graph_option(const char *cmd, const char *arg, bool no_ok, enum tool_call_graph *mode,
			   uint32_t *stack_size);

#endif

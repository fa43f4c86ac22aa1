/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Records for tasks that run before `perfring record` starts (record_synth.c). */
#ifndef PERFRING_TOOL_RECORD_SYNTH_H
#define PERFRING_TOOL_RECORD_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

struct perfring_perfdata_writer;

/*
 * Write COMM and MMAP2 records of running tasks to w, each followed by a
 * zeroed sample_id trailer of `trailer` bytes: every process in /proc when
 * nr_pids < 0, else the processes pids (tids: the threads pids, with their
 * process's mappings). Tasks that exit meanwhile are skipped. Returns 0 or
 * the writer's negative error; *records gets the count written.
 */
int record_synth(struct perfring_perfdata_writer *w, size_t trailer, const int *pids, int nr_pids, bool tids,
		 uint64_t *records);

#endif

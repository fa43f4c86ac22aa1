/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring top`'s names of threads: each thread's command (from COMM
 * records, its parent's at FORK, else /proc/TID/comm when its first sample
 * comes), interned in the table, and each process's exec generation (the
 * names cached for a process's old image are not its new one's). Threads
 * are forgotten two intervals after they exit: their samples keep their
 * names, and the map stays as large as the threads that live.
 */
#ifndef PERFRING_TOOL_TOP_COMMS_H
#define PERFRING_TOOL_TOP_COMMS_H

#include <stdbool.h>
#include <stdint.h>

#include "top/top_table.h"

struct top_comms;

struct top_comms *top_comms_new(struct top_table *t);
void top_comms_free(struct top_comms *c);

/* A sample's thread: its interned command name (the map's reference;
 * TOP_NONE without memory) and, in *gen, its process's exec generation. */
uint32_t top_comms_of(struct top_comms *c, uint32_t pid, uint32_t tid, uint32_t *gen);
/* A COMM record; exec: the process ran a new program. */
void top_comms_comm(struct top_comms *c, uint32_t pid, uint32_t tid, const char *comm, bool exec);
/* A FORK record: the new thread starts with its parent's name. */
void top_comms_fork(struct top_comms *c, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid);
/* An EXIT record. */
void top_comms_exit(struct top_comms *c, uint32_t tid);
/* The end of an interval. */
void top_comms_tick(struct top_comms *c);

#endif

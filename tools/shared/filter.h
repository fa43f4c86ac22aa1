/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The thread and symbol filters perf report and perf script share (--comm,
 * --pid, --tid, --symbols): comma-separated lists, matched whole.
 */
#ifndef PERFRING_TOOL_FILTER_H
#define PERFRING_TOOL_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* Whether s is a list --pid and --tid (opt) take, "12,345" (no empty
 * items): true, or false with cmd's usage error said. */
bool filter_ids_option(const char *cmd, const char *opt, const char *s);
/* Whether s is one of list's comma-separated items. */
bool filter_in_list(const char *list, const char *s);
/* Whether v (printed as perf prints a pid: signed) is one of list's items. */
bool filter_in_num_list(const char *list, uint32_t v);
/* perf's --comm, --pid, --tid (each NULL: not given): whether a sample of thread tid
 * of process pid, named comm, is kept. */
bool filter_thread_kept(const char *comms, const char *pids, const char *tids, const char *comm, uint32_t pid,
			uint32_t tid);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Loading and attaching the demo's BPF program (bpf/demo.bpf.c, skeleton
 * struct demo_bpf), with errors turned into one line that says what is
 * needed (root, BPF, BTF, tracefs).
 */
#ifndef PERFRING_DEMO_LOAD_H
#define PERFRING_DEMO_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct demo_bpf;

/*
 * Open, load and attach the program. target_tgid = 0 reports every process,
 * otherwise only the children of that process. On failure returns NULL and
 * writes the reason to err. *mounted_tracefs says whether tracefs had to be
 * mounted at /sys/kernel/tracing.
 */
struct demo_bpf *demo_load(uint32_t target_tgid, bool verbose, bool *mounted_tracefs, char *err, size_t errlen);

/* The perf event array the program writes to. */
int demo_events_fd(const struct demo_bpf *skel);

/* Events the program wrote, and bpf_perf_event_output() failures (a full ring). */
void demo_bpf_counts(const struct demo_bpf *skel, uint64_t *sent, uint64_t *failed);

/* Detach, unload, free. NULL is a no-op. */
void demo_unload(struct demo_bpf *skel);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring profile`: a continuous profiler. The pieces, a file each:
 *   cmd_profile.c     the command: options read, the run started
 *   profile_opts.c    the options and the help
 *   profile_loop.c    the interval loop: the live session's samples into a
 *                     profile, closed every interval, written and pushed
 *   profile_frames.c  the session's interned names as the library's frames
 *   profile_labels.c  host, cgroup and container labels
 *   profile_dir.c     the output directory and its size bound
 *   profile_push.c    the HTTP push queue (libcurl, a thread of its own)
 *   profile_offcpu.c  the off-CPU BPF program's loader (offcpu.bpf.c)
 */
#ifndef PERFRING_TOOL_PROFILE_H
#define PERFRING_TOOL_PROFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/profile.h>

#include "top/top_session.h"

#define PROFILE_CMD "profile"
#define PROFILE_DEFAULT_HZ 99
#define PROFILE_DEFAULT_INTERVAL_NS (60 * 1000000000ull)
#define PROFILE_DEFAULT_MAX_MEMORY (32ull << 20)

struct profile_opts {
	struct top_session_opts session;
	uint64_t interval_ns;
	uint64_t duration_ns;  /* 0: until a signal (or the target's end) */
	uint64_t count;        /* intervals; 0: no bound */
	const char *dir;       /* -o; NULL: no files */
	bool folded;           /* a .folded file beside each pprof */
	uint64_t max_dir_size; /* bytes; 0: no bound */
	const char *pyroscope; /* base URLs; NULL: no push */
	const char *parca;
	const char *app;       /* Pyroscope's application name, Parca's __name__ */
	unsigned push_queue;   /* profiles waiting to be sent, at most */
	unsigned push_retries; /* tries after the first, per profile */
	double push_timeout;   /* seconds per request */
	bool tid_label;
	bool on_cpu, off_cpu;  /* what is profiled: --off-cpu, --wall both */
	uint64_t max_memory;   /* bytes of RSS the run keeps under */
	bool quiet;            /* no line per interval */
};

/* 0 and o filled; EXIT_OK + 1000 after --help; else the exit status (message printed). */
#define PROFILE_HELP_DONE 1000
int profile_opts_parse(int argc, char **argv, struct profile_opts *o);
void profile_usage_print(FILE *f);

extern volatile sig_atomic_t profile_stop;

/* The run: returns the exit status. */
int profile_run(const struct profile_opts *o);

/* ---- profile_frames.c ---- */
struct perfring_frame;
/* frames[0..n) (ids of names interned in t) as library frames into out (cap n). */
void profile_frames_of(const struct top_table *t, const uint32_t *ids, size_t n, struct perfring_frame *out);

/* ---- profile_labels.c ---- */
struct profile_labels;
struct profile_labels *profile_labels_new(void);
void profile_labels_free(struct profile_labels *l);
const char *profile_labels_host(const struct profile_labels *l);
/* The cgroup (path) and the container id ("" when none) of process pid, read
 * from /proc/PID/cgroup once per interval. Valid until profile_labels_tick(). */
void profile_labels_cgroup(struct profile_labels *l, uint32_t pid, const char **cgroup, const char **container);
/* An interval ended: the cgroups are read again (processes move, pids are reused). */
void profile_labels_tick(struct profile_labels *l);

/* ---- profile_dir.c ---- */
/* Write data (len bytes) to DIR/name atomically (a temporary file renamed),
 * then remove the oldest profiles until the directory's profiles fit
 * max_size (0: no bound). 0 or -errno (message printed). */
int profile_dir_put(const char *dir, const char *name, const void *data, size_t len, uint64_t max_size,
		    uint64_t *removed);
/* A directory we can write to, made when missing. 0 or the exit status (message printed). */
int profile_dir_check(const char *dir);

/* ---- profile_push.c ---- */
struct profile_push;
struct profile_push_stats {
	uint64_t sent, retries, dropped_full, dropped_failed, rejected;
};
struct profile_push *profile_push_new(const struct profile_opts *o, const char *host);
/* Queue one profile (copied) for every backend; never blocks on the network. */
void profile_push_add(struct profile_push *p, const void *pprof, size_t len, uint64_t from_ns, uint64_t until_ns);
void profile_push_stats(struct profile_push *p, struct profile_push_stats *st);
/* Stop: what is queued is tried once more for up to wait_s seconds, the rest dropped. */
void profile_push_free(struct profile_push *p, double wait_s);

/* ---- profile_offcpu.c ---- */
struct profile_offcpu;
/* Load and attach the sched_switch program: for the tasks of pids (NULL:
 * every task). NULL with the error printed. */
struct profile_offcpu *profile_offcpu_open(const int *pids, int npids);
struct profile_offcpu_entry {
	uint32_t pid, tid;
	uint64_t ns;
	const uint64_t *kips, *uips; /* leaf first */
	size_t nk, nu;
	bool lost_stack;       /* a stack id was lost (the stack map full, or not readable) */
};
/* Every blocked-time entry summed since the last call, then cleared. */
int profile_offcpu_drain(struct profile_offcpu *oc, void (*fn)(void *ctx, const struct profile_offcpu_entry *e),
			 void *ctx);
void profile_offcpu_close(struct profile_offcpu *oc);

#endif

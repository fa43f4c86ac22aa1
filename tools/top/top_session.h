/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring top`'s live session: the events (one per CPU, system-wide, for
 * the threads of -p's processes or for a command started here), a reader
 * of their rings in time order, the process model fed with their MMAP,
 * COMM, FORK and EXIT records (and the processes that ran before, from
 * /proc), each thread's command name, and every sample named and added to
 * the table. The model is rebuilt from /proc when exited processes pile
 * up, so that a long session stays bounded.
 */
#ifndef PERFRING_TOOL_TOP_SESSION_H
#define PERFRING_TOOL_TOP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "top/top_table.h"

struct perfring_sample;

/* Where named samples go instead of the table's window (perfring profile
 * aggregates them into a profile of its own). The frames are ids interned
 * in the table, valid during the call; raw is the sample as decoded. */
struct top_session_sink {
	void (*sample)(void *ctx, const struct top_sample *ts, const uint32_t *frames, size_t n,
		       const struct perfring_sample *raw);
	void (*lost)(void *ctx, uint64_t n); /* samples the kernel lost in the rings */
	void *ctx;
};

struct top_session_opts {
	const char *event;     /* NULL: cpu-clock */
	uint64_t freq, period; /* one of them */
	const char *cpus;      /* NULL: every online CPU */
	const char *pids;      /* -p: comma-separated; NULL: none */
	char **cmd;            /* -- CMD: NULL when none */
	bool no_callchain;     /* the sampled ip only */
	bool dwarf;            /* user frames unwound from a copy of the stack */
	uint32_t stack_size;   /* with dwarf: bytes of stack copied */
	int max_stack;         /* frames kept per sample */
	const struct top_session_sink *sink; /* NULL: into the table */
	const char *tool;      /* the command errors name (NULL: "top") */
	bool hold;             /* -- CMD: not run until top_session_release() */
	uint32_t data_pages;   /* per CPU ring (a power of two); 0: sized for top's rates */
};

struct top_session;

/* Open everything and start (the command, released). Returns 0 and *out, or
 * the exit status after printing the one error line. */
int top_session_open(const struct top_session_opts *o, struct top_table *t, struct top_session **out);
/* With opts.hold: let the command run (0, or EXIT_ERROR printed). */
int top_session_release(struct top_session *s);
/* Read what the rings hold for up to timeout_ns. 0, or EXIT_ERROR printed. */
int top_session_poll(struct top_session *s, int64_t timeout_ns);
/* Everything the rings hold now into the table, the records held back for
 * time order too: a table covers its whole interval, even when naming the
 * first samples (every binary read once) took a while. */
int top_session_drain(struct top_session *s);
/* The end of an interval: housekeeping (exited threads forgotten, the
 * model rebuilt when it holds many exited processes). */
void top_session_interval(struct top_session *s);
/* Forget what can be read again: the model rebuilt from /proc, the names
 * and the symbolizer's binaries (a memory bound was reached). */
void top_session_shrink(struct top_session *s);
/* Name what a sample did not carry (off-CPU stacks a BPF program took):
 * the thread's command name and a frame, as ids interned in the table
 * (valid until the next call), TOP_NONE without memory. */
uint32_t top_session_comm(struct top_session *s, uint32_t pid, uint32_t tid);
uint32_t top_session_frame(struct top_session *s, uint32_t pid, uint64_t addr, bool kernel);
/* The command started for -- CMD: its pid, or -1. */
int top_session_child(const struct top_session *s);
/* The target is gone: the command or every -p process exited. */
bool top_session_ended(struct top_session *s);
/* "system-wide", "pid 123", "command 'sleep'": for the header. */
const char *top_session_target(const struct top_session *s);
const char *top_session_event(const struct top_session *s);
uint64_t top_session_freq(const struct top_session *s); /* 0 with -c */
int top_session_ncpus(const struct top_session *s);
/* Stop, reap the command (killed if it still runs). Returns its exit status
 * as a shell gives it (128 + signal), or -1 without a command. */
int top_session_close(struct top_session *s);

#endif

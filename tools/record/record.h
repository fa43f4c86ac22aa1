/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring record` in parts, as cmd_record() runs them: the command line
 * (record_opts.c), the events opened on each CPU and task into one reader
 * (record_events.c), and the perf.data file written from the rings
 * (record_write.c; the tasks that ran before, record_synth.c).
 */
#ifndef PERFRING_TOOL_RECORD_H
#define PERFRING_TOOL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include <perfring/reader.h>

#define CMD "record" /* the command, in messages */
#define RECORD_MAX_EVENTS 1024
#define RECORD_MAX_CPUS 1024
#define RECORD_MAX_TASKS 4096
#define RECORD_DEFAULT_HZ 4000

struct perfring_perfdata_writer;

struct record_event {
	const char *name; /* the spec opened */
	struct perf_event_attr attr;
	uint64_t *ids; /* [task * ncpu + cpu] */
	int *fds;
	bool tracepoint;
	bool own_period; /* tracepoints, breakpoints: every hit unless -c/-F, as perf */
	char *user_name; /* "NAME:u" when the kernel part was refused */
	char *spec, *shown; /* from perfring_event_expand(): the spec, perf's name */
	char *clock_name; /* "cpu-clock[:MODIFIERS]" for cycles without a PMU */
};

/* What the command line asks for, checked against each other and the
 * machine (online CPUs, live targets). */
struct record_opts {
	struct record_event events[RECORD_MAX_EVENTS];
	int nev;
	const char *output; /* "-": pipe mode on standard output */
	uint64_t period, freq;
	bool rate_given; /* -c or -F: tracepoints and breakpoints sample by it too */
	bool callchain, dwarf, switch_events, by_tid, use_clockid;
	bool system_wide; /* -a, or -C without -p/-t */
	uint32_t stack_size; /* --call-graph dwarf,SIZE; 0: the default */
	int32_t clockid;
	int zlevel;          /* -z: 0 uncompressed */
	int cpus[RECORD_MAX_CPUS], ncpu;
	int targets[RECORD_MAX_TASKS], ntarget; /* -p or -t */
	/* the tasks events are opened for: -1 (every task, or the command's
	 * pid once forked), the threads of -p, the threads of -t */
	int tasks[RECORD_MAX_TASKS], ntask;
	char **cmd; /* after the options; NULL: none */
};

/* record_opts.c: parse argv into o. 0; -1 after --help; else the exit
 * status of the error said. */
int record_parse(int argc, char **argv, struct record_opts *o);

/* record_events.c: every event of o on every task and CPU, each CPU's
 * events into one ring of rd (the first fd opened there); their fds and
 * ids in o->events. 0 or the exit status of the error said. */
int record_events_open(struct record_opts *o, struct perfring_reader *rd);
/* The reader's options for o: ring size by what a sample carries. */
void record_reader_opts(const struct record_opts *o, struct perfring_reader_opts *ro);
/* fds and ids arrays for each event, every fd -1. 0 or -ENOMEM. */
int record_events_alloc(struct record_opts *o);
/* Stop every event opened (before the last drain). */
void record_events_disable(const struct record_opts *o);
/* Close and free what record_events_alloc() and _open() made. */
void record_events_free(struct record_opts *o);

/* record_write.c */
struct record_state {
	struct perfring_perfdata_writer *writer;
	uint64_t records, bytes, lost, round_records;
	int error;
	unsigned char buf[65536]; /* a record that straddles the ring's end, made contiguous */
};

/* An existing, not empty output kept as FILE.old, as perf keeps perf.data.old. */
int record_keep_old(const char *output);
/* The writer opened (on pipe_fd, or o->output when it is -1) with the
 * header, the events' attrs and ids, and the tasks that run already.
 * 0 or the exit status of the error said. */
int record_write_start(struct record_state *st, const struct record_opts *o, int pipe_fd, int argc, char **argv);
/* One pass of the loop: poll the rings into the file, then a
 * FINISHED_ROUND. 0 or the exit status of the error said. */
int record_write_poll(struct record_state *st, const struct record_opts *o, struct perfring_reader *rd);
/* What the rings still hold drained into the file (the events stopped
 * first), then a last FINISHED_ROUND. 0 or the exit status of the error said. */
int record_write_finish(struct record_state *st, const struct record_opts *o, struct perfring_reader *rd);
/* The live count on a terminal ("N records (SIZE), N lost"); final: erase it. */
void record_progress(const struct record_state *st, bool final);

#endif

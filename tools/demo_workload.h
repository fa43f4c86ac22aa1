/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The demo's workload: short commands started one after another (fork +
 * exec through posix_spawn), whose exec, openat and exit the BPF program
 * reports. The workload remembers every child so that the demo can check
 * that each exec and exit arrived, with the exit status waitpid() saw.
 */
#ifndef PERFRING_DEMO_WORKLOAD_H
#define PERFRING_DEMO_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The number of commands in the cycle (see demo_workload.c). */
#define DEMO_WORKLOAD_NCMDS 4

struct demo_child {
	pid_t pid;
	int cmd;            /* index in the workload's command list */
	bool reaped;
	int wait_status;    /* from waitpid() */
	bool seen_exec;
	bool seen_exit;
	int event_status;   /* from the EXIT event */
};

struct demo_workload {
	char dir[64];       /* a temporary directory the commands look at */
	char file[96];      /* a file in it, which `cat` opens */
	struct demo_child *children;
	size_t nchildren, capacity;
	size_t running;
	unsigned int next_cmd;
	unsigned int spawn_failed;
};

/* Create the temporary directory and file. 0 or -errno. */
int demo_workload_init(struct demo_workload *w);

/* Start the next command of the cycle. 0 or -errno. */
int demo_workload_spawn(struct demo_workload *w);

/* Collect finished children; with block, wait for all of them. */
void demo_workload_reap(struct demo_workload *w, bool block);

/* Send sig to every child still running. */
void demo_workload_kill(struct demo_workload *w, int sig);

/* The child with this pid, or NULL. */
struct demo_child *demo_workload_find(struct demo_workload *w, pid_t pid);

/* Human-readable command line of command idx, e.g. "/bin/cat /tmp/.../hello.txt". */
const char *demo_workload_cmdline(const struct demo_workload *w, int idx, char *buf, size_t len);

/* Remove the temporary files and free the child list. */
void demo_workload_fini(struct demo_workload *w);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The built-in workload of `perfring trace`: short commands started one
 * after another (fork + exec through posix_spawn) that exec, open files and
 * exit. The workload remembers every child so that the trace can check that
 * each one's exec and exit arrived.
 */
#ifndef PERFRING_WORKLOAD_H
#define PERFRING_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The number of commands in the cycle (see workload.c). */
#define WORKLOAD_NCMDS 4

struct workload_child {
	pid_t pid;
	int cmd;            /* index in the workload's command list */
	bool reaped;
	int wait_status;    /* from waitpid() */
	bool seen_exec;
	bool seen_exit;
};

struct workload {
	char dir[64];       /* a temporary directory the commands look at */
	char file[96];      /* a file in it, which `cat` opens */
	struct workload_child *children;
	size_t nchildren, capacity;
	size_t running;
	unsigned int next_cmd;
	unsigned int spawn_failed;
};

/* Create the temporary directory and file. 0 or -errno. */
int workload_init(struct workload *w);

/* Start the next command of the cycle. 0 or -errno. */
int workload_spawn(struct workload *w);

/* Collect finished children; with block, wait for all of them. */
void workload_reap(struct workload *w, bool block);

/* Send sig to every child still running. */
void workload_kill(struct workload *w, int sig);

/* The child with this pid, or NULL. */
struct workload_child *workload_find(struct workload *w, pid_t pid);

/* Human-readable command line of command idx, e.g. "/bin/cat /tmp/.../hello.txt". */
const char *workload_cmdline(const struct workload *w, int idx, char *buf, size_t len);

/* Remove the temporary files and free the child list. */
void workload_fini(struct workload *w);

#endif

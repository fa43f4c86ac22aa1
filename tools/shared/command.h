/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `-- COMMAND` for the tool's subcommands: the command is forked stopped
 * before its exec, so that its pid can be used (a BPF pid filter, events
 * opened with enable_on_exec) before it runs a single instruction of its
 * own; then released. An exec that fails is reported back to the parent.
 */
#ifndef PERFRING_TOOL_COMMAND_H
#define PERFRING_TOOL_COMMAND_H

#include <sys/types.h>

struct tool_command {
	pid_t pid;  /* the stopped child */
	int go_fd;  /* a byte here lets it exec; EOF makes it exit 127 unrun */
	int err_fd; /* the errno of a failed exec comes back here */
};

/* Fork argv (argv[0] looked up in PATH), stopped. 0, or -errno (nothing
 * to clean up then). The child has SIGINT, SIGTERM and SIGPIPE at their
 * defaults, whatever the tool set. */
int tool_command_fork(char **argv, struct tool_command *c);

/* Let it exec. 0 once it runs the command, or the errno of the exec (the
 * child has then exited with 127: reap it). */
int tool_command_release(struct tool_command *c);

/* Never release it: it exits 127 without running the command (reap it). */
void tool_command_abandon(struct tool_command *c);

#endif

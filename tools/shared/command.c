// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A command forked stopped before its exec: see command.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "shared/command.h"

int tool_command_fork(char **argv, struct tool_command *c)
{
	int go[2], err[2], e;
	char byte;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		e = errno;
		close(go[0]);
		close(go[1]);
		return -e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		e = errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		/* Only a failed exec gets here; a successful one closes err[1] (O_CLOEXEC). */
		e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

int tool_command_release(struct tool_command *c)
{
	int e = 0;

	if (write(c->go_fd, "g", 1) != 1)
		e = errno;
	close(c->go_fd);
	/* EOF at a successful exec; the exec's errno when it failed. */
	if (!e && read(c->err_fd, &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(c->err_fd);
	c->go_fd = c->err_fd = -1;
	return e;
}

void tool_command_abandon(struct tool_command *c)
{
	close(c->go_fd);
	close(c->err_fd);
	c->go_fd = c->err_fd = -1;
}

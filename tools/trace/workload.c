// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The built-in workload of `perfring trace`: see workload.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/common/alloc.h"
#include "trace/workload.h"

/* A small fixed environment: the same output on every machine, and no
 * locale files (dozens of openat calls) to drown the interesting ones. */
static char *const workload_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

/* The cycle of commands. "@FILE" and "@DIR" stand for the workload's files.
 * Between them they exec, open files (ld.so's and the workload's own), and exit
 * with status 0 and 3. */
static const char *const workload_cmds[][4] = {
	{ "/bin/true", NULL },
	{ "/bin/cat", "@FILE", NULL },
	{ "/bin/sh", "-c", "exit 3", NULL },
	{ "/bin/ls", "@DIR", NULL },
};

#define WORKLOAD_CMDS (sizeof(workload_cmds) / sizeof(workload_cmds[0]))
_Static_assert(WORKLOAD_CMDS == WORKLOAD_NCMDS, "update WORKLOAD_NCMDS");

static const char *workload_arg(const struct workload *w, const char *arg)
{
	if (strcmp(arg, "@FILE") == 0)
		return w->file;
	if (strcmp(arg, "@DIR") == 0)
		return w->dir;
	return arg;
}

int workload_init(struct workload *w)
{
	static const char text[] = "hello from the perfring demo\n";
	int fd, err;

	memset(w, 0, sizeof(*w));
	snprintf(w->dir, sizeof(w->dir), "/tmp/perfring-demo.XXXXXX");
	if (!mkdtemp(w->dir))
		return -errno;
	snprintf(w->file, sizeof(w->file), "%s/hello.txt", w->dir);
	fd = open(w->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1)) {
		err = errno ? -errno : -EIO;
		if (fd >= 0)
			close(fd);
		unlink(w->file);
		rmdir(w->dir);
		w->dir[0] = '\0';
		return err;
	}
	close(fd);
	return 0;
}

const char *workload_cmdline(const struct workload *w, int idx, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < 4 && workload_cmds[idx][i] && off < len; i++) {
		const char *arg = workload_arg(w, workload_cmds[idx][i]);
		const char *quote = strchr(arg, ' ') ? "'" : "";

		off += snprintf(buf + off, len - off, "%s%s%s%s", i ? " " : "", quote, arg, quote);
	}
	return buf;
}

static struct workload_child *workload_add_child(struct workload *w)
{
	if (pr_grow(&w->children, &w->capacity, w->nchildren + 1, sizeof(*w->children)))
		return NULL;
	return &w->children[w->nchildren];
}

int workload_spawn(struct workload *w)
{
	int idx = (int)(w->next_cmd++ % WORKLOAD_CMDS);
	posix_spawn_file_actions_t fa;
	struct workload_child *c;
	char *argv[4] = { NULL };
	pid_t pid;
	int i, err;

	c = workload_add_child(w);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < 3 && workload_cmds[idx][i]; i++)
		argv[i] = (char *)workload_arg(w, workload_cmds[idx][i]);
	/* The commands' own output would only get in the way of the trace's. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, workload_env);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		w->spawn_failed++;
		return -err;
	}
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->cmd = idx;
	w->nchildren++;
	w->running++;
	return 0;
}

void workload_reap(struct workload *w, bool block)
{
	struct workload_child *c;
	int status;
	pid_t pid;

	while (w->running) {
		pid = waitpid(-1, &status, block ? 0 : WNOHANG);
		if (pid == 0)
			return;
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			return; /* ECHILD: nothing left to wait for */
		}
		c = workload_find(w, pid);
		if (!c || c->reaped)
			continue;
		c->reaped = true;
		c->wait_status = status;
		w->running--;
	}
}

void workload_kill(struct workload *w, int sig)
{
	size_t i;

	for (i = 0; i < w->nchildren; i++)
		if (!w->children[i].reaped)
			kill(w->children[i].pid, sig);
}

struct workload_child *workload_find(struct workload *w, pid_t pid)
{
	size_t i;

	/* Newest first: events mostly concern the children started last. */
	for (i = w->nchildren; i-- > 0;)
		if (w->children[i].pid == pid)
			return &w->children[i];
	return NULL;
}

void workload_fini(struct workload *w)
{
	if (w->dir[0]) {
		unlink(w->file);
		rmdir(w->dir);
	}
	free(w->children);
	memset(w, 0, sizeof(*w));
}

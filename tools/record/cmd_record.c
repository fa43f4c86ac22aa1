// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`: open perf events on every online CPU or those of -C
 * (system-wide, for processes or threads, or for a command started here),
 * read their rings with a perfring reader and write every record to a
 * perf.data file that `perf report` and `perf script` read in full, as perf
 * record writes it: the tasks that ran before synthesized from /proc
 * (record_synth.c), a FINISHED_ROUND after each pass over the rings, and the
 * writer's build ids, tracing data and compression. This file runs the
 * steps in their order (see record.h for the parts) and cleans up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/perfdata_write.h>

#include "record/record.h"
#include "shared/command.h"
#include "shared/tool.h"

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s record [-e EVENT]... [-c PERIOD | -F HZ] [-g | --call-graph fp|dwarf[,SIZE]]\n"
		"                 [-a] [-C CPUS] [-p PID[,PID]... | -t TID[,TID]...] [--switch-events]\n"
		"                 [-z | --compression-level N] [-k CLOCK] [-o FILE] [-- CMD [ARG]...]\n\n"
		"Sample events and write every record of the perf rings to a perf.data file\n"
		"that `perf report` and `perf script` read in full (tracepoint formats, build\n"
		"ids, the tasks that ran before the recording), as `perf record` writes it.\n\n"
		"Options:\n"
		"  -e, --event EVENT      an event to sample (repeatable; default cpu-clock); any\n"
		"                         name perfring_event_parse() knows (see perfring(1)), with\n"
		"                         perf's modifiers: cycles:u, cpu-clock:k; a tracepoint glob\n"
		"                         (sched:sched_process_*: one event per match); a breakpoint\n"
		"                         mem:ADDR[/LEN][:rwx]; cycles without a hardware PMU:\n"
		"                         cpu-clock, as perf\n"
		"  -c, --count PERIOD     sample every PERIOD events\n"
		"  -F, --freq HZ          sample about HZ times a second (default %d, capped by\n"
		"                         /proc/sys/kernel/perf_event_max_sample_rate; max: that)\n"
		"  -g                     record kernel and user call chains (frame pointers)\n"
		"      --call-graph MODE  fp (as -g) or dwarf[,SIZE] (as perf: the kernel's part\n"
		"                         of the chain, user registers, SIZE bytes of user\n"
		"                         stack, default 8192, and the data mappings)\n"
		"  -a, --all-cpus         every task on every CPU (until SIGINT/SIGTERM, or until\n"
		"                         CMD exits)\n"
		"  -C, --cpu CPUS         only these CPUs (e.g. 0,2-3); system-wide without -p/-t\n"
		"  -p, --pid PIDS         these processes (all their threads) and the tasks they\n"
		"                         create, until they exit, CMD exits or SIGINT/SIGTERM\n"
		"  -t, --tid TIDS         these threads only (with -p/-t, CMD is not recorded:\n"
		"                         it sets how long, as perf's -p PID -- sleep 5)\n"
		"      --switch-events    context switch records (PERF_RECORD_SWITCH*)\n"
		"  -z, --compression-level[=N]  zstd-compress the records (level N, default 1;\n"
		"                         attached as perf's: -z5, --compression-level=5)\n"
		"  -k, --clockid CLOCK    sample times on CLOCK (monotonic, monotonic_raw,\n"
		"                         realtime, boottime, tai, mono, raw, real, boot or a\n"
		"                         number), with the CLOCKID and CLOCK_DATA features that\n"
		"                         tie it to wall-clock time (perf script -F tod)\n"
		"  -- CMD [ARG]...        start CMD and record it and its children until it exits\n"
		"  -o, --output FILE      the perf.data file to write (default perf.data); an\n"
		"                         existing one, not empty, is kept as FILE.old; -: pipe\n"
		"                         mode on standard output, as perf's (not with -z)\n"
		"  -h, --help             show this help\n\n"
		"Exit status: 0 when a complete file was written (also after SIGINT/SIGTERM, and\n"
		"whatever CMD's status, which is printed), 1 when events cannot be opened, CMD\n"
		"cannot run (no file is written then) or the file written, 2 for a bad command\n"
		"line.\n",
		TOOL_NAME, RECORD_DEFAULT_HZ);
}

static volatile sig_atomic_t record_stop;

static void record_on_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

static bool record_alive(const int *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (kill(ids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/*
 * -o -: pipe mode on standard output, as perf's; the command's and our own
 * standard output go to standard error then (perf does the same with its
 * workload's), and a reader that goes away is an error (EPIPE), not a
 * signal that loses the message. *pipe_fd: the file's fd, or -1 (a file).
 */
static int record_pipe_mode(const char *output, int *pipe_fd)
{
	*pipe_fd = -1;
	if (strcmp(output, "-") != 0)
		return 0;
	*pipe_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (*pipe_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return tool_error(CMD, "-o -: standard output: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Until SIGINT/SIGTERM, the command's exit or the targets' (*child_done
 * when the command exited, its status in *child_status). */
static int record_loop(struct record_state *st, const struct record_opts *o, struct perfring_reader *rd,
		       pid_t child, bool *child_done, int *child_status)
{
	bool tty = isatty(STDERR_FILENO);
	uint64_t last_progress = 0;
	int err;

	while (!record_stop) {
		err = record_write_poll(st, o, rd);
		if (err)
			return err;
		if (child > 0 && waitpid(child, child_status, WNOHANG) == child) {
			*child_done = true;
			break;
		}
		if (o->ntarget && !record_alive(o->targets, o->ntarget))
			break;
		if (tty && tool_now_ns() - last_progress > 500 * 1000 * 1000ULL) {
			record_progress(st, false);
			last_progress = tool_now_ns();
		}
	}
	/* Stop the events, then drain what the rings still hold. */
	record_events_disable(o);
	err = record_write_finish(st, o, rd);
	if (err)
		return err;
	if (tty)
		record_progress(st, true);
	err = perfring_perfdata_writer_close(st->writer);
	st->writer = NULL;
	if (err)
		return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
	return 0;
}

/* The command's end, said when the recording succeeded. */
static void record_child_status(const char *name, int status)
{
	if (WIFEXITED(status))
		fprintf(stderr, "%s %s: '%s' exited with status %d\n", TOOL_NAME, CMD, name, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "%s %s: '%s' was killed by signal %d (%s)\n", TOOL_NAME, CMD, name,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
}

int cmd_record(int argc, char **argv)
{
	static struct record_opts o;
	static struct record_state st;
	struct perfring_reader_opts ro = { .sz = sizeof(ro) };
	struct tool_command command = { .go_fd = -1, .err_fd = -1 };
	struct perfring_reader *rd = NULL;
	struct sigaction sa;
	bool child_done = false;
	int child_status = 0, pipe_fd = -1, err, ret = EXIT_ERROR;
	pid_t child = -1;

	memset(&st, 0, sizeof(st));
	ret = record_parse(argc, argv, &o);
	if (ret) {
		record_events_free(&o);
		return ret < 0 ? EXIT_OK : ret;
	}
	ret = EXIT_ERROR;
	if (record_events_alloc(&o)) {
		tool_error(CMD, "no memory");
		goto out;
	}
	if (record_pipe_mode(o.output, &pipe_fd))
		goto out;

	/* Signals stop the loop (no SA_RESTART: a blocked poll returns). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.cmd) {
		err = tool_command_fork(o.cmd, &command);
		if (err) {
			tool_error(CMD, "cannot start '%s': %s", o.cmd[0], strerror(-err));
			goto out;
		}
		child = command.pid;
		if (!o.system_wide && !o.ntarget)
			o.tasks[0] = child;
	}

	record_reader_opts(&o, &ro);
	rd = perfring_reader_new(&ro);
	if (!rd) {
		tool_error(CMD, "%s", perfring_errmsg());
		goto out;
	}
	if (record_events_open(&o, rd))
		goto out;

	if (command.go_fd >= 0) {
		/* Let the command exec (that enables the events: enable_on_exec)
		 * before the output is touched: a command that cannot run is an
		 * error that leaves no file and an existing one as it was, where
		 * perf writes an empty one. The rings keep what it does until
		 * the loop reads them. */
		err = tool_command_release(&command);
		if (err) {
			tool_error(CMD, "cannot run '%s': %s", o.cmd[0], strerror(err));
			goto out;
		}
	}
	if (pipe_fd < 0 && record_keep_old(o.output))
		goto out;
	if (record_write_start(&st, &o, pipe_fd, argc, argv))
		goto out;
	if (record_loop(&st, &o, rd, child, &child_done, &child_status))
		goto out;
	fprintf(stderr, "%s %s: %llu records (%llu bytes), %llu lost, written to %s\n", TOOL_NAME, CMD,
		(unsigned long long)st.records, (unsigned long long)st.bytes, (unsigned long long)st.lost,
		pipe_fd >= 0 ? "standard output" : o.output);
	ret = EXIT_OK;

out:
	if (command.go_fd >= 0)
		tool_command_abandon(&command); /* it exits without running the command */
	if (child > 0 && !child_done) {
		if (ret == EXIT_OK)
			kill(child, SIGTERM);
		if (waitpid(child, &child_status, 0) == child)
			child_done = true;
	}
	if (child > 0 && child_done && ret == EXIT_OK)
		record_child_status(o.cmd[0], child_status);
	perfring_perfdata_writer_free(st.writer);
	st.writer = NULL;
	if (pipe_fd >= 0)
		close(pipe_fd);
	perfring_reader_free(rd);
	record_events_free(&o);
	return ret;
}

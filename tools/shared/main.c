// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring: the command-line tool. This file only dispatches: each
 * subcommand lives in its own tools/cmd_NAME.c and gets argv from its name.
 */
#include <string.h>

#include <perfring/perfring.h>

#include "shared/tool.h"

#define TOOL_VERSION "0.1.0"

static const struct tool_cmd tool_cmds[] = {
	{ "trace", "trace tracepoints through a BPF perf event array and print every event, decoded",
	  cmd_trace, cmd_trace_usage },
	{ "top", "the hottest functions now, system-wide, a process or a command (as perf top)",
	  cmd_top, cmd_top_usage },
	{ "profile", "a continuous profiler: a pprof profile every interval (CPU, off-CPU), to a directory or a backend",
	  cmd_profile, cmd_profile_usage },
	{ "pipe", "print the samples of a BPF perf event array someone else loaded (by map id or pin)",
	  cmd_pipe, cmd_pipe_usage },
	{ "record", "sample perf events on every CPU (system-wide, a process or a command) into a perf.data file",
	  cmd_record, cmd_record_usage },
	{ "report", "a perf.data file's samples by symbol, binary, command (as perf report --stdio); --stats: record counts",
	  cmd_report, cmd_report_usage },
	{ "script", "a perf.data file's samples with their call chains named (as perf script); --dump: every record",
	  cmd_script, cmd_script_usage },
};

#define TOOL_NCMDS (sizeof(tool_cmds) / sizeof(tool_cmds[0]))

static void tool_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: %s COMMAND [OPTIONS]\n"
		   "       %s help [COMMAND] | --help | --version\n\n"
		   "Read Linux perf event rings, BPF perf event arrays and perf.data files.\n\n"
		   "Commands:\n",
		TOOL_NAME, TOOL_NAME);
	for (i = 0; i < TOOL_NCMDS; i++)
		fprintf(f, "  %-8s %s\n", tool_cmds[i].name, tool_cmds[i].summary);
	fprintf(f, "\nRun '%s COMMAND --help' for a command's options; see perfring(1) and perfring-COMMAND(1).\n", TOOL_NAME);
}

static const struct tool_cmd *tool_find(const char *name)
{
	size_t i;

	for (i = 0; i < TOOL_NCMDS; i++)
		if (strcmp(tool_cmds[i].name, name) == 0)
			return &tool_cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct tool_cmd *cmd;
	const char *arg;

	if (argc < 2) {
		tool_usage(stderr);
		return EXIT_USAGE;
	}
	arg = argv[1];
	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
		tool_usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(arg, "--version") == 0 || strcmp(arg, "-V") == 0) {
		printf("%s %s (libperfring %s)\n", TOOL_NAME, TOOL_VERSION, perfring_version());
		return EXIT_OK;
	}
	if (strcmp(arg, "help") == 0) {
		if (argc < 3) {
			tool_usage(stdout);
			return EXIT_OK;
		}
		cmd = tool_find(argv[2]);
		if (!cmd)
			return tool_usage_error(NULL, "unknown command '%s'", argv[2]);
		cmd->usage(stdout);
		return EXIT_OK;
	}
	if (arg[0] == '-')
		return tool_usage_error(NULL, "unknown option '%s'", arg);
	cmd = tool_find(arg);
	if (!cmd)
		return tool_usage_error(NULL, "unknown command '%s'", arg);
	return cmd->run(argc - 1, argv + 1);
}

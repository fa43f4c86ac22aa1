// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring pipe`: placeholder while it is being written. */
#include "tool.h"

void cmd_pipe_usage(FILE *f)
{
	fprintf(f, "Usage: %s pipe (not written yet)\n", TOOL_NAME);
}

int cmd_pipe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return tool_error("pipe", "not written yet");
}

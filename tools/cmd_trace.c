// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring trace`: placeholder while it is being written. */
#include "tool.h"

void cmd_trace_usage(FILE *f)
{
	fprintf(f, "Usage: %s trace (not written yet)\n", TOOL_NAME);
}

int cmd_trace(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return tool_error("trace", "not written yet");
}

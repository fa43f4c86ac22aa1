// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring profile`: a continuous profiler (see profile_tool.h for its
 * pieces). This file reads the options, sets the signals that end the run
 * after closing the current interval, and runs it.
 */
#include <signal.h>
#include <string.h>

#include "profile/profile_tool.h"
#include "shared/tool.h"

void cmd_profile_usage(FILE *f)
{
	profile_usage_print(f);
}

static void on_signal(int sig)
{
	(void)sig;
	profile_stop = 1;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_opts o;
	struct sigaction sa;
	int ret = profile_opts_parse(argc, argv, &o);

	if (ret == PROFILE_HELP_DONE)
		return EXIT_OK;
	if (ret)
		return ret;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked poll returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return profile_run(&o);
}

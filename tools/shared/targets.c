// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The targets of the commands that open events: see targets.h. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "shared/targets.h"
#include "shared/tool.h"

uint64_t tool_max_sample_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int tool_id_list(const char *s, int *ids, int cap)
{
	char buf[4096], *tok, *save = NULL;
	uint64_t v;
	int n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == cap || !tool_parse_u64(tok, 1, INT32_MAX, &v))
			return -1;
		ids[n++] = (int)v;
	}
	return n;
}

int tool_threads_of(int pid, int *tids, int n, int cap)
{
	char path[64];
	struct dirent *d;
	uint64_t v;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && n < cap && tool_parse_u64(d->d_name, 1, INT32_MAX, &v))
			tids[n++] = (int)v;
	closedir(dir);
	return n;
}

int tool_call_graph_option(const char *cmd, const char *arg, bool no_ok, enum tool_call_graph *mode,
			   uint32_t *stack_size)
{
	const char *comma = strchr(arg, ',');
	size_t mode_len = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t v;

	*stack_size = 0;
	if (mode_len == 5 && !strncmp(arg, "dwarf", 5)) {
		*mode = TOOL_CALL_GRAPH_DWARF;
		if (comma) {
			if (!tool_parse_u64(comma + 1, 8, 65528, &v) || v % 8)
				return tool_usage_error(cmd, "bad dwarf stack size '%s' (8..65528, a multiple of 8)",
							comma + 1);
			*stack_size = (uint32_t)v;
		}
	} else if (!strcmp(arg, "fp")) {
		*mode = TOOL_CALL_GRAPH_FP;
	} else if (no_ok && !strcmp(arg, "no")) {
		*mode = TOOL_CALL_GRAPH_NO;
	} else {
		return tool_usage_error(cmd, "bad call graph mode '%s' (fp%s)", arg,
					no_ok ? ", dwarf[,SIZE] or no" : " or dwarf[,SIZE]");
	}
	return 0;
}

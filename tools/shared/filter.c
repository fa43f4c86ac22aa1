// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The --comm/--pid/--tid/--symbols lists of report and script (filter.h). */
#include <stdio.h>
#include <string.h>

#include "shared/filter.h"
#include "shared/tool.h"

static bool num_list_ok(const char *s)
{
	const char *p = s;

	while (*p) {
		size_t n = strspn(p, "0123456789");

		if (!n || (p[n] && p[n] != ','))
			return false;
		p += n + (p[n] == ',');
		if (p[-1] == ',' && !*p)
			return false;
	}
	return *s != '\0';
}

bool filter_ids_option(const char *cmd, const char *opt, const char *s)
{
	if (num_list_ok(s))
		return true;
	tool_usage_error(cmd, "--%s: '%s' is not a comma-separated list of numbers", opt, s);
	return false;
}

bool filter_in_list(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, s, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

bool filter_in_num_list(const char *list, uint32_t v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", (int32_t)v);
	return filter_in_list(list, s);
}

bool filter_thread_kept(const char *comms, const char *pids, const char *tids, const char *comm, uint32_t pid,
			uint32_t tid)
{
	return !(comms && !filter_in_list(comms, comm)) && !(pids && !filter_in_num_list(pids, pid)) &&
	       !(tids && !filter_in_num_list(tids, tid));
}

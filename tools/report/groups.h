/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf.data's HEADER_GROUP_DESC feature: the event groups perf record -e
 * '{a,b}' made (perf writes it with util/header.c: write_group_desc()), which
 * perf report shows as one table per group, a column per member.
 */
#ifndef PERFRING_TOOL_GROUPS_H
#define PERFRING_TOOL_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_group {
	uint32_t leader;  /* the index of its first event among the file's attrs */
	uint32_t nr;      /* its events: leader .. leader + nr - 1 */
	char name[64];    /* "" for an anonymous group ("{anon_group}" in the file) */
};

/*
 * Parse the feature's bytes (the file's byte order: swapped) for a file of
 * nattrs events into at most max groups: the count, or -1 with a one-line
 * reason in err when the bytes are not a group description of those events
 * (a group outside them, overlapping another, a string past the end).
 */
int groups_parse(const void *data, size_t len, bool swapped, uint32_t nattrs, struct event_group *out, int max,
		     char *err, size_t errlen);

#endif

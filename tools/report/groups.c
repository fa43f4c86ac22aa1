// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * HEADER_GROUP_DESC: u32 nr_groups, then per group a perf string (u32 length
 * of the padded bytes, the NUL-terminated name padded to that length), u32
 * leader_idx, u32 nr_members. Every field is checked against the bytes and
 * the events of the file; nothing is read past len.
 */
#include <stdio.h>
#include <string.h>

#include "report/groups.h"
#include "shared/bytecur.h"

int groups_parse(const void *data, size_t len, bool swapped, uint32_t nattrs, struct event_group *out, int max,
		     char *err, size_t errlen)
{
	struct bytecur c = bytecur_at(data, len, swapped);
	uint32_t nr, i, slen, covered_to = 0;

	if (!bytecur_u32(&c, &nr)) {
		snprintf(err, errlen, "GROUP_DESC: %zu bytes, no group count", len);
		return -1;
	}
	if (nr > (uint32_t)max || nr > nattrs) {
		snprintf(err, errlen, "GROUP_DESC: %u groups for %u events", nr, nattrs);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		struct event_group *g = &out[i];
		const uint8_t *name;
		size_t n;

		if (!bytecur_u32(&c, &slen) || !bytecur_take(&c, slen, &name)) {
			snprintf(err, errlen, "GROUP_DESC: group %u: its name runs past the feature's %zu bytes", i, len);
			return -1;
		}
		n = strnlen((const char *)name, slen);
		if (n >= sizeof(g->name))
			n = sizeof(g->name) - 1;
		memcpy(g->name, name, n);
		g->name[n] = '\0';
		if (!strcmp(g->name, "{anon_group}"))
			g->name[0] = '\0';
		if (!bytecur_u32(&c, &g->leader) || !bytecur_u32(&c, &g->nr)) {
			snprintf(err, errlen, "GROUP_DESC: group %u: cut short at %zu bytes", i, len);
			return -1;
		}
		/* perf writes the groups in event order, each its members in a row */
		if (!g->nr || g->leader < covered_to || g->leader >= nattrs || g->nr > nattrs - g->leader) {
			snprintf(err, errlen, "GROUP_DESC: group %u: events %u..%u of %u events", i, g->leader,
				 g->leader + g->nr - 1, nattrs);
			return -1;
		}
		covered_to = g->leader + g->nr;
	}
	return (int)nr;
}

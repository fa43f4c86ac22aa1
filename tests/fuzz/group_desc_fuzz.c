// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the HEADER_GROUP_DESC reader of `perfring report`
 * (tools/report/groups.c): however its counts and string lengths lie,
 * nothing is read outside the feature's bytes (ASan), and the groups it
 * accepts are in the file's events, in order, without overlap.
 * Input: one byte (bit 0: the file's byte order is swapped; the rest: the
 * file's event count, 0..127), then the feature's bytes. Seeds:
 * tests/fuzz/corpus/group_desc/ (the feature of the corpus's files with
 * groups, and crafted ones).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "report/groups.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_group g[16];
	uint32_t nattrs, covered = 0;
	char err[200];
	int n, i;

	if (!size)
		return 0;
	nattrs = data[0] >> 1;
	n = groups_parse(data + 1, size - 1, data[0] & 1, nattrs, g, 16, err, sizeof(err));
	for (i = 0; i < n; i++) {
		if (!g[i].nr || g[i].leader < covered || g[i].leader + g[i].nr > nattrs)
			abort();
		covered = g[i].leader + g[i].nr;
	}
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live session names frames as `perfring top` does (tools/top/top_names.c:
 * functions and binaries interned in a table); the profile takes the
 * library's struct perfring_frame. This file is the one place that turns
 * one into the other, so that it is the one to go when the library's
 * perfring_stacks_* names frames itself.
 */
#include <string.h>

#include <linux/perf_event.h>

#include <perfring/stack.h>

#include "profile/profile_tool.h"

void profile_frames_of(const struct top_table *t, const uint32_t *ids, size_t n, struct perfring_frame *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct perfring_frame *f = &out[i];

		memset(f, 0, sizeof(*f));
		f->name = top_table_unnamed(t, ids[i]) ? NULL : top_table_name(t, ids[i]);
		f->dso = top_table_dso(t, ids[i]);
		f->kernel = top_table_kernel(t, ids[i]);
		f->cpumode = f->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	}
}

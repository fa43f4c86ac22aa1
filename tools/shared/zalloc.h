/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PERFRING_TOOL_ZALLOC_H
#define PERFRING_TOOL_ZALLOC_H

/*
 * The old name of pr_zalloc() (src/common/alloc.h), for the files that are
 * moving into src/profile/ (intern.c, fcache.c, demangle.c, threads.c):
 * they call pr_zalloc() once moved, and this header goes with them.
 */
#include "../../src/common/alloc.h"

#define tool_zalloc pr_zalloc

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A memory sample's data source in words, as perf script prints its
 * data_src field ("|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A").
 */
#ifndef PERFRING_TOOL_MEMSRC_H
#define PERFRING_TOOL_MEMSRC_H

#include <stddef.h>
#include <stdint.h>

/* The words of data_src v (PERF_SAMPLE_DATA_SRC) into buf (NUL-terminated, cut to len); their length. */
size_t data_src_text(uint64_t v, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The input format of the record fuzzer (tests/fuzz/record_fuzz.c), shared
 * with the seed generator (tests/fuzz/make_corpus.c):
 *
 *   offset  0  u64 sample_type          (little endian, whatever `swapped` says)
 *   offset  8  u64 read_format
 *   offset 16  u64 branch_sample_type
 *   offset 24  u64 sample_regs_user
 *   offset 32  u64 sample_regs_intr
 *   offset 40  u8  flags: RF_SAMPLE_ID_ALL | RF_SWAPPED | RF_BRANCH_COUNTERS
 *   offset 41  7 bytes ignored
 *   offset 48  the record (header included), in the config's byte order
 */
#ifndef PERFRING_TESTS_RECORD_FUZZ_H
#define PERFRING_TESTS_RECORD_FUZZ_H

#include <linux/perf_event.h>

#define RF_PREFIX_SIZE 48
#define RF_FLAGS_OFFSET 40

#define RF_SAMPLE_ID_ALL 0x1
#define RF_SWAPPED 0x2
#define RF_BRANCH_COUNTERS 0x4

/* Newer than the 6.1 uapi header installed here. */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1ULL << 19)
#endif
#define RF_RECORD_CALLCHAIN_DEFERRED 22

/* The sample_type bits that make up the sample_id trailer. */
#define RF_SAMPLE_ID_BITS                                                                  \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |     \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

#endif /* PERFRING_TESTS_RECORD_FUZZ_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared between producer.bpf.c (beside it) and the user-space programs that read it. */
#ifndef PERFRING_BPF_PRODUCER_H
#define PERFRING_BPF_PRODUCER_H

/* Every sample starts with this header; the bytes after it, up to len, are
 * producer_pattern(i) for byte index i (counted from the start of the
 * sample), so a reader can check that the payload arrived intact. */
struct producer_sample {
	__u64 seq;  /* global sequence number, from 0 */
	__u32 cpu;  /* CPU the sample was written on */
	__u32 len;  /* payload length as passed to bpf_perf_event_output() */
};

#define PRODUCER_MAX_LEN 65504 /* largest payload: 8 + 4 + 65504 + pad <= 65528 */

static inline unsigned char producer_pattern(unsigned int i)
{
	return (unsigned char)(i * 7u + 3u);
}

#endif

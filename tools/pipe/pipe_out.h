/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output of `perfring pipe`: samples and lost counts as a hex dump,
 * JSON lines or binary frames, buffered and written to a file descriptor
 * with write(2) so that an interrupted or failed write is seen exactly.
 */
#ifndef PERFRING_TOOL_PIPE_OUT_H
#define PERFRING_TOOL_PIPE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pipe_format {
	PIPE_TEXT, /* "sample N cpu C size S" and hexdump -C lines; "LOST n cpu C" */
	PIPE_JSON, /* {"cpu":C,"size":S,"data":"hex"} and {"cpu":C,"lost":n} per line */
	PIPE_RAW,  /* frames: u32 LE word, u32 LE cpu, body (see PIPE_RAW_LOST) */
};

/* Raw frames: bit 31 of the first word set marks a lost notice, whose body
 * is 8 bytes, the u64 LE count; clear, the word is the sample's length. The
 * low 31 bits are always the body's length, so a reader can skip any frame. */
#define PIPE_RAW_LOST 0x80000000u

struct pipe_out {
	enum pipe_format fmt;
	int fd;
	unsigned char *buf;
	size_t len, cap;
	uint64_t samples; /* samples written (numbers the text headers) */
	int err;          /* errno of the first failed write; nothing is written after it */
};

/* 0 or -ENOMEM. */
int pipe_out_init(struct pipe_out *o, enum pipe_format fmt, int fd, size_t cap);
void pipe_out_fini(struct pipe_out *o);

/* A sample's payload, as one or two spans (n2 may be 0). */
void pipe_out_sample(struct pipe_out *o, int cpu, const void *d1, size_t n1, const void *d2, size_t n2);
void pipe_out_lost(struct pipe_out *o, int cpu, uint64_t lost);

/* Write out what is buffered. Returns 0 or the errno of the failure
 * (EPIPE when the reading end is closed; SIGPIPE must be ignored). */
int pipe_out_flush(struct pipe_out *o);

#endif

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `perfring pipe` on a BPF ring buffer (pipe_ringbuf.c). */
#ifndef PERFRING_TOOL_PIPE_RINGBUF_H
#define PERFRING_TOOL_PIPE_RINGBUF_H

#include <stdint.h>

/* The fd of the perfring_ringbuf.bpf.h lost map of a program that uses the
 * ring buffer map rb_id (its id in *lost_id), or -1 when there is none. */
int pipe_find_lost_map(uint32_t rb_id, uint32_t *lost_id);

#endif

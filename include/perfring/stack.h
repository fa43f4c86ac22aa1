/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Named frames: a sample's call chain (or the addresses a BPF program's
 * stack map holds) turned into functions, binaries and source lines, named
 * as perf names them. The profile layer (profile.h) aggregates them.
 *
 * A frame is read through perfring_stack_frame(), never by indexing an
 * array of struct perfring_frame: the library says the size of its frames
 * (frame_sz), so that fields added at the end of the struct in a later
 * version do not move the frames of a program built against this one.
 */
#ifndef PERFRING_STACK_H
#define PERFRING_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One frame, named as perf names it. Strings belong to the object that made
 * the frame and stay valid until it is freed, unless its documentation says
 * otherwise. */
struct perfring_frame {
	uint64_t addr;          /* the address sampled or returned to, as recorded */
	const char *name;       /* the function, demangled (C++, Rust); NULL when unknown */
	uint64_t offset;        /* addr - the function's start, when name is set */
	const char *dso;        /* the binary: its path as mapped, "[kernel.kallsyms]", "[MODULE]",
				 * "//anon", or "[unknown]"; never NULL */
	const uint8_t *build_id; /* the binary's build id; NULL when unknown */
	uint32_t build_id_size;
	uint8_t cpumode;        /* PERF_RECORD_MISC_USER, _KERNEL, ... the address was taken in */
	bool kernel;            /* a kernel address (kernel or guest kernel cpumode) */
	bool inlined;           /* a function inlined at addr: the next frame is the one it is in */
	bool mapped;            /* a mapping holds addr: map_* are set */
	uint64_t map_start;     /* the mapping [map_start, map_end), file offset map_pgoff at map_start */
	uint64_t map_end;
	uint64_t map_pgoff;
	const char *file;       /* source file and line, when asked for and known; else NULL, 0 */
	uint32_t line;
};

/* A stack: frames[0] the leaf (the sampled ip), the last one the root. */
struct perfring_stack {
	size_t nframes;
	size_t frame_sz;        /* the size of one frame, >= the struct this header declares */
	const void *frames;     /* read with perfring_stack_frame() */
};

static inline const struct perfring_frame *perfring_stack_frame(const struct perfring_stack *s, size_t i)
{
	return (const struct perfring_frame *)((const char *)s->frames + i * s->frame_sz);
}

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_STACK_H */

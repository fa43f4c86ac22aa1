/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What offcpu.bpf.c and its loader (profile_offcpu.c) share. */
#ifndef PERFRING_TOOL_OFFCPU_H
#define PERFRING_TOOL_OFFCPU_H

#define OFFCPU_MAX_TARGETS 256
#define OFFCPU_MAX_STACKS 16384
#define OFFCPU_MAX_DEPTH 127
#define OFFCPU_MAX_THREADS 32768
#define OFFCPU_MAX_ENTRIES 16384
/* ustack of a kernel thread: it has none (not a stack that could not be read) */
#define OFFCPU_NO_USER_STACK (-1)

/* The blocked time of a thread with these stacks (ids in the stack map, < 0: not taken). */
struct offcpu_key {
	__u32 pid, tgid;
	__s32 ustack, kstack;
};

#endif

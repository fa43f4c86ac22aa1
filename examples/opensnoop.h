/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared by opensnoop{,_rb}.bpf.c and opensnoop{,_rb}_{libbpf,perfring}.c, beside it. */
#ifndef PERFRING_BPF_OPENSNOOP_H
#define PERFRING_BPF_OPENSNOOP_H

#define OPENSNOOP_COMM_LEN 16
#define OPENSNOOP_NAME_LEN 256

struct opensnoop_event {
	__u32 pid;   /* thread group id */
	__u32 uid;
	__s32 flags; /* openat()'s flags */
	char comm[OPENSNOOP_COMM_LEN];
	char fname[OPENSNOOP_NAME_LEN];
};

/* The BPF side's tracepoint context (events/syscalls/sys_enter_openat/format):
 * the common fields, the syscall number, then the arguments. */
struct sys_enter_ctx {
	__u64 common;
	__s64 id;
	__u64 args[6]; /* dfd, filename, flags, mode */
};

#endif

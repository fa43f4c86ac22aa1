/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared by opensnoop.bpf.c and opensnoop_{libbpf,perfring}.c, beside it. */
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

#endif

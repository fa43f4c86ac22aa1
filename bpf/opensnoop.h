/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared by bpf/opensnoop.bpf.c and examples/opensnoop_{libbpf,perfring}.c. */
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

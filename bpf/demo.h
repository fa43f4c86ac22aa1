/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Shared between bpf/demo.bpf.c and the `perfring demo` subcommand. */
#ifndef PERFRING_BPF_DEMO_H
#define PERFRING_BPF_DEMO_H

enum demo_event_type {
	DEMO_EXEC = 1, /* sched_process_exec: detail = the executed file */
	DEMO_EXIT = 2, /* sched_process_exit of a thread group leader: value = wait status */
	DEMO_OPEN = 3, /* sys_enter_openat: detail = the path, value = open flags */
};

#define DEMO_COMM_LEN 16
#define DEMO_DETAIL_LEN 128

/*
 * One event. The program sends only the bytes up to the end of the string
 * in detail (detail_len includes its NUL), so samples vary in size; the
 * reader sees them padded to 8 bytes by the kernel.
 */
struct demo_event {
	__u64 time_ns;   /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 type;      /* enum demo_event_type */
	__u32 pid;       /* process (thread group) id */
	__u32 tid;       /* thread id */
	__u32 ppid;      /* parent's process id */
	__s32 value;     /* see enum demo_event_type */
	__u32 detail_len;
	char comm[DEMO_COMM_LEN];
	char detail[DEMO_DETAIL_LEN];
};

#define DEMO_EVENT_HDR_LEN __builtin_offsetof(struct demo_event, detail)

#endif

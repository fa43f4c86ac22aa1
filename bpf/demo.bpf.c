// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program behind `perfring demo`: an execsnoop/opensnoop in miniature.
 * Three tracepoints (a process executes a file, exits, or calls openat)
 * each write one struct demo_event with bpf_perf_event_output() into the
 * perf event array `events`, which perfring reads in user space.
 *
 * By default only the children of target_tgid (the demo's own workload)
 * are reported, so that the output is about what the demo does and not
 * about whatever else the machine runs; target_tgid = 0 reports everything.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "demo.h"

/* Only the fields the program reads; CO-RE relocates them against the
 * running kernel's BTF, so their offsets here do not matter. */
struct task_struct {
	struct task_struct *real_parent;
	int tgid;
	int exit_code;
} __attribute__((preserve_access_index));

/* Tracepoint records, laid out as /sys/kernel/tracing/events/.../format
 * says (these layouts have been stable for many kernel versions). */
struct tp_sched_process_exec {
	__u64 common;
	__u32 filename_loc; /* __data_loc: offset in the low 16 bits */
	__s32 pid;
	__s32 old_pid;
};

struct tp_sys_enter_openat {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__u64 dfd;
	__u64 filename; /* user pointer */
	__u64 flags;
	__u64 mode;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

const volatile __u32 target_tgid = 0;

__u64 sent;        /* events written */
__u64 send_failed; /* bpf_perf_event_output() errors (e.g. ring full) */

/* Fill the common fields; 0 when the current task is not of interest. */
static __always_inline int demo_begin(struct demo_event *e, __u32 type)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();

	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	if (target_tgid && e->ppid != target_tgid)
		return 0;
	e->time_ns = bpf_ktime_get_ns();
	e->type = type;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->value = 0;
	e->detail_len = 0;
	e->detail[0] = '\0';
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return 1;
}

static __always_inline void demo_send(void *ctx, struct demo_event *e, long str_len)
{
	__u64 len;

	if (str_len < 1) {
		e->detail[0] = '\0';
		str_len = 1;
	}
	/* Keep the size provably within the struct for the verifier. */
	len = DEMO_EVENT_HDR_LEN + ((__u64)str_len & (DEMO_DETAIL_LEN - 1));
	if (str_len >= DEMO_DETAIL_LEN)
		len = sizeof(*e);
	e->detail_len = len - DEMO_EVENT_HDR_LEN;
	if (len > sizeof(*e))
		len = sizeof(*e);
	if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, e, len) == 0)
		__sync_fetch_and_add(&sent, 1);
	else
		__sync_fetch_and_add(&send_failed, 1);
}

SEC("tp/sched/sched_process_exec")
int demo_exec(struct tp_sched_process_exec *ctx)
{
	struct demo_event e;
	long n;

	if (!demo_begin(&e, DEMO_EXEC))
		return 0;
	e.value = ctx->old_pid;
	n = bpf_probe_read_kernel_str(e.detail, sizeof(e.detail), (void *)ctx + (ctx->filename_loc & 0xffff));
	demo_send(ctx, &e, n);
	return 0;
}

SEC("tp/sched/sched_process_exit")
int demo_exit(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct demo_event e;

	if (!demo_begin(&e, DEMO_EXIT))
		return 0;
	if (e.pid != e.tid) /* a thread, not the process */
		return 0;
	e.value = BPF_CORE_READ(task, exit_code);
	demo_send(ctx, &e, 0);
	return 0;
}

SEC("tp/syscalls/sys_enter_openat")
int demo_openat(struct tp_sys_enter_openat *ctx)
{
	struct demo_event e;
	long n;

	if (!demo_begin(&e, DEMO_OPEN))
		return 0;
	e.value = (__s32)ctx->flags;
	n = bpf_probe_read_user_str(e.detail, sizeof(e.detail), (const void *)ctx->filename);
	demo_send(ctx, &e, n);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

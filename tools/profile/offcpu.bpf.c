// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring profile --off-cpu`: where threads block, and for how long. On
 * the sched_switch tracepoint (tp_btf: no kprobes needed), the thread
 * switched out leaves its time and its stacks (kernel and user, taken here
 * while it is still current); when it is switched in again, the time it
 * was away is added to its (pid, tgid, stacks) entry of `blocked`. User
 * space reads and empties `blocked` every interval (profile_offcpu.c).
 *
 * Only threads that block count: one preempted while runnable (state
 * TASK_RUNNING) is waiting for a CPU, not blocked. The idle task is not
 * followed.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "offcpu.h"

struct task_struct {
	int pid;
	int tgid;
	unsigned int __state;
	void *mm;
} __attribute__((preserve_access_index));

/* 0: every process; else only the tgids in `targets` */
const volatile int filter_tgids = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* A thread switched out: when, and its stacks. */
struct start {
	__u64 ts;
	__s32 ustack, kstack;
	__u32 tgid;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_ENTRIES);
	__type(key, struct offcpu_key);
	__type(value, __u64);
} blocked SEC(".maps");

/* Entries that found `blocked` full: their time is counted here. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} overflow_ns SEC(".maps");

static __always_inline int wanted(__u32 tgid)
{
	return !filter_tgids || bpf_map_lookup_elem(&targets, &tgid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), *v;
	__u32 pid = prev->pid, tgid = prev->tgid, zero = 0;
	struct offcpu_key k;
	struct start *s, st;

	if (pid && prev->__state != 0 && wanted(tgid)) {
		st.ts = now;
		st.tgid = tgid;
		/* its first frames are this program's way in (bpf_prog_*, bpf_trace_run4,
		 * sometimes __traceiter_sched_switch): the loader's user side drops them */
		st.kstack = bpf_get_stackid(ctx, &stacks, 0);
		/* a kernel thread has no user stack to take: not a failure */
		st.ustack = prev->mm ? bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK) : OFFCPU_NO_USER_STACK;
		bpf_map_update_elem(&starts, &pid, &st, BPF_ANY);
	}
	pid = next->pid;
	s = bpf_map_lookup_elem(&starts, &pid);
	if (!s)
		return 0;
	k.pid = pid;
	k.tgid = s->tgid;
	k.ustack = s->ustack;
	k.kstack = s->kstack;
	now -= s->ts;
	bpf_map_delete_elem(&starts, &pid);
	v = bpf_map_lookup_elem(&blocked, &k);
	if (v) {
		__sync_fetch_and_add(v, now);
	} else if (bpf_map_update_elem(&blocked, &k, &now, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&blocked, &k); /* another CPU added it meanwhile, or full */
		if (v)
			__sync_fetch_and_add(v, now);
		else if ((v = bpf_map_lookup_elem(&overflow_ns, &zero)))
			__sync_fetch_and_add(v, now);
	}
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

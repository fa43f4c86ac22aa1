// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF half of examples/opensnoop_{libbpf,perfring}.c, in the style of
 * libbpf-tools' opensnoop: every openat() entry (syscalls:sys_enter_openat)
 * sends {pid, uid, flags, comm, file name} to the perf event array `events`.
 * The same object serves the libbpf original and its perfring port.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "opensnoop.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_openat")
int opensnoop_openat(struct sys_enter_ctx *ctx)
{
	struct opensnoop_event e = {};
	__u64 id = bpf_get_current_pid_tgid();

	e.pid = (__u32)(id >> 32);
	e.uid = (__u32)bpf_get_current_uid_gid();
	e.flags = (__s32)ctx->args[2];
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_probe_read_user_str(e.fname, sizeof(e.fname), (const void *)ctx->args[1]);
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

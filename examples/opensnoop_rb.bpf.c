// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF half of examples/opensnoop_rb_{libbpf,perfring}.c: the events of
 * bpf/opensnoop.bpf.c (every openat() entry: pid, uid, flags, comm, file
 * name), written into the BPF ring buffer `events` with reserve/submit, as
 * tools written for kernels with ring buffers (5.8+) do. The same object
 * serves the libbpf original and its perfring port.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "opensnoop.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_openat")
int opensnoop_openat(struct sys_enter_ctx *ctx)
{
	struct opensnoop_event *e;
	__u64 id = bpf_get_current_pid_tgid();

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;
	e->pid = (__u32)(id >> 32);
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->flags = (__s32)ctx->args[2];
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_probe_read_user_str(e->fname, sizeof(e->fname), (const void *)ctx->args[1]);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

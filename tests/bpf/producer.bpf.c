// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A deterministic producer for tests, benchmarks and the demo: each run
 * (BPF_PROG_TEST_RUN, repeat = N) writes one sample of payload_len bytes
 * into the perf event array `events` on the current CPU, and counts the
 * outcome of bpf_perf_event_output() so that received + lost == produced
 * can be checked exactly.
 *
 * User space sets payload_len (16..PRODUCER_MAX_LEN) through the skeleton's
 * bss and fills `scratch` with producer_pattern() before running.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "producer.h"

#define MAX_CPUS 1024
#define ENOENT 2
#define ENOSPC 28

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* One pre-filled payload buffer per CPU (a per-CPU array would cap the
 * value at 32 KiB). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 65536);
	__uint(max_entries, MAX_CPUS);
} scratch SEC(".maps");

__u32 payload_len = 64;
__u64 seq_next;
__u64 out_ok;      /* samples written */
__u64 out_enospc;  /* ring full: the kernel will report them in PERF_RECORD_LOST */
__u64 out_enoent;  /* no fd at this CPU's key (paused or never stored) */
__u64 out_other;   /* any other error */
__s64 last_error;

static __always_inline int produce_one(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 len = payload_len;
	struct producer_sample *s;
	long ret;

	s = bpf_map_lookup_elem(&scratch, &cpu);
	if (!s)
		return -1;
	if (len < sizeof(*s))
		len = sizeof(*s);
	if (len > PRODUCER_MAX_LEN)
		len = PRODUCER_MAX_LEN;
	s->seq = __sync_fetch_and_add(&seq_next, 1);
	s->cpu = cpu;
	s->len = len;
	ret = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, s, len);
	if (ret == 0)
		__sync_fetch_and_add(&out_ok, 1);
	else if (ret == -ENOSPC)
		__sync_fetch_and_add(&out_enospc, 1);
	else if (ret == -ENOENT)
		__sync_fetch_and_add(&out_enoent, 1);
	else {
		__sync_fetch_and_add(&out_other, 1);
		last_error = ret;
	}
	return 0;
}

SEC("xdp")
int produce(struct xdp_md *ctx)
{
	return produce_one(ctx) ? XDP_ABORTED : XDP_PASS;
}

/* The same as a tc program: its BPF_PROG_TEST_RUN with repeat > 1 has no
 * fixed 15-30 ms cost per call as XDP's has (bench/ringbuf.c runs it flat out). */
SEC("tc")
int produce_tc(struct __sk_buff *skb)
{
	produce_one(skb);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

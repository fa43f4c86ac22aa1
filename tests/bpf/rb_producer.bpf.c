// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The deterministic producer of producer.bpf.c, writing into BPF ring
 * buffers instead of a perf event array, through perfring_ringbuf.bpf.h so
 * that every failed write is counted as lost:
 *   produce          bpf_ringbuf_output() of payload_len bytes into `rb`
 *   produce_reserve  reserve/submit of a fixed 64-byte sample into `rb`;
 *                    every discard_every-th one is discarded instead
 *   produce_percpu   bpf_ringbuf_output() into this CPU's ring buffer in
 *                    the array of maps `rb_percpu` (one per CPU, Falco's way)
 *   produce_tc       produce as a tc program: its BPF_PROG_TEST_RUN with
 *                    repeat > 1 costs no fixed 15-30 ms per call as XDP's
 *                    does, so the benchmarks can run it flat out
 * Samples are the same {u64 seq; u32 cpu; u32 len; pattern...} records.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <perfring/bpf/perfring_ringbuf.bpf.h>

#include "producer.h"

#define MAX_CPUS 1024

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} rb SEC(".maps");

struct rb_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 64);
	__type(key, __u32);
	__array(values, struct rb_inner);
} rb_percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 65536);
	__uint(max_entries, MAX_CPUS);
} scratch SEC(".maps");

__u32 payload_len = 64;
__u32 discard_every;
__u64 seq_next;
__u64 out_ok;     /* samples written */
__u64 out_fail;   /* writes that failed (ring full): counted in perfring_rb_lost too */
__u64 out_discarded;
__u64 out_noring; /* produce_percpu: no ring buffer for this CPU */

static __always_inline struct producer_sample *fill(__u32 *lenp)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 len = payload_len;
	struct producer_sample *s;

	s = bpf_map_lookup_elem(&scratch, &cpu);
	if (!s)
		return 0;
	if (len < sizeof(*s))
		len = sizeof(*s);
	if (len > PRODUCER_MAX_LEN)
		len = PRODUCER_MAX_LEN;
	s->seq = __sync_fetch_and_add(&seq_next, 1);
	s->cpu = cpu;
	s->len = len;
	*lenp = len;
	return s;
}

static __always_inline void count(long ret)
{
	if (ret == 0)
		__sync_fetch_and_add(&out_ok, 1);
	else
		__sync_fetch_and_add(&out_fail, 1);
}

SEC("xdp")
int produce(struct xdp_md *ctx)
{
	struct producer_sample *s;
	__u32 len;

	s = fill(&len);
	if (!s)
		return XDP_ABORTED;
	count(perfring_ringbuf_output(&rb, s, len, 0));
	return XDP_PASS;
}

SEC("tc")
int produce_tc(struct __sk_buff *skb)
{
	struct producer_sample *s;
	__u32 len;

	s = fill(&len);
	if (!s)
		return 0;
	count(perfring_ringbuf_output(&rb, s, len, 0));
	return 0;
}

SEC("xdp")
int produce_reserve(struct xdp_md *ctx)
{
	struct producer_sample *s;
	__u64 seq = __sync_fetch_and_add(&seq_next, 1);
	__u8 *p;
	int i;

	s = perfring_ringbuf_reserve(&rb, 64, 0);
	if (!s) {
		__sync_fetch_and_add(&out_fail, 1);
		return XDP_PASS;
	}
	s->seq = seq;
	s->cpu = bpf_get_smp_processor_id();
	s->len = 64;
	p = (__u8 *)s;
	for (i = sizeof(*s); i < 64; i++)
		p[i] = producer_pattern(i);
	if (discard_every && seq % discard_every == discard_every - 1) {
		bpf_ringbuf_discard(s, 0);
		__sync_fetch_and_add(&out_discarded, 1);
	} else {
		bpf_ringbuf_submit(s, 0);
		__sync_fetch_and_add(&out_ok, 1);
	}
	return XDP_PASS;
}

SEC("xdp")
int produce_percpu(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct producer_sample *s;
	void *ring;
	__u32 len;

	ring = bpf_map_lookup_elem(&rb_percpu, &cpu);
	if (!ring) {
		__sync_fetch_and_add(&out_noring, 1);
		return XDP_PASS;
	}
	s = fill(&len);
	if (!s)
		return XDP_ABORTED;
	count(perfring_ringbuf_output(ring, s, len, 0));
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring's BPF-side helper for BPF ring buffers (BPF_MAP_TYPE_RINGBUF),
 * installed as <perfring/bpf/perfring_ringbuf.bpf.h>.
 *
 * The kernel counts no lost records for ring buffers: a reservation that
 * does not fit just fails. Write through these wrappers instead of
 * bpf_ringbuf_reserve()/bpf_ringbuf_output() and every failure is counted
 * on the CPU that saw it, in the BPF_MAP_TYPE_PERCPU_ARRAY perfring_rb_lost
 * (one u64 per CPU at key 0) that this header defines. Give that map's fd
 * to the reader (perfring_ringbuf_opts.lost_map_fd, e.g.
 * bpf_map__fd(skel->maps.perfring_rb_lost)) and the counts come out as lost
 * records, exactly like a perf ring's PERF_RECORD_LOST.
 *
 * Include it once per BPF object, after <bpf/bpf_helpers.h>. One counter
 * serves every ring buffer of the object: for one ring buffer per CPU (an
 * array of maps), the reader reads each ring's own CPU slot.
 */
#ifndef PERFRING_RINGBUF_BPF_H
#define PERFRING_RINGBUF_BPF_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} perfring_rb_lost SEC(".maps");

/* Count one lost record on this CPU. */
static __always_inline void perfring_ringbuf_count_lost(void)
{
	__u32 key = 0;
	__u64 *n = bpf_map_lookup_elem(&perfring_rb_lost, &key);

	if (n)
		*n += 1; /* per-CPU slot: no other CPU writes it */
}

/* bpf_ringbuf_reserve(), counting a failure. size must be a constant, as
 * for bpf_ringbuf_reserve() itself. */
#define perfring_ringbuf_reserve(ringbuf, size, flags)                          \
	({                                                                      \
		void *perfring_p_ = bpf_ringbuf_reserve((ringbuf), (size), (flags)); \
		if (!perfring_p_)                                               \
			perfring_ringbuf_count_lost();                          \
		perfring_p_;                                                    \
	})

/* bpf_ringbuf_output(), counting a failure. */
static __always_inline long perfring_ringbuf_output(void *ringbuf, void *data, __u64 size, __u64 flags)
{
	long ret = bpf_ringbuf_output(ringbuf, data, size, flags);

	if (ret)
		perfring_ringbuf_count_lost();
	return ret;
}

#endif /* PERFRING_RINGBUF_BPF_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF producer (tests/bpf/producer.bpf.c) as the benchmarks drive it: one
 * loaded instance per reader under test, so that perfring and libbpf each
 * own the fds of their own perf event array and run the very same program.
 * A run writes `repeat` samples on the CPU the calling thread is pinned to.
 */
#ifndef PERFRING_BENCH_PRODUCER_H
#define PERFRING_BENCH_PRODUCER_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../tests/bpf/producer.h" /* beside the program (tests/bpf/) */
#include "producer.skel.h"

struct bench_producer {
	struct producer_bpf *skel;
	int prog_fd;
	int events_fd; /* the BPF_MAP_TYPE_PERF_EVENT_ARRAY the readers attach to */
};

/* Outcome counters of the program (its bss), read after a run. */
struct bench_produced {
	uint64_t ok, enospc, enoent, other;
};

/* libbpf's info and debug chatter would drown the results; keep warnings. */
static int bench_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level > LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static inline int bench_producer_open(struct bench_producer *p, unsigned int payload_len)
{
	static unsigned char value[65536];
	int ncpu, scratch_fd, err;
	__u32 key;
	size_t i;

	libbpf_set_print(bench_libbpf_print);
	memset(p, 0, sizeof(*p));
	p->skel = producer_bpf__open();
	if (!p->skel)
		return -errno;
	p->skel->data->payload_len = payload_len;
	err = producer_bpf__load(p->skel);
	if (err) {
		producer_bpf__destroy(p->skel);
		p->skel = NULL;
		return err;
	}
	p->prog_fd = bpf_program__fd(p->skel->progs.produce);
	p->events_fd = bpf_map__fd(p->skel->maps.events);

	for (i = 0; i < sizeof(value); i++)
		value[i] = producer_pattern((unsigned int)i);
	scratch_fd = bpf_map__fd(p->skel->maps.scratch);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu < 0)
		return ncpu;
	for (key = 0; key < (__u32)ncpu && key < bpf_map__max_entries(p->skel->maps.scratch); key++) {
		if (bpf_map_update_elem(scratch_fd, &key, value, BPF_ANY))
			return -errno;
	}
	return 0;
}

static inline void bench_producer_close(struct bench_producer *p)
{
	producer_bpf__destroy(p->skel);
	p->skel = NULL;
}

/* Run the program `repeat` times on the current CPU. */
static inline int bench_producer_run(const struct bench_producer *p, unsigned int repeat)
{
	unsigned char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);

	if (bpf_prog_test_run_opts(p->prog_fd, &opts))
		return -errno;
	return 0;
}

static inline struct bench_produced bench_producer_counts(const struct bench_producer *p)
{
	const struct producer_bpf__bss *b = p->skel->bss;

	return (struct bench_produced){
		.ok = __atomic_load_n(&b->out_ok, __ATOMIC_RELAXED),
		.enospc = __atomic_load_n(&b->out_enospc, __ATOMIC_RELAXED),
		.enoent = __atomic_load_n(&b->out_enoent, __ATOMIC_RELAXED),
		.other = __atomic_load_n(&b->out_other, __ATOMIC_RELAXED),
	};
}

static inline uint64_t bench_producer_next_seq(const struct bench_producer *p)
{
	return __atomic_load_n(&p->skel->bss->seq_next, __ATOMIC_RELAXED);
}

/* Size of the PERF_RECORD_SAMPLE carrying a payload of len bytes: the
 * header, the u32 raw size, and the payload padded so that the raw part
 * (u32 + payload) ends on an 8-byte boundary. */
static inline size_t bench_sample_record_size(size_t len)
{
	return 8 + ((4 + len + 7) & ~(size_t)7);
}

#endif /* PERFRING_BENCH_PRODUCER_H */

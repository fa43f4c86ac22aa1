/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers of the BPF ring buffer kernel tests: load tests/bpf/rb_producer.bpf.c
 * (the producer of ktest.h writing into BPF ring buffers through
 * perfring_ringbuf.bpf.h), run its programs on pinned CPUs with
 * BPF_PROG_TEST_RUN, and check what a reader delivered, record by record:
 * payload intact (ring buffers deliver exactly the bytes written, no
 * padding), each sequence number at most once, lost counts.
 */
#ifndef PERFRING_RBTEST_H
#define PERFRING_RBTEST_H

#include <perfring/ringbuf.h>

#include "ktest.h"
#include "rb_producer.skel.h"

struct rbtest {
	struct rb_producer_bpf *skel;
	int rb_fd, lost_fd, outer_fd;
	int ncpus;
	char why[256];
};

/* rb_size: the shared ring's size in bytes (0: the object's 256 KiB);
 * rb_flags: map flags of the shared ring (e.g. BPF_F_RB_OVERWRITE). */
static inline int rbtest_setup_flags_rc(struct rbtest *rt, uint32_t rb_size, uint32_t rb_flags)
{
	int err;

	memset(rt, 0, sizeof(*rt));
	libbpf_set_print(ktest_libbpf_print);
	if (geteuid() != 0) {
		snprintf(rt->why, sizeof(rt->why), "needs root (BPF_PROG_TEST_RUN, BPF maps)");
		return 1;
	}
	rt->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	rt->skel = rb_producer_bpf__open();
	if (!rt->skel) {
		snprintf(rt->why, sizeof(rt->why), "rb_producer_bpf__open: %s", strerror(errno));
		return -1;
	}
	if (rb_size && bpf_map__set_max_entries(rt->skel->maps.rb, rb_size)) {
		snprintf(rt->why, sizeof(rt->why), "bpf_map__set_max_entries(rb, %u) failed", rb_size);
		return -1;
	}
	if (rb_flags && bpf_map__set_map_flags(rt->skel->maps.rb, rb_flags)) {
		snprintf(rt->why, sizeof(rt->why), "bpf_map__set_map_flags(rb, %#x) failed", rb_flags);
		return -1;
	}
	err = rb_producer_bpf__load(rt->skel);
	if (err) {
		rb_producer_bpf__destroy(rt->skel);
		rt->skel = NULL;
		return ktest_load_failed(err, "the BPF ring buffer producer", rt->why, sizeof(rt->why));
	}
	rt->rb_fd = bpf_map__fd(rt->skel->maps.rb);
	rt->lost_fd = bpf_map__fd(rt->skel->maps.perfring_rb_lost);
	rt->outer_fd = bpf_map__fd(rt->skel->maps.rb_percpu);
	return ktest_fill_scratch(bpf_map__fd(rt->skel->maps.scratch), rt->why, sizeof(rt->why));
}

static inline int rbtest_setup_rc(struct rbtest *rt, uint32_t rb_size)
{
	return rbtest_setup_flags_rc(rt, rb_size, 0);
}

static inline void rbtest_teardown(struct rbtest *rt)
{
	if (rt->skel)
		rb_producer_bpf__destroy(rt->skel);
	rt->skel = NULL;
}

#define RBTEST_SETUP(rt, size)                                                    \
	do {                                                                      \
		int rt_rc_ = rbtest_setup_rc((rt), (size));                       \
		if (rt_rc_ > 0)                                                   \
			SKIP("%s", (rt)->why);                                    \
		REQUIREF(rt_rc_ == 0, "setup: %s", (rt)->why);                    \
	} while (0)

#define RBTEST_NEED_CPUS(rt, n)                                                   \
	do {                                                                      \
		if ((rt)->ncpus < (n)) {                                          \
			rbtest_teardown(rt);                                      \
			SKIP("needs %d online CPUs, this machine has %d", (n), (rt)->ncpus); \
		}                                                                 \
	} while (0)

/* Run prog n times on cpu (pinned; one call per record below
 * KTEST_REPEAT_MIN, else one call). Returns the runs done or -errno. */
static inline int64_t rbtest_run(struct bpf_program *prog, int cpu, uint32_t n)
{
	unsigned char pkt[64];
	cpu_set_t old, one;
	uint64_t done = 0;
	int err = 0, fd = bpf_program__fd(prog);

	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08;
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (err)
		return -err;
	while (done < n) {
		__u32 repeat = n - done >= KTEST_REPEAT_MIN ? (__u32)(n - done) : 1;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);

		err = bpf_prog_test_run_opts(fd, &opts);
		if (err == -EINTR)
			continue;
		if (err)
			break;
		done += repeat;
	}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	return err ? err : (int64_t)done;
}

/* What a reader delivered from ring buffers (and perf rings, for mixed readers). */
struct rb_collect {
	uint8_t *seen;      /* one byte per seq: how often delivered */
	uint64_t seen_cap;
	uint32_t want_len;  /* 0: any */
	uint64_t samples, lost, lost_events, rb_samples, perf_samples;
	uint64_t per_ring[KTEST_MAX_RINGS];
	int stop_after;     /* > 0: PERFRING_STOP after this many events */
	uint64_t events;
	int errors;
	char error[512];
};

static inline void rb_collect_init(struct rb_collect *c, uint64_t max_seq, uint32_t want_len)
{
	memset(c, 0, sizeof(*c));
	c->seen_cap = max_seq;
	c->seen = calloc(max_seq ? max_seq : 1, 1);
	c->want_len = want_len;
}

static inline void rb_collect_free(struct rb_collect *c)
{
	free(c->seen);
	c->seen = NULL;
}

__attribute__((format(printf, 2, 3))) static inline void rb_collect_err(struct rb_collect *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->errors++) {
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof(c->error), fmt, ap);
		va_end(ap);
	}
}

/* One sample's payload: exact size (ring buffer) or padded (perf ring). */
static inline void rb_collect_sample(struct rb_collect *c, const void *data, size_t size, bool padded, int ring)
{
	struct producer_sample s;
	const unsigned char *p = data;
	size_t i;

	if (size < sizeof(s)) {
		rb_collect_err(c, "a payload of %zu bytes", size);
		return;
	}
	memcpy(&s, p, sizeof(s));
	if ((padded ? ktest_padded(s.len) : s.len) != size || (c->want_len && s.len != c->want_len)) {
		rb_collect_err(c, "seq %llu: %zu bytes for len %u (want %u)", (unsigned long long)s.seq, size, s.len,
			       c->want_len);
		return;
	}
	for (i = sizeof(s); i < s.len; i++)
		if (p[i] != producer_pattern((unsigned int)i)) {
			rb_collect_err(c, "seq %llu: byte %zu is 0x%02x", (unsigned long long)s.seq, i, p[i]);
			return;
		}
	if (s.seq < c->seen_cap && c->seen[s.seq]++)
		rb_collect_err(c, "seq %llu delivered twice", (unsigned long long)s.seq);
	c->samples++;
	if (ring >= 0 && ring < KTEST_MAX_RINGS)
		c->per_ring[ring]++;
}

static inline int rb_collect_fn(const struct perfring_msg *ev, void *ctx)
{
	struct rb_collect *c = ctx;

	c->events++;
	if (ev->kind == PERFRING_MSG_LOST) {
		c->lost += ev->lost;
		c->lost_events++;
	} else if (ev->kind == PERFRING_MSG_SAMPLE) {
		if (perfring_msg_record(ev)) { /* a perf ring: one or two spans, padded */
			unsigned char buf[65536];

			memcpy(buf, ev->data, ev->size);
			if (ev->size2)
				memcpy(buf + ev->size, ev->data2, ev->size2);
			c->perf_samples++;
			rb_collect_sample(c, buf, ev->size + ev->size2, true, ev->ring_idx);
		} else {
			if (ev->size2 || ev->data2)
				rb_collect_err(c, "a ring buffer record in two spans");
			c->rb_samples++;
			rb_collect_sample(c, ev->data, ev->size, false, ev->ring_idx);
		}
	}
	if (c->stop_after > 0 && c->events % (uint64_t)c->stop_after == 0)
		return PERFRING_STOP;
	return PERFRING_CONTINUE;
}

/* How many sequence numbers below n were delivered exactly once. */
static inline uint64_t rb_collect_once(const struct rb_collect *c, uint64_t n)
{
	uint64_t i, k = 0;

	for (i = 0; i < n && i < c->seen_cap; i++)
		k += c->seen[i] == 1;
	return k;
}

#define RB_CHECK_COLLECT(c) CHECKF((c)->errors == 0, "%d bad events, first: %s", (c)->errors, (c)->error)

/* 300 runs of produce_reserve with every third record discarded (seq 2, 5,
 * ...): 200 submitted. */
#define RBTEST_PRODUCE_DISCARDING(rt)                                                       \
	do {                                                                                \
		(rt)->skel->bss->discard_every = 3;                                         \
		REQUIRE(rbtest_run((rt)->skel->progs.produce_reserve, 0, 300) == 300);      \
		CHECK_EQ_U64((rt)->skel->bss->out_ok, 200);                                 \
		CHECK_EQ_U64((rt)->skel->bss->out_discarded, 100);                          \
	} while (0)

/* What a reader got of RBTEST_PRODUCE_DISCARDING(): the others, once each. */
#define RB_CHECK_DISCARDED(c)                                                               \
	do {                                                                                \
		CHECK_EQ_U64((c)->rb_samples, 200);                                         \
		CHECK_EQ_U64(rb_collect_once((c), 300), 200);                               \
		CHECK((c)->seen[2] == 0 && (c)->seen[5] == 0 && (c)->seen[3] == 1);         \
		RB_CHECK_COLLECT(c);                                                        \
	} while (0)

#endif /* PERFRING_RBTEST_H */

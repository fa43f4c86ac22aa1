/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared helpers of the kernel tests: load the deterministic XDP producer
 * (tests/bpf/producer.bpf.c), run it N times on a chosen CPU with
 * BPF_PROG_TEST_RUN, read its outcome counters, and check what a reader
 * delivered against what the kernel produced.
 *
 *   struct ktest kt;
 *   KTEST_SETUP(&kt, 0);                // or SKIP()s with the reason
 *   ktest_set_len(&kt, 100);
 *   REQUIRE(ktest_produce(&kt, 0, 10) == 10);
 *   ...
 *   ktest_teardown(&kt);
 *
 * Every sample is {u64 seq; u32 cpu; u32 len; producer_pattern(i)...}; the
 * kernel pads it so that 4 + size is a multiple of 8 (ktest_padded()).
 */
#ifndef PERFRING_KTEST_H
#define PERFRING_KTEST_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <perfring/reader.h>

#include "../bpf/producer.h"
#include "producer.skel.h"

#include "harness.h"

#define KTEST_MAX_RINGS 64

struct ktest {
	struct producer_bpf *skel;
	int map_fd;   /* the perf event array `events` */
	int prog_fd;
	int ncpus;    /* online CPUs */
	char why[256];
};

/* Outcome counters of the producer (its bss), as one snapshot. */
struct ktest_counts {
	uint64_t seq;    /* samples attempted so far (next sequence number) */
	uint64_t ok;
	uint64_t enospc;
	uint64_t enoent;
	uint64_t other;
	int64_t last_error;
};

static inline uint64_t ktest_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void ktest_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Payload size the kernel delivers for a len-byte bpf_perf_event_output(). */
static inline size_t ktest_padded(size_t len)
{
	return ((len + 4 + 7) & ~(size_t)7) - 4;
}

/* Size of the PERF_RECORD_SAMPLE carrying it (header + u32 size + payload). */
static inline size_t ktest_record_size(size_t len)
{
	return 8 + 4 + ktest_padded(len);
}

static int ktest_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Fill a producer's `scratch` map (tests/bpf/producer.bpf.c, tests/bpf/rb_producer.bpf.c)
 * with producer_pattern() for every possible CPU. 0, or -1 with why set. */
/* A BPF object's load failed with err (libbpf's negative errno): the reason in
 * why; 1 (skip) when the kernel has no BPF or we lack the privilege for it (not
 * the test's fault), else -1. */
static inline int ktest_load_failed(int err, const char *what, char *why, size_t whylen)
{
	snprintf(why, whylen, "loading %s failed: %s", what, strerror(-err));
	return (-err == ENOSYS || -err == EPERM || -err == EACCES) ? 1 : -1;
}

static inline int ktest_fill_scratch(int scratch_fd, char *why, size_t whylen)
{
	static unsigned char pattern[65536];
	int possible = libbpf_num_possible_cpus(), i;
	uint32_t key;

	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = producer_pattern((unsigned int)i);
	for (key = 0; (int)key < possible; key++) {
		if (bpf_map_update_elem(scratch_fd, &key, pattern, BPF_ANY)) {
			snprintf(why, whylen, "filling scratch[%u]: %s", key, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * Open the producer, give `events` max_entries entries (0: libbpf's default,
 * the number of possible CPUs), load it and fill `scratch` with the pattern
 * for every possible CPU. Returns 0, 1 when the machine cannot run the test
 * (kt->why says why), or -1 on an unexpected failure (kt->why too).
 */
static inline int ktest_setup_rc(struct ktest *kt, int max_entries)
{
	int err;

	memset(kt, 0, sizeof(*kt));
	kt->map_fd = kt->prog_fd = -1;
	libbpf_set_print(ktest_libbpf_print);
	if (geteuid() != 0) {
		snprintf(kt->why, sizeof(kt->why), "needs root (BPF_PROG_TEST_RUN, perf events, map updates)");
		return 1;
	}
	kt->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	kt->skel = producer_bpf__open();
	if (!kt->skel) {
		snprintf(kt->why, sizeof(kt->why), "producer_bpf__open: %s", strerror(errno));
		return -1;
	}
	if (max_entries > 0 && bpf_map__set_max_entries(kt->skel->maps.events, (__u32)max_entries)) {
		snprintf(kt->why, sizeof(kt->why), "bpf_map__set_max_entries failed");
		return -1;
	}
	err = producer_bpf__load(kt->skel);
	if (err) {
		producer_bpf__destroy(kt->skel);
		kt->skel = NULL;
		return ktest_load_failed(err, "the BPF producer", kt->why, sizeof(kt->why));
	}
	kt->map_fd = bpf_map__fd(kt->skel->maps.events);
	kt->prog_fd = bpf_program__fd(kt->skel->progs.produce);
	return ktest_fill_scratch(bpf_map__fd(kt->skel->maps.scratch), kt->why, sizeof(kt->why));
}

static inline void ktest_teardown(struct ktest *kt)
{
	if (kt->skel)
		producer_bpf__destroy(kt->skel);
	kt->skel = NULL;
}

/* Set up or SKIP/FAIL the current test. */
#define KTEST_SETUP(kt, max_entries)                                              \
	do {                                                                      \
		int kt_rc_ = ktest_setup_rc((kt), (max_entries));                 \
		if (kt_rc_ > 0)                                                   \
			SKIP("%s", (kt)->why);                                    \
		REQUIREF(kt_rc_ == 0, "setup: %s", (kt)->why);                    \
	} while (0)

/* Tests that need CPUs 0 and 1. */
#define KTEST_NEED_CPUS(kt, n)                                                    \
	do {                                                                      \
		if ((kt)->ncpus < (n)) {                                          \
			ktest_teardown(kt);                                       \
			SKIP("needs %d online CPUs, this machine has %d", (n), (kt)->ncpus); \
		}                                                                 \
	} while (0)

static inline void ktest_set_len(struct ktest *kt, uint32_t len)
{
	kt->skel->data->payload_len = len;
}

static inline struct ktest_counts ktest_counts(const struct ktest *kt)
{
	const volatile struct producer_bpf__bss *b = kt->skel->bss;
	struct ktest_counts c;

	c.seq = b->seq_next;
	c.ok = b->out_ok;
	c.enospc = b->out_enospc;
	c.enoent = b->out_enoent;
	c.other = b->out_other;
	c.last_error = b->last_error;
	return c;
}

/*
 * Run the producer n times on cpu from the calling thread (pinned for the
 * duration, its affinity restored afterwards). Returns the number of runs
 * that happened (n unless an error), or a negative errno.
 *
 * On this kernel an XDP BPF_PROG_TEST_RUN with repeat > 1 costs a fixed
 * 15-30 ms per call, with repeat = 1 about 2 us: small counts are run one
 * call per record, large ones in one call.
 */
#define KTEST_REPEAT_MIN 8192u

static inline int64_t ktest_produce_on(struct ktest *kt, int cpu, uint32_t n, bool concurrent)
{
	unsigned char pkt[64];
	cpu_set_t old, one;
	uint64_t start = kt->skel->bss->seq_next, done = 0;
	int err = 0;

	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08; /* ethertype IPv4, for form's sake */
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	err = pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	if (err)
		return -err;
	for (;;) {
		__u32 repeat;

		/* Alone, the sequence counter says how many ran, even after a
		 * signal cut a run short; with other producers, count calls. */
		if (!concurrent)
			done = kt->skel->bss->seq_next - start;
		if (done >= n)
			break;
		repeat = n - done >= KTEST_REPEAT_MIN ? (__u32)(n - done) : 1;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);
		err = bpf_prog_test_run_opts(kt->prog_fd, &opts);
		if (err == -EINTR && !concurrent)
			continue;
		if (err)
			break;
		done += repeat;
	}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (err)
		return err;
	return concurrent ? (int64_t)done : (int64_t)(kt->skel->bss->seq_next - start);
}

/* Run the producer n times on cpu; the only producer at the time. */
static inline int64_t ktest_produce(struct ktest *kt, int cpu, uint32_t n)
{
	return ktest_produce_on(kt, cpu, n, false);
}

/* The same while other threads produce too (the count is of this thread's
 * runs; a signal makes it fail with -EINTR). */
static inline int64_t ktest_produce_concurrent(struct ktest *kt, int cpu, uint32_t n)
{
	return ktest_produce_on(kt, cpu, n, true);
}

/* Pin the calling thread to one CPU (for reader threads). */
static inline int ktest_pin_self(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

/* A sample's own header. */
struct ktest_sample {
	uint64_t seq;
	uint32_t cpu;
	uint32_t len;
};

/*
 * Check one delivered payload, given as up to two spans (n1 bytes at d1,
 * then n2 at d2): total size == ktest_padded(len), header fields, and every
 * pattern byte up to len. want_len 0 accepts any len >= 16, want_cpu < 0
 * any cpu. Returns 0, or -1 with the reason in why.
 */
static inline int ktest_check_payload(const void *d1, size_t n1, const void *d2, size_t n2, uint32_t want_len,
				      int want_cpu, struct ktest_sample *out, char *why, size_t whylen)
{
	const unsigned char *a = d1, *b = d2;
	unsigned char hdr[sizeof(struct producer_sample)];
	struct producer_sample s;
	size_t i, total = n1 + n2;

	if (total < sizeof(hdr)) {
		snprintf(why, whylen, "payload of %zu bytes is shorter than the sample header", total);
		return -1;
	}
	if (n2 && !b) {
		snprintf(why, whylen, "second span of %zu bytes has no pointer", n2);
		return -1;
	}
	for (i = 0; i < sizeof(hdr); i++)
		hdr[i] = i < n1 ? a[i] : b[i - n1];
	memcpy(&s, hdr, sizeof(s));
	if (out) {
		out->seq = s.seq;
		out->cpu = s.cpu;
		out->len = s.len;
	}
	if (want_len && s.len != want_len) {
		snprintf(why, whylen, "seq %llu: len field %u, produced %u", (unsigned long long)s.seq, s.len,
			 want_len);
		return -1;
	}
	if (s.len < sizeof(hdr) || s.len > PRODUCER_MAX_LEN) {
		snprintf(why, whylen, "seq %llu: impossible len field %u", (unsigned long long)s.seq, s.len);
		return -1;
	}
	if (want_cpu >= 0 && s.cpu != (uint32_t)want_cpu) {
		snprintf(why, whylen, "seq %llu: cpu field %u, expected %d", (unsigned long long)s.seq, s.cpu,
			 want_cpu);
		return -1;
	}
	if (total != ktest_padded(s.len)) {
		snprintf(why, whylen, "seq %llu: delivered %zu bytes (%zu + %zu) for len %u, kernel pads to %zu",
			 (unsigned long long)s.seq, total, n1, n2, s.len, ktest_padded(s.len));
		return -1;
	}
	for (i = sizeof(hdr); i < s.len; i++) {
		unsigned char c = i < n1 ? a[i] : b[i - n1];

		if (c != producer_pattern((unsigned int)i)) {
			snprintf(why, whylen, "seq %llu len %u: byte %zu is 0x%02x, expected 0x%02x (spans %zu + %zu)",
				 (unsigned long long)s.seq, s.len, i, c, producer_pattern((unsigned int)i), n1, n2);
			return -1;
		}
	}
	return 0;
}

/*
 * A record callback for perfring_reader_poll()/_consume() that checks every
 * event and keeps counts. Errors are recorded, not asserted, so that it can
 * run in any thread; the test checks `errors` afterwards.
 */
struct ktest_collect {
	/* settings */
	const struct perfring_reader *rd;
	uint32_t want_len;   /* 0: any */
	int want_cpu;        /* -1: any (the sample's cpu must still equal the ring's) */
	bool backward;       /* overwrite ring: seq decreasing, newest first */
	bool linear;         /* opts.linearize: a sample must be one span */
	uint64_t *seqs;      /* optional: every sample's seq, in arrival order */
	size_t seq_cap;
	int stop_after;      /* > 0: return PERFRING_STOP after this many events */
	/* results */
	uint64_t events, samples, lost_events, lost, other;
	uint64_t rec_bytes;  /* sum of the records' sizes */
	uint64_t straddled;  /* records whose body crosses the end of the ring */
	uint64_t nseq;
	int errors;
	char error[512];
	struct ktest_ring_seen {
		bool any;
		uint64_t last_seq;     /* of the last sample */
		bool any_sample;
		uint64_t last_offset;  /* of the last record */
		uint64_t last_size;
		uint64_t last_remaining;
		uint64_t events, samples, lost, lost_events, bytes;
		uint64_t pending_lost; /* LOST counts since the last sample */
		uint64_t gap_errors;
	} ring[KTEST_MAX_RINGS];
};

__attribute__((format(printf, 2, 3))) static inline void ktest_collect_err(struct ktest_collect *c, const char *fmt,
									      ...)
{
	va_list ap;

	if (!c->errors++) {
		va_start(ap, fmt);
		vsnprintf(c->error, sizeof(c->error), fmt, ap);
		va_end(ap);
	}
}

static inline void ktest_collect_init(struct ktest_collect *c, const struct perfring_reader *rd, uint32_t want_len)
{
	memset(c, 0, sizeof(*c));
	c->rd = rd;
	c->want_len = want_len;
	c->want_cpu = -1;
}

static inline int ktest_collect_fn(const struct perfring_msg *ev, void *ctx)
{
	struct ktest_collect *c = ctx;
	const struct perfring_ring_record *rec = perfring_msg_record(ev);
	struct ktest_ring_seen *r;
	struct ktest_sample s;
	char why[256];
	size_t bufsz;

	c->events++;
	if (ev->ring_idx < 0 || ev->ring_idx >= KTEST_MAX_RINGS || ev->ring_idx >= perfring_reader_ring_cnt(c->rd)) {
		ktest_collect_err(c, "event with ring_idx %d", ev->ring_idx);
		return PERFRING_CONTINUE;
	}
	r = &c->ring[ev->ring_idx];
	if (ev->cpu != perfring_reader_ring_cpu(c->rd, ev->ring_idx))
		ktest_collect_err(c, "event cpu %d but ring %d is cpu %d", ev->cpu, ev->ring_idx,
				  perfring_reader_ring_cpu(c->rd, ev->ring_idx));
	if (!rec) {
		ktest_collect_err(c, "event without its raw record");
		return PERFRING_CONTINUE;
	}
	if (rec->size < 8 || rec->size % 8 || rec->len + rec->len2 != rec->size || (rec->len2 && !rec->data2))
		ktest_collect_err(c, "bad raw record: size %u len %zu len2 %zu", rec->size, rec->len, rec->len2);
	bufsz = perfring_ring_data_size(perfring_reader_ring(c->rd, ev->ring_idx));
	if (bufsz && (rec->offset & (bufsz - 1)) + rec->size > bufsz)
		c->straddled++;
	if (perfring_msg_remaining(ev) != rec->remaining)
		ktest_collect_err(c, "event remaining %llu, record remaining %llu", (unsigned long long)perfring_msg_remaining(ev),
				  (unsigned long long)rec->remaining);
	/* Forward rings: records are contiguous, and a batch's remaining counts down by sizes. */
	if (r->any && !c->backward) {
		if (rec->offset != r->last_offset + r->last_size)
			ktest_collect_err(c, "ring %d: record at offset %llu, previous ended at %llu", ev->ring_idx,
					  (unsigned long long)rec->offset,
					  (unsigned long long)(r->last_offset + r->last_size));
		if (r->last_remaining && r->last_remaining != rec->size + perfring_msg_remaining(ev))
			ktest_collect_err(c, "ring %d: remaining %llu then a %u-byte record with remaining %llu",
					  ev->ring_idx, (unsigned long long)r->last_remaining, rec->size,
					  (unsigned long long)perfring_msg_remaining(ev));
	}
	r->any = true;
	r->last_offset = rec->offset;
	r->last_size = rec->size;
	r->last_remaining = perfring_msg_remaining(ev);
	r->events++;
	r->bytes += rec->size;
	c->rec_bytes += rec->size;

	switch (ev->kind) {
	case PERFRING_MSG_SAMPLE:
		if (rec->type != 9 /* PERF_RECORD_SAMPLE */)
			ktest_collect_err(c, "SAMPLE event of record type %u", rec->type);
		if (c->linear && (ev->data2 || ev->size2))
			ktest_collect_err(c, "linearize: sample given as two spans (%zu + %zu)", ev->size, ev->size2);
		if (!c->linear && bufsz) {
			/* The payload starts after the 8-byte header and the u32 size. */
			size_t pos = (size_t)((rec->offset + 12) & (bufsz - 1));
			size_t total = ev->size + ev->size2;
			size_t first = pos + total > bufsz ? bufsz - pos : total;

			if (ev->size != first || ev->size2 != total - first)
				ktest_collect_err(c, "payload at ring position %zu of %zu bytes given as %zu + %zu, "
						  "expected %zu + %zu", pos, total, ev->size, ev->size2, first,
						  total - first);
		}
		if (ktest_check_payload(ev->data, ev->size, ev->data2, ev->size2, c->want_len,
					c->want_cpu >= 0 ? c->want_cpu : ev->cpu, &s, why, sizeof(why))) {
			ktest_collect_err(c, "ring %d: %s", ev->ring_idx, why);
			break;
		}
		if (r->any_sample) {
			bool order_ok = c->backward ? s.seq < r->last_seq : s.seq > r->last_seq;

			if (!order_ok)
				ktest_collect_err(c, "ring %d: seq %llu after seq %llu (%s ring)", ev->ring_idx,
						  (unsigned long long)s.seq, (unsigned long long)r->last_seq,
						  c->backward ? "overwrite" : "forward");
		}
		r->any_sample = true;
		r->last_seq = s.seq;
		r->pending_lost = 0;
		r->samples++;
		c->samples++;
		if (c->seqs) {
			if (c->nseq < c->seq_cap)
				c->seqs[c->nseq] = s.seq;
			else
				ktest_collect_err(c, "more samples than the %zu expected", c->seq_cap);
		}
		c->nseq++;
		break;
	case PERFRING_MSG_LOST:
		if (rec->type != 2 /* PERF_RECORD_LOST */)
			ktest_collect_err(c, "LOST event of record type %u", rec->type);
		if (ev->lost == 0)
			ktest_collect_err(c, "LOST event with a count of 0");
		r->lost += ev->lost;
		r->lost_events++;
		r->pending_lost += ev->lost;
		c->lost += ev->lost;
		c->lost_events++;
		break;
	default:
		c->other++;
		ktest_collect_err(c, "unexpected event kind %d (record type %u)", (int)ev->kind, rec->type);
		break;
	}
	if (c->stop_after > 0 && c->events >= (uint64_t)c->stop_after)
		return PERFRING_STOP;
	return PERFRING_CONTINUE;
}

/* Assert, in the test's thread, that a collector saw no error. */
#define KTEST_CHECK_COLLECT(c) CHECKF((c)->errors == 0, "%d bad events, first: %s", (c)->errors, (c)->error)

/* Poll until want samples+lost events have arrived or timeout_ns passed overall. */
static inline int ktest_poll_until(struct perfring_reader *rd, struct ktest_collect *c, uint64_t want_events,
				   uint64_t timeout_ns)
{
	uint64_t end = ktest_now_ns() + timeout_ns;
	int ret = 0;

	while (c->events < want_events) {
		uint64_t now = ktest_now_ns();

		if (now >= end)
			return -ETIMEDOUT;
		ret = perfring_reader_poll(rd, (int64_t)(end - now), ktest_collect_fn, c);
		if (ret < 0 && ret != -ETIMEDOUT)
			return ret;
	}
	return 0;
}

/*
 * A blocking reader call run in its own thread, so that the test thread can
 * close, flush, wake it or set its deadline, and give up on it (instead of
 * hanging) if it never returns.
 */
enum ktest_call_kind { KTEST_CALL_POLL, KTEST_CALL_READ, KTEST_CALL_WAIT };

struct ktest_call {
	struct perfring_reader *rd;
	enum ktest_call_kind kind;
	int64_t timeout_ns;
	bool loop;               /* POLL: call again while it returns > 0 */
	struct ktest_collect c;  /* POLL: what was delivered */
	struct perfring_msg_buf rr;
	int ret;                 /* the (last) call's return */
	int calls;               /* atomic: the test thread peeks at it */
	uint64_t t_start, t_end; /* CLOCK_MONOTONIC around the (last) call */
	int started;             /* set (atomically) just before the first call */
	pthread_t th;
};

static inline void *ktest_call_thread(void *arg)
{
	struct ktest_call *k = arg;

	__atomic_store_n(&k->started, 1, __ATOMIC_RELEASE);
	do {
		k->t_start = ktest_now_ns();
		switch (k->kind) {
		case KTEST_CALL_POLL:
			k->ret = perfring_reader_poll(k->rd, k->timeout_ns, ktest_collect_fn, &k->c);
			break;
		case KTEST_CALL_READ:
			k->ret = perfring_reader_read(k->rd, &k->rr, k->timeout_ns);
			break;
		case KTEST_CALL_WAIT:
			k->ret = perfring_reader_wait(k->rd, k->timeout_ns);
			break;
		}
		k->t_end = ktest_now_ns();
		__atomic_add_fetch(&k->calls, 1, __ATOMIC_RELEASE);
	} while (k->loop && k->ret > 0);
	return NULL;
}

/* Start the call (POLL checks samples of want_len, 0: any); returns 0 or an
 * errno. Waits until the thread is about to call. */
static inline int ktest_call_start(struct ktest_call *k, struct perfring_reader *rd, enum ktest_call_kind kind,
				   int64_t timeout_ns, bool loop, uint32_t want_len)
{
	int err;

	memset(k, 0, sizeof(*k));
	k->rd = rd;
	k->kind = kind;
	k->timeout_ns = timeout_ns;
	k->loop = loop;
	ktest_collect_init(&k->c, rd, want_len);
	err = pthread_create(&k->th, NULL, ktest_call_thread, k);
	if (err)
		return err;
	while (!__atomic_load_n(&k->started, __ATOMIC_ACQUIRE))
		ktest_sleep_ns(100000);
	return 0;
}

/* Join within limit_ns; false (the thread is left running, so the reader
 * must then be leaked) if it did not return. */
static inline bool ktest_call_join(struct ktest_call *k, uint64_t limit_ns)
{
	struct timespec ts;
	uint64_t at;

	clock_gettime(CLOCK_REALTIME, &ts);
	at = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + limit_ns;
	ts.tv_sec = (time_t)(at / 1000000000ull);
	ts.tv_nsec = (long)(at % 1000000000ull);
	if (pthread_timedjoin_np(k->th, NULL, &ts))
		return false;
	perfring_msg_buf_release(&k->rr);
	return true;
}

#endif /* PERFRING_KTEST_H */

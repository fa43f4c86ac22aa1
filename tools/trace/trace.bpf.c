// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program behind `perfring trace`: one generic tracepoint program,
 * attached to every tracepoint the user names, that copies the tracepoint's
 * record (and the user strings a syscall's arguments point to) into the
 * perf event array `events`. The layout of a sample and of the per-
 * tracepoint configuration is in trace.h; user space decodes the fields
 * from the tracepoint's format.
 *
 * Filters (pid, comm, CPU) run here, before anything is copied, so that
 * filtered events cost the ring nothing.
 *
 * With use_ringbuf (`perfring trace --ringbuf`) the samples go to the BPF
 * ring buffer `events_rb` instead, through perfring_ringbuf.bpf.h (failed
 * writes counted as lost), each followed by the u32 CPU it was written on
 * (a shared ring does not tell).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <perfring/bpf/perfring_ringbuf.bpf.h>

#include "trace.h"

/* The errors that mean "no room" (no libc headers in a BPF object). */
#ifndef EAGAIN
#define EAGAIN 11
#endif
#ifndef ENOSPC
#define ENOSPC 28
#endif

struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* Sized by user space (trace_load()) when used. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events_rb SEC(".maps");

/* What to copy, by the index user space gave as the attach cookie. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_TPS);
	__type(key, __u32);
	__type(value, struct trace_cfg);
} configs SEC(".maps");

/* Processes traced under TRACE_FILTER_PID (tgid -> 1). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} pids SEC(".maps");

/* CPUs traced under TRACE_FILTER_CPU (cpu -> 1). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

struct trace_buf {
	char data[TRACE_BUF_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_buf);
} scratch SEC(".maps");

const volatile __u32 filter_flags = 0;
const volatile __u32 use_ringbuf = 0;
const volatile char filter_comm[TRACE_COMM_LEN] = {};
/* perfring's own process: in `pids` so that its children are followed, but
 * not traced itself. */
const volatile __u32 exclude_tgid = 0;

/* The counters (struct trace_counts), per CPU: no atomic shared by every
 * CPU on the hot path, and the summary's per-CPU figures. A tracepoint
 * program does not nest on one CPU (the kernel skips a recursive run),
 * so plain increments are safe. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_counts);
} stats SEC(".maps");

/* Set by user space once it stops reading: detaching takes a while (see
 * tools/trace/trace_load.c) and the events of that time would only be dropped. */
__u32 stopping;

#define HDR_LEN sizeof(struct trace_sample_hdr)

static __always_inline int trace_wanted(__u32 tgid, char *comm)
{
	if (exclude_tgid && tgid == exclude_tgid)
		return 0;
	if (filter_flags & TRACE_FILTER_CPU) {
		__u32 cpu = bpf_get_smp_processor_id();
		__u8 *on = bpf_map_lookup_elem(&cpus, &cpu);

		if (!on || !*on)
			return 0;
	}
	if ((filter_flags & TRACE_FILTER_PID) && !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	if (filter_flags & TRACE_FILTER_COMM) {
		for (int i = 0; i < TRACE_COMM_LEN; i++) {
			if (comm[i] != filter_comm[i])
				return 0;
			if (!comm[i])
				break;
		}
	}
	return 1;
}

/* The end of the record: the fixed part, or the end of its furthest dynamic field. */
static __always_inline __u32 trace_rec_size(const struct trace_cfg *cfg, const char *rec)
{
	__u32 end = cfg->fixed_size;

	for (int i = 0; i < TRACE_MAX_DYN; i++) {
		__u32 off, loc, start, last;

		if (i >= cfg->n_dyn)
			break;
		off = cfg->dyn_off[i] & (TRACE_REC_MAX - 1);
		loc = *(const __u32 *)(rec + off);
		start = loc & 0xffff;
		if (cfg->dyn_kind[i] == TRACE_DYN_REL_LOC)
			start += off + 4;
		last = start + (loc >> 16);
		if (last > end)
			end = last;
	}
	return end;
}

/* Append one user string at *pos; false when the sample is full. */
static __always_inline int trace_put_str(char *buf, __u32 *pos, __u8 field, __u8 elem, const void *uptr)
{
	struct trace_extra *x;
	__u32 p = *pos;
	long n = 0;

	if (p + sizeof(*x) + TRACE_STR_MAX > TRACE_SAMPLE_MAX)
		return 0;
	p &= TRACE_SAMPLE_MAX - 1; /* a no-op, which the verifier needs to see */
	x = (struct trace_extra *)(buf + p);
	if (uptr)
		n = bpf_probe_read_user_str(buf + p + sizeof(*x), TRACE_STR_MAX, uptr);
	if (n < 0)
		n = 0;
	x->field = field;
	x->elem = elem;
	x->len = n;
	*pos = p + ((sizeof(*x) + n + 3) & ~3u);
	return 1;
}

/* The walk over a NULL-terminated array of strings, one element per
 * bpf_loop() call: the verifier checks the callback once, not per element. */
struct trace_walk {
	char *buf;
	__u64 array; /* user address of the array */
	__u32 pos;
	__u16 flags;
	__u8 field;
};

static long trace_walk_elem(__u32 e, void *arg)
{
	struct trace_walk *w = arg;
	__u64 s = 0;

	if (bpf_probe_read_user(&s, sizeof(s), (const void *)(w->array + e * 8ull)) || !s)
		return 1;
	if (!trace_put_str(w->buf, &w->pos, w->field, e, (const void *)s)) {
		w->flags |= TRACE_F_EXTRA_TRUNCATED;
		return 1;
	}
	if (e == TRACE_MAX_STR_ELEMS - 1)
		w->flags |= TRACE_F_EXTRA_TRUNCATED; /* maybe more: not read */
	return 0;
}

/* The strings a syscall's pointer arguments point to, after the record. */
static __always_inline __u16 trace_user_strings(const struct trace_cfg *cfg, char *buf, __u32 *pos)
{
	struct trace_walk w = { .buf = buf, .pos = *pos };
	const char *rec = buf + HDR_LEN;

	for (int f = 0; f < TRACE_MAX_USTR; f++) {
		__u64 uptr;

		if (f >= cfg->n_ustr)
			break;
		uptr = *(const __u64 *)(rec + (cfg->ustr_off[f] & (TRACE_REC_MAX - 1)));
		if (cfg->ustr_kind[f] == TRACE_USTR_STRING) {
			if (!trace_put_str(buf, &w.pos, f, 0, (const void *)uptr)) {
				w.flags |= TRACE_F_EXTRA_TRUNCATED;
				break;
			}
		} else if (uptr) {
			w.array = uptr;
			w.field = f;
			bpf_loop(TRACE_MAX_STR_ELEMS, trace_walk_elem, &w, 0);
		}
	}
	*pos = w.pos;
	return w.flags;
}

SEC("tracepoint")
int trace_event(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct trace_sample_hdr *h;
	struct trace_counts *cnt;
	struct trace_cfg *cfg;
	__u32 key = 0, idx, size, pos;
	long err;
	char *buf;

	if (stopping)
		return 0;
	buf = bpf_map_lookup_elem(&scratch, &key);
	cnt = bpf_map_lookup_elem(&stats, &key);
	if (!buf || !cnt)
		return 0;
	h = (struct trace_sample_hdr *)buf;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	if (!trace_wanted(id >> 32, h->comm))
		return 0;
	cnt->seen++;

	/* Which tracepoint: the attach cookie. (Not common_type: syscall
	 * tracepoints hand the program a record whose common fields hold a
	 * pt_regs pointer instead.) */
	idx = (__u32)bpf_get_attach_cookie(ctx);
	cfg = bpf_map_lookup_elem(&configs, &idx);
	if (!cfg || !cfg->fixed_size) {
		cnt->no_config++;
		return 0;
	}
	h->time_ns = bpf_ktime_get_ns();
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->id = cfg->id;
	h->flags = 0;

	/* The fixed part first, to find where the dynamic fields end; then
	 * the whole record. (The verifier forbids variable offsets into ctx,
	 * so the locators are read from the copy.) */
	size = cfg->fixed_size;
	if (size > TRACE_REC_MAX)
		size = TRACE_REC_MAX;
	if (bpf_probe_read_kernel(buf + HDR_LEN, size, ctx)) {
		cnt->unreadable++;
		return 0;
	}
	if (cfg->n_dyn) {
		size = trace_rec_size(cfg, buf + HDR_LEN);
		if (size > TRACE_REC_MAX) {
			size = TRACE_REC_MAX;
			h->flags |= TRACE_F_REC_TRUNCATED;
		}
		if (bpf_probe_read_kernel(buf + HDR_LEN, size, ctx)) {
			cnt->unreadable++;
			return 0;
		}
	}
	h->rec_size = size;
	pos = HDR_LEN + ((size + 7) & ~7u);
	if (cfg->n_ustr)
		h->flags |= trace_user_strings(cfg, buf, &pos);
	h->extra_size = pos - HDR_LEN - ((size + 7) & ~7u);

	pos &= TRACE_SAMPLE_MAX - 1;
	if (use_ringbuf) {
		/* pos is a multiple of 4 (the user strings are padded to 4). */
		*(__u32 *)(buf + pos) = bpf_get_smp_processor_id();
		err = perfring_ringbuf_output(&events_rb, buf, pos + 4, 0);
	} else {
		err = bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, buf, pos);
	}
	if (err == 0) {
		cnt->sent++;
		if (h->flags)
			cnt->truncated++;
	} else if (err == -ENOSPC || err == -EAGAIN) {
		cnt->ring_full++; /* a perf ring's or the ring buffer's "no room" */
	} else {
		cnt->send_error++;
	}
	return 0;
}

/* Under TRACE_FILTER_FOLLOW, a traced process's children are traced too. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(trace_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, pid);
	__u8 one = 1;

	if (bpf_map_lookup_elem(&pids, &ptgid))
		bpf_map_update_elem(&pids, &cpid, &one, BPF_ANY);
	return 0;
}

/* ... and leave it when they are gone, so that the map does not fill up. */
SEC("raw_tp/sched_process_free")
int BPF_PROG(trace_free, struct task_struct *task)
{
	__u32 pid = BPF_CORE_READ(task, pid);

	bpf_map_delete_elem(&pids, &pid);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";

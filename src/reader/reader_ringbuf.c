// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF ring buffers (BPF_MAP_TYPE_RINGBUF) among a reader's rings: adding
 * them (one shared ring, or one per CPU from an array of maps), and their
 * side of every delivery path (zero-copy drain, copy-out read,
 * consume_samples, the wait's data check), each built on pr_rb_walk() of
 * the ring buffer layer. Losses counted by perfring_ringbuf.bpf.h are
 * delivered as PERFRING_MSG_LOST after a drain.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "common/sys.h"
#include "reader/reader_internal.h"
#include "ringbuf/ringbuf_internal.h"

/* The lost map is read (a syscall) after a drain that found records, at
 * most this often, and on every flush (so that a flush accounts for every
 * loss before it). */
#define PR_RB_LOST_INTERVAL_NS 1000000ull

int perfring_reader_add_ringbuf(struct perfring_reader *rd, int map_fd, const struct perfring_ringbuf_opts *opts)
{
	struct pr_rd_ring *r;
	int ret;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_add_ringbuf: reader is NULL");
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		return pr_fail(PERFRING_ECLOSED, "perfring_reader_add_ringbuf: the reader is closed");
	if (rd->order)
		return pr_fail(EOPNOTSUPP, "perfring_reader_add_ringbuf: the reader delivers in time order "
				       "(order_window_ns), which merges perf rings only; read the ring buffer in a "
				       "reader without it (a shared ring buffer is in reservation order already)");
	r = calloc(1, sizeof(*r));
	if (!r)
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	r->rb = perfring_ringbuf_new(map_fd, opts);
	if (!r->rb) {
		ret = -errno;
		free(r);
		return ret;
	}
	r->fd = r->rb->fd;
	r->wfd = -1; /* perf rings only (hotplug, arming) */
	r->arm_fd = -1;
	r->cpu = r->rb->cpu;
	ret = pr_rd_append_ring(rd, r);
	if (ret < 0) {
		perfring_ringbuf_free(r->rb);
		free(r);
	}
	return ret;
}

/* The next u32 key of a hash of maps after *key (first: key NULL). 0, -ENOENT at the end. */
static int next_key(int fd, const uint32_t *key, uint32_t *next)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(unsigned long)key;
	attr.next_key = (uint64_t)(unsigned long)next;
	return pr_bpf(BPF_MAP_GET_NEXT_KEY, &attr, sizeof(attr)) ? -errno : 0;
}

/* The inner map at key: its fd (the caller closes it), -ENOENT for an empty slot. */
static int inner_map_fd(int outer_fd, uint32_t key)
{
	union bpf_attr attr;
	uint32_t id = 0;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)outer_fd;
	attr.key = (uint64_t)(unsigned long)&key;
	attr.value = (uint64_t)(unsigned long)&id;
	if (pr_bpf(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)))
		return -errno;
	if (!id)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.map_id = id;
	attr.open_flags = 0;
	fd = pr_bpf(BPF_MAP_GET_FD_BY_ID, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

int perfring_reader_add_ringbuf_array(struct perfring_reader *rd, int outer_fd, const struct perfring_ringbuf_opts *opts)
{
	struct perfring_ringbuf_opts o;
	struct bpf_map_info info;
	uint32_t key = 0, next;
	int ret, added = 0, fd;
	bool hash, first = true;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_add_ringbuf_array: reader is NULL");
	if (pr_opts_check(opts, opts ? opts->sz : 0, sizeof(o), "perfring_ringbuf_opts"))
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	o.per_cpu = true;
	ret = pr_bpf_map_info(outer_fd, &info);
	if (ret)
		return pr_fail(-ret, "fd %d is not a BPF map: %s", outer_fd, strerror(-ret));
	if ((info.type != BPF_MAP_TYPE_ARRAY_OF_MAPS && info.type != BPF_MAP_TYPE_HASH_OF_MAPS) || info.key_size != 4)
		return pr_fail(EINVAL,
			       "map fd %d (\"%s\") is a %s with %u-byte keys, not an array (or hash) of maps with u32 "
			       "keys holding ring buffers",
			       outer_fd, info.name, pr_bpf_map_type_name(info.type), info.key_size);
	hash = info.type == BPF_MAP_TYPE_HASH_OF_MAPS;
	for (;;) {
		if (hash) {
			ret = next_key(outer_fd, first ? NULL : &key, &next);
			if (ret == -ENOENT)
				break;
			if (ret)
				return pr_fail(-ret, "cannot walk the keys of map fd %d: %s", outer_fd, strerror(-ret));
			key = next;
		} else if (!first && ++key >= info.max_entries) {
			break;
		}
		first = false;
		fd = inner_map_fd(outer_fd, key);
		if (fd == -ENOENT)
			continue;
		if (fd < 0)
			return pr_fail(-fd, "cannot open the ring buffer at key %u of map fd %d: %s", key, outer_fd,
				       strerror(-fd));
		o.cpu = (int)key;
		ret = perfring_reader_add_ringbuf(rd, fd, &o);
		close(fd);
		if (ret < 0)
			return ret;
		added++;
	}
	return added;
}

struct perfring_ringbuf *perfring_reader_ringbuf(const struct perfring_reader *rd, int idx)
{
	int cnt;

	if (!rd)
		return pr_fail_null(EINVAL, "perfring_reader_ringbuf: reader is NULL");
	cnt = __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
	if (idx < 0 || idx >= cnt)
		return pr_fail_null(EINVAL, "perfring_reader_ringbuf: ring index %d is out of range (the reader has "
				    "%d rings)", idx, cnt);
	if (!rd->rings[idx]->rb)
		return pr_fail_null(ENOTTY, "perfring_reader_ringbuf: ring %d is a perf ring: see "
				    "perfring_reader_ring()", idx);
	return rd->rings[idx]->rb;
}

int perfring_reader_ring_info(const struct perfring_reader *rd, int idx, struct perfring_reader_ring_info *info)
{
	const struct pr_rd_ring *r;
	int cnt;

	if (!rd || !info)
		return pr_fail(EINVAL, "perfring_reader_ring_info: %s is NULL", rd ? "info" : "reader");
	if (info->sz < offsetof(struct perfring_reader_ring_info, lost_known) + sizeof(info->lost_known))
		return pr_fail(EINVAL, "perfring_reader_ring_info: info->sz %zu is too small (set it with "
				       "sizeof(struct perfring_reader_ring_info))", info->sz);
	cnt = __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
	if (idx < 0 || idx >= cnt)
		return pr_fail(EINVAL, "perfring_reader_ring_info: ring index %d is out of range (the reader has %d "
				       "rings)", idx, cnt);
	r = rd->rings[idx];
	info->kind = r->rb ? PERFRING_RING_BPF_RINGBUF : PERFRING_RING_PERF;
	info->cpu = r->cpu;
	info->fd = r->fd;
	info->data_size = r->rb ? (size_t)r->rb->data_size : perfring_ring_data_size(r->ring);
	info->overwrite = r->overwrite;
	info->lost_known = r->rb ? r->rb->lost_fd >= 0 : true;
	return 0;
}

/*
 * Something to consume: a record at our position that is not BUSY. A BUSY
 * one (reserved, not yet submitted; a sleepable program may hold it long)
 * is not data: waiting on it, the reader sleeps until the kernel commits
 * it, which wakes the ring buffer's waiters because it is at consumer_pos.
 */
bool pr_rd_rb_has_data(const struct pr_rd_ring *r)
{
	const struct perfring_ringbuf *rb = r->rb;

	if (!pr_rb_avail(rb))
		return false;
	return !(pr_rb_load_len((const volatile uint32_t *)(rb->data + (pr_rb_cons(rb) & rb->mask))) & PR_RB_BUSY);
}

/* Whether the lost map is due a read: after records, at most once per
 * interval, or at once while a flush is being served. */
static bool lost_due(struct perfring_reader *rd, struct perfring_ringbuf *rb, int n)
{
	uint64_t now;

	if (rb->lost_fd < 0)
		return false;
	if (__atomic_load_n(&rd->flush_req, __ATOMIC_ACQUIRE) != rd->flush_done)
		return true;
	if (n <= 0)
		return false;
	now = pr_now_ns();
	if (now - rb->lost_check_ns < PR_RB_LOST_INTERVAL_NS)
		return false;
	rb->lost_check_ns = now;
	return true;
}

/* New losses since the last report (0: none, or the map could not be read). */
static uint64_t lost_delta(struct perfring_ringbuf *rb, uint64_t *total)
{
	if (pr_rb_read_lost(rb, total) || *total <= rb->lost_seen)
		return 0;
	return *total - rb->lost_seen;
}

static void lost_reported(struct perfring_ringbuf *rb, uint64_t total, uint64_t delta)
{
	rb->lost_seen = total;
	pr_counter_add(&rb->stats.lost, delta);
	pr_counter_add(&rb->stats.lost_records, 1);
}

struct rb_msg_ctx {
	struct perfring_msg ev;
	struct perfring_msg_src src; /* no perf record: rec NULL */
	perfring_msg_fn fn;
	void *ctx;
};

static int rb_msg_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_msg_ctx *mc = arg;

	mc->ev.data = data;
	mc->ev.size = len;
	mc->src.remaining = remaining;
	return mc->fn(&mc->ev, mc->ctx);
}

int pr_rd_rb_drain(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx, bool *stopped)
{
	struct perfring_ringbuf *rb = r->rb;
	struct rb_msg_ctx mc;
	uint64_t total, delta;
	int n, ret;

	mc.fn = fn;
	mc.ctx = ctx;
	pr_rd_msg_init(&mc.ev, &mc.src, r, false); /* no perf record: perfring_msg_record() is NULL */
	n = pr_rb_walk(rb, rb->budget, rb_msg_deliver, &mc, stopped);
	if (n < 0 || *stopped || !lost_due(rd, rb, n))
		return n;
	delta = lost_delta(rb, &total);
	if (!delta)
		return n;
	mc.ev.kind = PERFRING_MSG_LOST;
	mc.ev.data = NULL;
	mc.ev.size = 0;
	mc.ev.lost = delta;
	mc.src.remaining = 0;
	ret = fn(&mc.ev, ctx);
	if (ret < 0)
		return ret; /* reported again next time */
	lost_reported(rb, total, delta);
	if (ret > 0)
		*stopped = true;
	return n + 1;
}

struct rb_samples_ctx {
	perfring_sample_fn fn;
	void *ctx;
	int cpu;
};

static int rb_samples_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_samples_ctx *sc = arg;

	(void)remaining;
	return sc->fn(sc->ctx, sc->cpu, data, len);
}

int pr_rd_rb_samples(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_sample_fn sample_fn,
		     perfring_lost_fn lost_fn, void *ctx, bool *stopped)
{
	struct rb_samples_ctx sc = { sample_fn, ctx, r->cpu };
	struct perfring_ringbuf *rb = r->rb;
	uint64_t total, delta;
	int n;

	n = pr_rb_walk(rb, rb->budget, rb_samples_deliver, &sc, stopped);
	if (n < 0 || *stopped || !lost_due(rd, rb, n))
		return n;
	delta = lost_delta(rb, &total);
	if (!delta)
		return n;
	if (lost_fn)
		lost_fn(ctx, r->cpu, delta);
	lost_reported(rb, total, delta);
	return n + 1;
}

/* Copy-out: one record per call, within the pass's snapshot of producer_pos. */
struct rb_copy_ctx {
	struct perfring_msg_buf *out;
	int err;
};

static int rb_copy_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	struct rb_copy_ctx *cc = arg;
	struct perfring_msg_buf *out = cc->out;

	if (len > out->capacity) {
		size_t cap = out->capacity > 64 ? out->capacity : 64;
		void *p;

		while (cap < len)
			cap *= 2;
		p = realloc(out->data, cap);
		if (!p)
			return cc->err = pr_fail(ENOMEM, "perfring_reader_read: cannot grow the record buffer to %zu "
							 "bytes", cap);
		out->data = p;
		out->capacity = cap;
	}
	memcpy(out->data, data, len);
	out->size = len;
	out->remaining = remaining;
	return PERFRING_CONTINUE;
}

int pr_rd_rb_read(struct perfring_reader *rd, struct pr_rd_ring *r, struct perfring_msg_buf *out)
{
	struct perfring_ringbuf *rb = r->rb;
	struct rb_copy_ctx cc = { out, 0 };
	uint64_t total, delta;
	bool stopped = false;
	int n;

	if (r->pass_state == PR_PASS_NEW) {
		r->pass_end = pr_rb_load_producer(rb->producer_pos);
		r->pass_state = PR_PASS_ACTIVE;
	}
	out->cpu = r->cpu;
	out->lost = 0;
	/* Written after the pass reached this ring: next pass. */
	if ((int64_t)(rb->cons - r->pass_end) < 0) {
		out->kind = PERFRING_MSG_SAMPLE;
		out->type = 9; /* PERF_RECORD_SAMPLE */
		n = pr_rb_walk(rb, 1, rb_copy_deliver, &cc, &stopped);
		if (n != 0)
			return n; /* 1, or the error (a failed copy leaves its record) */
	}
	/* The end of this ring's pass: any new losses, as one LOST. */
	if (!lost_due(rd, rb, 1))
		return 0;
	delta = lost_delta(rb, &total);
	if (!delta)
		return 0;
	lost_reported(rb, total, delta);
	out->kind = PERFRING_MSG_LOST;
	out->type = 2; /* PERF_RECORD_LOST */
	out->lost = delta;
	out->size = 0;
	out->remaining = 0;
	return 1;
}

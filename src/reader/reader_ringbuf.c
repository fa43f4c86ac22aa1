// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Set-up of BPF ring buffers (BPF_MAP_TYPE_RINGBUF) among a reader's rings:
 * adding them (one shared ring, or one per CPU from an array of maps), and
 * their accessors. Their side of every delivery path is in
 * reader_ringbuf_drain.c.
 *
 * Calls (downward only): reader.c (pr_rd_append_ring), reader_bpf.c (map
 * type names for messages).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "common/sys.h"
#include "reader/reader_internal.h"
#include "ringbuf/ringbuf_internal.h"

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
	info->overwrite = r->rb ? r->rb->overwrite : r->overwrite;
	info->lost_known = r->rb ? r->rb->lost_fd >= 0 : true;
	return 0;
}

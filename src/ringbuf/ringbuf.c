// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One BPF ring buffer (BPF_MAP_TYPE_RINGBUF): mapping it as the kernel lays
 * it out, consuming it zero copy (pr_rb_walk() in ringbuf_internal.h), and
 * its lost-record map.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/internal.h"
#include "common/sys.h"
#include "ringbuf/ringbuf_internal.h"

#ifndef BPF_F_RB_OVERWRITE
#define BPF_F_RB_OVERWRITE (1U << 19) /* kernel 6.19 */
#endif

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static struct perfring_ringbuf *rb_alloc(const struct perfring_ringbuf_opts *opts)
{
	struct perfring_ringbuf *rb;

	if (pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_ringbuf_opts"))
		return pr_errno_null(EINVAL);
	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return pr_fail_null(ENOMEM, "perfring ring buffer: out of memory");
	rb->fd = -1;
	rb->lost_fd = -1;
	rb->per_cpu = PR_OPT(opts, per_cpu, false);
	rb->cpu = rb->per_cpu ? PR_OPT(opts, cpu, 0) : -1;
	rb->budget = PR_OPT(opts, budget, 0);
	return rb;
}

struct perfring_ringbuf *perfring_ringbuf_new_mem(void *base, size_t len, size_t page_size,
						   const struct perfring_ringbuf_opts *opts)
{
	struct perfring_ringbuf *rb;
	uint64_t size;

	if (!base || !page_size || page_size < 8 || (page_size & 7) || len < 2 * page_size + 16 ||
	    (len - 2 * page_size) % 2)
		return pr_fail_null(EINVAL, "memory ring buffer: need a consumer page and a producer page of %zu "
					    "bytes each, then the data area twice (got %zu bytes)", page_size, len);
	if ((uintptr_t)base & 7)
		return pr_fail_null(EINVAL, "memory ring buffer: base %p is not 8-byte aligned", base);
	size = (len - 2 * page_size) / 2;
	if (!is_pow2(size))
		return pr_fail_null(EINVAL, "memory ring buffer: the data area of %llu bytes is not a power of two",
				    (unsigned long long)size);
	if (PR_OPT(opts, lost_map_fd, 0))
		return pr_fail_null(EINVAL, "memory ring buffer: lost_map_fd applies to maps only");
	if (PR_OPT(opts, overwrite, false) && (page_size < PR_RB_OVERWRITE_POS_OFF + 8 || size > (1ull << 31)))
		return pr_fail_null(EINVAL, "memory overwrite ring buffer: the producer page must hold overwrite_pos "
					    "at byte %u (page_size %zu) and the data area be at most 2 GiB (%llu bytes)",
				    PR_RB_OVERWRITE_POS_OFF, page_size, (unsigned long long)size);
	rb = rb_alloc(opts);
	if (!rb)
		return NULL;
	rb->page_size = page_size;
	rb->consumer_pos = (volatile uint64_t *)base;
	rb->producer_pos = (const volatile uint64_t *)((uint8_t *)base + page_size);
	rb->overwrite = PR_OPT(opts, overwrite, false);
	if (rb->overwrite)
		rb->overwrite_pos = (const volatile uint64_t *)((uint8_t *)base + page_size + PR_RB_OVERWRITE_POS_OFF);
	rb->data = (const uint8_t *)base + 2 * page_size;
	rb->data_size = size;
	rb->mask = size - 1;
	rb->cons = __atomic_load_n(rb->consumer_pos, __ATOMIC_RELAXED);
	return rb;
}

static int map_error(int err, int fd, size_t len)
{
	char memlock[48];

	pr_memlock_limit(memlock, sizeof(memlock));
	return pr_fail(err,
		       "cannot map the BPF ring buffer (map fd %d, %zu bytes): %s. Mapping needs the map's "
		       "memory to be charged (RLIMIT_MEMLOCK now %s on kernels before 5.11, memory cgroup after) "
		       "and the address space for the data area twice; raise ulimit -l or use a smaller ring",
		       fd, len, strerror(err), memlock);
}

/* Whether the running kernel knows BPF_F_RB_OVERWRITE: create a tiny one. */
static int overwrite_probe(void)
{
	union bpf_attr attr;
	struct utsname u;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_RINGBUF;
	attr.max_entries = (uint32_t)perfring_page_size();
	attr.map_flags = BPF_F_RB_OVERWRITE;
	fd = pr_bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return pr_fail(EOPNOTSUPP,
		       "overwrite BPF ring buffers (BPF_F_RB_OVERWRITE) need Linux 6.19 or later: this kernel (%s) "
		       "refuses the map flag (%s)",
		       u.release, strerror(errno));
}

/* How BPF_OBJ_GET_INFO_BY_FD failed, for messages. */
static const char *map_info_what(int ret)
{
	return ret == -EBADF || ret == -EBADFD || ret == -EINVAL ? "is not a BPF map" : "cannot be queried (BPF_OBJ_GET_INFO_BY_FD)";
}

static int check_lost_map(int fd)
{
	struct bpf_map_info info;
	int ret = pr_bpf_map_info(fd, &info);

	if (ret)
		return pr_fail(-ret, "lost_map_fd %d %s: %s", fd, map_info_what(ret), strerror(-ret));
	if (info.type != BPF_MAP_TYPE_PERCPU_ARRAY || info.key_size != 4 || info.value_size != 8 ||
	    info.max_entries < 1)
		return pr_fail(EINVAL,
			       "lost_map_fd %d (\"%s\", %s, key %u value %u bytes) is not the lost map of "
			       "perfring_ringbuf.bpf.h (%s: BPF_MAP_TYPE_PERCPU_ARRAY, u32 key, u64 value)",
			       fd, info.name, pr_bpf_map_type_name(info.type), info.key_size, info.value_size,
			       PERFRING_RINGBUF_LOST_MAP);
	return 0;
}

static void rb_release(struct perfring_ringbuf *rb)
{
	if (rb->cons_map)
		munmap(rb->cons_map, rb->page_size);
	if (rb->prod_map)
		munmap(rb->prod_map, rb->prod_len);
	if (rb->fd >= 0)
		close(rb->fd);
	if (rb->lost_fd >= 0)
		close(rb->lost_fd);
	free(rb->ow);
	free(rb->ow_copy);
	free(rb);
}

struct perfring_ringbuf *perfring_ringbuf_new(int map_fd, const struct perfring_ringbuf_opts *opts)
{
	struct perfring_ringbuf *rb;
	struct bpf_map_info info;
	size_t page = perfring_page_size();
	int ret, lost_fd;

	ret = pr_bpf_map_info(map_fd, &info);
	if (ret)
		return pr_fail_null(-ret, "fd %d %s: %s", map_fd, map_info_what(ret), strerror(-ret));
	if (info.type != BPF_MAP_TYPE_RINGBUF)
		return pr_fail_null(EINVAL,
				    "map fd %d (\"%s\") is a %s, not a BPF_MAP_TYPE_RINGBUF (a perf event array "
				    "goes to perfring_reader_new_bpf())",
				    map_fd, info.name, pr_bpf_map_type_name(info.type));
	/* A map with the flag is read as an overwrite ring whatever opts say
	 * (read forward, its records would be taken for consumed while the
	 * producer writes over them); opts.overwrite asks for one. */
	if (PR_OPT(opts, overwrite, false) && !(info.map_flags & BPF_F_RB_OVERWRITE)) {
		ret = overwrite_probe();
		if (ret)
			return pr_errno_null(-ret);
		return pr_fail_null(EINVAL, "map fd %d (\"%s\") was not created with BPF_F_RB_OVERWRITE, but "
					    "opts.overwrite asks for an overwrite ring buffer", map_fd, info.name);
	}
	if (!is_pow2(info.max_entries) || info.max_entries % page)
		return pr_fail_null(EINVAL, "map fd %d: a ring buffer of %u bytes is not a power-of-two multiple of "
					    "the page size", map_fd, info.max_entries);
	rb = rb_alloc(opts);
	if (!rb)
		return NULL;
	rb->page_size = page;
	rb->data_size = info.max_entries;
	rb->mask = rb->data_size - 1;
	rb->overwrite = (info.map_flags & BPF_F_RB_OVERWRITE) != 0;
	lost_fd = PR_OPT(opts, lost_map_fd, 0);
	if (lost_fd) {
		ret = check_lost_map(lost_fd);
		if (ret) {
			free(rb);
			return pr_errno_null(-ret);
		}
		rb->lost_fd = fcntl(lost_fd, F_DUPFD_CLOEXEC, 3);
		if (rb->lost_fd < 0) {
			ret = errno;
			free(rb);
			return pr_fail_null(ret, "cannot dup lost_map_fd %d: %s", lost_fd, strerror(ret));
		}
		/* Losses before this ring existed are not its own (a perf ring
		 * starts empty too): a reader reports those counted after now. */
		ret = pr_rb_read_lost(rb, &rb->lost_seen);
		if (ret) {
			close(rb->lost_fd);
			free(rb);
			return pr_fail_null(-ret, "cannot read lost_map_fd %d: %s", lost_fd, strerror(-ret));
		}
	}
	rb->fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 3);
	if (rb->fd < 0) {
		ret = errno;
		rb_release(rb);
		return pr_fail_null(ret, "cannot dup map fd %d: %s", map_fd, strerror(ret));
	}
	/* The consumer page, read-write: consumer_pos is ours to store. */
	rb->cons_map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, rb->fd, 0);
	if (rb->cons_map == MAP_FAILED) {
		ret = errno;
		rb->cons_map = NULL;
		rb_release(rb);
		return pr_errno_null(-map_error(ret, map_fd, page));
	}
	/* The producer page and the data area twice, read-only. */
	rb->prod_len = page + 2 * rb->data_size;
	rb->prod_map = mmap(NULL, rb->prod_len, PROT_READ, MAP_SHARED, rb->fd, (off_t)page);
	if (rb->prod_map == MAP_FAILED) {
		size_t len = rb->prod_len;

		ret = errno;
		rb->prod_map = NULL;
		rb_release(rb);
		return pr_errno_null(-map_error(ret, map_fd, len));
	}
	rb->consumer_pos = (volatile uint64_t *)rb->cons_map;
	rb->producer_pos = (const volatile uint64_t *)rb->prod_map;
	rb->data = (const uint8_t *)rb->prod_map + page;
	if (rb->overwrite)
		rb->overwrite_pos = (const volatile uint64_t *)((const uint8_t *)rb->prod_map + PR_RB_OVERWRITE_POS_OFF);
	rb->cons = __atomic_load_n(rb->consumer_pos, __ATOMIC_RELAXED);
	return rb;
}

void perfring_ringbuf_free(struct perfring_ringbuf *rb)
{
	if (rb)
		rb_release(rb);
}

struct plain_cb {
	perfring_ringbuf_fn fn;
	void *ctx;
};

static int plain_deliver(void *arg, const void *data, uint32_t len, uint64_t remaining)
{
	const struct plain_cb *cb = arg;

	(void)remaining;
	return cb->fn(cb->ctx, data, len);
}

int perfring_ringbuf_consume(struct perfring_ringbuf *rb, size_t budget, perfring_ringbuf_fn fn, void *ctx)
{
	struct plain_cb cb = { fn, ctx };
	bool stopped = false;

	if (!rb || !fn)
		return pr_fail(EINVAL, "perfring_ringbuf_consume: %s is NULL", rb ? "fn" : "ring buffer");
	if (PR_UNLIKELY(rb->overwrite))
		return pr_rb_ow_read(rb, budget, plain_deliver, &cb, &stopped, false);
	return pr_rb_walk(rb, budget, plain_deliver, &cb, &stopped);
}

uint64_t perfring_ringbuf_bytes_available(const struct perfring_ringbuf *rb)
{
	if (!rb)
		return 0;
	/* A caller checks this before sleeping: ordered after our last store
	 * of consumer_pos (barrier.h, (S)). */
	pr_rb_fence_before_check();
	return rb->overwrite ? pr_rb_ow_avail(rb) : pr_rb_avail(rb);
}

bool perfring_ringbuf_is_overwrite(const struct perfring_ringbuf *rb)
{
	return rb && rb->overwrite;
}

size_t perfring_ringbuf_data_size(const struct perfring_ringbuf *rb)
{
	return rb ? (size_t)rb->data_size : 0;
}

int perfring_ringbuf_fd(const struct perfring_ringbuf *rb)
{
	if (!rb)
		return pr_fail(EINVAL, "perfring_ringbuf_fd: ring buffer is NULL");
	return rb->fd;
}

uint64_t perfring_ringbuf_error_offset(const struct perfring_ringbuf *rb)
{
	return rb ? rb->error_offset : 0;
}

uint64_t perfring_ringbuf_discard(struct perfring_ringbuf *rb)
{
	uint64_t prod, n;

	if (!rb)
		return 0;
	if (rb->overwrite)
		return pr_rb_ow_discard(rb);
	prod = pr_rb_load_producer(rb->producer_pos);
	n = prod - rb->cons;
	__atomic_store_n(&rb->cons, prod, __ATOMIC_RELAXED);
	pr_rb_store_consumer(rb->consumer_pos, prod);
	pr_counter_add(&rb->stats.dropped_bytes, n);
	return n;
}

int pr_rb_read_lost(struct perfring_ringbuf *rb, uint64_t *lost)
{
	static int ncpu;
	union bpf_attr attr;
	uint64_t stack_vals[64], *vals = stack_vals, sum = 0;
	uint32_t key = 0;
	int n = __atomic_load_n(&ncpu, __ATOMIC_RELAXED), i, ret = 0;

	if (!n) {
		/* The kernel copies one value per possible CPU: size by the
		 * highest possible id + 1. */
		int *cpus = NULL, cnt = pr_cpu_list_alloc(perfring_possible_cpus, &cpus);

		if (cnt <= 0)
			return cnt < 0 ? cnt : -ENOENT;
		n = cpus[cnt - 1] + 1;
		free(cpus);
		__atomic_store_n(&ncpu, n, __ATOMIC_RELAXED);
	}
	if (n > 64) {
		vals = calloc((size_t)n, sizeof(*vals));
		if (!vals)
			return -ENOMEM;
	}
	/* Zeroed although the kernel fills it: valgrind does not know that
	 * BPF_MAP_LOOKUP_ELEM writes the value. */
	memset(vals, 0, (size_t)n * sizeof(*vals));
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)rb->lost_fd;
	attr.key = (uint64_t)(unsigned long)&key;
	attr.value = (uint64_t)(unsigned long)vals;
	if (pr_bpf(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr)))
		ret = -errno;
	if (!ret) {
		if (rb->per_cpu)
			sum = rb->cpu >= 0 && rb->cpu < n ? vals[rb->cpu] : 0;
		else
			for (i = 0; i < n; i++)
				sum += vals[i];
		*lost = sum;
	}
	if (vals != stack_vals)
		free(vals);
	return ret;
}

int perfring_ringbuf_lost(struct perfring_ringbuf *rb, uint64_t *lost)
{
	int ret;

	if (!rb || !lost)
		return pr_fail(EINVAL, "perfring_ringbuf_lost: %s is NULL", rb ? "lost" : "ring buffer");
	if (rb->lost_fd < 0)
		return pr_fail(ENOENT, "this ring buffer has no lost map (lost_map_fd): its losses are unknown; "
				       "write through perfring_ringbuf.bpf.h and pass its %s map",
			       PERFRING_RINGBUF_LOST_MAP);
	ret = pr_rb_read_lost(rb, lost);
	if (ret)
		return pr_fail(-ret, "cannot read the lost map of the ring buffer: %s", strerror(-ret));
	return 0;
}

int perfring_ringbuf_stats(const struct perfring_ringbuf *rb, struct perfring_ring_stats *s)
{
	if (!rb || !s)
		return pr_fail(EINVAL, "perfring_ringbuf_stats: %s is NULL", rb ? "stats" : "ring buffer");
	s->records = pr_counter_get(&rb->stats.records);
	s->bytes = pr_counter_get(&rb->stats.bytes);
	s->lost = pr_counter_get(&rb->stats.lost);
	s->lost_records = pr_counter_get(&rb->stats.lost_records);
	s->corrupt = pr_counter_get(&rb->stats.corrupt);
	s->dropped_bytes = pr_counter_get(&rb->stats.dropped_bytes);
	return 0;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A BPF ring buffer in memory, laid out as the kernel maps one: consumer
 * page, producer page, then the data area mapped twice in a row (the same
 * memfd pages at two addresses), so that a record written across the end
 * shows up contiguous, as in a real map. The producer side follows
 * kernel/bpf/ringbuf.c: reserve writes len | BUSY and advances
 * producer_pos; submit clears BUSY (or sets DISCARD).
 */
#ifndef PERFRING_TEST_RBSIM_H
#define PERFRING_TEST_RBSIM_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/ringbuf.h>

#define RBS_BUSY (1u << 31)
#define RBS_DISCARD (1u << 30)

struct rbsim {
	uint8_t *base;
	size_t page, size, len;
	volatile uint64_t *cons, *prod;
	uint8_t *data;
};

static inline int rbs_init(struct rbsim *s, size_t size)
{
	int fd = memfd_create("rbsim", 0);
	void *p;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -1;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->size = size;
	s->len = 2 * s->page + 2 * size;
	if (ftruncate(fd, (off_t)(2 * s->page + size)))
		goto fail;
	p = mmap(NULL, s->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		goto fail;
	s->base = p;
	if (mmap(s->base, 2 * s->page + size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED ||
	    mmap(s->base + 2 * s->page + size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)(2 * s->page)) == MAP_FAILED)
		goto fail;
	close(fd);
	s->cons = (volatile uint64_t *)s->base;
	s->prod = (volatile uint64_t *)(s->base + s->page);
	s->data = s->base + 2 * s->page;
	return 0;
fail:
	close(fd);
	return -1;
}

static inline void rbs_free(struct rbsim *s)
{
	if (s->base)
		munmap(s->base, s->len);
}

/* Start both positions at pos (e.g. near the end of the data area). */
static inline void rbs_set_pos(struct rbsim *s, uint64_t pos)
{
	*s->cons = pos;
	*s->prod = pos;
}

static inline struct perfring_ringbuf *rbs_ring(struct rbsim *s, const struct perfring_ringbuf_opts *o)
{
	return perfring_ringbuf_new_mem(s->base, s->len, s->page, o);
}

static inline uint64_t rbs_total(uint32_t len)
{
	return ((uint64_t)len + 8 + 7) & ~(uint64_t)7;
}

/* Reserve len bytes: the payload pointer and its position, or NULL when full. */
static inline uint8_t *rbs_reserve(struct rbsim *s, uint32_t len, uint64_t *pos)
{
	uint64_t p = *s->prod, total = rbs_total(len);
	uint8_t *hdr;

	if (p - *s->cons + total > s->size)
		return NULL;
	hdr = s->data + (p & (s->size - 1));
	__atomic_store_n((uint32_t *)hdr, len | RBS_BUSY, __ATOMIC_RELAXED);
	memcpy(hdr + 4, &(uint32_t){ 0 }, 4);
	__atomic_store_n(s->prod, p + total, __ATOMIC_RELEASE);
	if (pos)
		*pos = p;
	return hdr + 8;
}

static inline void rbs_submit(struct rbsim *s, uint64_t pos, uint32_t len, int discard)
{
	uint8_t *hdr = s->data + (pos & (s->size - 1));

	__atomic_exchange_n((uint32_t *)hdr, len | (discard ? RBS_DISCARD : 0), __ATOMIC_SEQ_CST);
}

/* Reserve, fill with a pattern of seq, submit. Returns the position or UINT64_MAX when full. */
static inline uint64_t rbs_put(struct rbsim *s, uint32_t len, uint32_t seq)
{
	uint64_t pos;
	uint8_t *p = rbs_reserve(s, len, &pos);
	uint32_t i;

	if (!p)
		return UINT64_MAX;
	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seq * 7 + i);
	if (len >= 4)
		memcpy(p, &seq, 4);
	rbs_submit(s, pos, len, 0);
	return pos;
}

/* Whether data/size is what rbs_put(len, seq) wrote. */
static inline int rbs_check(const void *data, size_t size, uint32_t len, uint32_t seq)
{
	const uint8_t *p = data;
	uint32_t i, got;

	if (size != len)
		return 0;
	if (len >= 4) {
		memcpy(&got, p, 4);
		if (got != seq)
			return 0;
	}
	for (i = len >= 4 ? 4 : 0; i < len; i++)
		if (p[i] != (uint8_t)(seq * 7 + i))
			return 0;
	return 1;
}

/* Write a raw header word at the producer position and publish adv bytes. */
static inline uint64_t rbs_put_raw(struct rbsim *s, uint32_t word, uint64_t adv)
{
	uint64_t p = *s->prod;

	memcpy(s->data + (p & (s->size - 1)), &word, 4);
	__atomic_store_n(s->prod, p + adv, __ATOMIC_RELEASE);
	return p;
}

#endif /* PERFRING_TEST_RBSIM_H */

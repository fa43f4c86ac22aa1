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

/*
 * Overwrite mode (BPF_F_RB_OVERWRITE), as __bpf_ringbuf_reserve() does it
 * (Linux 6.19): pending_pos and overwrite_pos sit in the producer page at
 * bytes 8 and 16. A reservation first moves pending_pos past submitted
 * records, fails if the new record would reach a BUSY one, else moves
 * overwrite_pos over whole old records until the new one fits, then writes
 * its header and publishes producer_pos. Every store to the data area is an
 * atomic release store, so that a reader's acquire loads that see a new
 * byte also see the overwrite_pos that was stored before it (what x86's
 * store order gives the kernel); a writer thread is then no data race for
 * TSan either.
 */
static inline volatile uint64_t *rbs_pend(struct rbsim *s)
{
	return (volatile uint64_t *)(void *)(s->base + s->page + 8);
}

static inline volatile uint64_t *rbs_over(struct rbsim *s)
{
	return (volatile uint64_t *)(void *)(s->base + s->page + 16);
}

/* Start producer_pos, pending_pos, overwrite_pos and consumer_pos at pos. */
static inline void rbs_ow_set_pos(struct rbsim *s, uint64_t pos)
{
	rbs_set_pos(s, pos);
	*rbs_pend(s) = pos;
	*rbs_over(s) = pos;
}

static inline struct perfring_ringbuf *rbs_ow_ring(struct rbsim *s)
{
	struct perfring_ringbuf_opts o = PERFRING_OPTS_INIT(perfring_ringbuf_opts, .overwrite = true);

	return perfring_ringbuf_new_mem(s->base, s->len, s->page, &o);
}

static inline uint32_t rbs_len_at(struct rbsim *s, uint64_t pos)
{
	return __atomic_load_n((uint32_t *)(void *)(s->data + (pos & (s->size - 1))), __ATOMIC_RELAXED);
}

/* Reserve in overwrite mode: the payload and its position, or NULL when a BUSY record is in the way. */
static inline uint8_t *rbs_ow_reserve(struct rbsim *s, uint32_t len, uint64_t *pos)
{
	uint64_t p = __atomic_load_n(s->prod, __ATOMIC_RELAXED), total = rbs_total(len), np = p + total;
	uint64_t pend = *rbs_pend(s), over = *rbs_over(s), mask = s->size - 1;
	uint8_t *hdr;

	/* Signed distances: a test may leave garbage lengths behind (the
	 * corrupt-ring tests); the simulation must still end. */
	while ((int64_t)(p - pend) > 0) {
		uint32_t w = rbs_len_at(s, pend);

		if (w & RBS_BUSY)
			break;
		pend += rbs_total(w & ~RBS_DISCARD);
	}
	if ((int64_t)(p - pend) < 0)
		pend = p;
	__atomic_store_n(rbs_pend(s), pend, __ATOMIC_RELAXED);
	if (np - pend > mask)
		return NULL;
	while ((int64_t)(np - over) > (int64_t)mask)
		over += rbs_total(rbs_len_at(s, over) & ~RBS_DISCARD);
	if ((int64_t)(p - over) < 0)
		over = p;
	__atomic_store_n(rbs_over(s), over, __ATOMIC_RELAXED);
	hdr = s->data + (p & mask);
	__atomic_store_n((uint64_t *)(void *)hdr, (uint64_t)(len | RBS_BUSY), __ATOMIC_RELEASE);
	__atomic_store_n(s->prod, np, __ATOMIC_RELEASE);
	if (pos)
		*pos = p;
	return hdr + 8;
}

/* Fill the payload of rbs_ow_reserve() as rbs_put() does, word by word with release stores. */
static inline void rbs_ow_fill(uint8_t *payload, uint32_t len, uint32_t seq)
{
	uint8_t buf[8];
	uint32_t i, w, words = (uint32_t)((rbs_total(len) - 8) / 8);

	for (w = 0; w < words; w++) {
		uint64_t v;

		for (i = 0; i < 8; i++) {
			uint32_t k = w * 8 + i;

			buf[i] = k < 4 && len >= 4 ? (uint8_t)(seq >> (8 * k)) : (uint8_t)(seq * 7 + k);
		}
		memcpy(&v, buf, 8);
		__atomic_store_n((uint64_t *)(void *)(payload + 8 * w), v, __ATOMIC_RELEASE);
	}
}

/* Reserve, fill, submit in overwrite mode. The position, or UINT64_MAX when refused. */
static inline uint64_t rbs_ow_put(struct rbsim *s, uint32_t len, uint32_t seq)
{
	uint64_t pos;
	uint8_t *p = rbs_ow_reserve(s, len, &pos);

	if (!p)
		return UINT64_MAX;
	rbs_ow_fill(p, len, seq);
	rbs_submit(s, pos, len, 0);
	return pos;
}

#endif /* PERFRING_TEST_RBSIM_H */

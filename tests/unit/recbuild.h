/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * recbuild: build perf records byte by byte, in either byte order, for the
 * record decoder's unit tests.
 *
 *   struct rb b;
 *   rb_init(&b, swapped);
 *   rb_header(&b, PERF_RECORD_COMM, misc);
 *   rb_u32(&b, pid); rb_u32(&b, tid); rb_str(&b, "bash");
 *   rb_finish(&b);                   header.size = bytes written
 *   rec = rb_exact(&b);              a heap copy of exactly that many bytes
 *
 * Multi-byte values are written in the record's byte order (the host's, or
 * the other one when swapped), exactly as the producing kernel would lay
 * them out, independently of the library's own load helpers. rb_exact()
 * copies the bytes into an allocation of exactly their length, so that
 * AddressSanitizer reports any read past the record. The last RB_POOL
 * copies stay alive (and reachable, so never reported as leaks).
 */
#ifndef PERFRING_TESTS_RECBUILD_H
#define PERFRING_TESTS_RECBUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include <perfring/record.h>

/* Constants newer than the installed (6.1) uapi header. */
#ifndef PERF_RECORD_CALLCHAIN_DEFERRED
#define PERF_RECORD_CALLCHAIN_DEFERRED 22
#endif
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1ULL << 19)
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif
#define RB_CONTEXT_USER_DEFERRED ((uint64_t)-640)

/* header.size is a u16: no record is longer. */
#define RB_CAP 65536u
#define RB_POOL 16

struct rb {
	uint8_t buf[RB_CAP];
	size_t len;
	bool swapped;
};

static inline bool rb_host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

static inline void rb_init(struct rb *b, bool swapped)
{
	b->len = 0;
	b->swapped = swapped;
}

static inline void rb_bytes(struct rb *b, const void *p, size_t n)
{
	if (b->len + n > RB_CAP)
		abort(); /* a test bug: no record is this long */
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static inline void rb_zeros(struct rb *b, size_t n)
{
	if (b->len + n > RB_CAP)
		abort();
	memset(b->buf + b->len, 0, n);
	b->len += n;
}

static inline void rb_fill(struct rb *b, uint8_t byte, size_t n)
{
	if (b->len + n > RB_CAP)
		abort();
	memset(b->buf + b->len, byte, n);
	b->len += n;
}

/* Append v as n bytes (1, 2, 4, 8) in the record's byte order: little
 * endian when (host is little endian) != swapped. */
static inline void rb_uint(struct rb *b, uint64_t v, unsigned n)
{
	bool big = rb_host_big_endian() != b->swapped;
	uint8_t out[8];
	unsigned i;

	for (i = 0; i < n; i++)
		out[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	rb_bytes(b, out, n);
}

static inline void rb_u8(struct rb *b, uint8_t v) { rb_uint(b, v, 1); }
static inline void rb_u16(struct rb *b, uint16_t v) { rb_uint(b, v, 2); }
static inline void rb_u32(struct rb *b, uint32_t v) { rb_uint(b, v, 4); }
static inline void rb_u64(struct rb *b, uint64_t v) { rb_uint(b, v, 8); }

/* Zero bytes up to the next multiple of 8 of the record length. */
static inline void rb_pad8(struct rb *b)
{
	while (b->len % 8)
		rb_u8(b, 0);
}

/* A string field the way the kernel writes it: the bytes, a NUL, then NUL
 * padding up to a multiple of 8 bytes of field. Returns the field length. */
static inline size_t rb_str(struct rb *b, const char *s)
{
	size_t n = strlen(s) + 1, field = (n + 7) & ~(size_t)7;

	rb_bytes(b, s, n - 1);
	rb_zeros(b, field - (n - 1));
	return field;
}

/* The 8-byte header, size 0 for now (rb_finish() fixes it up). */
static inline void rb_header(struct rb *b, uint32_t type, uint16_t misc)
{
	rb_u32(b, type);
	rb_u16(b, misc);
	rb_u16(b, 0);
}

/* Overwrite header.size of the record that starts at buf[0]. */
static inline void rb_set_size(struct rb *b, uint16_t size)
{
	size_t len = b->len;

	b->len = 6;
	rb_u16(b, size);
	b->len = len;
}

/* Overwrite a u64 already written at offset off (e.g. a count). */
static inline void rb_put_u64_at(struct rb *b, size_t off, uint64_t v)
{
	size_t len = b->len;

	b->len = off;
	rb_u64(b, v);
	b->len = len;
}

/* Read back n bytes (1, 2, 4, 8) at off as a value, in the record's byte order. */
static inline uint64_t rb_get_uint(const struct rb *b, size_t off, unsigned n)
{
	bool big = rb_host_big_endian() != b->swapped;
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)b->buf[off + (big ? n - 1 - i : i)] << (8 * i);
	return v;
}

/* header.size = the bytes written so far. Returns it. */
static inline uint16_t rb_finish(struct rb *b)
{
	if (b->len > 0xffff)
		abort();
	rb_set_size(b, (uint16_t)b->len);
	return (uint16_t)b->len;
}

/* A heap copy of exactly n bytes of the record (n may be below or above
 * b->len: above, the extra bytes are 0xa5). */
static inline const uint8_t *rb_exact_n(const struct rb *b, size_t n)
{
	static uint8_t *pool[RB_POOL];
	static unsigned next;
	unsigned slot = next++ % RB_POOL;
	uint8_t *p;

	free(pool[slot]);
	p = malloc(n ? n : 1);
	if (!p)
		abort();
	memset(p, 0xa5, n);
	memcpy(p, b->buf, n < b->len ? n : b->len);
	pool[slot] = p;
	return p;
}

static inline const uint8_t *rb_exact(const struct rb *b)
{
	return rb_exact_n(b, b->len);
}

/* A parse config from an attr built here (host order, current size). */
static inline int rb_config(struct perfring_parse_config *cfg, uint64_t sample_type, uint64_t read_format,
			    bool sample_id_all, bool swapped)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = sample_type;
	attr.read_format = read_format;
	attr.sample_id_all = sample_id_all;
	/* The MMAP2 records built here take either form, as the kernel writes
	 * them for an event that asked for build ids. */
	attr.build_id = 1;
	return perfring_parse_config_init(cfg, &attr, swapped);
}

/* The sample_id fields, in their trailer order. */
#define RB_TRAILER_BITS                                                                                  \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_IDENTIFIER)

/* Distinctive sample_id values: every byte differs, so a swap or an offset
 * error shows. */
static inline struct perfring_sample_id rb_trailer_values(void)
{
	struct perfring_sample_id s;

	memset(&s, 0, sizeof(s));
	s.pid = 0x01020304;
	s.tid = 0x05060708;
	s.time = 0x1112131415161718ULL;
	s.id = 0x2122232425262728ULL;
	s.stream_id = 0x3132333435363738ULL;
	s.cpu = 0x41424344;
	s.cpu_res = 0x45464748;
	s.identifier = 0x5152535455565758ULL;
	return s;
}

/* Append the sample_id trailer for sample_type (only its trailer bits). */
static inline void rb_trailer(struct rb *b, uint64_t sample_type, const struct perfring_sample_id *s)
{
	if (sample_type & PERF_SAMPLE_TID) {
		rb_u32(b, s->pid);
		rb_u32(b, s->tid);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		rb_u64(b, s->time);
	if (sample_type & PERF_SAMPLE_ID)
		rb_u64(b, s->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, s->stream_id);
	if (sample_type & PERF_SAMPLE_CPU) {
		rb_u32(b, s->cpu);
		rb_u32(b, s->cpu_res);
	}
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, s->identifier);
}

#endif /* PERFRING_TESTS_RECBUILD_H */

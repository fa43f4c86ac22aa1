/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PERFRING_TOOL_BYTECUR_H
#define PERFRING_TOOL_BYTECUR_H

/*
 * A checked cursor over bytes read from a perf.data file (a feature
 * section, a record's payload, the tracing data), whose numbers are in the
 * file's byte order. Every read asks whether the bytes are there first:
 * a length from the file is compared with what is left (len - pos, which
 * cannot underflow: pos only grows by what was checked), never added to a
 * pointer before that. Nothing here allocates or reports; the caller says
 * what was cut short, where it knows what it was reading.
 *
 * size is the thing's own size where what may be read runs on past it:
 * perf reads a feature section from its offset to the end of the file, so
 * a length inside it may overrun the section (len) yet perf compares with
 * the section's size (size) in places. Cursors that need no such second
 * bound set size = len (bytecur_at()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct bytecur {
	const uint8_t *p;
	size_t len, pos;
	bool swapped;
	uint64_t size;
};

static inline struct bytecur bytecur_at(const void *p, size_t len, bool swapped)
{
	struct bytecur c = { (const uint8_t *)p, len, 0, swapped, len };

	return c;
}

/* A number at p in the file's byte order (sw: it is not the host's). */
static inline uint16_t rd16(const uint8_t *p, bool sw)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return sw ? __builtin_bswap16(v) : v;
}

static inline uint32_t rd32(const uint8_t *p, bool sw)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return sw ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd64(const uint8_t *p, bool sw)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return sw ? __builtin_bswap64(v) : v;
}

static inline size_t bytecur_left(const struct bytecur *c)
{
	return c->len - c->pos;
}

/* The next n bytes (p may be NULL: skipped), or false with nothing moved. */
static inline bool bytecur_take(struct bytecur *c, uint64_t n, const uint8_t **p)
{
	if (bytecur_left(c) < n)
		return false;
	if (p)
		*p = c->p + c->pos;
	c->pos += (size_t)n;
	return true;
}

static inline bool bytecur_u32(struct bytecur *c, uint32_t *v)
{
	const uint8_t *p;

	if (!bytecur_take(c, 4, &p))
		return false;
	*v = rd32(p, c->swapped);
	return true;
}

static inline bool bytecur_u64(struct bytecur *c, uint64_t *v)
{
	const uint8_t *p;

	if (!bytecur_take(c, 8, &p))
		return false;
	*v = rd64(p, c->swapped);
	return true;
}

/* A NUL-terminated string in what is left (its NUL taken too). */
static inline bool bytecur_str(struct bytecur *c, const char **s)
{
	const uint8_t *nul = (const uint8_t *)memchr(c->p + c->pos, 0, bytecur_left(c));

	if (!nul)
		return false;
	*s = (const char *)(c->p + c->pos);
	c->pos = (size_t)(nul - c->p) + 1;
	return true;
}

#endif

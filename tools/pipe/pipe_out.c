// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The three output formats of `perfring pipe`, over a buffer of our own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe/pipe_out.h"

static const char hex_digits[] = "0123456789abcdef";

int pipe_out_init(struct pipe_out *o, enum pipe_format fmt, int fd, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->fmt = fmt;
	o->fd = fd;
	o->cap = cap;
	o->buf = malloc(cap);
	return o->buf ? 0 : -ENOMEM;
}

void pipe_out_fini(struct pipe_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* Write n bytes at p, whole: a signal interrupting a write to a full pipe
 * (EINTR, or a short count) must not lose or repeat output. */
static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int pipe_out_flush(struct pipe_out *o)
{
	if (o->err)
		return o->err;
	if (o->len)
		o->err = write_all(o->fd, o->buf, o->len);
	o->len = 0;
	return o->err;
}

static void put(struct pipe_out *o, const void *p, size_t n)
{
	if (o->err)
		return;
	if (o->len + n > o->cap && pipe_out_flush(o))
		return;
	if (n > o->cap) {
		o->err = write_all(o->fd, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put_u32le(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* The payload's two spans, read by offset. */
struct span2 {
	const unsigned char *a, *b;
	size_t na, nb;
};

/* Copy up to n bytes from offset off; returns how many there were. */
static size_t span_copy(const struct span2 *s, size_t off, unsigned char *dst, size_t n)
{
	size_t total = s->na + s->nb, got = 0;

	if (off >= total)
		return 0;
	if (n > total - off)
		n = total - off;
	if (off < s->na) {
		got = s->na - off < n ? s->na - off : n;
		memcpy(dst, s->a + off, got);
	}
	if (got < n)
		memcpy(dst + got, s->b + (off + got - s->na), n - got);
	return n;
}

/* hexdump -C: offset, 16 bytes in two groups of 8, the printable ASCII. */
static void text_sample(struct pipe_out *o, int cpu, const struct span2 *s)
{
	size_t total = s->na + s->nb, off, n, i;
	unsigned char bytes[16];
	char line[96];
	int k;

	k = snprintf(line, sizeof(line), "sample %llu cpu %d size %zu\n", (unsigned long long)o->samples, cpu,
		     total);
	put(o, line, (size_t)k);
	for (off = 0; off < total; off += 16) {
		char *p = line;

		n = span_copy(s, off, bytes, 16);
		p += sprintf(p, "%08zx  ", off);
		for (i = 0; i < 16; i++) {
			if (i < n) {
				*p++ = hex_digits[bytes[i] >> 4];
				*p++ = hex_digits[bytes[i] & 15];
			} else {
				*p++ = ' ';
				*p++ = ' ';
			}
			*p++ = ' ';
			if (i == 7)
				*p++ = ' ';
		}
		*p++ = ' ';
		*p++ = '|';
		for (i = 0; i < n; i++)
			*p++ = bytes[i] >= 0x20 && bytes[i] < 0x7f ? (char)bytes[i] : '.';
		*p++ = '|';
		*p++ = '\n';
		put(o, line, (size_t)(p - line));
	}
}

static void json_sample(struct pipe_out *o, int cpu, const struct span2 *s)
{
	size_t total = s->na + s->nb, off, n, i;
	unsigned char bytes[256];
	char hex[512];
	int k;

	k = snprintf(hex, sizeof(hex), "{\"cpu\":%d,\"size\":%zu,\"data\":\"", cpu, total);
	put(o, hex, (size_t)k);
	for (off = 0; off < total; off += n) {
		n = span_copy(s, off, bytes, sizeof(bytes));
		for (i = 0; i < n; i++) {
			hex[2 * i] = hex_digits[bytes[i] >> 4];
			hex[2 * i + 1] = hex_digits[bytes[i] & 15];
		}
		put(o, hex, 2 * n);
	}
	put(o, "\"}\n", 3);
}

static void raw_sample(struct pipe_out *o, int cpu, const struct span2 *s)
{
	unsigned char hdr[8];

	put_u32le(hdr, (uint32_t)(s->na + s->nb));
	put_u32le(hdr + 4, (uint32_t)cpu);
	put(o, hdr, sizeof(hdr));
	put(o, s->a, s->na);
	if (s->nb)
		put(o, s->b, s->nb);
}

void pipe_out_sample(struct pipe_out *o, int cpu, const void *d1, size_t n1, const void *d2, size_t n2)
{
	struct span2 s = { .a = d1, .na = n1, .b = d2, .nb = d2 ? n2 : 0 };

	o->samples++;
	switch (o->fmt) {
	case PIPE_TEXT:
		text_sample(o, cpu, &s);
		break;
	case PIPE_JSON:
		json_sample(o, cpu, &s);
		break;
	case PIPE_RAW:
		raw_sample(o, cpu, &s);
		break;
	}
}

void pipe_out_lost(struct pipe_out *o, int cpu, uint64_t lost)
{
	unsigned char frame[16];
	char line[80];
	int k;

	switch (o->fmt) {
	case PIPE_TEXT:
		k = snprintf(line, sizeof(line), "LOST %llu cpu %d\n", (unsigned long long)lost, cpu);
		put(o, line, (size_t)k);
		break;
	case PIPE_JSON:
		k = snprintf(line, sizeof(line), "{\"cpu\":%d,\"lost\":%llu}\n", cpu, (unsigned long long)lost);
		put(o, line, (size_t)k);
		break;
	case PIPE_RAW:
		put_u32le(frame, PIPE_RAW_LOST | 8u);
		put_u32le(frame + 4, (uint32_t)cpu);
		put_u32le(frame + 8, (uint32_t)lost);
		put_u32le(frame + 12, (uint32_t)(lost >> 32));
		put(o, frame, sizeof(frame));
		break;
	}
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data input: bytes of a caller's buffer, of a mapped regular file, or
 * of a stream (a pipe) read on demand into a buffer that drops what was
 * consumed, so that an endless `perf record -o -` needs bounded memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

#define PD_READ_CHUNK (256 * 1024)

static int stream_fill(struct perfring_perfdata *pd, uint64_t want_end)
{
	struct pd_input *in = &pd->in;

	while (in->base + in->len < want_end && !in->eof) {
		size_t need = (size_t)(want_end - in->base);
		ssize_t n;

		if (need < in->len + PD_READ_CHUNK)
			need = in->len + PD_READ_CHUNK;
		if (want_end - in->base > (uint64_t)1 << 40)
			return pr_fail(ENOMEM, "perf.data: a record of %llu bytes cannot be buffered",
				       (unsigned long long)(want_end - in->base));
		if (need > in->cap) {
			size_t cap = in->cap ? in->cap : PD_READ_CHUNK;
			uint8_t *nb;

			while (cap < need)
				cap *= 2;
			nb = realloc(in->own, cap);
			if (!nb)
				return pr_fail(ENOMEM, "perf.data: no memory for a %zu-byte input buffer", cap);
			in->own = nb;
			in->buf = nb;
			in->cap = cap;
		}
		n = read(in->fd, in->own + in->len, in->cap - in->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pr_fail(errno, "perf.data: read at offset %llu: %s",
				       (unsigned long long)(in->base + in->len), strerror(errno));
		}
		if (n == 0)
			in->eof = true;
		in->len += (size_t)n;
	}
	return 0;
}

/*
 * Make bytes [off, off + n) available: 0 with *p pointing at them, 1 when
 * the input ends before (a truncated file), or a negative error.
 */
int pd_input_ensure(struct perfring_perfdata *pd, uint64_t off, uint64_t n, const uint8_t **p)
{
	struct pd_input *in = &pd->in;
	uint64_t end;

	if (__builtin_add_overflow(off, n, &end))
		return 1;
	if (off < in->base)
		return pr_fail(EIO, "perf.data: offset %llu was already consumed from the stream",
			       (unsigned long long)off);
	if (end > in->base + in->len && in->stream) {
		int err = stream_fill(pd, end);

		if (err)
			return err;
	}
	if (end > in->base + in->len)
		return 1;
	*p = in->buf + (off - in->base);
	return 0;
}

/* A stream no longer needs the bytes before off. */
void pd_input_discard(struct perfring_perfdata *pd, uint64_t off)
{
	struct pd_input *in = &pd->in;
	size_t drop;

	if (!in->stream || off <= in->base)
		return;
	drop = off - in->base > in->len ? in->len : (size_t)(off - in->base);
	/* compact only when it pays: half the buffer is dead */
	if (drop < in->len / 2 && drop < PD_READ_CHUNK)
		return;
	memmove(in->own, in->own + drop, in->len - drop);
	in->len -= drop;
	in->base += drop;
}

void pd_input_close(struct pd_input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	free(in->own);
	if (in->close_fd && in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

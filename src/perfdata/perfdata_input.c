// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data input: bytes of a caller's buffer, of a mapped regular file, or
 * of a stream (a pipe) read on demand into a buffer that drops what was
 * consumed, so that an endless `perf record -o -` needs bounded memory;
 * and pd_fail_at(), the error of every file of the layer at a file offset.
 * The bottom file of src/perfdata/'s reading side: it calls none of them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

#define PD_READ_CHUNK (256 * 1024)
/* The most of a stream held at once: one record and its payload (perf's
 * own records are at most 64 KiB; TRACING_DATA and AUXTRACE payloads more). */
#define PD_STREAM_MAX ((uint64_t)1 << 32)

int pd_fail_at(struct perfring_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pd->error_offset = off;
	return pr_fail(err, "perf.data: at offset 0x%llx: %s", (unsigned long long)off, msg);
}

static int stream_fill(struct perfring_perfdata *pd, uint64_t want_end)
{
	struct pd_input *in = &pd->in;

	if (want_end - in->base > PD_STREAM_MAX)
		return pd_fail_at(pd, pd->pos, E2BIG,
				  "a record of %llu bytes is larger than the %llu bytes a stream is buffered up to",
				  (unsigned long long)(want_end - pd->pos), (unsigned long long)PD_STREAM_MAX);
	while (in->base + in->len < want_end && !in->eof) {
		/* Grow by what arrives, a chunk at a time, never by what a record
		 * claims: a header claiming 100 GiB on a pipe that then ends costs
		 * only the bytes that came, and reads as a truncated record. */
		size_t need = in->len + PD_READ_CHUNK;
		ssize_t n;

		if (need > in->cap) {
			size_t cap = in->cap ? in->cap : PD_READ_CHUNK;
			uint8_t *nb;

			while (cap < need)
				cap *= 2;
			nb = realloc(in->own, cap);
			if (!nb)
				return pd_fail_at(pd, in->base + in->len, ENOMEM, "no memory for a %zu-byte input buffer",
						  cap);
			in->own = nb;
			in->buf = nb;
			in->cap = cap;
		}
		n = read(in->fd, in->own + in->len, in->cap - in->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pd_fail_at(pd, in->base + in->len, errno, "read: %s", strerror(errno));
		}
		if (n == 0)
			in->eof = true;
		in->len += (size_t)n;
	}
	return 0;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
/* How far ahead of the reader a mapped file is populated (one call each). */
#ifndef PD_POPULATE_WINDOW
#define PD_POPULATE_WINDOW (1u << 20)
#endif

/*
 * A mapped file is read front to back once: populate its page tables ahead
 * of the reader (up to upto, and at least a window), one call per MiB
 * instead of a page fault per 64 KiB (the kernel's fault-around), without
 * pinning the whole file as MAP_POPULATE would. Prefetching (which never
 * faults) needs the pages mapped to do anything. A kernel without
 * MADV_POPULATE_READ refuses it and the faults do the work, as before.
 *
 * What lies well before keep (the oldest byte the reader still holds: the
 * next record, or the oldest one ordering queued) leaves the page tables,
 * so that reading a file takes the memory of a window, not of the file
 * (the pages stay in the page cache). Always safe: a private read-only
 * mapping of a file reads the file again where it is touched after this
 * (a feature section, say).
 *
 * With opts.readahead_thread, the thread that reads ahead (perfdata_readahead.c)
 * does both, as it reads.
 */
void pd_input_populate(struct perfring_perfdata *pd, uint64_t upto, uint64_t keep)
{
	struct pd_input *in = &pd->in;
	size_t start = in->populated & ~(size_t)4095, end;

	if (!in->map || start >= in->map_len) {
		in->populated = SIZE_MAX;
		return;
	}
	end = in->map_len - start > PD_POPULATE_WINDOW ? start + PD_POPULATE_WINDOW : in->map_len;
	if (upto > end)
		end = upto < in->map_len ? (size_t)upto : in->map_len;
	if (keep > start)
		keep = start;
	if (madvise((uint8_t *)in->map + start, end - start, MADV_POPULATE_READ))
		end = SIZE_MAX; /* not supported (or the file shrank): stop asking */
	in->populated = end;
	if (keep > in->released + 2 * PD_RELEASE_LAG) {
		size_t to = (size_t)(keep - PD_RELEASE_LAG) & ~(size_t)4095;

		madvise((uint8_t *)in->map + in->released, to - in->released, MADV_DONTNEED);
		in->released = to;
	}
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

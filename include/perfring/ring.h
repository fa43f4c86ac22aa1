/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring ring layer: one mmap'd perf ring of any perf event fd.
 *
 * A ring is 1 metadata page + 2^n data pages. Records are read between the
 * ring's tail and a snapshot of its head without copying; a record that
 * straddles the end of the data area is given as two spans, or as one
 * contiguous copy in a per-ring scratch buffer when asked for. The tail is
 * committed once per batch, with release ordering, after the caller is done
 * with the batch: a record view is valid until that commit.
 *
 * Every header is validated before it is trusted: a size of 0, a size that is
 * not a multiple of 8, or a size reaching beyond head makes the ring corrupt
 * (-PERFRING_ECORRUPT); the iterator then stops and never reads out of
 * bounds or spins.
 *
 * Thread safety: a ring is consumed by one thread at a time. Counters may be
 * read from any thread (perfring_ring_stats()).
 */
#ifndef PERFRING_RING_H
#define PERFRING_RING_H

#include <perfring/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_ring;

struct perfring_ring_opts {
	size_t sz; /* sizeof(struct perfring_ring_opts) */
	/* Size of the data area, as a number of pages (a power of two) or in
	 * bytes (page size times a power of two). Give at most one; 0 for both
	 * means the default (64 pages). Anything else is -EINVAL with a message
	 * naming the rule. */
	size_t data_pages;
	size_t data_bytes;
	/* Overwritable ring: the event was opened with attr.write_backward = 1.
	 * The ring is mapped read-only, the kernel overwrites old records, and
	 * records are read newest first from a paused ring. */
	bool overwrite;
	/* Always deliver records as one contiguous span: a record straddling
	 * the end of the ring is copied into the ring's scratch buffer. */
	bool linearize;
};

/* One record of a ring. The header never straddles the end of the ring;
 * the body may, in which case len2 > 0 and the bytes continue at data2. */
struct perfring_ring_record {
	uint32_t type;      /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;      /* total size including the 8-byte header */
	const void *data;   /* first span, starting with the perf_event_header */
	size_t len;         /* bytes at data */
	const void *data2;  /* second span (start of the data area), or NULL */
	size_t len2;        /* bytes at data2; len + len2 == size */
	uint64_t offset;    /* free-running ring position of the record */
	uint64_t remaining; /* bytes left in the batch after this record */
};

/*
 * Map the ring of perf event fd (which must have been opened without
 * PERF_FLAG_FD_OUTPUT redirection, i.e. own its ring). The fd is not owned:
 * the caller keeps it open for the ring's lifetime and closes it after
 * perfring_ring_free(). Returns NULL and sets errno (EINVAL for a bad size,
 * with the page-count rule in perfring_errmsg()).
 */
PERFRING_API struct perfring_ring *perfring_ring_new(int fd, const struct perfring_ring_opts *opts);

/*
 * A ring over memory the caller owns: base points to a metadata page
 * (struct perf_event_mmap_page) of page_size bytes followed by the data
 * area (data_offset/data_size in the page are used if set, otherwise the
 * data area starts at base + page_size and is len - page_size long, which
 * must be a power of two). For tests, and for rings mapped elsewhere. The
 * memory must outlive the ring.
 */
PERFRING_API struct perfring_ring *perfring_ring_new_mem(void *base, size_t len, size_t page_size,
							 const struct perfring_ring_opts *opts);

/* Unmap (for perfring_ring_new) and free. NULL is a no-op. */
PERFRING_API void perfring_ring_free(struct perfring_ring *ring);

/* Callback return values. Return PERFRING_CONTINUE (0) to go on,
 * PERFRING_STOP to stop after this record (it counts as consumed), or a
 * negative value to stop with that error (the record is not consumed and
 * will be delivered again by the next call). */
#define PERFRING_CONTINUE 0
#define PERFRING_STOP 1

typedef int (*perfring_ring_record_fn)(const struct perfring_ring_record *rec, void *ctx);

/*
 * Deliver every record between the tail and a snapshot of head (acquire),
 * then commit the tail (release) past the consumed records. Returns the
 * number of records consumed, or a negative error: the callback's, or
 * -PERFRING_ECORRUPT (records before the corrupt header were delivered and
 * committed). Record views are valid only during the callback.
 *
 * For an overwrite ring: delivers the records written since the previous
 * call, newest first; the caller must have paused output
 * (perfring_ring_pause()). A record partly overwritten is dropped. After an
 * early stop or a callback error the next call goes on with the older
 * records, if nothing new was written in between; if new records were
 * written, it starts with them and the older unread rest is dropped.
 */
PERFRING_API int perfring_ring_consume(struct perfring_ring *ring, perfring_ring_record_fn fn, void *ctx);

/*
 * The same, step by step (the iterator form, for a caller's own loop):
 *   perfring_ring_begin() snapshots head and returns the bytes available;
 *   perfring_ring_next() fills *rec and returns 1, or 0 at the end of the
 *   batch, or -PERFRING_ECORRUPT;
 *   perfring_ring_commit() stores the tail past every record returned by
 *   perfring_ring_next() since perfring_ring_begin(); views become invalid.
 * begin() without commit() keeps the position: the next begin() restarts
 * after the last commit.
 */
PERFRING_API int64_t perfring_ring_begin(struct perfring_ring *ring);
PERFRING_API int perfring_ring_next(struct perfring_ring *ring, struct perfring_ring_record *rec);
PERFRING_API void perfring_ring_commit(struct perfring_ring *ring);

/*
 * A contiguous view of rec: rec->data itself when the record does not
 * straddle, otherwise a copy in the ring's scratch buffer (allocated once,
 * 64 KiB, on first use), valid until the next call for this ring. Returns
 * NULL with errno ENOMEM if the scratch buffer cannot be allocated, EINVAL
 * for a NULL ring or rec (perfring_errmsg() set).
 */
PERFRING_API const void *perfring_ring_linear(struct perfring_ring *ring, const struct perfring_ring_record *rec);

/*
 * Copy len bytes starting at byte off of rec (off counted from the start of
 * the header) into dst, across the wrap if needed. Returns 0, -ERANGE if
 * off + len > rec->size, -EINVAL for a NULL rec or dst (perfring_errmsg() set).
 */
PERFRING_API int perfring_ring_record_copy(const struct perfring_ring_record *rec, size_t off, void *dst, size_t len);

/*
 * Inline iteration, the fastest way to drain a forward ring (no callback):
 *
 *   struct perfring_cursor c;
 *   const struct perfring_header *h;
 *
 *   perfring_ring_cursor(ring, &c);
 *   while ((h = perfring_cursor_next(&c)))
 *           handle(h);            // h->size bytes, always contiguous
 *   if (c.err) ...                // -PERFRING_ECORRUPT: records before were fine
 *   perfring_ring_cursor_commit(ring, &c);
 *
 * perfring_cursor_next() is inline for the common record, a SAMPLE that
 * does not straddle the end of the ring; anything else goes through
 * perfring_cursor_next_slow() (a straddling record is copied into the ring's
 * scratch buffer, valid until the next call; a LOST record is counted in
 * the stats). Records are valid until the commit. The cursor belongs to the
 * caller (on the stack is fine); its fields are private except err. An
 * overwrite ring gives -EOPNOTSUPP: use perfring_ring_consume() there.
 */
struct perfring_header { /* the layout of struct perf_event_header */
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

struct perfring_cursor {
	const uint8_t *p;         /* next record in the current stretch */
	const uint8_t *limit;     /* end of the current contiguous stretch */
	uint64_t stretch_pos;     /* ring position of the stretch's start */
	const uint8_t *stretch;   /* and its address */
	uint64_t end;             /* head snapshot */
	uint64_t n;               /* records returned */
	struct perfring_ring *ring;
	int err;                  /* 0, or the error that ended the iteration */
	uint32_t reserved[5];
};

/* Start a batch: snapshot head. Returns the bytes available or a negative error. */
PERFRING_API int64_t perfring_ring_cursor(struct perfring_ring *ring, struct perfring_cursor *c);
/* The next record that the inline path does not take, or NULL (end, or c->err set). */
PERFRING_API const struct perfring_header *perfring_cursor_next_slow(struct perfring_cursor *c);
/* Store the tail past every record returned, publish the counters. */
PERFRING_API void perfring_ring_cursor_commit(struct perfring_ring *ring, struct perfring_cursor *c);

static inline const struct perfring_header *perfring_cursor_next(struct perfring_cursor *c)
{
	const uint8_t *p = c->p;

	if (__builtin_expect(c->limit - p >= 16, 1)) {
		const struct perfring_header *h = (const struct perfring_header *)(const void *)p;
		size_t size = h->size;

		/* PERF_RECORD_SAMPLE (9), at least 16 bytes, 8-byte sized, inside the stretch. */
		if (__builtin_expect(h->type == 9 && size - 16 <= (size_t)(c->limit - p) - 16 && !(size & 7), 1)) {
			/* Each record's address comes from the header before
			 * it, so a cache miss stalls the walk, and the hardware
			 * prefetcher stops at page ends: ask 2 KiB ahead, inside
			 * the stretch only (it ends at head at the latest; past
			 * head the kernel is writing). The library's own walks
			 * use the same distance (PR_PREFETCH_AHEAD). */
			if ((size_t)(c->limit - p) > 2048)
				__builtin_prefetch(p + 2048);
			c->p = p + size;
			c->n++;
			return h;
		}
	}
	return perfring_cursor_next_slow(c);
}

/*
 * The payload of a SAMPLE of a BPF perf event array (sample_type RAW only):
 * the u32 size after the header, then the bytes. Returns NULL if the size
 * claims more than the record holds.
 */
static inline const void *perfring_bpf_sample(const struct perfring_header *h, uint32_t *size)
{
	uint32_t raw;

	__builtin_memcpy(&raw, (const uint8_t *)h + 8, sizeof(raw));
	if (h->size < 12 || raw > (uint32_t)h->size - 12u)
		return (const void *)0;
	*size = raw;
	return (const uint8_t *)h + 12;
}

/* Bytes between tail and head now; for an overwrite ring, the bytes written
 * since the previous read, capped at the data area size. Safe to call from
 * the consuming thread at any time (one acquire load, no syscall). */
PERFRING_API uint64_t perfring_ring_bytes_available(const struct perfring_ring *ring);

/* Offset (free-running ring position) of the corrupt header, valid after
 * -PERFRING_ECORRUPT. */
PERFRING_API uint64_t perfring_ring_error_offset(const struct perfring_ring *ring);

/*
 * Drop everything between the tail and head (recovery after
 * -PERFRING_ECORRUPT). Returns the number of bytes dropped; they are added
 * to the ring's dropped_bytes counter.
 */
PERFRING_API uint64_t perfring_ring_discard(struct perfring_ring *ring);

/* Pause or resume the kernel's output into the ring (PERF_EVENT_IOC_PAUSE_OUTPUT).
 * 0, or a negative error: -ENOTTY for a memory ring. */
PERFRING_API int perfring_ring_pause(struct perfring_ring *ring);
PERFRING_API int perfring_ring_resume(struct perfring_ring *ring);

struct perfring_ring_stats {
	uint64_t records;       /* records delivered */
	uint64_t bytes;         /* bytes delivered (record sizes) */
	uint64_t lost;          /* sum of PERF_RECORD_LOST counts seen */
	uint64_t lost_records;  /* number of PERF_RECORD_LOST records seen */
	uint64_t corrupt;       /* times a corrupt header was found */
	uint64_t dropped_bytes; /* bytes written but never delivered: dropped by
				 * perfring_ring_discard(), or, in an overwrite
				 * ring, overwritten before being read */
};

/* A snapshot of the ring's counters; safe from any thread. 0, or -EINVAL for NULL. */
PERFRING_API int perfring_ring_stats(const struct perfring_ring *ring, struct perfring_ring_stats *stats);

/* The perf event fd, or a negative error: -EBADF for a memory ring (perfring_errmsg() set). */
PERFRING_API int perfring_ring_fd(const struct perfring_ring *ring);
PERFRING_API size_t perfring_ring_data_size(const struct perfring_ring *ring);
PERFRING_API size_t perfring_ring_mmap_size(const struct perfring_ring *ring);
PERFRING_API bool perfring_ring_is_overwrite(const struct perfring_ring *ring);
/* The metadata page (struct perf_event_mmap_page *), e.g. for time conversion fields. */
PERFRING_API const void *perfring_ring_meta(const struct perfring_ring *ring);

/* System page size, and the mmap length for a data area of data_bytes
 * (validated: -EINVAL if not page size times a power of two; 0 means the
 * default of 64 pages). */
PERFRING_API size_t perfring_page_size(void);
PERFRING_API int64_t perfring_ring_mmap_len(size_t data_bytes);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RING_H */

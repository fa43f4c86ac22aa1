/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring BPF ring buffer layer: the user-space side of a
 * BPF_MAP_TYPE_RINGBUF map, alone or in a perfring_reader next to perf
 * event arrays.
 *
 * The kernel maps a ring buffer as a consumer page (read-write, holding
 * consumer_pos), then, read-only, a producer page (producer_pos) and the
 * data area mapped twice in a row, so that a record is always contiguous.
 * Each record is an 8-byte header {u32 len; u32 pg_off} and its payload,
 * rounded up to 8 bytes; len carries BUSY (bit 31: reserved, not yet
 * submitted) and DISCARD (bit 30: dropped by the program).
 *
 * Records are read zero copy: the length word is loaded with acquire
 * ordering, a BUSY record ends the batch (the records after it wait), a
 * DISCARD record is skipped, and consumer_pos is stored once per batch
 * (libbpf stores it after every record). A length word that is not
 * possible (a record longer than what the producer has written, or than
 * the ring; a position not 8-byte aligned) makes the ring corrupt:
 * -PERFRING_ECORRUPT with the position in perfring_errmsg() and
 * perfring_ringbuf_error_offset(); nothing is read out of bounds and
 * nothing spins.
 *
 * Lost records: the kernel counts none for ring buffers (a failed
 * bpf_ringbuf_reserve() just returns NULL to the program). A program that
 * includes <perfring/bpf/perfring_ringbuf.bpf.h> and writes through its
 * perfring_ringbuf_reserve()/perfring_ringbuf_output() counts each failure
 * per CPU in a BPF_MAP_TYPE_PERCPU_ARRAY named PERFRING_RINGBUF_LOST_MAP;
 * give that map's fd as lost_map_fd and the counts are reported as lost
 * records (perfring_ringbuf_lost(), and PERFRING_MSG_LOST messages and
 * stats in a reader). Without it, losses are unknown (see
 * perfring_reader_ring_info()), never reported as 0.
 *
 * Thread safety: one thread consumes a ring buffer at a time; stats and
 * accessors may be called from any thread.
 */
#ifndef PERFRING_RINGBUF_H
#define PERFRING_RINGBUF_H

#include <perfring/common.h>
#include <perfring/ring.h>
#include <perfring/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name of the lost-record map of <perfring/bpf/perfring_ringbuf.bpf.h>. */
#define PERFRING_RINGBUF_LOST_MAP "perfring_rb_lost"

struct perfring_ringbuf;

struct perfring_ringbuf_opts {
	size_t sz; /* sizeof(struct perfring_ringbuf_opts) */
	/* The PERCPU_ARRAY of perfring_ringbuf.bpf.h (its fd; 0: none, losses
	 * unknown). The ring keeps its own dup of the fd. */
	int lost_map_fd;
	/* A ring that serves one CPU only (one ring buffer per CPU, e.g. in an
	 * array of maps): its records carry cpu in a reader, and its lost count
	 * is that CPU's slot of the lost map. Otherwise (a ring shared by all
	 * CPUs) records carry cpu = -1 and the lost count is the sum over CPUs. */
	bool per_cpu;
	int cpu;
	/* In a reader: at most this many records from this ring per drain
	 * (0: no limit), so that one busy ring cannot hold up the others. */
	size_t budget;
	/* Expect an overwrite (flight-recorder) ring, map flag
	 * BPF_F_RB_OVERWRITE (a map with the flag is read so anyway; one
	 * without it is refused, EINVAL). Kernels before 6.19 lack the flag:
	 * the ring is refused with EOPNOTSUPP and a message naming the running
	 * kernel. See perfring_ringbuf_consume() for how it is read. */
	bool overwrite;
};

/*
 * Map the BPF_MAP_TYPE_RINGBUF map_fd. The ring keeps its own dup of the fd.
 * NULL with errno set: EINVAL for a map of another type (named in
 * perfring_errmsg()) or bad options, EPERM/ENOMEM from mmap (the message
 * names RLIMIT_MEMLOCK), EOPNOTSUPP for overwrite where unsupported.
 */
PERFRING_API struct perfring_ringbuf *perfring_ringbuf_new(int map_fd, const struct perfring_ringbuf_opts *opts);

/*
 * A ring buffer over memory the caller owns, laid out as the kernel maps it:
 * base is the consumer page (consumer_pos at its start), base + page_size
 * the producer page (producer_pos at its start), then the data area twice:
 * len = 2 * page_size + 2 * data_size, data_size a power of two (at least
 * 8). The two copies of the data area must hold the same bytes (map one
 * memfd twice, or write both). For tests and fuzzing. lost_map_fd must not
 * be set. With overwrite, the producer page holds, as the kernel's does,
 * pending_pos at byte 8 and overwrite_pos (u64, the oldest record not
 * overwritten, which the caller's producer maintains) at byte 16.
 */
PERFRING_API struct perfring_ringbuf *perfring_ringbuf_new_mem(void *base, size_t len, size_t page_size,
								const struct perfring_ringbuf_opts *opts);

/* Unmap and free (the map fd dup is closed). NULL is a no-op. */
PERFRING_API void perfring_ringbuf_free(struct perfring_ringbuf *rb);

/*
 * Called with each record's payload (len without the BUSY/DISCARD bits, as
 * the program gave it), valid until the call returns. Return
 * PERFRING_CONTINUE, PERFRING_STOP (this record is consumed, the rest
 * waits), or a negative error (this record is not consumed).
 */
typedef int (*perfring_ringbuf_fn)(void *ctx, const void *data, size_t size);

/*
 * Deliver the records written so far, at most budget of them (0: no limit),
 * and store consumer_pos once at the end. Returns the number delivered, or
 * a negative error: the callback's, or -PERFRING_ECORRUPT (records before
 * the corrupt one were delivered and consumed). No syscall.
 *
 * An overwrite ring (perfring_ringbuf_is_overwrite()) is read as an
 * overwrite perf ring is (perfring_ring_consume()): a snapshot of the
 * records written since the previous call that are still in the ring,
 * delivered newest first, each as a copy (valid during the callback) made
 * and then checked against the producer, which does not wait for us: a
 * record it has reached, and every older one of the snapshot, is dropped
 * (counted in the stats' dropped_bytes, as are records overwritten before
 * the call), never delivered torn. A BUSY record ends the snapshot; it and
 * the records after it come with a later call. After an early stop, a
 * budget or a callback error, the next call goes on with the older records
 * if nothing was written in between; otherwise it starts with the new ones
 * and the older unread rest is dropped. consumer_pos is stored at the
 * snapshot's end (poll then reports only newer records). Errors also
 * -ENOMEM (the snapshot's index, the copy) and -EAGAIN (the producer
 * overwrote the records faster than they could be walked, several times
 * in a row).
 */
PERFRING_API int perfring_ringbuf_consume(struct perfring_ringbuf *rb, size_t budget, perfring_ringbuf_fn fn,
					  void *ctx);

/* Bytes written and not yet consumed (producer_pos - consumer_pos); for an
 * overwrite ring, written since the previous read and still in the ring
 * (producer_pos - max(consumer_pos, overwrite_pos)). Loaded after a full
 * memory barrier: the check to make before sleeping on the map's fd
 * (consumer_pos is stored with release ordering only). */
PERFRING_API uint64_t perfring_ringbuf_bytes_available(const struct perfring_ringbuf *rb);

/* Whether rb is an overwrite ring (BPF_F_RB_OVERWRITE); false for NULL. */
PERFRING_API bool perfring_ringbuf_is_overwrite(const struct perfring_ringbuf *rb);

/* The data area size in bytes (the map's max_entries), 0 for NULL. */
PERFRING_API size_t perfring_ringbuf_data_size(const struct perfring_ringbuf *rb);

/* The map fd (the ring's dup), -1 for a memory ring, -EINVAL for NULL. */
PERFRING_API int perfring_ringbuf_fd(const struct perfring_ringbuf *rb);

/* The position of the last corrupt length word found. */
PERFRING_API uint64_t perfring_ringbuf_error_offset(const struct perfring_ringbuf *rb);

/*
 * Drop everything written so far (consumer_pos = producer_pos): the way on
 * after -PERFRING_ECORRUPT. Returns the bytes dropped (counted in the
 * stats' dropped_bytes); for an overwrite ring, also the pending
 * snapshot's undelivered records.
 */
PERFRING_API uint64_t perfring_ringbuf_discard(struct perfring_ringbuf *rb);

/*
 * The losses counted by perfring_ringbuf.bpf.h so far (this CPU's slot for a
 * per_cpu ring, else the sum), read from the lost map (a syscall) into
 * *lost. 0, -ENOENT (with a message) when no lost map was given: losses are
 * unknown, or the map lookup's error.
 */
PERFRING_API int perfring_ringbuf_lost(struct perfring_ringbuf *rb, uint64_t *lost);

/*
 * Counters: records and bytes delivered, lost (and lost_records: the
 * number of times a new loss was reported) as delivered by a reader,
 * corrupt, dropped_bytes (perfring_ringbuf_discard()). 0, or -EINVAL.
 */
PERFRING_API int perfring_ringbuf_stats(const struct perfring_ringbuf *rb, struct perfring_ring_stats *stats);

/*
 * Inline iteration, the fastest way to drain a ring buffer (no callback):
 *
 *   struct perfring_rb_cursor c;
 *   const void *data;
 *   uint32_t size;
 *
 *   perfring_ringbuf_cursor(rb, &c);
 *   while ((data = perfring_ringbuf_cursor_next(&c, &size)))
 *           handle(data, size);   // the payload, always contiguous
 *   if (c.err) ...                // -PERFRING_ECORRUPT: records before were fine
 *   perfring_ringbuf_cursor_commit(rb, &c);
 *
 * perfring_ringbuf_cursor() snapshots producer_pos (acquire); each
 * perfring_ringbuf_cursor_next() loads a length word with acquire ordering
 * (pairing with the kernel's xchg() of the length at commit) and returns a
 * submitted record that lies wholly before the snapshot inline; anything
 * else goes through perfring_ringbuf_cursor_next_slow(): a BUSY record ends
 * the batch (the records after it wait), a DISCARD record is skipped, a
 * length that is not possible sets err = -PERFRING_ECORRUPT (position in
 * perfring_errmsg() and perfring_ringbuf_error_offset()). Records are valid
 * until the commit, which stores consumer_pos once (as a drain with
 * perfring_ringbuf_consume()). The cursor belongs to the caller (on the
 * stack is fine); its fields are private except err. One thread at a time,
 * as perfring_ringbuf_consume(); a ring in a reader is reached with
 * perfring_reader_ringbuf() (records taken with the cursor do not pass
 * through the reader: no PERFRING_MSG_LOST, see perfring_ringbuf_lost()).
 * An overwrite ring gives -EOPNOTSUPP: use perfring_ringbuf_consume() there.
 */
struct perfring_rb_cursor {
	const uint8_t *p;     /* next record (its length word) */
	const uint8_t *limit; /* where the inline path stops (the snapshot, or less) */
	const uint8_t *end;   /* the producer_pos snapshot, as an address */
	const uint8_t *first; /* the address of start */
	uint64_t start;       /* consumer position at the start of the batch */
	uint64_t n;           /* records returned */
	struct perfring_ringbuf *rb;
	int err;              /* 0, or the error that ended the iteration */
	uint32_t reserved[5];
};

/* Start a batch: snapshot producer_pos. Returns the bytes available or a
 * negative error (also in c->err). */
PERFRING_API int64_t perfring_ringbuf_cursor(struct perfring_ringbuf *rb, struct perfring_rb_cursor *c);
/* The next record that the inline path does not take, or NULL (end, BUSY, or c->err set). */
PERFRING_API const void *perfring_ringbuf_cursor_next_slow(struct perfring_rb_cursor *c, uint32_t *size);
/* Store consumer_pos past every record returned, count them in the stats. */
PERFRING_API void perfring_ringbuf_cursor_commit(struct perfring_ringbuf *rb, struct perfring_rb_cursor *c);

static inline const void *perfring_ringbuf_cursor_next(struct perfring_rb_cursor *c, uint32_t *size)
{
	const uint8_t *p = c->p;
	uint64_t left = (uint64_t)(c->limit - p);
	uint32_t len;
	uint64_t rec;

	/* The end of the batch: the word at limit is where the producer
	 * writes next; reading it would pull that cache line away from the
	 * producer's CPU once per batch. */
	if (__builtin_expect(!left, 0))
		return perfring_ringbuf_cursor_next_slow(c, size);
	/* Acquire: the payload the program wrote before its commit is visible
	 * once the BUSY bit reads clear (the kernel's xchg() of the length). */
	len = __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_ACQUIRE);
	rec = ((uint64_t)len + 15) & ~(uint64_t)7;
	/* A submitted record wholly before limit: limit - p is below 2^30, so
	 * a BUSY or DISCARD bit or a length beyond the snapshot fails this one
	 * test and goes the slow way. */
	if (__builtin_expect(rec <= left, 1)) {
		/* The walk depends on each length word before it can find the
		 * next one, so a cache miss on a record stalls it; the hardware
		 * prefetcher stops at page ends. Ask 2 KiB ahead (about 28
		 * 64-byte records), inside the batch only: past the snapshot
		 * the producer is still writing. Same distance as the library's
		 * own walks (PR_PREFETCH_AHEAD). */
		if (left > 2048)
			__builtin_prefetch(p + 2048);
		c->p = p + rec;
		c->n++;
		*size = len;
		return p + 8;
	}
	return perfring_ringbuf_cursor_next_slow(c, size);
}

/* ---- BPF ring buffers in a reader ---- */

/*
 * Add the BPF_MAP_TYPE_RINGBUF map_fd to the reader (any reader: one made by
 * perfring_reader_new(), _new_bpf() or _new_perf_buffer()), next to its perf
 * rings, under the same epoll fd. Returns the ring index. poll, read,
 * consume, consume_ring, consume_samples, wait, flush, wakeup, close,
 * deadline, max_delay_ns and early stop behave as for perf rings; its
 * records come as PERFRING_MSG_SAMPLE with data/size the payload (one span,
 * size2 = 0, rec = NULL) and cpu = opts.cpu for a per_cpu ring, else -1;
 * losses counted by perfring_ringbuf.bpf.h come as PERFRING_MSG_LOST
 * (checked after a drain that found records, at most once a millisecond,
 * and on every flush; those counted after the ring was added). The
 * reader's wakeup_events/wakeup_bytes apply to perf rings: a ring buffer's
 * records are due as soon as they are submitted, its wakeups are the
 * kernel's (or the program's BPF_RB_* flags). A ring buffer cannot be
 * paused from user space: perfring_reader_pause() leaves it writing,
 * pause_ring() on it is -EOPNOTSUPP. An overwrite ring buffer is read as
 * perfring_ringbuf_consume() reads one (newest first, as copies; the
 * copy-out read goes through one snapshot per pass). A reader in time order
 * (order_window_ns) takes none: -EOPNOTSUPP. Not concurrent with reads
 * (set-up only, as perfring_reader_add()).
 */
PERFRING_API int perfring_reader_add_ringbuf(struct perfring_reader *rd, int map_fd,
					     const struct perfring_ringbuf_opts *opts);

/*
 * Add every ring buffer held in an BPF_MAP_TYPE_ARRAY_OF_MAPS (or
 * HASH_OF_MAPS with u32 keys) outer_fd, one per CPU as Falco keeps them:
 * the ring at key k is added per_cpu with cpu = k (opts.per_cpu and cpu
 * are ignored; lost_map_fd, budget, overwrite apply to each). Empty slots
 * are skipped. Returns the number of rings added, or a negative error
 * (rings added before it stay).
 */
PERFRING_API int perfring_reader_add_ringbuf_array(struct perfring_reader *rd, int outer_fd,
						   const struct perfring_ringbuf_opts *opts);

/* The ring buffer of ring idx, or NULL with errno EINVAL (bad index) or
 * ENOTTY (a perf ring: see perfring_reader_ring()). */
PERFRING_API struct perfring_ringbuf *perfring_reader_ringbuf(const struct perfring_reader *rd, int idx);

enum perfring_ring_kind {
	PERFRING_RING_PERF = 1,        /* a perf ring (perf event array or caller event) */
	PERFRING_RING_BPF_RINGBUF = 2, /* a BPF_MAP_TYPE_RINGBUF */
};

struct perfring_reader_ring_info {
	size_t sz; /* sizeof(struct perfring_reader_ring_info) */
	enum perfring_ring_kind kind;
	int cpu;          /* as perfring_reader_ring_cpu() */
	int fd;           /* perf event fd, or the ring buffer's map fd */
	size_t data_size; /* bytes of its data area */
	bool overwrite;
	/* Whether the stats' lost counts are known: always for perf rings (the
	 * kernel writes LOST records); for a ring buffer only with a lost map. */
	bool lost_known;
};

/* Describe ring idx. 0, or -EINVAL (NULL, bad index, sz too small). */
PERFRING_API int perfring_reader_ring_info(const struct perfring_reader *rd, int idx,
					   struct perfring_reader_ring_info *info);

/*
 * perfring_reader_consume() and _consume_ring() with a budget: at most
 * budget records (0: no limit) in this call, as libbpf's
 * ring_buffer__consume_n()/ring__consume_n(). The next call starts with the
 * ring after the one the budget ended in. Returns the number delivered or a
 * negative error.
 */
PERFRING_API int perfring_reader_consume_n(struct perfring_reader *rd, size_t budget, perfring_msg_fn fn,
					   void *ctx);
PERFRING_API int perfring_reader_consume_ring_n(struct perfring_reader *rd, int idx, size_t budget,
						perfring_msg_fn fn, void *ctx);

/* ---- libbpf's ring_buffer API ---- */

/*
 * libbpf's ring_buffer_sample_fn (and bcc libbpf-tools' bpf_buffer_sample_fn):
 * a handler written for libbpf compiles unchanged. data is the payload (in a
 * read-only mapping, as libbpf's), size its length as the program gave it.
 * A negative return stops the poll or consume that called it, which returns
 * that value; the record is consumed. Other values go on.
 */
typedef int (*perfring_rb_sample_fn)(void *ctx, void *data, size_t size);

/*
 * The libbpf-shaped path for ring buffers, as libbpf's ring_buffer__new():
 * a reader (perfring_reader_new()) holding the BPF_MAP_TYPE_RINGBUF map_fd,
 * whose records go to sample_cb(ctx, ...) when it is driven by
 * perfring_reader_poll_ms(), perfring_reader_consume_cb() or _consume_cb_n().
 * opts (may be NULL) are those of perfring_reader_add_ringbuf() for this map
 * (libbpf's ring_buffer_opts has none: a port passes NULL). Returns NULL
 * with errno set: EINVAL for a NULL sample_cb, a map of another type or bad
 * opts, and the errors of perfring_ringbuf_new(). Free with
 * perfring_reader_free().
 */
PERFRING_API struct perfring_reader *perfring_reader_new_ring_buffer(int map_fd, perfring_rb_sample_fn sample_cb,
								     void *ctx,
								     const struct perfring_ringbuf_opts *opts);

/*
 * As libbpf's ring_buffer__add(): one more BPF_MAP_TYPE_RINGBUF map_fd, with
 * its own callback and ctx, to any reader (one from
 * perfring_reader_new_ring_buffer(), _new_perf_buffer(), _new(), ...).
 * Returns 0 as libbpf does (the new ring's index is
 * perfring_reader_ring_cnt() - 1), or a negative error as
 * perfring_reader_add_ringbuf(). Set-up only, not concurrent with reads.
 */
PERFRING_API int perfring_reader_add_ring_buffer(struct perfring_reader *rd, int map_fd,
						 perfring_rb_sample_fn sample_cb, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RINGBUF_H */

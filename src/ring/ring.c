// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One perf ring: mapping, validation and zero-copy iteration.
 *
 * Forward rings: records lie between data_tail (ours) and data_head (the
 * kernel's). A batch is [commit_pos, batch_end) with batch_end an acquire
 * snapshot of data_head; the tail is stored once, at commit.
 *
 * Overwrite (write_backward) rings: the kernel ignores data_tail and writes
 * towards lower addresses, so data_head decreases and the newest record is at
 * data_head. The records written since the previous read are
 * [head, prev_head), capped at one data area; walking forward from head
 * gives them newest first. When more than a data area was written, the last
 * record of the window has had its end overwritten: it is dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "common/prefetch.h"
#include "ring/ring_internal.h"
#include "common/sys.h"

#define DEFAULT_DATA_PAGES 64
#define MAX_RECORD_SIZE 65528 /* header.size is u16 and a multiple of 8 */
#define SCRATCH_SIZE 65536


size_t perfring_page_size(void)
{
	static size_t cached;
	size_t ps = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (!ps) {
		long v = sysconf(_SC_PAGESIZE);

		ps = v > 0 ? (size_t)v : 4096;
		__atomic_store_n(&cached, ps, __ATOMIC_RELAXED);
	}
	return ps;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Resolve data_pages/data_bytes of the options into a data area size. */
static int64_t resolve_data_size(size_t pages, size_t bytes)
{
	size_t ps = perfring_page_size();

	if (pages && bytes)
		return pr_fail(EINVAL, "give the ring size as data_pages or data_bytes, not both (%zu pages, %zu bytes)",
			       pages, bytes);
	if (!pages && !bytes)
		pages = DEFAULT_DATA_PAGES;
	if (bytes) {
		if (bytes % ps || !is_pow2(bytes / ps))
			return pr_fail(EINVAL,
				       "ring size %zu bytes: it must be the page size (%zu) times a power of two "
				       "(the mapping is 1 + 2^n pages)",
				       bytes, ps);
		pages = bytes / ps;
	}
	if (!is_pow2(pages))
		return pr_fail(EINVAL, "ring size %zu pages: the number of data pages must be a power of two "
				       "(the mapping is 1 + 2^n pages)", pages);
	if (pages > (SIZE_MAX / 2) / ps)
		return pr_fail(EINVAL, "ring size %zu pages is too large", pages);
	return (int64_t)(pages * ps);
}

int64_t perfring_ring_mmap_len(size_t data_bytes)
{
	int64_t size = resolve_data_size(0, data_bytes);

	if (size < 0)
		return size;
	return size + (int64_t)perfring_page_size();
}

static struct perfring_ring *ring_alloc(const struct perfring_ring_opts *opts)
{
	struct perfring_ring *r;

	if (opts && pr_opts_check(opts, opts->sz, sizeof(*opts), "perfring_ring_opts"))
		return pr_errno_null(EINVAL);
	r = calloc(1, sizeof(*r));
	if (!r)
		return pr_fail_null(ENOMEM, "out of memory allocating a ring");
	r->fd = -1;
	r->overwrite = PR_OPT(opts, overwrite, false);
	r->linearize = PR_OPT(opts, linearize, false);
	return r;
}

/* Take the data area from the metadata page (or the legacy layout). */
static int ring_attach(struct perfring_ring *r, void *base, size_t len, size_t page_size)
{
	struct perf_event_mmap_page *meta = base;
	uint64_t off = meta->data_offset, size = meta->data_size;

	if (!size) { /* kernels before 4.1 leave these 0 */
		off = page_size;
		size = len > page_size ? len - page_size : 0;
	}
	/* Everything the readers do rests on these: 8-byte records in a data area
	 * of 2^n >= 8 bytes, 8-byte aligned, wholly inside the mapping and clear of
	 * the metadata page's own fields (data_head ... aux_size end at
	 * sizeof(*meta)), which records must never overwrite. */
	if (!is_pow2(size) || size < 8)
		return pr_fail(EINVAL, "ring metadata: data_size %llu is not a power of two of at least 8 bytes",
			       (unsigned long long)size);
	if (off & 7)
		return pr_fail(EINVAL, "ring metadata: data_offset %llu is not 8-byte aligned",
			       (unsigned long long)off);
	if (off < sizeof(*meta))
		return pr_fail(EINVAL, "ring metadata: data_offset %llu overlaps the metadata page's fields "
				       "(the data area must start at or after byte %zu)",
			       (unsigned long long)off, sizeof(*meta));
	if (off > len || size > len - off)
		return pr_fail(EINVAL, "ring metadata: data area at %llu of %llu bytes does not fit a %zu-byte "
				       "mapping",
			       (unsigned long long)off, (unsigned long long)size, len);
	r->meta = meta;
	r->data = (uint8_t *)base + off;
	r->data_size = size;
	r->mask = size - 1;
	if (r->overwrite) {
		/* Everything already in the ring counts as new on the first read. */
		r->prev_head = 0;
	} else {
		r->commit_pos = pr_load_tail(&meta->data_tail);
		if (r->commit_pos & 7)
			return pr_fail(EINVAL, "ring metadata: data_tail %llu is not 8-byte aligned",
				       (unsigned long long)r->commit_pos);
	}
	r->read_pos = r->batch_end = r->commit_pos;
	return 0;
}

struct perfring_ring *perfring_ring_new(int fd, const struct perfring_ring_opts *opts)
{
	size_t ps = perfring_page_size();
	struct perfring_ring *r;
	int64_t size;
	void *base;
	int err;

	size = resolve_data_size(PR_OPT(opts, data_pages, 0), PR_OPT(opts, data_bytes, 0));
	if (size < 0)
		return pr_errno_null((int)-size);
	r = ring_alloc(opts);
	if (!r)
		return NULL;
	r->map_len = (size_t)size + ps;
	base = mmap(NULL, r->map_len, PROT_READ | (r->overwrite ? 0 : PROT_WRITE), MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = errno;
		free(r);
		if (err == EPERM || err == ENOMEM)
			return pr_fail_null(err,
					    "mmap of a %zu-byte perf ring failed (%s): locked ring memory is limited "
					    "by /proc/sys/kernel/perf_event_mlock_kb and then RLIMIT_MEMLOCK "
					    "(ulimit -l); raise them, use a smaller ring, or run with CAP_IPC_LOCK",
					    (size_t)size + ps, strerror(err));
		if (err == EINVAL)
			return pr_fail_null(err,
					    "mmap of the perf ring of fd %d failed (EINVAL): the mapping must be "
					    "1 + 2^n pages (asked %zu data pages), the event must own its ring "
					    "(not redirected with SET_OUTPUT), and a second mapping of the same "
					    "event must have the same size",
					    fd, (size_t)size / ps);
		return pr_fail_null(err, "mmap of the perf ring of fd %d failed: %s", fd, strerror(err));
	}
	r->map_base = base;
	r->fd = fd;
	err = ring_attach(r, base, r->map_len, ps);
	if (err) {
		munmap(base, r->map_len);
		free(r);
		return pr_errno_null(-err);
	}
	return r;
}

struct perfring_ring *perfring_ring_new_mem(void *base, size_t len, size_t page_size,
					    const struct perfring_ring_opts *opts)
{
	struct perfring_ring *r;
	int err;

	if (!base || !page_size || len < page_size + 8 || len < sizeof(struct perf_event_mmap_page))
		return pr_fail_null(EINVAL, "memory ring: need a metadata page of %zu bytes and a data area "
					    "(got %zu bytes)", page_size, len);
	/* The metadata fields are read and written as aligned 64-bit atomics. */
	if ((uintptr_t)base & 7)
		return pr_fail_null(EINVAL, "memory ring: base %p is not 8-byte aligned", base);
	r = ring_alloc(opts);
	if (!r)
		return NULL;
	err = ring_attach(r, base, len, page_size);
	if (err) {
		free(r);
		return pr_errno_null(-err);
	}
	return r;
}

void perfring_ring_free(struct perfring_ring *ring)
{
	if (!ring)
		return;
	if (ring->map_base)
		munmap(ring->map_base, ring->map_len);
	free(ring->scratch);
	free(ring);
}

/*
 * An overwrite ring's batch. If nothing was written since the last batch
 * and it was not read to the end (early stop, callback error), go on where
 * it stopped. Otherwise the batch is what was written since: [head,
 * prev_head), capped at one data area; the unread rest of the last batch
 * is older than all of that and is dropped.
 */
static int64_t overwrite_begin(struct perfring_ring *r, uint64_t head)
{
	uint64_t fresh = r->prev_head - head;

	/* The kernel writes whole 8-byte records, so head is always aligned: a
	 * head that is not points records at misaligned offsets, where a header
	 * read could run past the data area's end. */
	r->bogus_head = (head & 7) != 0;
	if (PR_UNLIKELY(r->bogus_head)) {
		r->read_pos = r->batch_end = head;
		return 0;
	}
	if (r->rest_pos != r->rest_end && head == r->batch_head) {
		r->read_pos = r->rest_pos;
		r->batch_end = r->rest_end;
		return (int64_t)(r->batch_end - r->read_pos);
	}
	if (r->rest_pos != r->rest_end)
		pr_counter_add(&r->stats.dropped_bytes, r->rest_end - r->rest_pos);
	r->rest_pos = r->rest_end = 0;
	if (fresh > r->data_size) /* whole records overwritten before we looked */
		pr_counter_add(&r->stats.dropped_bytes, fresh - r->data_size);
	r->batch_head = head;
	r->read_pos = head;
	r->batch_end = head + (fresh > r->data_size ? r->data_size : fresh);
	return (int64_t)(r->batch_end - head);
}

/* Snapshot the batch: forward [tail, head); overwrite: see overwrite_begin(). */
int64_t perfring_ring_begin(struct perfring_ring *r)
{
	uint64_t head = pr_load_head(&r->meta->data_head);

	r->pend_records = r->pend_bytes = r->pend_lost = r->pend_lost_records = 0;
	if (PR_UNLIKELY(r->overwrite))
		return overwrite_begin(r, head);
	r->read_pos = r->commit_pos;
	r->batch_end = head;
	/* The kernel never runs more than one data area ahead of our tail; a
	 * head that does is not to be trusted (nor anything it points at). */
	r->bogus_head = head - r->commit_pos > r->data_size || (head & 7);
	return r->bogus_head ? 0 : (int64_t)(head - r->commit_pos);
}

static int ring_corrupt(struct perfring_ring *r, uint64_t pos, unsigned size, const char *why)
{
	r->error_offset = pos;
	pr_counter_add(&r->stats.corrupt, 1);
	return pr_fail(PERFRING_ECORRUPT, "corrupt perf ring: record at offset %llu (ring position %llu): %s "
					  "(size %u, %llu bytes up to head)",
		       (unsigned long long)pos, (unsigned long long)(pos & r->mask), why, size,
		       (unsigned long long)(r->batch_end - pos));
}

static const void *ring_linearize(struct perfring_ring *r, const struct perfring_ring_record *rec)
{
	if (!r->scratch) {
		r->scratch = malloc(SCRATCH_SIZE);
		if (!r->scratch) {
			errno = ENOMEM;
			return NULL;
		}
	}
	memcpy(r->scratch, rec->data, rec->len);
	memcpy(r->scratch + rec->len, rec->data2, rec->len2);
	return r->scratch;
}

/*
 * Fill *rec with the record at read_pos without consuming it.
 * 1: a record; 0: end of batch; <0: corrupt (or ENOMEM for linearize).
 */
static inline int ring_peek(struct perfring_ring *r, struct perfring_ring_record *rec)
{
	uint64_t pos = r->read_pos, avail = r->batch_end - pos;
	uint64_t off = pos & r->mask;
	const struct perf_event_header *hdr;
	uint64_t first;
	unsigned size;

	if (PR_UNLIKELY(r->bogus_head))
		return ring_corrupt(r, pos, 0, "data_head is beyond the data area or misaligned");
	if (!avail)
		return 0;
	hdr = (const struct perf_event_header *)(r->data + off);
	size = hdr->size;
	if (PR_UNLIKELY(size < sizeof(*hdr) || (size & 7) || size > avail)) {
		if (r->overwrite) {
			/* Zero: space never written. Beyond the window: the oldest
			 * record, its end overwritten by newer ones. Both end the
			 * history; neither is corruption. */
			if (size == 0 || ((size & 7) == 0 && size > avail)) {
				pr_counter_add(&r->stats.dropped_bytes, avail);
				r->batch_end = pos;
				return 0;
			}
		}
		return ring_corrupt(r, pos, size,
				    size < sizeof(*hdr) ? "size smaller than the 8-byte header"
				    : (size & 7)       ? "size not a multiple of 8"
							: "size reaches beyond data_head");
	}
	rec->type = hdr->type;
	rec->misc = hdr->misc;
	rec->size = (uint16_t)size;
	rec->offset = pos;
	rec->remaining = avail - size;
	first = r->data_size - off;
	/* Ahead inside the batch and before the data area's end (the walk
	 * goes on at its start). */
	pr_prefetch_ahead(hdr, (const uint8_t *)hdr + (avail < first ? avail : first));
	rec->data = hdr;
	if (PR_LIKELY(size <= first)) {
		rec->len = size;
		rec->data2 = NULL;
		rec->len2 = 0;
	} else {
		rec->len = first;
		rec->data2 = r->data;
		rec->len2 = size - first;
		if (r->linearize) {
			const void *lin = ring_linearize(r, rec);

			if (!lin)
				return pr_fail(ENOMEM, "out of memory for the ring's 64 KiB scratch buffer");
			rec->data = lin;
			rec->len = size;
			rec->data2 = NULL;
			rec->len2 = 0;
		}
	}
	return 1;
}

/* Account for a consumed record (published to stats at commit). */
static inline void ring_account(struct perfring_ring *r, const struct perfring_ring_record *rec)
{
	r->read_pos += rec->size;
	r->pend_records++;
	r->pend_bytes += rec->size;
	if (PR_UNLIKELY(rec->type == PERF_RECORD_LOST) && rec->size >= 24) {
		uint64_t lost;

		perfring_ring_record_copy(rec, 16, &lost, sizeof(lost));
		r->pend_lost += lost;
		r->pend_lost_records++;
	}
}

int perfring_ring_next(struct perfring_ring *r, struct perfring_ring_record *rec)
{
	int ret = ring_peek(r, rec);

	if (ret > 0)
		ring_account(r, rec);
	return ret;
}

void perfring_ring_commit(struct perfring_ring *r)
{
	if (r->pend_records) {
		pr_counter_add(&r->stats.records, r->pend_records);
		pr_counter_add(&r->stats.bytes, r->pend_bytes);
		if (r->pend_lost_records) {
			pr_counter_add(&r->stats.lost, r->pend_lost);
			pr_counter_add(&r->stats.lost_records, r->pend_lost_records);
		}
		r->pend_records = r->pend_bytes = r->pend_lost = r->pend_lost_records = 0;
	}
	if (PR_UNLIKELY(r->overwrite)) {
		/* The kernel ignores data_tail here (and the page is read-only):
		 * remember what we have seen instead, and what is left unread. */
		r->prev_head = r->batch_head;
		r->rest_pos = r->read_pos;
		r->rest_end = r->batch_end;
		return;
	}
	if (r->read_pos != r->commit_pos) {
		pr_store_tail(&r->meta->data_tail, r->read_pos);
		r->commit_pos = r->read_pos;
	}
}

/* Deliver the records of the batch set up by begin, then commit. */
static int ring_consume_batch(struct perfring_ring *r, perfring_ring_record_fn fn, void *ctx)
{
	struct perfring_ring_record rec;
	int n = 0, ret, cb;

	while ((ret = ring_peek(r, &rec)) > 0) {
		cb = fn(&rec, ctx);
		if (PR_UNLIKELY(cb < 0)) {
			ret = cb; /* not consumed: delivered again next time */
			break;
		}
		ring_account(r, &rec);
		n++;
		if (PR_UNLIKELY(cb > 0))
			break;
	}
	perfring_ring_commit(r);
	return ret < 0 ? ret : n;
}

int perfring_ring_consume(struct perfring_ring *r, perfring_ring_record_fn fn, void *ctx)
{
	perfring_ring_begin(r);
	return ring_consume_batch(r, fn, ctx);
}

int pr_ring_bad_head(struct perfring_ring *r)
{
	return ring_corrupt(r, r->commit_pos, 0, "data_head is beyond the data area or misaligned");
}

int pr_ring_peek_at(struct perfring_ring *r, uint64_t pos, uint64_t end, struct perfring_ring_record *rec)
{
	r->read_pos = pos;
	r->batch_end = end;
	r->bogus_head = false;
	return ring_peek(r, rec);
}

int pr_ring_consume_to(struct perfring_ring *r, uint64_t end, perfring_ring_record_fn fn, void *ctx)
{
	r->pend_records = r->pend_bytes = r->pend_lost = r->pend_lost_records = 0;
	r->read_pos = r->commit_pos;
	r->batch_end = end;
	r->bogus_head = end - r->commit_pos > r->data_size || (end & 7);
	return ring_consume_batch(r, fn, ctx);
}

const void *perfring_ring_linear(struct perfring_ring *r, const struct perfring_ring_record *rec)
{
	const void *lin;

	if (!r || !rec)
		return pr_fail_null(EINVAL, "perfring_ring_linear: %s is NULL", r ? "rec" : "ring");
	if (!rec->len2)
		return rec->data;
	lin = ring_linearize(r, rec);
	if (!lin)
		return pr_fail_null(ENOMEM, "perfring_ring_linear: out of memory for the ring's 64 KiB scratch buffer");
	return lin;
}

int perfring_ring_record_copy(const struct perfring_ring_record *rec, size_t off, void *dst, size_t len)
{
	uint8_t *out = dst;

	if (!rec || (!dst && len))
		return pr_fail(EINVAL, "perfring_ring_record_copy: %s is NULL", rec ? "dst" : "rec");
	if (off > rec->size || len > (size_t)rec->size - off)
		return pr_fail(ERANGE, "perfring_ring_record_copy: %zu bytes at offset %zu are beyond the %u-byte record",
			       len, off, (unsigned)rec->size);
	if (off < rec->len) {
		size_t n = rec->len - off < len ? rec->len - off : len;

		memcpy(out, (const uint8_t *)rec->data + off, n);
		out += n;
		len -= n;
		off = 0;
	} else {
		off -= rec->len;
	}
	if (len)
		memcpy(out, (const uint8_t *)rec->data2 + off, len);
	return 0;
}

uint64_t perfring_ring_bytes_available(const struct perfring_ring *r)
{
	uint64_t head = pr_load_head(&r->meta->data_head);

	if (r->overwrite) {
		uint64_t fresh = r->prev_head - head;

		return fresh > r->data_size ? r->data_size : fresh;
	}
	return head - r->commit_pos;
}

uint64_t perfring_ring_error_offset(const struct perfring_ring *r)
{
	return r->error_offset;
}

uint64_t perfring_ring_discard(struct perfring_ring *r)
{
	uint64_t head = pr_load_head(&r->meta->data_head), dropped;

	r->pend_records = r->pend_bytes = r->pend_lost = r->pend_lost_records = 0;
	r->bogus_head = false;
	if (r->overwrite) {
		dropped = (r->prev_head - head) + (r->rest_end - r->rest_pos);
		r->prev_head = r->batch_head = r->read_pos = r->batch_end = head;
		r->rest_pos = r->rest_end = 0;
	} else {
		dropped = head - r->commit_pos;
		/* A misaligned head cannot be a tail; round down to stay aligned. */
		head &= ~(uint64_t)7;
		pr_store_tail(&r->meta->data_tail, head);
		r->commit_pos = r->read_pos = r->batch_end = head;
	}
	pr_counter_add(&r->stats.dropped_bytes, dropped);
	return dropped;
}

static int ring_pause_output(struct perfring_ring *r, int on, const char *what)
{
	if (!r)
		return pr_fail(EINVAL, "%s: ring is NULL", what);
	if (r->fd < 0)
		return pr_fail(ENOTTY, "%s: a memory ring has no perf event to pause", what);
	if (ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, on))
		return pr_fail(errno, "%s: PERF_EVENT_IOC_PAUSE_OUTPUT on fd %d: %s", what, r->fd, strerror(errno));
	return 0;
}

int perfring_ring_pause(struct perfring_ring *r)
{
	return ring_pause_output(r, 1, "perfring_ring_pause");
}

int perfring_ring_resume(struct perfring_ring *r)
{
	return ring_pause_output(r, 0, "perfring_ring_resume");
}

int perfring_ring_stats(const struct perfring_ring *r, struct perfring_ring_stats *s)
{
	if (!r || !s)
		return pr_fail(EINVAL, "perfring_ring_stats: %s is NULL", r ? "stats" : "ring");
	s->records = pr_counter_get(&r->stats.records);
	s->bytes = pr_counter_get(&r->stats.bytes);
	s->lost = pr_counter_get(&r->stats.lost);
	s->lost_records = pr_counter_get(&r->stats.lost_records);
	s->corrupt = pr_counter_get(&r->stats.corrupt);
	s->dropped_bytes = pr_counter_get(&r->stats.dropped_bytes);
	return 0;
}

int perfring_ring_fd(const struct perfring_ring *r)
{
	if (!r)
		return pr_fail(EINVAL, "perfring_ring_fd: ring is NULL");
	if (r->fd < 0)
		return pr_fail(EBADF, "perfring_ring_fd: a memory ring has no perf event fd");
	return r->fd;
}

size_t perfring_ring_data_size(const struct perfring_ring *r)
{
	return (size_t)r->data_size;
}


size_t perfring_ring_mmap_size(const struct perfring_ring *r)
{
	return r->map_len;
}

bool perfring_ring_is_overwrite(const struct perfring_ring *r)
{
	return r->overwrite;
}

const void *perfring_ring_meta(const struct perfring_ring *r)
{
	return r->meta;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading overwrite (flight-recorder) BPF ring buffers, map flag
 * BPF_F_RB_OVERWRITE (Linux 6.19), newest record first, as overwrite perf
 * rings are read (src/ring/ring.c).
 *
 * The kernel's side (kernel/bpf/ringbuf.c after "bpf: Add overwrite mode
 * for BPF ring buffer", Xu Kuohai, 2025), what this file relies on:
 * - The producer page (mapped read-only; only the consumer page may be
 *   mapped writable) holds producer_pos, then pending_pos (the oldest
 *   record still being written), then overwrite_pos (the oldest record not
 *   overwritten), each an unsigned long.
 * - A reservation never waits for consumer_pos. When the new record does
 *   not fit, the producer moves overwrite_pos over whole records, oldest
 *   first, until new_prod - overwrite_pos <= mask: overwrite_pos is always
 *   a record boundary, and [overwrite_pos, producer_pos) is never more than
 *   the ring. It never moves past pending_pos: a BUSY record is never
 *   overwritten (the reservation fails instead), so records newer than a
 *   BUSY one stay until it is submitted.
 * - Records are laid out as in the forward ring ({u32 len; u32 pg_off},
 *   BUSY and DISCARD bits, round_up(len + 8, 8) bytes, the data area
 *   mapped twice so a record is contiguous).
 * - consumer_pos plays no part in the producer's space check in this mode;
 *   poll and BPF_RB_AVAIL_DATA count producer_pos - max(consumer_pos,
 *   overwrite_pos), and a commit at consumer_pos wakes the waiters. We store
 *   there how far we have seen, so that poll reports only what is new and
 *   the kernel's wakeups keep coming.
 *
 * How we read. Length words link the records forward only, so a snapshot
 * walks from the oldest live record, max(what we have seen, overwrite_pos),
 * to producer_pos, noting each record, and then delivers them from the
 * newest back. A BUSY record ends the snapshot: the records after it wait
 * for a later read (nothing after it can be overwritten meanwhile). Each
 * record is copied out and then checked against overwrite_pos and
 * producer_pos loaded after the copy (the ordering argument is in
 * common/barrier.h): one the producer has reached is counted in
 * dropped_bytes with every older record of the snapshot, and the read ends
 * there; a zero-copy view would change under the callback.
 *
 * The walk races the producer too: a length word read where the producer
 * has since written is garbage, and so is every position after it. After
 * the walk overwrite_pos is loaded again; since it is a record boundary,
 * the walk holds from the position equal to it on (the earlier ones are
 * gone), and if no walked position equals it, we walk again from it. A
 * length that cannot be right where the producer had not written is
 * corruption: -PERFRING_ECORRUPT with the position. Work is bounded: a walk
 * is at most data_size / 8 steps and a read makes at most OW_TRIES walks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringbuf/ringbuf_internal.h"

#define OW_TRIES 8

/* Bytes a record of length word len occupies. */
static uint64_t rec_size(uint32_t len)
{
	return ((uint64_t)(len & ~(PR_RB_BUSY | PR_RB_DISCARD)) + PR_RB_HDR + 7) & ~(uint64_t)7;
}

/* Whether free-running position a is older than b. */
static bool older(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* Only the reading thread changes ow_n; perfring_reader_pending() may look
 * at it from another (pr_rb_ow_has_data()). */
static void ow_set_n(struct perfring_ringbuf *rb, size_t n)
{
	__atomic_store_n(&rb->ow_n, n, __ATOMIC_RELAXED);
}

/* The snapshot's undelivered bytes: from its start to the end of the newest pending record. */
static uint64_t rest_bytes(const struct perfring_ringbuf *rb)
{
	const struct pr_rb_ow_rec *e;

	if (!rb->ow_n)
		return 0;
	e = &rb->ow[rb->ow_n - 1];
	return e->off + rec_size(e->len);
}

/* pr_grow(), with the message said: -ENOMEM (message set, the array kept)
 * when out of memory for what. */
static int grow(void *arrp, size_t *cap, size_t n, size_t elem, const char *what)
{
	if (pr_grow(arrp, cap, n, elem))
		return pr_fail(ENOMEM, "overwrite BPF ring buffer: out of memory for %s (%zu elements of %zu bytes)",
			       what, n, elem);
	return 0;
}

/*
 * Where a snapshot starts: at what we have seen (seen, our consumer_pos),
 * or at overwrite_pos if the producer has passed that. Returns what is
 * wrong with that start against producer_pos (NULL: nothing); only the
 * start needs to be sane, the walk checks the rest (after
 * perfring_ringbuf_discard() seen is ours). One definition for the read
 * and for the data check, so that they agree.
 */
static const char *ow_start_wrong(uint64_t seen, uint64_t over, uint64_t prod, uint64_t data_size, uint64_t *lo)
{
	bool ours = older(over, seen);

	*lo = ours ? seen : over;
	if (older(prod, *lo))
		return ours ? "consumer_pos is ahead of producer_pos" : "overwrite_pos is ahead of producer_pos";
	if (*lo & 7)
		return ours ? "consumer_pos is not 8-byte aligned" : "overwrite_pos is not 8-byte aligned";
	if (prod - *lo > data_size)
		return ours ? "consumer_pos is more than the ring size behind producer_pos" :
			      "overwrite_pos is more than the ring size behind producer_pos";
	return NULL;
}

/* The first of the walk's n records at position pos (relative offset off), n if pos is the walk's end. */
static size_t find_off(const struct pr_rb_ow_rec *ow, size_t n, uint64_t off, uint64_t end_off, bool *found)
{
	size_t lo = 0, hi = n;

	*found = true;
	if (off == end_off)
		return n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ow[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && ow[lo].off == off;
	return lo;
}

enum { WALK_OK = 0, WALK_AGAIN = 1 };

/*
 * Walk [*lo, prod) into rb->ow. WALK_OK with ow_n records from *lo (moved
 * up to overwrite_pos if the producer passed the start meanwhile) and *end
 * (prod, or the first BUSY record), WALK_AGAIN when the producer overwrote
 * what was walked, or -PERFRING_ECORRUPT.
 */
static int ow_walk(struct perfring_ringbuf *rb, uint64_t *lo, uint64_t prod, uint64_t *end)
{
	uint64_t p = *lo, over;
	size_t n = 0, k;
	bool found;

	while (p != prod) {
		uint32_t len = pr_rb_load_len((const volatile uint32_t *)(rb->data + (p & rb->mask)));
		uint64_t size;

		if (len & PR_RB_BUSY)
			break; /* reserved, not submitted: it and the records after it wait */
		size = rec_size(len);
		if (size > prod - p) {
			/* Garbage from the producer writing here, or corruption. */
			over = pr_rb_load_overwrite(rb->overwrite_pos);
			if (older(p, over) || older(*lo, over))
				return WALK_AGAIN;
			return pr_rb_corrupt(rb, p,
					     size > rb->data_size ? "a record longer than the ring" :
								    "a record reaching beyond producer_pos");
		}
		rb->ow[n].off = (uint32_t)(p - *lo);
		rb->ow[n].len = len;
		n++;
		p += size;
	}
	*end = p;
	/* Every length word above was an acquire load: this one comes after all of them. */
	over = pr_rb_load_overwrite(rb->overwrite_pos);
	if (older(*lo, over)) {
		if (older(p, over))
			return WALK_AGAIN; /* everything walked is gone */
		k = find_off(rb->ow, n, over - *lo, p - *lo, &found);
		if (!found)
			return WALK_AGAIN; /* the walk went astray on an overwritten length */
		memmove(rb->ow, rb->ow + k, (n - k) * sizeof(*rb->ow));
		n -= k;
		for (k = 0; k < n; k++)
			rb->ow[k].off -= (uint32_t)(over - *lo);
		*lo = over;
	}
	ow_set_n(rb, n);
	return WALK_OK;
}

/* Take a new snapshot into rb->ow (ow_n records, maybe none). 0 or an error. */
static int ow_snapshot(struct perfring_ringbuf *rb)
{
	uint64_t prod = 0, over = 0, lo, end = 0, seen = rb->cons;
	const char *wrong;
	int tries, ret;

	ow_set_n(rb, 0);
	for (tries = 0; tries < OW_TRIES; tries++) {
		prod = pr_rb_load_producer(rb->producer_pos);
		over = pr_rb_load_overwrite(rb->overwrite_pos);
		if (older(prod, over))
			continue; /* a fast producer between the two loads: load both again */
		if (PR_UNLIKELY(prod & 7))
			return pr_rb_corrupt(rb, prod, "producer_pos is not 8-byte aligned");
		wrong = ow_start_wrong(seen, over, prod, rb->data_size, &lo);
		if (PR_UNLIKELY(wrong))
			return pr_rb_corrupt(rb, lo, wrong);
		if (grow(&rb->ow, &rb->ow_cap, (size_t)((prod - lo) / 8) + 1, sizeof(*rb->ow), "the index of a snapshot"))
			return -ENOMEM;
		ret = ow_walk(rb, &lo, prod, &end);
		if (ret < 0)
			return ret;
		if (ret == WALK_AGAIN)
			continue;
		/* Overwritten before we saw them: dropped. */
		if (older(seen, lo))
			pr_counter_add(&rb->stats.dropped_bytes, lo - seen);
		rb->ow_lo = lo;
		rb->ow_prod = prod;
		/* Seen up to end: poll and the kernel's wakeups go by it. */
		__atomic_store_n(&rb->cons, end, __ATOMIC_RELAXED);
		pr_rb_store_consumer(rb->consumer_pos, end);
		return 0;
	}
	if (older(prod, over))
		return pr_fail(EAGAIN, "overwrite BPF ring buffer%s: overwrite_pos (%llu) stayed ahead of producer_pos "
				       "(%llu) in %d tries: the producer wraps the ring faster than it can be read; "
				       "use a larger ring",
			       rb->fd >= 0 ? "" : " (memory)", (unsigned long long)over, (unsigned long long)prod,
			       OW_TRIES);
	return pr_fail(EAGAIN, "overwrite BPF ring buffer%s: the producer overwrote the records while they were "
			       "walked, %d times in a row; use a larger ring",
		       rb->fd >= 0 ? "" : " (memory)", OW_TRIES);
}

/* Deliver the snapshot's records from the newest back: see pr_rb_ow_read(). */
static int ow_deliver(struct perfring_ringbuf *rb, size_t budget, pr_rb_deliver_fn deliver, void *arg,
		      bool *stopped)
{
	uint64_t bytes = 0;
	int n = 0, ret = 0;

	while (rb->ow_n && (!budget || (size_t)n < budget)) {
		const struct pr_rb_ow_rec *e = &rb->ow[rb->ow_n - 1];
		uint64_t pos = rb->ow_lo + e->off, size = rec_size(e->len), over, prod;
		uint32_t len;

		if (e->len & PR_RB_DISCARD) {
			rb->discarded++;
			ow_set_n(rb, rb->ow_n - 1);
			continue;
		}
		if (grow(&rb->ow_copy, &rb->ow_copy_cap, (size_t)(size / 8), sizeof(*rb->ow_copy), "the copy of a record")) {
			ret = -ENOMEM;
			break;
		}
		/* The walk checked size <= the snapshot <= data_size: the copy
		 * stays inside the data area's two copies. */
		pr_rb_copy_words(rb->ow_copy, (const volatile uint64_t *)(const void *)(rb->data + (pos & rb->mask)),
				 (size_t)(size / 8));
		over = pr_rb_load_overwrite(rb->overwrite_pos);
		prod = pr_rb_load_producer(rb->producer_pos);
		memcpy(&len, rb->ow_copy, sizeof(len));
		/* Reached by the producer (overwrite_pos past it, or so far
		 * ahead that even its header may be rewritten), or changed since
		 * the walk: this record and all older ones are gone. */
		if (older(pos, over) || prod - pos + PR_RB_HDR > rb->data_size || len != e->len) {
			pr_counter_add(&rb->stats.dropped_bytes, e->off + size);
			ow_set_n(rb, 0);
			break;
		}
		ret = deliver(arg, (const uint8_t *)rb->ow_copy + PR_RB_HDR, len, e->off);
		if (PR_UNLIKELY(ret < 0))
			break; /* not consumed: delivered again next time, if still there */
		ow_set_n(rb, rb->ow_n - 1);
		n++;
		bytes += size;
		if (PR_UNLIKELY(ret > 0)) {
			*stopped = true;
			ret = 0;
			break;
		}
	}
	if (n) {
		pr_counter_add(&rb->stats.records, (uint64_t)n);
		pr_counter_add(&rb->stats.bytes, bytes);
	}
	return ret < 0 ? ret : n;
}

int pr_rb_ow_read(struct perfring_ringbuf *rb, size_t budget, pr_rb_deliver_fn deliver, void *arg, bool *stopped,
		  bool keep_rest)
{
	int ret;

	/* A pending rest goes on only if nothing was written since its
	 * snapshot (or the caller asks for it): newer records come first. */
	if (rb->ow_n && !keep_rest && pr_rb_load_producer(rb->producer_pos) != rb->ow_prod) {
		pr_counter_add(&rb->stats.dropped_bytes, rest_bytes(rb));
		ow_set_n(rb, 0);
	}
	if (!rb->ow_n) {
		if (keep_rest)
			return 0;
		ret = ow_snapshot(rb);
		if (ret < 0)
			return ret;
	}
	return ow_deliver(rb, budget, deliver, arg, stopped);
}

/* The oldest position a new snapshot would start at, or false if the
 * positions are not sane (the read reports why). */
static bool ow_start(const struct perfring_ringbuf *rb, uint64_t *lo, uint64_t *prod)
{
	uint64_t over, seen = pr_rb_cons(rb);

	*prod = pr_rb_load_producer(rb->producer_pos);
	over = pr_rb_load_overwrite(rb->overwrite_pos);
	return !ow_start_wrong(seen, over, *prod, rb->data_size, lo);
}

bool pr_rb_ow_has_data(const struct perfring_ringbuf *rb)
{
	uint64_t lo, prod;

	if (__atomic_load_n(&rb->ow_n, __ATOMIC_RELAXED))
		return true;
	if (!ow_start(rb, &lo, &prod))
		return true; /* let the read say what is wrong */
	if (lo == prod)
		return false;
	/* A BUSY record first: nothing to deliver until it is submitted. */
	return !(pr_rb_load_len((const volatile uint32_t *)(rb->data + (lo & rb->mask))) & PR_RB_BUSY);
}

uint64_t pr_rb_ow_avail(const struct perfring_ringbuf *rb)
{
	uint64_t lo, prod;

	if (!ow_start(rb, &lo, &prod))
		return older(prod, lo) ? 0 : rb->data_size;
	return prod - lo;
}

uint64_t pr_rb_ow_discard(struct perfring_ringbuf *rb)
{
	uint64_t prod = pr_rb_load_producer(rb->producer_pos), seen = rb->cons, n;

	n = rest_bytes(rb) + (older(seen, prod) ? prod - seen : 0);
	ow_set_n(rb, 0);
	prod &= ~(uint64_t)7; /* a misaligned producer_pos cannot be a start */
	__atomic_store_n(&rb->cons, prod, __ATOMIC_RELAXED);
	pr_rb_store_consumer(rb->consumer_pos, prod);
	pr_counter_add(&rb->stats.dropped_bytes, n);
	return n;
}

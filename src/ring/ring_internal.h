/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ring's state, shared by ring.c and the reader's fast drain path
 * (reader_drain.c), which walks BPF samples without the ring layer's
 * per-record callback. Not installed: the public type stays opaque.
 */
#ifndef PERFRING_RING_INTERNAL_H
#define PERFRING_RING_INTERNAL_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/ring.h>

/* struct perfring_ring_record starts with the perf_event_header's layout, so one
 * 8-byte copy fills type, misc and size. */
_Static_assert(offsetof(struct perfring_ring_record, type) == offsetof(struct perf_event_header, type) &&
		       offsetof(struct perfring_ring_record, misc) == offsetof(struct perf_event_header, misc) &&
		       offsetof(struct perfring_ring_record, size) == offsetof(struct perf_event_header, size) &&
		       sizeof(struct perf_event_header) == 8,
	       "struct perfring_ring_record must start like struct perf_event_header");

struct perfring_ring {
	/* Read on every record. */
	uint8_t *data;      /* start of the data area */
	uint64_t mask;      /* data_size - 1 */
	uint64_t read_pos;  /* position of the next record of the batch */
	uint64_t batch_end; /* end of the batch (forward: head snapshot) */
	bool linearize;
	bool overwrite;
	bool bogus_head;    /* head - tail beyond the data area: corrupt */
	uint64_t pend_records, pend_bytes, pend_lost, pend_lost_records;

	struct perf_event_mmap_page *meta;
	uint64_t data_size;
	uint64_t commit_pos; /* forward: our last stored data_tail */
	uint64_t prev_head;  /* overwrite: head at the previous commit */
	uint64_t batch_head; /* overwrite: head snapshot of this batch */
	uint64_t rest_pos, rest_end; /* overwrite: unread part of the last window */
	uint64_t error_offset;
	uint8_t *scratch;    /* linearised copies, SCRATCH_SIZE bytes */
	int fd;
	void *map_base;      /* our mmap, NULL for a memory ring */
	size_t map_len;
	struct perfring_ring_stats stats; /* relaxed atomics: read from any thread */
};

/*
 * perfring_ring_consume() of a forward ring with the batch ending at end (a
 * head snapshot the caller already took and partly consumed), so that one
 * drain is one batch whoever walks it.
 */
int pr_ring_consume_to(struct perfring_ring *r, uint64_t end, perfring_ring_record_fn fn, void *ctx);

/*
 * The record at pos of a forward batch ending at end, validated, as two spans
 * or linearised like perfring_ring_next(), without consuming it. 1, or
 * -PERFRING_ECORRUPT / -ENOMEM with the message set.
 */
int pr_ring_peek_at(struct perfring_ring *r, uint64_t pos, uint64_t end, struct perfring_ring_record *rec);

/* Report (and count) a batch whose head snapshot cannot be trusted. */
int pr_ring_bad_head(struct perfring_ring *r);

#endif /* PERFRING_RING_INTERNAL_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the ring layer: a memory ring with hostile geometry, head
 * and tail, and hostile records, driven through every reading API.
 *
 * Input: a 24-byte prefix, then the data area's bytes (repeated to fill it).
 *   [0]     flags: bit 0 overwrite, bit 1 linearize, bit 2 legacy layout
 *           (data_size 0: the data area is the rest of the mapping),
 *           bits 3-5 the API (see drive()), bit 6 stop early, bit 7 fail
 *   [1]     log2 of the data area size, & 15 (1 byte .. 32 KiB)
 *   [2..3]  data_offset: 0 = the page size, else this value (any alignment)
 *   [4..7]  extra bytes of mapping after the data area (& 0xfff)
 *   [8..15] data_head, [16..23] data_tail (free-running positions)
 * The ring is built over heap memory of exactly the mapping's length, so
 * ASan sees any read outside it. The harness checks ring.h's promises (every
 * view inside the data area or the scratch copy, len + len2 == size, size a
 * multiple of 8 and >= 8, _ring_record_copy agrees with the spans, the tail
 * never passes head, the consumed count matches the callbacks) and aborts
 * after a "ring_fuzz: FINDING:" line when one breaks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include <perfring/ring.h>

#define PAGE 4096u

static void finding(const char *what, unsigned long long a, unsigned long long b)
{
	fprintf(stderr, "ring_fuzz: FINDING: %s (%llu, %llu)\n", what, a, b);
	abort();
}

struct ctx {
	const uint8_t *area; /* the data area */
	uint64_t area_size;
	struct perfring_ring *ring;
	int calls, stop_at;
	int fail;
	bool discarded; /* perfring_ring_discard() moved the tail to head on purpose */
};

static void check_record(struct ctx *c, const struct perfring_ring_record *rec)
{
	uint8_t copy[65536];
	const uint8_t *d = rec->data;

	if (rec->size < 8 || (rec->size & 7))
		finding("record size not a multiple of 8 or below 8", rec->size, 0);
	if (rec->len + rec->len2 != rec->size)
		finding("len + len2 != size", rec->len + rec->len2, rec->size);
	if (rec->len2) {
		if ((const uint8_t *)rec->data2 != c->area)
			finding("second span not at the start of the data area", 0, 0);
		if (rec->len2 > c->area_size)
			finding("second span longer than the data area", rec->len2, c->area_size);
	}
	/* The first span lies in the data area, unless it is a linearised copy. */
	if (d >= c->area && d < c->area + c->area_size) {
		if ((uint64_t)(d - c->area) + rec->len > c->area_size)
			finding("first span runs past the data area", (unsigned long long)(d - c->area), rec->len);
	} else if (rec->len2 || rec->len != rec->size) {
		finding("first span outside the data area", 0, 0);
	}
	if (perfring_ring_record_copy(rec, 0, copy, rec->size))
		finding("record_copy refused the whole record", rec->size, 0);
	if (memcmp(copy, rec->data, rec->len) || (rec->len2 && memcmp(copy + rec->len, rec->data2, rec->len2)))
		finding("record_copy differs from the spans", rec->len, rec->len2);
	if (perfring_ring_record_copy(rec, 1, copy, rec->size) != -ERANGE)
		finding("record_copy past the end not refused", rec->size, 0);
	if (rec->len2) {
		const uint8_t *lin = perfring_ring_linear(c->ring, rec);

		if (lin && memcmp(lin, copy, rec->size))
			finding("ring_linear differs from the spans", rec->size, 0);
	}
}

static int on_record(const struct perfring_ring_record *rec, void *p)
{
	struct ctx *c = p;

	check_record(c, rec);
	c->calls++;
	if (c->fail && c->calls == c->stop_at)
		return -EIO;
	return c->stop_at && c->calls == c->stop_at ? PERFRING_STOP : PERFRING_CONTINUE;
}

static void check_tail(const struct perf_event_mmap_page *meta, uint64_t head0, uint64_t tail0, uint64_t size,
		       bool overwrite, bool discarded)
{
	uint64_t tail = meta->data_tail;

	if (discarded && tail == (head0 & ~(uint64_t)7))
		return; /* recovery: everything up to head (rounded down to 8) dropped, as documented */
	if (overwrite) {
		if (tail != tail0)
			finding("overwrite ring wrote data_tail", tail, tail0);
		return;
	}
	/* The tail only moves forward, and never past the head (as long as the
	 * head was within one data area of the tail: else nothing is read). */
	if (tail - tail0 > head0 - tail0 && tail != tail0)
		finding("tail moved past head", tail, head0);
	if (head0 - tail0 > size && tail != tail0)
		finding("tail moved under an untrustworthy head", tail, head0);
}

static void drive(struct perfring_ring *ring, struct ctx *c, unsigned api)
{
	struct perfring_ring_record rec;
	int round, ret, k;

	for (round = 0; round < 3; round++) {
		c->calls = 0;
		switch (api) {
		case 0:
		case 1:
			ret = perfring_ring_consume(ring, on_record, c);
			if (ret >= 0 && ret != c->calls - (c->fail && c->calls == c->stop_at))
				finding("consume count differs from callbacks", (unsigned long long)ret, c->calls);
			break;
		case 2:
		case 3: {
			int64_t avail = perfring_ring_begin(ring);

			if (avail < 0)
				finding("begin returned an error for a memory ring", 0, 0);
			for (k = 0; k < 100000 && (ret = perfring_ring_next(ring, &rec)) > 0; k++) {
				check_record(c, &rec);
				if (c->stop_at && k + 1 == c->stop_at)
					break;
			}
			if (k == 100000)
				finding("iterator did not end", k, 0);
			perfring_ring_commit(ring);
			break;
		}
		default: {
			struct perfring_cursor cur;
			const struct perfring_header *h;

			if (perfring_ring_cursor(ring, &cur) < 0 && !perfring_ring_is_overwrite(ring))
				finding("cursor refused a forward ring", 0, 0);
			for (k = 0; k < 100000 && (h = perfring_cursor_next(&cur)); k++) {
				const uint8_t *p = (const uint8_t *)h;

				if (h->size < 8 || (h->size & 7))
					finding("cursor record size", h->size, 0);
				if (!(p >= c->area && p + h->size <= c->area + c->area_size)) {
					/* a straddling record, copied: must be readable */
					volatile uint8_t last = p[h->size - 1];
					(void)last;
				}
				if (c->stop_at && k + 1 == c->stop_at)
					break;
			}
			if (k == 100000)
				finding("cursor did not end", k, 0);
			if (!perfring_ring_is_overwrite(ring))
				perfring_ring_cursor_commit(ring, &cur);
			ret = cur.err;
			break;
		}
		}
		(void)perfring_ring_bytes_available(ring);
		if (ret == -PERFRING_ECORRUPT) {
			perfring_ring_discard(ring);
			c->discarded = true;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *meta;
	struct perfring_ring *ring;
	struct perfring_ring_opts opts;
	uint64_t dsize, doff, extra, head, tail, len, i;
	uint8_t *buf;
	struct ctx c;
	unsigned flags;

	if (size < 24)
		return 0;
	flags = data[0];
	dsize = 1ull << (data[1] & 15);
	doff = (uint64_t)data[2] | (uint64_t)data[3] << 8;
	if (!doff)
		doff = PAGE;
	extra = ((uint64_t)data[4] | (uint64_t)data[5] << 8) & 0xfff;
	memcpy(&head, data + 8, 8);
	memcpy(&tail, data + 16, 8);
	len = (doff > PAGE ? doff : PAGE) + dsize + extra;
	buf = aligned_alloc(64, (len + 63) & ~(uint64_t)63);
	if (!buf)
		return 0;
	memset(buf, 0, len);
	meta = (struct perf_event_mmap_page *)(void *)buf;
	/* Fill what the ring will take as its data area (or the rest of the
	 * mapping) with the input's bytes, repeated; then the metadata fields,
	 * which a hostile data_offset may have had the fill run over. */
	if (size > 24) {
		uint64_t from = flags & 4 ? PAGE : doff;

		for (i = from; i < len; i++)
			buf[i] = data[24 + (i - from) % (size - 24)];
	}
	meta->data_offset = flags & 4 ? 0 : doff;
	meta->data_size = flags & 4 ? 0 : dsize;
	meta->data_head = head;
	meta->data_tail = tail;
	opts = PERFRING_OPTS_INIT(perfring_ring_opts, .overwrite = flags & 1, .linearize = (flags & 2) != 0);
	ring = perfring_ring_new_mem(buf, len, PAGE, &opts);
	if (!ring) {
		free(buf);
		return 0;
	}
	/* Whatever geometry was accepted must be sane. */
	dsize = perfring_ring_data_size(ring);
	doff = flags & 4 ? PAGE : doff;
	if (dsize < 8 || (dsize & (dsize - 1)) || (doff & 7) || doff < sizeof(*meta) || doff + dsize > len)
		finding("accepted a data area that cannot be read safely", doff, dsize);
	memset(&c, 0, sizeof(c));
	c.area = buf + doff;
	c.area_size = dsize;
	c.ring = ring;
	c.stop_at = flags & 0x40 ? 1 + (data[6] & 7) : 0;
	c.fail = (flags & 0x80) && c.stop_at;
	drive(ring, &c, (flags >> 3) & 7);
	check_tail(meta, head, tail, dsize, flags & 1, c.discarded);
	perfring_ring_free(ring);
	free(buf);
	return 0;
}

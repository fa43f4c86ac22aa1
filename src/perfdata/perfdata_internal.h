/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perf.data reader internals, shared by the src/perfdata*.c files. Not installed. */
#ifndef PERFRING_PERFDATA_INTERNAL_H
#define PERFRING_PERFDATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include <perfring/perfdata.h>
#include <perfring/record.h>

#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read as a little-endian u64 */
#define PD_FILE_HEADER_SIZE 104
#define PD_PIPE_HEADER_SIZE 16
#define PD_ATTR_SIZE_VER0 64
#define PD_FEAT_BITS 256

/* perf's feature bit numbers (tools/perf/util/header.h). */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CLOCK_DATA = 29,
};

/* An attr and what the reader keeps for it; pub is what callers see. */
struct pd_attr {
	struct perfring_perfdata_attr pub;
	struct perf_event_attr attr;
	uint64_t *ids;
	uint64_t ids_cap;
	bool cfg_ok;
	char *name_own;
};

/* Where the bytes come from: a buffer the caller owns, a mapping of a
 * regular file, or a stream (pipe) read in chunks into a growing buffer. */
struct pd_input {
	const uint8_t *buf; /* bytes [base, base + len) of the input */
	uint64_t base;
	size_t len;
	uint8_t *own;       /* stream buffer (buf == own) */
	size_t cap;
	void *map;
	size_t map_len;
	int fd;
	bool close_fd;
	bool stream;
	bool eof;
};

/* A record queued for time ordering. Its bytes stay where they are when
 * they outlive the queue (a file held whole in memory), else they are
 * copied into the arena. */
struct pd_queued {
	uint64_t time;
	uint64_t seq;
	size_t data_off;    /* in the arena, when in_arena */
	bool in_arena;
	struct perfring_perfdata_record rec;
};

/* What the sort moves: small, so that sorting a round stays cheap. */
struct pd_order_key {
	uint64_t time;
	uint64_t seq;  /* arrival order: equal times keep it (a stable sort) */
	size_t idx;    /* in the queue */
};

struct perfring_perfdata {
	struct pd_input in;
	bool pipe, swapped, ordered;
	uint64_t error_offset;
	uint64_t max_queue_bytes, max_decompressed; /* the opts, defaults applied */
	uint64_t decompressed;   /* bytes expanded so far */
	uint64_t early_flushed;  /* records delivered early by the queue's bound */

	/* file mode sections */
	uint64_t attr_size;
	uint64_t data_off, data_size;
	uint64_t feat_bitmap[PD_FEAT_BITS / 64];
	uint64_t pos;        /* next record's offset */
	uint64_t end;        /* end of the data section (UINT64_MAX in pipe mode) */

	/* attrs and the id table */
	struct pd_attr **attrs;
	int nr_attrs, cap_attrs;
	struct pd_id { uint64_t id; int idx; } *idtab;
	size_t nr_ids, cap_ids;
	bool idtab_dirty;

	/* features: bytes in the file's order (owned in pipe mode) */
	const uint8_t *feat_data[PD_FEAT_BITS];
	size_t feat_len[PD_FEAT_BITS];
	uint8_t *feat_own[PD_FEAT_BITS];
	struct perfring_perfdata_info info;
	struct perfring_perfdata_build_id *build_ids;
	char **strings;      /* owned strings of info and build ids */
	size_t nr_strings, cap_strings;

	/* zstd decompression: records of the stream that are not yet delivered */
	void *zstd;          /* ZSTD_DCtx */
	uint8_t *dbuf;
	size_t dcap, dpos, dlen;
	uint64_t dsrc_off;   /* offset of the compressed record the bytes came from */

	/* ordering (perf's ordered_events): the queue is sorted by (time, seq)
	 * when a flush starts; flush_cnt of its first entries are delivered */
	struct pd_queued *queue, *queue_spare; /* the spare takes the rest after a flush */
	struct pd_order_key *keys, *keys_tmp;  /* the queue's order, built at a flush */
	size_t nr_queue, cap_queue, flush_pos, flush_cnt;
	uint8_t *arena;
	size_t arena_len, arena_cap;
	bool flushing, at_eof;
	int sticky_err;
	uint64_t seq;
	uint64_t max_time;   /* the largest time queued so far */
	uint64_t next_flush; /* a round flushes up to this: the max time at the previous round */
};

static inline uint16_t pd16(const struct perfring_perfdata *pd, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return pd->swapped ? __builtin_bswap16(v) : v;
}

static inline uint32_t pd32(const struct perfring_perfdata *pd, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return pd->swapped ? __builtin_bswap32(v) : v;
}

static inline uint64_t pd64(const struct perfring_perfdata *pd, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return pd->swapped ? __builtin_bswap64(v) : v;
}

/* perfdata_open.c: fail with the fault's offset in the file, in the message
 * itself (open-time errors free the reader) and in error_offset. */
int pd_fail_at(struct perfring_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* perfdata_input.c */
int pd_input_ensure(struct perfring_perfdata *pd, uint64_t off, uint64_t n, const uint8_t **p);
void pd_input_discard(struct perfring_perfdata *pd, uint64_t off);
void pd_input_close(struct pd_input *in);

/* perfdata_attr.c */
int pd_attr_decode(const struct perfring_perfdata *pd, const void *src, size_t avail, struct perf_event_attr *out,
		   uint32_t *file_size);
int pd_attr_add(struct perfring_perfdata *pd, const struct perf_event_attr *attr, uint32_t file_size,
		const uint8_t *ids, uint64_t nr_ids);
int pd_attr_add_id(struct perfring_perfdata *pd, int idx, uint64_t id);
int pd_attr_find_id(struct perfring_perfdata *pd, uint64_t id);
const struct perfring_perfdata_attr *pd_attr_for_record(struct perfring_perfdata *pd, const void *rec, size_t len);
int pd_attr_set_name(struct perfring_perfdata *pd, int idx, const char *name, size_t len);
void pd_attrs_free(struct perfring_perfdata *pd);

/* perfdata_feature.c */
int pd_feature_set(struct perfring_perfdata *pd, int feat, const uint8_t *data, size_t len, bool copy);
void pd_features_free(struct perfring_perfdata *pd);

/* perfdata_next.c */
/* The HEADER_TRACING_DATA feature for the tracepoints with these ids
 * (perfdata_tracing.c): *out (malloc'd) and *out_len, or a negative errno. */
int pd_tracing_data(const uint64_t *ids, size_t nr, uint8_t **out, size_t *out_len);

/* The build ids of the binaries samples hit (perfdata_buildid.c), for the
 * writer's HEADER_BUILD_ID feature. */
struct pw_bid_attr {
	struct perfring_parse_config cfg;
	const uint64_t *ids; /* the writer's: they outlive the pw_bids */
	size_t nr_ids;
};
struct pw_bids;
struct pw_bids *pw_bids_new(const struct pw_bid_attr *attrs, int nr);
/* A record written to the file: the model learns from it, a sample marks what it hit. */
int pw_bids_record(struct pw_bids *b, const void *rec, size_t len);
/* The feature's entries, given to emit; 0 or emit's error. */
int pw_bids_write(struct pw_bids *b, int (*emit)(void *ctx, const void *p, size_t n), void *ctx);
void pw_bids_free(struct pw_bids *b);

int pd_raw_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec);
void pd_next_free(struct perfring_perfdata *pd);

#endif /* PERFRING_PERFDATA_INTERNAL_H */

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
#define PD_IDCACHE 64 /* ids remembered by pd_attr_idx_for_record() */
#define PD_MAX_RUNS 8 /* runs a flush merges as it delivers; more are sorted */

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

/* Where one sample_id field (time, or the id that names the attr) sits in
 * a kernel record, worked out once from sample_type so that ordering and
 * attr matching load it directly instead of decoding the record: in a
 * SAMPLE at byte sample_off (the record needs sample_need bytes, as its
 * sample_id fields take), in other kernel records trailer_back bytes before
 * the end (sample_id_all; trailer_need bytes). Negative: not there. */
struct pd_field_at {
	int16_t sample_off, trailer_back;
	uint16_t sample_need, trailer_need;
};

/* An attr and what the reader keeps for it; pub is what callers see. */
struct pd_attr {
	struct perfring_perfdata_attr pub;
	struct perf_event_attr attr;
	uint64_t *ids;
	uint64_t ids_cap;
	bool cfg_ok;
	char *name_own;
	int idx;                         /* in pd->attrs */
	struct pd_field_at time_at, id_at;
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
	size_t populated;   /* bytes of the mapping populated ahead of the reader */
	size_t released;    /* bytes of the mapping released behind it */
	int fd;
	bool close_fd;
	bool stream;
	bool eof;
};

/* A record queued for time ordering: what the sort moves, 32 bytes, never
 * the record. Its bytes stay where they are when they outlive the queue (a
 * file held whole in memory), else they are copied into the arena. The
 * entry keeps the record's header too, so that delivering it reads no
 * record byte: a round is delivered after the next one was read, and by
 * then its records have left the cache; a consumer that needs only the
 * type and the event (counting, filtering) never goes back to them. The
 * queue is kept in arrival order between flushes and sorted stably, so
 * equal times keep their arrival order without a sequence number. */
#define PD_MAX_ATTRS (1u << 24) /* the entry's attr_idx bits */
struct pd_queued {
	uint64_t time;
	uint64_t offset;    /* rec.offset */
	union {
		const uint8_t *data; /* the record in the input */
		size_t arena_off;    /* when in_arena */
	} at;
	uint16_t size, misc; /* the record's header (kernel records only: type < 64) */
	uint32_t attr_idx : 24, type : 6, in_arena : 1, from_compressed : 1;
};

struct perfring_perfdata {
	struct pd_input in;
	bool pipe, swapped, ordered;
	uint64_t error_offset;
	uint64_t max_queue_bytes, max_decompressed; /* the opts, defaults applied */
	uint64_t decompressed;   /* bytes expanded so far */
	uint64_t early_flushed;  /* records delivered early by the queue's bound (atomic:
				  * the readahead thread counts, the caller may read) */

	/* file mode sections */
	uint64_t attr_size;
	uint64_t data_off, data_size;
	uint64_t feat_bitmap[PD_FEAT_BITS / 64];
	uint64_t pos;        /* next record's offset */
	uint64_t prefetched; /* the input is prefetched up to here */
	uint64_t fast_end;   /* records wholly before this are in memory: the end of
			      * the data or the input, 0 for a stream */
	uint64_t end;        /* end of the data section (UINT64_MAX in pipe mode) */

	/* attrs and the id table */
	struct pd_attr **attrs;
	int nr_attrs, cap_attrs;
	struct pd_id { uint64_t id; int idx; } *idtab;
	size_t nr_ids, cap_ids;
	bool idtab_dirty;
	/* The last ids looked up (id 0: empty), cleared when ids are added:
	 * a file has a few ids (one per event and CPU) used over and over. */
	struct pd_id idcache[PD_IDCACHE];

	/* features: bytes in the file's order (owned in pipe mode) */
	const uint8_t *feat_data[PD_FEAT_BITS];
	size_t feat_len[PD_FEAT_BITS];
	uint8_t *feat_own[PD_FEAT_BITS];
	struct perfring_perfdata_info info;
	struct perfring_perfdata_build_id *build_ids;
	char **strings;      /* owned strings of info and build ids */
	size_t nr_strings, cap_strings;

	/* zstd decompression, expanded as it is read (perfdata_next.c): the
	 * compressed bytes of the last COMPRESSED record (a copy: at most a
	 * record's 64 KiB), and a bounded window of what they expanded to that
	 * is not yet delivered ([dpos, dlen) of dbuf). */
	void *zstd;          /* ZSTD_DCtx */
	uint8_t *zin;
	size_t zin_len, zin_pos;
	bool zmore;          /* zin has bytes left or zstd may hold output: records may follow */
	uint8_t *dbuf;
	size_t dcap, dpos, dlen;
	uint64_t dsrc_off;   /* offset of the compressed record the bytes came from */

	/* ordering (perf's ordered_events): the queue holds records in
	 * arrival order; a flush finds its ascending runs (one per ring the
	 * recorder read, and what earlier flushes left) and merges their heads
	 * as it delivers, up to flush_limit and at most flush_left records
	 * (a queue of many runs is sorted first, into one) */
	struct pd_queued *queue, *queue_tmp; /* the merge sort's second half */
	size_t nr_queue, cap_queue, flush_left;
	uint64_t flush_limit;
	struct pd_run { size_t pos, end; } runs[PD_MAX_RUNS];
	int nr_runs;
	uint8_t *arena, *arena_spare;        /* the spare takes the rest after a flush */
	size_t arena_len, arena_cap;
	bool flushing, at_eof;
	int sticky_err;
	char *sticky_msg;    /* its message, given again after the flush before it */
	uint64_t max_time;   /* the largest time queued so far */
	uint64_t next_flush; /* a round flushes up to this: the max time at the previous round */

	/* set while the readahead thread owns the reader's state (only it reads these then) */
	bool reading_ahead;
	struct pd_ra_batch *ra_filling; /* the batch it fills */
	uint64_t early_warn; /* an early flush began there (offset + 1): said by the caller's thread */

	/* The readahead thread (perfdata_readahead.c), or NULL: what the
	 * caller's thread looks at on every record while the thread writes the
	 * state above, on a line of its own (sharing one with max_time made
	 * the thread's reading half as fast). */
	_Alignas(64) struct pd_readahead *ra;
	bool use_ra;         /* opts.readahead_thread: start it when the input allows */
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

/* The field at *at of a kernel record of this type and size (header.size
 * already checked to be in the input): true with *v, false when the record
 * does not carry it (or is too short to, which the decoder would refuse). */
static inline bool pd_field(const struct perfring_perfdata *pd, const struct pd_field_at *at, const uint8_t *rec,
			    uint32_t type, uint16_t size, uint64_t *v)
{
	if (type == PERF_RECORD_SAMPLE) {
		if (at->sample_off < 0 || size < at->sample_need)
			return false;
		*v = pd64(pd, rec + at->sample_off);
		return true;
	}
	/* the kernel's records (1 .. 22) carry the trailer, the others none */
	if (type == 0 || type > 22 || at->trailer_back < 0 || size < at->trailer_need)
		return false;
	*v = pd64(pd, rec + size - at->trailer_back);
	return true;
}

/* perf's way: one attr takes all; otherwise the id at IDENTIFIER's or ID's
 * place (all attrs of a file share it, so the first attr's layout finds it);
 * id 0 or unknown: the first attr. Returns the attr's index, -1 for none. */
int pd_attr_idx_for_id(struct perfring_perfdata *pd, uint64_t id);
static inline int pd_attr_idx_for_record(struct perfring_perfdata *pd, const uint8_t *rec, uint32_t type,
					 uint16_t size)
{
	const struct pd_id *c;
	uint64_t id;

	if (pd->nr_attrs <= 1)
		return pd->nr_attrs - 1;
	if (!pd_field(pd, &pd->attrs[0]->id_at, rec, type, size, &id) || !id)
		return 0;
	c = &pd->idcache[id % PD_IDCACHE];
	return c->id == id ? c->idx : pd_attr_idx_for_id(pd, id);
}

/* perfdata_input.c: fail with the fault's offset in the file, in the message
 * itself (open-time errors free the reader) and in error_offset. */
int pd_fail_at(struct perfring_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* How far behind what the reader still holds a mapped file's pages are
 * released (by the reader, or by its readahead thread). */
#ifndef PD_RELEASE_LAG
#define PD_RELEASE_LAG (1u << 20)
#endif

/* perfdata_next.c: one record the way perfring_perfdata_next() delivers it
 * without the readahead thread; PD_NEXT_HANDBACK (only while the thread
 * reads) when the thread must leave the record at pd->pos to the caller's
 * thread. */
#define PD_NEXT_HANDBACK 2
int pd_next_step(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec);
bool pd_next_is_plain(const struct perfring_perfdata *pd);
void pd_warn_early_flush(const struct perfring_perfdata *pd, uint64_t offset);

/* perfdata_readahead.c */
int pd_readahead_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec);
size_t pd_ra_held(const struct perfring_perfdata *pd);
void pd_readahead_stop(struct perfring_perfdata *pd);

/* perfdata_input.c */
void pd_input_populate(struct perfring_perfdata *pd, uint64_t upto, uint64_t keep);
int pd_input_ensure(struct perfring_perfdata *pd, uint64_t off, uint64_t n, const uint8_t **p);
void pd_input_discard(struct perfring_perfdata *pd, uint64_t off);
void pd_input_close(struct pd_input *in);

/* A file's records are read by their MMAP2 build-id bit, whatever the attr
 * asked (as perf reads them): perf inject --mmap2-buildid-all rewrites
 * MMAP2 records into the build-id form under attrs that never asked for
 * build ids, and the writer of a file is the authority on what it wrote.
 * (Live rings trust the attr instead: perfring_parse_config.no_build_id.) */
static inline void pr_pd_cfg_follow_misc(struct perfring_parse_config *cfg)
{
	cfg->no_build_id = false;
}

/* Records of a compressed stream may still come before the next record
 * of the file: some undelivered, or some not yet expanded. */
static inline bool pd_decomp_pending(const struct perfring_perfdata *pd)
{
	return pd->dlen != pd->dpos || pd->zmore;
}

/* perfdata_attr.c */
int pd_attr_decode(const struct perfring_perfdata *pd, const void *src, size_t avail, struct perf_event_attr *out,
		   uint32_t *file_size);
int pd_attr_add(struct perfring_perfdata *pd, const struct perf_event_attr *attr, uint32_t file_size,
		const uint8_t *ids, uint64_t nr_ids);
int pd_attr_add_id(struct perfring_perfdata *pd, int idx, uint64_t id);
int pd_attr_find_id(struct perfring_perfdata *pd, uint64_t id);
int pd_attr_idx_for_id(struct perfring_perfdata *pd, uint64_t id);
int pd_attr_set_name(struct perfring_perfdata *pd, int idx, const char *name, size_t len);
void pd_attrs_free(struct perfring_perfdata *pd);

/* perfdata_feature.c */
int pd_feature_set(struct perfring_perfdata *pd, int feat, const uint8_t *data, size_t len, bool copy);
void pd_features_free(struct perfring_perfdata *pd);

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

/* perfdata_next.c */
void pd_next_free(struct perfring_perfdata *pd);

#endif /* PERFRING_PERFDATA_INTERNAL_H */

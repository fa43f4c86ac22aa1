/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring perf.data layer: read files written by `perf record`, in file
 * mode (104-byte header, attrs, data and feature sections) and pipe mode
 * (16-byte header, everything as records), from either byte order, with
 * PERF_RECORD_COMPRESSED/COMPRESSED2 (zstd) records expanded in place.
 *
 *   struct perfring_perfdata *pd = perfring_perfdata_open("perf.data", NULL);
 *   struct perfring_perfdata_record r;
 *   struct perfring_decoded d;
 *
 *   while ((ret = perfring_perfdata_next(pd, &r)) > 0)
 *           if (r.attr && perfring_record_parse(&r.attr->cfg, r.data, r.size, &d) == 0)
 *                   ...;
 *   if (ret < 0) ... perfring_errmsg(), perfring_perfdata_error_offset(pd)
 *   perfring_perfdata_free(pd);
 *
 * Records come in file order, or, with opts.ordered, in time order the way
 * perf's ordered events do it: records are queued by time, and each
 * PERF_RECORD_FINISHED_ROUND releases, after itself, the queued records up
 * to the newest time seen before the previous round ended (records without
 * a time, or with time 0, and user records pass at once); this gives
 * `perf report -D`'s order record for record. A corrupt or truncated
 * file gives an error naming the offset and what was wrong, after every
 * record before it was delivered.
 *
 * Thread safety: one reader is used by one thread at a time.
 */
#ifndef PERFRING_PERFDATA_H
#define PERFRING_PERFDATA_H

#include <perfring/common.h>
#include <perfring/record.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_perfdata;

struct perfring_perfdata_opts {
	size_t sz; /* sizeof(struct perfring_perfdata_opts) */
	/* Deliver records in time order, as perf does (see above). */
	bool ordered;
	/* Memory bound of time ordering, in bytes (queued records and their
	 * copies); 0: 64 MiB. A file whose rounds never end (no
	 * FINISHED_ROUND) would otherwise queue all of itself. When the queue
	 * reaches the bound, its oldest half is delivered at once, as perf
	 * does: those records may then precede a later one with an earlier
	 * time. perfring_perfdata_early_flushed() counts them. */
	uint64_t max_queue_bytes;
	/* Total bytes the reader may expand from compressed records over the
	 * whole input; 0: 16 GiB. A 6 KB zstd bomb can claim gigabytes: past
	 * the cap perfring_perfdata_next() fails with -E2BIG naming the cap
	 * and the compressed record's offset. */
	uint64_t max_decompressed;
	/* Read a large input (a file or buffer of 16 MiB or more, not a pipe)
	 * with a thread of the reader's own, on another CPU, which reads the
	 * records ahead (in time order too: it queues and merges them) and
	 * hands them over in batches: perfring_perfdata_next() then only takes
	 * the next one, and the caller's thread spends its time on the
	 * records. The same records in the same order, the same errors at the
	 * same offsets (the caller's thread reads by itself whatever needs the
	 * reader's own decisions: attrs, id indexes, features, compressed
	 * records, payloads, the end and anything broken, and hands back to
	 * the thread after); memory bounded as without it (4096 records more
	 * at most). It pays when the caller does about as much per record as
	 * reading takes (decoding every sample and its call chain: 26 -> 18 ms
	 * for a 137 MB file); when either side
	 * spends most of its first 65536 records waiting for the other (a
	 * caller that only counts records, or one that spends microseconds on
	 * each), the thread hands back for good and is joined, and the caller
	 * reads on alone (counting: 13.7 ms, 12.5 without the thread). A
	 * second thread in the process also makes glibc's stdio take its locks
	 * from then on: a caller printing every record with it was 7% slower.
	 * The thread runs on the process's CPUs other than the
	 * caller's; it is not started when the affinity mask has one CPU, or
	 * when it cannot be created (reading goes on without it). It takes no
	 * signals and logs nothing (what it meets is logged by the caller's
	 * thread); perfring_perfdata_early_flushed() may count records it has
	 * not delivered yet; perfring_perfdata_free() stops and joins it. A
	 * reader with this thread must not be used in a child after fork(). */
	bool readahead_thread;
};

/* perf.data user record types (>= 64), written by the perf tool. */
enum perfring_user_record {
	PERFRING_RECORD_HEADER_ATTR = 64,
	PERFRING_RECORD_HEADER_EVENT_TYPE = 65,
	PERFRING_RECORD_HEADER_TRACING_DATA = 66, /* payload follows, outside header.size */
	PERFRING_RECORD_HEADER_BUILD_ID = 67,
	PERFRING_RECORD_FINISHED_ROUND = 68,
	PERFRING_RECORD_ID_INDEX = 69,
	PERFRING_RECORD_AUXTRACE_INFO = 70,
	PERFRING_RECORD_AUXTRACE = 71,            /* payload follows, outside header.size */
	PERFRING_RECORD_AUXTRACE_ERROR = 72,
	PERFRING_RECORD_THREAD_MAP = 73,
	PERFRING_RECORD_CPU_MAP = 74,
	PERFRING_RECORD_STAT_CONFIG = 75,
	PERFRING_RECORD_STAT = 76,
	PERFRING_RECORD_STAT_ROUND = 77,
	PERFRING_RECORD_EVENT_UPDATE = 78,
	PERFRING_RECORD_TIME_CONV = 79,
	PERFRING_RECORD_HEADER_FEATURE = 80,
	PERFRING_RECORD_COMPRESSED = 81,
	PERFRING_RECORD_FINISHED_INIT = 82,
	PERFRING_RECORD_COMPRESSED2 = 83,
};

/* One event of the file: its attr, ids, name, and a config to decode its records. */
struct perfring_perfdata_attr {
	struct perf_event_attr *attr; /* host byte order; fields the file lacked are 0 */
	uint32_t file_attr_size;      /* attr.size as written (may exceed this library's) */
	const uint64_t *ids;          /* host byte order */
	uint64_t nr_ids;
	const char *name;             /* from EVENT_DESC or EVENT_UPDATE, or NULL */
	struct perfring_parse_config cfg;
};

/* A record of the file. Valid until the next perfring_perfdata_next(). */
struct perfring_perfdata_record {
	uint64_t offset;   /* file offset of the record; for a record that came out of a
			    * COMPRESSED record: the offset of that record */
	bool from_compressed;
	uint32_t type;     /* header.type (host order) */
	uint16_t misc;
	uint32_t size;     /* header.size */
	const void *data;  /* the record, header included, in the file's byte order */
	/* HEADER_TRACING_DATA and AUXTRACE: the bytes that follow the record
	 * and are not counted in header.size; NULL/0 otherwise. */
	const void *payload;
	uint64_t payload_len;
	/* The event a kernel record belongs to (mapped as perf does: one attr
	 * takes all; else by the id at IDENTIFIER's or ID's position; id 0 or
	 * unknown: the first attr); NULL for user records. */
	const struct perfring_perfdata_attr *attr;
};

/*
 * Open a file ("-" reads standard input), an fd (regular file or pipe), or
 * a buffer the caller keeps alive. The header (and in file mode the attrs
 * and feature sections) is read at once. Returns NULL and sets errno with
 * the reason in perfring_errmsg() (e.g. "not a perf.data file: magic ...").
 */
PERFRING_API struct perfring_perfdata *perfring_perfdata_open(const char *path,
							       const struct perfring_perfdata_opts *opts);
PERFRING_API struct perfring_perfdata *perfring_perfdata_open_fd(int fd, const struct perfring_perfdata_opts *opts);
PERFRING_API struct perfring_perfdata *perfring_perfdata_open_mem(const void *buf, size_t len,
								   const struct perfring_perfdata_opts *opts);
PERFRING_API void perfring_perfdata_free(struct perfring_perfdata *pd);

/*
 * The next record: 1 with *rec filled, 0 at the end, or a negative error
 * (-PERFRING_ETRUNC, -PERFRING_EBADREC, -EIO, -ENOMEM, -E2BIG past a
 * bound: a stream's record larger than it is buffered up to, more than
 * opts.max_decompressed expanded, too many events; -ENOTSUP for a
 * compression this build cannot expand) with the offset in
 * perfring_perfdata_error_offset() and the reason in perfring_errmsg().
 * User records the reader consumes itself (HEADER_ATTR, HEADER_FEATURE,
 * EVENT_UPDATE, ID_INDEX, COMPRESSED...) are delivered too.
 */
PERFRING_API int perfring_perfdata_next(struct perfring_perfdata *pd, struct perfring_perfdata_record *rec);
PERFRING_API uint64_t perfring_perfdata_error_offset(const struct perfring_perfdata *pd);

/* Records time ordering delivered before their round ended because the
 * queue reached opts.max_queue_bytes (0 when the bound was never hit). */
PERFRING_API uint64_t perfring_perfdata_early_flushed(const struct perfring_perfdata *pd);

PERFRING_API bool perfring_perfdata_is_pipe(const struct perfring_perfdata *pd);
PERFRING_API bool perfring_perfdata_is_swapped(const struct perfring_perfdata *pd);

/* The events known so far (in pipe mode they arrive as HEADER_ATTR records). */
PERFRING_API int perfring_perfdata_attr_cnt(const struct perfring_perfdata *pd);
PERFRING_API const struct perfring_perfdata_attr *perfring_perfdata_attr(const struct perfring_perfdata *pd,
									    int idx);

/* Feature sections (HEADER_* bit numbers of the perf tool: 1 TRACING_DATA,
 * 2 BUILD_ID, 3 HOSTNAME, ... 27 COMPRESSED, 29 CLOCK_DATA). In pipe mode
 * they arrive as HEADER_FEATURE records. The raw bytes are in the file's
 * byte order; 0 or -ENOENT. */
PERFRING_API bool perfring_perfdata_has_feature(const struct perfring_perfdata *pd, int feature);
PERFRING_API int perfring_perfdata_feature(const struct perfring_perfdata *pd, int feature, const void **data,
					   size_t *len);

/* The feature sections a user wants most, decoded (NULL / 0 when absent). */
struct perfring_perfdata_info {
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_available, nr_cpus_online;
	uint64_t total_mem_kb;
	const char *cmdline;          /* the arguments joined with spaces */
	uint32_t nr_build_ids;
	uint32_t clockid;             /* the events' clock (attr.clockid, CLOCK_DATA), or ~0u */
	uint64_t clock_tod_ns, clock_ns; /* CLOCK_DATA: a wall-clock time and the clock's at once */
	uint32_t comp_type, comp_level;  /* COMPRESSED: 1 = zstd */
	uint64_t comp_ratio, comp_mmap_len;
	uint64_t clock_res_ns;        /* CLOCKID: the clock's resolution in ns */
};
PERFRING_API const struct perfring_perfdata_info *perfring_perfdata_info(const struct perfring_perfdata *pd);

/* BUILD_ID feature entries. */
struct perfring_perfdata_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;       /* bytes of build_id used (20 for old files) */
	uint8_t build_id[20];
	const char *filename;
};
PERFRING_API const struct perfring_perfdata_build_id *perfring_perfdata_build_id(const struct perfring_perfdata *pd,
										   uint32_t idx);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_PERFDATA_H */

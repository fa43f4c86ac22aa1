/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring perf.data writer: write records read from perf rings into a
 * file-mode perf.data file that `perf report` and `perf script` read.
 *
 *   struct perfring_perfdata_writer *w = perfring_perfdata_writer_open("perf.data", NULL);
 *
 *   perfring_perfdata_writer_add_attr(w, &attr, ids, nr_ids, "cpu-clock");
 *   ... for each record of the rings:
 *           perfring_perfdata_writer_write(w, rec, rec_header->size);
 *   if (perfring_perfdata_writer_close(w)) ... perfring_errmsg()
 *
 * Features: HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE, EVENT_DESC;
 * TRACING_DATA when an attr is a tracepoint (formats from tracefs);
 * BUILD_ID with opts.build_ids; COMPRESSED with opts.compress_level;
 * CLOCKID and CLOCK_DATA after perfring_perfdata_writer_set_clock().
 *
 * Layout (as perf record writes it): the 104-byte header, the attrs' ids
 * and the attrs (written when the first record comes, so every attr must
 * be added before it), the records, then the feature sections; the header
 * is rewritten at close with the sections and the feature bitmap.
 * Records are written as given, in host byte order; the attrs must
 * describe them (sample_type, sample_id_all, ...), and with more than one
 * attr every record must carry its id (PERF_SAMPLE_IDENTIFIER or ID), as
 * perf requires.
 *
 * Thread safety: one writer is used by one thread at a time.
 */
#ifndef PERFRING_PERFDATA_WRITE_H
#define PERFRING_PERFDATA_WRITE_H

#include <perfring/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;
struct perfring_perfdata_writer;

struct perfring_perfdata_writer_opts {
	size_t sz; /* sizeof(struct perfring_perfdata_writer_opts) */
	/* Feature strings; NULL: hostname, osrelease and arch from uname(),
	 * no command line. */
	const char *hostname, *osrelease, *arch, *cmdline;
	/* NRCPUS feature; 0: from sysconf(). */
	uint32_t nr_cpus_online, nr_cpus_available;
	/* Write the HEADER_BUILD_ID feature: the build ids of the kernel and of
	 * every binary a sample's ip or call chain hit, found with a process
	 * model fed by the records written (MMAP2 build ids when the kernel put
	 * them there, else each file's ELF note, read at close). */
	bool build_ids;
	/* zstd level 1..22 (0: no compression): kernel records are written in
	 * PERF_RECORD_COMPRESSED records (type 81, which perf 5.x/6.x reads;
	 * each one a zstd frame of whole records, 8-byte aligned by a skippable
	 * frame) and the HEADER_COMPRESSED feature describes them, as `perf
	 * record -z` writes them. Records of type 64 and above (FINISHED_ROUND,
	 * ...) stay outside, in order. */
	int compress_level;
	/* Pipe mode, as perf record -o - writes it, for a reader that cannot
	 * seek (perf report -i -): the 16-byte pipe header, then each attr as
	 * a HEADER_ATTR record and its name as an EVENT_UPDATE, the tracing
	 * data as a HEADER_TRACING_DATA record, the features (but BUILD_ID,
	 * which perf's pipe mode has neither) as HEADER_FEATURE records, then
	 * the records. With pipe, path may be NULL: the writer then writes
	 * to fd, which it leaves open. */
	bool pipe;
	int fd;
};

/* Create (or truncate) path (or, in pipe mode with path NULL, write to
 * opts->fd). NULL with errno and perfring_errmsg() on failure. */
PERFRING_API struct perfring_perfdata_writer *
perfring_perfdata_writer_open(const char *path, const struct perfring_perfdata_writer_opts *opts);

/* Add an event: its attr (host byte order), ids and name (NULL: a name
 * from the attr). Only before the first record. Returns the attr index,
 * or a negative error. */
PERFRING_API int perfring_perfdata_writer_add_attr(struct perfring_perfdata_writer *w,
						   const struct perf_event_attr *attr, const uint64_t *ids,
						   size_t nr_ids, const char *name);

/* The events' times are on clock clockid (attr.use_clockid, as perf
 * record -k): write the CLOCKID (the clock's resolution) and CLOCK_DATA
 * features, which tie that clock to wall-clock time. tod_ns (CLOCK_REALTIME,
 * ns since the epoch) and clock_ns (clockid) are one moment on both clocks;
 * both 0: the writer reads the two clocks now. Any time before close.
 * 0 or a negative error. */
PERFRING_API int perfring_perfdata_writer_set_clock(struct perfring_perfdata_writer *w, int32_t clockid,
						    uint64_t tod_ns, uint64_t clock_ns);

/* Append one record, header included, host byte order; len == header.size. 0 or a negative error. */
PERFRING_API int perfring_perfdata_writer_write(struct perfring_perfdata_writer *w, const void *rec, size_t len);

/* Complete the file (attrs, data size, features, header) and free w.
 * Returns 0 or the first error of the writer's life. */
PERFRING_API int perfring_perfdata_writer_close(struct perfring_perfdata_writer *w);

/* Discard w without completing the file (the file is left incomplete). NULL is a no-op. */
PERFRING_API void perfring_perfdata_writer_free(struct perfring_perfdata_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_PERFDATA_WRITE_H */

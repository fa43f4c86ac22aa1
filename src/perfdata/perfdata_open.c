// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data open: the input, the file header (file or pipe mode, byte
 * order), and in file mode the attrs and feature sections.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

static struct perfring_perfdata *pd_alloc(const struct perfring_perfdata_opts *opts)
{
	struct perfring_perfdata *pd;

	if (pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_perfdata_opts"))
		return pr_errno_null(EINVAL);
	pd = aligned_alloc(_Alignof(struct perfring_perfdata), sizeof(*pd)); /* the readahead fields' line */
	if (!pd)
		return pr_fail_null(ENOMEM, "perf.data: no memory for the reader");
	memset(pd, 0, sizeof(*pd));
	pd->in.fd = -1;
	pd->in.populated = SIZE_MAX; /* only a mapped file is populated ahead */
	pd->ordered = PR_OPT(opts, ordered, false);
	pd->use_ra = PR_OPT(opts, readahead_thread, false);
	pd->max_queue_bytes = PR_OPT(opts, max_queue_bytes, 0);
	if (!pd->max_queue_bytes)
		pd->max_queue_bytes = (uint64_t)64 << 20;
	pd->max_decompressed = PR_OPT(opts, max_decompressed, 0);
	if (!pd->max_decompressed)
		pd->max_decompressed = (uint64_t)16 << 30;
	pd->info.clockid = ~0u;
	return pd;
}

/* Read a stream to its end: file mode needs random access. */
static int slurp(struct perfring_perfdata *pd)
{
	const uint8_t *p;
	int r;

	do
		r = pd_input_ensure(pd, 0, pd->in.len + (1u << 20), &p);
	while (r == 0);
	if (r < 0)
		return r;
	pd->in.stream = false;
	return 0;
}

static int section(struct perfring_perfdata *pd, const uint8_t *at, uint64_t *off, uint64_t *size)
{
	*off = pd64(pd, at);
	*size = pd64(pd, at + 8);
	return 0;
}

/* The header's fields, for the offsets errors name. */
#define PD_HDR_ATTR_SIZE 16
#define PD_HDR_ATTRS 24
#define PD_HDR_DATA 40

static int read_attrs(struct perfring_perfdata *pd, uint64_t off, uint64_t size)
{
	uint64_t i, nr, total_ids = 0;
	const uint8_t *p, *ids;

	if (size == 0)
		return 0;
	if (pd->attr_size < PD_ATTR_SIZE_VER0 + 16 || pd->attr_size > (1u << 20))
		return pd_fail_at(pd, PD_HDR_ATTR_SIZE, PERFRING_EBADREC, "header attr_size %llu is impossible",
				  (unsigned long long)pd->attr_size);
	nr = size / pd->attr_size;
	if (nr > pd->in.len / pd->attr_size)
		return pd_fail_at(pd, PD_HDR_ATTRS, PERFRING_ETRUNC,
				  "attrs section {%llu, %llu} holds more attrs than the file (%zu bytes)",
				  (unsigned long long)off, (unsigned long long)size, pd->in.len);
	for (i = 0; i < nr; i++) {
		uint64_t at = off + i * pd->attr_size, ids_off, ids_size;
		struct perf_event_attr attr;
		uint32_t file_size;
		int err;

		if (pd_input_ensure(pd, at, pd->attr_size, &p))
			return pd_fail_at(pd, at, PERFRING_ETRUNC, "attr %llu is past the end of the file",
					  (unsigned long long)i);
		err = pd_attr_decode(pd, p, pd->attr_size - 16, &attr, &file_size);
		if (err) {
			char why[256];

			snprintf(why, sizeof(why), "%s", perfring_errmsg());
			return pd_fail_at(pd, at, -err, "attr %llu: %s", (unsigned long long)i, why);
		}
		section(pd, p + pd->attr_size - 16, &ids_off, &ids_size);
		if (ids_size % 8 || (ids_size && pd_input_ensure(pd, ids_off, ids_size, &ids)))
			return pd_fail_at(pd, at + pd->attr_size - 16, PERFRING_ETRUNC,
					  "ids of attr %llu: section {%llu, %llu} is not in the file",
					  (unsigned long long)i, (unsigned long long)ids_off, (unsigned long long)ids_size);
		/* Each id is 8 bytes of the file: sections that overlap (all
		 * pointing at the whole file, say) would make the id table grow
		 * with the square of the file. perf never writes them. */
		total_ids += ids_size / 8;
		if (total_ids > pd->in.len / 8)
			return pd_fail_at(pd, at + pd->attr_size - 16, PERFRING_EBADREC,
					  "ids of attr %llu: the attrs' id sections claim %llu ids, more than the "
					  "file's %zu bytes hold: the sections overlap",
					  (unsigned long long)i, (unsigned long long)total_ids, pd->in.len);
		err = pd_attr_add(pd, &attr, file_size, ids_size ? ids : NULL, ids_size / 8);
		if (err < 0)
			return pd_fail_at(pd, at, -err, "attr %llu: %s", (unsigned long long)i, "no memory for its ids");
	}
	return 0;
}

static void read_features(struct perfring_perfdata *pd)
{
	uint64_t at = pd->data_off + pd->data_size;
	const uint8_t *secs, *p;
	int feat, nr = 0, k = 0;

	for (feat = 0; feat < PD_FEAT_BITS; feat++)
		nr += perfring_perfdata_has_feature(pd, feat);
	if (!nr)
		return;
	if (pd_input_ensure(pd, at, (uint64_t)nr * 16, &secs)) {
		pr_log(PERFRING_LOG_WARN, "perf.data: the feature sections table at %llu is past the end of the file",
		       (unsigned long long)at);
		return;
	}
	for (feat = 0; feat < PD_FEAT_BITS; feat++) {
		uint64_t off, size;

		if (!perfring_perfdata_has_feature(pd, feat))
			continue;
		section(pd, secs + 16 * k++, &off, &size);
		if (pd_input_ensure(pd, off, size, &p)) {
			pr_log(PERFRING_LOG_WARN, "perf.data: feature %d: section {%llu, %llu} is past the end of the file",
			       feat, (unsigned long long)off, (unsigned long long)size);
			continue;
		}
		pd_feature_set(pd, feat, p, size, false);
	}
}

static int read_header(struct perfring_perfdata *pd)
{
	const uint8_t *h;
	uint64_t magic, size, attrs_off, attrs_size;
	int i, err;

	err = pd_input_ensure(pd, 0, PD_PIPE_HEADER_SIZE, &h);
	if (err < 0) /* no memory or a failed read: already reported */
		return err;
	if (err)
		return pd_fail_at(pd, 0, PERFRING_ETRUNC, "not a perf.data file: shorter than a header (%zu bytes)",
				  pd->in.len);
	memcpy(&magic, h, 8);
	if (magic == PD_MAGIC)
		pd->swapped = false;
	else if (__builtin_bswap64(magic) == PD_MAGIC)
		pd->swapped = true;
	else
		return pd_fail_at(pd, 0, PERFRING_EBADREC, "not a perf.data file: magic 0x%016llx",
				  (unsigned long long)magic);
	size = pd64(pd, h + 8);
	if (size == PD_PIPE_HEADER_SIZE) {
		pd->pipe = true;
		pd->pos = PD_PIPE_HEADER_SIZE;
		pd->end = UINT64_MAX;
		return 0;
	}
	if (size < PD_FILE_HEADER_SIZE)
		return pd_fail_at(pd, 8, PERFRING_EBADREC, "header size %llu (16 or 104 expected)",
				  (unsigned long long)size);
	if (pd->in.stream && (err = slurp(pd)))
		return err;
	if (pd_input_ensure(pd, 0, PD_FILE_HEADER_SIZE, &h))
		return pd_fail_at(pd, 0, PERFRING_ETRUNC, "the file (%zu bytes) is shorter than its 104-byte header",
				  pd->in.len);
	pd->attr_size = pd64(pd, h + 16);
	section(pd, h + 24, &attrs_off, &attrs_size);
	section(pd, h + 40, &pd->data_off, &pd->data_size);
	for (i = 0; i < 4; i++)
		pd->feat_bitmap[i] = pd64(pd, h + 72 + 8 * i);
	/* A bitmap written as u32 words by a 32-bit perf of the other byte
	 * order: perf checks for the HOSTNAME bit that every perf sets. */
	if (pd->swapped && !perfring_perfdata_has_feature(pd, PD_FEAT_HOSTNAME)) {
		uint64_t alt[4];

		for (i = 0; i < 4; i++) {
			uint64_t raw;

			memcpy(&raw, h + 72 + 8 * i, 8);
			alt[i] = (uint64_t)__builtin_bswap32((uint32_t)raw) |
				 (uint64_t)__builtin_bswap32((uint32_t)(raw >> 32)) << 32;
		}
		if ((alt[0] >> PD_FEAT_HOSTNAME) & 1)
			memcpy(pd->feat_bitmap, alt, sizeof(alt));
	}
	pd->pos = pd->data_off;
	if (__builtin_add_overflow(pd->data_off, pd->data_size, &pd->end))
		return pd_fail_at(pd, PD_HDR_DATA, PERFRING_EBADREC, "data section {%llu, %llu} overflows",
				  (unsigned long long)pd->data_off, (unsigned long long)pd->data_size);
	if (pd->data_off < PD_FILE_HEADER_SIZE && pd->data_size)
		return pd_fail_at(pd, PD_HDR_DATA, PERFRING_EBADREC, "data section at offset %llu overlaps the header",
				  (unsigned long long)pd->data_off);
	if (pd->data_off > pd->in.len && pd->data_size)
		return pd_fail_at(pd, PD_HDR_DATA, PERFRING_ETRUNC,
				  "data section at offset %llu is past the end of the file (%zu bytes)",
				  (unsigned long long)pd->data_off, pd->in.len);
	err = read_attrs(pd, attrs_off, attrs_size);
	if (err)
		return err;
	read_features(pd);
	pd->error_offset = 0;
	return 0;
}

static struct perfring_perfdata *pd_start(struct perfring_perfdata *pd)
{
	int err = read_header(pd);

	if (err) {
		perfring_perfdata_free(pd);
		return pr_errno_null(-err);
	}
	/* A file held in memory (mapped, the caller's, or a stream read whole
	 * in file mode) starts at 0 and does not grow. */
	if (!pd->in.stream)
		pd->fast_end = pd->end < pd->in.len ? pd->end : pd->in.len;
	return pd;
}

static struct perfring_perfdata *open_fd(int fd, bool close_fd, const struct perfring_perfdata_opts *opts)
{
	struct perfring_perfdata *pd = pd_alloc(opts);
	struct stat st;

	if (!pd) {
		if (close_fd)
			close(fd);
		return NULL;
	}
	pd->in.fd = fd;
	pd->in.close_fd = close_fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			pd->in.map = m;
			pd->in.map_len = (size_t)st.st_size;
			pd->in.populated = 0;
			pd->in.buf = m;
			pd->in.len = (size_t)st.st_size;
			return pd_start(pd);
		}
	}
	pd->in.stream = true;
	return pd_start(pd);
}

struct perfring_perfdata *perfring_perfdata_open_fd(int fd, const struct perfring_perfdata_opts *opts)
{
	if (fd < 0)
		return pr_fail_null(EINVAL, "perfring_perfdata_open_fd: fd %d", fd);
	return open_fd(fd, false, opts);
}

struct perfring_perfdata *perfring_perfdata_open(const char *path, const struct perfring_perfdata_opts *opts)
{
	int fd;

	if (!path)
		return pr_fail_null(EINVAL, "perfring_perfdata_open: path is NULL");
	if (strcmp(path, "-") == 0)
		return open_fd(STDIN_FILENO, false, opts);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pr_fail_null(errno, "perf.data: cannot open %s: %s", path, strerror(errno));
	return open_fd(fd, true, opts);
}

struct perfring_perfdata *perfring_perfdata_open_mem(const void *buf, size_t len,
						     const struct perfring_perfdata_opts *opts)
{
	struct perfring_perfdata *pd;

	if (!buf && len)
		return pr_fail_null(EINVAL, "perfring_perfdata_open_mem: buf is NULL");
	pd = pd_alloc(opts);
	if (!pd)
		return NULL;
	pd->in.buf = buf;
	pd->in.len = len;
	return pd_start(pd);
}

void perfring_perfdata_free(struct perfring_perfdata *pd)
{
	if (!pd)
		return;
	pd_readahead_stop(pd); /* first: it reads the reader's state */
	pd_next_free(pd);
	pd_attrs_free(pd);
	pd_features_free(pd);
	pd_input_close(&pd->in);
	free(pd);
}

uint64_t perfring_perfdata_error_offset(const struct perfring_perfdata *pd)
{
	return pd ? pd->error_offset : 0;
}

uint64_t perfring_perfdata_early_flushed(const struct perfring_perfdata *pd)
{
	return pd ? __atomic_load_n(&pd->early_flushed, __ATOMIC_RELAXED) : 0;
}

bool perfring_perfdata_is_pipe(const struct perfring_perfdata *pd)
{
	return pd && pd->pipe;
}

bool perfring_perfdata_is_swapped(const struct perfring_perfdata *pd)
{
	return pd && pd->swapped;
}

int perfring_perfdata_attr_cnt(const struct perfring_perfdata *pd)
{
	return pd ? pd->nr_attrs : 0;
}

const struct perfring_perfdata_attr *perfring_perfdata_attr(const struct perfring_perfdata *pd, int idx)
{
	if (!pd || idx < 0 || idx >= pd->nr_attrs)
		return NULL;
	return &pd->attrs[idx]->pub;
}

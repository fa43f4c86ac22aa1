// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the text `perf report --header-only`
 * (perf 6.1) prints, line for line. In file mode: the file header (its
 * mtime, offsets and sizes), one or more lines per feature section in
 * feature order, the features missing, between perf's "# ========" lines.
 * In pipe mode: the header with zero offsets, its closing lines, then each
 * feature as its record arrives, up to the record that ends the features.
 *
 * It works as perf does, in two steps. "Process" decodes a feature into
 * struct rh_env (perf's perf_env): in file mode every section in feature
 * order, stopping at the first one perf fails to decode (the later ones then
 * print what perf prints for a feature it never read); "print" prints a
 * feature from rh_env (EVENT_DESC from its bytes, in report_attr.c). In pipe
 * mode each record is processed then printed, and one perf cannot decode
 * ends the reading, with an error.
 *
 * The reader (perfring_perfdata_open_fd/_mem) checks the file and gives the
 * events and, in pipe mode, the records. In file mode the file is mapped here
 * as well: the reader shows neither the data section's offset and size nor
 * where the feature sections are, and perf reads a section from its offset
 * to the end of the file (a length in it may run past the section's size),
 * which only the whole file allows. A pipe or FIFO is read into memory
 * first, in pipe mode only up to the record that ends the features (the
 * writer may go on for long). A directory (perf record --threads) is read
 * through its file "data".
 *
 * Why it is safe: the bytes of a section or record are read through struct
 * bytecur (tools/shared/bytecur.h), which checks every length from the file
 * against the bytes left before the end of the input, and a count is
 * bounded by those bytes before anything is allocated for it. What the
 * decoding keeps is allocated through rh_keep() and freed at once at the end.
 *
 * This file is the driver: the input, the file header, the two modes. The
 * features are report_feat.c's (the BPF ones report_bpf.c's, the events'
 * names and groups report_events.c's, the event lines report_attr.c's);
 * report_header.h holds what they share. report_header_mem() takes the
 * bytes from memory instead of a path, for tests/fuzz/report_header_fuzz.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "shared/pd_common.h"
#include "report/header.h"
#include "shared/tool.h"

#define RH_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define RH_FILE_HEADER 104

/* ---- the input ---- */

struct rh_input {
	int fd;
	bool close_fd, dir;
	uint8_t *buf; /* a stream (not a regular file), read into memory */
	void *map;    /* a regular file in file mode, mapped */
	const uint8_t *all; /* the whole input: buf or map */
	size_t len;
	time_t mtime;
	uint8_t hdr[RH_FILE_HEADER];
};

/* Whether a pipe-mode stream in buf reaches the record that ends its
 * features (perf stops reading there, and so can this); *at: where the
 * whole records seen so far end. A stream in file mode, or with a record
 * whose payload follows it, is read to its end. */
static bool rh_stream_done(const uint8_t *b, size_t len, size_t *at)
{
	uint64_t magic;
	bool sw;

	if (len < 16)
		return false;
	memcpy(&magic, b, 8);
	sw = magic != RH_MAGIC;
	if ((sw && __builtin_bswap64(magic) != RH_MAGIC) || rd64(b + 8, sw) != 16)
		return false;
	if (*at < 16)
		*at = 16;
	while (len - *at >= 8) {
		uint32_t type = rd32(b + *at, sw), size = rd16(b + *at + 6, sw);

		if (size < 8 || type == PERFRING_RECORD_HEADER_TRACING_DATA || type == PERFRING_RECORD_AUXTRACE)
			return false;
		if (len - *at < size)
			return false;
		if (type == PERFRING_RECORD_HEADER_FEATURE && size >= 16 && rd64(b + *at + 8, sw) >= RH_LAST_FEATURE)
			return true;
		*at += size;
	}
	return false;
}

static int rh_read_stream(const char *cmd, const char *path, struct rh_input *in)
{
	size_t cap = 0, at = 0;
	struct stat st;

	for (;;) {
		ssize_t n;

		if (cap - in->len < 65536) {
			uint8_t *b = realloc(in->buf, cap ? cap * 2 : 1 << 20);

			if (!b)
				return tool_error(cmd, "%s: no memory to read the stream", path);
			in->buf = b;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = read(in->fd, in->buf + in->len, cap - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tool_error(cmd, "%s: %s", path, strerror(errno));
		if (n == 0)
			break;
		if (in->len == 0 && fstat(in->fd, &st) == 0)
			in->mtime = st.st_mtime; /* perf looks once the header is read */
		in->len += (size_t)n;
		if (rh_stream_done(in->buf, in->len, &at))
			break;
	}
	return 0;
}

/* The reader's error on opening the input: "PATH: why"; NULL. */
static struct perfring_perfdata *rh_open_error(const char *cmd, const char *path)
{
	const char *msg = perfring_errmsg();

	tool_error(cmd, "%s: %s", path, msg && *msg ? msg : strerror(errno));
	return NULL;
}

/* The reader over the input in memory (in->all, in->len): a stream read, or
 * the bytes given to report_header_mem(). */
static struct perfring_perfdata *rh_open_mem(const char *cmd, const char *path, struct rh_input *in)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts) };
	struct perfring_perfdata *pd = perfring_perfdata_open_mem(in->all, in->len, &opts);

	if (!pd)
		return rh_open_error(cmd, path);
	/* file mode: the reader checked that the header is there */
	if (!perfring_perfdata_is_pipe(pd))
		memcpy(in->hdr, in->all, RH_FILE_HEADER);
	return pd;
}

static struct perfring_perfdata *rh_open(const char *cmd, const char *path, struct rh_input *in)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts) };
	struct perfring_perfdata *pd;
	char data[4096];
	struct stat st;

	/* a directory (perf record --threads): its header is in its file "data" */
	in->dir = strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	snprintf(data, sizeof(data), "%s/data", path);
	in->fd = strcmp(path, "-") ? open(in->dir ? data : path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in->fd < 0) {
		tool_error(cmd, "%s: perf.data: cannot open %s: %s", path, in->dir ? data : path, strerror(errno));
		return NULL;
	}
	in->close_fd = in->fd != STDIN_FILENO;
	if (fstat(in->fd, &st) || !S_ISREG(st.st_mode)) {
		if (rh_read_stream(cmd, path, in))
			return NULL;
		in->all = in->buf;
		return rh_open_mem(cmd, path, in);
	}
	in->mtime = st.st_mtime;
	pd = perfring_perfdata_open_fd(in->fd, &opts);
	if (!pd)
		return rh_open_error(cmd, path);
	if (perfring_perfdata_is_pipe(pd))
		return pd;
	/* File mode: the whole file, for the header and the feature sections
	 * (the reader checked that the header is there). */
	in->len = (size_t)st.st_size;
	in->map = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (in->map == MAP_FAILED) {
		in->map = NULL;
		tool_error(cmd, "%s: cannot map it: %s", path, strerror(errno));
		perfring_perfdata_free(pd);
		return NULL;
	}
	in->all = in->map;
	memcpy(in->hdr, in->all, RH_FILE_HEADER);
	return pd;
}

/* ---- the two modes ---- */

static void rh_print_file_header(FILE *out, const struct rh_input *in, bool pipe, bool swapped)
{
	uint64_t off = pipe ? 0 : rd64(in->hdr + 40, swapped), size = pipe ? 0 : rd64(in->hdr + 48, swapped);
	char when[64];

	fprintf(out, "# ========\n");
	fprintf(out, "# captured on    : %s", ctime_r(&in->mtime, when) ? when : "(null)\n");
	fprintf(out, "# header version : 1\n"); /* PERF_HEADER_VERSION_2: the "PERFILE2" magic */
	fprintf(out, "# data offset    : %" PRIu64 "\n", off);
	fprintf(out, "# data size      : %" PRIu64 "\n", size);
	fprintf(out, "# feat offset    : %" PRIu64 "\n", off + size);
}

/* File mode: perf's feature table, after the data section: {offset, size}
 * per feature bit set, in bit order. An entry past the end of the file reads
 * as {0, 0}, as perf's short read leaves it; a table wholly past it as none. */
static bool rh_sections(struct rh *h, const struct rh_input *in, struct bytecur sec[RH_LAST_FEATURE])
{
	uint64_t at = rd64(in->hdr + 40, h->swapped) + rd64(in->hdr + 48, h->swapped);
	int bit, k = 0;

	if (at >= in->len)
		return false;
	for (bit = 0; bit < 256; bit++) {
		uint64_t e = at + 16 * (uint64_t)k, off = 0, size = 0;

		if (!perfring_perfdata_has_feature(h->pd, bit))
			continue;
		k++;
		if (in->len - at >= 16 * (uint64_t)k) {
			off = rd64(in->all + e, h->swapped);
			size = rd64(in->all + e + 8, h->swapped);
		}
		if (off > in->len)
			off = in->len; /* nothing to read there */
		if (bit < RH_LAST_FEATURE)
			sec[bit] = (struct bytecur){ in->all + off, in->len - off, 0, h->swapped, size };
	}
	return true;
}

/* File mode: process every section in feature order up to the first perf
 * fails on, then print every feature the file has, then those it lacks. */
static void rh_file_features(struct rh *h, const struct rh_input *in)
{
	struct bytecur sec[RH_LAST_FEATURE] = { { 0 } };
	bool stop = false, table = rh_sections(h, in, sec);
	int feat;

	for (feat = 1; feat < RH_LAST_FEATURE && table; feat++) {
		struct bytecur c = sec[feat];

		if (perfring_perfdata_has_feature(h->pd, feat) && !stop && rh_process(h, feat, &c))
			stop = true;
	}
	for (feat = 1; feat < RH_LAST_FEATURE && table; feat++)
		if (perfring_perfdata_has_feature(h->pd, feat))
			rh_print(h, feat, &sec[feat]);
	fprintf(h->out, "# missing features: ");
	for (feat = 1; feat < RH_LAST_FEATURE; feat++)
		if (!perfring_perfdata_has_feature(h->pd, feat))
			fprintf(h->out, "%s ", rh_feat_name(feat));
	fprintf(h->out, "\n");
}

/* Pipe mode: each FEATURE record processed then printed as it comes, up
 * to the one that ends them (or the end of the stream). */
static int rh_pipe_features(struct rh *h, const char *cmd, const char *path)
{
	struct perfring_perfdata_record r;
	int ret;

	while ((ret = perfring_perfdata_next(h->pd, &r)) > 0) {
		struct bytecur c;
		uint64_t feat;

		if (r.type >= PERFRING_RECORD_COMPRESSED2 && !r.from_compressed) {
			/* past perf 6.1's PERF_RECORD_HEADER_MAX: it stops there */
			fflush(h->out);
			return tool_error(cmd, "%s: at offset 0x%llx: a record of type %u, unknown to perf 6.1", path,
					  (unsigned long long)r.offset, r.type);
		}
		if (r.type == PERFRING_RECORD_EVENT_UPDATE)
			rh_event_update(h, &r);
		if (r.type != PERFRING_RECORD_HEADER_FEATURE || r.size < 16)
			continue;
		feat = rd64((const uint8_t *)r.data + 8, h->swapped);
		if (feat >= RH_LAST_FEATURE)
			return EXIT_OK;
		c = bytecur_at((const uint8_t *)r.data + 16, r.size - 16u, h->swapped);
		if (feat == 0 || rh_process(h, (int)feat, &c)) {
			fflush(h->out);
			return tool_error(cmd, "%s: at offset 0x%llx: feature %s: perf cannot decode it", path,
					  (unsigned long long)r.offset, feat ? rh_feat_name((int)feat) : "0");
		}
		c.pos = 0;
		if (!rh_print(h, (int)feat, &c))
			fprintf(h->out, "# %s", rh_feat_name((int)feat)); /* perf's words when it has no printer */
	}
	if (ret < 0) {
		fflush(h->out);
		return pd_read_error(cmd, path, h->pd, ret);
	}
	return EXIT_OK;
}

/* Print the header of the input the reader opened as pd (NULL: it could
 * not, and said why); an exit status. */
static int rh_report(const char *cmd, const char *path, const struct rh_input *in, struct perfring_perfdata *pd,
		     FILE *out)
{
	struct rh h = { .pd = pd, .out = out };
	bool pipe;
	int ret = EXIT_OK;

	if (!pd)
		return EXIT_ERROR;
	h.swapped = perfring_perfdata_is_swapped(h.pd);
	h.dir = in->dir;
	pipe = perfring_perfdata_is_pipe(h.pd);
	if (rh_events_sync(&h)) {
		ret = tool_error(cmd, "%s: no memory for the events", path);
	} else {
		rh_print_file_header(out, in, pipe, h.swapped);
		if (!pipe)
			rh_file_features(&h, in);
		fprintf(out, "# ========\n#\n");
		if (pipe)
			ret = rh_pipe_features(&h, cmd, path);
	}
	perfring_perfdata_free(h.pd);
	rh_free(&h);
	return ret;
}

int report_header_out(const char *cmd, const char *path, FILE *out)
{
	struct rh_input in = { .fd = -1 };
	int ret = rh_report(cmd, path, &in, rh_open(cmd, path, &in), out);

	free(in.buf);
	if (in.map)
		munmap(in.map, in.len);
	if (in.close_fd)
		close(in.fd);
	return ret;
}

int report_header(const char *cmd, const char *path)
{
	return report_header_out(cmd, path, stdout);
}

int report_header_mem(const char *cmd, const char *name, const void *data, size_t len, FILE *out)
{
	struct rh_input in = { .fd = -1, .all = data, .len = len };

	return rh_report(cmd, name, &in, rh_open_mem(cmd, name, &in), out);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer (file mode), laid out as perf record does: header, attr
 * ids, attrs, data, feature sections (formats of perf's
 * tools/perf/util/header.c: strings are u32 len + NUL-padded bytes aligned
 * to 64; the feature table sits right after the data section). In pipe
 * mode (opts.pipe), as perf record -o - writes it: nothing is rewritten,
 * the attrs, names, tracing data and features go first as user records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <linux/perf_event.h>

#include <perfring/perfdata_write.h>
#include <perfring/record.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

#define PW_BUF_SIZE (256u << 10)
/* Records per COMPRESSED record: at most this many bytes, so that the
 * compressed bytes (zstd's bound: a little more) fit the u16 record size.
 * perf decompresses each into a buffer of the feature's mmap_len. */
#define PW_Z_CHUNK 60000u
#define PW_Z_MMAP_LEN (256u << 10)
#define PW_RECORD_COMPRESSED 81
#define PW_ZSTD_SKIPPABLE 0x184D2A50u
#define PW_NAME_ALIGN 64
#define PW_STR_(x) #x
#define PW_STR(x) PW_STR_(x)
#define PW_VERSION "perfring " PW_STR(PERFRING_VERSION_MAJOR) "." PW_STR(PERFRING_VERSION_MINOR) "." \
		   PW_STR(PERFRING_VERSION_PATCH)

struct pw_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct perfring_perfdata_writer {
	int fd;
	bool pipe;           /* pipe mode: fd is the caller's when owns_fd is false */
	bool owns_fd;
	int err;             /* first error: sticky */
	uint64_t pos;        /* file offset of the next byte written */
	uint8_t *buf;        /* bytes [pos - len, pos) not yet written */
	size_t len;
	bool started;        /* ids and attrs written: the data section has begun */
	uint64_t attrs_off, data_off;
	struct pw_attr *attrs;
	int nr_attrs;
	size_t attrs_cap;
	char *hostname, *osrelease, *arch, *cmdline;
	uint32_t nr_online, nr_avail;
	bool build_ids;
	struct pw_bids *bids; /* with build_ids, from the first record on */
	int z_level;          /* compression: 0 = off */
	ZSTD_CCtx *zctx;
	uint8_t *zin, *zout;  /* records waiting to be compressed, a COMPRESSED record */
	size_t zin_len;
	uint64_t z_plain, z_packed; /* bytes in and out, for the feature's ratio */
	bool has_clock;       /* CLOCKID and CLOCK_DATA: perfring_perfdata_writer_set_clock() */
	int32_t clockid;
	uint64_t clock_res_ns, clock_tod_ns, clock_ns;
};

static int pw_flush(struct perfring_perfdata_writer *w)
{
	size_t done = 0;

	while (done < w->len) {
		ssize_t n = write(w->fd, w->buf + done, w->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			return pr_fail(e, "perf.data writer: write: %s", strerror(e));
		}
		done += (size_t)n;
	}
	w->len = 0;
	return 0;
}

static int pw_bytes(struct perfring_perfdata_writer *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	int err;

	while (n) {
		size_t k = PW_BUF_SIZE - w->len;

		if (!k && (err = pw_flush(w)))
			return err;
		k = PW_BUF_SIZE - w->len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		w->pos += k;
		s += k;
		n -= k;
	}
	return 0;
}

static int data_bytes(struct perfring_perfdata_writer *w, const void *rec, size_t len, uint32_t type);

static int pw_u32(struct perfring_perfdata_writer *w, uint32_t v)
{
	return pw_bytes(w, &v, 4);
}

static int pw_u64(struct perfring_perfdata_writer *w, uint64_t v)
{
	return pw_bytes(w, &v, 8);
}

/* perf's do_write_string(): u32 len (strlen + 1 aligned to 64), then the NUL-padded bytes. */
static int pw_string(struct perfring_perfdata_writer *w, const char *s, size_t n)
{
	static const uint8_t zero[PW_NAME_ALIGN];
	uint32_t len = (uint32_t)((n + 1 + PW_NAME_ALIGN - 1) / PW_NAME_ALIGN * PW_NAME_ALIGN);

	return pw_u32(w, len) ?: pw_bytes(w, s, n) ?: pw_bytes(w, zero, len - n);
}

static char *dup_or(const char *s, const char *def)
{
	return strdup(s ? s : def);
}

struct perfring_perfdata_writer *perfring_perfdata_writer_open(const char *path,
							       const struct perfring_perfdata_writer_opts *opts)
{
	struct perfring_perfdata_writer *w;
	static const uint8_t zero[PD_FILE_HEADER_SIZE];
	struct utsname u;
	const char *cmdline;
	long n;
	int err;

	if (pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_perfdata_writer_opts"))
		return pr_errno_null(EINVAL);
	if (!path && !PR_OPT(opts, pipe, false))
		return pr_fail_null(EINVAL, "perfring_perfdata_writer_open: path is NULL");
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	w = calloc(1, sizeof(*w));
	if (!w)
		return pr_fail_null(ENOMEM, "perf.data writer: no memory");
	w->fd = -1;
	w->buf = malloc(PW_BUF_SIZE);
	cmdline = PR_OPT(opts, cmdline, NULL);
	w->hostname = dup_or(PR_OPT(opts, hostname, NULL), u.nodename);
	w->osrelease = dup_or(PR_OPT(opts, osrelease, NULL), u.release);
	w->arch = dup_or(PR_OPT(opts, arch, NULL), u.machine);
	w->cmdline = cmdline ? strdup(cmdline) : NULL;
	if (!w->buf || !w->hostname || !w->osrelease || !w->arch || (cmdline && !w->cmdline)) {
		perfring_perfdata_writer_free(w);
		return pr_fail_null(ENOMEM, "perf.data writer: no memory");
	}
	w->pipe = PR_OPT(opts, pipe, false);
	/* perf's pipe mode has no build id records: the MMAP2 records carry them */
	w->build_ids = PR_OPT(opts, build_ids, false) && !w->pipe;
	w->z_level = PR_OPT(opts, compress_level, 0);
	if (w->z_level < 0 || w->z_level > ZSTD_maxCLevel()) {
		int lvl = w->z_level;

		perfring_perfdata_writer_free(w);
		return pr_fail_null(EINVAL, "perf.data writer: compression level %d (want 0..%d)", lvl,
				    ZSTD_maxCLevel());
	}
	if (w->z_level) {
		w->zctx = ZSTD_createCCtx();
		w->zin = malloc(PW_Z_CHUNK);
		w->zout = malloc(8 + ZSTD_compressBound(PW_Z_CHUNK) + 16);
		if (!w->zctx || !w->zin || !w->zout ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->zctx, ZSTD_c_compressionLevel, w->z_level))) {
			perfring_perfdata_writer_free(w);
			return pr_fail_null(ENOMEM, "perf.data writer: no memory for zstd");
		}
	}
	w->nr_online = PR_OPT(opts, nr_cpus_online, 0);
	w->nr_avail = PR_OPT(opts, nr_cpus_available, 0);
	if (!w->nr_online && (n = sysconf(_SC_NPROCESSORS_ONLN)) > 0)
		w->nr_online = (uint32_t)n;
	if (!w->nr_avail && (n = sysconf(_SC_NPROCESSORS_CONF)) > 0)
		w->nr_avail = (uint32_t)n;
	if (w->nr_avail < w->nr_online)
		w->nr_avail = w->nr_online;
	if (path) {
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		w->owns_fd = true;
	} else {
		w->fd = PR_OPT(opts, fd, -1);
	}
	if (w->fd < 0) {
		err = path ? errno : EBADF;
		perfring_perfdata_writer_free(w);
		return pr_fail_null(err, "perf.data writer: cannot create %s: %s", path ? path : "(fd)", strerror(err));
	}
	if (w->pipe) {
		uint64_t ph[2] = { PD_MAGIC, PD_PIPE_HEADER_SIZE };

		err = pw_bytes(w, ph, sizeof(ph));
	} else {
		/* a placeholder header, rewritten at close */
		err = pw_bytes(w, zero, sizeof(zero));
	}
	if (err) {
		perfring_perfdata_writer_free(w);
		return pr_errno_null(-err);
	}
	return w;
}

static const char *const hw_names[] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults",
	"major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

/* A name for an attr without one, as perf would print it. */
static char *default_name(const struct perf_event_attr *a)
{
	char b[64];

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		return strdup(hw_names[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		return strdup(sw_names[a->config]);
	snprintf(b, sizeof(b), "type%u:0x%llx", a->type, (unsigned long long)a->config);
	return strdup(b);
}

int perfring_perfdata_writer_add_attr(struct perfring_perfdata_writer *w, const struct perf_event_attr *attr,
				      const uint64_t *ids, size_t nr_ids, const char *name)
{
	struct pw_attr *a;
	size_t asz;

	if (!w || !attr || (nr_ids && !ids))
		return pr_fail(EINVAL, "perfring_perfdata_writer_add_attr: NULL argument");
	if (w->started)
		return pr_fail(EINVAL, "perfring_perfdata_writer_add_attr: records were written already");
	if (w->err)
		return w->err;
	asz = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0)
		return pr_fail(EINVAL, "perfring_perfdata_writer_add_attr: attr size %u", attr->size);
	if (pr_grow(&w->attrs, &w->attrs_cap, (size_t)w->nr_attrs + 1, sizeof(*w->attrs)))
		return pr_fail(ENOMEM, "perf.data writer: no memory for an attr");
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	/* perf reads the file's attr size from the header: one size for all,
	 * this library's; bytes of a larger caller attr are dropped */
	memcpy(&a->attr, attr, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
	a->attr.size = sizeof(a->attr);
	a->name = name ? strdup(name) : default_name(attr);
	a->ids = malloc(nr_ids ? nr_ids * 8 : 1);
	if (!a->name || !a->ids) {
		free(a->name);
		free(a->ids);
		return pr_fail(ENOMEM, "perf.data writer: no memory for an attr");
	}
	if (nr_ids)
		memcpy(a->ids, ids, nr_ids * 8);
	a->nr_ids = nr_ids;
	return w->nr_attrs++;
}

/* The kernel's text: _text and _etext from /proc/kallsyms; false when they
 * are unknown or hidden (kptr_restrict shows them as 0). */
static bool kernel_text(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], kind;
	unsigned long long addr;

	*start = *end = 0;
	while (f && fgets(line, sizeof(line), f) && !(*start && *end)) {
		if (sscanf(line, "%llx %c %255s", &addr, &kind, name) != 3)
			continue;
		if (strcmp(name, "_text") == 0)
			*start = addr;
		else if (strcmp(name, "_etext") == 0)
			*end = addr;
	}
	if (f)
		fclose(f);
	return *start && *end > *start;
}

/*
 * A kernel MMAP per loaded module ("[NAME]" at its address, from
 * /proc/modules), as perf record synthesizes them: perf then names module
 * addresses from /proc/kallsyms instead of leaving them unknown. Nothing
 * when the kernel has no modules or hides their addresses.
 */
static int write_module_mmaps(struct perfring_perfdata_writer *w, size_t trailer)
{
	FILE *f = fopen("/proc/modules", "re");
	char line[512], name[64];
	unsigned long long size, addr;
	uint8_t rec[8 + 8 + 24 + 72 + 64];
	uint32_t pid_tid[2] = { UINT32_MAX, 0 };
	int err = 0, n;

	while (f && !err && fgets(line, sizeof(line), f)) {
		struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 0 };
		uint64_t v[3];
		size_t fl;

		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr || !size)
			continue;
		memset(rec, 0, sizeof(rec));
		n = snprintf((char *)rec + 40, 72, "[%s]", name);
		if (n < 0 || n >= 72)
			continue;
		fl = ((size_t)n + 1 + 7) & ~(size_t)7;
		h.size = (uint16_t)(8 + 8 + 24 + fl + trailer);
		v[0] = addr;
		v[1] = size;
		v[2] = 0;
		memcpy(rec, &h, 8);
		memcpy(rec + 8, pid_tid, 8);
		memcpy(rec + 16, v, 24);
		err = data_bytes(w, rec, h.size, h.type);
	}
	if (f)
		fclose(f);
	return err;
}

/*
 * perf resolves kernel addresses only after a kernel MMAP record
 * ("[kernel.kallsyms]_text", pgoff = the address of _text) names the
 * kernel's text; without one, `perf report` warns that the kernel address
 * maps were restricted. perf record synthesizes it first in the data:
 * do the same when an event counts kernel samples. Its sample_id trailer
 * is zeros (id 0: perf's synthesized records belong to the first attr).
 */
static int write_kernel_mmap(struct perfring_perfdata_writer *w)
{
	static const char fname[] = "[kernel.kallsyms]_text"; /* 23 bytes with the NUL: 24 padded */
	struct perfring_parse_config cfg;
	uint8_t rec[8 + 8 + 24 + 24 + 64] = { 0 };
	struct perf_event_header h = { PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 0 };
	uint64_t start, end, v[3];
	uint32_t pid_tid[2] = { UINT32_MAX, 0 };
	bool kernel = false;
	size_t trailer = 0;
	int i;

	for (i = 0; i < w->nr_attrs; i++)
		kernel |= !w->attrs[i].attr.exclude_kernel;
	if (!kernel || !kernel_text(&start, &end))
		return 0;
	if (w->attrs[0].attr.sample_id_all && perfring_parse_config_init(&cfg, &w->attrs[0].attr, false) == 0)
		trailer = cfg.id_trailer_size;
	if (trailer > 64)
		return 0;
	h.size = (uint16_t)(8 + 8 + 24 + 24 + trailer);
	v[0] = start;
	v[1] = end - start;
	v[2] = start;
	memcpy(rec, &h, 8);
	memcpy(rec + 8, pid_tid, 8);
	memcpy(rec + 16, v, 24);
	memcpy(rec + 40, fname, sizeof(fname));
	return data_bytes(w, rec, h.size, h.type) ?: (w->bids ? pw_bids_record(w->bids, rec, h.size) : 0) ?:
	       write_module_mmaps(w, trailer);
}

/* The attrs are final: the build id tracker gets their parse configs. */
static int bids_start(struct perfring_perfdata_writer *w)
{
	struct pw_bid_attr *ba = calloc((size_t)w->nr_attrs, sizeof(*ba));
	int i;

	if (!ba)
		return pr_fail(ENOMEM, "perf.data writer: no memory");
	for (i = 0; i < w->nr_attrs; i++) {
		if (perfring_parse_config_init(&ba[i].cfg, &w->attrs[i].attr, false)) {
			free(ba);
			return pr_fail(EINVAL, "perf.data writer: attr %d cannot be decoded: %s", i, perfring_errmsg());
		}
		pr_pd_cfg_follow_misc(&ba[i].cfg);
		ba[i].ids = w->attrs[i].ids;
		ba[i].nr_ids = w->attrs[i].nr_ids;
	}
	w->bids = pw_bids_new(ba, w->nr_attrs);
	free(ba);
	return w->bids ? 0 : -errno;
}

static int write_pipe_head(struct perfring_perfdata_writer *w);

/* The ids of every attr, then the attrs (each followed by its ids' section). */
static int write_attrs(struct perfring_perfdata_writer *w)
{
	uint64_t ids_off = w->pos;
	int i, err = 0;

	w->started = true;
	if (w->pipe)
		return write_pipe_head(w) ?: write_kernel_mmap(w);
	for (i = 0; i < w->nr_attrs && !err; i++)
		err = pw_bytes(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	w->attrs_off = w->pos;
	for (i = 0; i < w->nr_attrs && !err; i++) {
		struct pw_attr *a = &w->attrs[i];

		err = pw_bytes(w, &a->attr, sizeof(a->attr));
		if (!err)
			err = pw_u64(w, ids_off) ?: pw_u64(w, a->nr_ids * 8);
		ids_off += a->nr_ids * 8;
	}
	w->data_off = w->pos;
	if (!err && w->build_ids)
		err = bids_start(w);
	return err ?: write_kernel_mmap(w);
}

/* The waiting records as one COMPRESSED record: header, one zstd frame,
 * and a skippable frame when needed to end on an 8-byte boundary (the
 * records after it stay aligned; decoders skip such frames). */
static int z_flush(struct perfring_perfdata_writer *w)
{
	struct perf_event_header h = { PW_RECORD_COMPRESSED, 0, 0 };
	size_t n, total, pad;
	uint32_t skip[2];

	if (!w->zin_len)
		return 0;
	n = ZSTD_compress2(w->zctx, w->zout + 8, ZSTD_compressBound(PW_Z_CHUNK), w->zin, w->zin_len);
	if (ZSTD_isError(n))
		return pr_fail(EIO, "perf.data writer: zstd: %s", ZSTD_getErrorName(n));
	total = 8 + n;
	if (total % 8) {
		pad = 8 - total % 8;
		skip[0] = PW_ZSTD_SKIPPABLE;
		skip[1] = (uint32_t)pad;
		memcpy(w->zout + total, skip, 8);
		memset(w->zout + total + 8, 0, pad);
		total += 8 + pad;
	}
	if (total > UINT16_MAX)
		return pr_fail(EIO, "perf.data writer: %zu compressed bytes do not fit a record", total);
	h.size = (uint16_t)total;
	memcpy(w->zout, &h, 8);
	w->z_plain += w->zin_len;
	w->z_packed += total;
	w->zin_len = 0;
	return pw_bytes(w, w->zout, total);
}

/* A record into the data section: compressed (kernel record types) or as is. */
static int data_bytes(struct perfring_perfdata_writer *w, const void *rec, size_t len, uint32_t type)
{
	int err;

	if (!w->zctx)
		return pw_bytes(w, rec, len);
	/* user records, and a record too large to compress within a record's
	 * size, go as they are, after what waits */
	if (type >= PERF_RECORD_MAX || len > PW_Z_CHUNK)
		return z_flush(w) ?: pw_bytes(w, rec, len);
	if (w->zin_len + len > PW_Z_CHUNK && (err = z_flush(w)))
		return err;
	memcpy(w->zin + w->zin_len, rec, len);
	w->zin_len += len;
	return 0;
}

int perfring_perfdata_writer_write(struct perfring_perfdata_writer *w, const void *rec, size_t len)
{
	struct perf_event_header h;
	int err;

	if (!w || !rec)
		return pr_fail(EINVAL, "perfring_perfdata_writer_write: NULL argument");
	if (w->err)
		return w->err;
	if (len < sizeof(h))
		return pr_fail(EINVAL, "perfring_perfdata_writer_write: %zu bytes is shorter than a record header", len);
	memcpy(&h, rec, sizeof(h));
	if (h.size != len || len % 8)
		return pr_fail(EINVAL, "perfring_perfdata_writer_write: len %zu, header.size %u (equal and a multiple of 8 expected)",
			       len, h.size);
	if (!w->nr_attrs)
		return pr_fail(EINVAL, "perfring_perfdata_writer_write: no attr was added");
	if (!w->started && (err = write_attrs(w)))
		return w->err = err;
	err = data_bytes(w, rec, len, h.type);
	if (!err && w->bids)
		err = pw_bids_record(w->bids, rec, len);
	if (err)
		w->err = err;
	return err;
}

/* Feature payloads, one function per feature, in perf's formats. */
static int feat_cmdline(struct perfring_perfdata_writer *w)
{
	const char *s = w->cmdline, *e;
	uint32_t nr = 0;
	int err = 0, pass;

	/* the arguments, split at spaces: counted, then written */
	for (pass = 0; pass < 2 && !err; pass++) {
		if (pass)
			err = pw_u32(w, nr);
		for (s = w->cmdline; s && *s && !err;) {
			while (*s == ' ')
				s++;
			if (!*s)
				break;
			e = strchr(s, ' ');
			if (!e)
				e = s + strlen(s);
			if (pass)
				err = pw_string(w, s, (size_t)(e - s));
			else
				nr++;
			s = e;
		}
	}
	return err;
}

static int feat_event_desc(struct perfring_perfdata_writer *w)
{
	int i, err = pw_u32(w, (uint32_t)w->nr_attrs) ?: pw_u32(w, sizeof(struct perf_event_attr));

	for (i = 0; i < w->nr_attrs && !err; i++) {
		struct pw_attr *a = &w->attrs[i];

		err = pw_bytes(w, &a->attr, sizeof(a->attr)) ?: pw_u32(w, (uint32_t)a->nr_ids) ?:
		      pw_string(w, a->name, strlen(a->name)) ?: pw_bytes(w, a->ids, a->nr_ids * 8);
	}
	return err;
}

/* The tracing data of the writer's tracepoints (pd_tracing_data()), into
 * *data (the caller frees it) and *len. */
static int writer_tracing_data(struct perfring_perfdata_writer *w, uint8_t **data, size_t *len)
{
	uint64_t *ids = malloc((size_t)w->nr_attrs * sizeof(*ids));
	size_t nr = 0;
	int i, err;

	if (!ids)
		return pr_fail(ENOMEM, "perf.data writer: no memory");
	for (i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT)
			ids[nr++] = w->attrs[i].attr.config;
	err = pd_tracing_data(ids, nr, data, len);
	free(ids);
	return err;
}

/* The formats of the recorded tracepoints; without them perf refuses the
 * file ("broken or missing trace data"). */
static int feat_tracing_data(struct perfring_perfdata_writer *w)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int err = writer_tracing_data(w, &data, &len);

	if (!err)
		err = pw_bytes(w, data, len);
	free(data);
	return err;
}

static int emit_bytes(void *ctx, const void *p, size_t n)
{
	return pw_bytes(ctx, p, n);
}

static int feat_build_id(struct perfring_perfdata_writer *w)
{
	return pw_bids_write(w->bids, emit_bytes, w);
}

static bool has_tracepoints(const struct perfring_perfdata_writer *w)
{
	int i;

	for (i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* CLOCK_REALTIME and clockid read together: the realtime read between two
 * reads of clockid, whose midpoint it is paired with; the narrowest of a
 * few tries (a preemption widens one), so the pair is off by at most half
 * that window (tens of nanoseconds), where perf's gettimeofday() pair is
 * off by up to a microsecond. */
static int read_clock_pair(int32_t clockid, uint64_t *tod_ns, uint64_t *clock_ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		struct timespec a, r, b;

		if (clock_gettime((clockid_t)clockid, &a) || clock_gettime(CLOCK_REALTIME, &r) ||
		    clock_gettime((clockid_t)clockid, &b))
			return pr_fail(errno, "perfring_perfdata_writer_set_clock: clock %d: clock_gettime: %s",
				       (int)clockid, strerror(errno));
		if (ts_ns(&b) - ts_ns(&a) < best) {
			best = ts_ns(&b) - ts_ns(&a);
			*clock_ns = ts_ns(&a) + best / 2;
			*tod_ns = ts_ns(&r);
		}
	}
	return 0;
}

int perfring_perfdata_writer_set_clock(struct perfring_perfdata_writer *w, int32_t clockid, uint64_t tod_ns,
				       uint64_t clock_ns)
{
	struct timespec res;
	int err;

	if (!w)
		return pr_fail(EINVAL, "perfring_perfdata_writer_set_clock: NULL writer");
	if (!tod_ns && !clock_ns && (err = read_clock_pair(clockid, &tod_ns, &clock_ns)))
		return err;
	w->has_clock = true;
	w->clockid = clockid;
	w->clock_tod_ns = tod_ns;
	w->clock_ns = clock_ns;
	/* CLOCKID holds the clock's resolution (perf prints 1000 / it as MHz);
	 * 0 for a clock this machine does not have, as perf writes it */
	w->clock_res_ns = clock_getres((clockid_t)clockid, &res) ? 0 : ts_ns(&res);
	return 0;
}

/* Whether the file carries feature feat (the table lists only those). */
static bool want_feature(const struct perfring_perfdata_writer *w, int feat)
{
	switch (feat) {
	case PD_FEAT_TRACING_DATA: return has_tracepoints(w);
	case PD_FEAT_BUILD_ID: return w->bids != NULL;
	case PD_FEAT_COMPRESSED: return w->zctx != NULL;
	case PD_FEAT_CLOCKID:
	case PD_FEAT_CLOCK_DATA: return w->has_clock;
	}
	return true;
}

static int write_feature(struct perfring_perfdata_writer *w, int feat)
{
	switch (feat) {
	case PD_FEAT_TRACING_DATA: return feat_tracing_data(w);
	case PD_FEAT_BUILD_ID: return feat_build_id(w);
	case PD_FEAT_COMPRESSED:
		/* version 0, type 1 (zstd), level, ratio (rounded), mmap_len */
		return pw_u32(w, 0) ?: pw_u32(w, 1) ?: pw_u32(w, (uint32_t)w->z_level) ?:
		       pw_u32(w, (uint32_t)(w->z_packed ? (w->z_plain + w->z_packed / 2) / w->z_packed : 0)) ?:
		       pw_u32(w, PW_Z_MMAP_LEN);
	case PD_FEAT_HOSTNAME: return pw_string(w, w->hostname, strlen(w->hostname));
	case PD_FEAT_OSRELEASE: return pw_string(w, w->osrelease, strlen(w->osrelease));
	case PD_FEAT_VERSION: return pw_string(w, PW_VERSION, strlen(PW_VERSION));
	case PD_FEAT_ARCH: return pw_string(w, w->arch, strlen(w->arch));
	case PD_FEAT_NRCPUS: return pw_u32(w, w->nr_avail) ?: pw_u32(w, w->nr_online);
	case PD_FEAT_CMDLINE: return feat_cmdline(w);
	case PD_FEAT_EVENT_DESC: return feat_event_desc(w);
	case PD_FEAT_CLOCKID: return pw_u64(w, w->clock_res_ns);
	case PD_FEAT_CLOCK_DATA:
		/* version 1, the clock, a wall-clock time (ns since the epoch) and the clock's at that moment */
		return pw_u32(w, 1) ?: pw_u32(w, (uint32_t)w->clockid) ?: pw_u64(w, w->clock_tod_ns) ?:
		       pw_u64(w, w->clock_ns);
	}
	return 0;
}

static const int pw_features[] = {
	PD_FEAT_TRACING_DATA, PD_FEAT_BUILD_ID, PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE, PD_FEAT_VERSION, PD_FEAT_ARCH,
	PD_FEAT_NRCPUS, PD_FEAT_CMDLINE, PD_FEAT_EVENT_DESC, PD_FEAT_CLOCKID, PD_FEAT_COMPRESSED, PD_FEAT_CLOCK_DATA,
};
#define PW_NR_FEATURES (int)(sizeof(pw_features) / sizeof(pw_features[0]))

/* The feature table right after the data (perf looks for it there), then the payloads. */
static int write_features(struct perfring_perfdata_writer *w, uint64_t *bitmap)
{
	uint64_t secs[PW_NR_FEATURES][2];
	uint64_t table = w->pos;
	int feats[PW_NR_FEATURES], nr = 0, i, err;

	for (i = 0; i < PW_NR_FEATURES; i++)
		if (want_feature(w, pw_features[i]))
			feats[nr++] = pw_features[i];
	memset(secs, 0, sizeof(secs));
	err = pw_bytes(w, secs, (size_t)nr * 16);
	for (i = 0; i < nr && !err; i++) {
		secs[i][0] = w->pos;
		err = write_feature(w, feats[i]);
		secs[i][1] = w->pos - secs[i][0];
		bitmap[feats[i] / 64] |= 1ULL << (feats[i] % 64);
	}
	if (err || (err = pw_flush(w)))
		return err;
	if (pwrite(w->fd, secs, (size_t)nr * 16, (off_t)table) != (ssize_t)nr * 16)
		return pr_fail(errno ? errno : EIO, "perf.data writer: cannot write the feature table: %s",
			       strerror(errno));
	return 0;
}

/*
 * A user record whose payload write() writes: its header goes first with
 * size 0, then is patched once the payload's length is known. The buffer
 * is flushed before, so the record stays in it (a feature's payload is
 * far below the buffer's size; the size field is 16 bits anyway).
 */
static int pipe_record(struct perfring_perfdata_writer *w, uint32_t type, uint64_t word,
		       int (*write)(struct perfring_perfdata_writer *, int), int arg)
{
	struct perf_event_header h = { type, 0, 0 };
	uint64_t start;
	size_t size;
	int err = pw_flush(w);

	if (err)
		return err;
	start = w->pos;
	err = pw_bytes(w, &h, sizeof(h)) ?: pw_u64(w, word) ?: write(w, arg);
	if (err)
		return err;
	size = (size_t)(w->pos - start);
	if (size != w->len || size > UINT16_MAX)
		return pr_fail(EOVERFLOW, "perf.data writer: pipe record of type %u: %zu bytes", type, size);
	h.size = (uint16_t)size;
	memcpy(w->buf, &h, sizeof(h));
	return 0;
}

/* EVENT_UPDATE's payload after its type word: the id, then the name (NUL-padded to 8). */
static int update_name(struct perfring_perfdata_writer *w, int i)
{
	static const uint8_t zero[8];
	size_t n = strlen(w->attrs[i].name) + 1;

	return pw_u64(w, w->attrs[i].ids[0]) ?: pw_bytes(w, w->attrs[i].name, n - 1) ?:
	       pw_bytes(w, zero, 1 + (8 - n % 8) % 8);
}

/*
 * The head of a pipe-mode stream, in perf's order: each attr (HEADER_ATTR:
 * the attr, then its ids) and its name (EVENT_UPDATE, by its first id),
 * the features perf sends in a pipe (HEADER_FEATURE: the feature's id,
 * then its section as in a file) and the tracing data (HEADER_TRACING_DATA:
 * a 16-byte record, then the formats padded to 8, counted in its size
 * word and not in header.size).
 */
static int write_pipe_head(struct perfring_perfdata_writer *w)
{
	int i, err = 0;

	for (i = 0; i < w->nr_attrs && !err; i++) {
		struct pw_attr *a = &w->attrs[i];
		struct perf_event_header h = { PERFRING_RECORD_HEADER_ATTR, 0, 0 };
		size_t size = sizeof(h) + sizeof(a->attr) + a->nr_ids * 8;

		if (size > UINT16_MAX)
			return pr_fail(EOVERFLOW, "perf.data writer: attr %d has too many ids for a pipe (%zu)", i,
				       a->nr_ids);
		h.size = (uint16_t)size;
		err = pw_bytes(w, &h, sizeof(h)) ?: pw_bytes(w, &a->attr, sizeof(a->attr)) ?:
		      pw_bytes(w, a->ids, a->nr_ids * 8);
		if (!err && a->nr_ids)
			err = pipe_record(w, PERFRING_RECORD_EVENT_UPDATE, 2 /* PERF_EVENT_UPDATE__NAME */,
					  update_name, i);
	}
	for (i = 0; i < PW_NR_FEATURES && !err; i++)
		if (pw_features[i] != PD_FEAT_TRACING_DATA && pw_features[i] != PD_FEAT_BUILD_ID &&
		    want_feature(w, pw_features[i]))
			err = pipe_record(w, PERFRING_RECORD_HEADER_FEATURE, (uint64_t)pw_features[i], write_feature,
					  pw_features[i]);
	if (!err && has_tracepoints(w)) {
		struct perf_event_header h = { PERFRING_RECORD_HEADER_TRACING_DATA, 0, 16 };
		static const uint8_t zero[8];
		uint8_t *data = NULL;
		size_t len = 0, pad;

		err = writer_tracing_data(w, &data, &len);
		pad = (8 - len % 8) % 8;
		if (!err && len + pad > UINT32_MAX)
			err = pr_fail(EOVERFLOW, "perf.data writer: %zu bytes of tracing data", len);
		if (!err)
			err = pw_bytes(w, &h, sizeof(h)) ?: pw_u32(w, (uint32_t)(len + pad)) ?: pw_u32(w, 0) ?:
			      pw_bytes(w, data, len) ?: pw_bytes(w, zero, pad);
		free(data);
	}
	w->data_off = w->pos;
	return err;
}

int perfring_perfdata_writer_close(struct perfring_perfdata_writer *w)
{
	uint64_t hdr[PD_FILE_HEADER_SIZE / 8], bitmap[4] = { 0 };
	uint64_t data_size;
	int err;

	if (!w)
		return pr_fail(EINVAL, "perfring_perfdata_writer_close: NULL writer");
	err = w->err;
	if (!err && !w->nr_attrs)
		err = pr_fail(EINVAL, "perf.data writer: no attr was added");
	if (!err && !w->started)
		err = write_attrs(w);
	if (!err && w->zctx)
		err = z_flush(w);
	data_size = w->pos - w->data_off;
	if (w->pipe) {
		if (!err)
			err = pw_flush(w);
		goto done;
	}
	if (!err)
		err = write_features(w, bitmap);
	if (!err) {
		memset(hdr, 0, sizeof(hdr));
		hdr[0] = PD_MAGIC;
		hdr[1] = PD_FILE_HEADER_SIZE;
		hdr[2] = sizeof(struct perf_event_attr) + 16;
		hdr[3] = w->attrs_off;
		hdr[4] = (uint64_t)w->nr_attrs * hdr[2];
		hdr[5] = w->data_off;
		hdr[6] = data_size;
		/* hdr[7], hdr[8]: the legacy event types section, empty */
		memcpy(&hdr[9], bitmap, sizeof(bitmap));
		if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
			err = pr_fail(errno ? errno : EIO, "perf.data writer: cannot write the header: %s",
				      strerror(errno));
	}
done:
	if (w->owns_fd && close(w->fd) && !err)
		err = pr_fail(errno, "perf.data writer: close: %s", strerror(errno));
	w->fd = -1;
	perfring_perfdata_writer_free(w);
	return err;
}

void perfring_perfdata_writer_free(struct perfring_perfdata_writer *w)
{
	int i;

	if (!w)
		return;
	if (w->fd >= 0 && w->owns_fd)
		close(w->fd);
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	pw_bids_free(w->bids);
	ZSTD_freeCCtx(w->zctx);
	free(w->zin);
	free(w->zout);
	free(w->buf);
	free(w->hostname);
	free(w->osrelease);
	free(w->arch);
	free(w->cmdline);
	free(w);
}

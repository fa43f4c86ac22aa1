// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HEADER_BUILD_ID feature of a written perf.data file: the build id of
 * every binary a sample hit (its ip or a frame of its call chain), and of
 * the kernel when a sample was in it, as perf record adds them after
 * recording. perf uses them to pick the binaries (or its build-id cache's
 * copies) that match what ran, and refuses a file that changed since.
 *
 * The records the writer is given feed a process model (MMAP/MMAP2/COMM/
 * FORK/EXIT); each sample's addresses are looked up in it. A mapping's build
 * id comes from its MMAP2 record when the kernel put one there
 * (attr.build_id), else from the file's ELF note, read at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <perfring/record.h>
#include <perfring/symbol.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"
#include "symbol/symbol_internal.h"

/* perf's flag (tools/perf/util/event.h): the size byte after the 20 id bytes is valid */
#define PW_MISC_BUILD_ID_SIZE (1 << 15)
#define BID_HASH 1024 /* pointer cache of paths already in the hit list */

struct bid_hit {
	char *path;
	uint8_t id[PERFRING_BUILD_ID_MAX];
	uint8_t size;
};

struct pw_bids {
	struct perfring_procs *procs;
	struct pw_bid_attr *attrs;
	int nr_attrs;
	struct bid_hit *hits;
	size_t nr_hits, cap_hits;
	struct { const char *key; size_t idx; } cache[BID_HASH];
	bool kernel_hit;
	int err;
};

struct pw_bids *pw_bids_new(const struct pw_bid_attr *attrs, int nr)
{
	struct perfring_procs_opts po = { .sz = sizeof(po), .no_build_ids = true };
	struct pw_bids *b = calloc(1, sizeof(*b));

	if (!b)
		return pr_fail_null(ENOMEM, "perf.data writer: no memory for build ids");
	b->attrs = calloc((size_t)nr, sizeof(*attrs));
	b->procs = perfring_procs_new(&po);
	if (!b->attrs || !b->procs) {
		pw_bids_free(b);
		return pr_fail_null(ENOMEM, "perf.data writer: no memory for build ids");
	}
	memcpy(b->attrs, attrs, (size_t)nr * sizeof(*attrs));
	b->nr_attrs = nr;
	return b;
}

void pw_bids_free(struct pw_bids *b)
{
	size_t i;

	if (!b)
		return;
	perfring_procs_free(b->procs);
	for (i = 0; i < b->nr_hits; i++)
		free(b->hits[i].path);
	free(b->hits);
	free(b->attrs);
	free(b);
}

/* The parse config of a record: by its id when there are several attrs
 * (the first u64 of a SAMPLE with PERF_SAMPLE_IDENTIFIER, the last of a
 * trailer), else the only one. */
static const struct perfring_parse_config *bid_cfg(const struct pw_bids *b, const uint8_t *rec, size_t len,
						   bool sample)
{
	uint64_t id;
	size_t i;
	int a;

	if (b->nr_attrs == 1 || !(b->attrs[0].cfg.sample_type & PERF_SAMPLE_IDENTIFIER) || len < 16)
		return &b->attrs[0].cfg;
	memcpy(&id, sample ? rec + 8 : rec + len - 8, 8);
	for (a = 0; a < b->nr_attrs; a++)
		for (i = 0; i < b->attrs[a].nr_ids; i++)
			if (b->attrs[a].ids[i] == id)
				return &b->attrs[a].cfg;
	return &b->attrs[0].cfg;
}

static void bid_mark(struct pw_bids *b, uint32_t pid, uint64_t addr)
{
	struct perfring_map_hit hit;
	size_t h, i;

	if (perfring_procs_lookup(b->procs, pid, addr, &hit) || hit.anon || !hit.path || !hit.path[0])
		return;
	h = ((uintptr_t)hit.path >> 4) % BID_HASH;
	if (b->cache[h].key == hit.path && !strcmp(b->hits[b->cache[h].idx].path, hit.path))
		return;
	for (i = 0; i < b->nr_hits && strcmp(b->hits[i].path, hit.path); i++)
		;
	if (i == b->nr_hits) {
		if (pr_grow(&b->hits, &b->cap_hits, b->nr_hits + 1, sizeof(*b->hits))) {
			b->err = pr_fail(ENOMEM, "perf.data writer: no memory for build ids");
			return;
		}
		memset(&b->hits[i], 0, sizeof(b->hits[i]));
		b->hits[i].path = strdup(hit.path);
		if (!b->hits[i].path) {
			b->err = pr_fail(ENOMEM, "perf.data writer: no memory for build ids");
			return;
		}
		b->nr_hits++;
	}
	if (hit.build_id_size && !b->hits[i].size) {
		memcpy(b->hits[i].id, hit.build_id, hit.build_id_size);
		b->hits[i].size = hit.build_id_size;
	}
	b->cache[h].key = hit.path;
	b->cache[h].idx = i;
}

static void bid_addr(struct pw_bids *b, uint32_t pid, uint16_t cpumode, uint64_t addr)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		b->kernel_hit = true;
	else if (cpumode == PERF_RECORD_MISC_USER)
		bid_mark(b, pid, addr);
}

int pw_bids_record(struct pw_bids *b, const void *rec, size_t len)
{
	const struct perfring_parse_config *cfg;
	struct perfring_decoded d;
	struct perf_event_header h;
	uint16_t mode;
	uint64_t i, v;

	if (b->err)
		return b->err;
	memcpy(&h, rec, sizeof(h));
	if (h.type >= PERF_RECORD_MAX && h.type != 0)
		return 0; /* user records (FINISHED_ROUND, ...) */
	cfg = bid_cfg(b, rec, len, h.type == PERF_RECORD_SAMPLE);
	if (h.type != PERF_RECORD_SAMPLE) {
		/* a record the model cannot read is only a build id less: not an error */
		perfring_procs_feed_record(b->procs, cfg, rec, len);
		return 0;
	}
	if (perfring_record_parse(cfg, rec, len, &d))
		return 0;
	mode = d.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (cfg->sample_type & PERF_SAMPLE_IP)
		bid_addr(b, d.u.sample.pid, mode, d.u.sample.ip);
	for (i = 0; i < d.u.sample.callchain.nr && !b->err; i++) {
		v = perfring_u64_at(&d.u.sample.callchain, i);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			mode = v == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL :
			       v == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER : 0;
			continue;
		}
		bid_addr(b, d.u.sample.pid, mode, v);
	}
	return b->err;
}

/* One entry: header (type 0 as perf writes it), pid, build_id[20] + size
 * byte + 3 reserved, filename NUL-padded to 64. */
static int bid_entry(int (*emit)(void *ctx, const void *p, size_t n), void *ctx, uint16_t misc, const char *name,
		     const uint8_t *id, size_t size)
{
	static const uint8_t zero[64];
	uint8_t head[36] = { 0 };
	size_t nl = strlen(name), padded = (nl + 1 + 63) / 64 * 64;
	struct perf_event_header h = { 0, (uint16_t)(misc | PW_MISC_BUILD_ID_SIZE), 0 };
	int32_t pid = -1; /* perf's host machine */

	if (36 + padded > UINT16_MAX)
		return 0;
	h.size = (uint16_t)(36 + padded);
	memcpy(head, &h, 8);
	memcpy(head + 8, &pid, 4);
	memcpy(head + 12, id, size);
	head[32] = (uint8_t)size;
	return emit(ctx, head, sizeof(head)) ?: emit(ctx, name, nl) ?: emit(ctx, zero, padded - nl);
}

int pw_bids_write(struct pw_bids *b, int (*emit)(void *ctx, const void *p, size_t n), void *ctx)
{
	uint8_t id[PERFRING_BUILD_ID_MAX];
	struct stat st;
	size_t n, i;
	int err = 0;

	if (b->kernel_hit && (n = pr_running_kernel_build_id(id)))
		err = bid_entry(emit, ctx, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", id, n);
	for (i = 0; i < b->nr_hits && !err; i++) {
		struct bid_hit *h = &b->hits[i];
		int r;

		/* regular files only: a name from a record could be a FIFO or a device */
		if (!h->size && h->path[0] == '/' && !stat(h->path, &st) && S_ISREG(st.st_mode) &&
		    (r = perfring_elf_build_id(h->path, id)) > 0) {
			memcpy(h->id, id, (size_t)r);
			h->size = (uint8_t)r;
		}
		if (h->size)
			err = bid_entry(emit, ctx, PERF_RECORD_MISC_USER, h->path, h->id, h->size);
	}
	return err;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the perf.data reader from memory: the input is a file.
 * It is read in file order and in time order (the same kernel records must
 * come out, in any order, when both reads succeed), every accessor is
 * called, every record decoded; and a file that reads cleanly in host byte
 * order is written again with the writer (attrs, ids, kernel records; with
 * build ids and/or compression by the input's size) and read back: the
 * kernel records must be the same, byte for byte.
 * Seeds: tests/fuzz/corpus/perfdata_mem/ (small real files, truncated
 * copies, the hostile files of tests/data/reliability).
 */

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perfdata_write.h>

#include "perfdata_fuzz_common.h"

struct sum {
	uint64_t n, bytes, hash;
};

/* An order-independent digest of the kernel records. */
static void add_kernel(const struct perfring_perfdata_record *r, void *ctx)
{
	struct sum *s = ctx;
	uint64_t h = 1469598103934665603ull;
	uint32_t i;

	if (r->type >= PERFRING_RECORD_HEADER_ATTR)
		return;
	/* The writer adds perf's kernel MMAP ("[kernel.kallsyms]_text", pid -1)
	 * when it has none to go by; it is not part of the comparison. */
	if (r->type == 1 && r->size >= 64 && !memcmp((const uint8_t *)r->data + 8, "\xff\xff\xff\xff", 4) &&
	    !memcmp((const uint8_t *)r->data + 40, "[kernel.kallsyms]_text", 22))
		return;
	for (i = 0; i < r->size; i++)
		h = (h ^ ((const uint8_t *)r->data)[i]) * 1099511628211ull;
	s->n++;
	s->bytes += r->size;
	s->hash += h;
}

struct writer_ctx {
	struct perfring_perfdata_writer *w;
	int err;
};

static void write_kernel(const struct perfring_perfdata_record *r, void *ctx)
{
	struct writer_ctx *c = ctx;

	if (r->type < PERFRING_RECORD_HEADER_ATTR && !c->err)
		c->err = perfring_perfdata_writer_write(c->w, r->data, r->size);
}

static void round_trip(const uint8_t *data, size_t size, const struct sum *want)
{
	struct perfring_perfdata_opts o = pdf_opts(false);
	struct perfring_perfdata *pd = perfring_perfdata_open_mem(data, size, &o), *back;
	struct perfring_perfdata_writer_opts wo = { .sz = sizeof(wo) };
	struct writer_ctx c = { 0 };
	struct sum got = { 0 };
	char path[64];
	int fd, i;

	if (!pd)
		pdf_finding("a file that read cleanly does not open again", 0);
	fd = memfd_create("perfdata_fuzz", MFD_CLOEXEC);
	if (fd < 0) {
		perfring_perfdata_free(pd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* the input's size picks the writer's options: build ids (a process
	 * model fed with the records) and zstd compression, each half the time */
	wo.build_ids = size & 1;
	wo.compress_level = size & 2 ? 1 : 0;
	c.w = perfring_perfdata_writer_open(path, &wo);
	for (i = 0; c.w && i < perfring_perfdata_attr_cnt(pd); i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		if (perfring_perfdata_writer_add_attr(c.w, a->attr, a->ids, a->nr_ids, a->name) < 0)
			c.err = -1;
	}
	if (!c.w || c.err) {
		/* attrs the writer refuses (e.g. no ids with several attrs): nothing to compare */
		perfring_perfdata_writer_free(c.w);
		perfring_perfdata_free(pd);
		close(fd);
		return;
	}
	pdf_read_all(pd, write_kernel, &c);
	perfring_perfdata_free(pd);
	if (perfring_perfdata_writer_close(c.w) || c.err) {
		close(fd);
		return;
	}
	back = perfring_perfdata_open(path, &o);
	if (!back)
		pdf_finding("the writer's file does not open", 0);
	if (pdf_read_all(back, add_kernel, &got) < 0)
		pdf_finding("the writer's file does not read to the end", 0);
	if (got.n != want->n || got.bytes != want->bytes || got.hash != want->hash)
		pdf_finding("the writer's file holds other kernel records", got.n);
	perfring_perfdata_free(back);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfring_perfdata_opts file = pdf_opts(false), timed = pdf_opts(true);
	struct perfring_perfdata *pd;
	struct sum a = { 0 }, b = { 0 };
	long na, nb;
	bool swapped = false, pipe = false;

	pd = perfring_perfdata_open_mem(data, size, &file);
	if (!pd)
		return 0;
	swapped = perfring_perfdata_is_swapped(pd);
	pipe = perfring_perfdata_is_pipe(pd);
	na = pdf_read_all(pd, add_kernel, &a);
	perfring_perfdata_free(pd);
	pd = perfring_perfdata_open_mem(data, size, &timed);
	if (!pd)
		pdf_finding("opens in file order but not in time order", 0);
	nb = pdf_read_all(pd, add_kernel, &b);
	perfring_perfdata_free(pd);
	if (na >= 0 && nb >= 0 && (a.n != b.n || a.hash != b.hash))
		pdf_finding("time order delivers other kernel records than file order", a.n);
	if (na >= 0 && !swapped && !pipe)
		round_trip(data, size, &a);
	return 0;
}

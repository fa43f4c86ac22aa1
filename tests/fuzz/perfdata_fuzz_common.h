/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What both perf.data fuzz targets (perfdata_mem_fuzz.c, perfdata_pipe_fuzz.c)
 * do with a reader: read every record, decode each with the record layer,
 * call every accessor, and check the reader's promises (records inside the
 * input or the reader's own buffers, sizes >= 8, an error with an offset and
 * a message). A broken promise aborts after a "perfdata_fuzz: FINDING:" line.
 */
#ifndef PERFRING_TESTS_PERFDATA_FUZZ_COMMON_H
#define PERFRING_TESTS_PERFDATA_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <perfring/perfdata.h>
#include <perfring/record.h>

static inline void pdf_finding(const char *what, unsigned long long a)
{
	fprintf(stderr, "perfdata_fuzz: FINDING: %s (%llu)\n", what, a);
	abort();
}

/* Touch every byte a view claims (ASan checks the reads). */
static inline unsigned pdf_touch(const void *p, size_t n)
{
	const volatile unsigned char *b = p;
	unsigned x = 0;
	size_t i;

	for (i = 0; i < n; i++)
		x += b[i];
	return x;
}

static inline void pdf_accessors(struct perfring_perfdata *pd)
{
	const struct perfring_perfdata_info *info = perfring_perfdata_info(pd);
	int i, n = perfring_perfdata_attr_cnt(pd);
	uint32_t b;

	(void)perfring_perfdata_is_pipe(pd);
	(void)perfring_perfdata_is_swapped(pd);
	for (i = 0; i < n; i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		if (!a)
			pdf_finding("attr index below attr_cnt gave NULL", (unsigned long long)i);
		pdf_touch(a->attr, sizeof(*a->attr));
		if (a->nr_ids)
			pdf_touch(a->ids, a->nr_ids * 8);
		if (a->name)
			pdf_touch(a->name, strlen(a->name));
	}
	if (perfring_perfdata_attr(pd, n) || perfring_perfdata_attr(pd, -1))
		pdf_finding("attr index out of range gave an attr", (unsigned long long)n);
	for (i = 0; i < 256; i++) {
		const void *data;
		size_t len;

		if (perfring_perfdata_has_feature(pd, i) && perfring_perfdata_feature(pd, i, &data, &len) == 0)
			pdf_touch(data, len);
	}
	if (info) {
		const char *s[] = { info->hostname, info->osrelease, info->version, info->arch, info->cpudesc,
				    info->cpuid, info->cmdline };
		size_t k;

		for (k = 0; k < sizeof(s) / sizeof(s[0]); k++)
			if (s[k])
				pdf_touch(s[k], strlen(s[k]));
		for (b = 0; b < info->nr_build_ids; b++) {
			const struct perfring_perfdata_build_id *id = perfring_perfdata_build_id(pd, b);

			if (!id)
				pdf_finding("build id index below nr_build_ids gave NULL", b);
			if (id->filename)
				pdf_touch(id->filename, strlen(id->filename));
		}
	}
}

/* Read to the end; returns the number of records, or -1 after an error. */
static inline long pdf_read_all(struct perfring_perfdata *pd, void (*each)(const struct perfring_perfdata_record *r,
									    void *ctx), void *ctx)
{
	struct perfring_perfdata_record r;
	struct perfring_decoded d;
	long n = 0;
	int ret;

	while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
		if (r.size < 8)
			pdf_finding("record size below 8", r.size);
		pdf_touch(r.data, r.size);
		if (r.payload_len)
			pdf_touch(r.payload, r.payload_len);
		if (r.attr && !perfring_perfdata_is_swapped(pd))
			(void)perfring_record_parse(&r.attr->cfg, r.data, r.size, &d);
		if (each)
			each(&r, ctx);
		if (++n > 50000000)
			pdf_finding("more records than the input can hold", (unsigned long long)n);
	}
	pdf_accessors(pd);
	if (ret < 0) {
		if (!*perfring_errmsg())
			pdf_finding("error without a message", (unsigned long long)-ret);
		if (!strstr(perfring_errmsg(), "offset"))
			pdf_finding("error message without the offset", (unsigned long long)-ret);
		return -1;
	}
	return n;
}

/* Small bounds, so that a fuzzer's bomb stays cheap. */
static inline struct perfring_perfdata_opts pdf_opts(bool ordered)
{
	struct perfring_perfdata_opts o = { .sz = sizeof(o), .ordered = ordered,
					     .max_queue_bytes = 1 << 20, .max_decompressed = 4 << 20 };
	return o;
}

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the tracing data reader of `perfring script`
 * (tools/shared/tracing.c), in two parts, nothing read outside the
 * input (ASan) however its sizes and counts lie:
 *  - the HEADER_TRACING_DATA bytes of a perf.data file (the layout in
 *    tracing.c), read with the format texts counted but not parsed:
 *    they are parsed by libtraceevent, which is not perfring's code and
 *    does not survive damaged format texts (perf neither);
 *  - a tracepoint sample's raw data, decoded as text and JSON with real
 *    formats (tests/fuzz/trace_formats.h, from the kernel's tracefs, laid
 *    out as tracing data here): however short or lying the sample, its
 *    fields are checked against the record before libtraceevent reads them.
 * Input: u16 n (little endian, mod 1024), n bytes of raw sample (its first
 * u16, taken mod the count of formats, chooses the tracepoint; the id of
 * the format is written there), then the tracing data. Seeds:
 * tests/fuzz/corpus/tracing_data/ (tests/fuzz/make_tracing_data_seeds.py
 * extracts them from perf.data files).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/tracing.h"
#include "trace_formats.h"

#define NFORMATS (sizeof(trace_fuzz_formats) / sizeof(trace_fuzz_formats[0]))

static FILE *devnull;
static struct tracing *real;
static uint32_t ids[NFORMATS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(uint8_t **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

/* Tracing data holding the real formats, one system per format. */
static struct tracing *make_real(void)
{
	static const uint8_t head[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '0', '.', '6', 0, 0, 8 };
	size_t cap = 4096, i;
	uint8_t *buf, *p;
	uint64_t z = 0, sz;
	uint32_t u, one = 1;
	char err[160];
	struct tracing *t;

	for (i = 0; i < NFORMATS; i++)
		cap += strlen(trace_fuzz_formats[i].text) + strlen(trace_fuzz_formats[i].sys) + 32;
	p = buf = malloc(cap);
	if (!buf)
		abort();
	put(&p, head, sizeof(head));
	u = 4096;
	put(&p, &u, 4);
	put(&p, "header_page", 12);
	put(&p, &z, 8);
	put(&p, "header_event", 13);
	put(&p, &z, 8);
	u = 0;
	put(&p, &u, 4); /* no ftrace formats */
	u = (uint32_t)NFORMATS;
	put(&p, &u, 4);
	for (i = 0; i < NFORMATS; i++) {
		put(&p, trace_fuzz_formats[i].sys, strlen(trace_fuzz_formats[i].sys) + 1);
		put(&p, &one, 4);
		sz = strlen(trace_fuzz_formats[i].text);
		put(&p, &sz, 8);
		put(&p, trace_fuzz_formats[i].text, sz);
		ids[i] = (uint32_t)strtoul(strstr(trace_fuzz_formats[i].text, "ID: ") + 4, NULL, 10);
	}
	t = tracing_new(buf, (size_t)(p - buf), err, sizeof(err));
	free(buf);
	if (!t || tracing_count(t) != (int)NFORMATS) {
		fprintf(stderr, "tracing_data_fuzz: the real formats did not parse: %s\n", t ? "count" : err);
		abort();
	}
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_emit e = { 0 };
	struct tracing *t;
	uint8_t *raw;
	uint16_t id = 0;
	char err[160];
	size_t n;

	if (size < 2)
		return 0;
	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		real = make_real();
	}
	n = (data[0] | (size_t)data[1] << 8) % 1024;
	data += 2;
	size -= 2;
	if (n > size)
		n = size;
	/* The framing of the rest. */
	err[0] = 0;
	t = tracing_new2(data + n, size - n, false, err, sizeof(err));
	if (!t && !err[0])
		abort(); /* a failure must say why */
	tracing_free(t);
	/* The sample, on its own allocation so that ASan sees a read past it. */
	raw = malloc(n ? n : 1);
	if (!raw)
		return 0;
	memcpy(raw, data, n);
	if (n >= 2) {
		memcpy(&id, raw, 2);
		id = (uint16_t)ids[id % NFORMATS];
		memcpy(raw, &id, 2);
	}
	tracing_print(real, id, raw, n, 0, devnull);
	e.f = devnull;
	e.json = true;
	pd_emit_begin(&e);
	tracing_emit(real, id, raw, n, 0, &e);
	pd_emit_end(&e);
	free(raw);
	return 0;
}

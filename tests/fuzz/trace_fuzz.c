// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of `perfring trace`'s tracepoint decoder (tools/trace/): a
 * sample as the BPF program sends it (struct trace_sample_hdr, the record,
 * user strings), decoded field by field against a real tracepoint format
 * and printed as text and JSON. Nothing may be read outside the sample
 * (ASan), however the sample lies. The formats are the kernel's own
 * (tests/fuzz/trace_formats.h, from tracefs): they come from the local
 * kernel, not from outside, and libtraceevent, which parses them, is not
 * perfring's code.
 * Input: one byte choosing the format, then the sample. The sample's id is
 * set to the format's (so that the decoder gets past the lookup) unless the
 * sample's first byte is odd. Seeds: tests/fuzz/corpus/trace/
 * (tests/fuzz/make_trace_seeds.py writes them and the formats).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_decode.h"
#include "trace/trace_emit.h"
#include "trace/trace_format.h"
#include "trace_formats.h"

static FILE *devnull;

static void walk(const struct trace_sample *s)
{
	const struct trace_tp *tp = s->tp;
	volatile uint64_t sink = 0;
	size_t i, k;

	for (i = 0; i < tp->nfields; i++) {
		const struct trace_field *f = &tp->fields[i];
		struct trace_value v;
		size_t cursor = 0, len;
		const char *str;

		trace_field_value(s, f, &v);
		if (v.missing)
			continue;
		if (v.str)
			for (k = 0; k < v.len; k++)
				sink += (uint8_t)v.str[k];
		if (v.elems)
			for (k = 0; k < v.count; k++)
				sink += trace_value_elem(&v, k);
		while (trace_user_string_next(s, f->ustr, &cursor, &str, &len))
			for (k = 0; str && k < len; k++)
				sink += (uint8_t)str[k];
	}
	(void)sink;
}

/* Every format, parsed once. */
static struct trace_formats *all_formats(void)
{
	static struct trace_formats *tf;
	char err[256];
	size_t i;

	if (tf)
		return tf;
	tf = trace_formats_new();
	for (i = 0; tf && i < sizeof(trace_fuzz_formats) / sizeof(trace_fuzz_formats[0]); i++)
		if (trace_formats_add_text(tf, trace_fuzz_formats[i].sys, trace_fuzz_formats[i].name,
					   trace_fuzz_formats[i].text, strlen(trace_fuzz_formats[i].text), err,
					   sizeof(err)) != 1) {
			fprintf(stderr, "trace_fuzz: %s\n", err);
			abort();
		}
	return tf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_formats *tf = all_formats();
	struct trace_sample s;
	const struct trace_tp *tp;
	const char *why;
	uint8_t *sample;
	size_t slen;

	if (size < 1 || !tf)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	tp = trace_formats_get(tf, data[0] % trace_formats_count(tf));
	/* An exact copy of the sample, so that ASan sees a read past its end. */
	slen = size - 1;
	sample = malloc(slen ? slen : 1);
	if (!sample)
		return 0;
	memcpy(sample, data + 1, slen);
	if (slen >= sizeof(struct trace_sample_hdr) && !(sample[0] & 1)) {
		uint16_t id = (uint16_t)tp->id;

		memcpy(sample + offsetof(struct trace_sample_hdr, id), &id, sizeof(id));
	}
	if (trace_sample_parse(tf, sample, slen, &s, &why) == 0) {
		struct trace_emit te = { .f = devnull, .json = false, .start_ns = 0, .name_width = 8 };

		walk(&s);
		trace_emit_event(&te, &s, 0, trace_sample_unread(&s));
		te.json = true;
		trace_emit_event(&te, &s, 1, 0);
	}
	free(sample);
	return 0;
}

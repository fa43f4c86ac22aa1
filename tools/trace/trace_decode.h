/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decoding `perfring trace` samples (tools/trace/trace.h layout) into typed field
 * values, by the tracepoint's format (trace_format.h). Every offset and
 * length read from the sample is checked against the sample's size: a
 * damaged sample gives an error, never a read out of bounds.
 */
#ifndef PERFRING_TRACE_DECODE_H
#define PERFRING_TRACE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace_format.h"

struct trace_sample {
	struct trace_sample_hdr hdr; /* a copy (the payload need not be aligned) */
	const struct trace_tp *tp;
	const uint8_t *rec;   /* the tracepoint record */
	size_t rec_size;
	const uint8_t *extra; /* the user strings */
	size_t extra_size;
};

/* Parse a sample's payload. 0, or -1 with *why saying what is wrong. */
int trace_sample_parse(const struct trace_formats *tf, const void *data, size_t size, struct trace_sample *s,
		       const char **why);

struct trace_value {
	enum trace_field_kind kind;
	bool missing;       /* a dynamic field out of the record, or a user string that could not be read */
	bool is_signed;
	uint8_t elem_size;
	uint64_t u;         /* TF_INT (sign-extended when is_signed), TF_POINTER and the user pointers */
	const char *str;    /* TF_CHARS, TF_DYN_STRING, TF_USER_STRING: not NUL-terminated */
	size_t len;
	const uint8_t *elems; /* TF_ARRAY, TF_DYN_ARRAY: count elements of elem_size bytes */
	size_t count;
};

/* The value of field f in sample s. */
void trace_field_value(const struct trace_sample *s, const struct trace_field *f, struct trace_value *v);

/* Element i of an array value, sign-extended when the array is signed. */
uint64_t trace_value_elem(const struct trace_value *v, size_t i);

/*
 * The strings of user-string field ustr, in order: start with *cursor = 0;
 * true and str, len (no NUL) for each, false at the end. An element the
 * program could not read comes as len 0 with *str NULL.
 */
bool trace_user_string_next(const struct trace_sample *s, uint8_t ustr, size_t *cursor, const char **str,
			    size_t *len);

/*
 * Whether user-string field f of s holds a pointer the program could not
 * read (not NULL, no string: a page not yet faulted in, or no room left in
 * the sample), and for an array (argv) how many of its elements are so.
 */
size_t trace_field_unread(const struct trace_sample *s, const struct trace_field *f);

/* The unread user strings of every field of s. */
size_t trace_sample_unread(const struct trace_sample *s);

#endif

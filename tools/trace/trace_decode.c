// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Field values of `perfring trace` samples, bounds-checked (see trace_decode.h). */
#include <string.h>

#include "trace/trace_decode.h"

#define HDR_LEN sizeof(struct trace_sample_hdr)

int trace_sample_parse(const struct trace_formats *tf, const void *data, size_t size, struct trace_sample *s,
		       const char **why)
{
	const uint8_t *p = data;
	size_t rec_padded;

	if (size < HDR_LEN) {
		*why = "shorter than its header";
		return -1;
	}
	memcpy(&s->hdr, p, HDR_LEN);
	s->rec = p + HDR_LEN;
	s->rec_size = s->hdr.rec_size;
	rec_padded = (s->rec_size + 7) & ~(size_t)7;
	/* The kernel pads the payload to 8 bytes: size may exceed the sum. */
	if (HDR_LEN + rec_padded + s->hdr.extra_size > size) {
		*why = "record and strings larger than the sample";
		return -1;
	}
	s->extra = s->rec + rec_padded;
	s->extra_size = s->hdr.extra_size;
	s->tp = trace_formats_find(tf, s->hdr.id);
	if (!s->tp) {
		*why = "unknown tracepoint id";
		return -1;
	}
	return 0;
}

static uint64_t load_int(const uint8_t *p, unsigned int size, bool is_signed)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	switch (size) {
	case 1:
		u8 = *p;
		return is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

uint64_t trace_value_elem(const struct trace_value *v, size_t i)
{
	return i < v->count ? load_int(v->elems + i * v->elem_size, v->elem_size, v->is_signed) : 0;
}

/* Where a __data_loc / __rel_loc field's data is; false if outside the record. */
static bool dyn_span(const struct trace_sample *s, const struct trace_field *f, const uint8_t **p, size_t *len)
{
	uint32_t loc;
	size_t off;

	memcpy(&loc, s->rec + f->offset, 4);
	off = loc & 0xffff;
	if (f->relative)
		off += f->offset + 4u;
	*len = loc >> 16;
	if (off > s->rec_size || *len > s->rec_size - off)
		return false;
	*p = s->rec + off;
	return true;
}

/* A string stored NUL-padded in len bytes: up to its first NUL. */
static size_t str_len(const uint8_t *p, size_t len)
{
	const uint8_t *nul = memchr(p, '\0', len);

	return nul ? (size_t)(nul - p) : len;
}

void trace_field_value(const struct trace_sample *s, const struct trace_field *f, struct trace_value *v)
{
	const uint8_t *p;
	size_t len, cursor = 0;

	*v = (struct trace_value){ .kind = f->kind, .is_signed = f->is_signed, .elem_size = f->elem_size };
	if ((size_t)f->offset + f->size > s->rec_size) {
		v->missing = true; /* a record cut at TRACE_REC_MAX */
		return;
	}
	p = s->rec + f->offset;
	switch (f->kind) {
	case TF_INT:
		v->u = load_int(p, f->elem_size, f->is_signed);
		break;
	case TF_POINTER:
		v->u = load_int(p, f->size == 4 ? 4 : 8, false);
		break;
	case TF_CHARS:
		v->str = (const char *)p;
		v->len = str_len(p, f->size);
		break;
	case TF_ARRAY:
		v->elems = p;
		v->count = f->size / f->elem_size;
		break;
	case TF_DYN_STRING:
		if (!dyn_span(s, f, &p, &len)) {
			v->missing = true;
			break;
		}
		v->str = (const char *)p;
		v->len = str_len(p, len);
		break;
	case TF_DYN_ARRAY:
		if (!dyn_span(s, f, &p, &len)) {
			v->missing = true;
			break;
		}
		v->elems = p;
		v->count = len / f->elem_size;
		break;
	case TF_USER_STRING:
		v->u = load_int(p, 8, false);
		if (!trace_user_string_next(s, f->ustr, &cursor, &v->str, &v->len) || !v->str)
			v->missing = true;
		break;
	case TF_USER_STRINGS:
		v->u = load_int(p, 8, false);
		break;
	}
}

bool trace_user_string_next(const struct trace_sample *s, uint8_t ustr, size_t *cursor, const char **str,
			    size_t *len)
{
	struct trace_extra x;
	size_t pos = *cursor;

	while (pos + sizeof(x) <= s->extra_size) {
		memcpy(&x, s->extra + pos, sizeof(x));
		if (x.len > s->extra_size - pos - sizeof(x))
			return false; /* damaged: stop */
		*cursor = pos + ((sizeof(x) + x.len + 3) & ~(size_t)3);
		if (x.field == ustr) {
			/* x.len counts the NUL bpf_probe_read_user_str() stored. */
			*str = x.len ? (const char *)s->extra + pos + sizeof(x) : NULL;
			*len = x.len ? str_len((const uint8_t *)*str, x.len) : 0;
			return true;
		}
		pos = *cursor;
	}
	return false;
}

size_t trace_field_unread(const struct trace_sample *s, const struct trace_field *f)
{
	struct trace_value v;
	const char *str;
	size_t cursor = 0, len, n = 0;

	if (f->kind != TF_USER_STRING && f->kind != TF_USER_STRINGS)
		return 0;
	trace_field_value(s, f, &v);
	if (f->kind == TF_USER_STRING)
		return v.missing && v.u != 0;
	/* The program stops an array at its NULL: an element without a
	 * string was a pointer it could not read. */
	while (v.u && trace_user_string_next(s, f->ustr, &cursor, &str, &len))
		n += str == NULL;
	return n;
}

size_t trace_sample_unread(const struct trace_sample *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->tp->nfields; i++)
		n += trace_field_unread(s, &s->tp->fields[i]);
	return n;
}

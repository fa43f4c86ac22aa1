/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One writer for `perfring script`'s two output formats: a line of
 * "key=value" fields, or a JSON object per record. The decoding code says
 * what a field is once; the writer formats it for either.
 */
#ifndef PERFRING_TOOL_PD_EMIT_H
#define PERFRING_TOOL_PD_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct pd_emit {
	FILE *f;
	bool json;
	bool first;  /* no field written yet at this nesting level */
	int depth;
};

void pd_emit_begin(struct pd_emit *e);  /* a record */
void pd_emit_end(struct pd_emit *e);    /* its line end */

/* A number: decimal in both formats; pd_emit_x64 writes 0x... in text. */
void pd_emit_u64(struct pd_emit *e, const char *key, uint64_t v);
void pd_emit_i64(struct pd_emit *e, const char *key, int64_t v);
void pd_emit_x64(struct pd_emit *e, const char *key, uint64_t v);
void pd_emit_bool(struct pd_emit *e, const char *key, bool v);
/* A fraction, with `decimals` digits after the point in both formats. */
void pd_emit_f64(struct pd_emit *e, const char *key, double v, int decimals);
/* A string (JSON-escaped; in text quoted when it holds blanks or quotes). */
void pd_emit_str(struct pd_emit *e, const char *key, const char *s);
/* No value: null in JSON, "?" in text. */
void pd_emit_null(struct pd_emit *e, const char *key);
/* Bytes as a hex string. */
void pd_emit_hex(struct pd_emit *e, const char *key, const void *data, uint64_t len);

/* Nested objects and arrays (key NULL inside an array). */
void pd_emit_obj_begin(struct pd_emit *e, const char *key);
void pd_emit_obj_end(struct pd_emit *e);
void pd_emit_arr_begin(struct pd_emit *e, const char *key);
void pd_emit_arr_end(struct pd_emit *e);

#endif

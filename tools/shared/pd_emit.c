// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring script` output: text "key=value" fields or one JSON object per record. */
#include <string.h>

#include "shared/pd_emit.h"

static void pd_key(struct pd_emit *e, const char *key)
{
	if (!e->first)
		fputs(e->json ? "," : (e->depth ? "," : " "), e->f);
	e->first = false;
	if (!key)
		return;
	if (e->json)
		fprintf(e->f, "\"%s\":", key); /* keys are our own identifiers */
	else
		fprintf(e->f, "%s=", key);
}

void pd_emit_begin(struct pd_emit *e)
{
	e->first = true;
	e->depth = 0;
	if (e->json)
		fputc('{', e->f);
}

void pd_emit_end(struct pd_emit *e)
{
	if (e->json)
		fputc('}', e->f);
	fputc('\n', e->f);
}

void pd_emit_u64(struct pd_emit *e, const char *key, uint64_t v)
{
	pd_key(e, key);
	fprintf(e->f, "%llu", (unsigned long long)v);
}

void pd_emit_i64(struct pd_emit *e, const char *key, int64_t v)
{
	pd_key(e, key);
	fprintf(e->f, "%lld", (long long)v);
}

void pd_emit_x64(struct pd_emit *e, const char *key, uint64_t v)
{
	pd_key(e, key);
	fprintf(e->f, e->json ? "%llu" : "%#llx", (unsigned long long)v);
}

void pd_emit_f64(struct pd_emit *e, const char *key, double v, int decimals)
{
	pd_key(e, key);
	fprintf(e->f, "%.*f", decimals, v);
}

void pd_emit_bool(struct pd_emit *e, const char *key, bool v)
{
	pd_key(e, key);
	if (e->json)
		fputs(v ? "true" : "false", e->f);
	else
		fputc(v ? '1' : '0', e->f);
}

static void pd_json_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			/* Bytes, not characters: file names need not be UTF-8. */
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void pd_emit_str(struct pd_emit *e, const char *key, const char *s)
{
	const unsigned char *p;

	pd_key(e, key);
	if (e->json) {
		pd_json_string(e->f, s ? s : "");
		return;
	}
	if (!s || !*s || strpbrk(s, " \t\"=,[]{}")) {
		pd_json_string(e->f, s ? s : "");
		return;
	}
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			fprintf(e->f, "\\x%02x", *p);
		else
			fputc(*p, e->f);
}

void pd_emit_null(struct pd_emit *e, const char *key)
{
	pd_key(e, key);
	fputs(e->json ? "null" : "?", e->f);
}

void pd_emit_hex(struct pd_emit *e, const char *key, const void *data, uint64_t len)
{
	const uint8_t *b = data;
	uint64_t i;

	pd_key(e, key);
	if (e->json)
		fputc('"', e->f);
	for (i = 0; i < len; i++)
		fprintf(e->f, "%02x", b[i]);
	if (e->json)
		fputc('"', e->f);
}

static void pd_open_nest(struct pd_emit *e, const char *key, char c)
{
	pd_key(e, key);
	fputc(c, e->f);
	e->first = true;
	e->depth++;
}

static void pd_close_nest(struct pd_emit *e, char c)
{
	fputc(c, e->f);
	e->first = false;
	e->depth--;
}

void pd_emit_obj_begin(struct pd_emit *e, const char *key)
{
	pd_open_nest(e, key, '{');
}

void pd_emit_obj_end(struct pd_emit *e)
{
	pd_close_nest(e, '}');
}

void pd_emit_arr_begin(struct pd_emit *e, const char *key)
{
	pd_open_nest(e, key, '[');
}

void pd_emit_arr_end(struct pd_emit *e)
{
	pd_close_nest(e, ']');
}

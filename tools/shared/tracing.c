// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracing data of a perf.data file, read as perf's trace-event-read.c
 * lays it out:
 *
 *   "\x17\x08\x44tracing" VERSION\0 BIGENDIAN(u8) LONG_SIZE(u8) PAGE_SIZE(u32)
 *   "header_page\0" u64 size, bytes      "header_event\0" u64 size, bytes
 *   u32 count of ftrace formats, each u64 size + text
 *   u32 count of systems, each NAME\0 u32 count, each u64 size + text
 *   u32 size + kallsyms, u32 size + printk formats, [0.6+: u64 size + cmdlines]
 *
 * Numbers are in the byte order the header says. Only the event formats
 * are used (and the printk formats, for bprint-style events); every length
 * is checked against what is left. The format texts are parsed by
 * libtraceevent, as perf does; a damaged file can crash its parser as it
 * can crash perf's (tests/fuzz/tracing_data_fuzz.c fuzzes this reader and
 * the decoding of samples, with real formats).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "shared/tracing.h"
#include "shared/bytecur.h"

struct tracing {
	struct tep_handle *tep;
	int count;
	bool formats; /* hand the format texts to libtraceevent */
	uint8_t *rec; /* the record being decoded, copied with zeros after it */
	size_t rec_cap;
	tracing_resolve_fn resolve; /* names kernel functions, or NULL */
	void *resolve_ctx;
};

/* The tool's checked cursor, and what could not be read when one fails. */
struct tcur {
	struct bytecur b;
	const char *what;
};

static bool failed(struct tcur *c, const char *what)
{
	c->what = what;
	return false;
}

static bool take(struct tcur *c, uint64_t n, const uint8_t **out, const char *what)
{
	return bytecur_take(&c->b, n, out) || failed(c, what);
}

static bool take_u32(struct tcur *c, uint32_t *v, const char *what)
{
	return bytecur_u32(&c->b, v) || failed(c, what);
}

static bool take_u64(struct tcur *c, uint64_t *v, const char *what)
{
	return bytecur_u64(&c->b, v) || failed(c, what);
}

static bool take_str(struct tcur *c, const char **s, const char *what)
{
	return bytecur_str(&c->b, s) || failed(c, what);
}

/* A sized block: u64 size, then the bytes. */
static bool take_block(struct tcur *c, const uint8_t **b, uint64_t *size, const char *what)
{
	return take_u64(c, size, what) && take(c, *size, b, what);
}

/* "0xADDR : \"fmt\"" lines: the formats of trace_printk() call sites. */
static void register_printk(struct tep_handle *tep, const uint8_t *b, size_t len)
{
	char *text = malloc(len + 1), *line, *save = NULL, *fmt;
	unsigned long long addr;

	if (!text)
		return;
	memcpy(text, b, len);
	text[len] = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		fmt = strchr(line, ':');
		if (!fmt || sscanf(line, "%llx", &addr) != 1)
			continue;
		fmt++;
		while (*fmt == ' ')
			fmt++;
		/* As perf passes it, quotes included: libtraceevent strips them and
		 * a trailing "\n", and reads before a string shorter than that. */
		if (strlen(fmt) < 4)
			continue;
		tep_register_print_string(tep, fmt, addr);
	}
	free(text);
}

static bool parse(struct tracing *t, struct tcur *c)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint8_t *b, *hdr;
	const char *version, *sys;
	uint32_t page_size, n, nsys, i, j, sz32;
	uint64_t size;
	int long_size;

	if (!take(c, 10, &b, "the magic") || memcmp(b, magic, 10)) {
		c->what = "the magic (not tracing data)";
		return false;
	}
	if (!take_str(c, &version, "the version") || !take(c, 2, &hdr, "the byte order and long size"))
		return false;
	c->b.swapped = (hdr[0] != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	long_size = hdr[1];
	if (long_size != 4 && long_size != 8) {
		c->what = "the long size (neither 4 nor 8)";
		return false;
	}
	tep_set_file_bigendian(t->tep, hdr[0] ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, long_size);
	if (!take_u32(c, &page_size, "the page size"))
		return false;
	tep_set_page_size(t->tep, page_size);
	if (!take(c, 12, &b, "header_page") || memcmp(b, "header_page", 12) ||
	    !take_block(c, &b, &size, "header_page's size"))
		return false;
	if (!take(c, 13, &b, "header_event") || memcmp(b, "header_event", 13) ||
	    !take_block(c, &b, &size, "header_event's size"))
		return false;
	if (!take_u32(c, &n, "the count of ftrace formats"))
		return false;
	for (i = 0; i < n; i++) {
		if (!take_block(c, &b, &size, "an ftrace format"))
			return false;
		if (!t->formats || tep_parse_event(t->tep, (const char *)b, size, "ftrace") == 0)
			t->count++;
	}
	if (!take_u32(c, &nsys, "the count of systems"))
		return false;
	for (i = 0; i < nsys; i++) {
		if (!take_str(c, &sys, "a system's name") || !take_u32(c, &n, "a system's count of formats"))
			return false;
		for (j = 0; j < n; j++) {
			if (!take_block(c, &b, &size, "an event format"))
				return false;
			if (!t->formats || tep_parse_event(t->tep, (const char *)b, size, sys) == 0)
				t->count++;
		}
	}
	/* kallsyms, then the printk formats: optional for decoding; a file cut here is still usable. */
	if (!take_u32(c, &sz32, "kallsyms") || !take(c, sz32, &b, "kallsyms"))
		return true;
	if (!take_u32(c, &sz32, "printk formats") || !take(c, sz32, &b, "printk formats"))
		return true;
	if (t->formats)
		register_printk(t->tep, b, sz32);
	return true;
}

struct tracing *tracing_new(const void *data, size_t len, char *err, size_t errlen)
{
	return tracing_new2(data, len, true, err, errlen);
}

struct tracing *tracing_new2(const void *data, size_t len, bool formats, char *err, size_t errlen)
{
	struct tracing *t = calloc(1, sizeof(*t));
	struct tcur c = { bytecur_at(data, len, false), NULL };

	if (!t || !(t->tep = tep_alloc())) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->formats = formats;
	if (!data || !parse(t, &c)) {
		snprintf(err, errlen, "tracing data: cannot read %s at byte %zu of %zu",
			 c.what ? c.what : "anything", c.b.pos, len);
		tracing_free(t);
		return NULL;
	}
	return t;
}

void tracing_free(struct tracing *t)
{
	if (!t)
		return;
	tep_free(t->tep);
	free(t->rec);
	free(t);
}

/* libtraceevent's resolver: the function holding *addrp (its start put
 * there), the module left NULL as libtraceevent 1.7 prints none. */
static char *resolve_function(void *priv, unsigned long long *addrp, char **modp)
{
	struct tracing *t = priv;
	uint64_t start = 0;
	const char *name = t->resolve(t->resolve_ctx, *addrp, &start);

	if (!name)
		return NULL;
	*addrp = start;
	*modp = NULL;
	return (char *)name;
}

void tracing_set_resolver(struct tracing *t, tracing_resolve_fn resolve, void *ctx)
{
	if (!t)
		return;
	t->resolve = resolve;
	t->resolve_ctx = ctx;
	if (resolve)
		tep_set_function_resolver(t->tep, resolve_function, t);
	else
		tep_reset_function_resolver(t->tep);
}

int tracing_count(const struct tracing *t)
{
	return t ? t->count : 0;
}

/* Every field of the format inside the record's len bytes, dynamic ones'
 * data included: libtraceevent reads where the format says, however short
 * the record (a damaged file, or a format that does not match it). */
static bool fits(const struct tep_format_field *f, const uint8_t *raw, size_t len, bool swap)
{
	for (; f; f = f->next) {
		uint32_t loc, off, n;

		if (f->offset < 0 || f->size < 0 || (size_t)f->offset + (size_t)f->size > len)
			return false;
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->size < 4)
			return false;
		memcpy(&loc, raw + f->offset, 4);
		if (swap)
			loc = __builtin_bswap32(loc);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (uint32_t)f->offset + (uint32_t)f->size;
		if ((size_t)off + n > len)
			return false;
	}
	return true;
}

static struct tep_event *find(struct tracing *t, uint64_t id, const void *raw, size_t len,
			      struct tep_record *rec, int cpu)
{
	struct tep_event *ev;
	bool swap;

	if (!t || !raw || len < 2 || id > 0xffff)
		return NULL;
	ev = tep_find_event(t->tep, (int)id);
	if (!ev)
		return NULL;
	swap = tep_is_file_bigendian(t->tep) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (!fits(ev->format.common_fields, raw, len, swap) || !fits(ev->format.fields, raw, len, swap))
		return NULL;
	/* A copy followed by zeros: libtraceevent prints a char[] field with
	 * %s, which reads on to a NUL the record may not have. */
	if (len + 16 > t->rec_cap) {
		uint8_t *b = realloc(t->rec, len + 16);

		if (!b)
			return NULL;
		t->rec = b;
		t->rec_cap = len + 16;
	}
	memcpy(t->rec, raw, len);
	memset(t->rec + len, 0, 16);
	memset(rec, 0, sizeof(*rec));
	rec->cpu = cpu;
	rec->size = (int)len;
	rec->data = t->rec;
	return ev;
}

/* The record's text as its format prints it (perf's TEP_PRINT_INFO) into s,
 * initialized here (the caller destroys it), rec as find() made it: its
 * event, or NULL (s untouched) when t has no format for id or the record
 * does not fit it. */
static struct tep_event *print_info(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu,
				    struct tep_record *rec, struct trace_seq *s)
{
	struct tep_event *ev = find(t, id, raw, len, rec, cpu);

	if (!ev)
		return NULL;
	trace_seq_init(s);
	tep_print_event(t->tep, s, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(s);
	return ev;
}

char *tracing_text(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu)
{
	struct tep_record rec;
	struct trace_seq s;
	char *out;

	if (!print_info(t, id, raw, len, cpu, &rec, &s))
		return strdup("");
	out = strndup(s.buffer, s.len);
	trace_seq_destroy(&s);
	return out;
}

void tracing_print(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu, FILE *f)
{
	struct tep_record rec;
	struct trace_seq s;

	if (!print_info(t, id, raw, len, cpu, &rec, &s))
		return;
	fwrite(s.buffer, 1, s.len, f);
	trace_seq_destroy(&s);
}

void tracing_emit(struct tracing *t, uint64_t id, const void *raw, size_t len, int cpu,
		      struct pd_emit *e)
{
	struct tep_format_field **fields, *fl;
	struct tep_record rec;
	struct tep_event *ev;
	struct trace_seq s;
	unsigned long long v;
	int i;

	ev = print_info(t, id, raw, len, cpu, &rec, &s);
	if (!ev) {
		pd_emit_null(e, "trace");
		return;
	}
	pd_emit_str(e, "trace", s.buffer);
	trace_seq_destroy(&s);
	fields = tep_event_fields(ev);
	if (!fields)
		return;
	pd_emit_obj_begin(e, "fields");
	for (i = 0; fields[i]; i++) {
		fl = fields[i];
		if (fl->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)) {
			trace_seq_init(&s);
			tep_print_field_content(&s, rec.data, (int)len, fl);
			trace_seq_terminate(&s);
			pd_emit_str(e, fl->name, s.buffer);
			trace_seq_destroy(&s);
		} else if ((unsigned)fl->offset + fl->size <= len && tep_read_number_field(fl, rec.data, &v) == 0) {
			if (fl->flags & TEP_FIELD_IS_SIGNED) {
				int64_t sv = fl->size == 1 ? (int8_t)v : fl->size == 2 ? (int16_t)v
						 : fl->size == 4 ? (int32_t)v : (int64_t)v;

				pd_emit_i64(e, fl->name, sv);
			} else {
				pd_emit_u64(e, fl->name, v);
			}
		}
	}
	pd_emit_obj_end(e);
	free(fields);
}

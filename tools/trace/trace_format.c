// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint formats for `perfring trace`, through libtracefs (where tracefs
 * is, and mounting it) and libtraceevent (parsing the format files), the
 * libraries perf and trace-cmd use. Only the tool uses them; the perfring
 * library does not depend on either.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include <perfring/event.h>

#include "../../src/common/alloc.h"
#include "trace/trace_format.h"

/* Tracepoint ids are 16-bit (common_type is an unsigned short). */
#define TRACE_ID_SLOTS 65536

struct trace_formats {
	struct tep_handle *tep;
	const char *tracefs;
	struct trace_tp *tps;
	size_t ntps, cap;
	int32_t *by_id; /* id -> index in tps, or -1 */
};

static void fmt_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void tp_free(struct trace_tp *tp)
{
	free(tp->system);
	free(tp->name);
	free(tp->full);
	free(tp->fields);
}

struct trace_formats *trace_formats_new(void)
{
	struct trace_formats *tf = calloc(1, sizeof(*tf));

	if (!tf)
		return NULL;
	tf->tep = tep_alloc();
	tf->by_id = malloc(TRACE_ID_SLOTS * sizeof(*tf->by_id));
	if (!tf->tep || !tf->by_id) {
		trace_formats_free(tf);
		return NULL;
	}
	tep_set_long_size(tf->tep, sizeof(long));
	memset(tf->by_id, 0xff, TRACE_ID_SLOTS * sizeof(*tf->by_id));
	return tf;
}

void trace_formats_free(struct trace_formats *tf)
{
	size_t i;

	if (!tf)
		return;
	for (i = 0; i < tf->ntps; i++)
		tp_free(&tf->tps[i]);
	free(tf->tps);
	free(tf->by_id);
	if (tf->tep)
		tep_free(tf->tep);
	free(tf);
}

const char *trace_formats_tracefs(struct trace_formats *tf, bool *mounted, char *err, size_t errlen)
{
	if (mounted)
		*mounted = false;
	if (!tf->tracefs) {
		/* EACCES: there, but not for this user. */
		bool was = access("/sys/kernel/tracing/events", F_OK) == 0 || errno == EACCES ||
			   access("/sys/kernel/debug/tracing/events", F_OK) == 0 || errno == EACCES;

		errno = 0;
		/* Finds tracefs, and mounts it at /sys/kernel/tracing when it is not mounted. */
		tf->tracefs = tracefs_tracing_dir();
		if (!tf->tracefs) {
			int e = errno ? errno : ENOENT;

			fmt_err(err, errlen, "no tracefs: not mounted and it could not be mounted at /sys/kernel/tracing (%s)%s",
				strerror(e), e == EPERM || e == EACCES ? "; run as root" : "");
		} else if (mounted) {
			*mounted = !was;
		}
	}
	return tf->tracefs;
}

/* The width and sign a C type name implies, for types the kernel stores in
 * a wider slot (syscall arguments are all 8 bytes, marked unsigned, even an
 * "int dfd"). False for types it does not know. */
static bool type_natural(const char *type, unsigned int *bytes, bool *is_signed)
{
	static const struct {
		const char *name;
		unsigned char bytes;
		bool is_signed;
	} types[] = {
		{ "char", 1, true },		{ "signed char", 1, true },	 { "unsigned char", 1, false },
		{ "u8", 1, false },		{ "__u8", 1, false },		 { "s8", 1, true },
		{ "__s8", 1, true },		{ "bool", 1, false },		 { "short", 2, true },
		{ "unsigned short", 2, false }, { "u16", 2, false },		 { "__u16", 2, false },
		{ "s16", 2, true },		{ "__s16", 2, true },		 { "int", 4, true },
		{ "signed int", 4, true },	{ "unsigned int", 4, false },	 { "unsigned", 4, false },
		{ "u32", 4, false },		{ "__u32", 4, false },		 { "s32", 4, true },
		{ "__s32", 4, true },		{ "pid_t", 4, true },		 { "uid_t", 4, false },
		{ "gid_t", 4, false },		{ "key_serial_t", 4, true },	 { "clockid_t", 4, true },
		{ "timer_t", 4, true },		{ "mqd_t", 4, true },		 { "qid_t", 4, false },
		{ "key_t", 4, true },
		{ "rwf_t", 4, false },		{ "umode_t", 2, false },	 { "u64", 8, false },
		{ "__u64", 8, false },		{ "s64", 8, true },		 { "__s64", 8, true },
		{ "long", 8, true },		{ "unsigned long", 8, false },	 { "long long", 8, true },
		{ "unsigned long long", 8, false }, { "loff_t", 8, true },	 { "off_t", 8, true },
		{ "size_t", 8, false },		{ "ssize_t", 8, true },		 { "time_t", 8, true },
	};
	char buf[64];
	const char *t = type;
	size_t i, n;

	while (strncmp(t, "const ", 6) == 0 || strncmp(t, "volatile ", 9) == 0)
		t += t[0] == 'c' ? 6 : 9;
	n = strlen(t);
	while (n && t[n - 1] == ' ')
		n--;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, t, n);
	buf[n] = '\0';
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcmp(buf, types[i].name) == 0) {
			*bytes = types[i].bytes;
			*is_signed = types[i].is_signed;
			if (types[i].bytes == 8 && sizeof(long) == 4 && strstr(buf, "long") && !strstr(buf, "long long"))
				*bytes = 4;
			return true;
		}
	}
	return false;
}

/* The element type of "__data_loc u32[]" / "u8 addr[4]": the type before the brackets. */
static void elem_type(const char *type, char *out, size_t len)
{
	const char *t = type, *end;
	size_t n;

	if (strncmp(t, "__data_loc ", 11) == 0)
		t += 11;
	else if (strncmp(t, "__rel_loc ", 10) == 0)
		t += 10;
	end = strchr(t, '[');
	n = end ? (size_t)(end - t) : strlen(t);
	while (n && t[n - 1] == ' ')
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(out, t, n);
	out[n] = '\0';
}

static bool is_char_type(const char *t)
{
	return strcmp(t, "char") == 0 || strcmp(t, "const char") == 0 || strcmp(t, "signed char") == 0 ||
	       strcmp(t, "unsigned char") == 0;
}

/* Whether type is want, spaces aside (libtraceevent writes "const char * const *"). */
static bool type_is(const char *type, const char *want)
{
	for (;;) {
		while (*type == ' ')
			type++;
		while (*want == ' ')
			want++;
		if (*type != *want)
			return false;
		if (!*type)
			return true;
		type++;
		want++;
	}
}

/* Syscall arguments that point to a string the program should read: a
 * const char * except write()'s and friends' byte buffers. */
static bool is_user_string(const struct trace_tp *tp, const struct tep_format_field *f)
{
	return strcmp(tp->system, "syscalls") == 0 && type_is(f->type, "const char *") &&
	       strcmp(f->name, "buf") != 0 && strcmp(f->name, "ubuf") != 0;
}

/* A NULL-terminated argument vector (execve's argv; not envp, which is long and rarely wanted). */
static bool is_user_strings(const struct trace_tp *tp, const struct tep_format_field *f)
{
	return strcmp(tp->system, "syscalls") == 0 && type_is(f->type, "const char *const *") &&
	       strcmp(f->name, "argv") == 0;
}

static int classify(struct trace_tp *tp, const struct tep_format_field *f, struct trace_field *out, char *err,
		    size_t errlen)
{
	char et[64];
	unsigned int bytes;
	bool sgn;

	if (f->offset < 0 || f->size < 0 || f->offset + f->size > TRACE_REC_MAX) {
		fmt_err(err, errlen, "tracepoint %s: field %s (offset %d, size %d) lies beyond the %d-byte record limit",
			tp->full, f->name, f->offset, f->size, TRACE_REC_MAX);
		return -1;
	}
	*out = (struct trace_field){ .name = f->name, .type = f->type, .offset = f->offset, .size = f->size,
				     .is_signed = f->flags & TEP_FIELD_IS_SIGNED };
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		struct trace_cfg *c = &tp->cfg;

		if (c->n_dyn >= TRACE_MAX_DYN) {
			fmt_err(err, errlen, "tracepoint %s has more than %d dynamic fields", tp->full, TRACE_MAX_DYN);
			return -1;
		}
		out->relative = f->flags & TEP_FIELD_IS_RELATIVE;
		c->dyn_off[c->n_dyn] = f->offset;
		c->dyn_kind[c->n_dyn] = out->relative ? TRACE_DYN_REL_LOC : TRACE_DYN_DATA_LOC;
		c->n_dyn++;
		elem_type(f->type, et, sizeof(et));
		if (is_char_type(et)) {
			out->kind = TF_DYN_STRING;
			return 0;
		}
		out->kind = TF_DYN_ARRAY;
		out->elem_size = type_natural(et, &bytes, &sgn) ? bytes : 1;
		out->is_signed = type_natural(et, &bytes, &sgn) ? sgn : false;
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		elem_type(f->type, et, sizeof(et));
		if (is_char_type(et) && strcmp(et, "unsigned char") != 0) {
			out->kind = TF_CHARS;
			return 0;
		}
		out->kind = TF_ARRAY;
		out->elem_size = f->arraylen ? f->size / f->arraylen : 1;
		if (type_natural(et, &bytes, &sgn) && bytes == out->elem_size)
			out->is_signed = sgn;
		if (out->elem_size != 1 && out->elem_size != 2 && out->elem_size != 4 && out->elem_size != 8)
			out->elem_size = 1; /* an array of structs: its bytes */
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_POINTER) {
		struct trace_cfg *c = &tp->cfg;
		bool one = is_user_string(tp, f), many = !one && is_user_strings(tp, f);

		out->kind = TF_POINTER;
		if ((one || many) && c->n_ustr < TRACE_MAX_USTR && f->size == 8) {
			out->kind = one ? TF_USER_STRING : TF_USER_STRINGS;
			out->ustr = c->n_ustr;
			c->ustr_off[c->n_ustr] = f->offset;
			c->ustr_kind[c->n_ustr] = one ? TRACE_USTR_STRING : TRACE_USTR_ARRAY;
			c->n_ustr++;
		}
		return 0;
	}
	out->kind = TF_INT;
	out->elem_size = f->size;
	/* The C type overrides tracefs only for a syscall argument's 8-byte slot
	 * (marked unsigned whatever its type); elsewhere the format's sign is the
	 * kernel's own (built with -funsigned-char, its char is unsigned). */
	if (strcmp(tp->system, "syscalls") == 0 && type_natural(f->type, &bytes, &sgn) && (int)bytes <= f->size) {
		out->elem_size = bytes;
		out->is_signed = sgn;
	}
	if (out->elem_size != 1 && out->elem_size != 2 && out->elem_size != 4 && out->elem_size != 8) {
		/* An odd-sized blob (a struct by value): show its bytes. */
		out->kind = TF_ARRAY;
		out->elem_size = 1;
		out->is_signed = false;
	}
	return 0;
}

/* Parse a format file's text and add its tracepoint. 1 added, 0 already there, -1 error. */
static int add_format(struct trace_formats *tf, const char *sys, const char *name, const char *text, size_t len,
		      char *err, size_t errlen)
{
	struct tep_format_field **fields = NULL, *cf;
	struct tep_event *ev;
	struct trace_tp *tp;
	int i, n;
	unsigned int end = 0;

	ev = tep_find_event_by_name(tf->tep, sys, name);
	if (ev && tf->by_id[ev->id & 0xffff] >= 0)
		return 0; /* already added */
	if (!ev) {
		n = tep_parse_event(tf->tep, text, len, sys);
		if (n != 0) {
			fmt_err(err, errlen, "cannot parse the format of tracepoint %s:%s (libtraceevent error %d)", sys, name, n);
			return -1;
		}
		ev = tep_find_event_by_name(tf->tep, sys, name);
		if (!ev) {
			fmt_err(err, errlen, "tracepoint %s:%s: its format names another event", sys, name);
			return -1;
		}
	}
	if (ev->id < 0 || ev->id >= TRACE_ID_SLOTS) {
		fmt_err(err, errlen, "tracepoint %s:%s: id %d out of range", sys, name, ev->id);
		return -1;
	}
	if (pr_grow(&tf->tps, &tf->cap, tf->ntps + 1, sizeof(*tf->tps)))
		goto nomem;
	tp = &tf->tps[tf->ntps];
	*tp = (struct trace_tp){ .id = ev->id };
	tp->system = strdup(sys);
	tp->name = strdup(name);
	if (!tp->system || !tp->name || asprintf(&tp->full, "%s:%s", sys, name) < 0)
		goto nomem_tp;
	fields = tep_event_fields(ev);
	if (!fields && ev->format.nr_fields)
		goto nomem_tp;
	tp->fields = calloc(ev->format.nr_fields + 1, sizeof(*tp->fields));
	if (!tp->fields)
		goto nomem_tp;
	/* The fixed part ends after the furthest field, the common ones included. */
	for (cf = ev->format.common_fields; cf; cf = cf->next)
		if (cf->offset + (unsigned int)cf->size > end)
			end = cf->offset + cf->size;
	for (i = 0; fields && fields[i]; i++) {
		if (classify(tp, fields[i], &tp->fields[tp->nfields], err, errlen)) {
			free(fields);
			tp_free(tp);
			return -1;
		}
		tp->nfields++;
		if (fields[i]->offset + (unsigned)fields[i]->size > end)
			end = fields[i]->offset + fields[i]->size;
	}
	free(fields);
	if (end < 8)
		end = 8;
	tp->cfg.fixed_size = end;
	tf->by_id[tp->id & 0xffff] = (int32_t)tf->ntps;
	tf->ntps++;
	return 1;
nomem_tp:
	free(fields);
	tp_free(tp);
nomem:
	fmt_err(err, errlen, "out of memory");
	return -1;
}

static int add_event(struct trace_formats *tf, const char *sys, const char *name, char *err, size_t errlen)
{
	char *buf;
	int size = 0, r;

	if (tep_find_event_by_name(tf->tep, sys, name))
		return add_format(tf, sys, name, NULL, 0, err, errlen);
	errno = 0;
	buf = tracefs_event_file_read(NULL, sys, name, "format", &size);
	if (!buf) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			fmt_err(err, errlen, "cannot read the format of tracepoint %s:%s in %s: %s; run as root", sys, name,
				tf->tracefs, strerror(e));
		else
			fmt_err(err, errlen, "unknown tracepoint '%s:%s' (no %s/events/%s/%s; see %s/available_events)", sys,
				name, tf->tracefs, sys, name, tf->tracefs);
		return -1;
	}
	r = add_format(tf, sys, name, buf, (size_t)size, err, errlen);
	free(buf);
	return r;
}

int trace_formats_add_text(struct trace_formats *tf, const char *sys, const char *name, const char *text,
			   size_t len, char *err, size_t errlen)
{
	return add_format(tf, sys, name, text, len, err, errlen);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

struct glob_add {
	struct trace_formats *tf;
	FILE *list;
	char *err;
	size_t errlen;
	int added;
};

/* perfring_event_expand()'s callback: one tracepoint SYS:EVENT the glob matched. */
static int glob_add_one(const char *spec, const char *name, void *ctx)
{
	struct glob_add *g = ctx;
	char sys[256], *colon;
	int r;

	if (g->list) {
		fprintf(g->list, "%s\n", name);
		return 0;
	}
	snprintf(sys, sizeof(sys), "%s", name);
	colon = strchr(sys, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	r = add_event(g->tf, sys, colon + 1, g->err, g->errlen);
	if (r < 0)
		return -ECANCELED; /* the reason is in err */
	g->added += r;
	return 0;
}

/* Every tracepoint whose system matches sys_glob and name name_glob (the
 * library's matcher, as perfring record -e): added, or with list set,
 * printed there as SYSTEM:EVENT. */
static int add_glob(struct trace_formats *tf, const char *sys_glob, const char *name_glob, FILE *list, char *err,
		    size_t errlen)
{
	struct glob_add g = { .tf = tf, .list = list, .err = err, .errlen = errlen };
	char spec[512];
	int r;

	snprintf(spec, sizeof(spec), "%s:%s", sys_glob, name_glob);
	r = perfring_event_expand(spec, glob_add_one, &g);
	if (r == -ECANCELED)
		return -1;
	if (r < 0) {
		fmt_err(err, errlen, "%s", perfring_errmsg());
		return -1;
	}
	return g.added;
}

/* SPEC as "system:name" (or "system/name") into sys and *name. */
static int split_spec(const char *spec, char *sys, size_t len, char **name, char *err, size_t errlen)
{
	const char *sep = strpbrk(spec, ":/");

	if (!sep || sep == spec || !sep[1] || strlen(spec) >= len || strpbrk(sep + 1, ":/")) {
		fmt_err(err, errlen, "'%s' is not a tracepoint: want SYSTEM:EVENT, e.g. sched:sched_process_exec", spec);
		return -1;
	}
	memcpy(sys, spec, (size_t)(sep - spec));
	sys[sep - spec] = '\0';
	*name = sys + (sep - spec) + 1;
	strcpy(*name, sep + 1);
	return 0;
}

int trace_formats_add(struct trace_formats *tf, const char *spec, char *err, size_t errlen)
{
	char sys[256], *name;

	if (!trace_formats_tracefs(tf, NULL, err, errlen) || split_spec(spec, sys, sizeof(sys), &name, err, errlen))
		return -1;
	if (has_glob(sys) || has_glob(name))
		return add_glob(tf, sys, name, NULL, err, errlen);
	return add_event(tf, sys, name, err, errlen);
}

/* A tracepoint named exactly: printed when tracefs has it. */
static int list_one(struct trace_formats *tf, const char *sys, const char *name, FILE *out, char *err, size_t errlen)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events/%s/%s", tf->tracefs, sys, name);
	if (sys[0] == '.' || name[0] == '.' || stat(path, &st) || !S_ISDIR(st.st_mode)) {
		fmt_err(err, errlen, "no tracepoint matches '%s:%s' (see %s/available_events)", sys, name, tf->tracefs);
		return -1;
	}
	fprintf(out, "%s:%s\n", sys, name);
	return 0;
}

int trace_formats_list(struct trace_formats *tf, const char *spec, FILE *out, char *err, size_t errlen)
{
	char sys[256], *name;

	if (!trace_formats_tracefs(tf, NULL, err, errlen))
		return -1;
	if (!spec)
		return add_glob(tf, "*", "*", out, err, errlen);
	if (split_spec(spec, sys, sizeof(sys), &name, err, errlen))
		return -1;
	if (!has_glob(sys) && !has_glob(name))
		return list_one(tf, sys, name, out, err, errlen);
	return add_glob(tf, sys, name, out, err, errlen);
}

size_t trace_formats_count(const struct trace_formats *tf)
{
	return tf->ntps;
}

const struct trace_tp *trace_formats_get(const struct trace_formats *tf, size_t i)
{
	return i < tf->ntps ? &tf->tps[i] : NULL;
}

const struct trace_tp *trace_formats_find(const struct trace_formats *tf, uint32_t id)
{
	int32_t i = tf->by_id[id & 0xffff];

	return i >= 0 && id < TRACE_ID_SLOTS ? &tf->tps[i] : NULL;
}

const char *trace_field_kind_name(enum trace_field_kind kind)
{
	switch (kind) {
	case TF_INT: return "int";
	case TF_CHARS: return "chars";
	case TF_ARRAY: return "array";
	case TF_DYN_STRING: return "dyn-string";
	case TF_DYN_ARRAY: return "dyn-array";
	case TF_POINTER: return "pointer";
	case TF_USER_STRING: return "user-string";
	case TF_USER_STRINGS: return "user-strings";
	}
	return "?";
}

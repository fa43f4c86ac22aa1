// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring trace` output lines, text or JSON, through the pd_emit writer. */
#include <inttypes.h>
#include <string.h>

#include "shared/pd_emit.h"
#include "trace/trace_emit.h"

/* Strings reach the writer NUL-terminated; a record's are not. */
static void emit_strn(struct pd_emit *e, const char *key, const char *s, size_t len)
{
	char buf[TRACE_REC_MAX + 1];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	pd_emit_str(e, key, buf);
}

static void emit_pointer(struct pd_emit *e, const char *key, uint64_t v)
{
	char buf[24];

	if (!e->json) {
		pd_emit_x64(e, key, v);
		return;
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v); /* a string: JSON numbers lose 64-bit precision */
	pd_emit_str(e, key, buf);
}

static void emit_int(struct pd_emit *e, const char *key, uint64_t v, bool is_signed)
{
	if (is_signed)
		pd_emit_i64(e, key, (int64_t)v);
	else
		pd_emit_u64(e, key, v);
}

static void emit_field(struct pd_emit *e, const struct trace_sample *s, const struct trace_field *f)
{
	struct trace_value v;
	const char *str;
	size_t i, cursor = 0, len;

	trace_field_value(s, f, &v);
	if (v.missing && f->kind != TF_USER_STRING) {
		pd_emit_null(e, f->name);
		return;
	}
	switch (f->kind) {
	case TF_INT:
		emit_int(e, f->name, v.u, v.is_signed);
		break;
	case TF_POINTER:
		emit_pointer(e, f->name, v.u);
		break;
	case TF_CHARS:
	case TF_DYN_STRING:
		emit_strn(e, f->name, v.str, v.len);
		break;
	case TF_USER_STRING:
		/* No string (a NULL pointer, or one the program could not read:
		 * not yet paged in): null, never the address in a string's
		 * place. The event says how many were unread. */
		if (v.missing)
			pd_emit_null(e, f->name);
		else
			emit_strn(e, f->name, v.str, v.len);
		break;
	case TF_ARRAY:
	case TF_DYN_ARRAY:
		pd_emit_arr_begin(e, f->name);
		for (i = 0; i < v.count; i++)
			emit_int(e, NULL, trace_value_elem(&v, i), v.is_signed);
		pd_emit_arr_end(e);
		break;
	case TF_USER_STRINGS:
		if (!v.u) {
			pd_emit_null(e, f->name);
			break;
		}
		pd_emit_arr_begin(e, f->name);
		while (trace_user_string_next(s, f->ustr, &cursor, &str, &len)) {
			if (str)
				emit_strn(e, NULL, str, len);
			else
				pd_emit_null(e, NULL);
		}
		pd_emit_arr_end(e);
		break;
	}
}

void trace_emit_header(const struct trace_emit *te)
{
	if (!te->json)
		fprintf(te->f, "%12s %3s %-16s %7s %-*s %s\n", "TIME(s)", "CPU", "COMM", "PID", te->name_width, "EVENT",
			"FIELDS");
}

static double rel_seconds(const struct trace_emit *te, uint64_t t)
{
	return t > te->start_ns ? (t - te->start_ns) / 1e9 : 0.0;
}

void trace_emit_event(const struct trace_emit *te, const struct trace_sample *s, int cpu, size_t unread)
{
	struct pd_emit e = { .f = te->f, .json = te->json };
	const struct trace_tp *tp = s->tp;
	char comm[TRACE_COMM_LEN + 1];
	size_t i;

	memcpy(comm, s->hdr.comm, TRACE_COMM_LEN);
	comm[TRACE_COMM_LEN] = '\0';
	pd_emit_begin(&e);
	if (te->json) {
		pd_emit_u64(&e, "time_ns", s->hdr.time_ns > te->start_ns ? s->hdr.time_ns - te->start_ns : 0);
		pd_emit_u64(&e, "ktime_ns", s->hdr.time_ns);
		pd_emit_i64(&e, "cpu", cpu);
		pd_emit_str(&e, "comm", comm);
		pd_emit_u64(&e, "pid", s->hdr.pid);
		pd_emit_u64(&e, "tid", s->hdr.tid);
		pd_emit_str(&e, "event", tp->full);
		if (s->hdr.flags)
			pd_emit_bool(&e, "truncated", true);
		if (unread)
			pd_emit_u64(&e, "unread", unread);
		pd_emit_obj_begin(&e, "fields");
	} else {
		fprintf(te->f, "%12.6f %3d %-16s %7u %-*s ", rel_seconds(te, s->hdr.time_ns), cpu, comm, s->hdr.pid,
			te->name_width, tp->name);
	}
	for (i = 0; i < tp->nfields; i++)
		emit_field(&e, s, &tp->fields[i]);
	if (te->json)
		pd_emit_obj_end(&e);
	else if (s->hdr.flags)
		fputs(" (truncated)", te->f);
	if (!te->json && unread)
		fprintf(te->f, " (%zu string%s unread)", unread, unread == 1 ? "" : "s");
	pd_emit_end(&e);
}

void trace_emit_lost(const struct trace_emit *te, int cpu, uint64_t lost, uint64_t now_ns, bool at_end)
{
	if (te->json)
		fprintf(te->f, "{\"time_ns\":%" PRIu64 ",\"cpu\":%d,\"lost\":%" PRIu64 "%s}\n",
			now_ns > te->start_ns ? now_ns - te->start_ns : 0, cpu, lost, at_end ? ",\"at_end\":true" : "");
	else
		fprintf(te->f, "%12.6f %3d %-16s %7s %-*s %" PRIu64 " events lost (%s)\n", rel_seconds(te, now_ns), cpu,
			"-", "-", te->name_width, "LOST", lost,
			at_end ? "counted at the end by the program: no LOST record reported them" : "ring full");
}

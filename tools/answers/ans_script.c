// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring script`: samples printed as perf script's default output
 * (builtin-script.c: perf_sample__fprintf_start(), process_event(),
 * sample__fprintf_callchain()), column for column, so that the two can be
 * compared line by line:
 *
 *   COMM TID [CPU] SECS.USECS: PERIOD EVENT:
 *   \t         ADDRESS SYMBOL+0xOFF (DSO)
 *
 * The comm is padded to 16 columns unless call chains follow; the event
 * name to the longest one of the file; CPU, TIME and PERIOD only when the
 * event samples them; a sample without a call chain has its frame on the
 * header line. Tracepoints show their fields as the format of the file's
 * tracing data prints them, and no period.
 *
 * With --inline a call-chain frame whose address is in inlined code is
 * preceded by the functions inlined there, innermost first, as perf script
 * --inline prints them (util/evsel_fprintf.c, the inline list machine.c
 * appends): the frame's address and offset, the function's name from DWARF,
 * no binary, " (inlined)" at the end (after the source line with --lines);
 * the frame's own line then carries its function's line of the outermost
 * call site. The frame on the header line gets none, as in perf.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "answers/ans_export.h"
#include "answers/ans_samples.h"
#include "answers/ans_script.h"
#include "answers/ans_tracing.h"
#include "shared/pd_emit.h"
#include "shared/tool.h"

struct script_ctx {
	FILE *f;
	int name_width; /* -1 until the first sample */
	struct ans_tracing *tracing;
	bool tracing_tried;
	bool lines;
	bool inlines;
	const char *cmd;
	struct ans_reader *r;
};

/* The tracing data's formats, read at the first tracepoint sample (in pipe
 * mode the data comes as a record before it). A file without usable formats
 * is said once; its samples then show no fields. */
static struct ans_tracing *tracing(struct script_ctx *c)
{
	const void *data;
	char err[160];
	size_t len;

	if (c->tracing_tried)
		return c->tracing;
	c->tracing_tried = true;
	if (!ans_tracing_data(c->r, &data, &len)) {
		fprintf(stderr, "perfring %s: warning: the file has tracepoint samples but no tracing data "
				"(HEADER_TRACING_DATA): their fields are not shown\n", c->cmd);
		return NULL;
	}
	c->tracing = ans_tracing_new(data, len, err, sizeof(err));
	if (!c->tracing)
		fprintf(stderr, "perfring %s: warning: %s: tracepoint fields are not shown\n", c->cmd, err);
	return c->tracing;
}

/* The text output through a buffer of our own: formatting with stdio's
 * printf was half of script's time on a large file. */
struct obuf {
	FILE *f;
	size_t n;
	char b[1 << 16];
};

static void ob_flush(struct obuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

static void ob_put(struct obuf *o, const char *s, size_t len)
{
	if (o->n + len > sizeof(o->b)) {
		ob_flush(o);
		if (len > sizeof(o->b)) {
			fwrite(s, 1, len, o->f);
			return;
		}
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static void ob_ch(struct obuf *o, char c)
{
	if (o->n == sizeof(o->b))
		ob_flush(o);
	o->b[o->n++] = c;
}

/* v in lowercase hex (base 16) or decimal, right-aligned in width columns. */
static void ob_num(struct obuf *o, uint64_t v, unsigned base, int width)
{
	char tmp[24];
	int i = sizeof(tmp);

	if (base == 16) {
		do {
			tmp[--i] = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			tmp[--i] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	while ((int)sizeof(tmp) - i < width)
		tmp[--i] = ' ';
	ob_put(o, tmp + i, sizeof(tmp) - i);
}

/* s right-aligned in width columns. */
static void ob_rstr(struct obuf *o, const char *s, int width)
{
	int n = (int)strlen(s);

	while (n++ < width)
		ob_ch(o, ' ');
	ob_str(o, s);
}

/* The frame as perf script prints it: ADDRESS NAME+0xOFFSET (DSO), then
 * with lines the source file:line on a line of its own (file NULL: none).
 * inlined: the name of a function inlined at the frame's address, printed
 * instead of the frame's own, without the binary and marked " (inlined)". */
static void print_frame_text(struct obuf *o, const struct ans_frame *fr, uint64_t addr, bool lines,
			     const char *file, uint32_t line, const char *inlined)
{
	ob_num(o, addr, 16, 16);
	ob_ch(o, ' ');
	if (inlined) {
		ob_str(o, inlined);
		ob_put(o, "+0x", 3);
		ob_num(o, fr->offset, 16, 0);
	} else if (fr->name) {
		ob_put(o, fr->name, fr->name_len);
		ob_put(o, "+0x", 3);
		ob_num(o, fr->offset, 16, 0);
	} else {
		ob_put(o, "[unknown]", 9);
	}
	if (!inlined) {
		ob_put(o, " (", 2);
		ob_put(o, fr->dso, fr->dso_len);
		ob_ch(o, ')');
	}
	if (lines && file) {
		ob_put(o, "\n  ", 3);
		ob_str(o, file);
		ob_ch(o, ':');
		ob_num(o, line, 10, 0);
	}
	if (inlined)
		ob_put(o, " (inlined)", 10);
}

/* A call-chain frame, after the functions inlined at its address when they
 * are shown (innermost first, each with its line; the frame's own line is
 * then that of the outermost call site, inlined[ninlined]). */
static void print_chain_frame(struct obuf *o, const struct ans_frame *fr, bool lines, bool inlines)
{
	const char *file = fr->file;
	uint32_t line = fr->line, k;

	if (inlines && fr->ninlined) {
		for (k = 0; k < fr->ninlined; k++) {
			const struct perfring_sym_frame *in = &fr->inlined[k];

			if (!in->function)
				continue; /* an unnamed scope: no frame (as in the exports) */
			ob_ch(o, '\t');
			print_frame_text(o, fr, fr->shown_addr, lines, in->file, in->line, in->function);
			ob_ch(o, '\n');
		}
		file = fr->inlined[fr->ninlined].file;
		line = fr->inlined[fr->ninlined].line;
	}
	ob_ch(o, '\t');
	print_frame_text(o, fr, fr->shown_addr, lines, file, line, NULL);
	ob_ch(o, '\n');
}

static void print_text(struct script_ctx *c, struct obuf *o, const struct ans_sample *a)
{
	const struct perfring_sample *s = a->s;
	const struct perf_event_attr *attr = a->rec->attr->attr;
	bool tracepoint = attr && attr->type == PERF_TYPE_TRACEPOINT;
	bool with_ip = !tracepoint || a->has_callchain;
	bool chain = a->has_callchain && with_ip;
	size_t i;

	if (chain) {
		ob_str(o, a->comm);
		ob_ch(o, ' ');
	} else {
		ob_rstr(o, a->comm, 16);
		ob_ch(o, ' ');
	}
	if (s->present & PERF_SAMPLE_TID) {
		if ((int32_t)s->tid < 0) {
			ob_put(o, "   -1", 5); /* perf's "%5d" of the only negative tid the kernel writes */
		} else {
			ob_num(o, s->tid, 10, 5);
		}
		ob_ch(o, ' ');
	}
	if (s->present & PERF_SAMPLE_CPU) {
		/* "[%03u] " */
		ob_ch(o, '[');
		if (s->cpu < 100)
			ob_put(o, s->cpu < 10 ? "00" : "0", s->cpu < 10 ? 2 : 1);
		ob_num(o, s->cpu, 10, 0);
		ob_put(o, "] ", 2);
	}
	if (s->present & PERF_SAMPLE_TIME) {
		/* "%12s: " of "SECS.USECS" (six digits) */
		uint64_t sec = s->time / 1000000000, us = s->time % 1000000000 / 1000;
		char t[32];
		int p = sizeof(t), k;

		for (k = 0; k < 6; k++, us /= 10)
			t[--p] = (char)('0' + us % 10);
		t[--p] = '.';
		do {
			t[--p] = (char)('0' + sec % 10);
			sec /= 10;
		} while (sec);
		while ((int)sizeof(t) - p < 12)
			t[--p] = ' ';
		ob_put(o, t + p, sizeof(t) - p);
		ob_put(o, ": ", 2);
	}
	/* perf prints the weight the sample counts for: without PERF_SAMPLE_PERIOD,
	 * the event's sample_period (a fixed period's file, say -c 1000000). */
	if (!tracepoint) {
		ob_num(o, a->period, 10, 10);
		ob_ch(o, ' ');
	}
	ob_rstr(o, a->event_name, c->name_width);
	ob_put(o, ": ", 2);
	if (tracepoint && (s->present & PERF_SAMPLE_RAW)) {
		ob_flush(o);
		ans_tracing_print(tracing(c), attr->config, s->raw.data, s->raw.len, s->cpu, c->f);
	}
	if (with_ip) {
		if (chain) {
			ob_ch(o, '\n');
			for (i = 0; i < a->nframes; i++)
				print_chain_frame(o, &a->frames[i], c->lines, c->inlines);
		} else if (a->nframes) {
			/* perf prints the sampled ip itself there, not its offset in the binary. */
			ob_ch(o, ' ');
			print_frame_text(o, &a->frames[0], a->frames[0].addr, c->lines, a->frames[0].file, a->frames[0].line,
					 NULL);
		}
	}
	ob_ch(o, '\n');
}

/* One frame object of --json (inlined: as print_frame_text()). */
static void emit_frame(struct pd_emit *e, const struct ans_frame *fr, const char *file, uint32_t line,
		       const char *inlined)
{
	pd_emit_obj_begin(e, NULL);
	pd_emit_u64(e, "addr", fr->addr);
	pd_emit_u64(e, "shown_addr", fr->shown_addr);
	if (inlined || fr->name) {
		pd_emit_str(e, "symbol", inlined ? inlined : fr->name);
		pd_emit_u64(e, "offset", fr->offset);
	} else {
		pd_emit_null(e, "symbol");
	}
	if (inlined)
		pd_emit_bool(e, "inlined", true);
	pd_emit_str(e, "dso", fr->dso);
	if (fr->build_id_size)
		pd_emit_hex(e, "build_id", fr->build_id, fr->build_id_size);
	pd_emit_bool(e, "kernel", fr->kernel);
	if (fr->mapped) {
		pd_emit_u64(e, "map_start", fr->map_start);
		pd_emit_u64(e, "map_end", fr->map_end);
		pd_emit_u64(e, "map_pgoff", fr->map_pgoff);
	}
	if (file) {
		pd_emit_str(e, "file", file);
		pd_emit_u64(e, "line", line);
	}
	if (!fr->name && fr->reason)
		pd_emit_str(e, "reason", fr->reason);
	pd_emit_obj_end(e);
}

static void print_json(struct script_ctx *c, const struct ans_sample *a)
{
	const struct perfring_sample *s = a->s;
	const struct perf_event_attr *attr = a->rec->attr->attr;
	struct pd_emit e = { .f = c->f, .json = true };
	size_t i;

	pd_emit_begin(&e);
	pd_emit_str(&e, "comm", a->comm);
	pd_emit_u64(&e, "pid", s->pid);
	pd_emit_u64(&e, "tid", s->tid);
	if (s->present & PERF_SAMPLE_CPU)
		pd_emit_u64(&e, "cpu", s->cpu);
	if (s->present & PERF_SAMPLE_TIME)
		pd_emit_u64(&e, "time", s->time);
	if (s->present & PERF_SAMPLE_PERIOD)
		pd_emit_u64(&e, "period", s->period);
	pd_emit_str(&e, "event", a->event_name);
	if (attr && attr->type == PERF_TYPE_TRACEPOINT && (s->present & PERF_SAMPLE_RAW))
		ans_tracing_emit(tracing(c), attr->config, s->raw.data, s->raw.len, s->cpu, &e);
	pd_emit_arr_begin(&e, "frames");
	for (i = 0; i < a->nframes; i++) {
		const struct ans_frame *fr = &a->frames[i];
		const char *file = fr->file;
		uint32_t line = fr->line, k;

		/* As the listing: the functions inlined at the address first. */
		if (c->inlines && fr->ninlined) {
			for (k = 0; k < fr->ninlined; k++) {
				const struct perfring_sym_frame *in = &fr->inlined[k];

				if (in->function)
					emit_frame(&e, fr, in->file, in->line, in->function);
			}
			file = fr->inlined[fr->ninlined].file;
			line = fr->inlined[fr->ninlined].line;
		}
		emit_frame(&e, fr, file, line, NULL);
	}
	pd_emit_arr_end(&e);
	pd_emit_end(&e);
}

int ans_script_run(const char *cmd, const char *path, const struct ans_script_opts *opts)
{
	struct ans_opts aopts = { .lines = opts->lines, .inlines = opts->exports.inline_frames };
	struct script_ctx c = { .f = stdout, .name_width = -1, .lines = opts->lines,
				.inlines = opts->exports.inline_frames };
	/* An export to '-' owns standard output: no listing beside it. */
	bool listing = !ans_export_to_stdout(&opts->exports);
	struct ans_export *x = NULL;
	struct obuf *o = NULL;
	struct ans_sample a;
	struct ans_reader *r;
	int i, ret, n, name_width = 0, status = EXIT_OK;

	r = ans_open(cmd, path, &aopts);
	if (!r)
		return EXIT_ERROR;
	c.r = r;
	c.cmd = cmd;
	if (ans_export_wanted(&opts->exports) && !(x = ans_export_new(cmd, &opts->exports))) {
		ans_close(r);
		return EXIT_ERROR;
	}
	if (listing && !opts->json && !(o = malloc(sizeof(*o)))) {
		ans_export_free(x);
		ans_close(r);
		return tool_error(cmd, "out of memory");
	}
	if (o) {
		o->f = stdout;
		o->n = 0;
	}
	while ((ret = ans_next(r, &a)) > 0) {
		/* Event names are padded to the longest one, taken as perf takes it: at
		 * the first sample (a pipe's events come as records before it). */
		for (i = 0; c.name_width < 0 && i < ans_nevents(r); i++) {
			n = (int)strlen(ans_event_name(r, i));
			if (n > name_width)
				name_width = n;
		}
		c.name_width = name_width;
		/* Every sample goes into the exports: script filters nothing. */
		if (x && ans_export_add(x, r, &a)) {
			ret = -1;
			break;
		}
		if (!listing)
			continue;
		if (opts->json)
			print_json(&c, &a);
		else
			print_text(&c, o, &a);
	}
	if (o)
		ob_flush(o);
	free(o);
	fflush(stdout);
	ans_warnings(r, cmd, path);
	if (ret < 0)
		status = EXIT_ERROR;
	else if (ferror(stdout))
		status = tool_error(cmd, "writing the output failed");
	if (x && ret >= 0) {
		int xs = ans_export_finish(x, r, path);

		x = NULL;
		if (xs)
			status = xs;
	}
	ans_export_free(x);
	ans_tracing_free(c.tracing);
	ans_close(r);
	return status;
}

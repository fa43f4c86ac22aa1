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
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "answers/ans_samples.h"
#include "answers/ans_script.h"
#include "answers/ans_tracing.h"
#include "shared/pd_emit.h"
#include "shared/tool.h"

struct script_ctx {
	FILE *f;
	int name_width;
	struct ans_tracing *tracing;
	bool tracing_tried;
	bool lines;
	const char *cmd;
	struct ans_reader *r;
};

static void print_frame_text(FILE *f, const struct ans_frame *fr, bool lines)
{
	fprintf(f, "%16" PRIx64 " ", fr->shown_addr);
	if (fr->name)
		fprintf(f, "%s+0x%" PRIx64, fr->name, fr->offset);
	else
		fputs("[unknown]", f);
	fprintf(f, " (%s)", fr->dso);
	if (lines && fr->file)
		fprintf(f, "\n  %s:%u", fr->file, fr->line);
}

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

static void print_text(struct script_ctx *c, const struct ans_sample *a)
{
	const struct perfring_sample *s = a->s;
	const struct perf_event_attr *attr = a->rec->attr->attr;
	bool tracepoint = attr && attr->type == PERF_TYPE_TRACEPOINT;
	bool with_ip = !tracepoint || a->has_callchain;
	bool chain = a->has_callchain && with_ip;
	FILE *f = c->f;
	size_t i;

	if (chain)
		fprintf(f, "%s ", a->comm);
	else
		fprintf(f, "%16s ", a->comm);
	if (s->present & PERF_SAMPLE_TID)
		fprintf(f, "%5d ", (int)s->tid);
	if (s->present & PERF_SAMPLE_CPU)
		fprintf(f, "[%03u] ", s->cpu);
	if (s->present & PERF_SAMPLE_TIME) {
		char t[32];

		snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, s->time / 1000000000, s->time % 1000000000 / 1000);
		fprintf(f, "%12s: ", t);
	}
	if (!tracepoint && (s->present & PERF_SAMPLE_PERIOD))
		fprintf(f, "%10" PRIu64 " ", s->period);
	fprintf(f, "%*s: ", c->name_width, a->event_name);
	if (tracepoint && (s->present & PERF_SAMPLE_RAW))
		ans_tracing_print(tracing(c), attr->config, s->raw.data, s->raw.len, s->cpu, f);
	if (with_ip) {
		if (chain) {
			fputc('\n', f);
			for (i = 0; i < a->nframes; i++) {
				fputc('\t', f);
				print_frame_text(f, &a->frames[i], c->lines);
				fputc('\n', f);
			}
		} else if (a->nframes) {
			struct ans_frame fr = a->frames[0];

			/* perf prints the sampled ip itself there, not its offset in the binary. */
			fr.shown_addr = fr.addr;
			fputc(' ', f);
			print_frame_text(f, &fr, c->lines);
		}
	}
	fputc('\n', f);
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

		pd_emit_obj_begin(&e, NULL);
		pd_emit_u64(&e, "addr", fr->addr);
		pd_emit_u64(&e, "shown_addr", fr->shown_addr);
		if (fr->name) {
			pd_emit_str(&e, "symbol", fr->name);
			pd_emit_u64(&e, "offset", fr->offset);
		} else {
			pd_emit_null(&e, "symbol");
		}
		pd_emit_str(&e, "dso", fr->dso);
		if (fr->build_id_size)
			pd_emit_hex(&e, "build_id", fr->build_id, fr->build_id_size);
		pd_emit_bool(&e, "kernel", fr->kernel);
		if (fr->mapped) {
			pd_emit_u64(&e, "map_start", fr->map_start);
			pd_emit_u64(&e, "map_end", fr->map_end);
			pd_emit_u64(&e, "map_pgoff", fr->map_pgoff);
		}
		if (fr->file) {
			pd_emit_str(&e, "file", fr->file);
			pd_emit_u64(&e, "line", fr->line);
		}
		if (!fr->name && fr->reason)
			pd_emit_str(&e, "reason", fr->reason);
		pd_emit_obj_end(&e);
	}
	pd_emit_arr_end(&e);
	pd_emit_end(&e);
}

int ans_script_run(const char *cmd, const char *path, const struct ans_script_opts *opts)
{
	struct ans_opts aopts = { .lines = opts->lines };
	struct script_ctx c = { .f = stdout, .lines = opts->lines };
	struct ans_sample a;
	struct ans_reader *r;
	int i, ret, n;

	r = ans_open(cmd, path, &aopts);
	if (!r)
		return EXIT_ERROR;
	c.r = r;
	c.cmd = cmd;
	for (i = 0; i < ans_nevents(r); i++) {
		n = (int)strlen(ans_event_name(r, i));
		if (n > c.name_width)
			c.name_width = n;
	}
	while ((ret = ans_next(r, &a)) > 0) {
		if (opts->json)
			print_json(&c, &a);
		else
			print_text(&c, &a);
	}
	fflush(stdout);
	ans_warnings(r, cmd, path);
	ans_tracing_free(c.tracing);
	ans_close(r);
	if (ret < 0)
		return EXIT_ERROR;
	if (ferror(stdout))
		return tool_error(cmd, "writing the output failed");
	return EXIT_OK;
}

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
#include <pthread.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/common/alloc.h"
#include "shared/export.h"
#include "script/fields.h"
#include "script/data_src.h"
#include "shared/filter.h"
#include "shared/samples.h"
#include "script/script.h"
#include "shared/tracing.h"
#include "shared/pd_emit.h"
#include "shared/tool.h"

struct script_ctx {
	FILE *f;
	int name_width; /* -1 until the first sample */
	struct tracing *tracing;
	bool tracing_tried;
	bool lines;
	bool inlines;
	const char *cmd;
	struct samples_reader *r;
	const struct script_fields *fields;
	uint32_t *ev_fields; /* each event's fields, resolved when it is first seen */
	int nev_fields;
	int data_src_width;  /* the longest data_src text so far: perf pads each to it */
	bool quiet;          /* the second reader: the first says it */
	const struct script_opts *opts;
	uint64_t time_base;  /* --reltime: the first shown sample's time; --deltatime: the previous one's */
	bool time_based;     /* time_base is set */
};

/* The fields of event ev's lines into *out; -1 (said) when the samples
 * cannot give a field asked for. */
static int event_fields(struct script_ctx *c, int ev, uint32_t *out)
{
	const struct perf_event_attr *attr = samples_event_attr(c->r, ev);
	char err[256];

	if (ev < 0 || !attr) {
		*out = 0;
		return 0;
	}
	if (ev >= c->nev_fields) {
		int n = samples_nevents(c->r) > ev ? samples_nevents(c->r) : ev + 1, i;
		uint32_t *v = realloc(c->ev_fields, (size_t)n * sizeof(*v));

		if (!v) {
			tool_error(c->cmd, "out of memory");
			return -1;
		}
		for (i = c->nev_fields; i < n; i++)
			v[i] = UINT32_MAX; /* not resolved yet */
		c->ev_fields = v;
		c->nev_fields = n;
	}
	if (c->ev_fields[ev] == UINT32_MAX) {
		if (script_fields_resolve(c->fields, attr, samples_event_name(c->r, ev), &c->ev_fields[ev], err, sizeof(err))) {
			tool_error(c->cmd, "%s", err);
			return -1;
		}
	}
	*out = c->ev_fields[ev];
	return 0;
}

/* The tracing data's formats, read at the first tracepoint sample (in pipe
 * mode the data comes as a record before it). A file without usable formats
 * is said once; its samples then show no fields. */
static struct tracing *tracing(struct script_ctx *c)
{
	const void *data;
	char err[160];
	size_t len;

	if (c->tracing_tried)
		return c->tracing;
	c->tracing_tried = true;
	if (!samples_tracing_data(c->r, &data, &len)) {
		if (!c->quiet)
			fprintf(stderr, "perfring %s: warning: the file has tracepoint samples but no tracing data "
				"(HEADER_TRACING_DATA): their fields are not shown\n", c->cmd);
		return NULL;
	}
	c->tracing = tracing_new(data, len, err, sizeof(err));
	tracing_set_resolver(c->tracing, samples_kernel_function, c->r);
	if (!c->tracing && !c->quiet)
		fprintf(stderr, "perfring %s: warning: %s: tracepoint fields are not shown\n", c->cmd, err);
	return c->tracing;
}

/* The text output through a buffer of our own: formatting with stdio's
 * printf was half of script's time on a large file. */
struct text_block {
	char *buf;
	size_t len, cap;
};

struct obuf {
	FILE *f;
	struct text_block *mem; /* instead of f: the second reader's block in memory */
	bool oom;               /* mem could not grow */
	size_t n;
	char b[1 << 16];
};

static void ob_write(struct obuf *o, const char *s, size_t len)
{
	struct text_block *m = o->mem;

	if (!m) {
		fwrite(s, 1, len, o->f);
		return;
	}
	if (pr_grow(&m->buf, &m->cap, m->len + len, 1)) {
		o->oom = true;
		return;
	}
	memcpy(m->buf + m->len, s, len);
	m->len += len;
}

static void ob_flush(struct obuf *o)
{
	if (o->n)
		ob_write(o, o->b, o->n);
	o->n = 0;
}

static void ob_put(struct obuf *o, const char *s, size_t len)
{
	if (o->n + len > sizeof(o->b)) {
		ob_flush(o);
		if (len > sizeof(o->b)) {
			ob_write(o, s, len);
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
	/* written in place (a frame's address is the commonest field): at most
	 * 20 digits, widths are at most 16 */
	int digits = 1, pad;
	uint64_t x;
	char *p;

	if (base == 16)
		digits = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	else
		for (x = v; x >= 10; x /= 10)
			digits++;
	pad = width > digits ? width - digits : 0;
	if (o->n + (size_t)(pad + digits) > sizeof(o->b))
		ob_flush(o);
	p = o->b + o->n + pad + digits;
	o->n += (size_t)(pad + digits);
	if (base == 16) {
		do {
			*--p = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	while (pad--)
		*--p = ' ';
}

/* s right-aligned in width columns. */
static void ob_rstr(struct obuf *o, const char *s, int width)
{
	int n = (int)strlen(s);

	while (n++ < width)
		ob_ch(o, ' ');
	ob_str(o, s);
}

/* The frame as perf script prints it: ADDRESS NAME+0xOFFSET (DSO), the parts
 * the fields ask for (sym, symoff, dso), then with lines the source
 * file:line on a line of its own (file NULL: none). inlined: the name of a
 * function inlined at the frame's address, printed instead of the frame's
 * own, without the binary and marked " (inlined)". */
enum { SRC_NONE, SRC_FULL, SRC_BASE };

static void print_frame_text(struct obuf *o, const struct named_frame *fr, uint64_t addr, uint32_t fl, int lines,
			     const char *file, uint32_t line, const char *inlined)
{
	ob_num(o, addr, 16, 16);
	if (fl & AF_SYM) {
		ob_ch(o, ' ');
		if (inlined || fr->name) {
			if (inlined)
				ob_str(o, inlined);
			else
				ob_put(o, fr->name, fr->name_len);
			if (fl & AF_SYMOFF) {
				ob_put(o, "+0x", 3);
				ob_num(o, fr->offset, 16, 0);
			}
		} else {
			ob_put(o, "[unknown]", 9);
		}
	}
	if (!inlined && (fl & AF_DSO)) {
		ob_put(o, " (", 2);
		ob_put(o, fr->dso, fr->dso_len);
		ob_ch(o, ')');
	}
	if (lines && file) {
		/* the srcline field as perf prints it: the file's base name; --lines: as DWARF has it */
		const char *base = strrchr(file, '/');

		ob_put(o, "\n  ", 3);
		ob_str(o, lines == SRC_BASE && base ? base + 1 : file);
		ob_ch(o, ':');
		ob_num(o, line, 10, 0);
	} else if (lines == SRC_BASE && !inlined && fr->kernel && strcmp(fr->dso, "[unknown]")) {
		/* a kernel frame without a line (no vmlinux with DWARF): perf's srcline is the
		 * binary's name and the address in it */
		const char *dso = fr->dso[0] == '/' && strrchr(fr->dso, '/') ? strrchr(fr->dso, '/') + 1 : fr->dso;

		ob_put(o, "\n  ", 3);
		ob_str(o, dso);
		ob_ch(o, '[');
		ob_num(o, fr->shown_addr, 16, 0);
		ob_ch(o, ']');
	}
	if (inlined)
		ob_put(o, " (inlined)", 10);
}

/* A call-chain frame, after the functions inlined at its address when they
 * are shown (innermost first, each with its line; the frame's own line is
 * then that of the outermost call site, inlined[ninlined]). */
static void print_chain_frame(const struct samples_reader *r, struct obuf *o, const struct named_frame *fr, uint32_t fl,
			      int lines, bool inlines)
{
	const char *file = fr->file;
	uint32_t line = fr->line, k;

	if (inlines && fr->ninlined && (fl & AF_SYM)) {
		for (k = 0; k < fr->ninlined; k++) {
			const struct perfring_sym_frame *in = &fr->inlined[k];

			if (!in->function)
				continue; /* an unnamed scope: no frame (as in the exports) */
			ob_ch(o, '\t');
			print_frame_text(o, fr, fr->shown_addr, fl, lines, in->file, in->line,
					 samples_function_name(r, in->function));
			ob_ch(o, '\n');
		}
		file = fr->inlined[fr->ninlined].file;
		line = fr->inlined[fr->ninlined].line;
	}
	ob_ch(o, '\t');
	print_frame_text(o, fr, fr->shown_addr, fl, lines, file, line, fr->inline_id ? fr->inline_name : NULL);
	ob_ch(o, '\n');
}

/* A pid or tid as perf's "%5d" (left: "%-5d") prints it. */
static void print_id(struct obuf *o, uint32_t id, bool left)
{
	char t[16];
	int n = snprintf(t, sizeof(t), left ? "%-5d" : "%5d", (int32_t)id);

	ob_put(o, t, (size_t)n);
}

/* The sample's data address, and for page faults what it names (perf's
 * perf_sample__fprintf_addr(): only those correlate it with a symbol). */
static void print_addr(struct script_ctx *c, struct obuf *o, const struct named_sample *a, uint32_t fl)
{
	const struct perf_event_attr *attr = a->rec->attr->attr;
	struct named_frame fr;

	if (!attr || attr->type != PERF_TYPE_SOFTWARE ||
	    (attr->config != PERF_COUNT_SW_PAGE_FAULTS && attr->config != PERF_COUNT_SW_PAGE_FAULTS_MIN &&
	     attr->config != PERF_COUNT_SW_PAGE_FAULTS_MAJ)) {
		ob_num(o, a->s->addr, 16, 16);
		return;
	}
	/* by the address's half, as perf's thread__find_map_fb() falls back: a fault in
	 * the kernel (the sample's mode) is most often on a user address */
	samples_name_addr(c->r, a->s->pid, a->s->addr,
		      a->s->addr >= 0xffff800000000000ull ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, &fr);
	print_frame_text(o, &fr, a->s->addr, fl, SRC_NONE, NULL, 0, NULL);
}

/* A sample's weight and instruction latency: with WEIGHT_STRUCT the weight is its low 32 bits,
 * the latency the next 16. */
static uint64_t sample_weight(const struct perfring_sample *s)
{
	return s->present & PERF_SAMPLE_WEIGHT_STRUCT ? (uint32_t)s->weight : s->weight;
}

static uint64_t sample_ins_lat(const struct perfring_sample *s)
{
	return (uint16_t)(s->weight >> 32);
}

/* "%16x WORDS", padded to the longest one printed so far (perf's data_src__fprintf()). */
static void print_data_src(struct script_ctx *c, struct obuf *o, uint64_t v)
{
	char words[100]; /* perf's size: longer words are cut there as perf cuts them */
	size_t n;
	int len;

	ob_num(o, v, 16, 16);
	ob_ch(o, ' ');
	n = data_src_text(v, words, sizeof(words));
	ob_put(o, words, n);
	len = 17 + (int)n;
	if (len > c->data_src_width)
		c->data_src_width = len;
	for (; len < c->data_src_width; len++)
		ob_ch(o, ' ');
}

/* The time column as perf script prints it: "%12s: " of SECS.USECS, or with --ns
 * "%5lu.%09lu: "; --reltime and --deltatime count from the first or the previous
 * sample shown (one reader then: the base follows the order of the lines). */
static void print_time(struct script_ctx *c, struct obuf *o, uint64_t time)
{
	const struct script_opts *so = c->opts;
	uint64_t t = time, sec, frac;
	int digits = so && so->time_ns ? 9 : 6, width = so && so->time_ns ? 5 : 0, p, k;
	char buf[40];

	if (so && (so->reltime || so->deltatime)) {
		if (!c->time_based) {
			c->time_base = time;
			c->time_based = true;
		}
		t = time - c->time_base;
		if (so->deltatime)
			c->time_base = time;
	}
	sec = t / 1000000000;
	frac = t % 1000000000;
	if (digits == 6)
		frac /= 1000;
	p = sizeof(buf);
	for (k = 0; k < digits; k++, frac /= 10)
		buf[--p] = (char)('0' + frac % 10);
	buf[--p] = '.';
	k = 0;
	do {
		buf[--p] = (char)('0' + sec % 10);
		sec /= 10;
		k++;
	} while (sec);
	for (; k < width; k++)
		buf[--p] = ' ';
	while (!width && (int)sizeof(buf) - p < 12)
		buf[--p] = ' ';
	ob_put(o, buf + p, sizeof(buf) - p);
	ob_put(o, ": ", 2);
}

/* perf script's --comm, --pid, --tid and --symbols: whether sample a is shown. */
static bool script_keep(const struct script_ctx *c, const struct named_sample *a)
{
	const struct script_opts *so = c->opts;
	const struct named_frame *f;

	if (!so)
		return true;
	if (!filter_thread_kept(so->comms, so->pids, so->tids, a->comm, a->s->pid, a->s->tid))
		return false;
	/* perf filters by the sample's own entry, as report does */
	f = samples_own_frame(a);
	return !(so->syms && !(f && f->name && filter_in_list(so->syms, f->name)));
}

/* A sample's lines, its fields (fl) in perf script's order:
 * perf_sample__fprintf_start(), then process_event(). */
static void print_text(struct script_ctx *c, struct obuf *o, const struct named_sample *a, uint32_t fl)
{
	const struct perfring_sample *s = a->s;
	const struct perf_event_attr *attr = a->rec->attr->attr;
	bool tracepoint = attr && attr->type == PERF_TYPE_TRACEPOINT;
	bool chain = a->has_callchain && (fl & AF_IP);
	int lines = c->lines ? SRC_FULL : (fl & AF_SRCLINE) ? SRC_BASE : SRC_NONE;
	size_t i;

	if (fl & AF_COMM) {
		/* padded to 16 unless call chains follow */
		if (chain)
			ob_str(o, a->comm);
		else
			ob_rstr(o, a->comm, 16);
		ob_ch(o, ' ');
	}
	if ((fl & AF_PID) && (fl & AF_TID)) {
		print_id(o, s->pid, false);
		ob_ch(o, '/');
		print_id(o, s->tid, true);
		ob_ch(o, ' ');
	} else if (fl & (AF_PID | AF_TID)) {
		print_id(o, (fl & AF_PID) ? s->pid : s->tid, false);
		ob_ch(o, ' ');
	}
	if (fl & AF_CPU) {
		/* "[%03u] " */
		ob_ch(o, '[');
		if (s->cpu < 100)
			ob_put(o, s->cpu < 10 ? "00" : "0", s->cpu < 10 ? 2 : 1);
		ob_num(o, s->cpu, 10, 0);
		ob_put(o, "] ", 2);
	}
	if (fl & AF_TIME)
		print_time(c, o, s->time);
	/* perf prints the weight the sample counts for: without PERF_SAMPLE_PERIOD,
	 * the event's sample_period (a fixed period's file, say -c 1000000). */
	if (fl & AF_PERIOD) {
		ob_num(o, a->period, 10, 10);
		ob_ch(o, ' ');
	}
	if (fl & AF_EVENT) {
		ob_rstr(o, a->event_name, c->name_width);
		ob_put(o, ": ", 2);
	}
	if ((fl & AF_TRACE) && tracepoint && (s->present & PERF_SAMPLE_RAW)) {
		ob_flush(o);
		tracing_print(tracing(c), attr->config, s->raw.data, s->raw.len, s->cpu, c->f);
	}
	if ((fl & AF_ADDR) && (s->present & PERF_SAMPLE_ADDR))
		print_addr(c, o, a, fl);
	if ((fl & AF_DATA_SRC) && (s->present & PERF_SAMPLE_DATA_SRC))
		print_data_src(c, o, s->data_src);
	if ((fl & AF_WEIGHT) && (s->present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)))
		ob_num(o, sample_weight(s), 10, 16);
	if ((fl & AF_INS_LAT) && (s->present & PERF_SAMPLE_WEIGHT_STRUCT))
		ob_num(o, sample_ins_lat(s), 10, 16);
	if (fl & AF_IP) {
		if (chain) {
			ob_ch(o, '\n');
			for (i = 0; i < a->nframes; i++)
				print_chain_frame(c->r, o, &a->frames[i], fl, lines, c->inlines);
		} else if (a->nframes) {
			/* perf prints the sampled ip itself there, not its offset in the
			 * binary; named by the binary's symbol (own), not by a function
			 * inlined there (a stack copy without a call chain is unwound) */
			const struct named_frame *f = a->own ? a->own : &a->frames[0];

			ob_ch(o, ' ');
			print_frame_text(o, f, f->addr, fl, lines, f->file, f->line, NULL);
		}
	}
	ob_ch(o, '\n');
}

/* One frame object of --json (inlined: as print_frame_text()). */
static void emit_frame(struct pd_emit *e, const struct named_frame *fr, const char *file, uint32_t line,
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

static void print_json(struct script_ctx *c, const struct named_sample *a)
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
	/* a memory sample's fields (perf mem, perf record -d) */
	if (s->present & PERF_SAMPLE_ADDR)
		pd_emit_u64(&e, "data_addr", s->addr);
	if (s->present & PERF_SAMPLE_DATA_SRC) {
		char words[100];

		data_src_text(s->data_src, words, sizeof(words));
		pd_emit_u64(&e, "data_src", s->data_src);
		pd_emit_str(&e, "data_src_text", words);
	}
	if (s->present & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		pd_emit_u64(&e, "weight", sample_weight(s));
	if (s->present & PERF_SAMPLE_WEIGHT_STRUCT)
		pd_emit_u64(&e, "ins_lat", sample_ins_lat(s));
	if (attr && attr->type == PERF_TYPE_TRACEPOINT && (s->present & PERF_SAMPLE_RAW))
		tracing_emit(tracing(c), attr->config, s->raw.data, s->raw.len, s->cpu, &e);
	pd_emit_arr_begin(&e, "frames");
	for (i = 0; i < a->nframes; i++) {
		const struct named_frame *fr = &a->frames[i];
		const char *file = fr->file;
		uint32_t line = fr->line, k;

		/* As the listing: the functions inlined at the address first. */
		if (c->inlines && fr->ninlined) {
			for (k = 0; k < fr->ninlined; k++) {
				const struct perfring_sym_frame *in = &fr->inlined[k];

				if (in->function)
					emit_frame(&e, fr, in->file, in->line, samples_function_name(c->r, in->function));
			}
			file = fr->inlined[fr->ninlined].file;
			line = fr->inlined[fr->ninlined].line;
		}
		emit_frame(&e, fr, file, line, fr->inline_id ? fr->inline_name : NULL);
	}
	pd_emit_arr_end(&e);
	pd_emit_end(&e);
}

/*
 * ---- Two readers ----
 * The listing of a file is made by two readers at once, a thread each, in
 * blocks of SHARE_BLOCK samples: the first reader (this thread) lists the
 * even blocks straight to the output, the second the odd ones into memory
 * (at most SHARE_AHEAD blocks ahead), which the first writes out between
 * its own. Both follow every other record, so each line is the one a
 * single reader prints. Only where no line depends on the lines before it
 * (data_src's padding does), nothing else takes the samples, and no
 * tracepoint fields are decoded.
 */
#define SHARE_BLOCK 1024
#define SHARE_AHEAD 8

struct second {
	struct script_ctx c;
	struct samples_reader *r;
	struct obuf *o;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct text_block q[SHARE_AHEAD]; /* each slot's buffer is kept for its next block */
	uint64_t head, tail;              /* blocks made, blocks written out */
	bool done, stop;
	int status;
};

/* A free slot for the next block (NULL when the first reader stopped). */
static struct text_block *slot_get(struct second *s)
{
	struct text_block *m = NULL;

	pthread_mutex_lock(&s->mu);
	while (s->head - s->tail == SHARE_AHEAD && !s->stop)
		pthread_cond_wait(&s->cv, &s->mu);
	if (!s->stop) {
		m = &s->q[s->head % SHARE_AHEAD];
		m->len = 0;
	}
	pthread_mutex_unlock(&s->mu);
	return m;
}

/* The block in s->o's slot made, for the first reader to write out. */
static void slot_put(struct second *s)
{
	ob_flush(s->o);
	pthread_mutex_lock(&s->mu);
	s->head++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void *second_main(void *arg)
{
	struct second *s = arg;
	struct named_sample a;
	uint64_t blk = UINT64_MAX;
	uint32_t fl;
	int ret;

	s->o->mem = NULL;
	while ((ret = samples_next(s->r, &a)) > 0) {
		if (a.seq / SHARE_BLOCK != blk) {
			if (s->o->mem)
				slot_put(s);
			blk = a.seq / SHARE_BLOCK;
			if (!(s->o->mem = slot_get(s)))
				break;
		}
		if (!script_keep(&s->c, &a))
			continue;
		if (event_fields(&s->c, a.event, &fl)) {
			ret = -1;
			break;
		}
		if (fl)
			print_text(&s->c, s->o, &a, fl);
		if (s->o->oom) {
			ret = -ENOMEM;
			break;
		}
	}
	if (s->o->mem && ret >= 0)
		slot_put(s);
	pthread_mutex_lock(&s->mu);
	if (ret < 0 && !s->status)
		s->status = ret;
	s->done = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Write the second reader's next block after o's lines: false when it has
 * no more (it ended, or failed: s->status). */
static bool write_second_block(struct second *s, struct obuf *o)
{
	struct text_block *m = NULL;

	pthread_mutex_lock(&s->mu);
	while (s->head == s->tail && !s->done)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->head != s->tail)
		m = &s->q[s->tail % SHARE_AHEAD];
	pthread_mutex_unlock(&s->mu);
	if (!m)
		return false;
	/* the slot is the second reader's again only after tail moves */
	ob_flush(o);
	if (m->len)
		fwrite(m->buf, 1, m->len, o->f);
	pthread_mutex_lock(&s->mu);
	s->tail++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return true;
}

/* Start the second reader when it pays and cannot change the listing. */
static struct second *second_start(const char *cmd, const char *path, const struct script_ctx *c,
				   const struct samples_opts *aopts)
{
	struct samples_opts o2 = *aopts;
	struct second *s;
	int i;

	if (!samples_two_readers(c->r))
		return NULL;
	for (i = 0; i < samples_nevents(c->r); i++) {
		const struct perf_event_attr *at = samples_event_attr(c->r, i);

		/* data_src is padded to the widest so far; tracepoint fields go
		 * through libtraceevent, not known to be thread-safe */
		if (!at || (at->sample_type & PERF_SAMPLE_DATA_SRC) || at->type == PERF_TYPE_TRACEPOINT)
			return samples_one_reader(c->r, "tracepoint fields or data_src"), NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->o = malloc(sizeof(*s->o));
	o2.share_n = 2;
	o2.share_i = 1;
	o2.share_block = SHARE_BLOCK;
	o2.quiet = true;
	s->r = s->o ? samples_open(cmd, path, &o2) : NULL;
	if (!s->r) {
		free(s->o);
		free(s);
		return NULL;
	}
	s->o->n = 0;
	s->o->f = NULL;
	s->o->oom = false;
	s->c = *c;
	s->c.f = NULL; /* print_text() writes to c->f for tracepoint fields only: none here */
	s->c.r = s->r;
	s->c.quiet = true;
	s->c.tracing = NULL;
	s->c.tracing_tried = false;
	s->c.ev_fields = NULL;
	s->c.nev_fields = 0;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->th, NULL, second_main, s)) {
		samples_close(s->r);
		free(s->o);
		free(s);
		return NULL;
	}
	return s;
}

/* Stop (when the first reader failed) and free the second reader: its status. */
static int second_end(struct second *s)
{
	int status, i;

	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->th, NULL);
	for (i = 0; i < SHARE_AHEAD; i++)
		free(s->q[i].buf);
	status = s->status;
	free(s->c.ev_fields);
	tracing_free(s->c.tracing);
	samples_close(s->r);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->o);
	free(s);
	return status;
}

int script_run(const char *cmd, const char *path, const struct script_opts *opts)
{
	struct samples_opts aopts = { .lines = opts->lines || script_fields_want_lines(&opts->fields),
				  .inlines = opts->exports.inline_frames,
				  /* perf script shows an unwound stack's inlined functions by default */
				  .inline_entries = !opts->exports.inline_frames,
				  .max_stack = opts->max_stack,
				  .max_stack_set = opts->max_stack_set,
				  .no_demangle = opts->no_demangle,
				  .cpus = opts->cpus };
	struct script_ctx c = { .f = stdout, .name_width = -1, .lines = opts->lines,
				.inlines = opts->exports.inline_frames, .fields = &opts->fields, .opts = opts };
	uint32_t fl;
	/* An export to '-' owns standard output: no listing beside it. */
	bool listing = !export_to_stdout(&opts->exports);
	struct export *x = NULL;
	struct obuf *o = NULL;
	struct named_sample a;
	struct samples_reader *r;
	struct second *sec = NULL;
	uint64_t next_second = 1; /* the second reader's next block */
	int i, ret, n, name_width = 0, status = EXIT_OK;

	r = samples_open(cmd, path, &aopts);
	if (!r)
		return EXIT_ERROR;
	c.r = r;
	c.cmd = cmd;
	if (export_wanted(&opts->exports) && !(x = export_new(cmd, &opts->exports))) {
		samples_close(r);
		return EXIT_ERROR;
	}
	if (listing && !opts->json && !(o = malloc(sizeof(*o)))) {
		export_free(x);
		samples_close(r);
		return tool_error(cmd, "out of memory");
	}
	if (o) {
		o->f = stdout;
		o->mem = NULL;
		o->oom = false;
		o->n = 0;
	}
	/* A field the file's samples cannot give is said before any line (a
	 * pipe's events, as they come). */
	for (i = 0; o && i < samples_nevents(r); i++)
		if (event_fields(&c, i, &fl)) {
			free(c.ev_fields);
			free(o);
			export_free(x);
			samples_close(r);
			return EXIT_ERROR;
		}
	/* a file's events are known: names padded to the longest, as below */
	if (!o || x || opts->json)
		samples_one_reader(r, "not a text listing alone (--json, or an export)");
	else if (opts->reltime || opts->deltatime)
		samples_one_reader(r, "--reltime and --deltatime count from the lines before");
	else if (!perfring_perfdata_is_pipe(samples_perfdata(r))) {
		for (i = 0; i < samples_nevents(r); i++) {
			n = (int)strlen(samples_event_name(r, i));
			if (n > name_width)
				name_width = n;
		}
		c.name_width = name_width;
		if ((sec = second_start(cmd, path, &c, &aopts)))
			samples_share(r, 2, 0, SHARE_BLOCK);
	}
	while ((ret = samples_next(r, &a)) > 0) {
		/* Event names are padded to the longest one, taken as perf takes it: at
		 * the first sample (a pipe's events come as records before it). */
		for (i = 0; c.name_width < 0 && i < samples_nevents(r); i++) {
			n = (int)strlen(samples_event_name(r, i));
			if (n > name_width)
				name_width = n;
		}
		c.name_width = name_width;
		/* the second reader's blocks before this one */
		while (sec && next_second < a.seq / SHARE_BLOCK && write_second_block(sec, o))
			next_second += 2;
		/* The exports take every sample the filters keep, listed or not. */
		if (!script_keep(&c, &a))
			continue;
		if (x && export_add(x, r, &a)) {
			ret = -1;
			break;
		}
		if (!listing)
			continue;
		if (opts->json) {
			print_json(&c, &a);
			continue;
		}
		if (event_fields(&c, a.event, &fl)) {
			ret = -1;
			break;
		}
		if (fl) /* none: that type's events are hidden (-F TYPE:) */
			print_text(&c, o, &a, fl);
	}
	while (sec && ret >= 0 && write_second_block(sec, o))
		;
	if (o)
		ob_flush(o);
	free(o);
	if (ret >= 0) /* every record read: what was lost (nothing after a fatal error) */
		samples_lost_warnings(r, cmd, path);
	fflush(stdout);
	if (sec && second_end(sec) && ret >= 0)
		ret = -tool_error(cmd, "%s: the second reader of the file failed", path);
	if (ret < 0)
		status = EXIT_ERROR;
	else if (ferror(stdout))
		status = tool_error(cmd, "writing the output failed");
	if (x && ret >= 0) {
		int xs = export_finish(x, r, path);

		x = NULL;
		if (xs)
			status = xs;
	}
	status = samples_finish(r, cmd, path, status);
	export_free(x);
	free(c.ev_fields);
	tracing_free(c.tracing);
	samples_close(r);
	return status;
}

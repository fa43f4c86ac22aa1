// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`'s tables: perf report --stdio's text (header, columns as
 * wide as perf makes them, a line per row, -g call chains under it), or a
 * JSON object per event.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"
#include "shared/pd_emit.h"

/* A branch end as perf's branch view shows it: "[k] name" or "[.] 0x<16 digits>". */
static const char *branch_end_text(const struct branch_end *b, char *buf, size_t len)
{
	if (b->sym)
		snprintf(buf, len, "[%c] %s", b->level, b->sym);
	else
		snprintf(buf, len, "[%c] %#.16" PRIx64, b->level, b->shown);
	return buf;
}

/*
 * How wide a branch end's binary makes its column: perf's hists__calc_col_len()
 * counts the name of a binary only when the end's function is known, else
 * unresolved_col_width (16); a longer name is cut to the column.
 */
static int branch_dso_len(const struct report *r, const struct branch_end *b)
{
	return b->sym ? (int)strlen(intern_get(r->strs, b->dso)) : 16;
}

#define INLINED_SUFFIX " (inlined)"
#define INLINED_LEN (sizeof(INLINED_SUFFIX) - 1)

/* A symbol's text (len bytes) names an inlined function: "[.] NAME (inlined)". */
static bool is_inlined_text(const char *text, size_t len)
{
	return len > INLINED_LEN && !memcmp(text + len - INLINED_LEN, INLINED_SUFFIX, INLINED_LEN);
}

/* The text of r's key i of entry e, into buf. */
static const char *key_text(const struct report *r, int i, const struct entry *e, char *buf, size_t len)
{
	switch (r->keys[i]) {
	case RK_SYM_FROM:
		return branch_end_text(&entry_branch(r, e)->from, buf, len);
	case RK_SYM_TO:
		return branch_end_text(&entry_branch(r, e)->to, buf, len);
	case RK_DSO_FROM:
		return intern_get(r->strs, entry_branch(r, e)->from.dso);
	case RK_DSO_TO:
		return intern_get(r->strs, entry_branch(r, e)->to.dso);
	case RK_CYCLES:
		if (!entry_branch(r, e)->cycles)
			return "-";
		/* perf prints the 16-bit count with %hd: above 32767 it shows negative
		 * (--json has the count itself) */
		snprintf(buf, len, "%d", (int)(int16_t)entry_branch(r, e)->cycles);
		return buf;
	case RK_SYM:
		if (e->sym && e->object) /* perf's _hist_entry__sym_snprintf() for an STT_OBJECT */
			snprintf(buf, len, "[%c] %s+0x%" PRIx64, e->kernel ? 'k' : '.', e->sym, e->sym_off);
		else if (e->sym)
			snprintf(buf, len, "[%c] %s", e->kernel ? 'k' : '.', e->sym);
		else
			snprintf(buf, len, "[%c] %#.16" PRIx64, e->kernel ? 'k' : '.', e->addr);
		return buf;
	case RK_DSO:
		return intern_get(r->strs, e->dso);
	case RK_COMM:
		return intern_get(r->strs, e->comm);
	case RK_PID:
		snprintf(buf, len, "%7d:%s", (int)e->pid, intern_get(r->strs, e->pid_comm));
		return buf;
	case RK_TRACE:
		return intern_get(r->strs, e->trace);
	case RK_SRCLINE:
		return intern_get(r->strs, (int32_t)e->key[r->koff[i]]);
	case RK_CPU:
		/* perf's hist_entry__cpu_snprintf(): "%*.*d" at the column's
		 * width, its header's 3: "000", "-001" without a CPU */
		snprintf(buf, len, "%3.3d", (int32_t)e->key[r->koff[i]]);
		return buf;
	}
	return "";
}

/* A one-item filter list: its item, else NULL. */
static const char *single(const char *list)
{
	return list && *list && !strchr(list, ',') ? list : NULL;
}

/*
 * perf's sort__setup_elide(): a key a one-item --comm, --dso or --symbols
 * list leaves one value is not shown as a column but said once in the
 * header ("# comm: sh"); when that would hide every key, all are shown,
 * but the header lines are said all the same (perf prints each as
 * get_elide() finds it, before it reverts).
 */
void report_set_elide(struct report *r)
{
	int i, shown = 0;

	for (i = 0; i < r->nkeys; i++) {
		const char *one = r->keys[i] == RK_COMM ? single(r->o->comms)
				  : r->keys[i] == RK_DSO ? single(r->o->dsos)
				  : r->keys[i] == RK_SYM ? single(r->o->syms)
							 : NULL;

		r->elide[i] = one != NULL;
		shown += !r->elide[i];
	}
	for (i = 0; i < r->nkeys; i++)
		if (r->elide[i])
			printf("# %s: %s\n", r->keys[i] == RK_COMM ? "comm" : r->keys[i] == RK_DSO ? "dso" : "symbol",
			       r->keys[i] == RK_COMM ? r->o->comms : r->keys[i] == RK_DSO ? r->o->dsos : r->o->syms);
	if (!shown)
		memset(r->elide, 0, sizeof(r->elide));
}

/* The totals an event's percentages are of: all its samples (perf's
 * --percentage absolute, the default), or those the filters keep. */
struct event_tot report_shown_tot(const struct report *r, int ev)
{
	struct event_tot t = r->tot[ev];

	if (r->o->relative) {
		t.samples = t.kept_samples;
		t.period = t.kept_period;
	}
	return t;
}

/* Room for any key text of entry e: "[k] " and a name of any length (a C++
 * one runs to kilobytes; perf prints it whole), or a number. */
static size_t text_room(const struct report *r, const struct entry *e)
{
	size_t room = 64;
	int i;

	for (i = 0; i < r->nkeys; i++) {
		const char *name = r->keys[i] == RK_SYM	     ? e->sym
				   : r->keys[i] == RK_SYM_FROM ? entry_branch(r, e)->from.sym
				   : r->keys[i] == RK_SYM_TO   ? entry_branch(r, e)->to.sym
							       : NULL;

		if (name && strlen(name) + 64 > room)
			room = strlen(name) + 64;
	}
	return room;
}

/*
 * The table of one event, or of an event group (nr members from event ev):
 * perf report --stdio's header (samples and event count of the members
 * together) and a line per row, a percentage column per member (the leader
 * "%9.2f%%", the others "%7.2f%%" right after it), each of its own event's
 * period.
 */
static const struct report *prefix_r;
static size_t prefix_words;

static int cmp_prefix(const void *a, const void *b)
{
	const struct entry *x = (*(const struct row *const *)a)->e, *y = (*(const struct row *const *)b)->e;

	return memcmp(x->key, y->key, prefix_words * sizeof(x->key[0]));
}

/*
 * --sort srcline: which rows size its column (sized[j] for made[j]). perf
 * finds an entry's line when it first compares two entries by it (its
 * sort__srcline_cmp()), and sizes the column by the lines found before it
 * prints (hists__calc_col_len()); a longer line is cut to the column. Two
 * entries are compared by line when the keys before it are the same: an
 * entry alone with its keys before the line is not, unless a second sample
 * of it (or, children, its sample's first frame) was compared with it.
 * NULL when out of memory (every row sizes it).
 */
static bool *srcline_sized(const struct report *r, int key, const struct row *made, size_t nmade)
{
	const struct row **v = malloc((nmade ? nmade : 1) * sizeof(*v));
	bool *sized = calloc(nmade ? nmade : 1, sizeof(*sized));
	size_t j, k;

	if (!v || !sized) {
		free(v);
		free(sized);
		return NULL;
	}
	for (j = 0; j < nmade; j++)
		v[j] = &made[j];
	prefix_r = r;
	prefix_words = r->koff[key];
	qsort(v, nmade, sizeof(*v), cmp_prefix);
	for (j = 0; j < nmade; j = k) {
		size_t first = j;

		for (k = j + 1; k < nmade && !cmp_prefix(&v[j], &v[k]); k++)
			;
		for (; j < k; j++)
			sized[v[j] - made] = k - first > 1 || v[j]->e->self_samples > 1 || (r->children && v[j]->e->self);
	}
	free(v);
	return sized;
}

void report_print_table(const struct report *r, const char *title, int ev, int nr, struct row **rows, size_t n,
			const struct row *made, size_t nmade, uint64_t lost, bool lost_line)
{
	bool *sized = NULL;
	struct event_tot t[GROUP_MAX], all = { 0 };
	int width[RK_MAX], i, k, last, wide = 8 * (nr - 1);
	char small[512], *buf = small, unit = ' ';
	size_t j, room = sizeof(small);
	uint64_t ns;

	for (j = 0; j < nmade + n; j++) {
		size_t need = text_room(r, j < nmade ? made[j].e : rows[j - nmade]->e);

		if (need > room)
			room = need;
	}
	if (room > sizeof(small) && !(buf = malloc(room))) {
		buf = small; /* out of memory: the longest names cut to 511 bytes */
		room = sizeof(small);
	}

	for (k = 0; k < nr; k++) {
		t[k] = report_shown_tot(r, ev + k);
		all.samples += t[k].samples;
		all.period += t[k].period;
	}
	ns = all.samples;
	if (ns > 1000) {
		ns /= 1000;
		unit = 'K';
		if (ns > 1000) {
			ns /= 1000;
			unit = 'M';
		}
	}
	if (!r->o->quiet) {
		if (lost_line)
			printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", lost);
		printf("# Samples: %" PRIu64 "%c of %s\n", ns, unit, title);
		printf("# Event count (approx.): %" PRIu64 "\n#\n", all.period);
	}
	/*
	 * Each column as wide as its header or its widest text, but the
	 * command's as perf's hists__calc_col_len makes it: by the length of
	 * the command each entry's thread has at the end (its pid name), and
	 * perf cuts longer commands to that width ("perf-exec" of a thread that
	 * became "sleep" shows as "perf-ex"). Shown the same, for one output.
	 */
	for (i = 0; i < r->nkeys; i++) {
		width[i] = (int)strlen(rk_names[r->keys[i]].header);
		if (r->keys[i] == RK_SRCLINE) {
			free(sized);
			sized = srcline_sized(r, i, made, nmade);
		}
		/* perf keeps the CPU column at its header's width (a "-001" runs past it) */
		for (j = 0; j < nmade && r->keys[i] != RK_CPU; j++) {
			if (made[j].e->filtered)
				continue; /* perf sizes the columns by the shown entries (hists__calc_col_len()) */
			int w;

			if (r->keys[i] == RK_SRCLINE && sized && !sized[j])
				continue;
			w = r->keys[i] == RK_DSO_FROM ? branch_dso_len(r, &entry_branch(r, made[j].e)->from)
				: r->keys[i] == RK_DSO_TO ? branch_dso_len(r, &entry_branch(r, made[j].e)->to)
				: (int)strlen(r->keys[i] == RK_COMM ? intern_get(r->strs, made[j].e->pid_comm)
								      : key_text(r, i, made[j].e, buf, room));

			/* perf sizes the symbol column by the function's name: an
			 * inlined one's " (inlined)" runs past it */
			if (r->keys[i] == RK_SYM && is_inlined_text(buf, (size_t)w))
				w -= INLINED_LEN;
			/* and an object's by its name too, without its "+0xOFF" */
			if (r->keys[i] == RK_SYM && made[j].e->object)
				w -= snprintf(NULL, 0, "+0x%" PRIx64, made[j].e->sym_off);
			/* an entry without a symbol widens the binary's column to an
			 * address's 16 digits (perf's unresolved_col_width), unless
			 * --dso chose the binaries */
			if (r->keys[i] == RK_DSO && !made[j].e->sym && !r->o->dsos && w < 16)
				w = 16;
			if (w > width[i])
				width[i] = w;
		}
	}
	for (i = 0, last = -1; i < r->nkeys; i++)
		if (!r->elide[i])
			last = i;
	if (!r->o->quiet) {
		if (r->children)
			printf("# %*s  %*s", 8 + wide, "Children", 8 + wide, "Self");
		else
			printf("# %*s", 8 + wide, "Overhead");
		if (r->o->show_samples)
			printf("  %*s", 12 * nr, "Samples");
		if (r->o->show_period)
			printf("  %*s", 12 * nr, "Period");
		for (i = 0; i < r->nkeys; i++)
			if (!r->elide[i])
				printf("  %-*s", i < last ? width[i] : 0, rk_names[r->keys[i]].header);
		printf("\n# %.*s", 8 + wide, "................................................................"
					    "................................................................");
		if (r->children)
			printf("  %.*s", 8 + wide, "................................................................"
						  "................................................................");
		for (k = 0; r->o->show_samples && k < nr; k++)
			printf(k ? "............" : "  ............");
		for (k = 0; r->o->show_period && k < nr; k++)
			printf(k ? "............" : "  ............");
		for (i = 0; i < r->nkeys; i++) {
			if (r->elide[i])
				continue;
			printf("  ");
			for (int d = 0; d < width[i]; d++)
				putchar('.');
		}
		printf("\n#\n");
	}
	for (j = 0; j < n; j++) {
		const struct row *w = rows[j];

		for (k = 0; r->children && k < nr; k++)
			printf(k ? "%7.2f%%" : "%9.2f%%", report_pct(report_row_val(w, k, true), t[k].period));
		for (k = 0; k < nr; k++) {
			printf(k ? "%7.2f%%" : r->children ? "  %7.2f%%" : "%9.2f%%", report_pct(report_row_val(w, k, false), t[k].period));
		}
		for (k = 0; r->o->show_samples && k < nr; k++)
			printf(k ? "%12" PRIu64 : "  %12" PRIu64, w->m[k] ? w->m[k]->self_samples : 0);
		/* --show-total-period: the entry's own period, as perf's Period column */
		for (k = 0; r->o->show_period && k < nr; k++)
			printf(k ? "%12" PRIu64 : "  %12" PRIu64, report_row_val(w, k, false));
		for (i = 0; i < r->nkeys; i++) {
			const char *text;

			if (r->elide[i])
				continue;
			text = key_text(r, i, w->e, buf, room);
			if (r->keys[i] == RK_COMM || r->keys[i] == RK_DSO_FROM || r->keys[i] == RK_DSO_TO ||
			    r->keys[i] == RK_SRCLINE)
				printf("  %-*.*s", i < last ? width[i] : 0, width[i], text);
			else
				printf("  %-*s", i < last ? width[i] : 0, text);
		}
		putchar('\n');
		/* a group's graph is its leader's entry's, of the leader's period
		 * (perf's group view prints the leader's hists alone); a row only
		 * the other members have has none */
		if (r->graph && w->m[0])
			graph_print(r, w->m[0], r->graph_min);
	}
	printf("\n\n");
	free(sized);
	if (buf != small)
		free(buf);
}

void report_print_json(const struct report *r, const char *name, int ev, struct row **rows, size_t n, uint64_t lost)
{
	const struct event_tot tot = report_shown_tot(r, ev), *t = &tot;
	struct pd_emit e = { .f = stdout, .json = true };
	bool dso_done;
	size_t j;
	int i;

	pd_emit_begin(&e);
	pd_emit_str(&e, "event", name);
	pd_emit_u64(&e, "samples", t->samples);
	pd_emit_u64(&e, "period", t->period);
	pd_emit_u64(&e, "lost_samples", lost);
	pd_emit_arr_begin(&e, "sort");
	for (i = 0; i < r->nkeys; i++)
		pd_emit_str(&e, NULL, rk_names[r->keys[i]].name);
	pd_emit_arr_end(&e);
	pd_emit_arr_begin(&e, "entries");
	for (j = 0; j < n; j++) {
		const struct entry *x = rows[j]->e;

		pd_emit_obj_begin(&e, NULL);
		dso_done = false;
		for (i = 0; i < r->nkeys; i++) {
			switch (r->keys[i]) {
			case RK_SYM:
				if (x->sym)
					pd_emit_str(&e, "symbol", x->sym);
				else
					pd_emit_null(&e, "symbol");
				pd_emit_u64(&e, "addr", x->addr);
				pd_emit_bool(&e, "kernel", x->kernel);
				/* a symbol is named with its binary */
				__attribute__((fallthrough));
			case RK_DSO:
				if (!dso_done)
					pd_emit_str(&e, "dso", intern_get(r->strs, x->dso));
				dso_done = true;
				break;
			case RK_COMM:
				pd_emit_str(&e, "comm", intern_get(r->strs, x->comm));
				break;
			case RK_CPU: /* -1: the event records no CPU */
				pd_emit_i64(&e, "cpu", (int32_t)x->key[r->koff[i]]);
				break;
			case RK_PID:
				pd_emit_i64(&e, "pid", (int32_t)x->pid);
				if (r->keys[0] != RK_COMM)
					pd_emit_str(&e, "comm", intern_get(r->strs, x->pid_comm));
				break;
			case RK_SYM_FROM:
			case RK_SYM_TO: {
				const struct branch_end *b = r->keys[i] == RK_SYM_FROM ? &entry_branch(r, x)->from
										: &entry_branch(r, x)->to;
				const bool from = r->keys[i] == RK_SYM_FROM;

				if (b->sym)
					pd_emit_str(&e, from ? "symbol_from" : "symbol_to", b->sym);
				else
					pd_emit_null(&e, from ? "symbol_from" : "symbol_to");
				pd_emit_u64(&e, from ? "addr_from" : "addr_to", b->addr);
				break;
			}
			case RK_DSO_FROM:
				pd_emit_str(&e, "dso_from", intern_get(r->strs, entry_branch(r, x)->from.dso));
				break;
			case RK_DSO_TO:
				pd_emit_str(&e, "dso_to", intern_get(r->strs, entry_branch(r, x)->to.dso));
				break;
			case RK_CYCLES:
				pd_emit_u64(&e, "cycles", entry_branch(r, x)->cycles);
				break;
			case RK_TRACE:
				pd_emit_str(&e, "trace", intern_get(r->strs, x->trace));
				break;
			case RK_SRCLINE:
				pd_emit_str(&e, "srcline", intern_get(r->strs, (int32_t)x->key[r->koff[i]]));
				break;
			}
		}
		if (r->children) {
			pd_emit_f64(&e, "children", report_pct(x->children, t->period), 4);
			pd_emit_u64(&e, "children_period", x->children);
		}
		pd_emit_f64(&e, "self", report_pct(x->self, t->period), 4);
		pd_emit_u64(&e, "self_period", x->self);
		pd_emit_u64(&e, "self_samples", x->self_samples);
		pd_emit_obj_end(&e);
	}
	pd_emit_arr_end(&e);
	pd_emit_end(&e);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The words of `perfring top`'s header and rows, for the screen and --stdio alike. */
#include <stdio.h>
#include <string.h>

#include "shared/tool.h"
#include "top/top.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void top_format_header(const struct top_run *r, const struct top_view *v, bool paused, char *l1, size_t n1,
		       char *l2, size_t n2)
{
	uint64_t freq = top_session_freq(r->session), elapsed = tool_now_ns() - r->start_ns;
	double secs = (double)r->window * (double)r->delay_ns / 1e9, run = (double)elapsed / 1e9;
	char rate[32] = "";
	size_t k;

	if (freq)
		snprintf(rate, sizeof(rate), " at %llu Hz", (unsigned long long)freq);
	k = (size_t)snprintf(l1, n1, "%s top: %s, %s%s, window %.3g s%s", TOOL_NAME, top_session_target(r->session),
			     top_session_event(r->session), rate, secs, paused ? "  [PAUSED]" : "");
	if (k < n1)
		top_format_filters(r, l1 + k, n1 - k);
	if (run > secs)
		run = secs;
	snprintf(l2, n2, "samples %llu (%.0f/s), unnamed %.1f%%, lost %.1f%% (%llu)%s, processes %llu",
		 (unsigned long long)v->nsamples, run > 0 ? (double)v->all_samples / run : 0.0, pct(v->unnamed, v->total),
		 pct(v->lost, v->all_samples + v->lost), (unsigned long long)v->lost, v->dropped ? ", window full" : "",
		 (unsigned long long)v->procs);
}

void top_format_filters(const struct top_run *r, char *buf, size_t len)
{
	const struct top_filter *f = &r->filter;
	size_t k = 0;

	buf[0] = '\0';
#define ADD(...) (k += k < len ? (size_t)snprintf(buf + k, len - k, __VA_ARGS__) : 0)
	if (f->pid >= 0)
		ADD("  [pid %lld]", (long long)f->pid);
	if (f->comms)
		ADD("  [comm %s]", f->comms);
	if (f->dsos)
		ADD("  [dso %s]", f->dsos);
	if (f->cpu >= 0)
		ADD("  [cpu %d]", (int)f->cpu);
	if (f->hide_kernel)
		ADD("  [no kernel]");
	if (f->hide_user)
		ADD("  [no user]");
#undef ADD
}

void top_format_titles(const struct top_run *r, char *buf, size_t len)
{
	if (r->children)
		snprintf(buf, len, "%9s %8s %8s  %-24s %s", "Children", "Self", "Samples", "Shared Object", "Symbol");
	else
		snprintf(buf, len, "%8s %8s  %-24s %s", "Self", "Samples", "Shared Object", "Symbol");
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

void top_format_row(const struct top_run *r, const struct top_view *v, const struct top_row *row, char *buf,
		    size_t len)
{
	const char *dso = base_name(top_table_dso(r->table, row->sym));
	char mode = top_table_kernel(r->table, row->sym) ? 'k' : '.';

	if (r->children)
		snprintf(buf, len, "%8.2f%% %7.2f%% %8llu  %-24.24s [%c] %s", pct(row->children, v->total),
			 pct(row->self, v->total), (unsigned long long)row->nself, dso, mode,
			 top_table_name(r->table, row->sym));
	else
		snprintf(buf, len, "%7.2f%% %8llu  %-24.24s [%c] %s", pct(row->self, v->total),
			 (unsigned long long)row->nself, dso, mode, top_table_name(r->table, row->sym));
}

void top_format_chain(const struct top_run *r, uint64_t total, const uint32_t *chain, size_t depth, uint64_t weight,
		      char *buf, size_t len)
{
	size_t i, k;

	k = (size_t)snprintf(buf, len, "%16s%6.2f%%  ", "", pct(weight, total));
	/* chain[0] is the row's function itself: its callers follow */
	for (i = 1; i < depth && chain[i] != TOP_NONE && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i > 1 ? " <- " : "", top_table_name(r->table, chain[i]));
	if (i == 1 && k < len)
		snprintf(buf + k, len - k, "(no caller)");
}

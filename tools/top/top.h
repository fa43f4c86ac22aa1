/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring top`: what the two faces share (the ncurses screen, top_ui.c,
 * and the --stdio printer, top_stdio.c): the run's settings and state, and
 * the text of the header and of a row (top_format.c), so that both say the
 * same thing in the same words.
 */
#ifndef PERFRING_TOOL_TOP_H
#define PERFRING_TOOL_TOP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "top/top_session.h"
#include "top/top_table.h"

struct top_run {
	struct top_session *session;
	struct top_table *table;
	struct top_filter filter;
	enum top_sort sort;
	uint64_t delay_ns;    /* between refreshes */
	uint64_t iterations;  /* --stdio: stop after this many tables (0: none) */
	size_t entries;       /* rows shown (0: as many as fit, 25 with --stdio) */
	unsigned window;      /* intervals a table covers */
	bool children;        /* call chains recorded: the Children column */
	unsigned callers;     /* --stdio: the top callers chains of each row (0: none) */
	uint64_t start_ns;
};

/* Set by SIGINT/SIGTERM. */
extern volatile sig_atomic_t top_stop;

int top_stdio_run(struct top_run *r);
int top_ui_run(struct top_run *r);

/* The header's two lines: what is sampled, then the window's counts and the
 * shares of unnamed and lost samples. */
void top_format_header(const struct top_run *r, const struct top_view *v, bool paused, char *l1, size_t n1,
		       char *l2, size_t n2);
/* The filters in force ("" when none). */
void top_format_filters(const struct top_run *r, char *buf, size_t len);
/* The column titles and one row, width columns wide at most (0: no bound). */
void top_format_titles(const struct top_run *r, char *buf, size_t len);
void top_format_row(const struct top_run *r, const struct top_view *v, const struct top_row *row, char *buf,
		    size_t len);
/* One caller chain of a row: "  12.5%  caller <- caller's caller <- ...". */
void top_format_chain(const struct top_run *r, uint64_t total, const uint32_t *chain, size_t depth, uint64_t weight,
		      char *buf, size_t len);

#endif

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring top --stdio`: the table printed every interval, for scripts and
 * logs, until --iterations tables, SIGINT/SIGTERM or the end of the target
 * (then once more, with what the last interval took).
 */
#include <stdio.h>

#include "shared/tool.h"
#include "top/top.h"

#define STDIO_ENTRIES 25
#define CALLER_DEPTH 6

static int print_table(struct top_run *r)
{
	struct top_view v;
	char l1[512], l2[512], line[1024];
	uint32_t chains[8 * CALLER_DEPTH];
	uint64_t weights[8];
	size_t i, j, nc, max = r->entries ? r->entries : STDIO_ENTRIES;

	if (top_table_view(r->table, &r->filter, r->sort, &v))
		return tool_error("top", "no memory");
	top_format_header(r, &v, false, l1, sizeof(l1), l2, sizeof(l2));
	printf("%s\n%s\n\n", l1, l2);
	top_format_titles(r, line, sizeof(line));
	printf("%s\n", line);
	for (i = 0; i < v.nrows && i < max; i++) {
		top_format_row(r, &v, &v.rows[i], line, sizeof(line));
		printf("%s\n", line);
		nc = r->callers ? top_table_callers(r->table, &r->filter, v.rows[i].sym, CALLER_DEPTH, chains, weights,
						    r->callers < 8 ? r->callers : 8)
				: 0;
		for (j = 0; j < nc; j++) {
			top_format_chain(r, v.total, chains + j * CALLER_DEPTH, CALLER_DEPTH, weights[j], line, sizeof(line));
			printf("%s\n", line);
		}
	}
	printf("\n");
	fflush(stdout);
	top_view_free(&v);
	return 0;
}

int top_stdio_run(struct top_run *r)
{
	uint64_t next = r->start_ns + r->delay_ns, now, printed = 0;
	bool ended = false;
	int err;

	while (!top_stop && !ended) {
		now = tool_now_ns();
		if (now < next) {
			err = top_session_poll(r->session, (int64_t)(next - now < 100000000 ? next - now : 100000000));
			if (err)
				return err;
			ended = top_session_ended(r->session);
			if (!ended)
				continue;
		}
		if ((err = print_table(r)))
			return err;
		if (r->iterations && ++printed >= r->iterations)
			break;
		top_table_tick(r->table);
		top_session_interval(r->session);
		next += r->delay_ns;
		if (next < tool_now_ns()) /* a slow terminal: no burst of catch-up tables */
			next = tool_now_ns() + r->delay_ns;
	}
	return EXIT_OK;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring top`'s screen, drawn with ncurses: the header, the table with a
 * selected row (its callers below it on Enter), and a line for prompts.
 * Keys never block the sampling: the rings are read between keys, and a
 * prompt is typed into a buffer of its own.
 */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "shared/tool.h"
#include "top/top.h"

#define UI_POLL_NS (50 * 1000 * 1000LL)
#define UI_CALLERS 5
#define UI_DEPTH 6
#define HEAD_LINES 4 /* two of header, one of prompt or filters, the titles */

enum prompt { P_NONE, P_COMM, P_DSO, P_CPU, P_PID };

struct ui {
	struct top_run *r;
	struct top_view v;
	bool have_view, paused, expanded, help;
	size_t sel, first;
	enum prompt prompt;
	char input[128];
	size_t ninput;
	char comms[128], dsos[256], msg[160];
};

static const char *const sort_names[TOP_SORT_N] = { "self", "children", "name" };

static void draw_help(void)
{
	static const char *const lines[] = {
		"perfring top keys",
		"",
		"  q          quit",
		"  space, p   pause / resume the display (sampling goes on)",
		"  s          sort by self, children, name in turn",
		"  c          only the samples of a command (empty: all)",
		"  b          only the samples taken in a binary (empty: all)",
		"  C          only the samples of a CPU (empty: all)",
		"  z          zoom into a process: a pid, or empty for the busiest",
		"             process of the selected row; z again to zoom out",
		"  x          clear every filter",
		"  K, U       hide / show kernel, user-space rows",
		"  Enter      show / hide the callers of the selected row",
		"  arrows, PgUp, PgDn, Home, End   select a row",
		"",
		"any key: back",
	};
	size_t i;

	erase();
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]) && (int)i < LINES; i++)
		mvaddnstr((int)i, 0, lines[i], COLS);
	refresh();
}

static void draw(struct ui *u)
{
	struct top_run *r = u->r;
	char l1[512], l2[512], line[1024];
	uint32_t chains[UI_CALLERS * UI_DEPTH];
	uint64_t weights[UI_CALLERS];
	int y, rows = LINES - HEAD_LINES;
	size_t i, j, nc = 0;

	if (u->help) {
		draw_help();
		return;
	}
	erase();
	top_format_header(r, &u->v, u->paused, l1, sizeof(l1), l2, sizeof(l2));
	attron(A_BOLD);
	mvaddnstr(0, 0, l1, COLS);
	attroff(A_BOLD);
	mvaddnstr(1, 0, l2, COLS);
	if (u->prompt != P_NONE) {
		static const char *const what[] = { "", "command", "binary", "CPU", "zoom into pid (empty: busiest)" };

		snprintf(line, sizeof(line), "%s: %.*s", what[u->prompt], (int)u->ninput, u->input);
		mvaddnstr(2, 0, line, COLS);
	} else {
		snprintf(line, sizeof(line), "sort %s%s%s", sort_names[r->sort], u->msg[0] ? "  " : "", u->msg);
		mvaddnstr(2, 0, line, COLS);
		if (!u->msg[0])
			mvaddnstr(2, COLS > 30 ? COLS - 30 : 0, "h: keys, q: quit", 30);
	}
	top_format_titles(r, line, sizeof(line));
	attron(A_REVERSE);
	mvaddnstr(3, 0, line, COLS);
	for (i = strlen(line); (int)i < COLS; i++)
		addch(' ');
	attroff(A_REVERSE);
	if (!u->v.nrows)
		mvaddnstr(HEAD_LINES, 0, "(no samples in the window)", COLS);
	if (u->sel >= u->v.nrows)
		u->sel = u->v.nrows ? u->v.nrows - 1 : 0;
	if (u->expanded && u->v.nrows)
		nc = top_table_callers(r->table, &r->filter, u->v.rows[u->sel].sym, UI_DEPTH, chains, weights, UI_CALLERS);
	/* the selected row stays in sight, with its callers */
	if (u->sel < u->first)
		u->first = u->sel;
	while (u->first < u->sel && (int)(u->sel - u->first + 1 + nc) > rows)
		u->first++;
	for (i = u->first, y = HEAD_LINES; i < u->v.nrows && y < LINES; i++) {
		top_format_row(r, &u->v, &u->v.rows[i], line, sizeof(line));
		if (i == u->sel)
			attron(A_REVERSE);
		mvaddnstr(y++, 0, line, COLS);
		if (i == u->sel)
			attroff(A_REVERSE);
		for (j = 0; i == u->sel && j < nc && y < LINES; j++) {
			top_format_chain(r, u->v.total, chains + j * UI_DEPTH, UI_DEPTH, weights[j], line, sizeof(line));
			mvaddnstr(y++, 0, line, COLS);
		}
		if (r->entries && i + 1 - u->first >= r->entries)
			break;
	}
	refresh();
}

static int new_view(struct ui *u)
{
	if (u->have_view)
		top_view_free(&u->v);
	u->have_view = false;
	if (top_table_view(u->r->table, &u->r->filter, u->r->sort, &u->v))
		return -1;
	u->have_view = true;
	return 0;
}

/* A prompt's answer, applied to the filter. */
static void prompt_done(struct ui *u)
{
	struct top_filter *f = &u->r->filter;
	uint64_t v;

	u->input[u->ninput] = '\0';
	u->msg[0] = '\0';
	switch (u->prompt) {
	case P_COMM:
		snprintf(u->comms, sizeof(u->comms), "%s", u->input);
		f->comms = u->ninput ? u->comms : NULL;
		break;
	case P_DSO:
		snprintf(u->dsos, sizeof(u->dsos), "%s", u->input);
		f->dsos = u->ninput ? u->dsos : NULL;
		break;
	case P_CPU:
		if (!u->ninput)
			f->cpu = -1;
		else if (tool_parse_u64(u->input, 0, INT32_MAX, &v))
			f->cpu = (int32_t)v;
		else
			snprintf(u->msg, sizeof(u->msg), "not a CPU: '%s'", u->input);
		break;
	case P_PID:
		if (!u->ninput && u->v.nrows) {
			f->pid = top_table_busiest_pid(u->r->table, f, u->v.rows[u->sel].sym);
		} else if (tool_parse_u64(u->input, 0, INT32_MAX, &v)) {
			f->pid = (int64_t)v;
		} else if (u->ninput) {
			snprintf(u->msg, sizeof(u->msg), "not a pid: '%s'", u->input);
		}
		break;
	case P_NONE:
		break;
	}
	u->prompt = P_NONE;
	u->ninput = 0;
}

/* One key. Returns 1 to quit, else 0; *view: the table must be made anew. */
static int on_key(struct ui *u, int ch, bool *view)
{
	struct top_filter *f = &u->r->filter;
	size_t page = LINES > HEAD_LINES + 1 ? (size_t)(LINES - HEAD_LINES - 1) : 1;

	if (u->help) {
		u->help = false;
		return 0;
	}
	if (u->prompt != P_NONE) {
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
			prompt_done(u);
			*view = true;
		} else if (ch == 27) { /* Escape */
			u->prompt = P_NONE;
			u->ninput = 0;
		} else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && u->ninput) {
			u->ninput--;
		} else if (ch >= 32 && ch < 127 && u->ninput + 1 < sizeof(u->input)) {
			u->input[u->ninput++] = (char)ch;
		}
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return 1;
	case ' ':
	case 'p':
	case 'P':
		u->paused = !u->paused;
		*view = !u->paused;
		break;
	case 's':
		u->r->sort = (enum top_sort)((u->r->sort + 1) % TOP_SORT_N);
		if (u->r->sort == TOP_SORT_CHILDREN && !u->r->children)
			u->r->sort = TOP_SORT_NAME;
		*view = true;
		break;
	case 'c':
		u->prompt = P_COMM;
		break;
	case 'b':
	case 'd':
		u->prompt = P_DSO;
		break;
	case 'C':
		u->prompt = P_CPU;
		break;
	case 'z':
		if (f->pid >= 0) {
			f->pid = -1;
			*view = true;
		} else {
			u->prompt = P_PID;
		}
		break;
	case 'x':
		f->comms = f->dsos = NULL;
		f->cpu = -1;
		f->pid = -1;
		f->hide_kernel = f->hide_user = false;
		*view = true;
		break;
	case 'K':
		f->hide_kernel = !f->hide_kernel;
		*view = true;
		break;
	case 'U':
		f->hide_user = !f->hide_user;
		*view = true;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		u->expanded = !u->expanded;
		break;
	case KEY_UP:
		u->sel -= u->sel > 0;
		break;
	case KEY_DOWN:
		u->sel++;
		break;
	case KEY_PPAGE:
		u->sel = u->sel > page ? u->sel - page : 0;
		break;
	case KEY_NPAGE:
		u->sel += page;
		break;
	case KEY_HOME:
		u->sel = 0;
		break;
	case KEY_END:
		u->sel = u->v.nrows ? u->v.nrows - 1 : 0;
		break;
	case 'h':
	case '?':
		u->help = true;
		break;
	default:
		break;
	}
	return 0;
}

int top_ui_run(struct top_run *r)
{
	struct ui u = { .r = r };
	uint64_t next = r->start_ns + r->delay_ns, now;
	bool view = true, dirty, quit = false;
	int ch, ret = EXIT_OK;

	if (!initscr())
		return tool_error("top", "cannot start the screen (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	timeout(0);
	curs_set(0);
	set_escdelay(25);
	while (!top_stop && !quit) {
		dirty = false;
		now = tool_now_ns();
		if (now >= next && !u.paused)
			view = true; /* paused: the screen stays as it is */
		if (view) {
			if (new_view(&u)) {
				ret = tool_error("top", "no memory");
				break;
			}
			view = false;
			dirty = true;
		}
		if (now >= next) {
			top_table_tick(r->table);
			top_session_interval(r->session);
			next += r->delay_ns;
			if (next < now)
				next = now + r->delay_ns;
		}
		if (dirty)
			draw(&u);
		if ((ret = top_session_poll(r->session, UI_POLL_NS < (int64_t)(next - now) ? UI_POLL_NS
											   : (int64_t)(next - now))))
			break;
		if (top_session_ended(r->session))
			break;
		while ((ch = getch()) != ERR) {
			if (ch == KEY_RESIZE)
				continue;
			quit = on_key(&u, ch, &view);
			if (quit)
				break;
			if (!view)
				draw(&u);
		}
	}
	endwin();
	if (u.have_view)
		top_view_free(&u.v);
	return ret;
}

/* Folded stacks: FlameGraph's stackcollapse format, one line per distinct stack,
 *
 *   comm;root;caller;...;leaf count
 *
 * as `perf script | stackcollapse-perf.pl` prints it, so that flamegraph.pl,
 * inferno and speedscope read it and a diff against the Perl pipeline is
 * empty:
 * - the process is its comm with spaces as '_' (":PID" when perf knew no
 *   comm); threads and processes of the same comm share lines (the script's
 *   default, without --pid/--tid);
 * - a frame is its function; an unnamed one "[binary base name]" or
 *   "[unknown]"; an unnamed kernel frame "[kernel.kallsyms]" (the script
 *   would double the brackets); inlined functions are frames of their own
 *   (the script with perf script's --inline);
 * - names are tidied as the script does by default: ';' becomes ':', a C++
 *   argument list from '(' on is dropped (but not "(anonymous namespace)"),
 *   quotes are dropped; newlines (which would break the format) become ' ';
 * - kernel frames get no "_[k]" suffix (the script adds it only with
 *   --kernel; a flame graph colours them by name anyway);
 * - lines sorted bytewise, as the script's `sort keys`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/prof_internal.h"

/* One name, tidied as stackcollapse-perf.pl's tidy_generic. */
static void put_tidy(struct prof_buf *b, const char *name, bool is_comm)
{
	size_t n = strlen(name);

	if (!is_comm) {
		/* The script drops from the first '(' on unless the name looks like "a.(b).c" (Go). */
		const char *dot = strstr(name, ".(");
		bool go_like = dot && strstr(dot + 2, ").");

		if (!go_like) {
			for (const char *q = name; (q = strchr(q, '(')); q++) {
				if (strncmp(q, "(anonymous namespace)", 21) != 0) {
					n = (size_t)(q - name);
					break;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (c == ';')
			c = ':';
		else if (c == '\n' || c == '\r' || (is_comm && c == ' '))
			c = is_comm ? '_' : ' ';
		else if (c == '"' || c == '\'')
			continue;
		prof_buf_put(b, &c, 1);
	}
}

static int put_frame(const char *name, const char *file, void *arg)
{
	struct prof_buf *b = arg;

	prof_buf_put(b, ";", 1);
	put_tidy(b, name, false);
	return b->err;
}

struct folded_line {
	char *text;
	uint64_t value;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

int prof_write_folded(const struct profile *p, int event, bool by_period, FILE *out)
{
	struct folded_line *lines;
	size_t nlines = 0;
	int err = 0;

	if (!p || !out || event >= p->nevents)
		return -EINVAL;
	if (event < 0)
		event = 0;
	lines = calloc(p->stacks.n ? p->stacks.n : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct prof_stack_key *k = prof_stack(p, i);
		struct prof_buf b = { 0 };
		char cbuf[32];

		if ((int)k->event != event)
			continue;
		put_tidy(&b, prof_comm_name(p, k, cbuf, sizeof(cbuf)), true);
		for (uint32_t j = k->nlocs; j-- > 0 && !b.err;)
			prof_loc_names(p, k->locs[j], put_frame, &b);
		if (!b.err && !b.b)
			prof_buf_put(&b, "", 0);
		if (b.err) {
			free(b.b);
			err = b.err;
			goto out;
		}
		lines[nlines].text = (char *)b.b;
		lines[nlines].value = by_period ? p->stack_vals[i].period : p->stack_vals[i].count;
		nlines++;
	}
	qsort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines;) {
		uint64_t v = lines[i].value;
		size_t j = i + 1;

		/* Stacks that differ only in what the format does not show (pid, tid, address) share a line. */
		while (j < nlines && strcmp(lines[j].text, lines[i].text) == 0)
			v += lines[j++].value;
		if (fprintf(out, "%s %llu\n", lines[i].text, (unsigned long long)v) < 0) {
			err = -EIO;
			goto out;
		}
		i = j;
	}
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	return err;
}

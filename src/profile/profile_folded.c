// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
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

#include "profile/profile_internal.h"

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
		pr_prof_buf_put(b, &c, 1);
	}
}

/* The tidied names, interned: a stack becomes a short list of name ids, and only the distinct
 * lists (the lines) are ever rendered, so memory follows the lines, not the address-level stacks. */
struct names {
	struct pr_itab tab;
	struct prof_buf tmp;
	struct prof_buf ids; /* the current location's name ids (uint32_t), outermost first */
	int err;
};

static long name_id(struct names *nm, const char *name, bool is_comm)
{
	nm->tmp.len = 0;
	put_tidy(&nm->tmp, name, is_comm);
	pr_prof_buf_put(&nm->tmp, "", 0);
	if (nm->tmp.err)
		return nm->tmp.err;
	return pr_prof_itab_get(&nm->tab, nm->tmp.b, nm->tmp.len, NULL);
}

static int add_name(const char *name, const char *file, void *arg)
{
	struct names *nm = arg;
	long id = name_id(nm, name, false);

	uint32_t v = (uint32_t)id;

	if (id < 0)
		return nm->err = (int)id;
	pr_prof_buf_put(&nm->ids, &v, sizeof(v));
	return nm->err = nm->ids.err;
}

struct folded_line {
	char *text;
	uint64_t value;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text, ((const struct folded_line *)b)->text);
}

int pr_prof_write_folded(const struct perfring_profile *p, uint32_t event, bool by_period, FILE *out)
{
	struct names nm = { 0 };
	struct pr_itab keys = { 0 };       /* a line: comm name id, then frame name ids root first */
	struct prof_buf key = { 0 };
	uint32_t **loc_names = NULL;    /* per location: count, then its name ids */
	struct prof_buf values = { 0 }; /* uint64_t per line */
	struct folded_line *lines = NULL;
	int err = 0;

	loc_names = calloc(p->locs.n ? p->locs.n : 1, sizeof(*loc_names));
	if (!loc_names)
		return -ENOMEM;
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct prof_stack_key *k = pr_prof_stack(p, i);
		char cbuf[32];
		long id;

		if (k->event != event)
			continue;
		key.len = 0;
		if ((id = name_id(&nm, pr_prof_comm_name(p, k, cbuf, sizeof(cbuf)), true)) < 0)
			goto fail;
		uint32_t cid = (uint32_t)id;

		pr_prof_buf_put(&key, &cid, sizeof(cid));
		for (uint32_t j = k->nlocs; j-- > 0;) {
			uint32_t loc = k->locs[j];

			if (!loc_names[loc]) {
				size_t n;

				nm.ids.len = 0;
				if (pr_prof_loc_names(p, loc, add_name, &nm) || nm.err) {
					id = nm.err ? nm.err : -ENOMEM;
					goto fail;
				}
				n = nm.ids.len / sizeof(uint32_t);
				loc_names[loc] = malloc((n + 1) * sizeof(uint32_t));
				if (!loc_names[loc]) {
					id = -ENOMEM;
					goto fail;
				}
				loc_names[loc][0] = (uint32_t)n;
				memcpy(loc_names[loc] + 1, nm.ids.b, nm.ids.len);
			}
			pr_prof_buf_put(&key, loc_names[loc] + 1, loc_names[loc][0] * sizeof(uint32_t));
		}
		if (key.err) {
			id = key.err;
			goto fail;
		}
		id = pr_prof_count(&keys, &values, key.b, key.len,
				by_period ? p->stack_vals[i].period : p->stack_vals[i].count);
		if (id < 0)
			goto fail;
		continue;
fail:
		err = (int)id;
		goto out;
	}
	/* Render the distinct lines, sort them bytewise, print. */
	lines = calloc(keys.n ? keys.n : 1, sizeof(*lines));
	if (!lines) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < keys.n; i++) {
		const uint32_t *ids = pr_prof_key(&keys, i);
		size_t nids = keys.keys[i]->len / sizeof(uint32_t);
		struct prof_buf b = { 0 };

		for (size_t j = 0; j < nids; j++) {
			const char *name = pr_prof_key(&nm.tab, ids[j]);

			if (j)
				pr_prof_buf_put(&b, ";", 1);
			pr_prof_buf_put(&b, name, nm.tab.keys[ids[j]]->len);
		}
		if (b.err) {
			free(b.b);
			err = b.err;
			goto out;
		}
		lines[i].text = (char *)b.b;
		lines[i].value = ((const uint64_t *)values.b)[i];
	}
	qsort(lines, keys.n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < keys.n; i++) {
		if (fprintf(out, "%s %llu\n", lines[i].text, (unsigned long long)lines[i].value) < 0) {
			err = -EIO;
			goto out;
		}
	}
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	for (size_t i = 0; lines && i < keys.n; i++)
		free(lines[i].text);
	free(lines);
	for (size_t i = 0; i < p->locs.n; i++)
		free(loc_names[i]);
	free(loc_names);
	free(values.b);
	free(key.b);
	free(nm.tmp.b);
	free(nm.ids.b);
	pr_prof_itab_free(&nm.tab);
	pr_prof_itab_free(&keys);
	return err;
}

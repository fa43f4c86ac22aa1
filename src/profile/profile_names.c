// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* How frames and processes are named in the text exports (folded, speedscope, Firefox). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_internal.h"

bool pr_prof_event_is_clock(const char *name)
{
	size_t n = strcspn(name, ":/");

	/* off-cpu: the time threads spent blocked, as perfring profile --off-cpu sums it */
	return (n == 9 && strncmp(name, "cpu-clock", 9) == 0) || (n == 10 && strncmp(name, "task-clock", 10) == 0) ||
	       (n == 7 && strncmp(name, "off-cpu", 7) == 0);
}

int pr_prof_loc_names(const struct perfring_profile *p, uint32_t loc, int (*fn)(const char *name, const char *file, void *arg), void *arg)
{
	const struct prof_loc_key *l = pr_prof_loc(p, loc);
	int err;

	if (!l->nlines) {
		/* stackcollapse-perf.pl: an unknown symbol is shown as its binary's base name in brackets. */
		const struct prof_map_key *m = pr_prof_map(p, l->map);
		const char *bin = m ? pr_prof_str(p, m->file_sid) : "";
		char buf[512];

		if (!*bin || strcmp(bin, "[unknown]") == 0) {
			bin = "unknown";
		} else {
			const char *slash = strrchr(bin, '/');

			if (slash && slash[1])
				bin = slash + 1;
		}
		/* "[kernel.kallsyms]" is already bracketed: perf script prints it so and the script keeps it. */
		if (bin[0] == '[' && bin[strlen(bin) - 1] == ']')
			snprintf(buf, sizeof(buf), "%s", bin);
		else
			snprintf(buf, sizeof(buf), "[%s]", bin);
		return fn(buf, "", arg);
	}
	/* Outermost first: the real function is the last line, the innermost inlined one the first. */
	for (uint32_t i = l->nlines; i-- > 0;) {
		const struct prof_func_key *f = pr_prof_func(p, l->lines[i].func);

		if ((err = fn(pr_prof_str(p, f->name_sid), pr_prof_str(p, f->file_sid), arg)))
			return err;
	}
	return 0;
}

const char *pr_prof_comm_name(const struct perfring_profile *p, const struct prof_stack_key *k, char *buf, size_t bufsz)
{
	const char *comm = pr_prof_str(p, k->comm_sid);

	if (*comm)
		return comm;
	snprintf(buf, bufsz, ":%u", k->pid);
	return buf;
}

/* A JSON string; bytes that are not valid UTF-8 become U+FFFD (JSON text must be UTF-8). */
void pr_prof_json_str(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		unsigned char c = *p;
		size_t n = 0;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc(c, out);
			p++;
			continue;
		}
		/* The length of a well-formed sequence (no overlongs, surrogates or > U+10FFFF), else 0. */
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		for (size_t i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
			n = 0;
		if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
			n = 0;
		if (!n) {
			fputs("\\ufffd", out);
			p++;
			continue;
		}
		fwrite(p, 1, n, out);
		p += n;
	}
	fputc('"', out);
}

struct loc_ids_ctx {
	long (*fn)(uint32_t loc, const char *name, const char *file, void *arg);
	void *arg;
	uint32_t loc;
	struct prof_buf ids; /* the location's (uint32_t) */
	int err;
};

static int loc_id(const char *name, const char *file, void *arg)
{
	struct loc_ids_ctx *c = arg;
	long id = c->fn(c->loc, name, file, c->arg);
	uint32_t v;

	if (id < 0)
		return c->err = (int)id;
	v = (uint32_t)id;
	pr_prof_buf_put(&c->ids, &v, sizeof(v));
	return c->err = c->ids.err;
}

int pr_prof_loc_ids(const struct perfring_profile *p, long (*fn)(uint32_t loc, const char *name, const char *file, void *arg),
		 void *arg, struct prof_loc_ids *ids)
{
	struct loc_ids_ctx c = { .fn = fn, .arg = arg };
	size_t n = p->locs.n;

	ids->nlocs = n;
	ids->v = calloc(n ? n : 1, sizeof(*ids->v));
	ids->n = calloc(n ? n : 1, sizeof(*ids->n));
	if (!ids->v || !ids->n) {
		pr_prof_loc_ids_free(ids);
		return -ENOMEM;
	}
	for (c.loc = 0; c.loc < n; c.loc++) {
		c.ids.len = 0;
		if (pr_prof_loc_names(p, c.loc, loc_id, &c) || c.err ||
		    !(ids->v[c.loc] = malloc(c.ids.len ? c.ids.len : 1))) {
			int err = c.err ? c.err : -ENOMEM;

			free(c.ids.b);
			pr_prof_loc_ids_free(ids);
			return err;
		}
		memcpy(ids->v[c.loc], c.ids.b, c.ids.len);
		ids->n[c.loc] = (uint32_t)(c.ids.len / sizeof(uint32_t));
	}
	free(c.ids.b);
	return 0;
}

void pr_prof_loc_ids_free(struct prof_loc_ids *ids)
{
	for (size_t i = 0; ids->v && i < ids->nlocs; i++)
		free(ids->v[i]);
	free(ids->v);
	free(ids->n);
	*ids = (struct prof_loc_ids){ 0 };
}

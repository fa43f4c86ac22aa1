// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`: samples grouped by sort keys (sym, dso, comm, pid, in
 * any combination), per event, sorted by overhead, printed as `perf report
 * --stdio` prints them, or as JSON.
 *
 * Self: the periods of the samples whose leaf frame belongs to the entry.
 * Children (inclusive, perf's --children, the default when the file has
 * call chains): the periods of the samples with the entry anywhere in their
 * frames, once per sample however often it recurs. Percentages are of the
 * event's total period, as perf's. An unknown symbol is its own entry per
 * address (perf: "[.] 0x0000000000001234"). Like perf (sort__dso_cmp()
 * without -v), binaries are told apart by their short name: two copies of
 * a program at different paths are one entry.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "answers/ans_groups.h"
#include "answers/ans_intern.h"
#include "answers/ans_report.h"
#include "answers/ans_samples.h"
#include "shared/pd_emit.h"
#include "shared/tool.h"

enum rkey { RK_SYM, RK_DSO, RK_COMM, RK_PID };
#define RK_MAX 4

static const struct {
	const char *name, *header, *json;
} rk_names[RK_MAX] = {
	[RK_SYM] = { "sym", "Symbol", "symbol" },
	[RK_DSO] = { "dso", "Shared Object", "dso" },
	[RK_COMM] = { "comm", "Command", "comm" },
	/* perf's header, 15 wide: the column is at least that, or a comm's length + 8 ("%7d:") */
	[RK_PID] = { "pid", "    Pid:Command", "pid" },
};

struct entry {
	uint64_t key[2 * RK_MAX];
	int event;
	uint64_t self, children, self_samples;
	uint64_t stamp;     /* the last sample that counted it in children */
	uint32_t depth;     /* children: the most frames from it to the root in one sample */
	/* shown */
	const char *sym;    /* NULL: unknown, shown by address */
	uint64_t addr;
	bool kernel;
	int32_t dso, comm;  /* interned */
	uint32_t pid;
	uint32_t tid;       /* of its first sample */
	int32_t pid_comm;   /* --sort pid: that thread's name at the end, as perf shows it */
};

struct chain_ent {
	uint32_t entry;     /* +1; 0 = empty */
	int32_t chain;
	uint64_t period;
};

struct event_tot {
	uint64_t samples, period;
	uint64_t kept_samples, kept_period; /* of the samples the filters keep */
};

struct report {
	const struct ans_report_opts *o;
	enum rkey keys[RK_MAX];
	int nkeys;
	bool children;
	bool callers_first; /* children with call chains: equal ones caller first (perf's __hpp__sort_acc) */
	bool elide[RK_MAX]; /* keys a one-item filter makes the same everywhere: not shown */
	struct ans_intern *strs;
	struct entry *v;
	size_t n, cap;
	uint32_t *tab;      /* entry index + 1 */
	size_t tab_cap;
	struct event_tot *tot;
	int ntot;
	uint64_t stamp;
	/* -g */
	struct chain_ent *chains;
	size_t nchains, chains_cap;
	char *buf;
	size_t buf_cap;
	uint32_t *frame_entry; /* per frame of the current sample */
	size_t fe_cap;
};

int ans_report_check_sort(const char *sort, const char **bad, int *badlen)
{
	const char *p = sort, *e;
	int k;

	while (*p) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		for (k = 0; k < RK_MAX; k++)
			if ((size_t)(e - p) == strlen(rk_names[k].name) && !strncmp(p, rk_names[k].name, e - p))
				break;
		if (k == RK_MAX) {
			*bad = p;
			*badlen = (int)(e - p);
			return -1;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

static int parse_sort(struct report *r, const char *sort)
{
	const char *p = sort, *e;
	int k, i;

	while (*p) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		for (k = 0; k < RK_MAX; k++)
			if ((size_t)(e - p) == strlen(rk_names[k].name) && !strncmp(p, rk_names[k].name, e - p))
				break;
		if (k == RK_MAX)
			return -1;
		for (i = 0; i < r->nkeys; i++)
			if (r->keys[i] == (enum rkey)k)
				break;
		if (i == r->nkeys && r->nkeys < RK_MAX)
			r->keys[r->nkeys++] = k;
		p = *e ? e + 1 : e;
	}
	return r->nkeys ? 0 : -1;
}

static uint64_t hash_key(const uint64_t *k, int event)
{
	uint64_t h = (uint64_t)event * 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < 2 * RK_MAX; i++)
		h = (h ^ k[i]) * 0xff51afd7ed558ccdull, h ^= h >> 32;
	return h;
}

static int tab_grow(struct report *r)
{
	size_t cap = r->tab_cap ? r->tab_cap * 2 : 4096, i, j;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < r->n; i++) {
		j = hash_key(r->v[i].key, r->v[i].event) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(r->tab);
	r->tab = t;
	r->tab_cap = cap;
	return 0;
}

/* The entry of (key, event), created with the frame's display fields. */
static struct entry *get_entry(struct report *r, const uint64_t *key, int event, const struct ans_frame *f,
			       bool leaf, int32_t dso, int32_t comm, uint32_t pid, uint32_t tid)
{
	struct entry *e;
	size_t j;

	if ((r->n + 1) * 2 > r->tab_cap && tab_grow(r))
		return NULL;
	j = hash_key(key, event) & (r->tab_cap - 1);
	while (r->tab[j]) {
		e = &r->v[r->tab[j] - 1];
		if (e->event == event && !memcmp(e->key, key, sizeof(e->key)))
			return e;
		j = (j + 1) & (r->tab_cap - 1);
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct entry *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	e = &r->v[r->n];
	memset(e, 0, sizeof(*e));
	memcpy(e->key, key, sizeof(e->key));
	e->event = event;
	e->sym = f ? f->name : NULL;
	e->addr = f ? (leaf ? f->shown_addr : f->addr) : 0;
	e->kernel = f ? f->kernel : false;
	e->dso = dso;
	e->comm = comm;
	e->pid_comm = comm;
	e->pid = pid;
	e->tid = tid;
	r->tab[j] = (uint32_t)++r->n;
	return e;
}

static const char *short_dso(const char *dso)
{
	const char *s = strrchr(dso, '/');

	return dso[0] == '/' && s ? s + 1 : dso;
}

/*
 * A JIT's symbol map, /tmp/perf-PID.map, is shown as perf shows it: "[JIT] tid PID" (perf's
 * dso__set_basename takes any long name that begins /tmp/perf-NUMBER).
 */
static bool jit_map_pid(const char *dso, long *pid)
{
	const char *p = dso + sizeof("/tmp/perf-") - 1;
	char *end;

	if (strncmp(dso, "/tmp/perf-", sizeof("/tmp/perf-") - 1) || !(*p >= '0' && *p <= '9'))
		return false;
	errno = 0;
	*pid = strtol(p, &end, 10);
	return errno == 0 && *pid <= INT32_MAX;
}

/* The id of the frame's binary by its short name (the path's last part). */
static int32_t dso_id(struct report *r, const struct ans_frame *f)
{
	char name[256];
	long pid;

	if (f->dso[0] == '/' && f->dso[1] == 't' && jit_map_pid(f->dso, &pid)) {
		snprintf(name, sizeof(name), "[JIT] tid %ld", pid);
		return ans_intern_str(r->strs, name);
	}
	if (f->kernel && f->dso[0] == '/' && ans_kmod_name(f->dso, name, sizeof(name)))
		return ans_intern_str(r->strs, name);
	return ans_intern_ptr(r->strs, short_dso(f->dso));
}

/* The key of frame f (NULL: a sample without frames) in sample a. */
static int frame_key(struct report *r, const struct ans_sample *a, const struct ans_frame *f, bool leaf,
		     int32_t comm, uint64_t *key, int32_t *dso)
{
	int i;

	memset(key, 0, sizeof(uint64_t) * 2 * RK_MAX);
	*dso = f ? dso_id(r, f) : ans_intern_str(r->strs, "[unknown]");
	if (*dso < 0)
		return -ENOMEM;
	for (i = 0; i < r->nkeys; i++) {
		uint64_t *k = &key[2 * i];

		switch (r->keys[i]) {
		case RK_SYM:
			if (f && f->name) {
				int32_t n = ans_intern_ptr(r->strs, f->name);

				if (n < 0)
					return -ENOMEM;
				k[0] = ((uint64_t)(uint32_t)*dso << 33) | ((uint64_t)(uint32_t)n << 1) | 1;
			} else {
				/* perf keeps an unknown symbol by its address: in the
				 * binary for the sampled ip (al->addr), as recorded for
				 * the callers (the call chain's ips) */
				k[0] = (uint64_t)(uint32_t)*dso << 33;
				k[1] = f ? (leaf ? f->shown_addr : f->addr) : 0;
			}
			break;
		case RK_DSO:
			k[0] = (uint32_t)*dso;
			break;
		case RK_COMM:
			k[0] = (uint32_t)comm;
			break;
		case RK_PID:
			/* perf's "pid" key is the thread (sort__thread_cmp(): its tid),
			 * shown as TID:COMMAND */
			k[0] = a->s->tid;
			break;
		}
	}
	return 0;
}

/* -g: the chain root..frames[j] of the sample, interned, added to entry e. */
static int add_chain(struct report *r, const struct ans_sample *a, size_t j, uint32_t e, uint64_t period)
{
	size_t i, len = 0, need;
	int32_t id;

	for (i = a->nframes; i-- > j;) {
		const struct ans_frame *f = &a->frames[i];
		char tmp[40];
		const char *name = f->name;

		if (!name) {
			snprintf(tmp, sizeof(tmp), "%#" PRIx64, f->shown_addr);
			name = tmp;
		}
		need = len + strlen(name) + 2;
		if (need > r->buf_cap) {
			char *b = realloc(r->buf, need * 2);

			if (!b)
				return -ENOMEM;
			r->buf = b;
			r->buf_cap = need * 2;
		}
		if (len)
			r->buf[len++] = ';';
		strcpy(r->buf + len, name);
		len += strlen(name);
	}
	if (!len)
		return 0;
	id = ans_intern_str(r->strs, r->buf);
	if (id < 0)
		return -ENOMEM;
	/* A linear table per report is enough for what -g is read for (one screen of chains). */
	for (i = 0; i < r->nchains; i++)
		if (r->chains[i].entry == e + 1 && r->chains[i].chain == id) {
			r->chains[i].period += period;
			return 0;
		}
	if (r->nchains == r->chains_cap) {
		size_t cap = r->chains_cap ? r->chains_cap * 2 : 1024;
		struct chain_ent *c = realloc(r->chains, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		r->chains = c;
		r->chains_cap = cap;
	}
	r->chains[r->nchains++] = (struct chain_ent){ e + 1, id, period };
	return 0;
}

/* Whether s is one of the comma-separated items of list. */
static bool in_list(const char *list, const char *s)
{
	size_t n = strlen(s);
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, s, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

static bool in_num_list(const char *list, uint32_t v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", (int32_t)v);
	return in_list(list, s);
}

/* The filters of perf report --comm, --pid, --tid, --dso, --symbols, on the sample. */
static bool keep_sample(const struct ans_report_opts *o, const struct ans_sample *a)
{
	const struct ans_frame *leaf = a->nframes ? &a->frames[0] : NULL;

	if (o->comms && !in_list(o->comms, a->comm))
		return false;
	if (o->pids && !in_num_list(o->pids, a->s->pid))
		return false;
	if (o->tids && !in_num_list(o->tids, a->s->tid))
		return false;
	if (o->dsos && !(leaf && (in_list(o->dsos, leaf->dso) || in_list(o->dsos, short_dso(leaf->dso)))))
		return false;
	if (o->syms && !(leaf && leaf->name && in_list(o->syms, leaf->name)))
		return false;
	return true;
}

static int add_sample(struct report *r, const struct ans_sample *a)
{
	uint64_t period = a->period;
	uint64_t key[2 * RK_MAX];
	int32_t comm, dso;
	struct entry *e;
	size_t j, n = a->nframes;

	if (a->event >= r->ntot) {
		struct event_tot *t = realloc(r->tot, (a->event + 1) * sizeof(*t));

		if (!t)
			return -ENOMEM;
		memset(t + r->ntot, 0, (a->event + 1 - r->ntot) * sizeof(*t));
		r->tot = t;
		r->ntot = a->event + 1;
	}
	r->tot[a->event].samples++;
	r->tot[a->event].period += period;
	if (!keep_sample(r->o, a))
		return 0;
	r->tot[a->event].kept_samples++;
	r->tot[a->event].kept_period += period;
	r->stamp++;
	comm = ans_intern_str(r->strs, a->comm);
	if (comm < 0)
		return -ENOMEM;
	for (j = 0; j < (n ? n : 1); j++) {
		const struct ans_frame *f = n ? &a->frames[j] : NULL;

		if (frame_key(r, a, f, j == 0, comm, key, &dso))
			return -ENOMEM;
		e = get_entry(r, key, a->event, f, j == 0, dso, comm, a->s->tid, a->s->tid);
		if (!e)
			return -ENOMEM;
		if (j == 0) {
			e->self += period;
			e->self_samples++;
		}
		if (n - j > e->depth)
			e->depth = (uint32_t)(n - j);
		if (e->stamp != r->stamp) {
			e->stamp = r->stamp;
			e->children += period;
			if (r->o->callchains && (r->children || j == 0) && add_chain(r, a, j, (uint32_t)(e - r->v), period))
				return -ENOMEM;
		}
		if (!r->children)
			break;
	}
	return 0;
}

static uint64_t overhead(const struct report *r, const struct entry *e)
{
	return r->children ? e->children : e->self;
}

/*
 * --sort pid: perf names a process entry by its thread's command at the
 * end of the file (thread__comm_str() when it prints), so a shell that
 * exec'd ls shows as ls. The comm key keeps the name at the sample, but
 * perf sizes its column by that same thread's final command (see
 * print_event_text).
 */
static int name_pids(struct report *r, const struct ans_reader *rd)
{
	size_t j;
	int i;

	for (i = 0; i < r->nkeys && r->keys[i] != RK_PID && r->keys[i] != RK_COMM; i++)
		;
	if (i == r->nkeys)
		return 0;
	for (j = 0; j < r->n; j++) {
		const char *c = ans_thread_comm(rd, r->v[j].tid);
		int32_t id;

		if (!c)
			continue;
		id = ans_intern_str(r->strs, c);
		if (id < 0)
			return -ENOMEM;
		r->v[j].pid_comm = id;
	}
	return 0;
}

static const struct report *sort_r;

/* a named one first, as perf's cmp_null() puts them: -1, 0 (both named: compare
 * the names), 1 */
static int named_first(const void *x, const void *y)
{
	return x && y ? 0 : !x && !y ? 0 : x ? -1 : 1;
}

/*
 * Entries of equal overhead in perf's order (hist_entry__sort(): each --sort
 * key's sort function in turn): commands, binaries (short names, a known
 * one before "[unknown]") and symbols (a named one before an address) by
 * name, ascending; pids ascending. Two addresses left tied come as perf's
 * collapsed tree holds them: by their difference's sign.
 */
static int cmp_keys(const struct report *r, const struct entry *x, const struct entry *y)
{
	const char *dx = ans_intern_get(r->strs, x->dso), *dy = ans_intern_get(r->strs, y->dso);
	int i, c = 0;

	for (i = 0; i < r->nkeys && !c; i++) {
		switch (r->keys[i]) {
		case RK_COMM:
			c = strcmp(ans_intern_get(r->strs, x->comm), ans_intern_get(r->strs, y->comm));
			break;
		case RK_PID:
			c = x->pid < y->pid ? -1 : x->pid > y->pid;
			break;
		case RK_DSO:
			c = named_first(strcmp(dx, "[unknown]") ? dx : NULL, strcmp(dy, "[unknown]") ? dy : NULL);
			if (!c)
				c = strcmp(dx, dy);
			break;
		case RK_SYM:
			c = named_first(x->sym, y->sym);
			if (!c && x->sym)
				c = strcmp(x->sym, y->sym);
			break;
		}
	}
	/* perf's _sort__addr_cmp(): the sign of the difference (a kernel
	 * address comes before a user one) */
	if (!c)
		c = (int64_t)(x->addr - y->addr) < 0 ? -1 : x->addr != y->addr;
	return c ? c : memcmp(x->key, y->key, sizeof(x->key));
}

/*
 * A line of the table: the entries of one set of keys, one per event of the
 * table (one event, or the members of an event group: perf report's group
 * view, a column per member). e is one of them, for the keys.
 */
#define GROUP_MAX 16
struct row {
	const struct entry *e;
	const struct entry *m[GROUP_MAX]; /* member k's entry, or NULL */
};

static int sort_nr; /* the members of the table being sorted */

static uint64_t row_val(const struct row *w, int k, bool children)
{
	const struct entry *x = w->m[k];

	return x ? (children ? x->children : x->self) : 0;
}

/* perf's order (__hpp__sort_acc, then __hpp__sort): the first event's
 * children, equal ones caller first, then self (each member in turn, the
 * first event's first), then the keys. */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = *(struct row *const *)a, *y = *(struct row *const *)b;
	const struct entry *lx = x->m[0] ? x->m[0] : x->e, *ly = y->m[0] ? y->m[0] : y->e;
	uint64_t vx, vy;
	int k;

	if (sort_r->children && (vx = row_val(x, 0, true)) != (vy = row_val(y, 0, true)))
		return vx > vy ? -1 : 1;
	/* perf puts a caller above its callee when their children are equal: of
	 * one thread, the entry with fewer frames above it first */
	if (sort_r->callers_first && lx->tid == ly->tid && lx->depth != ly->depth)
		return lx->depth < ly->depth ? -1 : 1;
	for (k = 0; k < sort_nr; k++)
		if ((vx = row_val(x, k, false)) != (vy = row_val(y, k, false)))
			return vx > vy ? -1 : 1;
	return cmp_keys(sort_r, x->e, y->e);
}

static int cmp_key_event(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : (x->event > y->event) - (x->event < y->event);
}

/* The text of key k of entry e, into buf. */
static const char *key_text(const struct report *r, enum rkey k, const struct entry *e, char *buf, size_t len)
{
	switch (k) {
	case RK_SYM:
		if (e->sym)
			snprintf(buf, len, "[%c] %s", e->kernel ? 'k' : '.', e->sym);
		else
			snprintf(buf, len, "[%c] %#.16" PRIx64, e->kernel ? 'k' : '.', e->addr);
		return buf;
	case RK_DSO:
		return ans_intern_get(r->strs, e->dso);
	case RK_COMM:
		return ans_intern_get(r->strs, e->comm);
	case RK_PID:
		snprintf(buf, len, "%7d:%s", (int)e->pid, ans_intern_get(r->strs, e->pid_comm));
		return buf;
	}
	return "";
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void print_chains(const struct report *r, const struct entry *e, uint64_t total)
{
	size_t i, n = 0, k;
	struct chain_ent **v;
	uint32_t idx = (uint32_t)(e - r->v) + 1;

	for (i = 0; i < r->nchains; i++)
		if (r->chains[i].entry == idx)
			n++;
	if (!n || !(v = malloc(n * sizeof(*v))))
		return;
	for (i = 0, k = 0; i < r->nchains; i++)
		if (r->chains[i].entry == idx)
			v[k++] = &r->chains[i];
	/* by period, descending (insertion sort: few chains per entry pass the threshold) */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && v[k]->period > v[k - 1]->period; k--) {
			struct chain_ent *t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (i = 0; i < n; i++) {
		/* perf's default call-graph threshold: 0.5% */
		if (pct(v[i]->period, total) < 0.5)
			break;
		printf("            %6.2f%% %s\n", pct(v[i]->period, total), ans_intern_get(r->strs, v[i]->chain));
	}
	if (i)
		putchar('\n');
	free(v);
}

/* A one-item filter list: its item, else NULL. */
static const char *single(const char *list)
{
	return list && *list && !strchr(list, ',') ? list : NULL;
}

/*
 * perf's sort__setup_elide(): a key a one-item --comm, --dso or --symbols
 * list leaves one value is not shown as a column but said once in the
 * header ("# comm: sh"), unless that would hide every key.
 */
static void set_elide(struct report *r)
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
	if (!shown) {
		memset(r->elide, 0, sizeof(r->elide));
		return;
	}
	for (i = 0; i < r->nkeys; i++)
		if (r->elide[i])
			printf("# %s: %s\n", r->keys[i] == RK_COMM ? "comm" : r->keys[i] == RK_DSO ? "dso" : "symbol",
			       r->keys[i] == RK_COMM ? r->o->comms : r->keys[i] == RK_DSO ? r->o->dsos : r->o->syms);
}

/* The totals an event's percentages are of: all its samples (perf's
 * --percentage absolute, the default), or those the filters keep. */
static struct event_tot shown_tot(const struct report *r, int ev)
{
	struct event_tot t = r->tot[ev];

	if (r->o->relative) {
		t.samples = t.kept_samples;
		t.period = t.kept_period;
	}
	return t;
}

/*
 * The table of one event, or of an event group (nr members from event ev):
 * perf report --stdio's header (samples and event count of the members
 * together) and a line per row, a percentage column per member (the leader
 * "%9.2f%%", the others "%7.2f%%" right after it), each of its own event's
 * period.
 */
static void print_table(const struct report *r, const char *title, int ev, int nr, struct row **rows, size_t n,
			uint64_t lost)
{
	struct event_tot t[GROUP_MAX], all = { 0 };
	int width[RK_MAX], i, k, last, wide = 8 * (nr - 1);
	char buf[512], unit = ' ';
	uint64_t ns;
	size_t j;

	for (k = 0; k < nr; k++) {
		t[k] = shown_tot(r, ev + k);
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
		for (j = 0; j < n; j++) {
			int w = (int)strlen(r->keys[i] == RK_COMM ? ans_intern_get(r->strs, rows[j]->e->pid_comm)
								    : key_text(r, r->keys[i], rows[j]->e, buf, sizeof(buf)));

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
			printf(k ? "%7.2f%%" : "%9.2f%%", pct(row_val(w, k, true), t[k].period));
		for (k = 0; k < nr; k++) {
			printf(k ? "%7.2f%%" : r->children ? "  %7.2f%%" : "%9.2f%%", pct(row_val(w, k, false), t[k].period));
		}
		for (k = 0; r->o->show_samples && k < nr; k++)
			printf(k ? "%12" PRIu64 : "  %12" PRIu64, w->m[k] ? w->m[k]->self_samples : 0);
		for (i = 0; i < r->nkeys; i++) {
			const char *text;

			if (r->elide[i])
				continue;
			text = key_text(r, r->keys[i], w->e, buf, sizeof(buf));
			if (r->keys[i] == RK_COMM)
				printf("  %-*.*s", i < last ? width[i] : 0, width[i], text);
			else
				printf("  %-*s", i < last ? width[i] : 0, text);
		}
		putchar('\n');
		if (r->o->callchains && w->m[0])
			print_chains(r, w->m[0], t[0].period);
	}
	printf("\n\n");
}

static void print_event_json(const struct report *r, const char *name, int ev, struct entry **list, size_t n,
			     uint64_t lost)
{
	const struct event_tot tot = shown_tot(r, ev), *t = &tot;
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
		const struct entry *x = list[j];

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
					pd_emit_str(&e, "dso", ans_intern_get(r->strs, x->dso));
				dso_done = true;
				break;
			case RK_COMM:
				pd_emit_str(&e, "comm", ans_intern_get(r->strs, x->comm));
				break;
			case RK_PID:
				pd_emit_i64(&e, "pid", (int32_t)x->pid);
				if (r->keys[0] != RK_COMM)
					pd_emit_str(&e, "comm", ans_intern_get(r->strs, x->pid_comm));
				break;
			}
		}
		if (r->children) {
			pd_emit_f64(&e, "children", pct(x->children, t->period), 4);
			pd_emit_u64(&e, "children_period", x->children);
		}
		pd_emit_f64(&e, "self", pct(x->self, t->period), 4);
		pd_emit_u64(&e, "self_period", x->self);
		pd_emit_u64(&e, "self_samples", x->self_samples);
		pd_emit_obj_end(&e);
	}
	pd_emit_arr_end(&e);
	pd_emit_end(&e);
}

/*
 * The rows of the table of events ev .. ev + nr - 1: their entries, those of
 * equal keys in one row (list: scratch for r->n entries). A row shows when
 * one of its entries has an overhead and the first event's is at least
 * --percent-limit. Returns the count; rowp points into rows.
 */
static size_t collect_rows(const struct report *r, int ev, int nr, struct entry **list, struct row *rows,
			   struct row **rowp)
{
	size_t j, m = 0, n = 0;

	for (j = 0; j < r->n; j++)
		if (r->v[j].event >= ev && r->v[j].event < ev + nr && overhead(r, &r->v[j]))
			list[m++] = &r->v[j];
	if (nr > 1)
		qsort(list, m, sizeof(*list), cmp_key_event);
	for (j = 0; j < m; j++) {
		struct row *w = &rows[n];

		if (!j || nr == 1 || memcmp(list[j]->key, list[j - 1]->key, sizeof(list[j]->key))) {
			memset(w, 0, sizeof(*w));
			w->e = list[j];
			rowp[n++] = w;
		} else {
			w = rowp[n - 1];
		}
		w->m[list[j]->event - ev] = list[j];
	}
	for (j = 0, m = 0; j < n; j++)
		if (pct(rowp[j]->m[0] ? overhead(r, rowp[j]->m[0]) : 0, shown_tot(r, ev).period) >= r->o->percent_limit)
			rowp[m++] = rowp[j];
	return m;
}

/* The group event ev belongs to (one of two events or more), or NULL. */
static const struct ans_group *group_of(const struct ans_group *g, int n, int ev)
{
	for (; n > 0; n--, g++)
		if ((uint32_t)ev >= g->leader && (uint32_t)ev - g->leader < g->nr && g->nr > 1)
			return g;
	return NULL;
}

/* perf's evsel__group_desc(): "events 'NAME { a, b }'" ("anon group" unnamed). */
static void group_title(const struct ans_reader *rd, const struct ans_group *g, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "events '%s {", g->name[0] ? g->name : "anon group");
	uint32_t k;

	for (k = 0; k < g->nr && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s %s", k ? "," : "", ans_event_name(rd, (int)(g->leader + k)));
	if (o < len)
		snprintf(buf + o, len - o, " }'");
}

/*
 * The file's event groups (perf record -e '{a,b}'), which perf report shows
 * as one table each; its totals extended to every event of them. A group
 * description that does not fit the file's events is said once and not
 * used (each event its own table). The count, or -1 out of memory.
 */
static int read_groups(const char *cmd, const char *path, const struct ans_reader *rd, struct report *r,
		       struct ans_group *g, int max)
{
	const struct perfring_perfdata *pd = ans_perfdata(rd);
	int nattrs = perfring_perfdata_attr_cnt(pd), n, i;
	const void *data;
	size_t len;
	char err[200];

	if (perfring_perfdata_feature(pd, 17 /* HEADER_GROUP_DESC */, &data, &len))
		return 0;
	n = ans_groups_parse(data, len, perfring_perfdata_is_swapped(pd), (uint32_t)nattrs, g, max, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "perfring %s: warning: %s: %s: events shown one by one\n", cmd, path, err);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (g[i].nr > GROUP_MAX)
			return 0; /* wider than a table: one by one */
	if (nattrs > r->ntot) {
		struct event_tot *t = realloc(r->tot, (size_t)nattrs * sizeof(*t));

		if (!t)
			return -1;
		memset(t + r->ntot, 0, (size_t)(nattrs - r->ntot) * sizeof(*t));
		r->tot = t;
		r->ntot = nattrs;
	}
	return n;
}

int ans_report_run(const char *cmd, const char *path, const struct ans_report_opts *opts)
{
	bool table_off = false;
	struct report r = { .o = opts };
	struct ans_opts aopts = { .inlines = opts->exports.inline_frames };
	struct ans_export *x = NULL;
	struct entry **list = NULL;
	struct row *rows = NULL, **rowp = NULL;
	struct ans_group groups[64];
	struct ans_reader *rd;
	struct ans_sample a;
	int ret, ev, status = EXIT_OK, i, k, ngroups = 0;
	size_t j, n;
	bool any_chain = false, decided = false;

	if (parse_sort(&r, opts->sort ? opts->sort : "comm,dso,sym"))
		return tool_usage_error(cmd, "bad --sort '%s' (keys: sym, dso, comm, pid)", opts->sort);
	rd = ans_open(cmd, path, &aopts);
	if (!rd)
		return EXIT_ERROR;
	r.strs = ans_intern_new();
	if (!r.strs) {
		ans_close(rd);
		return tool_error(cmd, "out of memory");
	}
	if (ans_export_wanted(&opts->exports) && !(x = ans_export_new(cmd, &opts->exports))) {
		status = EXIT_ERROR;
		goto out;
	}
	while ((ret = ans_next(rd, &a)) > 0) {
		if (!decided) {
			/* At the first sample: in pipe mode the events come as records before it. */
			for (i = 0; i < perfring_perfdata_attr_cnt(ans_perfdata(rd)); i++) {
				const struct perfring_perfdata_attr *at = perfring_perfdata_attr(ans_perfdata(rd), i);

				if (at && (at->cfg.sample_type & PERF_SAMPLE_CALLCHAIN))
					any_chain = true;
			}
			r.children = opts->children < 0 ? any_chain : opts->children;
			r.callers_first = r.children && any_chain;
			decided = true;
		}
		if (add_sample(&r, &a)) {
			status = tool_error(cmd, "out of memory");
			goto out;
		}
		/* the exports take the samples the table counts */
		if (x && keep_sample(opts, &a) && ans_export_add(x, rd, &a)) {
			status = EXIT_ERROR;
			goto out;
		}
	}
	if (ret < 0) {
		status = EXIT_ERROR;
		goto out;
	}
	if (name_pids(&r, rd)) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (!r.ntot) {
		status = tool_error(cmd, "%s: the file has no samples", path);
		goto out;
	}
	/* An export written to standard output ('-') owns it: no table beside it. */
	table_off = ans_export_to_stdout(&opts->exports);
	list = malloc((r.n ? r.n : 1) * sizeof(*list));
	rows = malloc((r.n ? r.n : 1) * sizeof(*rows));
	rowp = malloc((r.n ? r.n : 1) * sizeof(*rowp));
	if (!list || !rows || !rowp) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (!opts->json && !table_off && !opts->quiet) {
		printf("# perfring report of %s\n#\n", path);
		set_elide(&r);
	}
	if (!opts->json && !table_off)
		ngroups = read_groups(cmd, path, rd, &r, groups, sizeof(groups) / sizeof(groups[0]));
	if (ngroups < 0) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	for (ev = 0; ev < r.ntot && !table_off; ev++) {
		const struct ans_group *g = group_of(groups, ngroups, ev);
		int nr = g ? (int)g->nr : 1;
		char title[512];

		if (g && (uint32_t)ev != g->leader)
			continue; /* shown in its leader's table */
		for (k = 0, n = 0; k < nr; k++)
			n += r.tot[ev + k].samples;
		if (!n)
			continue;
		n = collect_rows(&r, ev, nr, list, rows, rowp);
		sort_r = &r;
		sort_nr = nr;
		qsort(rowp, n, sizeof(*rowp), cmp_row);
		if (opts->json) {
			for (j = 0; j < n; j++)
				list[j] = (struct entry *)rowp[j]->e;
			print_event_json(&r, ans_event_name(rd, ev), ev, list, n, ans_lost_samples(rd));
			continue;
		}
		if (g)
			group_title(rd, g, title, sizeof(title));
		else
			snprintf(title, sizeof(title), "event '%s'", ans_event_name(rd, ev));
		print_table(&r, title, ev, nr, rowp, n, ans_lost_samples(rd));
	}
	fflush(stdout);
	if (ferror(stdout))
		status = tool_error(cmd, "writing the output failed");
	if (x) {
		int xs = ans_export_finish(x, rd, path);

		x = NULL;
		if (xs)
			status = xs;
	}
out:
	ans_warnings(rd, cmd, path);
	ans_export_free(x);
	free(list);
	free(rows);
	free(rowp);
	free(r.v);
	free(r.tab);
	free(r.tot);
	free(r.chains);
	free(r.buf);
	free(r.frame_entry);
	ans_intern_free(r.strs);
	ans_close(rd);
	return status;
}

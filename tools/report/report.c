// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report`: samples grouped by sort keys (sym, dso, comm, pid,
 * cpu, trace, in any combination), per event, sorted by overhead, printed
 * as `perf report --stdio` prints them, or as JSON.
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
#include <pthread.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../../src/common/alloc.h"
#include "report/groups.h"
#include "shared/threads.h"
#include "report/report_internal.h"
#include "shared/filter.h"
#include "shared/samples.h"
#include "shared/tracing.h"
#include "shared/tool.h"

const struct rk_name rk_names[RK_MAX] = {
	[RK_SYM] = { "sym", "Symbol", "symbol" },
	[RK_DSO] = { "dso", "Shared Object", "dso" },
	[RK_COMM] = { "comm", "Command", "comm" },
	/* perf's header, 15 wide: the column is at least that, or a comm's length + 8 ("%7d:") */
	[RK_PID] = { "pid", "    Pid:Command", "pid" },
	/* a tracepoint's fields as its format prints them (perf's "trace") */
	[RK_TRACE] = { "trace", "Trace output", "trace" },
	/* the sample's CPU, -1 when the event records none, as perf's sample.cpu */
	[RK_CPU] = { "cpu", "CPU", "cpu" },
	/* where the frame is in the source, "FILE:LINE" (srcline_text()) */
	[RK_SRCLINE] = { "srcline", "Source:Line", "srcline" },
	[RK_DSO_FROM] = { "dso_from", "Source Shared Object", "dso_from" },
	[RK_SYM_FROM] = { "symbol_from", "Source Symbol", "symbol_from" },
	[RK_DSO_TO] = { "dso_to", "Target Shared Object", "dso_to" },
	[RK_SYM_TO] = { "symbol_to", "Target Symbol", "symbol_to" },
	[RK_CYCLES] = { "cycles", "Basic Block Cycles", "cycles" },
};

/* perf report's sort in branch mode (default_branch_sort_order) */
#define BRANCH_SORT "comm,dso_from,symbol_from,symbol_to,cycles"

/*
 * The key a --sort item names: one of ours by its name, else as perf
 * finds it (sort_dimension__add(): the first of its keys, in its order,
 * that the item begins, ignoring case), so "symbol", "sym" and "Sym" are
 * the symbol key. -1: unknown, or one of perf's keys perfring has not.
 */
static int sort_key(const char *p, size_t n)
{
	static const struct {
		const char *name;
		int key;
	} perf_keys[] = {
		/* util/sort.c: the common keys, then branch mode's */
		{ "pid", RK_PID },	     { "comm", RK_COMM },	 { "dso", RK_DSO },
		{ "symbol", RK_SYM },	     { "parent", -1 },		 { "cpu", RK_CPU },
		{ "socket", -1 },	     { "srcline", RK_SRCLINE },	 { "srcfile", -1 },
		{ "local_weight", -1 },	     { "weight", -1 },		 { "transaction", -1 },
		{ "trace", RK_TRACE },	     { "dso_from", RK_DSO_FROM }, { "dso_to", RK_DSO_TO },
		{ "symbol_from", RK_SYM_FROM }, { "symbol_to", RK_SYM_TO }, { "mispredict", -1 },
		{ "in_tx", -1 },	     { "abort", -1 },		 { "cycles", RK_CYCLES },
	};
	size_t i;
	int k;

	for (k = 0; k < RK_MAX; k++)
		if (n == strlen(rk_names[k].name) && !strncmp(p, rk_names[k].name, n))
			return k;
	/* perf has no "tid": its "pid" is the thread (shown TID:COMMAND) */
	if (n == 3 && !strncmp(p, "tid", 3))
		return RK_PID;
	for (i = 0; n && i < sizeof(perf_keys) / sizeof(perf_keys[0]); i++)
		if (n <= strlen(perf_keys[i].name) && !strncasecmp(p, perf_keys[i].name, n))
			return perf_keys[i].key;
	return -1;
}

int report_check_sort(const char *sort, const char **bad, int *badlen)
{
	const char *p = sort, *e;
	int k;

	while (*p) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		k = sort_key(p, (size_t)(e - p));
		if (k < 0) {
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
		k = sort_key(p, (size_t)(e - p));
		if (k < 0)
			return -1;
		for (i = 0; i < r->nkeys; i++)
			if (r->keys[i] == (enum rkey)k)
				break;
		if (i == r->nkeys && r->nkeys < RK_MAX)
			r->keys[r->nkeys++] = k;
		p = *e ? e + 1 : e;
	}
	/* each key's words in an entry's key: a symbol's two (its binary and
	 * name, its start or address), the others' one */
	for (i = 0, r->kwords = 0; i < r->nkeys; i++) {
		r->trace_key |= r->keys[i] == RK_TRACE;
		r->srcline_key |= r->keys[i] == RK_SRCLINE;
		r->koff[i] = (uint8_t)r->kwords;
		r->kwords += r->keys[i] == RK_SYM || r->keys[i] == RK_SYM_FROM || r->keys[i] == RK_SYM_TO ? 2 : 1;
	}
	return r->nkeys ? 0 : -1;
}

/* The key's words the sort keys use (the rest are 0): hashed and compared. */
static uint64_t hash_key(const uint64_t *k, int words, int event)
{
	uint64_t h = (uint64_t)event * 0x9e3779b97f4a7c15ull;
	int i;

	for (i = 0; i < words; i++)
		h = (h ^ k[i]) * 0xff51afd7ed558ccdull, h ^= h >> 32;
	return h;
}

/* Room for one more entry: the array doubles, aligned to a cache line as
 * struct entry asks (realloc() aligns to 16 bytes only). */
static int entries_grow(struct report *r)
{
	size_t cap = r->cap ? r->cap * 2 : 4096;
	struct entry *v = aligned_alloc(_Alignof(struct entry), cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (r->n)
		memcpy(v, r->v, r->n * sizeof(*v));
	free(r->v);
	r->v = v;
	r->cap = cap;
	return 0;
}

/* The hash table made anew with cap slots (a power of two) from r->v. */
static int tab_build(struct report *r, size_t cap)
{
	size_t i, j;
	uint32_t *t = pr_zalloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < r->n; i++) {
		j = hash_key(r->v[i].key, r->kwords, r->v[i].event) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(r->tab);
	r->tab = t;
	r->tab_cap = cap;
	return 0;
}

/*
 * The address perf shows for frame f when its function is unknown: a leaf's
 * (the sampled ip) in its binary, as perf's al->addr (a module's from the
 * module's start: perf maps modules from offset 0), a caller's as recorded.
 */
static uint64_t frame_addr(const struct named_frame *f, bool leaf)
{
	if (!leaf)
		return f->addr;
	return f->kernel && f->mapped && f->module ? f->addr - f->map_start : f->shown_addr;
}

static inline bool same_key(const uint64_t *x, const uint64_t *y, int words)
{
	int i;

	for (i = 0; i < words; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

struct entry *report_entry(struct report *r, const uint64_t *key, int event, bool *made)
{
	struct entry *e;
	size_t j;

	*made = false;
	if ((r->n + 1) * 2 > r->tab_cap && tab_build(r, r->tab_cap ? r->tab_cap * 2 : 4096))
		return NULL;
	j = hash_key(key, r->kwords, event) & (r->tab_cap - 1);
	while (r->tab[j]) {
		e = &r->v[r->tab[j] - 1];
		if (e->event == event && same_key(e->key, key, r->kwords))
			return e;
		j = (j + 1) & (r->tab_cap - 1);
	}
	if (r->n == r->cap && entries_grow(r))
		return NULL;
	e = &r->v[r->n];
	memset(e, 0, sizeof(*e));
	/* only the keys' words are set in key (the rest of e->key stays 0) */
	memcpy(e->key, key, (size_t)r->kwords * sizeof(key[0]));
	e->event = event;
	r->tab[j] = (uint32_t)++r->n;
	*made = true;
	return e;
}

int report_rehash(struct report *r)
{
	size_t cap = 4096;

	while ((r->n + 1) * 2 > cap)
		cap *= 2;
	return tab_build(r, cap);
}

/* The entry of (key, event), created with the frame's display fields; first:
 * where it was made (report_first()). */
static struct entry *get_entry(struct report *r, const uint64_t *key, int event, const struct named_frame *f,
			       bool leaf, int32_t dso, int32_t comm, uint32_t pid, uint32_t tid, uint64_t first)
{
	bool made;
	struct entry *e = report_entry(r, key, event, &made);

	if (!e || !made)
		return e;
	e->sym = f ? f->name : NULL;
	e->object = f && f->name && f->object;
	e->sym_off = f ? f->offset : 0;
	e->trace = r->cur_trace;
	e->addr = f ? frame_addr(f, leaf) : 0;
	e->kernel = f ? f->kernel : false;
	e->dso = dso;
	e->comm = comm;
	e->pid_comm = comm;
	e->pid = pid;
	e->tid = tid;
	e->first = first;
	e->filtered = r->cur_filtered;
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
static int32_t dso_id(struct report *r, const struct named_frame *f)
{
	char name[256];
	long pid;

	if (f->dso[0] == '/' && f->dso[1] == 't' && jit_map_pid(f->dso, &pid)) {
		snprintf(name, sizeof(name), "[JIT] tid %ld", pid);
		return intern_str(r->strs, name);
	}
	if (f->kernel && f->dso[0] == '/' && perfring_kmod_name(f->dso, name, sizeof(name)))
		return intern_str(r->strs, name);
	return intern_ptr(r->strs, short_dso(f->dso));
}

/* The binaries of the file's build-id table, in its order, as the graph's
 * first ones (named as dso_id() names a frame's binary). */
static int graph_table_dsos(struct report *r, const struct perfring_perfdata *pd)
{
	const struct perfring_perfdata_info *info = perfring_perfdata_info(pd);
	const struct perfring_perfdata_build_id *b;
	char name[256];
	uint32_t i;
	int32_t id;

	for (i = 0; info && i < info->nr_build_ids; i++) {
		if (!(b = perfring_perfdata_build_id(pd, i)) || !b->filename)
			continue;
		if (b->pid == -1 && b->filename[0] == '/' && perfring_kmod_name(b->filename, name, sizeof(name)))
			id = intern_str(r->strs, name);
		else
			id = intern_str(r->strs, short_dso(b->filename));
		if (id < 0 || graph_dso_made(r->graph, id, i))
			return -ENOMEM;
	}
	return 0;
}

/*
 * --sort srcline: where frame f of sample a is, as perf 6.1's srcline key
 * shows it. The sample's own entry (leaf): the source line of its address
 * ("FILE:LINE", the file's last part; an inlined function's line, not its
 * call site's), else "FUNCTION+OFFSET" (decimal), else "BINARY[ADDRESS]",
 * else (no map) "??:0". A caller's entry (children): an unwound user frame's
 * line is where it is in its function (an inlined function's frame at the
 * address, its caller's at the call), "??:0" when DWARF has none (perf takes
 * addr2line's answer for the frame); others as the leaf's. (perf 6.1 looks a
 * frame-pointer caller's line up at its address in the process, not in the
 * binary, and shows FUNCTION+OFFSET from there; perfring the caller's line.)
 * raw: a branch target, which perf looks up at its address as recorded (as
 * if in the binary): a relocated one (a shared library's, a PIE's) has no
 * line there, and is FUNCTION+OFFSET from that address, or BINARY[ADDRESS].
 */
static int32_t srcline_id(struct report *r, const struct named_sample *a, const struct named_frame *f, bool leaf,
			  bool raw)
{
	bool moved = raw && f && f->addr != frame_addr(f, true);
	char buf[1024];

	if (!f)
		snprintf(buf, sizeof(buf), "??:0");
	else if (f->file && !moved) {
		const char *slash = strrchr(f->file, '/');

		snprintf(buf, sizeof(buf), "%s:%u", slash ? slash + 1 : f->file, f->line);
	} else if (!leaf && !f->kernel && f->name && f->mapped && a->unwound)
		snprintf(buf, sizeof(buf), "??:0");
	else if (f->name)
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, f->name,
			 moved ? f->addr - (frame_addr(f, true) - f->offset) : f->offset);
	else if ((f->mapped || f->kernel) && strcmp(f->dso, "[unknown]"))
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", short_dso(f->dso), moved ? f->addr : frame_addr(f, true));
	else /* no map holds it */
		snprintf(buf, sizeof(buf), "??:0");
	return intern_str(r->strs, buf);
}

/* The key of frame f (NULL: a sample without frames) in sample a. */
static int frame_key(struct report *r, const struct named_sample *a, const struct named_frame *f, bool leaf,
		     int32_t comm, uint64_t *key, int32_t *dso)
{
	int i;

	memset(key, 0, sizeof(uint64_t) * (size_t)r->kwords);
	*dso = f ? dso_id(r, f) : intern_str(r->strs, "[unknown]");
	if (*dso < 0)
		return -ENOMEM;
	for (i = 0; i < r->nkeys; i++) {
		uint64_t *k = &key[r->koff[i]];

		switch (r->keys[i]) {
		case RK_SYM:
			if (f && f->name) {
				int32_t n = intern_ptr(r->strs, f->name);

				if (n < 0)
					return -ENOMEM;
				/* perf tells symbols apart by binary and start
				 * (_sort__sym_cmp()), not by name: two "@plt" stubs
				 * of one binary are two entries. The start in the
				 * binary, the same in every process. */
				k[0] = ((uint64_t)(uint32_t)*dso << 33) | ((uint64_t)(uint32_t)n << 1) | 1;
				k[1] = f->ksym_reg ? 0 : f->shown_addr - f->offset;
			} else {
				/* perf keeps an unknown symbol by its address alone
				 * (sort__sym_cmp(): two without a symbol compare their
				 * ips, whatever their binaries): in the binary for the
				 * sampled ip (al->addr), as recorded for the callers
				 * (the call chain's ips) */
				k[1] = f ? frame_addr(f, leaf) : 0;
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
		case RK_TRACE:
			k[0] = (uint32_t)r->cur_trace;
			break;
		case RK_CPU:
			k[0] = (uint32_t)a->cpu;
			break;
		case RK_SRCLINE: {
			int32_t id = srcline_id(r, a, f, leaf, false);

			if (id < 0)
				return -ENOMEM;
			k[0] = (uint32_t)id;
			break;
		}
		default: /* the branch keys: add_branch_sample() */
			break;
		}
	}
	return 0;
}

/* Whether s is one of the comma-separated items of list. */
/* perf report's --comm, --pid, --tid filters, on the sample's thread. */
static bool keep_thread(const struct report_opts *o, const struct named_sample *a)
{
	return filter_thread_kept(o->comms, o->pids, o->tids, a->comm, a->s->pid, a->s->tid);
}

/* --dso, --symbols, on the frame an entry is of (NULL: none). */
static bool keep_frame(const struct report_opts *o, const struct named_frame *f)
{
	if (o->dsos && !(f && (filter_in_list(o->dsos, f->dso) || filter_in_list(o->dsos, short_dso(f->dso)))))
		return false;
	return !(o->syms && !(f && f->name && filter_in_list(o->syms, f->name)));
}

/* The filters of perf report --comm, --pid, --tid, --dso, --symbols, on the sample. */
static bool keep_sample(const struct report_opts *o, const struct named_sample *a)
{
	/* perf filters by the sample's own entry (its al) */
	return keep_thread(o, a) && keep_frame(o, samples_own_frame(a));
}

/*
 * The level ([k] or [.]) an entry made from frame j of sample a shows, as
 * perf's children mode gives it: the leaf's own (j 0, leaf); a caller's own
 * where a map holds it, else (perf visits the callers in the chains' order,
 * root first with callers first, and fill_callchain_info() leaves al->level
 * as it was) that of the nearest frame visited before it that a map holds
 * (a caller above it; callee order: a callee below it), else the sample's.
 * Asked only when an entry is made.
 */
static bool frame_level_k(const struct named_sample *a, size_t j, bool leaf, bool caller_order)
{
	size_t i;

	if (leaf)
		return a->frames[0].kernel;
	if (caller_order) {
		for (i = j; i < a->nframes; i++)
			if (a->frames[i].mapped || a->frames[i].name)
				return a->frames[i].kernel;
	} else {
		for (i = j + 1; i-- > 0;)
			if (a->frames[i].mapped || a->frames[i].name)
				return a->frames[i].kernel;
	}
	return a->own ? a->own->kernel : a->frames[0].kernel;
}

/* The event's totals, grown to hold event ev. */
struct event_tot *report_event_tot(struct report *r, int ev)
{
	if (ev >= r->ntot) {
		struct event_tot *t = realloc(r->tot, (ev + 1) * sizeof(*t));

		if (!t)
			return NULL;
		memset(t + r->ntot, 0, (ev + 1 - r->ntot) * sizeof(*t));
		r->tot = t;
		r->ntot = ev + 1;
	}
	return &r->tot[ev];
}

/*
 * One node of sample a's chain into its entry: frame j (none when the sample
 * has no frames) keyed as the sample's leaf (its address in its binary) or as
 * a caller (as recorded); the leaf's own entry takes the self period; every
 * entry takes the children period once per sample. kernel: the level a new
 * entry shows.
 */
static inline int add_node(struct report *r, const struct named_sample *a, size_t j, bool leaf, int32_t comm,
			   uint32_t *entry, int32_t *dso_out)
{
	/* add_sample_own()'s leaf is the own frame, with or without a chain */
	const struct named_frame *f = a->nframes || (leaf && a->own) ? &a->frames[j] : NULL;
	uint64_t key[KEY_WORDS], period = a->period;
	struct entry *e;
	size_t depth;
	int32_t dso;

	if (frame_key(r, a, f, leaf, comm, key, &dso))
		return -ENOMEM;
	e = get_entry(r, key, a->event, f, leaf, dso, comm, a->s->tid, a->s->tid,
		      report_first(a->seq, leaf ? 0 : j + 1));
	if (!e)
		return -ENOMEM;
	if (e->stamp != r->stamp && !e->children && !e->self_samples && f)
		e->kernel = frame_level_k(a, j, leaf, r->caller_order); /* just made: it shows the level it was made with */
	if (leaf) {
		e->self += period;
		e->self_samples++;
	}
	/* perf's callchain max_depth: the chain appended to the entry, the leaf's
	 * own entry the whole chain, a caller's from it down to the leaf (callee
	 * order: from it up to the root) */
	depth = leaf ? a->nframes : r->caller_order ? j + 1 : a->nframes - j;
	if (depth > e->depth)
		e->depth = (uint32_t)depth;
	if (e->stamp != r->stamp) {
		e->stamp = r->stamp;
		e->children += period;
	}
	*entry = (uint32_t)(e - r->v);
	*dso_out = dso;
	return 0;
}

/* Frame j's function in the graph (dso: its interned binary). */
static inline int graph_frame(struct report *r, const struct named_sample *a, size_t j, int32_t dso, uint32_t *funcs)
{
	return graph_func(r->graph, &a->frames[j], dso, report_first(a->seq, j), &funcs[j]);
}

/*
 * --sort trace: the sample's text, as perf's sort_trace gets it
 * (tep_print_event()'s INFO: the format's print fmt); "N/A" for an event
 * that is not a tracepoint.
 */
static int trace_text(struct report *r, const struct named_sample *a)
{
	const struct perfring_perfdata_attr *at = a->rec->attr;
	char *text;

	if (!at || !at->attr || at->attr->type != PERF_TYPE_TRACEPOINT) {
		r->cur_trace = intern_str(r->strs, "N/A");
		return r->cur_trace < 0 ? -ENOMEM : 0;
	}
	text = tracing_text(r->tracing, at->attr->config, a->s->raw.data, a->s->raw.len, (int)a->s->cpu);
	if (!text)
		return -ENOMEM;
	r->cur_trace = intern_str(r->strs, text);
	free(text);
	return r->cur_trace < 0 ? -ENOMEM : 0;
}

/*
 * A sample whose own entry is not its chain's first frame (named_sample.own:
 * an unwound stack sampled in inlined functions): perf's entry for the
 * sample is the symbol, its call chain starts with the inlined functions,
 * and in children mode every frame of the chain, the first too, is a
 * caller's entry (the sample's own one counted once).
 */
static int add_sample_own(struct report *r, const struct named_sample *a, int32_t comm)
{
	struct named_sample own = *a;
	uint32_t self, *ents = NULL, *funcs = NULL;
	size_t j, n = a->nframes;
	int32_t dso;

	own.frames = (struct named_frame *)a->own; /* add_node() reads frames[0] of it; nframes stays the chain's */
	if (add_node(r, &own, 0, true, comm, &self, &dso))
		return -ENOMEM;
	if (r->graph && n) { /* no chain left (--max-stack 0): no graph, as without one */
		ents = graph_scratch(r->graph, 2 * n);
		if (!ents)
			return -ENOMEM;
		funcs = ents + n;
	}
	for (j = 0; j < n; j++) {
		uint32_t e = self;

		if (r->children && add_node(r, a, j, false, comm, &e, &dso))
			return -ENOMEM;
		if (!r->children)
			dso = dso_id(r, &a->frames[j]);
		if (funcs) {
			ents[j] = e;
			if (dso < 0 || graph_frame(r, a, j, dso, funcs))
				return -ENOMEM;
		}
	}
	return funcs ? graph_sample(r->graph, self, ents, funcs, (uint32_t)n, a->period) : 0;
}

static int add_sample(struct report *r, const struct named_sample *a)
{
	uint64_t period = a->period;
	const struct named_frame *f;
	int32_t comm, dso;
	uint32_t self, *ents = NULL, *funcs = NULL;
	size_t j, n = a->nframes;

	if (!report_event_tot(r, a->event))
		return -ENOMEM;
	r->tot[a->event].samples++;
	r->tot[a->event].period += period;
	/*
	 * --dso and --symbols: perf adds every sample and leaves out the entries
	 * a left-out sample made. machine__resolve() marks the sample's al
	 * filtered by its own frame; hists__add_entry() gives a new entry that
	 * mark and an existing one keeps its own; in children mode
	 * (hist_entry_iter's cumulative entries) the callers' entries are made
	 * from that same al, so they take the sample's mark too.
	 */
	if (!keep_thread(r->o, a))
		return 0;
	r->cur_filtered = !keep_sample(r->o, a);
	if (!r->cur_filtered) {
		r->tot[a->event].kept_samples++;
		r->tot[a->event].kept_period += period;
	}
	r->stamp++;
	comm = intern_str(r->strs, a->comm);
	if (comm < 0 || (r->trace_key && trace_text(r, a)))
		return -ENOMEM;
	if (a->own)
		return add_sample_own(r, a, comm);
	if (add_node(r, a, 0, true, comm, &self, &dso))
		return -ENOMEM;
	if (r->graph && n) {
		ents = graph_scratch(r->graph, 2 * n);
		if (!ents)
			return -ENOMEM;
		funcs = ents + n;
		ents[0] = self;
		if (graph_frame(r, a, 0, dso, funcs))
			return -ENOMEM;
	}
	if (!r->children || !n) {
		/* without children only the sample's entry takes its chain */
		for (j = 1; funcs && j < n; j++) {
			ents[j] = self;
			dso = dso_id(r, &a->frames[j]);
			if (dso < 0 || graph_frame(r, a, j, dso, funcs))
				return -ENOMEM;
		}
		return funcs ? graph_sample(r->graph, self, ents, funcs, (uint32_t)n, period) : 0;
	}
	/*
	 * perf's children mode walks the whole call chain after the leaf's own
	 * entry, the leaf again among it at its recorded address: a leaf without
	 * a symbol whose address in its binary is not that one (a shared
	 * library's) is a second, children-only entry there.
	 */
	f = &a->frames[0];
	/* so is a leaf whose line as a caller's is not its own's (--sort srcline) */
	if (((!f->name && frame_addr(f, true) != f->addr) || r->srcline_key) &&
	    add_node(r, a, 0, false, comm, ents ? &ents[0] : &self, &dso))
		return -ENOMEM;
	for (j = 1; j < n; j++) {
		uint32_t e;

		if (add_node(r, a, j, false, comm, &e, &dso))
			return -ENOMEM;
		if (funcs) {
			ents[j] = e;
			if (graph_frame(r, a, j, dso, funcs))
				return -ENOMEM;
		}
	}
	return funcs ? graph_sample(r->graph, self, ents, funcs, (uint32_t)n, period) : 0;
}

/*
 * One end of a branch, found as perf's ip__resolve_ams() finds it: in the
 * process's maps ('.'), else in the kernel's ('k'), else in none ('H',
 * "[unknown]"). Shown at its address in its binary: a module's from the
 * module's start (perf's module maps start at offset 0), the core
 * kernel's as it is.
 */
static int branch_end(struct report *r, struct samples_reader *rd, uint32_t pid, uint64_t addr, struct named_frame *f,
		      struct branch_end *b)
{
	samples_name_addr(rd, pid, addr, PERF_RECORD_MISC_USER, f);
	b->level = '.';
	if (!f->mapped) {
		samples_name_addr(rd, pid, addr, PERF_RECORD_MISC_KERNEL, f);
		b->level = 'k';
	}
	if (!f->mapped) {
		b->level = 'H';
		f->dso = "[unknown]";
		f->name = NULL;
		f->shown_addr = addr;
	}
	b->sym = f->name;
	b->addr = addr;
	b->shown = frame_addr(f, true);
	b->start = b->shown - f->offset;
	b->dso = dso_id(r, f);
	return b->dso < 0 ? -ENOMEM : 0;
}

/* A key of a branch end: by name (and binary) when known, else by address alone
 * (perf's sort__sym_from_cmp() compares two unknown ones by address). */
static int branch_sym_key(struct report *r, const struct branch_end *b, uint64_t *k)
{
	if (b->sym) {
		int32_t n = intern_ptr(r->strs, b->sym);

		if (n < 0)
			return -ENOMEM;
		k[0] = ((uint64_t)(uint32_t)b->dso << 33) | ((uint64_t)(uint32_t)n << 1) | 1;
		k[1] = b->start;
	} else {
		k[1] = b->addr;
	}
	return 0;
}

/*
 * Branch mode (perf report on a file with branch stacks): each branch of
 * the sample's stack is an entry of weight 1 (perf's "pseudo period": the
 * percentages are of the branches taken, not of the samples). sym and dso
 * are the branch's target, shown with the sample's own level as perf
 * shows them; the branch keys are its two ends and its cycles.
 */
static int add_branch_sample(struct report *r, struct samples_reader *rd, const struct named_sample *a)
{
	const struct perfring_branch_stack *bs = &a->s->branch;
	const struct named_frame *leaf = a->nframes ? &a->frames[0] : NULL;
	struct event_tot *t = report_event_tot(r, a->event);
	struct perfring_branch_entry be;
	struct branch_end from, to;
	struct named_frame ff, tf;
	uint64_t key[KEY_WORDS], i;
	int32_t comm;
	struct entry *e;
	int k;

	if (!t)
		return -ENOMEM;
	if (!(a->s->present & PERF_SAMPLE_BRANCH_STACK) || !bs->nr)
		return 0;
	comm = intern_str(r->strs, a->comm);
	if (comm < 0)
		return -ENOMEM;
	for (i = 0; i < bs->nr; i++) {
		perfring_branch_at(bs, i, &be);
		if (branch_end(r, rd, a->s->pid, be.from, &ff, &from) || branch_end(r, rd, a->s->pid, be.to, &tf, &to))
			return -ENOMEM;
		t->samples++;
		t->period++;
		if (!keep_thread(r->o, a) || !keep_frame(r->o, &tf))
			continue;
		t->kept_samples++;
		t->kept_period++;
		memset(key, 0, sizeof(key[0]) * (size_t)r->kwords);
		for (k = 0; k < r->nkeys; k++) {
			uint64_t *kk = &key[r->koff[k]];
			int err = 0;

			switch (r->keys[k]) {
			case RK_SYM:
			case RK_SYM_TO:
				err = branch_sym_key(r, &to, kk);
				break;
			case RK_SYM_FROM:
				err = branch_sym_key(r, &from, kk);
				break;
			case RK_DSO:
			case RK_DSO_TO:
				kk[0] = (uint32_t)to.dso;
				break;
			case RK_DSO_FROM:
				kk[0] = (uint32_t)from.dso;
				break;
			case RK_COMM:
				kk[0] = (uint32_t)comm;
				break;
			case RK_PID:
				kk[0] = a->s->tid;
				break;
			case RK_TRACE: /* refused in branch mode (decide_branch()) */
				break;
			case RK_SRCLINE: { /* perf's entry is the target's (its al) */
				int32_t id = srcline_id(r, a, &tf, true, true);

				if (id < 0)
					return -ENOMEM;
				kk[0] = (uint32_t)id;
				break;
			}
			case RK_CPU:
				kk[0] = (uint32_t)a->cpu;
				break;
			case RK_CYCLES:
				kk[0] = be.cycles;
				break;
			}
			if (err)
				return err;
		}
		e = get_entry(r, key, a->event, &tf, false, to.dso, comm, a->s->tid, a->s->tid, report_first(a->seq, i));
		if (!e)
			return -ENOMEM;
		if (!e->self_samples) {
			e->kernel = leaf ? leaf->kernel : false; /* the sample's level */
			if (pr_grow(&r->brs, &r->brs_cap, r->nbrs + 1, sizeof(*r->brs)))
				return -ENOMEM;
			e->br = (uint32_t)r->nbrs;
			r->brs[r->nbrs++] = (struct branch){ from, to, be.cycles };
		}
		e->self++;
		e->children++;
		e->self_samples++;
	}
	return 0;
}

/*
 * --sort pid: perf names a process entry by its thread's command at the
 * end of the file (thread__comm_str() when it prints), so a shell that
 * exec'd ls shows as ls. The comm key keeps the name at the sample, but
 * perf sizes its column by that same thread's final command (see
 * print_event_text).
 */
/*
 * --dso, --symbols: what --percentage relative takes as the whole, as perf
 * counts it (hists__inc_filter_stats()): the own samples and period of the
 * entries shown, not of the samples that passed (an entry a left-out sample
 * made hides what later ones that passed added; one that passed made shows
 * what the left-out ones added).
 */
static void filter_totals(struct report *r)
{
	size_t j;
	int ev;

	if (!r->o->dsos && !r->o->syms)
		return;
	for (ev = 0; ev < r->ntot; ev++)
		r->tot[ev].kept_samples = r->tot[ev].kept_period = 0;
	for (j = 0; j < r->n; j++) {
		const struct entry *e = &r->v[j];

		if (!e->filtered && e->event >= 0 && e->event < r->ntot) {
			r->tot[e->event].kept_samples += e->self_samples;
			r->tot[e->event].kept_period += e->self;
		}
	}
}

static int name_pids(struct report *r, const struct samples_reader *rd)
{
	size_t j;
	int i;

	for (i = 0; i < r->nkeys && r->keys[i] != RK_PID && r->keys[i] != RK_COMM; i++)
		;
	if (i == r->nkeys)
		return 0;
	for (j = 0; j < r->n; j++) {
		const char *c = samples_thread_comm(rd, r->v[j].tid);
		int32_t id;

		if (!c)
			continue;
		id = intern_str(r->strs, c);
		if (id < 0)
			return -ENOMEM;
		r->v[j].pid_comm = id;
	}
	return 0;
}

/* The group event ev belongs to (one of two events or more), or NULL. */
static const struct event_group *group_of(const struct event_group *g, int n, int ev)
{
	for (; n > 0; n--, g++)
		if ((uint32_t)ev >= g->leader && (uint32_t)ev - g->leader < g->nr && g->nr > 1)
			return g;
	return NULL;
}

/* perf's evsel__group_desc(): "events 'NAME { a, b }'" ("anon group" unnamed). */
static void group_title(const struct samples_reader *rd, const struct event_group *g, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "events '%s {", g->name[0] ? g->name : "anon group");
	uint32_t k;

	for (k = 0; k < g->nr && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s %s", k ? "," : "", samples_event_name(rd, (int)(g->leader + k)));
	if (o < len)
		snprintf(buf + o, len - o, " }'");
}

/*
 * The file's event groups (perf record -e '{a,b}'), which perf report shows
 * as one table each; its totals extended to every event of them. A group
 * description that does not fit the file's events is said once and not
 * used (each event its own table). The count, or -1 out of memory.
 */
static int read_groups(const char *cmd, const char *path, const struct samples_reader *rd, struct report *r,
		       struct event_group *g, int max)
{
	const struct perfring_perfdata *pd = samples_perfdata(rd);
	int nattrs = perfring_perfdata_attr_cnt(pd), n, i;
	const void *data;
	size_t len;
	char err[200];

	if (perfring_perfdata_feature(pd, 17 /* HEADER_GROUP_DESC */, &data, &len))
		return 0;
	n = groups_parse(data, len, perfring_perfdata_is_swapped(pd), (uint32_t)nattrs, g, max, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "perfring %s: warning: %s: %s: events shown one by one\n", cmd, path, err);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (g[i].nr > GROUP_MAX)
			return 0; /* wider than a table: one by one */
	if (nattrs > 0 && !report_event_tot(r, nattrs - 1))
		return -1;
	return n;
}

/*
 * Branch mode, as perf report decides it: on when an event records branch
 * stacks (perf record -b), unless --no-branch-stack; --branch-stack on a
 * file without them and a branch key outside branch mode are errors.
 * Branch mode's default keys are perf's. 0, or -1 with the error printed.
 */
static int decide_branch(const char *cmd, const char *path, struct report *r, bool any_branch)
{
	int i;

	if (r->o->branch > 0 && !any_branch) {
		tool_error(cmd, "%s: --branch-stack: the file has no branch stacks (record with perf record -b)", path);
		return -1;
	}
	r->branch = r->o->branch < 0 ? any_branch : r->o->branch;
	if (r->branch && !r->o->sort) {
		r->nkeys = 0;
		return parse_sort(r, BRANCH_SORT);
	}
	for (i = 0; i < r->nkeys && r->branch; i++)
		if (r->keys[i] == RK_TRACE) {
			tool_error(cmd, "%s: --sort trace is not a key of branch mode (--no-branch-stack turns it off)",
				   path);
			return -1;
		}
	for (i = 0; i < r->nkeys && !r->branch; i++)
		if (r->keys[i] >= RK_FIRST_BRANCH) {
			tool_error(cmd, "%s: --sort %s is a key of branch mode, and %s", path, rk_names[r->keys[i]].name,
				   any_branch ? "--no-branch-stack turned it off" : "the file has no branch stacks");
			return -1;
		}
	return 0;
}

/*
 * Whether the tables get call graphs: as perf, when the file has call chains
 * (not in branch mode, which counts none), unless -g none; not in JSON, nor
 * when an export owns standard output. Sets the threshold too.
 */
static bool want_graph(const struct report_opts *o, struct report *r, bool any_chain)
{
	if (!o->call_graph || !any_chain || r->branch || o->json || export_to_stdout(&o->exports))
		return false;
	r->graph_min = o->graph_min > 0 ? o->graph_min : o->percent_limit > 0 ? o->percent_limit : 0.5;
	/* perf leaves the entry's own name out of a single root when sorted by symbol first */
	r->sort_sym_first = o->sort && !strncmp(o->sort, "sym", 3);
	return true;
}

/* One reader's pass over the samples into w->r; prints its errors unless quiet. */
struct worker {
	struct report r;
	struct samples_reader *rd;
	struct export *x;
	const char *cmd, *path;
	bool quiet;   /* the second reader: the first says what went wrong (it meets it too) */
	int status;
	pthread_t th;
};

static int worker_oom(const struct worker *w)
{
	return w->quiet ? EXIT_ERROR : tool_error(w->cmd, "out of memory");
}

/* --sort trace: the file's tracepoint formats (in a pipe they came before
 * the first sample); without them the samples' text is empty, said once. */
static int open_tracing(struct worker *w)
{
	const void *data;
	char err[160];
	size_t len;

	if (!samples_tracing_data(w->rd, &data, &len)) {
		if (!w->quiet)
			fprintf(stderr, "perfring %s: warning: %s: no tracing data (HEADER_TRACING_DATA): "
				"--sort trace shows no tracepoint text\n", w->cmd, w->path);
		return 0;
	}
	w->r.tracing = tracing_new(data, len, err, sizeof(err));
	tracing_set_resolver(w->r.tracing, samples_kernel_function, w->rd);
	if (!w->r.tracing && !w->quiet)
		fprintf(stderr, "perfring %s: warning: %s: %s: --sort trace shows no tracepoint text\n", w->cmd,
			w->path, err);
	return 0;
}

/* The events of rd's file that are tracepoints (those known so far). */
static int tracepoint_events(struct samples_reader *rd)
{
	struct perfring_perfdata *pd = samples_perfdata(rd);
	int i, n = 0;

	for (i = 0; i < perfring_perfdata_attr_cnt(pd); i++) {
		const struct perfring_perfdata_attr *at = perfring_perfdata_attr(pd, i);

		n += at && at->attr && at->attr->type == PERF_TYPE_TRACEPOINT;
	}
	return n;
}

/* Every event a tracepoint: perf report's default sort is then "trace". It
 * chooses before reading, so a pipe (its events come later) never has it. */
static bool all_tracepoints(struct samples_reader *rd)
{
	struct perfring_perfdata *pd = samples_perfdata(rd);
	int n = perfring_perfdata_attr_cnt(pd);

	return !perfring_perfdata_is_pipe(pd) && n && tracepoint_events(rd) == n;
}

static int worker_pass(struct worker *w)
{
	struct report *r = &w->r;
	const struct report_opts *opts = r->o;
	struct named_sample a;
	bool any_chain = false, any_branch = false, can_children, decided = false;
	int ret;

	while ((ret = samples_next(w->rd, &a)) > 0) {
		if (!decided) {
			/* At the first sample: in pipe mode the events come as records before it. */
			any_chain = samples_any_event(w->rd, PERF_SAMPLE_CALLCHAIN);
			any_branch = samples_any_event(w->rd, PERF_SAMPLE_BRANCH_STACK);
			if (decide_branch(w->cmd, w->path, r, any_branch) ||
			    (r->trace_key && tracepoint_events(w->rd) && open_tracing(w)))
				return EXIT_ERROR;
			/* perf report's branch mode counts no call chains (cumulate_callchain off);
			 * children need call chains, and perf drops them silently without:
			 * it decides before reading, so a pipe, whose events come as
			 * records, never has them (its report__setup_sample_type()) */
			can_children = any_chain && !perfring_perfdata_is_pipe(samples_perfdata(w->rd));
			r->children = r->branch ? false : opts->children < 0 ? can_children : opts->children && can_children;
			/* perf's __hpp__sort_acc orders equal children by depth only with callchains in use (not -g none) */
			r->callers_first = r->children && any_chain && opts->call_graph != 0;
			/* the chains' order is set before that, from the options:
			 * -g caller|callee, else root first unless --no-children */
			r->caller_order = opts->graph_order >= 0 ? opts->graph_order == 1 : !r->branch && opts->children != 0;
			/* perf says so and prints nothing (exit 0); the table without graphs is more use */
			if (opts->call_graph == 1 && !any_chain && !r->branch && !w->quiet)
				fprintf(stderr, "perfring %s: warning: %s: -g: no event records call chains "
						"(perf record -g): the table has no call graphs\n", w->cmd, w->path);
			if (want_graph(opts, r, any_chain) &&
			    (!(r->graph = graph_new(r->children, r->caller_order)) ||
			     graph_table_dsos(r, samples_perfdata(w->rd))))
				return worker_oom(w);
			decided = true;
		}
		if (r->branch ? add_branch_sample(r, w->rd, &a) : add_sample(r, &a))
			return worker_oom(w);
		/* the exports take the samples the table counts */
		if (w->x && keep_sample(opts, &a) && export_add(w->x, w->rd, &a))
			return EXIT_ERROR;
	}
	return ret < 0 ? EXIT_ERROR : EXIT_OK;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->status = worker_pass(w);
	return NULL;
}

static void report_free(struct report *r)
{
	free(r->v);
	free(r->tab);
	free(r->tot);
	free(r->brs);
	graph_free(r->graph);
	intern_free(r->strs);
	tracing_free(r->tracing);
}

/*
 * A second reader for the other half of the samples, when it pays
 * (samples_two_readers()) and the output cannot tell: no export (it takes the
 * samples in order), no branch stacks. NULL when there is none.
 */
static struct samples_reader *second_reader(const char *cmd, const char *path, const struct report *r,
					struct samples_reader *rd, const struct samples_opts *aopts)
{
	const struct report_opts *opts = r->o;
	struct samples_opts second = *aopts;
	int i;

	if (!samples_two_readers(rd))
		return NULL;
	if (export_wanted(&opts->exports))
		return samples_one_reader(rd, "an export takes the samples in order"), NULL;
	if (opts->branch > 0)
		return samples_one_reader(rd, "branch mode"), NULL;
	for (i = 0; i < r->nkeys; i++)
		if (r->keys[i] >= RK_FIRST_BRANCH)
			return NULL; /* an error the first reader reports */
	if (r->trace_key)
		return samples_one_reader(rd, "--sort trace formats the samples on one reader"), NULL;
	if (samples_any_event(rd, PERF_SAMPLE_BRANCH_STACK))
		return samples_one_reader(rd, "branch mode"), NULL;
	second.share_n = 2;
	second.share_i = 1;
	second.quiet = true;
	return samples_open(cmd, path, &second);
}

/* Two readers' passes, the first on this thread; the second's table merged into the first's. */
static int run_pair(struct worker *w, struct worker *w2)
{
	int err = pthread_create(&w2->th, NULL, worker_main, w2);

	if (err) {
		/* no thread: this reader takes every sample after all */
		samples_close(w2->rd);
		w2->rd = NULL;
		return -1;
	}
	w->status = worker_pass(w);
	pthread_join(w2->th, NULL);
	if (w->status)
		return 0;
	if (w2->status) {
		w->status = tool_error(w->cmd, "%s: the second reader of the file failed", w->path);
		return 0;
	}
	if (report_merge(&w->r, &w2->r))
		w->status = tool_error(w->cmd, "out of memory");
	return 0;
}

/* report_pass()'s status when the file must be read again with renames. */
#define REPORT_AGAIN (-2)

/*
 * The threads the readers' samples found unnamed and a later COMM named:
 * *out (n of them, malloc'd), for reading the file again. 0, or -ENOMEM.
 */
static int collect_renames(struct samples_reader *rd, struct samples_reader *rd2, struct comm_rename **out, size_t *n)
{
	size_t n1 = 0, n2 = 0;
	const struct comm_rename *r1 = samples_comm_renames(rd, &n1), *r2 = rd2 ? samples_comm_renames(rd2, &n2) : NULL;

	*n = 0;
	if (!n1 && !n2)
		return 0;
	*out = malloc((n1 + n2) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	if (n1)
		memcpy(*out, r1, n1 * sizeof(*r1));
	if (n2)
		memcpy(*out + n1, r2, n2 * sizeof(*r2));
	*n = n1 + n2;
	return 0;
}

/*
 * One reading of the file, the report printed; or, on a first reading
 * (found not NULL) whose samples found threads unnamed that a later COMM
 * named, nothing printed, *found set and REPORT_AGAIN: perf report shows
 * those samples by the later name (threads.c), known only then.
 */
static int report_pass(const char *cmd, const char *path, const struct report_opts *opts,
		      const struct comm_rename *renames, size_t nrenames, struct comm_rename **found, size_t *nfound)
{
	bool table_off = false;
	struct worker w = { .r = { .o = opts }, .cmd = cmd, .path = path },
		      w2 = { .r = { .o = opts }, .cmd = cmd, .path = path };
	struct report *r = &w.r;
	struct samples_opts aopts = { .inlines = opts->exports.inline_frames,
				  .inline_entries = !opts->exports.inline_frames,
				  /* perf walks the chains callers first for children (unless
				   * -g callee) and for -g caller or -G */
				  .chain_from_root = opts->graph_order == 1 ||
						     (opts->graph_order == -1 && opts->children != 0),
				  .max_stack = opts->max_stack,
				  .max_stack_set = opts->max_stack_set,
				  .no_demangle = opts->no_demangle,
				  .cpus = opts->cpus,
				  /* the second reading: the first said what went wrong */
				  .quiet = renames != NULL,
				  .renames = renames,
				  .nrenames = nrenames };
	struct entry **list = NULL;
	struct row *rows = NULL, **rowp = NULL;
	struct event_group groups[64];
	struct samples_reader *rd;
	int ev, status = EXIT_OK, k, ngroups = 0, printed;
	size_t n, nall;

	if (parse_sort(r, opts->sort ? opts->sort : "comm,dso,sym"))
		return tool_usage_error(cmd, "bad --sort '%s' (keys: sym, dso, comm, pid, tid, cpu, trace, srcline; in "
					     "branch mode also dso_from, symbol_from, dso_to, symbol_to, cycles)", opts->sort);
	parse_sort(&w2.r, opts->sort ? opts->sort : "comm,dso,sym");
	aopts.lines = r->srcline_key; /* the frames' source lines, from DWARF */
	rd = samples_open(cmd, path, &aopts);
	if (!rd)
		return EXIT_ERROR;
	w.rd = rd;
	if (!opts->sort && all_tracepoints(rd)) {
		/* perf's default for tracepoints alone (get_default_sort_order()) */
		r->nkeys = w2.r.nkeys = 0;
		parse_sort(r, "trace");
		parse_sort(&w2.r, "trace");
	}
	r->strs = intern_new();
	if (!r->strs) {
		samples_close(rd);
		return tool_error(cmd, "out of memory");
	}
	if (export_wanted(&opts->exports) && !(w.x = export_new(cmd, &opts->exports))) {
		status = EXIT_ERROR;
		goto out;
	}
	w.quiet = renames != NULL;
	w2.rd = second_reader(cmd, path, r, rd, &aopts);
	w2.quiet = true;
	if (w2.rd && !(w2.r.strs = intern_new())) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (w2.rd) {
		samples_share(rd, 2, 0, 1);
		if (run_pair(&w, &w2)) {
			samples_share(rd, 1, 0, 1);
			w.status = worker_pass(&w);
		}
	} else {
		w.status = worker_pass(&w);
	}
	status = w.status;
	if (status)
		goto out;
	if (found && collect_renames(rd, w2.rd, found, nfound)) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (found && *nfound) {
		status = REPORT_AGAIN;
		goto out;
	}
	if (!opts->quiet) /* as perf's -q, which says nothing of what was lost */
		samples_lost_warnings(rd, cmd, path);
	if (r->graph && graph_build(r, r->graph_min)) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (name_pids(r, rd)) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	filter_totals(r);
	if (!r->ntot) {
		status = samples_bad(rd)
				 ? tool_error(cmd, "%s: the file has no samples that could be decoded (%llu could not)",
					      path, (unsigned long long)samples_bad(rd))
				 : tool_error(cmd, "%s: the file has no samples", path);
		goto out;
	}
	/* An export written to standard output ('-') owns it: no table beside it. */
	table_off = export_to_stdout(&opts->exports);
	list = malloc((r->n ? r->n : 1) * sizeof(*list));
	rows = malloc((r->n ? r->n : 1) * sizeof(*rows));
	rowp = malloc((r->n ? r->n : 1) * sizeof(*rowp));
	if (!list || !rows || !rowp) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	if (!opts->json && !table_off && !opts->quiet) {
		/* after --header's text, which ends as perf's does, no title */
		if (!opts->after_header)
			printf("# perfring report of %s\n#\n", path);
		report_set_elide(r);
	}
	if (!opts->json && !table_off)
		ngroups = read_groups(cmd, path, rd, r, groups, sizeof(groups) / sizeof(groups[0]));
	if (ngroups < 0) {
		status = tool_error(cmd, "out of memory");
		goto out;
	}
	for (ev = 0, printed = 0; ev < r->ntot && !table_off; ev++) {
		const struct event_group *g = group_of(groups, ngroups, ev);
		int nr = g ? (int)g->nr : 1;
		char title[512];

		if (g && (uint32_t)ev != g->leader)
			continue; /* shown in its leader's table */
		for (k = 0, n = 0; k < nr; k++)
			n += r->tot[ev + k].samples;
		if (!n)
			continue;
		n = report_rows(r, ev, nr, list, rows, rowp, &nall);
		if (opts->json) {
			report_print_json(r, samples_event_name(rd, ev), ev, rowp, n, samples_lost(rd));
			continue;
		}
		if (g)
			group_title(rd, g, title, sizeof(title));
		else
			snprintf(title, sizeof(title), "event '%s'", samples_event_name(rd, ev));
		/* perf prints the lost samples once, above the first table */
		report_print_table(r, title, ev, nr, rowp, n, rows, nall, samples_lost(rd), !printed++);
	}
	fflush(stdout);
	if (ferror(stdout))
		status = tool_error(cmd, "writing the output failed");
	if (w.x) {
		int xs = export_finish(w.x, rd, path);

		w.x = NULL;
		if (xs)
			status = xs;
	}
out:
	status = samples_finish(rd, cmd, path, status);
	export_free(w.x);
	free(list);
	free(rows);
	free(rowp);
	report_free(r);
	report_free(&w2.r);
	/* the merged table's names point into the second reader's symbols: it goes last */
	samples_close(rd);
	samples_close(w2.rd);
	return status;
}

int report_run(const char *cmd, const char *path, const struct report_opts *opts)
{
	struct comm_rename *found = NULL;
	size_t nfound = 0;
	int status = report_pass(cmd, path, opts, NULL, 0, &found, &nfound);

	if (status == REPORT_AGAIN)
		status = report_pass(cmd, path, opts, found, nfound, NULL, NULL);
	free(found);
	return status;
}

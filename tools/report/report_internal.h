/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring report`'s parts (internal): report.c groups the samples into
 * entries, report_order.c puts them in perf's order as table rows,
 * report_print.c prints the tables as perf report --stdio or as JSON.
 */
#ifndef PERFRING_TOOL_REPORT_INT_H
#define PERFRING_TOOL_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/intern.h"
#include "report/report.h"

struct named_frame;

/* The branch keys (RK_DSO_FROM on) exist in branch mode only: perf report's
 * view of a file with branch stacks, an entry per branch taken. */
enum rkey {
	RK_SYM, RK_DSO, RK_COMM, RK_PID, RK_TRACE, RK_CPU, RK_SRCLINE,
	RK_DSO_FROM, RK_SYM_FROM, RK_DSO_TO, RK_SYM_TO, RK_CYCLES
};
#define RK_MAX 12
#define RK_FIRST_BRANCH RK_DSO_FROM
/* An entry's key: two words for each symbol key (sym, symbol_from, symbol_to), one for the others;
 * trace is not a key of branch mode, so no --sort needs a word for every key. */
#define KEY_WORDS (RK_MAX + 2)

/* A sort key's name (--sort), column header and JSON field. */
struct rk_name {
	const char *name, *header, *json;
};
extern const struct rk_name rk_names[RK_MAX];

/* One end of a branch, as perf's branch view shows it: the function or the
 * address in its binary, and how it was found: 'k' in the kernel's maps,
 * '.' in the process's, 'H' in none. */
struct branch_end {
	const char *sym;    /* NULL: unknown, shown by address */
	uint64_t addr;      /* as recorded (the sort's) */
	uint64_t shown;     /* in its binary (shown) */
	uint64_t start;     /* the function's address in its binary (sym known), as perf's
			     * sym->start: the same function in two processes' maps is one */
	int32_t dso;        /* interned */
	char level;
};

/* The fields a sample's lookup and update touch come first, the key right
 * after them: with perf's default keys (comm, dso, sym: four words) they
 * fill one cache line, the array being aligned to it (entries_grow()), so
 * a frame's lookup and update miss memory once, not twice. */
struct entry {
	int event;
	uint32_t depth;     /* children: perf's callchain max_depth (frames down to the leaf; a leaf's: all) */
	uint64_t stamp;     /* the last sample that counted it in children */
	uint64_t self, children;
	uint64_t key[KEY_WORDS];
	uint64_t self_samples;
	/* shown */
	const char *sym;    /* NULL: unknown, shown by address */
	uint64_t addr;
	uint64_t sym_off;   /* object: the address's offset in it, shown as perf shows it, NAME+0xOFF */
	bool object;        /* sym is a data object's (named_frame.object) */
	bool kernel;
	int32_t dso, comm;  /* interned */
	int32_t trace;      /* --sort trace: its sample's tracepoint text, interned */
	uint32_t pid;
	uint32_t tid;       /* of its first sample */
	int32_t pid_comm;   /* --sort pid: that thread's name at the end, as perf shows it */
	uint32_t br;        /* branch mode: its branch, r->brs[br] (sym, addr and dso above are its target's) */
	uint64_t first;     /* where it was made: report_first() of that sample and frame */
	bool filtered;      /* made by a sample --dso or --symbols leaves out: not shown */
} __attribute__((aligned(64)));

/* An entry's making, ordered as one pass over the samples makes them: the
 * sample's number in the file, then the frame's place in the walk (the
 * leaf's own entry 0, a caller at chain index j j + 1, a branch its index).
 * Tables merged from readers that shared the samples are put in this order,
 * which is one reader's. */
static inline uint64_t report_first(uint64_t seq, size_t pos)
{
	return seq << 16 | (pos < 0xffff ? pos : 0xffff);
}

/* A branch mode entry's branch (apart: the entries of other modes stay small). */
struct branch {
	struct branch_end from, to;
	uint16_t cycles;
};

struct event_tot {
	uint64_t samples, period;
	uint64_t kept_samples, kept_period; /* of the samples the filters keep */
};

struct report {
	const struct report_opts *o;
	enum rkey keys[RK_MAX];
	int nkeys;
	uint8_t koff[RK_MAX]; /* key i's first word in an entry's key */
	int kwords;           /* the words the keys use */
	bool children;
	bool branch;        /* branch mode: an entry per branch of the samples' branch stacks */
	bool callers_first; /* children with call chains: equal ones caller first (perf's __hpp__sort_acc) */
	bool caller_order;  /* chains root first (perf's callchain_param.order ORDER_CALLER) */
	bool elide[RK_MAX]; /* keys a one-item filter makes the same everywhere: not shown */
	struct intern *strs;
	struct entry *v;
	size_t n, cap;
	uint32_t *tab;      /* entry index + 1 */
	size_t tab_cap;
	struct event_tot *tot;
	int ntot;
	uint64_t stamp;
	/* call graphs (perf's -g graph): NULL when not drawn */
	struct graph *graph;
	double graph_min;    /* percent of the event's period a branch needs to show */
	bool sort_sym_first; /* --sort starts with sym: a graph's single root leaves out its first frame */
	struct branch *brs; /* branch mode: the entries' branches */
	/* --sort trace: the file's tracepoint formats, and the text of the sample being added */
	bool trace_key;
	bool srcline_key; /* --sort srcline: an entry per source line (frame_key()) */
	struct tracing *tracing;
	int32_t cur_trace;
	bool cur_filtered;  /* the sample being added is one --dso or --symbols leaves out */
	size_t nbrs, brs_cap;
};

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

static inline const struct branch *entry_branch(const struct report *r, const struct entry *e)
{
	return &r->brs[e->br];
}

static inline uint64_t report_overhead(const struct report *r, const struct entry *e)
{
	return r->children ? e->children : e->self;
}

/* Row w's self or children of member k (0 when that event has no entry there). */
static inline uint64_t report_row_val(const struct row *w, int k, bool children)
{
	const struct entry *x = w->m[k];

	return x ? (children ? x->children : x->self) : 0;
}

static inline double report_pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* report_order.c: the rows of the table of events ev .. ev + nr - 1 (one
 * event, or an event group), in perf's order; list: scratch for r->n entries.
 * Returns the count; rowp points into rows. */
size_t report_rows(const struct report *r, int ev, int nr, struct entry **list, struct row *rows, struct row **rowp,
		   size_t *nall);

/* report_print.c */
/* The totals an event's percentages are of. */
struct event_tot report_shown_tot(const struct report *r, int ev);
/* Before the tables: which keys a one-item filter hides (said in the header). */
void report_set_elide(struct report *r);

/* report.c: the entry of (key, event), made (zeroed but for the key and
 * event; *made set) when there is none; NULL when out of memory. */
struct entry *report_entry(struct report *r, const uint64_t *key, int event, bool *made);
/* The hash table rebuilt for r->v as it is now (after reordering it). */
int report_rehash(struct report *r);
/* The totals of event ev, made zero when new; NULL when out of memory. */
struct event_tot *report_event_tot(struct report *r, int ev);
/* report_merge.c: the table of another reader's pass over the other
 * samples (same options) added to r, in the order one pass would have made
 * it. from stays as it was. 0 or -ENOMEM. */
int report_merge(struct report *r, const struct report *from);

/* report_graph.c: the call graphs under the entries. A sample leaves
 * its chain (graph_sample(): its self entry, then each frame's entry and
 * function, leaf first; graph_scratch() lends room for them); after the
 * last, graph_build() makes the trees the table's entries show. */
struct graph *graph_new(bool children, bool caller_order);
void graph_free(struct graph *g);
int graph_func(struct graph *g, const struct named_frame *f, int32_t dso, uint64_t first, uint32_t *id);
/* Binary dso is the order-th of the file's build-id table (perf makes those first). */
int graph_dso_made(struct graph *g, int32_t dso, uint32_t order);
uint32_t *graph_scratch(struct graph *g, size_t n);
int graph_sample(struct graph *g, uint32_t self, const uint32_t *ents, const uint32_t *funcs, uint32_t n,
		 uint64_t period);
/* The chains of another pass (its entries numbered here by entry_map, its
 * binaries by dso_map) added; the entries renumbered (entry_map[old]). */
int graph_merge(struct graph *g, const struct graph *from, const uint32_t *entry_map,
		int32_t (*dso_map)(void *ctx, int32_t dso), void *ctx);
int graph_renumber(struct graph *g, const uint32_t *entry_map);
int graph_build(struct report *r, double min_percent);
uint64_t graph_min_hit(const struct report *r, int ev, double min_percent);
void graph_print(const struct report *r, const struct entry *e, double min_percent);
/* A table: of one event (title "event 'NAME'") or of a group's nr events. */
void report_print_table(const struct report *r, const char *title, int ev, int nr, struct row **rows, size_t n,
			const struct row *made, size_t nmade, uint64_t lost, bool lost_line);
/* One event's JSON object. */
void report_print_json(const struct report *r, const char *name, int ev, struct row **rows, size_t n, uint64_t lost);

#endif

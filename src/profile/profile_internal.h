/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The profile's tables, shared by profile.c and the writers (profile_*.c); not installed. */
#ifndef PERFRING_PROFILE_INTERNAL_H
#define PERFRING_PROFILE_INTERNAL_H

#include <stdio.h>
#include <perfring/profile.h>

#include "common/internal.h"

/* Limits that keep one hostile sample from asking for unbounded memory. */
#define PROF_MAX_EVENTS 4096
#define PROF_MAX_FRAMES 65536   /* the kernel's perf_event_max_stack tops out below this */
#define PROF_MAX_LABELS 256
#define PROF_MAX_BUILD_ID 32    /* bytes; perf's build ids are at most 20 */
#define PROF_LOC_CACHE_BITS 12  /* 4096 addresses remembered (16 KiB) */

/* Interned keys: id = index of first insertion, dense from 0. */
struct pr_ikey {
	uint64_t hash;
	uint32_t len, pad;     /* pad: data 8-aligned, keys are structs of uint64_t */
	unsigned char data[];  /* len bytes, then a 0 (string keys are C strings) */
};

struct pr_itab {
	struct pr_ikey **keys;
	size_t n, keys_cap;
	uint64_t *slots;       /* open addressing: id + 1 (0 = empty) | the hash's high 32 bits */
	size_t slot_cap;
};

/* Returns the key's id (>= 0) or -ENOMEM/-EINVAL; *created says whether it is new. */
long pr_prof_itab_get(struct pr_itab *t, const void *data, size_t len, bool *created);

void pr_prof_itab_free(struct pr_itab *t);

/* Keeps the first n keys (ids 0..n-1), frees the others. */
void pr_prof_itab_truncate(struct pr_itab *t, size_t n);

/* The id of a key already in the table, or -1. */
long pr_prof_itab_find(const struct pr_itab *t, const void *data, size_t len);

static inline const void *pr_prof_key(const struct pr_itab *t, size_t id)
{
	return t->keys[id]->data;
}

struct prof_map_key {          /* mapping id in locations: index + 1, 0 = none */
	uint64_t start, limit, pgoff;
	uint32_t file_sid, build_id_sid; /* build id as lowercase hex, "" when unknown */
};

struct prof_func_key {         /* function id in lines: index + 1 */
	uint32_t name_sid, file_sid;
};

struct prof_line {
	uint32_t func, line;
};

struct prof_loc_key {
	uint64_t addr;
	uint32_t map;          /* 0 = no mapping */
	uint32_t kernel;
	uint32_t nlines;       /* 0: an unnamed frame */
	uint32_t pad;
	struct prof_line lines[]; /* innermost (inlined) first, the real function last */
};

struct prof_stack_key {
	uint32_t event, pid, tid, comm_sid;
	uint32_t labels;       /* label set id + 1, 0 = none */
	uint32_t nlocs;
	uint32_t locs[];       /* location indexes, leaf first */
};

/* A label set's key: nlabels (key, value) string id pairs, sorted, so that the same labels
 * given in another order are the same set. */
struct prof_label_key {
	uint32_t key_sid, value_sid;
};

struct prof_vals {
	uint64_t count, period;
};

struct perfring_profile {
	int nevents;
	uint32_t *event_sid;
	struct pr_itab strs, maps, funcs, locs, stacks;
	struct pr_itab labelsets;     /* key: struct prof_label_key[] */
	size_t base_strs;             /* the strings of perfring_profile_new() (reset keeps them) */
	struct prof_vals *stack_vals; /* per stack id */
	size_t vals_cap;
	uint64_t nsamples;
	uint64_t time_min, time_max;  /* perf clock ns; 0 = no times */
	bool has_clock;
	uint64_t clock_perf_ns, clock_epoch_ns;
	struct prof_sampling {
		uint64_t value;       /* 0: unknown */
		bool freq;            /* value is samples per second, else events per sample */
	} *sampling;                  /* per event */
	struct prof_buf *timeline;    /* opts.timeline: a prof_tl_entry per sample, in order; else NULL */
	uint32_t *loc_cache;          /* by address: location id + 1 of the last frame there (0: none) */
	void *scratch;                /* key being built */
	size_t scratch_cap;
	uint32_t *sample_locs;        /* the sample being added: its location ids */
	size_t sample_locs_cap;
};

/* One sample in the order it was added (opts.timeline). */
struct prof_tl_entry {
	uint64_t time, period;
	uint32_t stack, pad;
};

static inline const char *pr_prof_str(const struct perfring_profile *p, uint32_t sid)
{
	return (const char *)p->strs.keys[sid]->data;
}

static inline const struct prof_stack_key *pr_prof_stack(const struct perfring_profile *p, size_t id)
{
	return pr_prof_key(&p->stacks, id);
}

static inline const struct prof_loc_key *pr_prof_loc(const struct perfring_profile *p, uint32_t id)
{
	return pr_prof_key(&p->locs, id);
}

static inline const struct prof_map_key *pr_prof_map(const struct perfring_profile *p, uint32_t map)
{
	return map ? pr_prof_key(&p->maps, map - 1) : NULL;
}

static inline const struct prof_func_key *pr_prof_func(const struct perfring_profile *p, uint32_t func)
{
	return pr_prof_key(&p->funcs, func - 1);
}

/* A growable byte buffer for the encoders; b[len] is always 0 (text reads as a C string).
 * The first failed allocation sets err (-ENOMEM) and later puts do nothing. */
struct prof_buf {
	unsigned char *b;
	size_t len, cap;
	int err;
};

void pr_prof_buf_put(struct prof_buf *b, const void *data, size_t n);

/* Adds v to key's counter: t interns the keys, values holds a uint64_t per id. Returns the
 * key's id or a negative errno. */
long pr_prof_count(struct pr_itab *t, struct prof_buf *values, const void *key, size_t len, uint64_t v);

/* Whether the event counts time in nanoseconds (cpu-clock, task-clock, with or without :modifiers). */
bool pr_prof_event_is_clock(const char *name);

/* The names a frame is shown by in folded stacks and speedscope, as perf
 * script + stackcollapse-perf.pl would show it: the function; an unnamed
 * frame as "[binary's base name]" or "[unknown]". Inlined functions of a
 * location are frames of their own. Calls fn(name, file, arg) outermost
 * first (file: the function's source file, "" when unknown); names are only
 * valid during the call. Returns the first non-zero fn result. */
int pr_prof_loc_names(const struct perfring_profile *p, uint32_t loc, int (*fn)(const char *name, const char *file, void *arg), void *arg);

/* For each location of a profile, the ids its names map to (pr_prof_loc_names(): outermost first):
 * v[loc][0 .. n[loc]). Each location is named once, however many stacks hold it. */
struct prof_loc_ids {
	uint32_t **v, *n;
	size_t nlocs;
};

/* Fills ids: fn(loc, name, file, arg) returns a name's id (>= 0) or a negative errno. 0 or a
 * negative errno (ids then freed). */
int pr_prof_loc_ids(const struct perfring_profile *p, long (*fn)(uint32_t loc, const char *name, const char *file, void *arg),
		 void *arg, struct prof_loc_ids *ids);
void pr_prof_loc_ids_free(struct prof_loc_ids *ids);

/* s as a JSON string; bytes that are not valid UTF-8 become U+FFFD (JSON text must be UTF-8). */
void pr_prof_json_str(FILE *out, const char *s);

/* The name a process's samples are shown under (comm; ":PID" when unknown, as perf). */
const char *pr_prof_comm_name(const struct perfring_profile *p, const struct prof_stack_key *k, char *buf, size_t bufsz);

/* The writers behind perfring_profile_write(): 0 or a negative errno (-EIO: writing out failed). */
int pr_prof_write_folded(const struct perfring_profile *p, uint32_t event, bool by_period, FILE *out);
int pr_prof_write_pprof(const struct perfring_profile *p, FILE *out);
int pr_prof_write_speedscope(const struct perfring_profile *p, const char *title, FILE *out);
int pr_prof_write_firefox(const struct perfring_profile *p, const char *title, FILE *out);

#endif /* PERFRING_PROFILE_INTERNAL_H */

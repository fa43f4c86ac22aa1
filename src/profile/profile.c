// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile: samples counted by (event, pid, tid, comm, labels, stack of
 * locations).
 *
 * Everything a sample names is interned once in a table of its kind
 * (strings, mappings, functions, locations, label sets, stacks;
 * profile_itab.c), so memory grows with the number of distinct items, not
 * with the number of samples: a million samples of the same stack cost one
 * stack entry and two counters. The writers (profile_folded.c,
 * profile_pprof.c, profile_speedscope.c, profile_firefox.c) read the tables
 * through profile_internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_internal.h"

/* ---- the profile ---- */

static long intern_str(struct perfring_profile *p, const char *s)
{
	return pr_prof_itab_get(&p->strs, s ? s : "", s ? strlen(s) : 0, NULL);
}

struct perfring_profile *perfring_profile_new(const struct perfring_profile_opts *opts)
{
	struct perfring_profile *p;
	const char *const *names;
	size_t nevents;
	int err;

	err = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_profile_opts");
	if (err)
		return pr_errno_null(-err);
	names = PR_OPT(opts, event_names, NULL);
	nevents = PR_OPT(opts, nevents, 0);
	if (!names || nevents == 0 || nevents > PROF_MAX_EVENTS)
		return pr_fail_null(EINVAL, "perfring_profile_new: %zu events; give 1 to %d names (opts.event_names)",
				    names ? nevents : 0, PROF_MAX_EVENTS);
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->loc_cache = pr_zalloc((size_t)1 << PROF_LOC_CACHE_BITS, sizeof(*p->loc_cache));
	p->nevents = (int)nevents;
	p->event_sid = calloc(nevents, sizeof(*p->event_sid));
	p->sampling = calloc(nevents, sizeof(*p->sampling));
	if (!p->loc_cache || !p->event_sid || !p->sampling)
		goto nomem;
	if (PR_OPT(opts, timeline, false) && !(p->timeline = calloc(1, sizeof(*p->timeline))))
		goto nomem;
	/* String 0 is "" (pprof requires it). */
	if (intern_str(p, "") != 0)
		goto nomem;
	for (size_t i = 0; i < nevents; i++) {
		long id = intern_str(p, names[i]);

		if (id < 0)
			goto nomem;
		p->event_sid[i] = (uint32_t)id;
	}
	/* perfring_profile_reset() keeps these strings, and only these. */
	p->base_strs = p->strs.n;
	return p;
nomem:
	perfring_profile_free(p);
	return pr_fail_null(ENOMEM, "perfring_profile_new: out of memory");
}

/* The tables of the samples, emptied (freed); the event names stay. */
static void drop_samples(struct perfring_profile *p)
{
	pr_prof_itab_truncate(&p->strs, p->base_strs);
	pr_prof_itab_free(&p->maps);
	pr_prof_itab_free(&p->funcs);
	pr_prof_itab_free(&p->locs);
	pr_prof_itab_free(&p->labelsets);
	pr_prof_itab_free(&p->stacks);
	free(p->stack_vals);
	p->stack_vals = NULL;
	p->vals_cap = 0;
	p->nsamples = 0;
	p->time_min = p->time_max = 0;
	if (p->timeline) {
		free(p->timeline->b);
		*p->timeline = (struct prof_buf){ 0 };
	}
	/* location ids are gone: so are the cache's */
	memset(p->loc_cache, 0, sizeof(*p->loc_cache) << PROF_LOC_CACHE_BITS);
}

void perfring_profile_free(struct perfring_profile *p)
{
	if (!p)
		return;
	if (p->loc_cache)
		drop_samples(p);
	pr_prof_itab_free(&p->strs);
	free(p->event_sid);
	free(p->sampling);
	free(p->scratch);
	free(p->sample_locs);
	free(p->loc_cache);
	free(p->timeline);
	free(p);
}

int perfring_profile_reset(struct perfring_profile *p)
{
	if (!p)
		return pr_fail(EINVAL, "perfring_profile_reset: profile is NULL");
	drop_samples(p);
	return 0;
}

int perfring_profile_set_clock(struct perfring_profile *p, uint64_t clock_ns, uint64_t epoch_ns)
{
	if (!p)
		return pr_fail(EINVAL, "perfring_profile_set_clock: profile is NULL");
	p->clock_perf_ns = clock_ns;
	p->clock_epoch_ns = epoch_ns;
	p->has_clock = true;
	return 0;
}

int perfring_profile_set_sampling(struct perfring_profile *p, uint32_t event, uint64_t value, bool freq)
{
	if (!p || event >= (uint32_t)p->nevents)
		return pr_fail(EINVAL, "perfring_profile_set_sampling: no event %u (the profile has %d)", event,
			       p ? p->nevents : 0);
	p->sampling[event].value = value;
	p->sampling[event].freq = freq;
	return 0;
}

static int scratch_reserve(struct perfring_profile *p, size_t bytes)
{
	return pr_grow(&p->scratch, &p->scratch_cap, bytes, 1);
}

static void hexify(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* Whether a frame says anything of its binary: a mapping holds it, or it names its binary
 * (the kernel, a module: perf's dso without a mapping). "[unknown]" says nothing. */
static bool has_binary(const struct perfring_frame *f)
{
	return f->mapped || (f->dso && *f->dso && strcmp(f->dso, "[unknown]") != 0);
}

/* The mapping of a frame: 0 when nothing is known of it, else its index + 1. */
static long intern_mapping(struct perfring_profile *p, const struct perfring_frame *f)
{
	struct prof_map_key k = { 0 };
	char bid[2 * PROF_MAX_BUILD_ID + 1] = "";
	long id;

	if (!has_binary(f))
		return 0;
	if (f->mapped) {
		k.start = f->map_start;
		k.limit = f->map_end;
		k.pgoff = f->map_pgoff;
	}
	if ((id = intern_str(p, f->dso)) < 0)
		return id;
	k.file_sid = (uint32_t)id;
	if (f->build_id && f->build_id_size)
		hexify(bid, f->build_id, f->build_id_size < PROF_MAX_BUILD_ID ? f->build_id_size : PROF_MAX_BUILD_ID);
	if ((id = intern_str(p, bid)) < 0)
		return id;
	k.build_id_sid = (uint32_t)id;
	id = pr_prof_itab_get(&p->maps, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

static long intern_function(struct perfring_profile *p, const struct perfring_frame *f)
{
	struct prof_func_key k = { 0 };
	long id;

	if ((id = intern_str(p, f->name)) < 0)
		return id;
	k.name_sid = (uint32_t)id;
	if ((id = intern_str(p, f->file)) < 0)
		return id;
	k.file_sid = (uint32_t)id;
	id = pr_prof_itab_get(&p->funcs, &k, sizeof(k), NULL);
	return id < 0 ? id : id + 1;
}

/* One location from frames [i, i + n) of st: the last frame is the real one, the ones before
 * it were inlined into it (innermost first, pprof's order of lines). */
static long intern_location(struct perfring_profile *p, const struct perfring_stack *st, size_t i, size_t n)
{
	const struct perfring_frame *outer = perfring_stack_frame(st, i + n - 1);
	size_t bytes = sizeof(struct prof_loc_key) + n * sizeof(struct prof_line);
	struct prof_loc_key *k;
	long id;

	if (scratch_reserve(p, bytes))
		return -ENOMEM;
	k = p->scratch;
	memset(k, 0, sizeof(*k));
	k->addr = outer->addr;
	k->kernel = outer->kernel;
	if ((id = intern_mapping(p, outer)) < 0)
		return id;
	k->map = (uint32_t)id;
	for (size_t j = 0; j < n; j++) {
		const struct perfring_frame *f = perfring_stack_frame(st, i + j);

		if (!f->name)
			continue; /* an unnamed frame has no line: the address stands for it */
		if ((id = intern_function(p, f)) < 0)
			return id;
		k->lines[k->nlines].func = (uint32_t)id;
		k->lines[k->nlines].line = f->line;
		k->nlines++;
	}
	return pr_prof_itab_get(&p->locs, k, sizeof(*k) + k->nlines * sizeof(struct prof_line), NULL);
}

/* ---- the location cache: most frames repeat, and comparing one with the location its
 * address had last time costs a few string compares instead of seven table lookups ---- */

static size_t cache_slot(uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - PROF_LOC_CACHE_BITS));
}

static bool str_is(const struct perfring_profile *p, uint32_t sid, const char *s)
{
	return strcmp(pr_prof_str(p, sid), s ? s : "") == 0;
}

/* The hex string of a build id as intern_mapping writes it, against the bytes. */
static bool build_id_is(const char *hex, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	if (!b)
		n = 0;
	if (n > PROF_MAX_BUILD_ID)
		n = PROF_MAX_BUILD_ID;
	for (size_t i = 0; i < n; i++)
		if (hex[2 * i] != digits[b[i] >> 4] || hex[2 * i + 1] != digits[b[i] & 15])
			return false;
	return hex[2 * n] == 0;
}

/* The location of a frame with no inlined frames, if the cache holds it; else -1. */
static long cached_location(const struct perfring_profile *p, const struct perfring_frame *f)
{
	uint32_t c = p->loc_cache[cache_slot(f->addr)];
	const struct prof_loc_key *l;
	const struct prof_map_key *m;

	if (!c)
		return -1;
	l = pr_prof_loc(p, c - 1);
	if (l->addr != f->addr || l->kernel != f->kernel || l->nlines != (f->name ? 1u : 0u))
		return -1;
	if (l->nlines) {
		const struct prof_func_key *fn = pr_prof_func(p, l->lines[0].func);

		if (l->lines[0].line != f->line || !str_is(p, fn->name_sid, f->name) || !str_is(p, fn->file_sid, f->file))
			return -1;
	}
	m = pr_prof_map(p, l->map);
	if (!m || !has_binary(f))
		return !m && !has_binary(f) ? (long)c - 1 : -1;
	if (m->start != (f->mapped ? f->map_start : 0) || m->limit != (f->mapped ? f->map_end : 0) ||
	    m->pgoff != (f->mapped ? f->map_pgoff : 0) || !str_is(p, m->file_sid, f->dso) ||
	    !build_id_is(pr_prof_str(p, m->build_id_sid), f->build_id, f->build_id_size))
		return -1;
	return (long)c - 1;
}

/* The stack's locations into p->locs: a frame and the frames inlined into it are one location.
 * Returns how many, or a negative errno. */
static long intern_locations(struct perfring_profile *p, const struct perfring_stack *st)
{
	size_t nlocs = 0;
	long id;

	if (pr_grow(&p->sample_locs, &p->sample_locs_cap, st->nframes, sizeof(*p->sample_locs)))
		return -ENOMEM;
	for (size_t i = 0; i < st->nframes;) {
		const struct perfring_frame *f = perfring_stack_frame(st, i);
		size_t j = i;

		while (j + 1 < st->nframes && perfring_stack_frame(st, j)->inlined)
			j++;
		if (j == i && (id = cached_location(p, f)) >= 0) {
			p->sample_locs[nlocs++] = (uint32_t)id;
			i++;
			continue;
		}
		if ((id = intern_location(p, st, i, j - i + 1)) < 0)
			return id;
		if (j == i)
			p->loc_cache[cache_slot(f->addr)] = (uint32_t)id + 1;
		p->sample_locs[nlocs++] = (uint32_t)id;
		i = j + 1;
	}
	return (long)nlocs;
}

static int cmp_label(const void *a, const void *b)
{
	const struct prof_label_key *x = a, *y = b;

	if (x->key_sid != y->key_sid)
		return x->key_sid < y->key_sid ? -1 : 1;
	return x->value_sid < y->value_sid ? -1 : x->value_sid > y->value_sid;
}

/* The sample's label set: its id + 1, 0 for none, or a negative errno. */
static long intern_labels(struct perfring_profile *p, const struct perfring_profile_label *labels, size_t n)
{
	struct prof_label_key k[PROF_MAX_LABELS];
	long id;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if ((id = intern_str(p, labels[i].key)) < 0)
			return id;
		k[i].key_sid = (uint32_t)id;
		if ((id = intern_str(p, labels[i].value)) < 0)
			return id;
		k[i].value_sid = (uint32_t)id;
	}
	qsort(k, n, sizeof(k[0]), cmp_label);
	id = pr_prof_itab_get(&p->labelsets, k, n * sizeof(k[0]), NULL);
	return id < 0 ? id : id + 1;
}

/* The sample's checks: what perfring_profile_add() says -EINVAL of. */
static int check_sample(const struct perfring_profile *p, const struct perfring_profile_sample *s)
{
	const struct perfring_profile_label *labels;
	const struct perfring_stack *st;
	size_t nlabels;
	int err;

	if (!p || !s)
		return pr_fail(EINVAL, "perfring_profile_add: %s is NULL", p ? "the sample" : "the profile");
	if ((err = pr_opts_check(s, s->sz, sizeof(*s), "perfring_profile_sample")))
		return err;
	/* The fields up to period are a sample; labels came with them but are read as options. */
	if (s->sz < offsetof(struct perfring_profile_sample, labels))
		return pr_fail(EINVAL, "perfring_profile_add: sample sz %zu; set it to sizeof(struct "
				       "perfring_profile_sample) (PERFRING_OPTS_INIT)", s->sz);
	if (s->event >= (uint32_t)p->nevents)
		return pr_fail(EINVAL, "perfring_profile_add: no event %u (the profile has %d)", s->event, p->nevents);
	st = s->stack;
	if (st && st->nframes && (!st->frames || st->frame_sz < sizeof(struct perfring_frame)))
		return pr_fail(EINVAL, "perfring_profile_add: a stack of %zu frames with %s", st->nframes,
			       st->frames ? "frame_sz smaller than struct perfring_frame" : "frames NULL");
	if (st && st->nframes > PROF_MAX_FRAMES)
		return pr_fail(EINVAL, "perfring_profile_add: a stack of %zu frames (at most %d)", st->nframes,
			       PROF_MAX_FRAMES);
	labels = PR_OPT(s, labels, NULL);
	nlabels = PR_OPT(s, nlabels, 0);
	if (nlabels > PROF_MAX_LABELS || (nlabels && !labels))
		return pr_fail(EINVAL, "perfring_profile_add: %zu labels%s (at most %d)", nlabels,
			       labels ? "" : ", labels NULL", PROF_MAX_LABELS);
	for (size_t i = 0; i < nlabels; i++)
		if (!labels[i].key || !labels[i].value)
			return pr_fail(EINVAL, "perfring_profile_add: label %zu has no %s", i,
				       labels[i].key ? "value" : "key");
	return 0;
}

int perfring_profile_add(struct perfring_profile *p, const struct perfring_profile_sample *s)
{
	const struct perfring_stack *st;
	struct prof_stack_key *k;
	long nlocs, labels, comm, id;
	size_t bytes;
	bool created;
	int err;

	if ((err = check_sample(p, s)))
		return err;
	st = s->stack && s->stack->nframes ? s->stack : NULL;
	/* Locations first (they use the scratch), then the stack key in the scratch. */
	nlocs = st ? intern_locations(p, st) : 0;
	if (nlocs < 0)
		goto nomem;
	if ((comm = intern_str(p, s->comm)) < 0 ||
	    (labels = intern_labels(p, PR_OPT(s, labels, NULL), PR_OPT(s, nlabels, 0))) < 0)
		goto nomem;
	bytes = sizeof(*k) + (size_t)nlocs * sizeof(uint32_t);
	if (scratch_reserve(p, bytes))
		goto nomem;
	k = p->scratch;
	memset(k, 0, sizeof(*k));
	k->event = s->event;
	k->pid = s->pid;
	k->tid = s->tid;
	k->comm_sid = (uint32_t)comm;
	k->labels = (uint32_t)labels;
	k->nlocs = (uint32_t)nlocs;
	if (nlocs)
		memcpy(k->locs, p->sample_locs, (size_t)nlocs * sizeof(uint32_t));
	/* Room for one more stack's values before the stack can exist. */
	if (pr_grow(&p->stack_vals, &p->vals_cap, p->stacks.n + 1, sizeof(*p->stack_vals)))
		goto nomem;
	if ((id = pr_prof_itab_get(&p->stacks, p->scratch, bytes, &created)) < 0)
		goto nomem;
	if (created)
		p->stack_vals[id] = (struct prof_vals){ 0 };
	if (p->timeline) {
		struct prof_tl_entry e = { .time = s->time, .period = s->period, .stack = (uint32_t)id };

		pr_prof_buf_put(p->timeline, &e, sizeof(e));
		if (p->timeline->err)
			goto nomem;
	}
	p->stack_vals[id].count++;
	p->stack_vals[id].period += s->period;
	if (s->time) {
		if (!p->time_min || s->time < p->time_min)
			p->time_min = s->time;
		if (s->time > p->time_max)
			p->time_max = s->time;
	}
	p->nsamples++;
	return 0;
nomem:
	return pr_fail(ENOMEM, "perfring_profile_add: out of memory");
}

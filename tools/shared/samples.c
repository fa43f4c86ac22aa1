// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The samples of a perf.data file, their frames named (see samples.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "../../src/common/alloc.h"
#include "shared/intern.h"
#include "shared/samples.h"
#include "shared/threads.h"
#include "shared/pd_common.h"
#include "shared/tool.h"

struct samples_reader {
	const char *cmd, *path;
	struct samples_opts opts;
	struct perfring_perfdata *pd;
	struct perfring_procs *procs;
	struct perfring_stacks *stacks; /* names the frames (the library's profile layer) */
	struct threads *threads;
	struct intern *names_strs; /* strings frames point to that no other object keeps */
	const char **inl_names;    /* by the id of an inlined function's name: "NAME (inlined)" */
	size_t inl_cap;
	/* The events: attr pointers of the file and their names. */
	const struct perfring_perfdata_attr **attrs;
	char **names;
	int nattrs;
	uint64_t bad_samples, lost_samples;
	/* every record read (perf's nr_events[0]), the LOST and SAMPLE ones: its lost-data warnings */
	uint64_t nr_records, nr_lost_records, nr_sample_records;
	struct perfring_perfdata_record rec;
	struct perfring_decoded d;
	struct named_frame *frames;
	size_t frames_cap;
	struct named_frame own; /* named_sample.own */
	const char *last_dso;   /* to_named()'s last dso and its length */
	uint32_t last_dso_len;
	char comm_buf[24];
	void *tracing;      /* pipe mode: a copy of the HEADER_TRACING_DATA payload */
	size_t tracing_len;
	uint8_t *cpu_on;    /* opts.cpus: cpu_on[CPU] for the CPUs asked for, cpu_n of them */
	uint32_t cpu_n;
	/* The live KSYMBOL registrations, by address: each one's number (from 1,
	 * in record order, the same for every reader of the file). */
	struct ksym_reg {
		uint64_t addr;
		uint32_t nr;
	} *kregs;
	size_t nkregs, kregs_cap;
	uint32_t kreg_count;
	/* samples_opts.share: the samples seen (decoded), this reader's among them */
	uint64_t seq;
	/* PERF_SAMPLE_READ: each counter's last value, by id (read_period()) */
	struct read_last {
		uint64_t id, value;
	} *rlast;
	size_t nrlast, rlast_cap; /* rlast_cap: 0 or a power of 2 */
};

static uint32_t kreg_of(const struct samples_reader *r, uint64_t addr);

/* Names of the attrs the file has now (pipe mode adds them as it goes). */
static int sync_attrs(struct samples_reader *r)
{
	int n = perfring_perfdata_attr_cnt(r->pd), i;
	const struct perfring_perfdata_attr **a;
	char **names, buf[64];

	if (n <= r->nattrs)
		return 0;
	/* not pr_grow(): sized to the file's attrs exactly (nattrs is both count
	 * and capacity), each new slot filled below */
	a = realloc(r->attrs, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->attrs = a;
	names = realloc(r->names, n * sizeof(*names));
	if (!names)
		return -ENOMEM;
	r->names = names;
	for (i = r->nattrs; i < n; i++) {
		a[i] = perfring_perfdata_attr(r->pd, i);
		names[i] = strdup(pd_event_name(a[i], buf, sizeof(buf)));
		if (!names[i]) {
			r->nattrs = i;
			return -ENOMEM;
		}
	}
	r->nattrs = n;
	return 0;
}

static int event_index(struct samples_reader *r, const struct perfring_perfdata_attr *a)
{
	int i;

	for (i = 0; i < r->nattrs; i++)
		if (r->attrs[i] == a)
			return i;
	if (sync_attrs(r))
		return -ENOMEM;
	for (i = 0; i < r->nattrs; i++)
		if (r->attrs[i] == a)
			return i;
	return -ENOENT;
}

/* Build ids of files mapped without one (HEADER_BUILD_ID), as perf reads them. */
static void load_build_ids(struct samples_reader *r)
{
	const struct perfring_perfdata_info *info = perfring_perfdata_info(r->pd);
	const struct perfring_perfdata_build_id *b;
	uint32_t i;

	for (i = 0; info && i < info->nr_build_ids; i++) {
		b = perfring_perfdata_build_id(r->pd, i);
		if (!b || !b->filename || !b->size)
			continue;
		perfring_procs_set_build_id(r->procs, b->pid == -1 ? PERFRING_PID_KERNEL : (uint32_t)b->pid,
					    b->filename, b->build_id, b->size);
	}
}

/* PERFRING_THREADS as a number (0 when unset). */
static int threads_asked(void)
{
	const char *env = getenv("PERFRING_THREADS");

	return env ? atoi(env) : 0;
}

/* perf's MAX_NR_CPUS: a larger id is refused, as perf refuses it. */
#define SAMPLES_MAX_CPUS 4096

bool samples_cpus_option(const char *cmd, const char *list)
{
	int cpus[SAMPLES_MAX_CPUS], n, i;

	n = perfring_parse_cpu_list(list, cpus, SAMPLES_MAX_CPUS);
	if (n < 0) {
		tool_usage_error(cmd, "--cpu: '%s' is not a CPU list such as 0-2,5 (%s)", list, perfring_errmsg());
		return false;
	}
	for (i = 0; i < n && i < SAMPLES_MAX_CPUS; i++)
		if (cpus[i] >= SAMPLES_MAX_CPUS) {
			tool_usage_error(cmd, "--cpu: CPU %d is past the %d CPUs a file can have", cpus[i], SAMPLES_MAX_CPUS);
			return false;
		}
	if (n == 0 || n > SAMPLES_MAX_CPUS) {
		tool_usage_error(cmd, "--cpu: '%s' names %s", list, n ? "more CPUs than a file can have" : "no CPU");
		return false;
	}
	return true;
}

/* r->cpu_on from opts.cpus (checked by the caller with samples_cpus_option()). */
static int cpus_init(struct samples_reader *r)
{
	int cpus[SAMPLES_MAX_CPUS], n, i;

	n = perfring_parse_cpu_list(r->opts.cpus, cpus, SAMPLES_MAX_CPUS);
	if (n <= 0 || n > SAMPLES_MAX_CPUS)
		return -EINVAL;
	r->cpu_n = SAMPLES_MAX_CPUS;
	r->cpu_on = calloc(r->cpu_n, 1);
	if (!r->cpu_on)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < SAMPLES_MAX_CPUS)
			r->cpu_on[cpus[i]] = 1;
	return 0;
}

/* The CPU of the sample r holds (named_sample.cpu): -1 when not recorded. */
static int32_t sample_cpu(const struct samples_reader *r)
{
	const struct perfring_sample *s = &r->d.u.sample;

	return s->present & PERF_SAMPLE_CPU ? (int32_t)s->cpu : -1;
}

/* The slot of counter id in r->rlast (id 0 is never one: slots with id 0 are free). */
static struct read_last *read_slot(struct read_last *t, size_t cap, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (cap - 1);

	while (t[i].id && t[i].id != id)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static int read_table_grow(struct samples_reader *r)
{
	size_t cap = r->rlast_cap ? r->rlast_cap * 2 : 64, i;
	struct read_last *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < r->rlast_cap; i++)
		if (r->rlast[i].id)
			*read_slot(t, cap, r->rlast[i].id) = r->rlast[i];
	free(r->rlast);
	r->rlast = t;
	r->rlast_cap = cap;
	return 0;
}

/*
 * perf's period of a sample that reads its counter (PERF_SAMPLE_READ, perf
 * record -e EVENT:S) without PERF_FORMAT_GROUP: what the counter of its id
 * grew since the previous sample of that id (the first: since 0), as
 * perf's deliver_sample_value(). Every sample goes through here, the ones
 * --cpu or a share leaves out too, as perf takes the difference before its
 * filters. 1 with *period set, 0 when the sample has no such value (the
 * period stays the sample's), -ENOMEM.
 */
static int read_period(struct samples_reader *r, uint64_t *period)
{
	const struct perfring_sample *s = &r->d.u.sample;
	struct perfring_read_value v;
	struct read_last *slot;

	if (!(s->present & PERF_SAMPLE_READ) || (s->read.format & PERF_FORMAT_GROUP) ||
	    !(s->read.format & PERF_FORMAT_ID) || s->read.nr != 1)
		return 0;
	perfring_read_value_at(&s->read, 0, &v);
	if (!v.id)
		return 0;
	if ((r->nrlast + 1) * 2 > r->rlast_cap && read_table_grow(r))
		return -ENOMEM;
	slot = read_slot(r->rlast, r->rlast_cap, v.id);
	if (!slot->id) {
		slot->id = v.id;
		r->nrlast++;
	}
	*period = v.value - slot->value;
	slot->value = v.value;
	return 1;
}

/* A sample --cpu leaves out (its CPU is not asked for); -EINVAL, said,
 * when its event records no CPU, as perf refuses such a file. */
static int cpu_skipped(struct samples_reader *r)
{
	int32_t cpu = sample_cpu(r);

	if (cpu < 0) {
		int ev = event_index(r, r->rec.attr);

		if (!r->opts.quiet)
			tool_error(r->cmd, "%s: --cpu: the samples of event '%s' record no CPU (perf record -a or "
				   "--sample-cpu records it)", r->path, ev >= 0 ? r->names[ev] : "?");
		return -EINVAL;
	}
	return (uint32_t)cpu >= r->cpu_n || !r->cpu_on[cpu];
}

/* Whether the functions inlined at frames are named (--inline, or stacks to unwind). */
static bool names_inlines(const struct samples_reader *r)
{
	return r->opts.inlines || samples_any_event(r, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

struct samples_reader *samples_open(const char *cmd, const char *path, const struct samples_opts *opts)
{
	struct perfring_procs_opts popts = { .sz = sizeof(popts), .no_build_ids = true };
	struct perfring_stacks_opts sopts = { .sz = sizeof(sopts) };
	struct perfring_perfdata_opts pdopts = { .sz = sizeof(pdopts), .ordered = true };
	struct samples_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		if (!opts || !opts->quiet)
			tool_error(cmd, "out of memory");
		return NULL;
	}
	r->cmd = cmd;
	r->path = path;
	if (opts)
		r->opts = *opts;
	if (r->opts.cpus && cpus_init(r)) {
		if (!r->opts.quiet)
			tool_error(cmd, "--cpu: '%s': out of memory, or not a CPU list", r->opts.cpus);
		free(r->cpu_on);
		free(r);
		return NULL;
	}
	/* No readahead thread (perfring_perfdata_opts.readahead_thread): on
	 * this 2-CPU host it made reading slower in every order, idle or busy
	 * (make bench, time order: 0.675 of perf report with it, 0.601
	 * without; 1.105 and 0.629 under load), and two readers of a large
	 * file (samples_two_readers()) keep both CPUs busy already. */
	if (r->opts.quiet)
		r->pd = perfring_perfdata_open(path, &pdopts);
	else
		r->pd = pd_open_opts(cmd, path, &pdopts);
	if (!r->pd) {
		free(r);
		return NULL;
	}
	sopts.lines = r->opts.lines;
	sopts.inlines = r->opts.inlines;
	/* unwound stacks name their inlined functions, as perf's do */
	sopts.inline_frames = r->opts.inline_entries && names_inlines(r);
	sopts.kallsyms = r->opts.kallsyms;
	sopts.no_symbols = r->opts.no_symbols;
	sopts.no_demangle = r->opts.no_demangle;
	sopts.chain_from_root = r->opts.chain_from_root;
	/* --max-stack 0: the ip alone */
	sopts.max_stack = !r->opts.max_stack_set ? 0 : r->opts.max_stack > 0 ? r->opts.max_stack : -1;
	r->procs = perfring_procs_new(&popts);
	sopts.procs = r->procs;
	r->stacks = r->procs ? perfring_stacks_new(&sopts) : NULL;
	r->threads = threads_new();
	r->names_strs = intern_new();
	if (!r->procs || !r->stacks || !r->threads || !r->names_strs || sync_attrs(r)) {
		if (!r->opts.quiet)
			tool_error(cmd, "out of memory");
		samples_close(r);
		return NULL;
	}
	threads_set_renames(r->threads, r->opts.renames, r->opts.nrenames);
	load_build_ids(r);
	return r;
}

const struct comm_rename *samples_comm_renames(const struct samples_reader *r, size_t *n)
{
	return threads_renames(r->threads, n);
}

void samples_close(struct samples_reader *r)
{
	int i;

	if (!r)
		return;
	perfring_perfdata_free(r->pd);
	free(r->cpu_on);
	perfring_stacks_free(r->stacks);
	perfring_procs_free(r->procs);
	threads_free(r->threads);
	intern_free(r->names_strs);
	free(r->inl_names);
	for (i = 0; i < r->nattrs; i++)
		free(r->names[i]);
	free(r->names);
	free(r->attrs);
	free(r->frames);
	free(r->kregs);
	free(r->rlast);
	free(r->tracing);
	free(r);
}

/* The "FUNCTION (inlined)" name of an inlined function's frame (its
 * library name fn, which stays at its address), and its id. */
static const char *inlined_name(struct samples_reader *r, const char *fn, int32_t *idp)
{
	int32_t id = intern_ptr(r->names_strs, fn), n;
	char buf[512];

	if (id < 0)
		return NULL;
	if ((size_t)id >= r->inl_cap) {
		size_t old = r->inl_cap;

		/* indexed by id, not appended: the new slots are "not named yet" */
		if (pr_grow(&r->inl_names, &r->inl_cap, (size_t)id + 1, sizeof(*r->inl_names)))
			return NULL;
		memset(r->inl_names + old, 0, (r->inl_cap - old) * sizeof(*r->inl_names));
	}
	if (!r->inl_names[id]) {
		snprintf(buf, sizeof(buf), "%s (inlined)", fn);
		n = intern_str(r->names_strs, buf);
		if (n < 0)
			return NULL;
		r->inl_names[id] = intern_get(r->names_strs, n);
	}
	*idp = id;
	return r->inl_names[id];
}

/* The tool's frame of a library one: perf script's details added (the
 * KSYMBOL registration, the inlined function's shown name). */
static int to_named(struct samples_reader *r, const struct perfring_frame *p, struct named_frame *f)
{
	/* every field set, no memset: a profile converts millions of frames */
	f->addr = p->addr;
	f->shown_addr = p->dso_addr;
	f->name = p->name;
	f->offset = p->offset;
	f->dso = p->dso;
	f->build_id_size = p->build_id && p->build_id_size <= sizeof(f->build_id) ? (uint8_t)p->build_id_size : 0;
	if (f->build_id_size)
		memcpy(f->build_id, p->build_id, sizeof(f->build_id)); /* the library keeps PERFRING_BUILD_ID_MAX bytes */
	f->kernel = p->kernel;
	f->module = p->module;
	f->mapped = p->mapped;
	f->object = p->data;
	f->ksym_reg = p->name && p->source == PERFRING_SYM_KSYMBOL ? kreg_of(r, p->addr - p->offset) : 0;
	f->map_start = p->map_start;
	f->map_end = p->map_end;
	f->map_pgoff = p->map_pgoff;
	f->file = p->file;
	f->line = p->line;
	f->inlined = p->inlines;
	f->ninlined = p->ninlines;
	f->inline_id = 0;
	f->inline_name = NULL;
	f->reason = p->reason;
	if (p->inlined && p->name) {
		int32_t id;

		if (!(f->name = inlined_name(r, p->name, &id)))
			return -ENOMEM;
		f->inline_id = 0x80000000u | (uint32_t)id;
		f->inline_name = p->name;
	}
	f->name_len = f->name ? (uint32_t)strlen(f->name) : 0;
	/* the frames of a stack are mostly in a few binaries: the last one's length at hand */
	if (f->dso != r->last_dso) {
		r->last_dso = f->dso;
		r->last_dso_len = (uint32_t)strlen(f->dso);
	}
	f->dso_len = r->last_dso_len;
	return 0;
}

static int reserve_frames(struct samples_reader *r, size_t n)
{
	return pr_grow(&r->frames, &r->frames_cap, n, sizeof(*r->frames));
}

/* The frames of the sample r holds, named by the library's stacks. */
static int sample_frames(struct samples_reader *r, struct named_sample *out)
{
	struct perfring_stack st;
	size_t i;

	if (perfring_stacks_sample(r->stacks, &r->d, &st) || reserve_frames(r, st.nframes))
		return -ENOMEM;
	for (i = 0; i < st.nframes; i++)
		if (to_named(r, perfring_stack_frame(&st, i), &r->frames[i]))
			return -ENOMEM;
	out->frames = r->frames;
	out->nframes = st.nframes;
	out->unwound = st.unwound;
	if (st.ip_frame) {
		if (to_named(r, st.ip_frame, &r->own))
			return -ENOMEM;
		out->own = &r->own;
		out->own_apart = st.ip_apart;
	}
	return 0;
}

/* Where a registration at addr is (or goes) in r->kregs. */
static size_t kreg_at(const struct samples_reader *r, uint64_t addr)
{
	size_t lo = 0, hi = r->nkregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->kregs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A KSYMBOL record: the registration it adds (numbered) or removes. */
static void kreg_feed(struct samples_reader *r, const struct perfring_rec_ksymbol *k)
{
	size_t i = kreg_at(r, k->addr);
	bool same = i < r->nkregs && r->kregs[i].addr == k->addr;

	if (k->flags & 1) { /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
		if (same) {
			memmove(&r->kregs[i], &r->kregs[i + 1], (r->nkregs - i - 1) * sizeof(*r->kregs));
			r->nkregs--;
		}
		return;
	}
	if (!same) {
		if (pr_grow(&r->kregs, &r->kregs_cap, r->nkregs + 1, sizeof(*r->kregs)))
			return; /* its frames show no registration: one binary with the last */
		memmove(&r->kregs[i + 1], &r->kregs[i], (r->nkregs - i) * sizeof(*r->kregs));
		r->nkregs++;
	}
	r->kregs[i] = (struct ksym_reg){ k->addr, ++r->kreg_count };
}

static uint32_t kreg_of(const struct samples_reader *r, uint64_t addr)
{
	size_t i = kreg_at(r, addr);

	return i < r->nkregs && r->kregs[i].addr == addr ? r->kregs[i].nr : 0;
}

static void feed(struct samples_reader *r)
{
	const struct perfring_decoded *d = &r->d;

	/* The model may refuse a record (out of memory, a bad field): the
	 * samples that follow are then named "[unknown]", as perf does. */
	if (perfring_stacks_feed(r->stacks, d) > 0 && d->type == PERF_RECORD_KSYMBOL)
		kreg_feed(r, &d->u.ksymbol);
	threads_feed(r->threads, d);
}

int samples_next(struct samples_reader *r, struct named_sample *out)
{
	uint64_t seq, read_value = 0;
	int ret, ev, read;

	while ((ret = perfring_perfdata_next(r->pd, &r->rec)) > 0) {
		r->nr_records++;
		r->nr_lost_records += r->rec.type == PERF_RECORD_LOST;
		r->nr_sample_records += r->rec.type == PERF_RECORD_SAMPLE;
		if (r->rec.type == PERFRING_RECORD_HEADER_TRACING_DATA && r->rec.payload_len && !r->tracing) {
			r->tracing = malloc(r->rec.payload_len);
			if (r->tracing) {
				memcpy(r->tracing, r->rec.payload, r->rec.payload_len);
				r->tracing_len = r->rec.payload_len;
			}
		}
		if (r->rec.type >= PERFRING_RECORD_HEADER_ATTR || !r->rec.attr)
			continue;
		if (perfring_record_parse(&r->rec.attr->cfg, r->rec.data, r->rec.size, &r->d) < 0) {
			if (r->rec.type == PERF_RECORD_SAMPLE)
				r->bad_samples++;
			continue;
		}
		if (r->rec.type != PERF_RECORD_SAMPLE) {
			if (r->rec.type == PERF_RECORD_LOST_SAMPLES)
				r->lost_samples += r->d.u.lost_samples.lost;
			feed(r);
			continue;
		}
		read = read_period(r, &read_value);
		if (read < 0) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		if (r->cpu_on) {
			int skip = cpu_skipped(r);

			if (skip < 0)
				return skip;
			if (skip)
				continue; /* perf drops it before anything counts it */
		}
		seq = r->seq++;
		if (r->opts.share_n > 1 &&
		    seq / (r->opts.share_block ? r->opts.share_block : 1) % r->opts.share_n != r->opts.share_i)
			continue; /* another reader's */
		ev = event_index(r, r->rec.attr);
		if (ev < 0) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		memset(out, 0, sizeof(*out));
		out->seq = seq;
		out->rec = &r->rec;
		out->d = &r->d;
		out->s = &r->d.u.sample;
		out->event = ev;
		out->cpu = sample_cpu(r);
		out->event_name = r->names[ev];
		if (out->s->present & PERF_SAMPLE_PERIOD)
			out->period = out->s->period;
		else
			out->period = r->rec.attr->attr ? r->rec.attr->attr->sample_period : 1;
		if (read)
			out->period = read_value;
		out->has_callchain = (r->rec.attr->cfg.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
		out->comm = threads_comm(r->threads, out->s->tid);
		if (!out->comm && out->s->tid == 0)
			out->comm = "swapper"; /* the idle task: perf names it so (its idle thread) */
		if (!out->comm)
			out->comm = threads_unnamed(r->threads, out->s->tid);
		if (!out->comm) {
			snprintf(r->comm_buf, sizeof(r->comm_buf), ":%d", (int)out->s->tid);
			out->comm = r->comm_buf;
		}
		if (sample_frames(r, out)) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		return 1;
	}
	if (ret < 0) {
		if (!r->opts.quiet)
			pd_read_error(r->cmd, r->path, r->pd, ret);
		return ret;
	}
	return 0;
}

const char *samples_thread_comm(const struct samples_reader *r, uint32_t tid)
{
	return threads_comm(r->threads, tid);
}

uint64_t samples_lost(const struct samples_reader *r)
{
	return r->lost_samples;
}

void samples_lost_warnings(const struct samples_reader *r, const char *cmd, const char *path)
{
	uint64_t all = r->nr_sample_records + r->lost_samples;

	if (r->nr_lost_records)
		fprintf(stderr, "perfring %s: warning: %s: Processed %llu events and lost %llu chunks! "
				"Check IO/CPU overload!\n",
			cmd, path, (unsigned long long)r->nr_records, (unsigned long long)r->nr_lost_records);
	/* perf: lost / (samples + lost) > 0.05, the samples of every event, kept or not */
	if (all && (double)r->lost_samples / (double)all > 0.05)
		fprintf(stderr, "perfring %s: warning: %s: Processed %llu samples and lost %3.2f%%!\n", cmd, path,
			(unsigned long long)all, 100.0 * (double)r->lost_samples / (double)all);
}

bool samples_any_event(const struct samples_reader *r, uint64_t bits)
{
	int i;

	for (i = 0; i < perfring_perfdata_attr_cnt(r->pd); i++) {
		const struct perfring_perfdata_attr *at = perfring_perfdata_attr(r->pd, i);

		if (at && (at->cfg.sample_type & bits) == bits)
			return true;
	}
	return false;
}

struct perfring_perfdata *samples_perfdata(const struct samples_reader *r)
{
	return r->pd;
}

int samples_nevents(const struct samples_reader *r)
{
	return r->nattrs;
}

const char *samples_event_name(const struct samples_reader *r, int event)
{
	return event >= 0 && event < r->nattrs ? r->names[event] : "unknown";
}

const struct perf_event_attr *samples_event_attr(const struct samples_reader *r, int event)
{
	return event >= 0 && event < r->nattrs && r->attrs[event] ? r->attrs[event]->attr : NULL;
}

void samples_name_addr(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode, struct named_frame *f)
{
	struct perfring_stack st;

	if (perfring_stacks_addrs(r->stacks, pid, cpumode, &addr, 1, &st) || to_named(r, perfring_stack_frame(&st, 0), f)) {
		memset(f, 0, sizeof(*f)); /* out of memory: unknown */
		f->addr = f->shown_addr = addr;
		f->dso = "[unknown]";
		f->dso_len = 9;
	}
}

const char *samples_kernel_function(void *reader, uint64_t addr, uint64_t *start)
{
	struct named_frame f;

	samples_name_addr(reader, 0, addr, PERF_RECORD_MISC_KERNEL, &f);
	if (!f.name)
		return NULL;
	*start = addr - f.offset;
	return f.name;
}

const char *samples_function_name(const struct samples_reader *r, const char *function)
{
	return perfring_stacks_name(r->stacks, function);
}

bool samples_one_reader(const struct samples_reader *r, const char *why)
{
	if (threads_asked() == 2)
		fprintf(stderr, "perfring %s: PERFRING_THREADS=2: one reader: %s\n", r->cmd, why);
	return false;
}

bool samples_two_readers(const struct samples_reader *r)
{
	struct stat st;

	if (threads_asked() == 1)
		return false;
	if (perfring_perfdata_is_pipe(r->pd))
		return samples_one_reader(r, "the input is a pipe");
	/* A DWARF function without a linkage name is named as addr2line
	 * names it, which depends on the addresses asked before (the
	 * symbolizer's pr_binary_frames()): in the file's order, on one
	 * reader, as perf asks. */
	if (names_inlines(r))
		return samples_one_reader(r, "inlined functions are named in the order of the samples");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return samples_one_reader(r, "one CPU online");
	if (threads_asked() == 2)
		return true;
	/* a small file is read in the time the second reader takes to start
	 * (it loads the kernel's symbols too): one reader, half the CPU. A
	 * sample with a copy of the user stack is some 8 KiB the reader skips
	 * but for the words the unwinding reads, while each reader opens every
	 * binary's DWARF (glibc's debug file: 10 MB to inflate) on its own: a
	 * 78 MB file of 9,600 such samples took twice the CPU and more time
	 * with two readers (scripts/bench_dwarf.sh) */
	return stat(r->path, &st) == 0 &&
	       (uint64_t)st.st_size >= (samples_any_event(r, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
						? SAMPLES_TWO_READERS_MIN_STACKS
						: SAMPLES_TWO_READERS_MIN);
}

void samples_share(struct samples_reader *r, uint32_t n, uint32_t i, uint32_t block)
{
	r->opts.share_n = n;
	r->opts.share_i = i;
	r->opts.share_block = block;
}

uint64_t samples_bad(const struct samples_reader *r)
{
	return r->bad_samples;
}

bool samples_tracing_data(const struct samples_reader *r, const void **data, size_t *len)
{
	if (perfring_perfdata_feature(r->pd, 1, data, len) == 0 && *len)
		return true;
	*data = r->tracing;
	*len = r->tracing_len;
	return r->tracing != NULL;
}

int samples_finish(const struct samples_reader *r, const char *cmd, const char *path, int status)
{
	uint64_t early = perfring_perfdata_early_flushed(r->pd);

	/* One line is the rule: after the fatal error, nothing more. */
	if (status != EXIT_OK)
		return status;
	if (early)
		fprintf(stderr, "perfring %s: warning: %s: time ordering reached its memory bound (no FINISHED_ROUND "
				"for too long): %llu record(s) were delivered before their round ended, so order "
				"may be imperfect\n",
			cmd, path, (unsigned long long)early);
	/* The output lacks them: an error, as perfring(1) says (exit 1). */
	if (r->bad_samples)
		return tool_error(cmd, "%s: %llu sample(s) could not be decoded and were skipped", path,
				  (unsigned long long)r->bad_samples);
	return EXIT_OK;
}

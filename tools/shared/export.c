// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Samples into a profile (the library's perfring/profile.h) and the profile
 * into files: each named_sample's frames become struct perfring_frame, the
 * profile writes folded stacks, pprof, speedscope and Firefox files.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/profile.h>

#include "../../src/common/alloc.h"
#include "shared/export.h"
#include "shared/tool.h"

enum { OUT_FOLDED, OUT_PPROF, OUT_SPEEDSCOPE, OUT_FIREFOX, OUT_N };

static const enum perfring_profile_format out_format[OUT_N] = {
	PERFRING_PROFILE_FOLDED, PERFRING_PROFILE_PPROF, PERFRING_PROFILE_SPEEDSCOPE, PERFRING_PROFILE_FIREFOX
};

static const char *const out_option[OUT_N] = { "--folded", "--pprof", "--speedscope", "--firefox" };

/* The export options' files by OUT_* (NULL: not asked for). */
static void out_paths(const struct export_opts *o, const char *path[OUT_N])
{
	path[OUT_FOLDED] = o->folded;
	path[OUT_PPROF] = o->pprof;
	path[OUT_SPEEDSCOPE] = o->speedscope;
	path[OUT_FIREFOX] = o->firefox;
}

struct export {
	const char *cmd;
	struct export_opts o;
	struct perfring_profile *p;
	int nevents;
	struct perfring_frame *frames;
	size_t cap;
	/* The files, opened by export_new(): a path that cannot be written
	 * fails before the input is read. Indexes: OUT_*. */
	FILE *out[OUT_N];
	const char *path[OUT_N];
	uint64_t time_max;       /* the last sample's time (perf's clock), 0 when none */
};

bool export_option(struct export_opts *o, int c, const char *arg)
{
	switch (c) {
	case EXPORT_OPT_FOLDED:
		o->folded = arg;
		return true;
	case EXPORT_OPT_PPROF:
		o->pprof = arg;
		return true;
	case EXPORT_OPT_SPEEDSCOPE:
		o->speedscope = arg;
		return true;
	case EXPORT_OPT_FIREFOX:
		o->firefox = arg;
		return true;
	case EXPORT_OPT_BY_PERIOD:
		o->by_period = true;
		o->modifiers = true;
		return true;
	case EXPORT_OPT_INLINE:
	case EXPORT_OPT_NO_INLINE:
		o->inline_frames = c == EXPORT_OPT_INLINE;
		o->inline_given = true;
		return true;
	default:
		return false;
	}
}

int export_check(const char *cmd, const struct export_opts *o, bool json)
{
	const char *paths[OUT_N];
	const char *first = json ? "--json" : NULL;
	size_t i;

	out_paths(o, paths);
	for (i = 0; i < OUT_N; i++) {
		if (!paths[i] || strcmp(paths[i], "-"))
			continue;
		if (first) {
			tool_usage_error(cmd, "%s and %s - both want standard output", first, out_option[i]);
			return -1;
		}
		first = out_option[i];
	}
	if (!export_wanted(o) && (o->modifiers || (o->inline_given && !o->listing_inlines))) {
		tool_usage_error(cmd, "%s with an export (--folded, --pprof, --speedscope, --firefox)",
				 o->listing_inlines ? "--by-period goes" : "--by-period, --inline and --no-inline go");
		return -1;
	}
	return 0;
}

bool export_wanted(const struct export_opts *o)
{
	const char *paths[OUT_N];

	out_paths(o, paths);
	for (size_t i = 0; i < OUT_N; i++)
		if (paths[i])
			return true;
	return false;
}

bool export_to_stdout(const struct export_opts *o)
{
	const char *paths[OUT_N];
	size_t i;

	out_paths(o, paths);
	for (i = 0; i < OUT_N; i++)
		if (paths[i] && !strcmp(paths[i], "-"))
			return true;
	return false;
}

static FILE *open_out(const char *cmd, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		tool_error(cmd, "%s: cannot create it: %s", path, strerror(errno));
	return f;
}

struct export *export_new(const char *cmd, const struct export_opts *o)
{
	struct export *x;
	int i;

	x = calloc(1, sizeof(*x));
	if (!x) {
		tool_error(cmd, "out of memory");
		return NULL;
	}
	x->cmd = cmd;
	x->o = *o;
	out_paths(o, x->path);
	for (i = 0; i < OUT_N; i++) {
		if (x->path[i] && !(x->out[i] = open_out(cmd, x->path[i]))) {
			export_free(x);
			return NULL;
		}
	}
	return x;
}

void export_free(struct export *x)
{
	if (!x)
		return;
	perfring_profile_free(x->p);
	/* Files still open were not written (an error came first): none is left half made. */
	for (int i = 0; i < OUT_N; i++) {
		if (x->out[i] && x->out[i] != stdout) {
			fclose(x->out[i]);
			unlink(x->path[i]);
		}
	}
	free(x->frames);
	free(x);
}

/* A profile of events names[0..n); with --firefox it keeps every sample's time too (that
 * profile shows each at its time). NULL when out of memory. */
static struct perfring_profile *new_profile(const struct export *x, const char *const *names, int n)
{
	struct perfring_profile_opts po = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = names,
							     .nevents = (size_t)n, .timeline = x->o.firefox != NULL);

	return perfring_profile_new(&po);
}

static int make_profile(struct export *x, const struct samples_reader *r)
{
	int n = samples_nevents(r), i;
	const char **names = calloc(n ? n : 1, sizeof(*names));

	if (!names)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		names[i] = samples_event_name(r, i);
	x->p = new_profile(x, names, n);
	x->nevents = n;
	free(names);
	return x->p ? 0 : -ENOMEM;
}

/* The frames af stands for, leaf first, into pf (room for 1 + af->ninlined):
 * its inlined functions innermost first, each marked inlined (the next frame
 * is the function it is in), then its own function. Returns how many. */
static size_t export_frames(const struct samples_reader *r, const struct named_frame *af, struct perfring_frame *pf)
{
	size_t n = 0, k;

	memset(pf, 0, sizeof(*pf));
	pf->addr = af->addr;
	pf->name = af->name;
	pf->offset = af->offset;
	pf->dso = af->dso;
	if (af->build_id_size) {
		pf->build_id = af->build_id;
		pf->build_id_size = af->build_id_size;
	}
	pf->cpumode = af->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	pf->kernel = af->kernel;
	pf->mapped = af->mapped;
	if (af->mapped) {
		pf->map_start = af->map_start;
		pf->map_end = af->map_end;
		pf->map_pgoff = af->map_pgoff;
	}
	pf->file = af->file;
	pf->line = af->line;
	if (!af->name || !af->ninlined)
		return 1;
	/* The same address and mapping for each (one pprof Location), named and
	 * lined from DWARF; the function's own line is that of its call site. */
	for (k = 0; k < af->ninlined; k++) {
		const struct perfring_sym_frame *in = &af->inlined[k];

		if (!in->function)
			continue;
		pf[n + 1] = pf[n];
		pf[n].name = samples_function_name(r, in->function);
		pf[n].offset = 0;
		pf[n].file = in->file;
		pf[n].line = in->line;
		pf[n].inlined = true;
		n++;
	}
	pf[n].file = af->inlined[af->ninlined].file;
	pf[n].line = af->inlined[af->ninlined].line;
	pf[n].inlined = false;
	return n + 1;
}

int export_add(struct export *x, const struct samples_reader *r, const struct named_sample *a)
{
	const struct perfring_sample *s = a->s;
	struct perfring_profile_sample ps = { .sz = sizeof(ps) };
	struct perfring_stack st = { .frame_sz = sizeof(struct perfring_frame) };
	size_t i, n = 0, need = a->nframes + 1;
	int err;

	if (!x->p && make_profile(x, r))
		goto nomem;
	if (a->event >= x->nevents)
		return 0; /* an event that appeared after the first sample (pipe mode): not in the profile */
	for (i = 0; i < a->nframes; i++)
		need += a->frames[i].ninlined;
	if (a->own_apart)
		need += a->own->ninlined;
	if (pr_grow(&x->frames, &x->cap, need, sizeof(*x->frames)))
		goto nomem;
	/* the leaf is the sample's own frame, as in perfring report (and
	 * perf report): the sampled ip, when the chain holds only its callers */
	if (a->own_apart)
		n += export_frames(r, a->own, &x->frames[n]);
	for (i = 0; i < a->nframes; i++) {
		const struct named_frame *af = &a->frames[i];

		n += export_frames(r, af, &x->frames[n]);
		/* an unwound stack's inlined function (named_frame.inline_id): its own
		 * name; inlined into the next frame when that is at the same address
		 * (a clone's source name is a function of its own) */
		if (af->inline_id) {
			x->frames[n - 1].name = af->inline_name;
			x->frames[n - 1].inlined = i + 1 < a->nframes && a->frames[i + 1].addr == af->addr;
		}
	}
	ps.pid = s->pid;
	ps.tid = s->tid;
	ps.comm = a->comm;
	ps.time = s->time;
	if (s->time > x->time_max)
		x->time_max = s->time;
	ps.event = (uint32_t)a->event;
	ps.period = a->period;
	st.frames = x->frames;
	st.nframes = n;
	ps.stack = &st;
	err = perfring_profile_add(x->p, &ps);
	if (err == -ENOMEM)
		goto nomem;
	if (err) {
		tool_error(x->cmd, "a sample could not be added to the profile: %s", perfring_errmsg());
		return err;
	}
	return 0;
nomem:
	tool_error(x->cmd, "out of memory");
	return -ENOMEM;
}

static int close_out(const char *cmd, const char *path, FILE *f, int err)
{
	int bad = ferror(f);

	if (f == stdout)
		bad |= fflush(f) != 0;
	else
		bad |= fclose(f) != 0;
	if (err || bad) {
		tool_error(cmd, "%s: writing failed: %s", path, strerror(err ? -err : EIO));
		return -EIO;
	}
	return 0;
}

/* What the file says of time and sampling: its clock's wall-clock reference
 * (HEADER_CLOCK_DATA, perf record -k) and each event's period or frequency.
 * A file without the reference (perf record's default) was written to the
 * end when its recording ended (perf writes the header last): its last
 * sample is tied to the file's modification time, which perf report
 * --header shows as "captured on", so that pprof's time is the recording's
 * within the last flush, not a date in 1970. A pipe has no such time. */
static void describe_recording(struct export *x, const struct samples_reader *r, const char *path)
{
	struct perfring_perfdata *pd = samples_perfdata(r);
	const struct perfring_perfdata_info *info = perfring_perfdata_info(pd);
	struct stat st;
	int i;

	if (info && info->clock_tod_ns)
		perfring_profile_set_clock(x->p, info->clock_ns, info->clock_tod_ns);
	else if (x->time_max && path && strcmp(path, "-") && !perfring_perfdata_is_pipe(pd) && !stat(path, &st) &&
		 S_ISREG(st.st_mode))
		perfring_profile_set_clock(x->p, x->time_max,
					   (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec);
	for (i = 0; i < x->nevents && i < perfring_perfdata_attr_cnt(pd); i++) {
		const struct perfring_perfdata_attr *a = perfring_perfdata_attr(pd, i);

		if (a && a->attr && a->attr->sample_period)
			perfring_profile_set_sampling(x->p, (uint32_t)i, a->attr->sample_period, a->attr->freq);
	}
}

int export_finish(struct export *x, const struct samples_reader *r, const char *title)
{
	static const char *const empty[] = { "none" };
	struct perfring_profile_write_opts wo = PERFRING_OPTS_INIT(perfring_profile_write_opts,
								 .by_period = x->o.by_period, .title = title);
	int ret = EXIT_OK, i;

	if (!x->p) /* no sample: the files are written empty of samples all the same */
		x->p = new_profile(x, empty, 1);
	if (!x->p) {
		ret = tool_error(x->cmd, "out of memory");
		export_free(x);
		return ret;
	}
	if (x->nevents)
		describe_recording(x, r, title);
	for (i = 0; i < OUT_N; i++) {
		FILE *f = x->out[i];
		int err;

		if (!f)
			continue;
		err = perfring_profile_write(x->p, out_format[i], f, &wo);
		x->out[i] = NULL;
		if (close_out(x->cmd, x->path[i], f, err))
			ret = EXIT_ERROR;
	}
	export_free(x);
	return ret ? EXIT_ERROR : EXIT_OK;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Samples into a profile (tools/export/profile.h) and the profile into
 * files. The encoders are linked when their sources are in the tree
 * (the .c files of tools/export/): the profile functions are weak references here, so
 * that the tool builds and says "not available" without them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "answers/ans_export.h"
#include "export/profile.h"
#include "shared/tool.h"

#pragma weak prof_new
#pragma weak prof_free
#pragma weak prof_add
#pragma weak prof_write_folded
#pragma weak prof_write_pprof
#pragma weak prof_write_speedscope

struct ans_export {
	const char *cmd;
	struct ans_export_opts o;
	struct profile *p;
	int nevents;
	struct prof_frame *frames;
	size_t cap;
};

bool ans_export_wanted(const struct ans_export_opts *o)
{
	return o->folded || o->pprof || o->speedscope;
}

struct ans_export *ans_export_new(const char *cmd, const struct ans_export_opts *o)
{
	struct ans_export *x;

	if (!prof_new || !prof_add || !prof_free || !prof_write_folded || !prof_write_pprof || !prof_write_speedscope) {
		tool_error(cmd, "this perfring was built without the profile exports (tools/export/): "
				"--folded, --pprof and --speedscope are not available");
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		tool_error(cmd, "out of memory");
		return NULL;
	}
	x->cmd = cmd;
	x->o = *o;
	return x;
}

void ans_export_free(struct ans_export *x)
{
	if (!x)
		return;
	if (x->p)
		prof_free(x->p);
	free(x->frames);
	free(x);
}

static int make_profile(struct ans_export *x, const struct ans_reader *r)
{
	int n = ans_nevents(r), i;
	const char **names = calloc(n ? n : 1, sizeof(*names));

	if (!names)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		names[i] = ans_event_name(r, i);
	x->p = prof_new(names, n);
	x->nevents = n;
	free(names);
	return x->p ? 0 : -ENOMEM;
}

int ans_export_add(struct ans_export *x, const struct ans_reader *r, const struct ans_sample *a)
{
	const struct perfring_sample *s = a->s;
	struct prof_sample ps = { 0 };
	size_t i;
	int err;

	if (!x->p && make_profile(x, r))
		goto nomem;
	if (a->event >= x->nevents)
		return 0; /* an event that appeared after the first sample (pipe mode): not in the profile */
	if (a->nframes > x->cap) {
		struct prof_frame *f = realloc(x->frames, a->nframes * sizeof(*f));

		if (!f)
			goto nomem;
		x->frames = f;
		x->cap = a->nframes;
	}
	for (i = 0; i < a->nframes; i++) {
		const struct ans_frame *af = &a->frames[i];
		struct prof_frame *pf = &x->frames[i];

		memset(pf, 0, sizeof(*pf));
		pf->addr = af->addr;
		pf->name = af->name;
		pf->sym_off = af->offset;
		pf->binary = af->dso;
		if (af->build_id_size) {
			pf->build_id = af->build_id;
			pf->build_id_size = af->build_id_size;
		}
		if (af->mapped) {
			pf->map_start = af->map_start;
			pf->map_limit = af->map_end;
			pf->map_pgoff = af->map_pgoff;
		}
		pf->file = af->file;
		pf->line = af->line;
		pf->kernel = af->kernel;
	}
	ps.pid = s->pid;
	ps.tid = s->tid;
	ps.comm = a->comm;
	ps.time = s->time;
	ps.event = a->event;
	ps.period = (s->present & PERF_SAMPLE_PERIOD) ? s->period : 1;
	ps.frames = x->frames;
	ps.nframes = a->nframes;
	err = prof_add(x->p, &ps);
	if (err == -ENOMEM)
		goto nomem;
	if (err) {
		tool_error(x->cmd, "a sample could not be added to the profile: %s", strerror(-err));
		return err;
	}
	return 0;
nomem:
	tool_error(x->cmd, "out of memory");
	return -ENOMEM;
}

static FILE *open_out(const char *cmd, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		tool_error(cmd, "%s: cannot create it: %s", path, strerror(errno));
	return f;
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

int ans_export_finish(struct ans_export *x, const char *title)
{
	static const char *const empty[] = { "none" };
	int ret = EXIT_OK;
	FILE *f;

	if (!x->p) /* no sample: the files are written empty of samples all the same */
		x->p = prof_new(empty, 1);
	if (!x->p) {
		ret = tool_error(x->cmd, "out of memory");
		ans_export_free(x);
		return ret;
	}
	if (x->o.folded && (f = open_out(x->cmd, x->o.folded)))
		ret |= close_out(x->cmd, x->o.folded, f, prof_write_folded(x->p, -1, x->o.by_period, f)) ? EXIT_ERROR : 0;
	else if (x->o.folded)
		ret = EXIT_ERROR;
	if (x->o.pprof && (f = open_out(x->cmd, x->o.pprof)))
		ret |= close_out(x->cmd, x->o.pprof, f, prof_write_pprof(x->p, f)) ? EXIT_ERROR : 0;
	else if (x->o.pprof)
		ret = EXIT_ERROR;
	if (x->o.speedscope && (f = open_out(x->cmd, x->o.speedscope)))
		ret |= close_out(x->cmd, x->o.speedscope, f, prof_write_speedscope(x->p, title, f)) ? EXIT_ERROR : 0;
	else if (x->o.speedscope)
		ret = EXIT_ERROR;
	ans_export_free(x);
	return ret ? EXIT_ERROR : EXIT_OK;
}

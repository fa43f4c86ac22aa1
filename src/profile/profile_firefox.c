// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The Firefox Profiler's processed profile format, version 75 (the version the
 * profiler's own code, e.g. @firefox-devtools/profiler-cli 0.10, reads as it is;
 * older versions it upgrades, newer ones it refuses):
 *
 *   {"meta": {"preprocessedProfileVersion": 75, "version": 36, "interval" (ms),
 *             "startTime" (ms since 1970), "categories", "product", ...},
 *    "libs": [], "pages": [],
 *    "shared": {"stringArray": [...], "stackTable", "frameTable", "funcTable",
 *               "resourceTable", "nativeSymbols", "sources", "sourceLocationTable"},
 *    "threads": [{"name", "pid" (a string), "tid", "samples": {"stack", "time" (ms),
 *                 "weight", "weightType", "length"}, "markers", ...}...]}
 *
 * Tables are columns (an array per field, "length" the rows). Since version 66 a
 * stack's prefix is its distance back to its parent's row (0: a root); since 71
 * and 75 a frame's and a function's optional fields are valid when their bit of
 * "flags" is set (frame: 4 category; function: 4 resource), the others hold 0.
 *
 * One thread per (event, process, thread), named by the thread's comm (and the
 * event when the file has several), every sample at its time: the profiler's
 * timeline is the recording's. The first event's thread with the most weight
 * comes first (the profiler selects it). A function is a frame name and its
 * source file as in the other text exports (pr_prof_loc_names(); an inlined function
 * its own frame) and its binary (a resource of type 1, library: the profiler
 * shows "libc.so.6!memcpy"), split by privilege: category "Kernel" or "User".
 * Clock events (cpu-clock, task-clock) weigh their periods in ms
 * ("tracing-ms"), also given as the thread's CPU time since its previous sample
 * ("threadCPUDelta", µs) for the profiler's CPU graphs; others count samples.
 * Times are ms from the first sample; meta.startTime is that sample's
 * wall-clock time when the file has a clock reference (perfring_profile_set_clock()), else 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_internal.h"

enum { CAT_OTHER, CAT_USER, CAT_KERNEL };

struct ff {
	const struct perfring_profile *p;
	struct pr_itab strs;      /* the string array */
	struct pr_itab funcs;     /* key: uint32_t name, file string ids, category, resource + 1 (0: none) */
	struct pr_itab res;       /* resources (binaries), key: uint32_t name string id */
	struct pr_itab stacks;    /* key: int64_t prefix row (-1: none), uint32_t func */
	struct prof_loc_ids lf; /* each location's functions, outermost first */
};

static long str_id(struct ff *f, const char *s)
{
	return pr_prof_itab_get(&f->strs, s, strlen(s) + 1, NULL);
}

/* The resource + 1 of location loc's binary (its base name), 0 when it has none. */
static long res_of(struct ff *f, uint32_t loc)
{
	const struct prof_map_key *m = pr_prof_map(f->p, pr_prof_loc(f->p, loc)->map);
	const char *bin = m ? pr_prof_str(f->p, m->file_sid) : "", *slash = strrchr(bin, '/');
	long sid, rid;
	uint32_t key;

	if (!*bin)
		return 0;
	if ((sid = str_id(f, slash && slash[1] ? slash + 1 : bin)) < 0)
		return sid;
	key = (uint32_t)sid;
	rid = pr_prof_itab_get(&f->res, &key, sizeof(key), NULL);
	return rid < 0 ? rid : rid + 1;
}

/* A function's id: its name, source file, privilege and binary ("[binary]", a frame without a
 * function, has no binary of its own). */
static long func_id(uint32_t loc, const char *name, const char *file, void *arg)
{
	struct ff *f = arg;
	long nid = str_id(f, name), fid = str_id(f, file), res = name[0] == '[' ? 0 : res_of(f, loc);
	uint32_t key[4];

	if (nid < 0 || fid < 0 || res < 0)
		return -ENOMEM;
	key[0] = (uint32_t)nid;
	key[1] = (uint32_t)fid;
	key[2] = pr_prof_loc(f->p, loc)->kernel ? CAT_KERNEL : CAT_USER;
	key[3] = (uint32_t)res;
	return pr_prof_itab_get(&f->funcs, key, sizeof(key), NULL);
}

/* The stack table's row of a profile stack's leaf, -1 for a sample without frames. */
static long stack_row(struct ff *f, const struct prof_stack_key *k)
{
	int64_t prefix = -1;

	for (uint32_t j = k->nlocs; j-- > 0;) {
		const uint32_t *fn = f->lf.v[k->locs[j]];

		for (uint32_t i = 0; i < f->lf.n[k->locs[j]]; i++) {
			struct {
				int64_t prefix;
				uint32_t func, pad;
			} key = { prefix, fn[i], 0 };
			long row = pr_prof_itab_get(&f->stacks, &key, sizeof(key), NULL);

			if (row < 0)
				return row;
			prefix = row;
		}
	}
	return (long)prefix;
}

struct thread {
	uint32_t event, pid, tid, comm_sid;
	bool clock;              /* its event counts ns: weights in ms */
	double weight;
	struct prof_buf samples; /* struct tsample */
};

struct tsample {
	double time, weight;
	int64_t row;
};

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a, *y = *(struct thread *const *)b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void put_col_u32(FILE *out, const char *name, const struct pr_itab *t, size_t word, bool first)
{
	fprintf(out, "%s\"%s\":[", first ? "" : ",", name);
	for (size_t i = 0; i < t->n; i++)
		fprintf(out, i ? ",%u" : "%u", ((const uint32_t *)pr_prof_key(t, i))[word]);
	fputc(']', out);
}

/* ,"name":[v,v,...] (n times): a column of one value. */
static void put_same(FILE *out, const char *name, size_t n, const char *v)
{
	fprintf(out, ",\"%s\":[", name);
	for (size_t i = 0; i < n; i++)
		fprintf(out, i ? ",%s" : "%s", v);
	fputc(']', out);
}

static void put_zeros(FILE *out, const char *name, size_t n)
{
	put_same(out, name, n, "0");
}

static void put_tables(FILE *out, struct ff *f)
{
	size_t nf = f->funcs.n;

	fputs("\"shared\":{\n\"stackTable\":{\"frame\":[", out);
	for (size_t i = 0; i < f->stacks.n; i++)
		fprintf(out, i ? ",%u" : "%u", ((const uint32_t *)pr_prof_key(&f->stacks, i))[2]);
	fputs("],\"prefixOffset\":[", out);
	for (size_t i = 0; i < f->stacks.n; i++) {
		int64_t pre = *(const int64_t *)pr_prof_key(&f->stacks, i);

		fprintf(out, i ? ",%lld" : "%lld", (long long)(pre < 0 ? 0 : (int64_t)i - pre));
	}
	fprintf(out, "],\"length\":%zu},\n", f->stacks.n);
	/* A frame per function: frame i is function i. */
	fprintf(out, "\"frameTable\":{\"length\":%zu", nf);
	put_same(out, "flags", nf, "4");
	put_zeros(out, "address", nf);
	put_col_u32(out, "category", &f->funcs, 2, false);
	put_zeros(out, "subcategory", nf);
	fputs(",\"func\":[", out);
	for (size_t i = 0; i < nf; i++)
		fprintf(out, i ? ",%zu" : "%zu", i);
	fputc(']', out);
	put_zeros(out, "lib", nf);
	put_zeros(out, "nativeSymbol", nf);
	put_zeros(out, "innerWindowID", nf);
	put_zeros(out, "line", nf);
	put_zeros(out, "column", nf);
	put_zeros(out, "originalLocation", nf);
	fputs("},\n", out);
	/* Function flags: 4, its resource is valid. */
	fputs("\"funcTable\":{\"flags\":[", out);
	for (size_t i = 0; i < nf; i++)
		fprintf(out, i ? ",%d" : "%d", ((const uint32_t *)pr_prof_key(&f->funcs, i))[3] ? 4 : 0);
	fputs("],", out);
	put_col_u32(out, "name", &f->funcs, 0, true);
	fputs(",\"resource\":[", out);
	for (size_t i = 0; i < nf; i++) {
		uint32_t r = ((const uint32_t *)pr_prof_key(&f->funcs, i))[3];

		fprintf(out, i ? ",%u" : "%u", r ? r - 1 : 0);
	}
	fputc(']', out);
	put_zeros(out, "source", nf);
	put_zeros(out, "lineNumber", nf);
	put_zeros(out, "columnNumber", nf);
	put_zeros(out, "originalLocation", nf);
	fprintf(out, ",\"length\":%zu},\n", nf);
	/* Resources: the binaries, type 1 (a library). */
	fputs("\"resourceTable\":{", out);
	put_col_u32(out, "name", &f->res, 0, true);
	put_same(out, "host", f->res.n, "null");
	put_same(out, "type", f->res.n, "1");
	fprintf(out, ",\"length\":%zu},\n", f->res.n);
	fputs("\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],\"length\":0},\n"
	      "\"sources\":{\"id\":[],\"filename\":[],\"startLine\":[],\"startColumn\":[],\"sourceMapURL\":[],"
	      "\"content\":[],\"length\":0},\n"
	      "\"sourceLocationTable\":{\"source\":[],\"line\":[],\"column\":[],\"length\":0},\n"
	      "\"stringArray\":[",
	      out);
	for (size_t i = 0; i < f->strs.n; i++) {
		if (i)
			fputc(',', out);
		pr_prof_json_str(out, pr_prof_key(&f->strs, i));
	}
	fputs("]}", out);
}

static void put_thread(FILE *out, const struct perfring_profile *p, const struct thread *t)
{
	const struct tsample *s = (const struct tsample *)t->samples.b;
	size_t n = t->samples.len / sizeof(*s);
	char cbuf[32], name[640];
	struct prof_stack_key k = { .pid = t->pid, .comm_sid = t->comm_sid };
	const char *comm = pr_prof_comm_name(p, &k, cbuf, sizeof(cbuf));

	if (p->nevents > 1)
		snprintf(name, sizeof(name), "%s (%s)", comm, pr_prof_str(p, p->event_sid[t->event]));
	else
		snprintf(name, sizeof(name), "%s", comm);
	fputs("{\"processType\":\"default\",\"processStartupTime\":0,\"processShutdownTime\":null,"
	      "\"registerTime\":0,\"unregisterTime\":null,\"pausedRanges\":[],\"name\":",
	      out);
	pr_prof_json_str(out, name);
	fputs(",\"processName\":", out);
	pr_prof_json_str(out, comm);
	fprintf(out, ",\"isMainThread\":%s,\"pid\":\"%u\",\"tid\":%u,\n\"samples\":{\"weightType\":\"%s\",\"stack\":[",
		t->pid == t->tid ? "true" : "false", t->pid, t->tid, t->clock ? "tracing-ms" : "samples");
	for (size_t i = 0; i < n; i++) {
		if (s[i].row < 0)
			fputs(i ? ",null" : "null", out);
		else
			fprintf(out, i ? ",%lld" : "%lld", (long long)s[i].row);
	}
	fputs("],\"time\":[", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, i ? ",%.6f" : "%.6f", s[i].time);
	if (t->clock) {
		fputs("],\"weight\":[", out);
		for (size_t i = 0; i < n; i++)
			fprintf(out, i ? ",%.6f" : "%.6f", s[i].weight);
		/* The CPU time since the thread's previous sample (meta.sampleUnits: µs): the
		 * profiler's CPU usage graph and thread activity. */
		fputs("],\"threadCPUDelta\":[", out);
		for (size_t i = 0; i < n; i++)
			fprintf(out, i ? ",%.3f" : "%.3f", s[i].weight * 1000);
		fputc(']', out);
	} else {
		fputs("],\"weight\":null", out);
	}
	fprintf(out, ",\"length\":%zu},\n\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],"
		     "\"phase\":[],\"category\":[],\"length\":0}}",
		n);
}

int pr_prof_write_firefox(const struct perfring_profile *p, const char *name, FILE *out)
{
	struct ff f = { .p = p };
	struct pr_itab tkeys = { 0 };   /* key: event, pid, tid */
	struct thread *threads = NULL, **order = NULL;
	long *rows = NULL;
	size_t nthreads = 0, cap = 0, nsamples;
	const struct prof_tl_entry *tl;
	uint64_t t0;
	double interval = 1;
	int err = 0;

	tl = (const struct prof_tl_entry *)p->timeline->b;
	nsamples = p->timeline->len / sizeof(*tl);
	t0 = p->time_min;
	if (str_id(&f, "") < 0) /* string 0: "" (unknown source files) */
		return -ENOMEM;
	/* Each profile stack's row, then the threads' samples in the order they were added. */
	rows = malloc((p->stacks.n ? p->stacks.n : 1) * sizeof(*rows));
	if (!rows) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pr_prof_loc_ids(p, func_id, &f, &f.lf)))
		goto out;
	for (size_t i = 0; i < p->stacks.n; i++)
		if ((rows[i] = stack_row(&f, pr_prof_stack(p, i))) < -1) {
			err = (int)rows[i];
			goto out;
		}
	for (size_t i = 0; i < nsamples; i++) {
		const struct prof_stack_key *k = pr_prof_stack(p, tl[i].stack);
		uint32_t tk[3] = { k->event, k->pid, k->tid };
		bool created;
		long id = pr_prof_itab_get(&tkeys, tk, sizeof(tk), &created);
		struct tsample s;

		if (id < 0) {
			err = (int)id;
			goto out;
		}
		if (created) {
			if (pr_grow(&threads, &cap, nthreads + 1, sizeof(*threads))) {
				err = -ENOMEM;
				goto out;
			}
			threads[nthreads++] = (struct thread){ k->event, k->pid, k->tid, k->comm_sid,
							       pr_prof_event_is_clock(pr_prof_str(p, p->event_sid[k->event])),
							       0, { 0 } };
		}
		s.time = tl[i].time && t0 ? (double)(tl[i].time - t0) / 1e6 : (double)i;
		s.weight = threads[id].clock ? (double)tl[i].period / 1e6 : 1;
		s.row = rows[tl[i].stack];
		threads[id].weight += s.weight;
		pr_prof_buf_put(&threads[id].samples, &s, sizeof(s));
		if (threads[id].samples.err) {
			err = -ENOMEM;
			goto out;
		}
	}
	order = malloc((nthreads ? nthreads : 1) * sizeof(*order));
	if (!order) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nthreads; i++)
		order[i] = &threads[i];
	qsort(order, nthreads, sizeof(*order), cmp_thread);
	if (p->nevents && p->sampling && p->sampling[0].value)
		interval = p->sampling[0].freq ? 1000.0 / (double)p->sampling[0].value
			   : pr_prof_event_is_clock(pr_prof_str(p, p->event_sid[0])) ? (double)p->sampling[0].value / 1e6
									       : 1;
	fprintf(out, "{\"meta\":{\"preprocessedProfileVersion\":75,\"version\":36,\"interval\":%.6f,\"startTime\":%.3f,"
		     "\"processType\":0,\"product\":",
		interval,
		p->has_clock && t0 ? (double)(p->clock_epoch_ns + (t0 - p->clock_perf_ns)) / 1e6 : 0.0);
	pr_prof_json_str(out, name);
	for (int e = 0; e < p->nevents; e++)
		if (pr_prof_event_is_clock(pr_prof_str(p, p->event_sid[e]))) {
			fputs(",\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\",\"threadCPUDelta\":\"\u00b5s\"}", out);
			break;
		}
	fputs(",\"stackwalk\":1,\"symbolicated\":true,\"platform\":\"Linux\",\"oscpu\":\"\",\"abi\":\"\",\"misc\":\"\","
	      "\"toolkit\":\"\",\"appBuildID\":\"\",\"sourceURL\":\"\",\"physicalCPUs\":0,\"logicalCPUs\":0,"
	      "\"CPUName\":\"\",\"markerSchema\":[],\"extensions\":{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0},"
	      "\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
	      "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]}]},\n"
	      "\"libs\":[],\"pages\":[],\n",
	      out);
	put_tables(out, &f);
	fputs(",\n\"threads\":[", out);
	for (size_t i = 0; i < nthreads; i++) {
		fputs(i ? ",\n" : "\n", out);
		put_thread(out, p, order[i]);
	}
	fputs("]}\n", out);
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	for (size_t i = 0; i < nthreads; i++)
		free(threads[i].samples.b);
	free(threads);
	free(order);
	free(rows);
	pr_prof_loc_ids_free(&f.lf);
	pr_prof_itab_free(&f.strs);
	pr_prof_itab_free(&f.funcs);
	pr_prof_itab_free(&f.res);
	pr_prof_itab_free(&f.stacks);
	pr_prof_itab_free(&tkeys);
	return err;
}

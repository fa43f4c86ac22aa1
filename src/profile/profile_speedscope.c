// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json,
 * speedscope's src/lib/file-format-spec.ts):
 *
 *   {"$schema": "...", "shared": {"frames": [{"name", "file"?}...]},
 *    "profiles": [{"type": "sampled", "name", "unit", "startValue", "endValue",
 *                  "samples": [[frame index, root first ...]...], "weights": [...]}...],
 *    "name", "activeProfileIndex": 0, "exporter": "perfring"}
 *
 * One sampled profile per (event, process): speedscope shows one profile at a
 * time and its sandwich/left-heavy views are most useful for one program;
 * the profiles of an event are sorted by weight, heaviest first, so the file
 * opens on the busiest process of the first event. A process's threads are
 * merged. Weights are the samples' periods: nanoseconds for cpu-clock and
 * task-clock, unit "none" (event counts) for the others. A sample is one
 * distinct sequence of frames (stacks that differ only in addresses or
 * threads are one), so the "Time Order" view is the order of first
 * appearance rather than time, and the file's size follows the distinct
 * call paths. Without samples, an empty profile per event (a file with no
 * profile would not open). Frames are named as in the folded export
 * (pr_prof_loc_names()) but untidied; a frame is its (name, source file), so a
 * function is one frame whatever its line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_internal.h"

struct frames {
	struct pr_itab tab;      /* key: name "\0" file */
	struct prof_buf key;
};

/* A frame's id: its (name, source file), interned across locations. */
static long frame_id(uint32_t loc, const char *name, const char *file, void *arg)
{
	struct frames *fr = arg;

	(void)loc;
	fr->key.len = 0;
	pr_prof_buf_put(&fr->key, name, strlen(name) + 1);
	pr_prof_buf_put(&fr->key, file, strlen(file) + 1);
	if (fr->key.err)
		return fr->key.err;
	return pr_prof_itab_get(&fr->tab, fr->key.b, fr->key.len, NULL);
}

struct group {
	uint32_t event, pid;
	uint64_t weight;
	size_t first, n; /* range in the sorted stack order */
};

static int cmp_stack(const void *a, const void *b, void *arg)
{
	const struct perfring_profile *sort_p = arg;
	const struct prof_stack_key *x = pr_prof_stack(sort_p, *(const uint32_t *)a);
	const struct prof_stack_key *y = pr_prof_stack(sort_p, *(const uint32_t *)b);

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int pr_prof_write_speedscope(const struct perfring_profile *p, const char *name, FILE *out)
{
	struct frames fr = { 0 };
	struct prof_loc_ids lf = { 0 }; /* each location's frames */
	uint32_t *order = NULL;
	struct group *groups = NULL;
	size_t ngroups = 0;
	struct pr_itab seqs = { 0 };      /* a group's distinct frame sequences (root first) */
	struct prof_buf seq = { 0 };
	struct prof_buf weights = { 0 }; /* uint64_t per sequence */
	int err = 0;

	/* Frames of every location, interned across locations. */
	order = malloc((p->stacks.n ? p->stacks.n : 1) * sizeof(*order));
	groups = calloc(p->stacks.n ? p->stacks.n : 1, sizeof(*groups));
	if (!order || !groups) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = pr_prof_loc_ids(p, frame_id, &fr, &lf)))
		goto out;
	/* Stacks grouped by (event, pid); groups ordered by event, heaviest first. */
	for (size_t i = 0; i < p->stacks.n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->stacks.n, sizeof(*order), cmp_stack, (void *)p);
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct prof_stack_key *k = pr_prof_stack(p, order[i]);
		struct group *g = ngroups ? &groups[ngroups - 1] : NULL;

		if (!g || g->event != k->event || g->pid != k->pid) {
			g = &groups[ngroups++];
			*g = (struct group){ .event = k->event, .pid = k->pid, .first = i };
		}
		g->n++;
		g->weight += p->stack_vals[order[i]].period;
	}
	qsort(groups, ngroups, sizeof(*groups), cmp_group);

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"shared\":{\"frames\":[", out);
	for (size_t i = 0; i < fr.tab.n; i++) {
		const char *nm = pr_prof_key(&fr.tab, i);
		const char *file = nm + strlen(nm) + 1;

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		pr_prof_json_str(out, nm);
		if (*file) {
			fputs(",\"file\":", out);
			pr_prof_json_str(out, file);
		}
		fputc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (size_t gi = 0; gi < ngroups; gi++) {
		const struct group *g = &groups[gi];
		const struct prof_stack_key *k0 = pr_prof_stack(p, order[g->first]);
		const char *ev = pr_prof_str(p, p->event_sid[g->event]);
		char cbuf[32], title[768];

		snprintf(title, sizeof(title), "%s: %s (pid %u)", ev, pr_prof_comm_name(p, k0, cbuf, sizeof(cbuf)), g->pid);
		fputs(gi ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", out);
		pr_prof_json_str(out, title);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\n\"samples\":[",
			pr_prof_event_is_clock(ev) ? "nanoseconds" : "none", (unsigned long long)g->weight);
		/* The group's stacks by their frames: stacks that differ only in addresses or threads
		 * are one sample (speedscope shows frames, not addresses). */
		pr_prof_itab_free(&seqs);
		weights.len = 0;
		for (size_t i = 0; i < g->n; i++) {
			const struct prof_stack_key *k = pr_prof_stack(p, order[g->first + i]);
			long id;

			seq.len = 0;
			for (uint32_t j = k->nlocs; j-- > 0;)
				pr_prof_buf_put(&seq, lf.v[k->locs[j]], lf.n[k->locs[j]] * sizeof(uint32_t));
			if (seq.err) {
				err = seq.err;
				goto out;
			}
			id = pr_prof_count(&seqs, &weights, seq.b ? (const void *)seq.b : "", seq.len,
					p->stack_vals[order[g->first + i]].period);
			if (id < 0) {
				err = (int)id;
				goto out;
			}
		}
		for (size_t i = 0; i < seqs.n; i++) {
			const uint32_t *ids = pr_prof_key(&seqs, i);

			fputs(i ? ",[" : "[", out);
			for (size_t f = 0; f < seqs.keys[i]->len / sizeof(uint32_t); f++)
				fprintf(out, f ? ",%u" : "%u", ids[f]);
			fputc(']', out);
		}
		fputs("],\n\"weights\":[", out);
		for (size_t i = 0; i < seqs.n; i++)
			fprintf(out, i ? ",%llu" : "%llu", (unsigned long long)((const uint64_t *)weights.b)[i]);
		fputs("]}", out);
	}
	/* No sample: an empty profile per event, so that the file still opens (speedscope shows
	 * profiles[activeProfileIndex]). */
	for (int e = 0; !ngroups && e < p->nevents; e++) {
		const char *ev = pr_prof_str(p, p->event_sid[e]);

		fputs(e ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", out);
		pr_prof_json_str(out, ev);
		fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":0,\"samples\":[],\"weights\":[]}",
			pr_prof_event_is_clock(ev) ? "nanoseconds" : "none");
	}
	fputs("],\n\"name\":", out);
	pr_prof_json_str(out, name);
	fputs(",\"activeProfileIndex\":0,\"exporter\":\"perfring\"}\n", out);
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	pr_prof_loc_ids_free(&lf);
	free(order);
	free(groups);
	free(fr.key.b);
	pr_prof_itab_free(&fr.tab);
	pr_prof_itab_free(&seqs);
	free(seq.b);
	free(weights.b);
	return err;
}

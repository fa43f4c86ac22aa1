// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the events (perf's evlist), for the
 * group lines. Their names come from EVENT_DESC, from EVENT_UPDATE records
 * in pipe mode, or from their attrs as perf makes them; their groups from
 * GROUP_DESC (report_feat.c lays them over the events). In pipe mode events
 * arrive with the records, hence rh_events_sync() before each use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/pd_common.h"
#include "report/header.h"

/* Grow the per-event arrays to the events the reader knows (pipe mode adds them as they come). */
int rh_events_sync(struct rh *h)
{
	struct rh_env *e = &h->env;
	uint32_t n = (uint32_t)perfring_perfdata_attr_cnt(h->pd), i;
	struct rh_ev *ev;

	if (n <= e->nr_ev)
		return 0;
	ev = realloc(e->ev, n * sizeof(*ev));
	if (!ev)
		return -1;
	for (i = e->nr_ev; i < n; i++)
		ev[i] = (struct rh_ev){ .leader = i, .nr_members = 1 };
	e->ev = ev;
	e->nr_ev = n;
	return 0;
}

/* perf's evsel__name(): the name the file gave the event, else one made from its attr. */
const char *rh_event_name(struct rh *h, uint32_t i, char *buf, size_t len)
{
	const struct perfring_perfdata_attr *a = perfring_perfdata_attr(h->pd, (int)i);
	const struct perf_event_attr *attr = a ? a->attr : NULL;

	if (i < h->env.nr_ev && h->env.ev[i].name)
		return h->env.ev[i].name;
	if (!attr)
		return "unknown";
	if (pd_attr_name(a, buf, len))
		return buf;
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
		return "unknown-hardware";
	case PERF_TYPE_SOFTWARE:
		return "unknown-software";
	case PERF_TYPE_TRACEPOINT:
		return "unknown tracepoint";
	case PERF_TYPE_RAW:
		snprintf(buf, len, "raw 0x%llx", (unsigned long long)attr->config);
		return buf;
	default:
		snprintf(buf, len, "unknown attr type: %d", (int)attr->type);
		return buf;
	}
}

static int rh_id_cmp(const void *a, const void *b)
{
	const struct rh_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The event with this id (perf finds the last one given it), or -1. */
static int rh_event_by_id(struct rh *h, uint64_t id)
{
	struct rh_env *e = &h->env;
	size_t lo = 0, hi, n = 0;
	uint32_t i;

	if (e->ids_for != e->nr_ev) {
		for (i = 0; i < e->nr_ev; i++)
			n += perfring_perfdata_attr(h->pd, (int)i)->nr_ids;
		free(e->ids);
		e->nr_ids = 0;
		e->ids = malloc((n ? n : 1) * sizeof(*e->ids));
		if (!e->ids)
			return -1;
		for (i = 0; i < e->nr_ev; i++) {
			const struct perfring_perfdata_attr *a = perfring_perfdata_attr(h->pd, (int)i);
			uint64_t k;

			for (k = 0; k < a->nr_ids; k++)
				e->ids[e->nr_ids++] = (struct rh_id){ a->ids[k], i };
		}
		qsort(e->ids, e->nr_ids, sizeof(*e->ids), rh_id_cmp);
		e->ids_for = e->nr_ev;
	}
	hi = e->nr_ids;
	while (lo < hi) { /* the first entry past id */
		size_t mid = lo + (hi - lo) / 2;

		if (e->ids[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && e->ids[lo - 1].id == id ? (int)e->ids[lo - 1].idx : -1;
}

/* An EVENT_UPDATE record naming an event (pipe mode): perf renames it. */
void rh_event_update(struct rh *h, const struct perfring_perfdata_record *r)
{
	const uint8_t *p = r->data;
	int i;

	if (r->size < 24 || rd64(p + 8, h->swapped) != 2 /* PERF_EVENT_UPDATE__NAME */ || rh_events_sync(h))
		return;
	i = rh_event_by_id(h, rd64(p + 16, h->swapped));
	if (i >= 0)
		h->env.ev[i].name = rh_keep(h, strndup((const char *)p + 24, r->size - 24));
}

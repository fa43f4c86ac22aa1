// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread names by tid: an open-addressing table of fixed-size entries.
 *
 * perf report names a thread sampled before any record named it ":TID",
 * and the first name the thread is given later (its COMM) replaces that
 * one in place (struct thread's default comm is overridden, not added to),
 * so its earlier samples show the later name; perf script prints ":TID",
 * the name it had then. A table here remembers which unnamed threads were
 * sampled and the name they got later (renames), for a report to read the
 * file again with them (threads_set_renames()). A thread is its tid and
 * generation: a FORK starts a new one, as perf replaces the thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "../../src/common/alloc.h"
#include "shared/threads.h"


struct thread_name {
	uint32_t tid;
	uint32_t gen; /* FORKs of this tid seen */
	bool used;
	bool named;	      /* comm holds a name a record gave */
	bool sampled_unnamed; /* a sample found it without a name */
	char comm[THREADS_COMM_MAX];
};

struct threads {
	struct thread_name *tab;
	size_t cap, n; /* cap: a power of two */
	struct comm_rename *found; /* unnamed sampled threads named later */
	size_t nfound, capfound;
	const struct comm_rename *use; /* the renames to apply (a previous reading's) */
	size_t nuse;
};

struct threads *threads_new(void)
{
	struct threads *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 1024;
	t->tab = pr_zalloc(t->cap, sizeof(*t->tab));
	if (!t->tab) {
		free(t);
		return NULL;
	}
	return t;
}

void threads_free(struct threads *t)
{
	if (!t)
		return;
	free(t->tab);
	free(t->found);
	free(t);
}

static size_t slot_of(const struct thread_name *tab, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (tab[i].used && tab[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct threads *t)
{
	size_t cap = t->cap * 2, i;
	struct thread_name *tab = pr_zalloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->tab[i].used)
			tab[slot_of(tab, cap, t->tab[i].tid)] = t->tab[i];
	free(t->tab);
	t->tab = tab;
	t->cap = cap;
	return 0;
}

/* tid's entry, made (unnamed) when there is none; NULL when out of memory. */
static struct thread_name *entry_of(struct threads *t, uint32_t tid)
{
	struct thread_name *e;

	if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
		return NULL;
	e = &t->tab[slot_of(t->tab, t->cap, tid)];
	if (!e->used) {
		e->used = true;
		e->tid = tid;
		t->n++;
	}
	return e;
}

static void copy_comm(char *to, const char *comm)
{
	if (to != comm) {
		strncpy(to, comm, THREADS_COMM_MAX - 1);
		to[THREADS_COMM_MAX - 1] = 0;
	}
}

/* An unnamed thread that samples found gets its first name: remembered. */
static int note_rename(struct threads *t, const struct thread_name *e, const char *comm)
{
	struct comm_rename *r;

	if (pr_grow(&t->found, &t->capfound, t->nfound + 1, sizeof(*t->found)))
		return -ENOMEM;
	r = &t->found[t->nfound++];
	r->tid = e->tid;
	r->gen = e->gen;
	copy_comm(r->comm, comm);
	return 0;
}

static int set_comm(struct threads *t, uint32_t tid, const char *comm)
{
	struct thread_name *e = entry_of(t, tid);

	if (!e)
		return -ENOMEM;
	if (!e->named && e->sampled_unnamed && note_rename(t, e, comm))
		return -ENOMEM;
	copy_comm(e->comm, comm);
	e->named = true;
	return 0;
}

const char *threads_comm(const struct threads *t, uint32_t tid)
{
	const struct thread_name *e = &t->tab[slot_of(t->tab, t->cap, tid)];

	return e->used && e->named ? e->comm : NULL;
}

const char *threads_unnamed(struct threads *t, uint32_t tid)
{
	struct thread_name *e = entry_of(t, tid);
	size_t i;

	if (!e)
		return NULL; /* out of memory: the sample keeps ":TID" */
	e->sampled_unnamed = true;
	for (i = 0; i < t->nuse; i++)
		if (t->use[i].tid == tid && t->use[i].gen == e->gen)
			return t->use[i].comm;
	return NULL;
}

const struct comm_rename *threads_renames(const struct threads *t, size_t *n)
{
	*n = t->nfound;
	return t->found;
}

void threads_set_renames(struct threads *t, const struct comm_rename *r, size_t n)
{
	t->use = r;
	t->nuse = n;
}

int threads_feed(struct threads *t, const struct perfring_decoded *d)
{
	char parent[THREADS_COMM_MAX];
	struct thread_name *e;
	const char *c;

	if (d->type == PERF_RECORD_COMM)
		return set_comm(t, d->u.comm.tid, d->u.comm.comm ? d->u.comm.comm : "");
	if (d->type == PERF_RECORD_FORK) {
		/* A new thread (perf replaces the one of that tid): its parent's
		 * name (copied: the table may move), or none when its parent has none. */
		c = threads_comm(t, d->u.fork_exit.ptid);
		if (c)
			strcpy(parent, c);
		e = entry_of(t, d->u.fork_exit.tid);
		if (!e)
			return -ENOMEM;
		e->gen++;
		e->named = false;
		e->sampled_unnamed = false;
		return c ? set_comm(t, d->u.fork_exit.tid, parent) : 0;
	}
	return 0;
}

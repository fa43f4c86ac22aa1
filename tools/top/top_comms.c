// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring top`'s names of threads: see top_comms.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/top_comms.h"

/* Threads that exited this many intervals ago are forgotten. */
#define COMMS_KEEP 2

struct comm_ent {
	uint32_t tid;       /* + 1; 0: a free slot */
	uint32_t comm;      /* interned in the table; TOP_NONE: not known yet */
	uint32_t gen;       /* its process's exec generation */
	uint32_t exit_tick; /* the interval it exited in (0: alive) */
};

struct top_comms {
	struct top_table *t;
	struct comm_ent *e;
	size_t cap, n; /* cap a power of two */
	uint32_t tick, gen;
};

struct top_comms *top_comms_new(struct top_table *t)
{
	struct top_comms *c = calloc(1, sizeof(*c));

	if (c)
		c->t = t;
	return c;
}

void top_comms_free(struct top_comms *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->cap; i++)
		if (c->e[i].tid && c->e[i].comm != TOP_NONE)
			top_table_unref(c->t, c->e[i].comm);
	free(c->e);
	free(c);
}

static struct comm_ent *slot(struct comm_ent *e, size_t cap, uint32_t tid)
{
	size_t i;

	for (i = (tid * 2654435761u) & (cap - 1); e[i].tid; i = (i + 1) & (cap - 1))
		if (e[i].tid == tid + 1)
			return &e[i];
	return &e[i];
}

/* The entries moved into a table of cap slots (also how removals are
 * made: open addressing has no holes to leave). */
static bool rehash(struct top_comms *c, size_t cap)
{
	struct comm_ent *e = cap ? calloc(cap, sizeof(*e)) : NULL;
	size_t i;

	if (!e)
		return false;
	for (i = 0; i < c->cap; i++)
		if (c->e[i].tid)
			*slot(e, cap, c->e[i].tid - 1) = c->e[i];
	free(c->e);
	c->e = e;
	c->cap = cap;
	return true;
}

/* The entry of tid, made (no name yet) when missing; NULL without memory.
 * A new entry may move the others. */
static struct comm_ent *get(struct top_comms *c, uint32_t tid)
{
	struct comm_ent *e = c->cap ? slot(c->e, c->cap, tid) : NULL;

	if (e && e->tid)
		return e;
	if ((c->n + 1) * 2 > c->cap) {
		if (!rehash(c, c->cap ? c->cap * 2 : 1024))
			return NULL;
		e = slot(c->e, c->cap, tid);
	}
	*e = (struct comm_ent){ tid + 1, TOP_NONE, 0, 0 };
	c->n++;
	return e;
}

static void set(struct top_comms *c, struct comm_ent *e, const char *comm)
{
	uint32_t id = top_table_intern(c->t, comm, NULL, false);

	if (id == TOP_NONE)
		return;
	if (e->comm != TOP_NONE)
		top_table_unref(c->t, e->comm);
	e->comm = id;
}

uint32_t top_comms_of(struct top_comms *c, uint32_t pid, uint32_t tid, uint32_t *gen)
{
	struct comm_ent *e = get(c, tid), *p;
	char path[64], name[64] = "";
	FILE *f = NULL;

	*gen = 0;
	if (!e)
		return TOP_NONE;
	if (e->comm == TOP_NONE) {
		/* first seen in a sample: started before us, its records not read */
		snprintf(path, sizeof(path), "/proc/%u/comm", tid);
		if (!tid) /* the idle task, as perf names it */
			snprintf(name, sizeof(name), "swapper");
		else if (!(f = fopen(path, "re")) || !fgets(name, sizeof(name), f))
			snprintf(name, sizeof(name), ":%u", tid); /* gone: perf's name */
		if (f)
			fclose(f);
		name[strcspn(name, "\n")] = '\0';
		set(c, e, name);
	}
	if (pid != tid && (p = get(c, pid)))
		*gen = p->gen;
	e = get(c, tid); /* get(pid) may have moved it */
	if (e && pid == tid)
		*gen = e->gen;
	return e ? e->comm : TOP_NONE;
}

void top_comms_comm(struct top_comms *c, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct comm_ent *e = get(c, tid);

	if (!e)
		return;
	set(c, e, comm);
	if (exec && (e = get(c, pid)))
		e->gen = ++c->gen; /* a new image: the names cached for the old one are stale */
}

void top_comms_fork(struct top_comms *c, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct comm_ent *e, *parent;

	/* made first, so that looking up the parent cannot move it */
	if (!get(c, tid) || !(parent = get(c, ptid)) || !(e = get(c, tid)))
		return;
	if (e->comm != TOP_NONE) /* a reused tid */
		top_table_unref(c->t, e->comm);
	*e = (struct comm_ent){ tid + 1, TOP_NONE, 0, 0 };
	if (parent->comm != TOP_NONE) {
		top_table_ref(c->t, parent->comm);
		e->comm = parent->comm;
	}
	/* a process of its own has its names cached apart; a thread shares its process's */
	e->gen = pid != ppid ? ++c->gen : parent->gen;
}

void top_comms_exit(struct top_comms *c, uint32_t tid)
{
	struct comm_ent *e = get(c, tid);

	if (e)
		e->exit_tick = c->tick ? c->tick : 1;
}

void top_comms_tick(struct top_comms *c)
{
	size_t i, live = 0;

	c->tick++;
	for (i = 0; i < c->cap; i++) {
		struct comm_ent *e = &c->e[i];

		if (e->tid && e->exit_tick && c->tick - e->exit_tick > COMMS_KEEP) {
			if (e->comm != TOP_NONE)
				top_table_unref(c->t, e->comm);
			e->tid = 0;
		}
		live += e->tid != 0;
	}
	c->n = live;
	if (c->cap)
		rehash(c, c->cap > 1024 && live * 8 < c->cap ? c->cap / 2 : c->cap);
}

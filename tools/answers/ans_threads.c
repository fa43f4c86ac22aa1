// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Thread names by tid: an open-addressing table of fixed-size entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "shared/zalloc.h"
#include "answers/ans_threads.h"

/* TASK_COMM_LEN is 16; a longer name in a hostile file is cut. */
#define ANS_COMM_MAX 32

struct ans_thread {
	uint32_t tid;
	bool used;
	char comm[ANS_COMM_MAX];
};

struct ans_threads {
	struct ans_thread *tab;
	size_t cap, n; /* cap: a power of two */
};

struct ans_threads *ans_threads_new(void)
{
	struct ans_threads *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 1024;
	t->tab = tool_zalloc(t->cap, sizeof(*t->tab));
	if (!t->tab) {
		free(t);
		return NULL;
	}
	return t;
}

void ans_threads_free(struct ans_threads *t)
{
	if (!t)
		return;
	free(t->tab);
	free(t);
}

static size_t slot_of(const struct ans_thread *tab, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (tab[i].used && tab[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return i;
}

static int grow(struct ans_threads *t)
{
	size_t cap = t->cap * 2, i;
	struct ans_thread *tab = tool_zalloc(cap, sizeof(*tab));

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

static int set_comm(struct ans_threads *t, uint32_t tid, const char *comm)
{
	struct ans_thread *e;

	if ((t->n + 1) * 4 > t->cap * 3 && grow(t))
		return -ENOMEM;
	e = &t->tab[slot_of(t->tab, t->cap, tid)];
	if (!e->used) {
		e->used = true;
		e->tid = tid;
		t->n++;
	}
	if (e->comm != comm) {
		strncpy(e->comm, comm, ANS_COMM_MAX - 1);
		e->comm[ANS_COMM_MAX - 1] = 0;
	}
	return 0;
}

const char *ans_threads_comm(const struct ans_threads *t, uint32_t tid)
{
	const struct ans_thread *e = &t->tab[slot_of(t->tab, t->cap, tid)];

	return e->used ? e->comm : NULL;
}

int ans_threads_feed(struct ans_threads *t, const struct perfring_decoded *d)
{
	char parent[ANS_COMM_MAX];
	const char *c;

	if (d->type == PERF_RECORD_COMM)
		return set_comm(t, d->u.comm.tid, d->u.comm.comm ? d->u.comm.comm : "");
	if (d->type == PERF_RECORD_FORK) {
		/* The child thread starts with its parent's name (copied: the table may move). */
		c = ans_threads_comm(t, d->u.fork_exit.ptid);
		if (!c)
			return 0;
		strcpy(parent, c);
		return set_comm(t, d->u.fork_exit.tid, parent);
	}
	return 0;
}

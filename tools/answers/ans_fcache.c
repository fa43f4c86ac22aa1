// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A direct-mapped cache of named frames, with a generation per process. */
#include <stdlib.h>
#include <string.h>

#include "shared/zalloc.h"
#include "answers/ans_fcache.h"

#define FC_SLOTS (1u << 16)

struct fc_ent {
	uint64_t addr;
	uint32_t pid, gen;
	uint8_t cpumode;
	bool used;
	struct ans_frame f;
};

struct fc_gen {
	uint32_t pid, gen;
	bool used;
};

struct ans_fcache {
	struct fc_ent *v;
	struct fc_gen *gens; /* open addressing by pid */
	size_t gens_cap, ngens;
};

struct ans_fcache *ans_fcache_new(void)
{
	struct ans_fcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->v = tool_zalloc(FC_SLOTS, sizeof(*c->v));
	c->gens_cap = 1024;
	c->gens = tool_zalloc(c->gens_cap, sizeof(*c->gens));
	if (!c->v || !c->gens) {
		ans_fcache_free(c);
		return NULL;
	}
	return c;
}

void ans_fcache_free(struct ans_fcache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c->gens);
	free(c);
}

static struct fc_gen *gen_slot(struct fc_gen *t, size_t cap, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (cap - 1);

	while (t[i].used && t[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static uint32_t gen_of(const struct ans_fcache *c, uint32_t pid)
{
	const struct fc_gen *g = gen_slot(c->gens, c->gens_cap, pid);

	return g->used ? g->gen : 0;
}

void ans_fcache_changed(struct ans_fcache *c, uint32_t pid)
{
	struct fc_gen *g;

	if ((c->ngens + 1) * 2 > c->gens_cap) {
		size_t cap = c->gens_cap * 2, i;
		struct fc_gen *t = tool_zalloc(cap, sizeof(*t));

		if (!t) {
			/* Cannot track it: forget every entry rather than keep a stale one. */
			memset(c->v, 0, FC_SLOTS * sizeof(*c->v));
			return;
		}
		for (i = 0; i < c->gens_cap; i++)
			if (c->gens[i].used)
				*gen_slot(t, cap, c->gens[i].pid) = c->gens[i];
		free(c->gens);
		c->gens = t;
		c->gens_cap = cap;
	}
	g = gen_slot(c->gens, c->gens_cap, pid);
	if (!g->used) {
		g->used = true;
		g->pid = pid;
		g->gen = 0;
		c->ngens++;
	}
	g->gen++;
}

static struct fc_ent *slot(const struct ans_fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 32) ^ cpumode) * 0x9e3779b97f4a7c15ull;

	return &c->v[h >> (64 - 16)];
}

bool ans_fcache_get(struct ans_fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, struct ans_frame *f)
{
	const struct fc_ent *e = slot(c, pid, cpumode, addr);

	if (!e->used || e->addr != addr || e->pid != pid || e->cpumode != cpumode || e->gen != gen_of(c, pid))
		return false;
	*f = e->f;
	return true;
}

void ans_fcache_put(struct ans_fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, const struct ans_frame *f)
{
	struct fc_ent *e = slot(c, pid, cpumode, addr);

	e->used = true;
	e->addr = addr;
	e->pid = pid;
	e->cpumode = (uint8_t)cpumode;
	e->gen = gen_of(c, pid);
	e->f = *f;
}

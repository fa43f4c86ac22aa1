// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A direct-mapped cache of named frames, with a generation per process. */
#include <stdlib.h>
#include <string.h>

#include "shared/zalloc.h"
#include "shared/fcache.h"

#define FC_SLOTS (1u << 16)
#define IC_SLOTS (1u << 12)

struct fc_ent {
	uint64_t addr;
	uint32_t pid, gen;
	uint8_t cpumode;
	bool used;
	struct named_frame f;
};

/* An unwound frame with its inlined functions: the frames it expands to. */
struct ic_ent {
	uint64_t addr;
	uint32_t pid, gen;
	bool used;
	uint32_t n;
	struct named_frame *frames;
};

struct fc_gen {
	uint32_t pid, gen;
	bool used;
};

struct fcache {
	struct fc_ent *v;
	struct ic_ent *inl;
	struct fc_gen *gens; /* open addressing by pid */
	size_t gens_cap, ngens;
};

struct fcache *fcache_new(void)
{
	struct fcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->v = tool_zalloc(FC_SLOTS, sizeof(*c->v));
	c->inl = tool_zalloc(IC_SLOTS, sizeof(*c->inl));
	c->gens_cap = 1024;
	c->gens = tool_zalloc(c->gens_cap, sizeof(*c->gens));
	if (!c->v || !c->inl || !c->gens) {
		fcache_free(c);
		return NULL;
	}
	return c;
}

static void forget_inlines(struct fcache *c)
{
	size_t i;

	for (i = 0; c->inl && i < IC_SLOTS; i++) {
		free(c->inl[i].frames);
		c->inl[i] = (struct ic_ent){ 0 };
	}
}

void fcache_free(struct fcache *c)
{
	if (!c)
		return;
	forget_inlines(c);
	free(c->inl);
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

static uint32_t gen_of(const struct fcache *c, uint32_t pid)
{
	const struct fc_gen *g = gen_slot(c->gens, c->gens_cap, pid);

	return g->used ? g->gen : 0;
}

void fcache_changed(struct fcache *c, uint32_t pid)
{
	struct fc_gen *g;

	if ((c->ngens + 1) * 2 > c->gens_cap) {
		size_t cap = c->gens_cap * 2, i;
		struct fc_gen *t = tool_zalloc(cap, sizeof(*t));

		if (!t) {
			/* Cannot track it: forget every entry rather than keep a stale one. */
			memset(c->v, 0, FC_SLOTS * sizeof(*c->v));
			forget_inlines(c);
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

static struct fc_ent *slot(const struct fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 32) ^ cpumode) * 0x9e3779b97f4a7c15ull;

	return &c->v[h >> (64 - 16)];
}

bool fcache_get(struct fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, struct named_frame *f)
{
	const struct fc_ent *e = slot(c, pid, cpumode, addr);

	if (!e->used || e->addr != addr || e->pid != pid || e->cpumode != cpumode || e->gen != gen_of(c, pid))
		return false;
	*f = e->f;
	return true;
}

void fcache_put(struct fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, const struct named_frame *f)
{
	struct fc_ent *e = slot(c, pid, cpumode, addr);

	e->used = true;
	e->addr = addr;
	e->pid = pid;
	e->cpumode = (uint8_t)cpumode;
	e->gen = gen_of(c, pid);
	e->f = *f;
}

static struct ic_ent *inl_slot(const struct fcache *c, uint32_t pid, uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 32)) * 0x9e3779b97f4a7c15ull;

	return &c->inl[h >> (64 - 12)];
}

size_t fcache_get_inlines(struct fcache *c, uint32_t pid, uint64_t addr, const struct named_frame **frames)
{
	const struct ic_ent *e = inl_slot(c, pid, addr);

	if (!e->used || e->addr != addr || e->pid != pid || e->gen != gen_of(c, pid))
		return 0;
	*frames = e->frames;
	return e->n;
}

void fcache_put_inlines(struct fcache *c, uint32_t pid, uint64_t addr, const struct named_frame *frames,
			    size_t n)
{
	struct ic_ent *e = inl_slot(c, pid, addr);
	struct named_frame *copy;

	if (!n || n > UINT32_MAX || !(copy = malloc(n * sizeof(*copy))))
		return; /* not kept: made again next time */
	memcpy(copy, frames, n * sizeof(*copy));
	free(e->frames);
	*e = (struct ic_ent){ .addr = addr, .pid = pid, .gen = gen_of(c, pid), .used = true, .n = (uint32_t)n,
			      .frames = copy };
}

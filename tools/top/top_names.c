// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `perfring top`'s naming of frames: see top_names.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>

#include "shared/demangle.h"
#include "top/top_names.h"

#define NAMES_CACHE 65536  /* addresses, a power of two */
#define NAMES_TRIED 4096   /* pids loaded from /proc since the last flush */
#define KERNEL_SPACE 0xffff800000000000ull

struct name_ent {
	uint64_t addr;
	uint32_t pid; /* PERFRING_PID_KERNEL for kernel addresses */
	uint32_t gen; /* the process's image (exec generation) */
	uint32_t sym; /* TOP_NONE: a free slot */
};

struct top_names {
	struct top_table *t;
	struct perfring_symbolizer *sym;
	struct demangler *dm;
	struct name_ent *cache;
	size_t used;
	uint32_t tried[NAMES_TRIED]; /* pid + 1; 0 free */
	size_t ntried;
};

static struct perfring_symbolizer *symbolizer_new(void)
{
	struct perfring_symbolizer_opts so = { .sz = sizeof(so) };

	return perfring_symbolizer_new(&so);
}

struct top_names *top_names_new(struct top_table *t)
{
	struct top_names *n = calloc(1, sizeof(*n));
	size_t i;

	if (!n)
		return NULL;
	n->t = t;
	n->sym = symbolizer_new();
	n->dm = demangler_new();
	n->cache = malloc(NAMES_CACHE * sizeof(*n->cache));
	if (!n->sym || !n->dm || !n->cache) {
		top_names_free(n);
		return NULL;
	}
	for (i = 0; i < NAMES_CACHE; i++)
		n->cache[i].sym = TOP_NONE;
	return n;
}

static void cache_clear(struct top_names *n)
{
	size_t i;

	for (i = 0; i < NAMES_CACHE; i++) {
		if (n->cache[i].sym != TOP_NONE)
			top_table_unref(n->t, n->cache[i].sym);
		n->cache[i].sym = TOP_NONE;
	}
	n->used = 0;
	memset(n->tried, 0, sizeof(n->tried));
	n->ntried = 0;
}

void top_names_free(struct top_names *n)
{
	if (!n)
		return;
	if (n->cache)
		cache_clear(n);
	free(n->cache);
	perfring_symbolizer_free(n->sym);
	demangler_free(n->dm);
	free(n);
}

void top_names_flush(struct top_names *n, bool symbols)
{
	struct perfring_symbolizer *s;
	struct demangler *d;

	cache_clear(n);
	if (!symbols)
		return;
	/* the demangler caches by the symbolizer's name pointers: both go */
	s = symbolizer_new();
	d = demangler_new();
	if (!s || !d) {
		perfring_symbolizer_free(s);
		demangler_free(d);
		return; /* keep the old ones */
	}
	perfring_symbolizer_free(n->sym);
	demangler_free(n->dm);
	n->sym = s;
	n->dm = d;
}

size_t top_names_cached(const struct top_names *n)
{
	return n->used;
}

uint64_t top_names_symbolizer_entries(const struct top_names *n)
{
	struct perfring_symbolizer_stats st;

	if (perfring_symbolizer_stats(n->sym, &st))
		return 0;
	return st.lookups - st.cache_hits;
}

static bool kernel_mode(unsigned cpumode, uint64_t addr)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && addr >= KERNEL_SPACE);
}

/* A pid the model has not seen: load it from /proc, once per flush. */
static bool load_once(struct top_names *n, struct perfring_procs *procs, uint32_t pid)
{
	size_t i;

	for (i = (pid * 2654435761u) & (NAMES_TRIED - 1); n->tried[i]; i = (i + 1) & (NAMES_TRIED - 1))
		if (n->tried[i] == pid + 1)
			return false;
	if (n->ntried * 2 >= NAMES_TRIED)
		return false; /* a storm of unknown pids: they stay unnamed until the next flush */
	n->tried[i] = pid + 1;
	n->ntried++;
	return perfring_procs_load_proc(procs, pid) == 0;
}

/* The uncached naming, perf's way: the function demangled, the binary as mapped. */
static uint32_t name_uncached(struct top_names *n, struct perfring_procs *procs, uint32_t pid, uint64_t addr,
			      unsigned cpumode, bool kernel)
{
	struct perfring_sym_result res;
	struct perfring_map_hit hit;
	const char *dso = kernel ? "[kernel.kallsyms]" : "[unknown]", *name = NULL;
	int look = 0;

	memset(&res, 0, sizeof(res));
	if (!kernel) {
		look = perfring_procs_lookup(procs, pid, addr, &hit);
		if (look == -ESRCH && load_once(n, procs, pid))
			look = perfring_procs_lookup(procs, pid, addr, &hit);
		if (look == 0)
			dso = hit.path;
	}
	if (look == 0 && perfring_symbolize(n->sym, procs, pid, addr, cpumode, &res) == 0) {
		name = demangle(n->dm, res.name);
		if (kernel && res.binary)
			dso = res.binary;
	} else if (kernel && look == 0 && res.binary) {
		dso = res.binary;
	}
	return top_table_intern(n->t, name, dso, kernel);
}

static size_t slot_of(uint32_t key, uint32_t gen, uint64_t addr)
{
	return ((addr ^ (key | (uint64_t)gen << 32) * 0x9e3779b97f4a7c15ull) * 0x9e3779b97f4a7c15ull >> 40) &
	       (NAMES_CACHE - 1);
}

uint32_t top_names_frame(struct top_names *n, struct perfring_procs *procs, uint32_t pid, uint64_t addr,
			 unsigned cpumode, uint32_t gen)
{
	bool kernel = kernel_mode(cpumode, addr);
	uint32_t key = kernel ? PERFRING_PID_KERNEL : pid, id;
	size_t i;

	/* kernel addresses mean the same in every process */
	if (kernel)
		gen = 0;
	for (i = slot_of(key, gen, addr); n->cache[i].sym != TOP_NONE; i = (i + 1) & (NAMES_CACHE - 1))
		if (n->cache[i].addr == addr && n->cache[i].pid == key && n->cache[i].gen == gen)
			return n->cache[i].sym;
	if (n->used * 4 >= NAMES_CACHE * 3) {
		/* full: start over (the symbolizer still has every binary read) */
		cache_clear(n);
		i = slot_of(key, gen, addr);
	}
	id = name_uncached(n, procs, pid, addr, cpumode, kernel);
	if (id == TOP_NONE)
		return TOP_NONE;
	n->cache[i] = (struct name_ent){ addr, key, gen, id };
	n->used++;
	return id;
}

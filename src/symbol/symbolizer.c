// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer: (pid, address) -> mapping (process model) -> (binary, file
 * offset) -> function, file:line and inlined frames. Binaries are read once
 * (keyed by recorded name and build id) and every answer, unknown ones
 * included, is cached by (binary, file offset), so a hot address costs a
 * hash lookup. Kernel addresses go to KSYMBOL ranges, then kallsyms;
 * anonymous memory to the process's JIT map.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "symbol/symbol_internal.h"

#define KSYMBOL_TYPE_BPF 1
/* x86-64's kernel half (used when a record's cpumode is unknown). */
#define KERNEL_START 0xffff800000000000ull

struct bin_slot {
	const char *path; /* interned: pointer equality is name equality */
	uint64_t ino;
	uint8_t rbid_size; /* the recorded build id (the key), not the file's */
	uint8_t rbid[PERFRING_BUILD_ID_MAX];
	struct pr_binary bin;
};

struct cache_ent {
	const struct bin_slot *slot;
	uint64_t off;
	int err;
	const char *reason;
	const char *name;
	uint64_t sym_addr, sym_size, elf_addr;
	uint8_t source;
	bool object;
	uint32_t nframes;
	struct perfring_sym_frame *frames;
};

struct jit_ent {
	uint32_t pid;
	struct pr_table t;
};

struct perfring_symbolizer {
	struct pr_strtab strs;
	char **dirs; /* NULL-terminated, owned */
	char *kallsyms, *jit_dir, *root;
	bool lines, inlines;
	struct pr_bin_ctx ctx;
	struct bin_slot **bins; /* open addressing */
	size_t bins_cap, nbins;
	struct cache_ent **cache; /* open addressing */
	size_t cache_cap, ncache;
	struct pr_table ktab;
	bool ktab_loaded;
	int kbid_state; /* 0 unchecked, 1 same or unknown, -1 mismatch */
	const char *kbid_reason;
	bool kdelta_done;
	uint64_t kdelta; /* the running kernel's addresses less the recorded ones (KASLR) */
	struct jit_ent *jits;
	size_t njits, jits_cap;
	size_t jit_last; /* the entry found last: a process's samples come together */
	struct perfring_symbolizer_stats stats;
};

static char *dup_or(const char *s, const char *def)
{
	return strdup(s ? s : def);
}

struct perfring_symbolizer *perfring_symbolizer_new(const struct perfring_symbolizer_opts *opts)
{
	const char *const *dirs = PR_OPT(opts, debug_dirs, NULL);
	const char *home = getenv("HOME");
	struct perfring_symbolizer *s;
	size_t n = 0, i;
	int r;

	r = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(struct perfring_symbolizer_opts),
			  "perfring_symbolizer_opts");
	if (r)
		return pr_errno_null(-r);
	s = calloc(1, sizeof(*s));
	if (!s)
		return pr_fail_null(ENOMEM, "perfring_symbolizer_new: out of memory");
	if (dirs)
		while (dirs[n])
			n++;
	s->dirs = calloc(n + 3, sizeof(*s->dirs));
	if (!s->dirs)
		goto oom;
	if (dirs) {
		for (i = 0; i < n; i++)
			if (!(s->dirs[i] = strdup(dirs[i])))
				goto oom;
	} else {
		if (!(s->dirs[0] = strdup("/usr/lib/debug")))
			goto oom;
		if (home && *home && asprintf(&s->dirs[1], "%s/.debug", home) < 0) {
			s->dirs[1] = NULL;
			goto oom;
		}
	}
	s->kallsyms = dup_or(PR_OPT(opts, kallsyms, NULL), "/proc/kallsyms");
	s->jit_dir = dup_or(PR_OPT(opts, jit_dir, NULL), "/tmp");
	s->root = dup_or(PR_OPT(opts, root, NULL), "");
	if (!s->kallsyms || !s->jit_dir || !s->root)
		goto oom;
	s->inlines = PR_OPT(opts, inlines, false);
	s->lines = PR_OPT(opts, lines, false) || s->inlines;
	s->ctx.strs = &s->strs;
	s->ctx.debug_dirs = (const char *const *)s->dirs;
	s->ctx.root = s->root;
	s->ctx.nsymbols = &s->stats.symbols;
	s->ctx.shown_name = PR_OPT(opts, shown_name, NULL);
	s->ctx.shown_name_arg = PR_OPT(opts, shown_name_arg, NULL);
	return s;
oom:
	perfring_symbolizer_free(s);
	return pr_fail_null(ENOMEM, "perfring_symbolizer_new: out of memory");
}

void perfring_symbolizer_free(struct perfring_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->bins_cap; i++) {
		if (s->bins[i]) {
			pr_binary_dwarf_close(&s->bins[i]->bin);
			pr_binary_free(&s->bins[i]->bin);
			free(s->bins[i]);
		}
	}
	free(s->bins);
	for (i = 0; i < s->cache_cap; i++) {
		if (s->cache[i]) {
			free(s->cache[i]->frames);
			free(s->cache[i]);
		}
	}
	free(s->cache);
	for (i = 0; i < s->njits; i++)
		pr_table_free(&s->jits[i].t);
	free(s->jits);
	pr_table_free(&s->ktab);
	for (i = 0; s->dirs && s->dirs[i]; i++)
		free(s->dirs[i]);
	free(s->dirs);
	free(s->kallsyms);
	free(s->jit_dir);
	free(s->root);
	pr_strtab_free(&s->strs);
	free(s);
}

int perfring_symbolizer_stats(const struct perfring_symbolizer *s, struct perfring_symbolizer_stats *st)
{
	if (!s || !st)
		return pr_fail(EINVAL, "perfring_symbolizer_stats: NULL %s", s ? "stats" : "symbolizer");
	*st = s->stats;
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Grow an open-addressing table of pointers; hash_of gives each entry's hash. */
static int grow_table(void ***tab, size_t *cap, uint64_t (*hash_of)(const void *))
{
	size_t ncap = *cap ? *cap * 2 : 64, i, j;
	void **nt = pr_zalloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < *cap; i++) {
		if (!(*tab)[i])
			continue;
		for (j = hash_of((*tab)[i]) & (ncap - 1); nt[j]; j = (j + 1) & (ncap - 1))
			;
		nt[j] = (*tab)[i];
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

static uint64_t slot_hash(const char *path, const uint8_t *bid, size_t n, uint64_t ino)
{
	return mix((uint64_t)(uintptr_t)path ^ pr_hash_bytes(bid, n, PR_HASH_SEED) ^ (ino * 31));
}

static uint64_t slot_hash_of(const void *p)
{
	const struct bin_slot *b = p;

	return slot_hash(b->path, b->rbid, b->rbid_size, b->ino);
}

static uint64_t ent_hash(const struct bin_slot *slot, uint64_t off)
{
	return mix((uint64_t)(uintptr_t)slot * 0x9e3779b97f4a7c15ull ^ off);
}

static uint64_t ent_hash_of(const void *p)
{
	const struct cache_ent *e = p;

	return ent_hash(e->slot, e->off);
}

/* The binary for (name, recorded build id, recorded inode), read on first use. */
static struct bin_slot *get_binary(struct perfring_symbolizer *s, const char *path, const uint8_t *bid,
				   size_t bid_size, const struct pr_map *rec)
{
	const char *ipath = pr_intern_str(&s->strs, path);
	uint64_t ino = bid_size || !rec ? 0 : rec->ino;
	struct bin_slot *b;
	size_t j;

	if (!ipath)
		return NULL;
	if (bid_size > PERFRING_BUILD_ID_MAX)
		bid_size = PERFRING_BUILD_ID_MAX;
	if ((s->nbins + 1) * 2 > s->bins_cap && grow_table((void ***)&s->bins, &s->bins_cap, slot_hash_of))
		return NULL;
	for (j = slot_hash(ipath, bid, bid_size, ino) & (s->bins_cap - 1); (b = s->bins[j]);
	     j = (j + 1) & (s->bins_cap - 1))
		if (b->path == ipath && b->ino == ino && b->rbid_size == bid_size &&
		    (!bid_size || !memcmp(b->rbid, bid, bid_size)))
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->path = ipath;
	b->ino = ino;
	b->rbid_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(b->rbid, bid, bid_size);
	b->bin.path = ipath;
	pr_binary_load(&b->bin, &s->ctx, path, bid, bid_size, rec);
	s->bins[j] = b;
	s->nbins++;
	s->stats.binaries++;
	return b;
}

static const char *fmt_reason(struct perfring_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const char *fmt_reason(struct perfring_symbolizer *s, const char *fmt, ...)
{
	char buf[768];
	const char *r;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r = pr_intern_str(&s->strs, buf);
	return r ? r : "out of memory";
}

/* Work out the answer for (binary, offset); the entry is then cached. */
static int compute(struct perfring_symbolizer *s, struct bin_slot *slot, uint64_t off, struct cache_ent *e)
{
	struct pr_binary *b = &slot->bin;
	const struct pr_sym *sym;
	struct perfring_sym_frame *frames = NULL;
	int n;

	if (b->err) {
		e->err = b->err;
		e->reason = b->reason;
		return 0;
	}
	if (pr_binary_vaddr(b, off, &e->elf_addr)) {
		e->err = -ENOENT;
		e->reason = fmt_reason(s, "file offset %#llx is in no PT_LOAD segment of %s", (unsigned long long)off,
				       b->opened);
		return 0;
	}
	sym = pr_binary_sym(b, e->elf_addr);
	if (!sym) {
		e->err = b->nsyms ? -ENOENT : -ENODATA;
		e->reason = b->nsyms ? fmt_reason(s, "no symbol of %s covers %#llx", b->opened,
						  (unsigned long long)e->elf_addr)
				     : b->nosym_reason;
		return 0;
	}
	e->name = sym->name;
	e->sym_addr = sym->addr;
	e->sym_size = sym->size;
	e->source = sym->source;
	e->object = sym->object;
	if (s->lines) {
		n = pr_binary_frames(b, &s->ctx, s->inlines, e->elf_addr, &frames);
		if (n < 0)
			return n;
		e->frames = frames;
		e->nframes = (uint32_t)n;
	}
	return 0;
}

static int fill_from(const struct cache_ent *e, const struct bin_slot *slot, struct perfring_sym_result *out)
{
	const struct pr_binary *b = &slot->bin;

	out->binary = slot->path;
	out->debug_file = b->debug_path ? b->debug_path : (b->opened && b->opened != slot->path &&
							    strcmp(b->opened, slot->path) ? b->opened : NULL);
	out->elf_addr = e->elf_addr;
	if (e->err) {
		out->reason = e->reason;
		return e->err;
	}
	out->name = e->name;
	out->sym_addr = e->sym_addr;
	out->sym_size = e->sym_size;
	out->offset = e->elf_addr - e->sym_addr;
	out->source = e->source;
	out->flags = e->object ? PERFRING_SYM_OBJECT : 0;
	out->frames = e->frames;
	out->nr_frames = e->nframes;
	if (e->nframes) {
		out->file = e->frames[0].file;
		out->line = e->frames[0].line;
		out->column = e->frames[0].column;
	}
	return 0;
}

static int finish(struct perfring_symbolizer *s, int r, struct perfring_sym_result *out, const char *where)
{
	if (r == 0) {
		s->stats.resolved++;
		return 0;
	}
	if (!out->reason)
		out->reason = perfring_strerror(r);
	return pr_fail(-r, "%s: %s", where, out->reason);
}

static int resolve_file(struct perfring_symbolizer *s, const char *path, const uint8_t *bid, size_t bid_size,
			const struct pr_map *rec, uint64_t off, struct perfring_sym_result *out)
{
	struct bin_slot *slot = get_binary(s, path, bid, bid_size, rec);
	struct cache_ent *e;
	size_t j;
	int r;

	out->file_offset = off;
	if (!slot)
		return -ENOMEM;
	if ((s->ncache + 1) * 2 > s->cache_cap && grow_table((void ***)&s->cache, &s->cache_cap, ent_hash_of))
		return -ENOMEM;
	for (j = ent_hash(slot, off) & (s->cache_cap - 1); (e = s->cache[j]); j = (j + 1) & (s->cache_cap - 1)) {
		if (e->slot == slot && e->off == off) {
			s->stats.cache_hits++;
			return fill_from(e, slot, out);
		}
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->slot = slot;
	e->off = off;
	r = compute(s, slot, off, e);
	if (r) {
		free(e);
		return r;
	}
	s->cache[j] = e;
	s->ncache++;
	return fill_from(e, slot, out);
}

int perfring_symbolize_file(struct perfring_symbolizer *s, const char *path, const uint8_t *build_id,
			    size_t build_id_size, uint64_t file_offset, struct perfring_sym_result *out)
{
	int r;

	if (!s || !path || !out || (build_id_size && !build_id))
		return pr_fail(EINVAL, "perfring_symbolize_file: NULL argument");
	memset(out, 0, sizeof(*out));
	s->stats.lookups++;
	r = resolve_file(s, path, build_id, build_id_size, NULL, file_offset, out);
	return finish(s, r, out, path);
}

/*
 * KASLR: a recording's kernel addresses are those of its boot. perf record
 * writes where its reference symbol (_text) was as the kernel map's pgoff;
 * the kallsyms read has it where it is now. The difference relocates the
 * core kernel's addresses, as perf's kallsyms__delta() does (0 when the
 * recording has no such map or kallsyms no such symbol).
 */
static uint64_t kernel_delta(const struct pr_table *ktab, const struct perfring_procs *procs)
{
	const char *name;
	uint64_t rec, now;

	if (!pr_procs_kernel_ref(procs, &name, &rec) || !rec)
		return 0;
	now = !strcmp(name, "_text") ? ktab->text : !strcmp(name, "_stext") ? ktab->stext : 0;
	return now ? now - rec : 0;
}

static int kernel_symbol(struct perfring_symbolizer *s, const struct perfring_procs *procs, uint64_t addr,
			 struct perfring_sym_result *out)
{
	const struct pr_tent *t;

	out->file_offset = addr;
	out->elf_addr = addr;
	if (procs) {
		const struct pr_ksym *k = pr_procs_ksym(procs, addr);

		if (k) {
			out->name = k->name;
			out->sym_addr = k->addr;
			out->sym_size = k->len;
			out->offset = addr - k->addr;
			out->source = PERFRING_SYM_KSYMBOL;
			out->binary = k->type == KSYMBOL_TYPE_BPF ? "[bpf]" : "[kernel.jit]";
			return 0;
		}
	}
	out->binary = "[kernel.kallsyms]";
	if (!*s->kallsyms) {
		out->reason = "no kernel symbols (the symbolizer's kallsyms option is empty)";
		return -ENOENT;
	}
	if (!s->ktab_loaded) {
		s->ktab_loaded = true;
		pr_kallsyms_load(&s->ktab, &s->strs, s->kallsyms);
	}
	if (s->ktab.err) {
		out->reason = s->ktab.reason;
		return s->ktab.err;
	}
	/* A recording of another kernel must not be named with this one's symbols. */
	if (procs && s->kbid_state == 0 && !strcmp(s->kallsyms, "/proc/kallsyms")) {
		uint8_t rec[PERFRING_BUILD_ID_MAX], run[PERFRING_BUILD_ID_MAX];
		size_t nrec = pr_procs_kernel_build_id(procs, rec), nrun = nrec ? pr_running_kernel_build_id(run) : 0;

		s->kbid_state = 1;
		if (nrec && nrun && (nrec != nrun || memcmp(rec, run, nrec))) {
			char a[2 * PERFRING_BUILD_ID_MAX + 1], b[2 * PERFRING_BUILD_ID_MAX + 1];

			pr_build_id_hex(rec, nrec, a);
			pr_build_id_hex(run, nrun, b);
			s->kbid_state = -1;
			s->kbid_reason = fmt_reason(s, "kernel build id mismatch: recorded %s, running %s", a, b);
		}
	}
	if (procs && s->kbid_state < 0) {
		out->reason = s->kbid_reason;
		return -ESTALE;
	}
	if (procs && !s->kdelta_done) {
		s->kdelta_done = true;
		s->kdelta = kernel_delta(&s->ktab, procs);
	}
	/* The core kernel moves as a whole between boots; modules each on their own
	 * (no delta known for them: their addresses are looked up as recorded). */
	t = pr_table_find(&s->ktab, addr + s->kdelta);
	if (s->kdelta) {
		if (t && !strcmp(t->mod, "[kernel.kallsyms]")) {
			addr += s->kdelta;
		} else {
			t = pr_table_find(&s->ktab, addr);
			if (t && !strcmp(t->mod, "[kernel.kallsyms]"))
				t = NULL;
		}
	}
	if (!t) {
		out->reason = fmt_reason(s, "no kernel symbol covers %#llx", (unsigned long long)addr);
		return -ENOENT;
	}
	out->name = t->name;
	out->binary = t->mod;
	out->sym_addr = t->addr - (addr - out->elf_addr);
	out->sym_size = t->end - t->addr;
	out->offset = addr - t->addr;
	out->source = PERFRING_SYM_KALLSYMS;
	out->flags = t->object ? PERFRING_SYM_OBJECT : 0;
	return 0;
}

/* The JIT map of pid, read on first use. */
static const struct pr_table *jit_table(struct perfring_symbolizer *s, uint32_t pid)
{
	char path[4096];
	size_t i;

	if (s->jit_last < s->njits && s->jits[s->jit_last].pid == pid)
		return &s->jits[s->jit_last].t;
	for (i = 0; i < s->njits; i++)
		if (s->jits[i].pid == pid) {
			s->jit_last = i;
			return &s->jits[i].t;
		}
	if (s->njits == s->jits_cap) {
		size_t cap = s->jits_cap ? s->jits_cap * 2 : 16;
		struct jit_ent *v = realloc(s->jits, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->jits = v;
		s->jits_cap = cap;
	}
	snprintf(path, sizeof(path), "%s/perf-%u.map", s->jit_dir, pid);
	s->jits[s->njits].pid = pid;
	pr_jitmap_load(&s->jits[s->njits].t, &s->strs, path);
	s->jit_last = s->njits;
	return &s->jits[s->njits++].t;
}

static int jit_symbol(struct perfring_symbolizer *s, uint32_t pid, uint64_t addr, struct perfring_sym_result *out)
{
	const struct pr_table *t;
	const struct pr_tent *e;

	if (!*s->jit_dir)
		return -ENOENT;
	t = jit_table(s, pid);
	if (!t)
		return -ENOMEM;
	if (t->err || !(e = pr_table_find(t, addr)))
		return -ENOENT;
	out->name = e->name;
	out->binary = e->mod;
	out->sym_addr = e->addr;
	out->sym_size = e->end - e->addr;
	out->offset = addr - e->addr;
	out->file_offset = addr;
	out->elf_addr = addr;
	out->source = PERFRING_SYM_JIT_MAP;
	return 0;
}

static bool is_kernel_mode(unsigned cpumode, uint64_t addr)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return true;
	return cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && addr >= KERNEL_START;
}

static int user_symbol(struct perfring_symbolizer *s, const struct perfring_procs *procs, uint32_t pid,
		       uint64_t addr, struct perfring_sym_result *out)
{
	struct perfring_map_hit hit;
	int r;

	if (!procs) {
		out->reason = "no process model given (procs is NULL)";
		return -ESRCH;
	}
	r = perfring_procs_lookup(procs, pid, addr, &hit);
	if (r == 0 && !hit.anon) {
		struct pr_map rec = { .maj = hit.maj, .min = hit.min, .ino = hit.ino };

		return resolve_file(s, hit.path, hit.build_id, hit.build_id_size, &rec, hit.file_offset, out);
	}
	/* JIT code lives in anonymous memory, or in memory mapped before a
	 * recording that did not describe it. */
	if (jit_symbol(s, pid, addr, out) == 0)
		return 0;
	if (r) {
		out->reason = hit.reason;
		return r;
	}
	out->binary = hit.path;
	out->file_offset = hit.file_offset;
	out->reason = fmt_reason(s, "anonymous memory (%s) and no entry in %s/perf-%u.map", hit.path, s->jit_dir,
				 pid);
	return -ENODATA;
}

int perfring_symbolize(struct perfring_symbolizer *s, const struct perfring_procs *procs, uint32_t pid,
		       uint64_t addr, unsigned cpumode, struct perfring_sym_result *out)
{
	char where[64];
	int r;

	if (!s || !out)
		return pr_fail(EINVAL, "perfring_symbolize: NULL %s", s ? "result" : "symbolizer");
	memset(out, 0, sizeof(*out));
	s->stats.lookups++;
	if (cpumode == PERF_RECORD_MISC_HYPERVISOR) {
		out->reason = "hypervisor address";
		r = -ENOENT;
	} else if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER) {
		/* The host's kallsyms and processes say nothing of a guest's. */
		out->reason = "guest address (no model of the guest's kernel or processes)";
		r = -ENOENT;
	} else if (is_kernel_mode(cpumode, addr)) {
		r = kernel_symbol(s, procs, addr, out);
	} else {
		r = user_symbol(s, procs, pid, addr, out);
	}
	snprintf(where, sizeof(where), "pid %d address %#llx", (int)pid, (unsigned long long)addr);
	return finish(s, r, out, where);
}

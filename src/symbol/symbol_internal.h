/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The symbol layer's internals: string pool, process model, binaries, kernel tables. */
#ifndef PERFRING_SYMBOL_INTERNAL_H
#define PERFRING_SYMBOL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/symbol.h>

#include "common/internal.h"

/* ---- String pool (sym_strtab.c) ----
 * Interned strings live until the pool is freed, so that names and paths
 * handed out in results never dangle. Each carries a build id slot (used for
 * file names: perfring_procs_set_build_id(), /proc loading). */
struct pr_istr {
	uint64_t hash;
	uint8_t bid_size;
	uint8_t bid_tried; /* /proc loading read (or failed to read) the file's build id */
	uint8_t bid[PERFRING_BUILD_ID_MAX];
	char s[];
};

struct pr_strblk;
struct pr_strtab {
	struct pr_istr **slots;
	size_t cap, n;
	/* the entries live in blocks (a symbol table's names are tens of
	 * thousands of small strings: one allocation each cost more than the
	 * rest of loading it), the newest first, freed with the table */
	struct pr_strblk *blk;
	size_t used, size;
};

/* The pooled copy of s[0..len) (NUL added), or NULL on ENOMEM. */
const char *pr_intern(struct pr_strtab *t, const char *s, size_t len);
/* A copy of s[0..len) kept as long as the pool, not shared (no lookup: for
 * the many names of a table read once, whose copies need not be one). */
const char *pr_strtab_copy(struct pr_strtab *t, const char *s, size_t len);
static inline const char *pr_intern_str(struct pr_strtab *t, const char *s)
{
	return pr_intern(t, s, __builtin_strlen(s));
}
/* The entry of a string pr_intern() returned. */
static inline struct pr_istr *pr_istr_of(const char *s)
{
	return (struct pr_istr *)(void *)(s - offsetof(struct pr_istr, s));
}
void pr_strtab_free(struct pr_strtab *t);
uint64_t pr_hash_bytes(const void *p, size_t n, uint64_t h);
#define PR_HASH_SEED 0xcbf29ce484222325ull

/* Lowercase hex of a build id into out (2 * size + 1 bytes). */
void pr_build_id_hex(const uint8_t *id, size_t size, char *out);

/* ---- Process model (procs.c, procs_proc.c) ---- */
struct pr_map {
	uint64_t start, end, pgoff;
	const char *path; /* interned */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t bid_size;
	uint8_t bid[PERFRING_BUILD_ID_MAX];
};

struct pr_proc {
	uint32_t pid;
	bool exited;
	const char *comm; /* interned */
	struct pr_map *maps; /* sorted by start, never overlapping */
	size_t n, cap;
	/* The image before the last exec (sorted likewise): addresses no current
	 * mapping holds are looked up there, as perf keeps an exec's old mappings
	 * until new ones replace them. Not inherited by a FORK. */
	struct pr_map *pre_exec;
	size_t npre_exec;
};

struct pr_ksym {
	uint64_t addr, len;
	uint16_t type;
	const char *name; /* interned */
};

struct perfring_procs {
	char *proc_root;
	bool no_build_ids;
	struct pr_strtab strs;
	struct pr_proc **tab; /* open addressing by pid */
	size_t tab_cap, nprocs;
	struct pr_ksym *ksyms; /* sorted by addr */
	size_t nksyms, ksyms_cap;
	uint64_t bpf_events, records, nmaps;
};

struct pr_proc *pr_procs_get(struct perfring_procs *p, uint32_t pid, bool create);
const struct pr_proc *pr_procs_find(const struct perfring_procs *p, uint32_t pid);
/* Add a mapping, replacing what it overlaps. 0 or -ENOMEM. */
int pr_proc_add_map(struct perfring_procs *p, struct pr_proc *proc, const struct pr_map *m);
void pr_proc_clear_maps(struct perfring_procs *p, struct pr_proc *proc);
/* The KSYMBOL entry holding addr, or NULL. */
const struct pr_ksym *pr_procs_ksym(const struct perfring_procs *p, uint64_t addr);
/* The build id recorded for the kernel image ([kernel.kallsyms] mapping), size or 0. */
size_t pr_procs_kernel_build_id(const struct perfring_procs *p, uint8_t id[PERFRING_BUILD_ID_MAX]);
/* The recorded kernel's reference symbol: perf record's kernel map is
 * "[kernel.kallsyms]NAME" with NAME's address (_text) as its pgoff. */
bool pr_procs_kernel_ref(const struct perfring_procs *p, const char **name, uint64_t *addr);

/* ---- Address tables: kallsyms and JIT maps (sym_kernel.c) ---- */
struct pr_tent {
	uint64_t addr, end;
	const char *name; /* interned */
	const char *mod;  /* interned "[kernel.kallsyms]", "[MODULE]", or the JIT map's path */
	bool object;      /* kallsyms: a data symbol (d/D/b/B), not text */
};

struct pr_table {
	struct pr_tent *v;
	size_t n;
	int err;            /* 0, or why the table is unusable */
	const char *reason; /* interned */
	uint64_t text, stext; /* kallsyms: where _text and _stext are (0: absent), to relocate by */
};

/* Kernel symbols from a kallsyms file (text and data symbols, sorted, each ending at the next). */
int pr_kallsyms_load(struct pr_table *t, struct pr_strtab *strs, const char *path);
/* JIT map: lines "START SIZE name" (hex). */
int pr_jitmap_load(struct pr_table *t, struct pr_strtab *strs, const char *path);
const struct pr_tent *pr_table_find(const struct pr_table *t, uint64_t addr);
void pr_table_free(struct pr_table *t);
/* The running kernel's build id from /sys/kernel/notes: size, or 0. */
size_t pr_running_kernel_build_id(uint8_t id[PERFRING_BUILD_ID_MAX]);
/* The build id in a buffer of ELF notes (NT_GNU_BUILD_ID, name "GNU"); size or 0. */
size_t pr_notes_build_id(const void *notes, size_t len, bool swapped, uint8_t id[PERFRING_BUILD_ID_MAX]);

/* ---- Binaries (sym_elf.c, sym_dwarf.c) ---- */
struct pr_sym {
	uint64_t addr, size;
	const char *name; /* interned */
	uint8_t source;   /* enum perfring_sym_source */
	uint8_t bind;     /* preference rank: 0 global, 1 local, 2 weak */
	uint8_t object;   /* a data object (STT_OBJECT), not a function */
	uint32_t index;   /* in its symbol table: the last tie-break, as perf keeps the first */
};

struct pr_load {
	uint64_t off, filesz, memsz, vaddr;
};

struct Elf;
struct Elf_Scn;
struct Dwarf;
struct pr_scope_index;

struct pr_binary {
	const char *path;       /* interned: the recorded name */
	const char *opened;     /* interned: the file read (may be a build-id cache copy), or NULL */
	const char *debug_path; /* interned: the debug file used, or NULL */
	int err;                /* 0, or why the binary is unusable (negative errno) */
	const char *reason;     /* interned */
	uint8_t bid_size;
	uint8_t bid[PERFRING_BUILD_ID_MAX];
	struct pr_load *loads;
	size_t nloads;
	struct pr_sym *syms;
	size_t nsyms;
	const char *nosym_reason; /* interned: why there are no symbols, when nsyms is 0 */
	/* DWARF, opened on first use when lines are wanted. */
	bool dw_tried;
	struct Elf *dw_elf;
	void *dw_inflated; /* dw_elf's DWARF sections, inflated (sym_dwarf.c) */
	struct Dwarf *dw;
	struct pr_scope_index *scopes; /* the function scopes of the units looked in (sym_dwarf.c) */
	/* The functions DWARF names by their source name only whose name
	 * addr2line has settled (sym_dwarf.c, a2l_name()): by DIE offset. */
	struct pr_a2l_name *a2l;
	size_t a2l_n, a2l_cap;
};

struct pr_bin_ctx {
	struct pr_strtab *strs;
	const char *const *debug_dirs;
	const char *root;
	uint64_t *nsymbols; /* stats */
	/* perfring_symbolizer_opts.shown_name (NULL: names as they are) */
	const char *(*shown_name)(void *arg, const char *name);
	void *shown_name_arg;
};

/* Open and read path (root-prefixed) checking the expected build id; fills
 * b (err/reason on failure: b is still a valid negative entry). */
void pr_binary_load(struct pr_binary *b, const struct pr_bin_ctx *ctx, const char *path, const uint8_t *bid,
		    size_t bid_size, const struct pr_map *rec);
/* Free what pr_binary_load() read (the ELF half; the DWARF half, which
 * sym_dwarf.c opens on demand on top of it, is pr_binary_dwarf_close()'s):
 * sym_dwarf.c calls into this file, never the other way. */
void pr_binary_free(struct pr_binary *b);
/* Open path with libelf (mapped; the fd is closed at once): 0, -errno, -ENOEXEC. */
int pr_elf_open(const char *path, struct Elf **out);
/* The section named want, or NULL. */
struct Elf_Scn *pr_elf_section(struct Elf *elf, const char *want);
/* perfring_elf_build_id() without a message: size, -ENODATA, or -errno/-ENOEXEC. */
int pr_elf_file_build_id(const char *path, uint8_t id[PERFRING_BUILD_ID_MAX]);
/* Close the DWARF that pr_binary_frames() opened (sym_dwarf.c); before pr_binary_free(). */
void pr_binary_dwarf_close(struct pr_binary *b);
/* The ELF address of a file offset, via PT_LOAD. 0 or -ENOENT. */
int pr_binary_vaddr(const struct pr_binary *b, uint64_t off, uint64_t *vaddr);
/* The symbol holding vaddr, or NULL. */
const struct pr_sym *pr_binary_sym(const struct pr_binary *b, uint64_t vaddr);

/* DWARF frames of vaddr (innermost first; only the first without inlines):
 * *frames is a new array the caller frees; returns the count (0: no DWARF
 * covers vaddr) or -ENOMEM. */
int pr_binary_frames(struct pr_binary *b, const struct pr_bin_ctx *ctx, bool inlines, uint64_t vaddr,
		     struct perfring_sym_frame **frames);

#endif /* PERFRING_SYMBOL_INTERNAL_H */

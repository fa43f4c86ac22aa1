/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile layer's stack engine (stack.h), inside the library: the
 * frame cache (stack_cache.c), DWARF unwinding of user stack copies
 * through libdwfl (unwind.c, unwind_fast.c), the demanglers (demangle.c,
 * rust_demangle.c) and perf's build-id cache (stack_buildid.c). Not
 * installed.
 */
#ifndef PERFRING_STACK_INTERNAL_H
#define PERFRING_STACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/record.h>
#include <perfring/stack.h>
#include <perfring/symbol.h>

#include "common/internal.h"

#include "symbol/symbol_internal.h"

/* A frame as the engine keeps and caches it: the public one (its strings
 * and build id live in the symbolizer, the process model or the stacks'
 * string pool, so a frame is copied as a value). */
#define pr_frame perfring_frame

/*
 * The stacks object (stack.c walks a sample's chain, stack_name.c names one
 * address). Frames are built in frames[], handed out until the next call.
 */
struct perfring_stacks {
	struct perfring_procs *procs;
	struct perfring_symbolizer *sym;
	bool own_procs, own_sym;
	bool live, lines, inlines, inline_frames, no_unwind, no_symbols, chain_from_root;
	int max_stack;                /* > 0, or 0: the ip alone */
	char *kallsyms;               /* opts.kallsyms (NULL: /proc/kallsyms) */
	struct pr_demangler *demangler; /* NULL with opts.no_demangle */
	struct pr_fcache *fcache;
	struct pr_strtab strs;        /* names and build ids frames point to that no other object keeps */
	const uint8_t *last_bid;      /* the build id kept last (kept_build_id()) */
	size_t last_bid_size;
	struct pr_frame *frames;
	size_t frames_cap;
	uint64_t *ips;                /* the user frames pr_unwind_stack() found */
	size_t ips_cap;
	struct pr_frame own;          /* perfring_stack.ip_frame */
	struct pr_unwinder *unwinder; /* made at the first sample with a stack copy */
	/* the running vDSO's copy (a memfd), -1 until made or when it cannot be */
	int vdso_fd;
	bool vdso_tried;
	char vdso_path[40];
	bool kernel_mapped;           /* the records mapped the kernel (an MMAP of pid -1) */
	bool ktext_read;              /* ktext_* are read (in_running_kernel_text()) */
	uint64_t ktext_start, ktext_end;
	uint64_t ksyms_start, ksyms_end; /* the kernel's own kallsyms symbols' extent */
	bool ksyms_checked, ksyms_usable; /* usable: kallsyms names the recorded kernel */
	/* live: the pids /proc was read for (open addressing, 0 free: pid 0 is the kernel's) */
	uint32_t *loaded;
	size_t nloaded, loaded_cap;
};

/* Name addr of pid in cpumode into *f, through the frame cache (stack_name.c). */
void pr_stacks_name(struct perfring_stacks *st, uint32_t pid, uint64_t addr, unsigned cpumode, struct pr_frame *f);
/* A name as frames show it: demangled unless no_demangle. */
const char *pr_stacks_shown(struct perfring_stacks *st, const char *name);
/* The vDSO image for hit (a pr_vdso_file_fn's work, stack_name.c). */
const char *pr_stacks_vdso_file(void *st, const struct perfring_map_hit *hit, char *buf, size_t len);
/* A kernel address, or one in kernel cpumode. */
bool pr_kernel_addr(unsigned cpumode, uint64_t addr);

/* ---- Frames cached by (pid, cpumode, address) (stack_cache.c) ----
 * A profile repeats the same addresses in the same processes, and naming
 * one takes a mapping lookup, a symbol search and, for anonymous memory, a
 * JIT map lookup. An entry holds while its process's mappings have not
 * changed: each process (and the kernel, pid PERFRING_PID_KERNEL) has a
 * generation, bumped by the records that change what an address means
 * (MMAP, MMAP2, an exec COMM, a FORK of that pid, KSYMBOL for the kernel). */
struct pr_fcache;

struct pr_fcache *pr_fcache_new(void);
void pr_fcache_free(struct pr_fcache *c);
/* The mappings of pid changed: its cached frames are stale. */
void pr_fcache_changed(struct pr_fcache *c, uint32_t pid);
/* The frame of (pid, cpumode, addr) named in pid's current generation: true and *f set. */
bool pr_fcache_get(struct pr_fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, struct pr_frame *f);
void pr_fcache_put(struct pr_fcache *c, uint32_t pid, unsigned cpumode, uint64_t addr, const struct pr_frame *f);
/* The frames an unwound user frame at (pid, addr) expands to with the
 * functions inlined there (stack.c's inline_frames()), kept as the named
 * frames are, while pid's mappings stay: their count (0 when none is kept)
 * and *frames. */
size_t pr_fcache_get_inlines(struct pr_fcache *c, uint32_t pid, uint64_t addr, const struct pr_frame **frames);
void pr_fcache_put_inlines(struct pr_fcache *c, uint32_t pid, uint64_t addr, const struct pr_frame *frames, size_t n);

/* ---- DWARF unwinding of a copied user stack (unwind.c) ----
 * perf record --call-graph dwarf samples, with elfutils' libdwfl as perf
 * does it. An unwinder keeps a Dwfl per process (the binaries' ELF and call
 * frame information read once for all its samples). */
struct pr_unwinder;
struct pr_unwinder *pr_unwinder_new(void);
void pr_unwinder_free(struct pr_unwinder *u);

/* The file holding the image of the vDSO hit is in (into buf, len bytes, or
 * a string of the callee's), NULL when there is none: the vDSO has no file,
 * and without one samples in it are not unwound. */
typedef const char *(*pr_vdso_file_fn)(void *arg, const struct perfring_map_hit *hit, char *buf, size_t len);
void pr_unwinder_set_vdso(struct pr_unwinder *u, pr_vdso_file_fn fn, void *arg);

/* The sample carries user registers (64-bit) and a user stack to unwind. */
bool pr_unwind_wanted(const struct perfring_sample *s);

/* The user frames of s, innermost first, into ips (at most max): the
 * sampled user pc, then each caller's return address less one, as far as
 * the binaries' call frame information and the stack copy go. Binaries are
 * found by the process's maps in procs (the files as recorded). Returns the
 * number of frames (0: none, e.g. no binary for the pc, or not x86-64). */
size_t pr_unwind_stack(struct pr_unwinder *u, const struct perfring_procs *procs, const struct perfring_sample *s,
		       uint64_t *ips, size_t max);

/* ---- Demangling (demangle.c, rust_demangle.c) ----
 * C++ and Rust names as perf shows them: without parameters or return type
 * (perf's demangle_sym() with DMGL_NO_OPTS), e.g.
 * "_ZN16object_allocatorI12asan_mem_refED1Ev" ->
 * "object_allocator<asan_mem_ref>::~object_allocator". C++ through the C++
 * runtime's abi::__cxa_demangle; a demangler caches results by the name's
 * pointer (the symbolizer interns its names). */
struct pr_demangler;
struct pr_demangler *pr_demangler_new(void);
void pr_demangler_free(struct pr_demangler *d);
/* The shown name of name (name itself when it is not mangled, or on any
 * failure). Valid until the demangler is freed. */
const char *pr_demangle(struct pr_demangler *d, const char *name);
/* The same on one string, into a malloc'd result (NULL: not mangled or no memory). */
char *pr_demangle_str(const char *name);
/*
 * Rust symbol names, both manglings: legacy
 * "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h8c50...E.llvm.19..."
 * -> "std::rt::lang_start::{{closure}}" (the hash element and a ".suffix"
 * dropped, the $..$ escapes decoded); v0
 * "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal" ->
 * "std::rt::lang_start_internal" (no crate disambiguator; closures
 * "{closure#0}", impls "<T as Trait>", generic arguments "::<T>" in a
 * value's path). malloc'd; NULL when sym is no Rust symbol (a legacy one is
 * a C++ name too: then not Rust), is malformed, or without memory.
 */
char *pr_rust_demangle(const char *sym);

/* ---- Binaries by their recorded build id (stack_buildid.c) ----
 * As perf report finds them: its build-id cache (~/.debug, which perf
 * record fills), else the file at the recorded path when it is still the
 * one recorded. */
/* perf record's copy of the binary with build id id[0..size) in $HOME/.debug
 * ("/.build-id/ab/cdef.../elf"; the vDSO's "/[vdso]/HEX/vdso"), written into
 * buf (len bytes): buf when that is a regular file, else NULL. */
const char *pr_build_id_cached_path(const uint8_t *id, size_t size, bool vdso, char *buf, size_t len);
/* The ELF file at path (a regular file) has the build id id[0..size). */
bool pr_file_has_build_id(const char *path, const uint8_t *id, size_t size);

#endif

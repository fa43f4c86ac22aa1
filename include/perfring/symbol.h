/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring symbol layer: from a sampled (pid, address) to a function name.
 *
 * Two objects:
 *  - struct perfring_procs, the process model: fed with decoded records
 *    (MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL, BPF_EVENT) from a perf.data
 *    file or live rings, and, for live use, with the processes that existed
 *    before recording started, read from /proc. It answers, for any (pid,
 *    address), which mapping holds it: the file, its build id, the offset
 *    in the file; or why none does.
 *  - struct perfring_symbolizer: turns (binary, file offset) into a function
 *    name and the offset in it, from the ELF .symtab, .dynsym and
 *    .gnu_debugdata (elfutils' libelf), debug files found by build id, file
 *    and line and inlined frames from DWARF (libdw); kernel addresses from
 *    /proc/kallsyms (modules included) and KSYMBOL records (BPF programs);
 *    JIT code from /tmp/perf-PID.map. Results are cached by (binary, file
 *    offset), the binary being known by its recorded name and build id.
 *
 * A binary that is missing, or whose build id differs from the recorded one,
 * gives "unknown" with the reason, never a wrong name. Nothing is printed and
 * no program is run (no addr2line).
 *
 * Strings in results (names, paths, reasons) belong to the object that gave
 * them and stay valid until it is freed. A process model may be looked up by
 * several threads at once but fed under the caller's lock; a symbolizer is
 * not thread-safe (one per thread, or a lock).
 */
#ifndef PERFRING_SYMBOL_H
#define PERFRING_SYMBOL_H

#include <perfring/common.h>
#include <perfring/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pid of kernel mappings: perf's MMAP records for the kernel and its
 * modules carry pid -1. */
#define PERFRING_PID_KERNEL ((uint32_t)-1)
/* The longest build id (SHA-1); MD5 and UUID build ids are 16 bytes. */
#define PERFRING_BUILD_ID_MAX 20

/* ---- The process model ---- */

struct perfring_procs;

struct perfring_procs_opts {
	size_t sz;
	/* Where procfs is mounted (NULL: "/proc"). */
	const char *proc_root;
	/* perfring_procs_load_*() read each mapped file's build id from its
	 * ELF note, as perf record does, so that a file replaced later is
	 * noticed; set this to skip that (faster, no file is opened). */
	bool no_build_ids;
};

PERFRING_API struct perfring_procs *perfring_procs_new(const struct perfring_procs_opts *opts);
PERFRING_API void perfring_procs_free(struct perfring_procs *procs);

/*
 * Update the model with one decoded record (perfring_record_parse()):
 * MMAP/MMAP2 add a mapping (replacing what it overlaps; with a build id when
 * the record carries one), COMM sets the name (after an exec one, an address
 * no new mapping holds is still looked up in the image before the exec, as
 * in perf), FORK gives the child a copy of the parent's mappings, EXIT of
 * the main thread marks the process dead (its mappings stay: samples may
 * follow), KSYMBOL adds or removes a kernel symbol (BPF programs, JIT code),
 * BPF_EVENT is counted. Other records are ignored. Returns 1 if the record
 * changed the model, 0 if it was ignored, -EINVAL or -ENOMEM.
 */
PERFRING_API int perfring_procs_feed(struct perfring_procs *procs, const struct perfring_decoded *rec);
/* The same from a record's bytes, decoded with cfg. Also -PERFRING_ETRUNC/EBADREC. */
PERFRING_API int perfring_procs_feed_record(struct perfring_procs *procs, const struct perfring_parse_config *cfg,
					    const void *rec, size_t len);

/*
 * Add a process that exists now, from /proc/PID/{comm,maps} (what perf
 * record synthesizes for tasks that started before it). Replaces what the
 * model held for that pid. Returns 0, -ESRCH if the process is gone, or
 * another negative errno.
 */
PERFRING_API int perfring_procs_load_proc(struct perfring_procs *procs, uint32_t pid);
/* Every process in /proc. Returns the count loaded; processes that exit
 * meanwhile are skipped. */
PERFRING_API int perfring_procs_load_all(struct perfring_procs *procs);

/*
 * A build id for a file name, for mappings recorded without one (perf.data's
 * HEADER_BUILD_ID feature gives them per file). pid is the process the entry
 * is for (PERFRING_PID_KERNEL for the kernel and modules) and is currently
 * not used: files are matched by name. Returns 0, -EINVAL (size 0 or above
 * PERFRING_BUILD_ID_MAX), -ENOMEM.
 */
PERFRING_API int perfring_procs_set_build_id(struct perfring_procs *procs, uint32_t pid, const char *path,
					     const uint8_t *build_id, size_t size);

/* A mapping holding an address. */
struct perfring_map_hit {
	uint32_t pid;
	bool exited;              /* the process has exited (EXIT seen) */
	bool anon;                /* no file behind: "//anon", "[heap]", "[stack]", "[vdso]", ... */
	uint8_t build_id_size;    /* 0 when no build id is known */
	uint8_t build_id[PERFRING_BUILD_ID_MAX];
	const char *comm;         /* the process's name, "" if unknown */
	const char *path;         /* the file as recorded */
	uint64_t start, end;      /* [start, end) */
	uint64_t pgoff;           /* file offset of start */
	uint64_t file_offset;     /* addr - start + pgoff */
	uint32_t maj, min;        /* device, inode: 0 when not recorded */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;     /* PROT_*, MAP_* (0 when not recorded) */
	const char *reason;       /* on failure: why there is no mapping */
};

/*
 * The mapping of pid that holds addr. Returns 0 and fills hit, or -ESRCH
 * (the pid was never seen), -ENOENT (no mapping of that pid holds addr),
 * with hit->reason and perfring_errmsg() saying which.
 */
PERFRING_API int perfring_procs_lookup(const struct perfring_procs *procs, uint32_t pid, uint64_t addr,
				       struct perfring_map_hit *hit);

struct perfring_procs_stats {
	uint64_t processes;   /* in the model, exited ones included */
	uint64_t mappings;    /* over all processes */
	uint64_t ksymbols;    /* live KSYMBOL entries */
	uint64_t bpf_events;  /* BPF_EVENT records seen */
	uint64_t records;     /* records that changed the model */
};
PERFRING_API int perfring_procs_stats(const struct perfring_procs *procs, struct perfring_procs_stats *stats);

/* ---- The symbolizer ---- */

struct perfring_symbolizer;

struct perfring_symbolizer_opts {
	size_t sz;
	/* Directories searched for debug files by build id, NULL-terminated
	 * (DIR/.build-id/ab/cdef....debug, and perf's cache layout
	 * DIR/.build-id/ab/cdef.../{debug,elf}). NULL: "/usr/lib/debug" and
	 * "$HOME/.debug". */
	const char *const *debug_dirs;
	/* Kernel symbols (NULL: "/proc/kallsyms"; "": none). */
	const char *kallsyms;
	/* Where JIT maps perf-PID.map are (NULL: "/tmp"; "": none). */
	const char *jit_dir;
	/* Prefix of recorded file names (a container's root, a copy of
	 * another machine's files); NULL: none. */
	const char *root;
	/* Source file and line of each address, from DWARF. */
	bool lines;
	/* The inlined frames too (implies lines). */
	bool inlines;
	/* The name a symbol is shown with (demangled), which perf's choice
	 * between symbols at one address compares (fewer leading underscores,
	 * then the longer name); NULL: the names as they are. What it returns
	 * must stay valid while the symbolizer lives. */
	const char *(*shown_name)(void *arg, const char *name);
	void *shown_name_arg;
};

PERFRING_API struct perfring_symbolizer *perfring_symbolizer_new(const struct perfring_symbolizer_opts *opts);
PERFRING_API void perfring_symbolizer_free(struct perfring_symbolizer *sym);

enum perfring_sym_source {
	PERFRING_SYM_NONE = 0,      /* unknown */
	PERFRING_SYM_SYMTAB = 1,    /* ELF .symtab (of the file or its debug file) */
	PERFRING_SYM_DYNSYM = 2,    /* ELF .dynsym */
	PERFRING_SYM_DEBUGDATA = 3, /* the .symtab inside .gnu_debugdata (MiniDebugInfo) */
	PERFRING_SYM_KALLSYMS = 4,  /* /proc/kallsyms */
	PERFRING_SYM_KSYMBOL = 5,   /* a KSYMBOL record (BPF program, kernel JIT code) */
	PERFRING_SYM_JIT_MAP = 6,   /* /tmp/perf-PID.map */
};

/* A source location, and the function it is in. */
struct perfring_sym_frame {
	/* From DWARF: the linkage name when the compiler gave one (mangled
	 * C++, an asm label such as glibc's __GI_ names), else the source
	 * name, as addr2line names it (and perf, which asks addr2line); like
	 * a symbol's name, not demangled. NULL if it has no name. */
	const char *function;
	const char *file;     /* NULL when unknown */
	uint32_t line, column;
};

struct perfring_sym_result {
	const char *name;       /* the function (or data object: flags); NULL when unknown */
	uint64_t offset;        /* address - the function's start */
	uint64_t sym_addr;      /* the function's start and size, in the binary's */
	uint64_t sym_size;      /* addresses (kernel: the address itself) */
	enum perfring_sym_source source;
	const char *binary;     /* the file, "[kernel.kallsyms]", "[MODULE]", "[bpf]", the JIT map */
	const char *debug_file; /* the file symbols or lines came from, when not binary; else NULL */
	uint64_t file_offset;   /* in binary (kernel: the address) */
	uint64_t elf_addr;      /* the address in the binary's ELF address space */
	/* With opts.lines: where the address is (frames[0]'s file and line). */
	const char *file;
	uint32_t line, column;
	/* With opts.inlines: the chain, innermost first: frames[0] is the
	 * inlined function the address is in, each next one the function it was
	 * inlined into (file/line: the call site), the last the real function.
	 * With lines only: one frame. NULL/0 when there is no DWARF. */
	const struct perfring_sym_frame *frames;
	uint32_t nr_frames;
	uint32_t flags;         /* PERFRING_SYM_* below */
	const char *reason;     /* when unknown: why (also in perfring_errmsg()) */
};

/* flags: name is a data object's, not a function's (a kallsyms d/D/b/B
 * symbol, an ELF STT_OBJECT: an address in data, a stray call chain
 * entry, or past the kernel's text). perf report shows it NAME+0xOFFSET. */
#define PERFRING_SYM_OBJECT 1u

/*
 * Symbolize addr of process pid (a sample's ip or a call chain entry).
 * cpumode is perfring_misc_cpumode() of the record (the context marker of a
 * call chain entry gives it too); kernel modes look in KSYMBOL ranges and
 * kallsyms, user modes in the process's mappings (procs may be NULL for the
 * kernel). Returns 0 with out->name set, or a negative errno with name NULL
 * and out->reason set:
 *   -ESRCH   the process is unknown to procs;
 *   -ENOENT  no mapping holds addr, the file is missing, or no symbol covers
 *            the address;
 *   -ESTALE  the file's build id differs from the recorded one (changed
 *            since recording);
 *   -ENODATA anonymous memory without a JIT map, or a file without symbols;
 *   -EACCES  kernel symbols are hidden (kptr_restrict);
 *   -ENOEXEC the file is not a usable ELF file;
 *   -ENOMEM.
 */
PERFRING_API int perfring_symbolize(struct perfring_symbolizer *sym, const struct perfring_procs *procs,
				    uint32_t pid, uint64_t addr, unsigned cpumode, struct perfring_sym_result *out);

/*
 * Symbolize an offset in a file directly. build_id (size bytes, may be NULL
 * with size 0) is the recorded one: a file with another gives -ESTALE.
 * Same returns as perfring_symbolize().
 */
PERFRING_API int perfring_symbolize_file(struct perfring_symbolizer *sym, const char *path, const uint8_t *build_id,
					 size_t build_id_size, uint64_t file_offset, struct perfring_sym_result *out);

struct perfring_symbolizer_stats {
	uint64_t lookups;     /* addresses asked for */
	uint64_t cache_hits;  /* answered from the cache */
	uint64_t resolved;    /* lookups that gave a name */
	uint64_t binaries;    /* files opened and read */
	uint64_t symbols;     /* symbols loaded from them */
};
PERFRING_API int perfring_symbolizer_stats(const struct perfring_symbolizer *sym,
					   struct perfring_symbolizer_stats *stats);

/* Read the GNU build id of an ELF file (NT_GNU_BUILD_ID). Returns its size
 * (bytes written to id, at most PERFRING_BUILD_ID_MAX), -ENODATA if it has
 * none, -ENOENT, -ENOEXEC (not ELF). */
PERFRING_API int perfring_elf_build_id(const char *path, uint8_t id[PERFRING_BUILD_ID_MAX]);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_SYMBOL_H */

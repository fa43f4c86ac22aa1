/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Named frames: a sample's call chain (or the addresses a BPF program's
 * stack map holds) turned into functions, binaries and source lines, named
 * as perf names them. The profile layer (profile.h) aggregates them.
 *
 * A frame is read through perfring_stack_frame(), never by indexing an
 * array of struct perfring_frame: the library says the size of its frames
 * (frame_sz), so that fields added at the end of the struct in a later
 * version do not move the frames of a program built against this one.
 */
#ifndef PERFRING_STACK_H
#define PERFRING_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/common.h>
#include <perfring/record.h>
#include <perfring/symbol.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One frame, named as perf names it. Strings belong to the object that made
 * the frame and stay valid until it is freed, unless its documentation says
 * otherwise. */
struct perfring_frame {
	uint64_t addr;          /* the address sampled or returned to, as recorded */
	const char *name;       /* the function, demangled (C++, Rust) unless asked not to; NULL when unknown */
	uint64_t offset;        /* addr - the function's start, when name is set */
	const char *dso;        /* perf's dso: the file as mapped, "[kernel.kallsyms]", a module's
				 * "[NAME]" (its file when the records carry its build id),
				 * "//anon" ("/tmp/perf-PID.map" for anonymous code), a BPF
				 * program's name, or "[unknown]"; never NULL */
	const uint8_t *build_id; /* the binary's build id; NULL when unknown */
	uint32_t build_id_size;
	uint8_t cpumode;        /* PERF_RECORD_MISC_USER, _KERNEL, ... the address was taken in */
	bool kernel;            /* a kernel address (kernel or guest kernel cpumode) */
	bool inlined;           /* a function inlined at addr: the next frame is the one it is in */
	bool mapped;            /* a mapping holds addr: map_* are set */
	uint64_t map_start;     /* the mapping [map_start, map_end), file offset map_pgoff at map_start */
	uint64_t map_end;
	uint64_t map_pgoff;
	const char *file;       /* source file and line, when asked for and known; else NULL, 0 */
	uint32_t line;
	/* The address in dso as perf script shows it: addr - map_start +
	 * map_pgoff for a file mapping, else (anonymous memory, the kernel) addr. */
	uint64_t dso_addr;
	bool module;            /* in a kernel module's mapping */
	bool data;              /* name is a data object's, not a function's (PERFRING_SYM_OBJECT) */
	enum perfring_sym_source source; /* where the name came from (PERFRING_SYM_NONE: unnamed) */
	/* With perfring_stacks_opts.inlines: the functions inlined at addr,
	 * innermost first (the symbolizer's frames: mangled names, the line in
	 * each), the last one inlined into this frame's function, whose own
	 * line is inlines[ninlines].line. NULL, 0 otherwise. */
	const struct perfring_sym_frame *inlines;
	uint32_t ninlines;
	const char *reason;     /* when name is NULL: why (perfring_symbolize()'s reason) */
};

/* A stack: frames[0] the leaf (the sampled ip), the last one the root. */
struct perfring_stack {
	size_t nframes;
	size_t frame_sz;        /* the size of one frame, >= the struct this header declares */
	const void *frames;     /* read with perfring_stack_frame() */
	/*
	 * The frame perf counts the sample in (perf report's symbol column),
	 * when it is not frames[0]; else NULL. Either an unwound stack sampled
	 * in inlined functions (frames[0] the innermost of them, as perf's call
	 * chain has it; ip_frame the binary's symbol there), or, with
	 * ip_apart, the sampled ip's frame that frames do not hold: the chain
	 * does not start at the ip (user frames only, of a sample taken in the
	 * kernel), is empty, or was cut by max_stack from the root end.
	 */
	const struct perfring_frame *ip_frame;
	bool ip_apart;
	bool unwound;           /* the user frames came from the sample's stack copy (DWARF) */
};

static inline const struct perfring_frame *perfring_stack_frame(const struct perfring_stack *s, size_t i)
{
	return (const struct perfring_frame *)((const char *)s->frames + i * s->frame_sz);
}

/* ---- Naming stacks ---- */

struct perfring_stacks;

struct perfring_stacks_opts {
	size_t sz;
	/* The process model to look addresses up in (not freed with the
	 * stacks); NULL: one of the stacks' own. Feed it through
	 * perfring_stacks_feed(), which keeps the frame cache true. */
	struct perfring_procs *procs;
	/* The symbolizer to name addresses with (not freed with the stacks:
	 * made with lines and inlines when these options ask for them); NULL:
	 * one of the stacks' own, which chooses between symbols at one address
	 * by their demangled names, as perf does. */
	struct perfring_symbolizer *symbolizer;
	/* Load a process the model has never seen from /proc
	 * (perfring_procs_load_proc()), once, when one of its addresses is
	 * asked for: for live profiling and BPF tools, where processes started
	 * before the events were opened. */
	bool live;
	/* Kernel symbols for the stacks' own symbolizer (NULL: /proc/kallsyms). */
	const char *kallsyms;
	/*
	 * Frames of a call chain (or unwound stack) kept at most, as perf's
	 * --max-stack: 0 the kernel's perf_event_max_stack (127 when it cannot
	 * be read); negative: none, the sample's ip alone (perf's --max-stack 0).
	 */
	int max_stack;
	/* A chain longer than max_stack keeps its callers' end (the last
	 * frames), as perf report does when it walks call chains callers
	 * first; else its first frames, as perf script does. */
	bool chain_from_root;
	/* The frames' source file and line, from DWARF. */
	bool lines;
	/* Each frame's inlined functions (perfring_frame.inlines; implies
	 * lines). A call chain's caller frame, a return address, takes those
	 * of its call (address - 1), as addr2line and pprof do. */
	bool inlines;
	/* An unwound stack's inlined functions as frames of their own
	 * (perfring_frame.inlined), as perf report's call chains have them,
	 * after max_stack is applied, as perf's append_inlines(). */
	bool inline_frames;
	/* Do not unwind a sample's stack copy (PERF_SAMPLE_REGS_USER and
	 * STACK_USER, perf record --call-graph dwarf): its chain alone. */
	bool no_unwind;
	/* Names as the symbols have them (mangled C++ and Rust). */
	bool no_demangle;
	/* Frames without names: binaries and mappings only (faster). */
	bool no_symbols;
};

/* A new stacks object, or NULL with errno set (EINVAL: opts; ENOMEM). */
PERFRING_API struct perfring_stacks *perfring_stacks_new(const struct perfring_stacks_opts *opts);
PERFRING_API void perfring_stacks_free(struct perfring_stacks *st);

/*
 * Update the process model with one decoded record (what
 * perfring_procs_feed() takes: MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL,
 * BPF_EVENT), forgetting the cached frames it makes stale. Returns 1 if it
 * changed the model, 0 if it was ignored, or a negative errno.
 */
PERFRING_API int perfring_stacks_feed(struct perfring_stacks *st, const struct perfring_decoded *rec);

/*
 * The frames of a decoded SAMPLE record (perfring_record_parse(), or a
 * perf.data file's record), as perf script and perf report name
 * them: its call chain when it has one (PERF_CONTEXT_* markers skipped,
 * each setting the cpumode of the entries after it; entries before the
 * first marker are user ones; a marker perf does not know drops the
 * chain), else its ip; at most max_stack frames. A sample with registers
 * and a stack copy (and a call chain: the kernel's part) has its user
 * frames unwound through the binaries' DWARF call frame information.
 * The record's cpumode (its header misc) is the ip's. out's frames stay
 * valid until the next call on st. Returns 0, -EINVAL (not a SAMPLE) or
 * -ENOMEM; an address that cannot be named is a frame with name NULL.
 */
PERFRING_API int perfring_stacks_sample(struct perfring_stacks *st, const struct perfring_decoded *rec,
					struct perfring_stack *out);

/*
 * The frames of n addresses of process pid taken in cpumode, as a BPF
 * program's stack map holds them (bpf_get_stackid(), bpf_get_stack()),
 * addrs[0] the innermost:
 *  - a user stack (BPF_F_USER_STACK): cpumode PERF_RECORD_MISC_USER and
 *    the process's pid (the tgid: bpf_get_current_pid_tgid() >> 32);
 *  - a kernel stack: cpumode PERF_RECORD_MISC_KERNEL, pid ignored.
 * As in a perf call chain, addrs[0] is where the CPU was and each next
 * address a return address (the instruction after a call): those are
 * named as they are (perf names them so), but their source line and
 * inlined functions are those of the call, at address - 1. All n are
 * named (max_stack does not apply). Frames valid until the next call on st.
 * Returns 0, -EINVAL (n and addrs), or -ENOMEM.
 */
PERFRING_API int perfring_stacks_addrs(struct perfring_stacks *st, uint32_t pid, unsigned cpumode,
				       const uint64_t *addrs, size_t n, struct perfring_stack *out);

/* A name as frames show it (perfring_sym_frame.function, a symbol's
 * name): demangled unless opts.no_demangle; NULL for NULL. Valid while st
 * lives. */
PERFRING_API const char *perfring_stacks_name(struct perfring_stacks *st, const char *name);

/* The process model and the symbolizer st uses (its own or the caller's). */
PERFRING_API struct perfring_procs *perfring_stacks_procs(struct perfring_stacks *st);
PERFRING_API struct perfring_symbolizer *perfring_stacks_symbolizer(struct perfring_stacks *st);

/*
 * A C++ (Itanium ABI) or Rust (legacy or v0) symbol name as perf shows it:
 * without parameters or return type ("_ZN3foo3barEi" -> "foo::bar"), into
 * buf (len bytes, cut to fit). Returns buf, or name itself when it is not
 * mangled or cannot be demangled (also when buf is NULL or len is 0).
 */
PERFRING_API const char *perfring_demangle(const char *name, char *buf, size_t len);

/*
 * A kernel module's file, /lib/modules/.../NAME.ko (perhaps compressed), as
 * perf names the module: "[NAME]", dashes made underscores as the kernel
 * spells module names, into buf (len bytes). The name frames show for a
 * module recorded without its build id; with one, a frame's dso is the file.
 * Returns buf, or NULL when path is no module file or buf is too small.
 */
PERFRING_API const char *perfring_kmod_name(const char *path, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_STACK_H */

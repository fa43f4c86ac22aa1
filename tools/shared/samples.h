/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The samples of a perf.data file with their frames named: what `perfring
 * script`, `perfring report` and the exports share.
 *
 * The file is read in time order (as perf script and perf report do), every
 * record feeds a process model (perfring_procs) and a thread-name table, the
 * HEADER_BUILD_ID feature gives the build ids of files mapped without one,
 * and each SAMPLE comes out with its frames: the call chain when the sample
 * has one (its PERF_CONTEXT_* markers skipped, each switching the cpumode
 * of the entries that follow, as perf does; the kernel puts the sampled ip
 * first, so the ip is not added again), else the ip alone; at most
 * max_stack frames, as perf's kernel.perf_event_max_stack. The frames are
 * the library's (perfring_stacks, stack.h), with perf script's details
 * added: a KSYMBOL registration's number, an inlined function's shown name.
 */
#ifndef PERFRING_TOOL_SAMPLES_H
#define PERFRING_TOOL_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <perfring/perfring.h>

/* One frame, named as perf names it. */
struct named_frame {
	uint64_t addr;        /* as recorded */
	uint64_t shown_addr;  /* what perf script prints: the address in the binary for
			       * a file mapping (map_ip: addr - start + pgoff), else addr */
	const char *name;     /* the function; NULL when unknown ("[unknown]") */
	uint64_t offset;      /* addr - the function's start */
	const char *dso;      /* perf's dso column: the mapped file as recorded,
			       * "[kernel.kallsyms]", "[MODULE]", "//anon", or "[unknown]" */
	uint8_t build_id_size; /* 0 when unknown */
	uint8_t build_id[PERFRING_BUILD_ID_MAX];
	bool kernel;          /* a kernel address (cpumode kernel, or guest kernel) */
	bool module;          /* in a kernel module's map */
	bool mapped;          /* a mapping holds it: map_* are set */
	bool object;          /* name is a data object's (PERFRING_SYM_OBJECT), not a function's */
	uint32_t ksym_reg;    /* named by a KSYMBOL record (a BPF program): its registration's number
			       * (from 1, in the file's order), else 0. perf makes each registration
			       * a binary of its own, the function at 0 in it */
	uint64_t map_start, map_end, map_pgoff;
	const char *file;     /* source file and line when asked for and known */
	uint32_t line;
	/* With samples_opts.inlines: the functions inlined at addr, innermost first
	 * (the symbol layer's perfring_sym_frame: function, and the line in it),
	 * the last one inlined into the frame's function; the line of the frame's
	 * function itself (the outermost call site) is inlined[ninlined].line. */
	const struct perfring_sym_frame *inlined;
	uint32_t ninlined;
	/* A function DWARF says the frame's address is in, other than the
	 * binary's symbol there (one inlined, or a clone's source name), made a
	 * frame of its own for an unwound stack as perf's append_inlines()
	 * does: name is "FUNCTION (inlined)", the rest the address's frame;
	 * inline_id tells such functions apart (0 for any other frame). */
	uint32_t inline_id;
	const char *inline_name; /* FUNCTION alone */
	const char *reason;   /* when name is NULL: why */
	uint32_t name_len, dso_len; /* strlen() of name (0 when NULL) and dso */
};

struct named_sample {
	const struct perfring_perfdata_record *rec;
	const struct perfring_decoded *d;  /* the SAMPLE, decoded */
	const struct perfring_sample *s;   /* &d->u.sample */
	int event;                         /* index of its attr in the file */
	int32_t cpu;                       /* the CPU it was taken on; -1 when its event records
					    * none (perf's evsel__parse_sample() leaves -1 then) */
	uint64_t seq;                      /* its number among the file's samples (from 0) */
	uint64_t period;                   /* its weight: the sample's period, else (no
					    * PERF_SAMPLE_PERIOD) the event's sample_period, as perf */
	const char *event_name;
	const char *comm;                  /* the thread's name (":TID" when unknown) */
	bool has_callchain;                /* the event records call chains */
	struct named_frame *frames;          /* [0] the leaf; valid until the next samples_next() */
	size_t nframes;
	/* The sample's own frame when it is not frames[0]: an unwound stack
	 * whose sampled pc is in inlined functions (frames[0] the innermost of
	 * them, as perf's call chain has it; own the binary's symbol there, as
	 * perf's entry for the sample). NULL otherwise. */
	const struct named_frame *own;
	/* own is the sampled ip's frame, not in frames at all: the call chain
	 * does not start at the ip (user frames only, perf record
	 * --user-callchains, of a sample in the kernel), or is empty, or perf
	 * drops it (a context it does not know). perf's entry for the sample
	 * is the ip's, the chain its callers; perf script shows the chain. */
	bool own_apart;
	bool unwound;                      /* its user frames came from its stack copy (DWARF) */
};

/* The sample's own frame, perf's entry for it (what its filters look at): own when
 * set, else the leaf; NULL when it has no frame. */
static inline const struct named_frame *samples_own_frame(const struct named_sample *a)
{
	return a->own ? a->own : a->nframes ? &a->frames[0] : NULL;
}

struct samples_opts {
	bool no_symbols;      /* frames without names (faster: script --dump-like uses) */
	bool lines;           /* source file and line of each frame (DWARF) */
	bool inlines;         /* the inlined functions of each frame (DWARF; implies lines) */
	/* An unwound stack's inlined functions as frames of their own, as perf
	 * report's call chains have them (named_frame.inline_id); with inlines
	 * too (perf unwinds them so with or without --inline). Other call
	 * chains' inlined functions are the frames' inlined lists when
	 * inlines is set, as script --inline shows them. */
	bool inline_entries;
	/* Frames of a call chain (or unwound stack) taken at most, as perf's
	 * --max-stack: max_stack if max_stack_set (0: none, the sample's ip
	 * only), else /proc/sys/kernel/perf_event_max_stack, else 127. */
	int max_stack;
	bool max_stack_set;
	/* A chain of more than max_stack functions keeps its last max_stack,
	 * the callers' end, as perf report keeps them when it walks chains
	 * callers first (children, -g caller, -G: callchain_param.order is
	 * ORDER_CALLER then); else its first, as perf script and perf report
	 * --no-children keep them. */
	bool chain_from_root;
	const char *kallsyms; /* NULL: /proc/kallsyms */
	bool no_demangle;     /* C++ and Rust functions by their symbols' names, as perf --no-demangle */
	/* perf's --cpu: only the samples taken on these CPUs ("0-2,5", checked
	 * by samples_cpus_option() first), as if the others were not in the file;
	 * an event that records no CPU is an error at its first sample. NULL: all. */
	const char *cpus;
	/* Readers sharing a file's samples, in blocks of share_block (0: 1)
	 * samples: this one names and returns only those of the blocks whose
	 * number is share_i modulo share_n (share_n 0 or 1: all), a sample's
	 * block being its number (named_sample.seq) / share_block. Every other
	 * record is read and fed as usual. */
	uint32_t share_n, share_i, share_block;
	bool quiet;           /* print no errors (another reader of the file prints them) */
	/* perf report's names of threads sampled before a record named them
	 * (threads.h: a previous reading's samples_comm_renames()); NULL: ":TID" */
	const struct comm_rename *renames;
	size_t nrenames;
};

struct samples_reader;

/* Whether list is a CPU list --cpu takes: true, or false with cmd's usage
 * error said ("--cpu: '0-1x' is not a CPU list such as 0-2,5 ..."). */
bool samples_cpus_option(const char *cmd, const char *list);

/* Open path for cmd ("script", "report"); prints the one-line error and returns NULL on failure. */
struct samples_reader *samples_open(const char *cmd, const char *path, const struct samples_opts *opts);
void samples_close(struct samples_reader *r);

/* The threads this reader's samples found unnamed and a later COMM named
 * (perf report shows those samples by the later name: read the file again
 * with samples_opts.renames). n of them; valid until samples_close(). */
const struct comm_rename *samples_comm_renames(const struct samples_reader *r, size_t *n);

/* The next sample: 1, 0 at the end, or a negative error already printed
 * ("perfring CMD: PATH: ..."). Samples that cannot be decoded are counted
 * (samples_bad) and skipped. */
int samples_next(struct samples_reader *r, struct named_sample *out);
/*
 * Whether a command should read r's file with a second reader too (sharing
 * the samples, a thread each): not for a pipe (read once), nor on one CPU,
 * nor with PERFRING_THREADS=1; with PERFRING_THREADS=2 always; else when
 * the file has SAMPLES_TWO_READERS_MIN bytes or more, SAMPLES_TWO_READERS_MIN_STACKS
 * when its samples carry copies of the user stack (--call-graph dwarf).
 */
#define SAMPLES_TWO_READERS_MIN (16u << 20)
#define SAMPLES_TWO_READERS_MIN_STACKS (512u << 20)
bool samples_two_readers(const struct samples_reader *r);
/* A command that cannot use two readers after all says why when they were
 * asked for (PERFRING_THREADS=2). Returns false. */
bool samples_one_reader(const struct samples_reader *r, const char *why);
/* samples_opts.share_n, share_i and share_block, set before the first samples_next(). */
void samples_share(struct samples_reader *r, uint32_t n, uint32_t i, uint32_t block);

struct perfring_perfdata *samples_perfdata(const struct samples_reader *r);
/* An event of the file (those known so far: in pipe mode they come as
 * records before the samples) samples every field of bits. */
bool samples_any_event(const struct samples_reader *r, uint64_t bits);
int samples_nevents(const struct samples_reader *r);
const char *samples_event_name(const struct samples_reader *r, int event);
/* The attr of event (NULL: none known). */
const struct perf_event_attr *samples_event_attr(const struct samples_reader *r, int event);
/* A DWARF function name (perfring_sym_frame.function: a linkage name, mangled
 * for C++) as frames are named: demangled, as perf shows it; NULL for NULL. */
const char *samples_function_name(const struct samples_reader *r, const char *function);
/* Name an address of pid in cpumode as a frame (a sample's data address, say). */
void samples_name_addr(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode, struct named_frame *f);
/* The kernel function holding addr and its start (reader: the struct
 * samples_reader), NULL when none: an tracing_resolve_fn, for the kernel
 * addresses tracepoint formats print as functions. The name lives as long
 * as the reader. */
const char *samples_kernel_function(void *reader, uint64_t addr, uint64_t *start);
uint64_t samples_bad(const struct samples_reader *r);
/* The sum of the LOST_SAMPLES records' counts read so far (perf report's "Total Lost Samples"). */
uint64_t samples_lost(const struct samples_reader *r);
/*
 * perf's warnings about what the recording lost, after a whole pass (perf's
 * perf_session__warn_about_errors(), report's and script's): on stderr, a
 * line when the file has LOST records (ring buffer chunks the kernel
 * dropped), one when the LOST_SAMPLES records' count is over 5% of the
 * samples (recorded and lost). Each in perf's words, after "perfring CMD:
 * warning: PATH: ".
 */
void samples_lost_warnings(const struct samples_reader *r, const char *cmd, const char *path);
/* The name of thread tid now (after the records read so far); NULL when none named it. */
const char *samples_thread_comm(const struct samples_reader *r, uint32_t tid);

/* The file's tracing data (the HEADER_TRACING_DATA feature, or in pipe mode
 * the payload of the record seen so far): true with data and len, or false. */
bool samples_tracing_data(const struct samples_reader *r, const void **data, size_t *len);

/*
 * The end of a command that read r: status is its exit status so far. After
 * a failure (its one error line already printed) it returns status and
 * prints nothing more. Else it warns on stderr when the time ordering
 * flushed early, and returns EXIT_ERROR with one error line when samples
 * could not be decoded (they were skipped: the output lacks them), else
 * EXIT_OK.
 */
int samples_finish(const struct samples_reader *r, const char *cmd, const char *path, int status);

#endif

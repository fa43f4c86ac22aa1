/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared between trace.bpf.c and `perfring trace` (tools/trace/trace_*.c).
 *
 * One generic program is attached to every tracepoint the user names, with
 * the tracepoint's index in the `configs` array as the attach cookie. It
 * finds there what to copy, so no per-tracepoint code exists: user space
 * fills the array from the tracepoints' format files. (An array, not a hash
 * keyed by id: the verifier inlines its lookup.) The record's common fields are not
 * to be trusted (syscall tracepoints put a pt_regs pointer there). Each event becomes one sample in the perf event array:
 *
 *   struct trace_sample_hdr
 *   the tracepoint record, rec_size bytes (its __data_loc data included)
 *   padding to 8 bytes
 *   user strings, extra_size bytes: a sequence of struct trace_extra, each
 *   followed by len bytes (a NUL-terminated string) and padding to 4 bytes
 *
 * User strings are what syscall tracepoints only point to (a file name, an
 * exec's arguments): the program reads them from the calling process at the
 * tracepoint, the only time they can be read.
 */
#ifndef PERFRING_BPF_TRACE_H
#define PERFRING_BPF_TRACE_H

#define TRACE_COMM_LEN 16
/* Dynamic (__data_loc / __rel_loc) fields and user-pointer fields per tracepoint. */
#define TRACE_MAX_DYN 8
#define TRACE_MAX_USTR 4
/* Elements read from a NULL-terminated array of strings (argv). */
#define TRACE_MAX_STR_ELEMS 32
/* The longest user string read, NUL included. */
#define TRACE_STR_MAX 256
/* The kernel's own bound on a trace record (PERF_MAX_TRACE_SIZE). */
#define TRACE_REC_MAX 8192
/* The largest sample: user strings stop when the next one might not fit. */
#define TRACE_SAMPLE_MAX 16384
/* The per-CPU scratch buffer: a sample, and slack so that the verifier can
 * see that a string read at any offset below TRACE_SAMPLE_MAX stays inside. */
#define TRACE_BUF_SIZE (TRACE_SAMPLE_MAX + 512)

/* trace_cfg.ustr_kind */
enum trace_ustr_kind {
	TRACE_USTR_STRING = 1, /* const char *: one string */
	TRACE_USTR_ARRAY = 2,  /* const char *const *: NULL-terminated array of strings */
};

/* trace_cfg.dyn_rel: how a dynamic field's 32-bit locator is read. */
enum trace_dyn_kind {
	TRACE_DYN_DATA_LOC = 0, /* offset from the record's start in the low 16 bits, length in the high */
	TRACE_DYN_REL_LOC = 1,  /* offset from the end of the locator itself */
};

/* The most tracepoints one trace can attach to (this kernel has about 2300). */
#define TRACE_MAX_TPS 4096

/* Per tracepoint, at its index in the configs array. */
struct trace_cfg {
	__u16 fixed_size; /* the end of the last field of the format */
	__u8 n_dyn;
	__u8 n_ustr;
	__u16 dyn_off[TRACE_MAX_DYN]; /* offsets of the locators */
	__u8 dyn_kind[TRACE_MAX_DYN];
	__u16 ustr_off[TRACE_MAX_USTR]; /* offsets of the user pointers */
	__u8 ustr_kind[TRACE_MAX_USTR];
	__u16 id; /* the tracepoint's id, for the sample header */
	__u8 pad[2];
};

struct trace_sample_hdr {
	__u64 time_ns;   /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;       /* process (thread group) id */
	__u32 tid;       /* thread id */
	__u16 rec_size;  /* bytes of the tracepoint record that follow */
	__u16 extra_size; /* bytes of user strings after the padded record */
	__u16 id;        /* the tracepoint's id */
	__u16 flags;     /* TRACE_F_* */
	char comm[TRACE_COMM_LEN];
};

enum trace_sample_flags {
	TRACE_F_REC_TRUNCATED = 1,   /* the record was longer than TRACE_REC_MAX */
	TRACE_F_EXTRA_TRUNCATED = 2, /* user strings did not all fit */
};

/* One user string: field = index into trace_cfg.ustr_off, elem = its index
 * in an array (0 for a plain string), len = bytes that follow, NUL included
 * (0 when the pointer could not be read: a fault, or NULL). */
struct trace_extra {
	__u8 field;
	__u8 elem;
	__u16 len;
};

/* Filter flags (rodata filter_flags). */
enum trace_filter {
	TRACE_FILTER_PID = 1,  /* only processes in the pids map */
	TRACE_FILTER_COMM = 2, /* only tasks whose comm is filter_comm */
	TRACE_FILTER_CPU = 4,  /* only CPUs set in the cpus map */
	TRACE_FILTER_FOLLOW = 8, /* children of processes in pids join it (fork program) */
};

/*
 * The program's counters, one set per CPU (the per-CPU array `stats`):
 * every event that passes the filters is counted in seen and in exactly
 * one of the others, so that on each CPU
 *   seen = sent + ring_full + send_error + unreadable + no_config
 * and, once the rings are drained, sent is what user space received.
 */
struct trace_counts {
	__u64 seen;        /* events that passed the filters */
	__u64 sent;        /* written into the ring */
	__u64 ring_full;   /* not written: no room in the ring (-ENOSPC; the ring buffer: -EAGAIN) */
	__u64 send_error;  /* not written: another error (-ENOENT: no ring on this CPU) */
	__u64 unreadable;  /* not written: the tracepoint record could not be copied */
	__u64 no_config;   /* not written: a cookie with no trace_cfg (a perfring bug) */
	__u64 truncated;   /* of sent: samples with a TRACE_F_* truncation flag */
};

#endif

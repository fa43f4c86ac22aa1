/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring record layer: decode (and encode) every record perf_event_open()
 * emits, PERF_RECORD_MMAP (1) to PERF_RECORD_CALLCHAIN_DEFERRED (22), every
 * PERF_SAMPLE_* field, and the sample_id trailer, in either byte order.
 *
 * The layout of a record depends on the attr of its event: build a parse
 * config from it once (perfring_parse_config_init()), then decode records
 * with perfring_record_parse(). Views point into the caller's bytes: nothing
 * is allocated, and a view is valid as long as those bytes are. Arrays
 * (call chains, registers, branch entries, group values) are read through
 * accessors that apply the byte order. A record that straddles the end of a
 * ring must be made contiguous first (perfring_ring_linear(), or the ring's
 * linearize option).
 *
 * Every length and count is checked against the record: truncated or
 * hostile input gives -PERFRING_ETRUNC or -PERFRING_EBADREC with the
 * offending field named in out->error_field (and perfring_errmsg()), never
 * an out-of-bounds read, a loop or an allocation. A record of fixed layout
 * must end exactly where its fields (and trailer) do; in a record with a
 * string or byte field (MMAP, COMM, KSYMBOL, CGROUP, TEXT_POKE) that field
 * takes the rest, padding included. A SAMPLE's RAW field is followed by
 * zero padding up to 8 bytes when 4 + size is not a multiple of 8 (the
 * kernel never writes that; the decoder requires the padding to be zero so
 * that encoding gives the same bytes back). An unknown record type is
 * not an error: it is returned as raw bytes (kind PERFRING_REC_UNKNOWN).
 *
 * perfring_record_encode() writes a decoded record back:
 * encode(decode(bytes)) == bytes, byte for byte, padding included.
 *
 * Thread safety: the functions keep no state; a config may be shared by
 * threads once initialised.
 */
#ifndef PERFRING_RECORD_H
#define PERFRING_RECORD_H

#include <perfring/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perf_event_attr;

/* The record layer's errors, PERFRING_ETRUNC and PERFRING_EBADREC, are in common.h. */

/*
 * What a record's layout depends on, taken from the event's attr. Filled by
 * perfring_parse_config_init(); the fields may also be set by hand (then
 * call perfring_parse_config_finish()). Caller-owned, no resources.
 */
struct perfring_parse_config {
	uint64_t sample_type;        /* PERF_SAMPLE_* */
	uint64_t read_format;        /* PERF_FORMAT_* */
	uint64_t branch_sample_type; /* PERF_SAMPLE_BRANCH_*: HW_INDEX, COUNTERS matter */
	uint64_t sample_regs_user;   /* register masks: their popcount is the count */
	uint64_t sample_regs_intr;
	bool sample_id_all;          /* non-SAMPLE records carry the sample_id trailer */
	bool swapped;                /* records are in the other byte order */
	/* Branch counters follow the branch entries when any event of the
	 * group asked for them (PERF_SAMPLE_BRANCH_COUNTERS); set from this
	 * attr, set it by hand for another member of the group. */
	bool branch_counters;
	/* Derived by perfring_parse_config_finish(): */
	uint8_t nr_regs_user, nr_regs_intr;
	/* Set from the attr (not derived; it sits in what was padding): the
	 * event did not ask for build ids (attr.build_id clear), so its MMAP2
	 * records carry maj/min/ino whatever misc says. The kernel (5.12 to at
	 * least 6.x) sets PERF_RECORD_MISC_MMAP_BUILD_ID on the record it shares
	 * between events and never clears it: an event that asked for build ids
	 * leaves the bit on the records of the events delivered after it, whose
	 * bytes are still inode data. Left false (a config set by hand), the bit
	 * decides as before. */
	bool no_build_id;
	uint16_t id_trailer_size;    /* bytes of the sample_id fields of sample_type
				      * (the trailer's size when sample_id_all) */
	/* Private to the decoder: the SAMPLE layout finish() precomputed for
	 * sample_type (used only while sample_type and swapped still match). */
	uint32_t reserved[6];
};

/*
 * Fill cfg from attr (in host byte order, attr->size honoured: 0 means the
 * first version, 64 bytes). swapped: the records to decode are in the
 * other byte order. Returns 0, or -EINVAL (attr NULL, attr->size between 1
 * and 63, or a sample_type or read_format bit this library does not know:
 * the config could not decode those records).
 */
PERFRING_API int perfring_parse_config_init(struct perfring_parse_config *cfg, const struct perf_event_attr *attr,
					    bool swapped);
/* Recompute the derived fields after setting the others by hand. 0 or -EINVAL. */
PERFRING_API int perfring_parse_config_finish(struct perfring_parse_config *cfg);

/* An array of u64 inside a record, in the record's byte order. */
struct perfring_u64_array {
	const void *data;
	uint64_t nr;
	bool swapped;
};

static inline uint64_t perfring_u64_at(const struct perfring_u64_array *a, uint64_t i)
{
	uint64_t v;

	__builtin_memcpy(&v, (const uint8_t *)a->data + i * 8, 8);
	return a->swapped ? __builtin_bswap64(v) : v;
}

/* Bytes inside a record (strings include their NUL padding: len is the
 * whole field; str is NUL-terminated within it). */
struct perfring_bytes {
	const void *data;
	uint64_t len;
};

/* The sample_id fields (trailer of non-SAMPLE records, or a SAMPLE's own). */
struct perfring_sample_id {
	uint64_t present; /* the PERF_SAMPLE_* bits that were present */
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t identifier;
};

/* read_format data: without GROUP one value, with GROUP nr of them. */
struct perfring_read_values {
	uint64_t format;       /* the read_format it was decoded with */
	uint64_t time_enabled; /* if PERF_FORMAT_TOTAL_TIME_ENABLED */
	uint64_t time_running; /* if PERF_FORMAT_TOTAL_TIME_RUNNING */
	uint64_t nr;           /* 1 without GROUP */
	const void *values;    /* the entries: read them with perfring_read_value_at()
				* (with GROUP nr x {value, [id], [lost]}; without,
				* the times sit between value and id) */
	uint32_t stride;
	bool swapped;
};

struct perfring_read_value {
	uint64_t value, id, lost; /* id/lost 0 when not in the format */
};

/* Entry i (< nr) of read values. */
PERFRING_API void perfring_read_value_at(const struct perfring_read_values *r, uint64_t i,
					 struct perfring_read_value *out);

/* PERF_SAMPLE_BRANCH_STACK. */
struct perfring_branch_stack {
	uint64_t nr;
	bool has_hw_idx;
	uint64_t hw_idx;
	const void *entries;  /* nr x {u64 from, u64 to, u64 flags} */
	const void *counters; /* nr x u64, or NULL */
	bool swapped;
};

struct perfring_branch_entry {
	uint64_t from, to;
	uint64_t flags_raw; /* the u64 as the kernel wrote it (host order) */
	/* decoded from flags_raw (struct perf_branch_entry's bitfields) */
	bool mispred, predicted, in_tx, abort;
	uint16_t cycles;
	uint8_t type, spec, new_type, priv;
};

PERFRING_API void perfring_branch_at(const struct perfring_branch_stack *b, uint64_t i,
				     struct perfring_branch_entry *out);
/* Branch counter i (< nr) when the stack carries counters (counters != NULL), else 0. */
PERFRING_API uint64_t perfring_branch_counter_at(const struct perfring_branch_stack *b, uint64_t i);

/* PERF_SAMPLE_REGS_USER / REGS_INTR: no registers when abi is 0. */
struct perfring_regs {
	uint64_t abi;
	uint64_t mask;
	struct perfring_u64_array regs; /* popcount(mask) values, lowest bit first */
};

/* A SAMPLE, every field in the kernel's order; `present` says which. */
struct perfring_sample {
	uint64_t present; /* = the config's sample_type */
	uint64_t identifier;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	struct perfring_read_values read;
	struct perfring_u64_array callchain;
	struct perfring_bytes raw;      /* the u32 size's bytes (padding included) */
	struct perfring_branch_stack branch;
	struct perfring_regs regs_user;
	struct {
		uint64_t size;          /* bytes of data */
		const void *data;
		uint64_t dyn_size;      /* present only when size > 0 */
	} stack_user;
	uint64_t weight;                /* WEIGHT, or WEIGHT_STRUCT's u64 slot */
	uint64_t data_src;
	uint64_t transaction;
	struct perfring_regs regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	struct perfring_bytes aux;      /* u64 size, then the bytes */
};

/* The body of each kernel record type (besides SAMPLE). */
struct perfring_rec_mmap {      /* MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 only: maj/min/ino/ino_generation, or, with misc
	 * PERF_RECORD_MISC_MMAP_BUILD_ID on an event that asked for build ids
	 * (not cfg.no_build_id), build_id_size and build_id[20] */
	bool has_build_id;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size;
	uint8_t build_id_reserved[3];
	uint8_t build_id[20];
	uint32_t prot, flags;
	const char *filename;
	struct perfring_bytes filename_field; /* the whole padded field */
};

struct perfring_rec_lost { uint64_t id, lost; };
struct perfring_rec_comm { uint32_t pid, tid; const char *comm; struct perfring_bytes comm_field; };
struct perfring_rec_fork_exit { uint32_t pid, ppid, tid, ptid; uint64_t time; }; /* FORK and EXIT */
struct perfring_rec_throttle { uint64_t time, id, stream_id; };                   /* THROTTLE, UNTHROTTLE */
struct perfring_rec_read { uint32_t pid, tid; struct perfring_read_values values; };
struct perfring_rec_aux { uint64_t aux_offset, aux_size, flags; };
struct perfring_rec_itrace_start { uint32_t pid, tid; };
struct perfring_rec_lost_samples { uint64_t lost; };
struct perfring_rec_switch_cpu_wide { uint32_t next_prev_pid, next_prev_tid; };
struct perfring_rec_namespaces {
	uint32_t pid, tid;
	uint64_t nr;
	const void *entries; /* nr x {u64 dev, u64 inode} */
	bool swapped;
};
struct perfring_rec_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	const char *name;
	struct perfring_bytes name_field;
};
struct perfring_rec_bpf_event { uint16_t type, flags; uint32_t id; uint8_t tag[8]; };
struct perfring_rec_cgroup { uint64_t id; const char *path; struct perfring_bytes path_field; };
struct perfring_rec_text_poke {
	uint64_t addr;
	uint16_t old_len, new_len;
	const uint8_t *bytes;          /* old_len old bytes, then new_len new bytes */
	struct perfring_bytes field;   /* old + new + padding */
};
struct perfring_rec_aux_output_hw_id { uint64_t hw_id; };
struct perfring_rec_callchain_deferred { uint64_t cookie; struct perfring_u64_array ips; };

enum perfring_rec_kind {
	PERFRING_REC_KERNEL = 0,  /* a kernel record type this library decodes */
	PERFRING_REC_UNKNOWN = 1, /* any other type: only the raw bytes */
};

/* A decoded record. Views point into the bytes given to perfring_record_parse(). */
struct perfring_decoded {
	uint32_t type;          /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	enum perfring_rec_kind kind;
	const void *raw;        /* the whole record, header included */
	size_t raw_len;
	union {
		struct perfring_sample sample;
		struct perfring_rec_mmap mmap;              /* MMAP, MMAP2 */
		struct perfring_rec_lost lost;
		struct perfring_rec_comm comm;
		struct perfring_rec_fork_exit fork_exit;    /* FORK, EXIT */
		struct perfring_rec_throttle throttle;      /* THROTTLE, UNTHROTTLE */
		struct perfring_rec_read read;
		struct perfring_rec_aux aux;
		struct perfring_rec_itrace_start itrace_start;
		struct perfring_rec_lost_samples lost_samples;
		struct perfring_rec_switch_cpu_wide switch_cpu_wide; /* SWITCH has no body */
		struct perfring_rec_namespaces namespaces;
		struct perfring_rec_ksymbol ksymbol;
		struct perfring_rec_bpf_event bpf_event;
		struct perfring_rec_cgroup cgroup;
		struct perfring_rec_text_poke text_poke;
		struct perfring_rec_aux_output_hw_id aux_output_hw_id;
		struct perfring_rec_callchain_deferred callchain_deferred;
	} u;
	/* The sample_id fields: the trailer of a non-SAMPLE kernel record
	 * (sample_id_all), or a SAMPLE's own id fields. */
	struct perfring_sample_id sample_id;
	/* On error: the field that was wrong ("callchain.nr", "mmap.filename",
	 * ...) and its byte offset in the record; NULL/0 otherwise. */
	const char *error_field;
	size_t error_offset;
};

/*
 * Decode the record at rec (len bytes available, at least its header's
 * size; the header's size is authoritative, bytes beyond it are ignored).
 * Returns 0, or -PERFRING_ETRUNC / -PERFRING_EBADREC with out->error_field
 * set and the message in perfring_errmsg(), or -EINVAL for NULL arguments.
 */
PERFRING_API int perfring_record_parse(const struct perfring_parse_config *cfg, const void *rec, size_t len,
				       struct perfring_decoded *out);

/* Only the sample_id fields of any kernel record (SAMPLE included): what
 * ordering and attr matching need, without decoding the rest. */
PERFRING_API int perfring_record_sample_id(const struct perfring_parse_config *cfg, const void *rec, size_t len,
					   struct perfring_sample_id *out);

/*
 * Write rec (as decoded with cfg) into buf, in cfg's byte order. Returns
 * the bytes written (rec->size), -ENOSPC if cap is too small, -EINVAL if
 * rec is inconsistent with cfg (the field is named in perfring_errmsg()).
 */
PERFRING_API int perfring_record_encode(const struct perfring_parse_config *cfg,
					const struct perfring_decoded *rec, void *buf, size_t cap);

/* A name for a PERF_RECORD_* type ("SAMPLE", "MMAP2", ...), or NULL. */
PERFRING_API const char *perfring_record_type_name(uint32_t type);

/* What misc means, per type. */
#define PERFRING_CPUMODE_MASK 0x7 /* PERF_RECORD_MISC_CPUMODE_MASK */
static inline unsigned perfring_misc_cpumode(uint16_t misc) { return misc & PERFRING_CPUMODE_MASK; }
/* COMM: the comm changed because of an exec (bit 13, COMM_EXEC). */
static inline bool perfring_misc_comm_exec(uint16_t misc) { return (misc & (1u << 13)) != 0; }
/* FORK: bit 13, FORK_EXEC. */
static inline bool perfring_misc_fork_exec(uint16_t misc) { return (misc & (1u << 13)) != 0; }
/* MMAP/MMAP2: a data (not executable) mapping (bit 13, MMAP_DATA). */
static inline bool perfring_misc_mmap_data(uint16_t misc) { return (misc & (1u << 13)) != 0; }
/* MMAP2: build id instead of maj/min/ino (bit 14, MMAP_BUILD_ID), but only
 * on an event that asked for build ids: perfring_rec_mmap.has_build_id is
 * what the bytes are (see perfring_parse_config.no_build_id). */
static inline bool perfring_misc_mmap_build_id(uint16_t misc) { return (misc & (1u << 14)) != 0; }
/* SWITCH/SWITCH_CPU_WIDE: switching out (bit 13), and preempted (bit 14). */
static inline bool perfring_misc_switch_out(uint16_t misc) { return (misc & (1u << 13)) != 0; }
static inline bool perfring_misc_switch_out_preempt(uint16_t misc) { return (misc & (1u << 14)) != 0; }
/* SAMPLE: the ip is exact (bit 14, EXACT_IP). */
static inline bool perfring_misc_exact_ip(uint16_t misc) { return (misc & (1u << 14)) != 0; }

/* Call chains: context markers (PERF_CONTEXT_*, >= (u64)-4095) are not addresses. */
#define PERFRING_CONTEXT_MAX ((uint64_t)-4095)
static inline bool perfring_callchain_is_context(uint64_t ip) { return ip >= PERFRING_CONTEXT_MAX; }
/* A name for a context marker ("kernel", "user", "hv", "guest", "guest-kernel",
 * "guest-user", "user-deferred"), or NULL. */
PERFRING_API const char *perfring_callchain_context_name(uint64_t ip);

/* PERF_SAMPLE_WEIGHT_STRUCT: the u64 slot as {u32 var1_dw; u16 var2_w; u16 var3_w}
 * (in the kernel's layout for this host's byte order). */
struct perfring_weight {
	uint32_t var1_dw;
	uint16_t var2_w, var3_w;
};
PERFRING_API struct perfring_weight perfring_weight_struct(uint64_t weight);

/* PERF_SAMPLE_DATA_SRC decoded (union perf_mem_data_src's fields). */
struct perfring_data_src {
	uint8_t mem_op;      /* 5 bits */
	uint16_t mem_lvl;    /* 14 bits */
	uint8_t mem_snoop;   /* 5 bits */
	uint8_t mem_lock;    /* 2 bits */
	uint8_t mem_dtlb;    /* 7 bits */
	uint8_t mem_lvl_num; /* 4 bits */
	uint8_t mem_remote;  /* 1 bit */
	uint8_t mem_snoopx;  /* 2 bits */
	uint8_t mem_blk;     /* 3 bits */
	uint8_t mem_hops;    /* 3 bits */
};
PERFRING_API struct perfring_data_src perfring_data_src_decode(uint64_t data_src);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_RECORD_H */

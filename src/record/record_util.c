// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record layer helpers: the decoders' error reports (a record's type, the
 * field and its offset), accessors for arrays inside a decoded record, and
 * names and bitfield decoders for values the kernel packs. The bottom file
 * of src/record/: the decoders and the encoder call it, it calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <linux/perf_event.h>

#include "common/internal.h"
#include "record/record_internal.h"

/* ---- error reporting ----------------------------------------------------- */

int pr_rec_fail(struct pr_rec_cur *c, int err, const char *field, size_t off, const char *fmt, ...)
{
	const char *what = "perf";
	char detail[200];
	va_list ap;

	if (c->out) {
		c->out->error_field = field;
		c->out->error_offset = off;
	}
	if (c->quiet)
		return -err;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (c->have_type) {
		what = perfring_record_type_name(c->type);
		if (!what)
			what = "unknown-type";
	}
	return pr_fail(err, "%s record, offset %zu: %s %s", what, off, field, detail);
}

int pr_rec_short(struct pr_rec_cur *c, const char *field, size_t n)
{
	return pr_rec_fail(c, PERFRING_ETRUNC, field, c->pos, "needs %zu bytes, %zu left (record size %zu)", n,
			   pr_rec_left(c), c->end);
}

int pr_rec_array_slow(struct pr_rec_cur *c, const char *field, size_t count_off, uint64_t nr, size_t elem)
{
	if (nr <= UINT64_MAX / elem)
		return pr_rec_fail(c, PERFRING_EBADREC, field, count_off, "%llu needs %llu bytes, %zu left",
				   (unsigned long long)nr, (unsigned long long)(nr * elem), pr_rec_left(c));
	return pr_rec_fail(c, PERFRING_EBADREC, field, count_off, "%llu needs %llu x %zu bytes, %zu left",
			   (unsigned long long)nr, (unsigned long long)nr, elem, pr_rec_left(c));
}

void perfring_read_value_at(const struct perfring_read_values *r, uint64_t i, struct perfring_read_value *out)
{
	const uint8_t *p;
	uint64_t fmt;
	size_t off;

	out->value = out->id = out->lost = 0;
	if (!r->values || i >= r->nr)
		return;
	fmt = r->format;
	if (fmt & PERF_FORMAT_GROUP) {
		/* nr entries of {value, [id], [lost]} */
		p = (const uint8_t *)r->values + (size_t)i * r->stride;
		off = 8;
	} else {
		/* one {value, [time_enabled], [time_running], [id], [lost]}:
		 * the times sit between the value and its id */
		p = r->values;
		off = 8 + 8 * !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + 8 * !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	}
	out->value = pr_rec_load_u64(p, r->swapped);
	if (fmt & PERF_FORMAT_ID) {
		out->id = pr_rec_load_u64(p + off, r->swapped);
		off += 8;
	}
	if (fmt & PERF_FORMAT_LOST)
		out->lost = pr_rec_load_u64(p + off, r->swapped);
}

static inline bool host_is_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

/* Bits [lsb, lsb + width) of v. */
static inline uint64_t bits(uint64_t v, unsigned lsb, unsigned width)
{
	return (v >> lsb) & ((1ULL << width) - 1);
}

/*
 * struct perf_branch_entry's flag word is a plain C bitfield (the uapi has
 * no big-endian variant, unlike perf_mem_data_src and the weight struct):
 * a little-endian kernel allocates mispred at bit 0 upwards, a big-endian one
 * at bit 63 downwards. The record's writer decides, as in the perf tool
 * (which remaps the bits of a file of the other byte order): the writer is
 * big-endian when this host is and the record is not swapped, or this host
 * is little-endian and the record is swapped. For a big-endian writer, field
 * [lsb, lsb + width) of the little-endian layout is at 64 - lsb - width.
 */
static inline uint64_t flag_bits(uint64_t v, bool writer_be, unsigned lsb, unsigned width)
{
	return bits(v, writer_be ? 64 - lsb - width : lsb, width);
}

uint64_t perfring_branch_counter_at(const struct perfring_branch_stack *b, uint64_t i)
{
	struct perfring_u64_array counters = { b->counters, b->nr, b->swapped };

	return b->counters && i < b->nr ? perfring_u64_at(&counters, i) : 0;
}

void perfring_branch_at(const struct perfring_branch_stack *b, uint64_t i, struct perfring_branch_entry *out)
{
	const uint8_t *e;
	uint64_t f;
	bool be;

	memset(out, 0, sizeof(*out));
	if (!b->entries || i >= b->nr)
		return;
	e = (const uint8_t *)b->entries + (size_t)i * 24;
	out->from = pr_rec_load_u64(e, b->swapped);
	out->to = pr_rec_load_u64(e + 8, b->swapped);
	f = pr_rec_load_u64(e + 16, b->swapped);
	out->flags_raw = f;
	be = host_is_big_endian() != b->swapped;
	out->mispred = flag_bits(f, be, 0, 1);
	out->predicted = flag_bits(f, be, 1, 1);
	out->in_tx = flag_bits(f, be, 2, 1);
	out->abort = flag_bits(f, be, 3, 1);
	out->cycles = (uint16_t)flag_bits(f, be, 4, 16);
	out->type = (uint8_t)flag_bits(f, be, 20, 4);
	out->spec = (uint8_t)flag_bits(f, be, 24, 2);
	out->new_type = (uint8_t)flag_bits(f, be, 26, 4);
	out->priv = (uint8_t)flag_bits(f, be, 30, 3);
}

const char *perfring_record_type_name(uint32_t type)
{
	/* Kernel records (1..22), then the perf tool's own record types
	 * (64..), named as perf names them. */
	static const char *const kernel[] = {
		[1] = "MMAP",           [2] = "LOST",
		[3] = "COMM",           [4] = "EXIT",
		[5] = "THROTTLE",       [6] = "UNTHROTTLE",
		[7] = "FORK",           [8] = "READ",
		[9] = "SAMPLE",         [10] = "MMAP2",
		[11] = "AUX",           [12] = "ITRACE_START",
		[13] = "LOST_SAMPLES",  [14] = "SWITCH",
		[15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES",
		[17] = "KSYMBOL",       [18] = "BPF_EVENT",
		[19] = "CGROUP",        [20] = "TEXT_POKE",
		[21] = "AUX_OUTPUT_HW_ID", [22] = "CALLCHAIN_DEFERRED",
	};
	static const char *const user[] = {
		[0] = "HEADER_ATTR",         [1] = "HEADER_EVENT_TYPE",
		[2] = "HEADER_TRACING_DATA", [3] = "HEADER_BUILD_ID",
		[4] = "FINISHED_ROUND",      [5] = "ID_INDEX",
		[6] = "AUXTRACE_INFO",       [7] = "AUXTRACE",
		[8] = "AUXTRACE_ERROR",      [9] = "THREAD_MAP",
		[10] = "CPU_MAP",            [11] = "STAT_CONFIG",
		[12] = "STAT",               [13] = "STAT_ROUND",
		[14] = "EVENT_UPDATE",       [15] = "TIME_CONV",
		[16] = "HEADER_FEATURE",     [17] = "COMPRESSED",
		[18] = "FINISHED_INIT",      [19] = "COMPRESSED2",
	};

	if (type < sizeof(kernel) / sizeof(kernel[0]))
		return kernel[type];
	if (type >= 64 && type - 64 < sizeof(user) / sizeof(user[0]))
		return user[type - 64];
	return NULL;
}

const char *perfring_callchain_context_name(uint64_t ip)
{
	switch (ip) {
	case PERF_CONTEXT_HV:
		return "hv";
	case PERF_CONTEXT_KERNEL:
		return "kernel";
	case PERF_CONTEXT_USER:
		return "user";
	case PR_REC_CONTEXT_USER_DEFERRED:
		return "user-deferred";
	case PERF_CONTEXT_GUEST:
		return "guest";
	case PERF_CONTEXT_GUEST_KERNEL:
		return "guest-kernel";
	case PERF_CONTEXT_GUEST_USER:
		return "guest-user";
	default:
		return NULL;
	}
}

/*
 * The uapi declares the weight struct in reverse member order for
 * big-endian hosts, so that in both orders var1_dw is the low 32 bits of the
 * u64 slot, var2_w the next 16 and var3_w the top 16.
 */
struct perfring_weight perfring_weight_struct(uint64_t weight)
{
	struct perfring_weight w = {
		.var1_dw = (uint32_t)weight,
		.var2_w = (uint16_t)(weight >> 32),
		.var3_w = (uint16_t)(weight >> 48),
	};

	return w;
}

/* union perf_mem_data_src also has a big-endian declaration that keeps every
 * field at the same bit position of the u64: shifts work in both orders. */
struct perfring_data_src perfring_data_src_decode(uint64_t v)
{
	struct perfring_data_src d = {
		.mem_op = (uint8_t)bits(v, 0, 5),
		.mem_lvl = (uint16_t)bits(v, 5, 14),
		.mem_snoop = (uint8_t)bits(v, 19, 5),
		.mem_lock = (uint8_t)bits(v, 24, 2),
		.mem_dtlb = (uint8_t)bits(v, 26, 7),
		.mem_lvl_num = (uint8_t)bits(v, 33, 4),
		.mem_remote = (uint8_t)bits(v, 37, 1),
		.mem_snoopx = (uint8_t)bits(v, 38, 2),
		.mem_blk = (uint8_t)bits(v, 40, 3),
		.mem_hops = (uint8_t)bits(v, 43, 3),
	};

	return d;
}

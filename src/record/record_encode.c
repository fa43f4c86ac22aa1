// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_record_encode(): write a decoded record back, in the config's
 * byte order, so that encode(decode(bytes)) == bytes.
 *
 * The record's header.size is the contract: the fields are written one
 * after the other and must end exactly at rec->size. Every write is checked
 * against that size (never against cap alone), so a decoded record that
 * does not match its config is reported with the field where the sizes
 * diverge instead of producing a record some decoder would misread.
 *
 * Byte fields (RAW, padded strings, stack and aux bytes, build ids, tags,
 * text_poke bytes, the body of unknown records) are copied as they are;
 * every array read through a view is converted element by element from the
 * view's byte order to the config's, so a record decoded in one byte order
 * can be written in the other (branch flag words keep their field values:
 * their bit layout depends on the writer's byte order).
 *
 * Every field is read from its view just before it is written at the same
 * offset, so a record may be encoded over the bytes it was decoded from (to
 * change its byte order in place).
 *
 * What the decoder does not keep cannot be reproduced: the padding after
 * a RAW whose 4 + size is not a multiple of 8 (never written by the kernel)
 * is written as zeros.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "common/internal.h"
#include "record/record_internal.h"

/* No count in a record of at most 65535 bytes can exceed this. */
#define ENC_MAX_COUNT 65536

struct enc {
	uint8_t *buf;
	uint32_t size;         /* rec->size: where the fields must end */
	uint32_t off;          /* next byte to write */
	bool swapped;          /* the config's byte order */
	const char *type_name; /* for messages */
	const char *last;      /* the last field written */
	int err;               /* first failure; later writes do nothing */
};

/* Reserve n bytes for field, or fail naming it when they pass rec->size. */
static uint8_t *enc_take(struct enc *e, uint64_t n, const char *field)
{
	uint8_t *p;

	if (e->err)
		return NULL;
	if (n > (uint64_t)(e->size - e->off)) {
		e->err = pr_fail(EINVAL,
				 "record encode: %s: %s (%llu bytes at offset %u) goes past the record's "
				 "size %u: the decoded fields do not add up to header.size",
				 e->type_name, field, (unsigned long long)n, e->off, e->size);
		return NULL;
	}
	p = e->buf + e->off;
	e->off += (uint32_t)n;
	e->last = field;
	return p;
}

/* The record contradicts the config (or itself): fail naming the field. */
static void enc_bad(struct enc *e, const char *field, const char *why)
{
	if (!e->err)
		e->err = pr_fail(EINVAL, "record encode: %s: %s: %s", e->type_name, field, why);
}

static void put_u16(struct enc *e, uint64_t v, const char *field)
{
	uint8_t *p = enc_take(e, 2, field);

	if (p)
		pr_rec_store_u16(p, v, e->swapped);
}

static void put_u32(struct enc *e, uint64_t v, const char *field)
{
	uint8_t *p = enc_take(e, 4, field);

	if (p)
		pr_rec_store_u32(p, v, e->swapped);
}

static void put_u64(struct enc *e, uint64_t v, const char *field)
{
	uint8_t *p = enc_take(e, 8, field);

	if (p)
		pr_rec_store_u64(p, v, e->swapped);
}

static void put_bytes(struct enc *e, const void *data, uint64_t len, const char *field)
{
	uint8_t *p;

	if (len && !data) {
		enc_bad(e, field, "no data for a non-empty field");
		return;
	}
	p = enc_take(e, len, field);
	/* memmove: encoding in place (buf = the decoded bytes) is allowed */
	if (p && len)
		memmove(p, data, len);
}

static void put_zeros(struct enc *e, uint64_t len, const char *field)
{
	uint8_t *p = enc_take(e, len, field);

	if (p && len)
		memset(p, 0, len);
}

/* Room for nr entries of entry_size bytes, checked before any loop runs. */
static bool enc_room(struct enc *e, uint64_t nr, uint64_t entry_size, const void *data, const char *field)
{
	if (e->err)
		return false;
	if (nr && !data) {
		enc_bad(e, field, "no data for a non-empty array");
		return false;
	}
	if (nr > ENC_MAX_COUNT) {
		e->err = pr_fail(EINVAL, "record encode: %s: %s: count %llu cannot fit in any record",
				 e->type_name, field, (unsigned long long)nr);
		return false;
	}
	if (nr * entry_size > (uint64_t)(e->size - e->off)) {
		enc_take(e, nr * entry_size, field); /* fails, naming the field */
		return false;
	}
	return true;
}

/* u64 i of an array in the given byte order. */
static uint64_t view_u64(const void *data, uint64_t i, bool swapped)
{
	return pr_rec_load_u64((const uint8_t *)data + i * 8, swapped);
}

static void put_u64_array(struct enc *e, const struct perfring_u64_array *a, const char *field)
{
	uint64_t i;

	if (!enc_room(e, a->nr, 8, a->data, field))
		return;
	for (i = 0; i < a->nr; i++)
		put_u64(e, view_u64(a->data, i, a->swapped), field);
}

/* read_format data, in the kernel's two layouts (with and without GROUP). */
static void put_read_values(struct enc *e, const struct perfring_parse_config *cfg,
			    const struct perfring_read_values *r, const char *field)
{
	uint64_t f = cfg->read_format, entry = 8, i;
	struct perfring_read_value v;

	if (r->format != f) {
		enc_bad(e, field, "decoded with another read_format than the config's");
		return;
	}
	if (!(f & PERF_FORMAT_GROUP)) {
		if (r->nr != 1 || !r->values) {
			enc_bad(e, field, "without PERF_FORMAT_GROUP there must be exactly one value");
			return;
		}
		perfring_read_value_at(r, 0, &v);
		put_u64(e, v.value, field);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put_u64(e, r->time_enabled, field);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put_u64(e, r->time_running, field);
		if (f & PERF_FORMAT_ID)
			put_u64(e, v.id, field);
		if (f & PERF_FORMAT_LOST)
			put_u64(e, v.lost, field);
		return;
	}
	put_u64(e, r->nr, field);
	if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put_u64(e, r->time_enabled, field);
	if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put_u64(e, r->time_running, field);
	entry += (f & PERF_FORMAT_ID ? 8 : 0) + (f & PERF_FORMAT_LOST ? 8 : 0);
	if (!enc_room(e, r->nr, entry, r->values, field))
		return;
	for (i = 0; i < r->nr; i++) {
		perfring_read_value_at(r, i, &v);
		put_u64(e, v.value, field);
		if (f & PERF_FORMAT_ID)
			put_u64(e, v.id, field);
		if (f & PERF_FORMAT_LOST)
			put_u64(e, v.lost, field);
	}
}

/*
 * struct perf_branch_entry's flag word is a plain C bitfield, without the
 * big-endian declaration perf_mem_data_src and the weight struct have: a
 * little-endian writer allocates its fields from bit 0 up, a big-endian one
 * from bit 63 down (see perfring_branch_at()). Moving an entry to a record
 * of the other byte order therefore moves every field, value unchanged,
 * as the perf tool does for a file of the other order. {lsb, width} in the
 * little-endian layout; the last one is the reserved remainder, moved too.
 */
static const struct {
	uint8_t lsb, width;
} branch_flag_fields[] = {
	{ 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 16 },   /* mispred, predicted, in_tx, abort, cycles */
	{ 20, 4 }, { 24, 2 }, { 26, 4 }, { 30, 3 }, { 33, 31 }, /* type, spec, new_type, priv, reserved */
};

static uint64_t branch_flags_convert(uint64_t f, bool from_be, bool to_be)
{
	uint64_t out = 0, mask;
	unsigned i, lsb, mirrored;

	if (from_be == to_be)
		return f;
	for (i = 0; i < sizeof(branch_flag_fields) / sizeof(branch_flag_fields[0]); i++) {
		lsb = branch_flag_fields[i].lsb;
		mask = (1ULL << branch_flag_fields[i].width) - 1;
		mirrored = 64 - lsb - branch_flag_fields[i].width;
		if (to_be)
			out |= ((f >> lsb) & mask) << mirrored;
		else
			out |= ((f >> mirrored) & mask) << lsb;
	}
	return out;
}

static bool host_is_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static void put_branch_stack(struct enc *e, const struct perfring_parse_config *cfg,
			     const struct perfring_branch_stack *b)
{
	bool hw_index = cfg->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	struct perfring_branch_entry be;
	bool from_be, to_be;
	uint64_t i;

	if (b->has_hw_idx && !hw_index) {
		enc_bad(e, "branch_stack.hw_idx", "present but the config has no PERF_SAMPLE_BRANCH_HW_INDEX");
		return;
	}
	if (!b->has_hw_idx && hw_index && b->nr > 0) {
		enc_bad(e, "branch_stack.hw_idx", "missing: PERF_SAMPLE_BRANCH_HW_INDEX with branch entries");
		return;
	}
	if (b->counters && !cfg->branch_counters) {
		enc_bad(e, "branch_stack.counters", "present but the config has no branch counters");
		return;
	}
	if (!b->counters && cfg->branch_counters && b->nr > 0) {
		enc_bad(e, "branch_stack.counters", "missing: the config has branch counters");
		return;
	}
	/* The writer of a record is big-endian when the host is and the
	 * record is not swapped, or the host is not and the record is. */
	from_be = host_is_big_endian() != b->swapped;
	to_be = host_is_big_endian() != e->swapped;
	put_u64(e, b->nr, "branch_stack.nr");
	if (b->has_hw_idx)
		put_u64(e, b->hw_idx, "branch_stack.hw_idx");
	if (!enc_room(e, b->nr, 24, b->entries, "branch_stack.entries"))
		return;
	for (i = 0; i < b->nr; i++) {
		perfring_branch_at(b, i, &be);
		put_u64(e, be.from, "branch_stack.entries");
		put_u64(e, be.to, "branch_stack.entries");
		put_u64(e, branch_flags_convert(be.flags_raw, from_be, to_be), "branch_stack.entries");
	}
	if (!cfg->branch_counters || !enc_room(e, b->nr, 8, b->counters, "branch_stack.counters"))
		return;
	for (i = 0; i < b->nr; i++)
		put_u64(e, view_u64(b->counters, i, b->swapped), "branch_stack.counters");
}

/* REGS_USER / REGS_INTR: the abi, then the registers only when abi != 0
 * (abi 0, PERF_SAMPLE_REGS_ABI_NONE, means no registers, whatever regs.nr). */
static void put_regs(struct enc *e, const struct perfring_regs *r, unsigned nr_regs, const char *abi_field,
		     const char *regs_field)
{
	put_u64(e, r->abi, abi_field);
	if (!r->abi)
		return;
	if (r->regs.nr != nr_regs) {
		enc_bad(e, regs_field, "the count differs from the popcount of the config's register mask");
		return;
	}
	put_u64_array(e, &r->regs, regs_field);
}

/* A SAMPLE body: every field of the config's sample_type, in the kernel's order. */
static void put_sample(struct enc *e, const struct perfring_parse_config *cfg, const struct perfring_sample *s)
{
	uint64_t t = cfg->sample_type;

	if (s->present != t) {
		enc_bad(e, "sample.present", "differs from the config's sample_type");
		return;
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(e, s->identifier, "identifier");
	if (t & PERF_SAMPLE_IP)
		put_u64(e, s->ip, "ip");
	if (t & PERF_SAMPLE_TID) {
		put_u32(e, s->pid, "tid");
		put_u32(e, s->tid, "tid");
	}
	if (t & PERF_SAMPLE_TIME)
		put_u64(e, s->time, "time");
	if (t & PERF_SAMPLE_ADDR)
		put_u64(e, s->addr, "addr");
	if (t & PERF_SAMPLE_ID)
		put_u64(e, s->id, "id");
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(e, s->stream_id, "stream_id");
	if (t & PERF_SAMPLE_CPU) {
		put_u32(e, s->cpu, "cpu");
		put_u32(e, s->cpu_res, "cpu");
	}
	if (t & PERF_SAMPLE_PERIOD)
		put_u64(e, s->period, "period");
	if (t & PERF_SAMPLE_READ)
		put_read_values(e, cfg, &s->read, "read");
	if (t & PERF_SAMPLE_CALLCHAIN) {
		put_u64(e, s->callchain.nr, "callchain.nr");
		put_u64_array(e, &s->callchain, "callchain.ips");
	}
	if (t & PERF_SAMPLE_RAW) {
		if (s->raw.len > UINT32_MAX) {
			enc_bad(e, "raw.size", "larger than its u32");
			return;
		}
		put_u32(e, s->raw.len, "raw.size");
		put_bytes(e, s->raw.data, s->raw.len, "raw.data");
		/* The kernel sizes RAW so that 4 + size is a multiple of 8; a
		 * size that is not is followed by zeros up to the next 8-byte
		 * boundary, which the decoder skips. */
		put_zeros(e, (8 - (e->off & 7)) & 7, "raw.padding");
	}
	if (t & PERF_SAMPLE_BRANCH_STACK)
		put_branch_stack(e, cfg, &s->branch);
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(e, &s->regs_user, cfg->nr_regs_user, "regs_user.abi", "regs_user.regs");
	if (t & PERF_SAMPLE_STACK_USER) {
		put_u64(e, s->stack_user.size, "stack_user.size");
		put_bytes(e, s->stack_user.data, s->stack_user.size, "stack_user.data");
		if (s->stack_user.size)
			put_u64(e, s->stack_user.dyn_size, "stack_user.dyn_size");
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64(e, s->weight, "weight");
	if (t & PERF_SAMPLE_DATA_SRC)
		put_u64(e, s->data_src, "data_src");
	if (t & PERF_SAMPLE_TRANSACTION)
		put_u64(e, s->transaction, "transaction");
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(e, &s->regs_intr, cfg->nr_regs_intr, "regs_intr.abi", "regs_intr.regs");
	if (t & PERF_SAMPLE_PHYS_ADDR)
		put_u64(e, s->phys_addr, "phys_addr");
	if (t & PERF_SAMPLE_CGROUP)
		put_u64(e, s->cgroup, "cgroup");
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(e, s->data_page_size, "data_page_size");
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(e, s->code_page_size, "code_page_size");
	if (t & PERF_SAMPLE_AUX) {
		put_u64(e, s->aux.len, "aux.size");
		put_bytes(e, s->aux.data, s->aux.len, "aux.data");
	}
}

/* The sample_id trailer of a non-SAMPLE kernel record. */
static void put_sample_id(struct enc *e, const struct perfring_parse_config *cfg,
			  const struct perfring_sample_id *id)
{
	uint64_t t = cfg->sample_type;

	if (id->present != (cfg->sample_id_all ? t & PR_REC_SAMPLE_ID_BITS : 0)) {
		enc_bad(e, "sample_id.present", "differs from the config's sample_type and sample_id_all");
		return;
	}
	if (!cfg->sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		put_u32(e, id->pid, "sample_id.tid");
		put_u32(e, id->tid, "sample_id.tid");
	}
	if (t & PERF_SAMPLE_TIME)
		put_u64(e, id->time, "sample_id.time");
	if (t & PERF_SAMPLE_ID)
		put_u64(e, id->id, "sample_id.id");
	if (t & PERF_SAMPLE_STREAM_ID)
		put_u64(e, id->stream_id, "sample_id.stream_id");
	if (t & PERF_SAMPLE_CPU) {
		put_u32(e, id->cpu, "sample_id.cpu");
		put_u32(e, id->cpu_res, "sample_id.cpu");
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put_u64(e, id->identifier, "sample_id.identifier");
}

static void put_mmap(struct enc *e, const struct perfring_parse_config *cfg, const struct perfring_decoded *rec)
{
	const struct perfring_rec_mmap *m = &rec->u.mmap;

	put_u32(e, m->pid, "mmap.pid");
	put_u32(e, m->tid, "mmap.tid");
	put_u64(e, m->addr, "mmap.addr");
	put_u64(e, m->len, "mmap.len");
	put_u64(e, m->pgoff, "mmap.pgoff");
	if (rec->type == PERF_RECORD_MMAP2) {
		if (m->has_build_id != pr_rec_mmap2_build_id(cfg, rec->misc)) {
			enc_bad(e, "mmap.has_build_id",
				"disagrees with misc's PERF_RECORD_MISC_MMAP_BUILD_ID (and the config's no_build_id)");
			return;
		}
		if (m->has_build_id) {
			put_bytes(e, &m->build_id_size, 1, "mmap.build_id_size");
			put_bytes(e, m->build_id_reserved, sizeof(m->build_id_reserved), "mmap.build_id");
			put_bytes(e, m->build_id, sizeof(m->build_id), "mmap.build_id");
		} else {
			put_u32(e, m->maj, "mmap.maj");
			put_u32(e, m->min, "mmap.min");
			put_u64(e, m->ino, "mmap.ino");
			put_u64(e, m->ino_generation, "mmap.ino_generation");
		}
		put_u32(e, m->prot, "mmap.prot");
		put_u32(e, m->flags, "mmap.flags");
	}
	put_bytes(e, m->filename_field.data, m->filename_field.len, "mmap.filename");
}

static void put_namespaces(struct enc *e, const struct perfring_rec_namespaces *ns)
{
	uint64_t i;

	put_u32(e, ns->pid, "namespaces.pid");
	put_u32(e, ns->tid, "namespaces.tid");
	put_u64(e, ns->nr, "namespaces.nr");
	if (!enc_room(e, ns->nr, 16, ns->entries, "namespaces.entries"))
		return;
	for (i = 0; i < 2 * ns->nr; i++)
		put_u64(e, view_u64(ns->entries, i, ns->swapped), "namespaces.entries");
}

/* The body of a kernel record other than SAMPLE; false for an unknown type. */
static bool put_body(struct enc *e, const struct perfring_parse_config *cfg,
		     const struct perfring_decoded *rec)
{
	const typeof(rec->u) *u = &rec->u;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		put_mmap(e, cfg, rec);
		break;
	case PERF_RECORD_LOST:
		put_u64(e, u->lost.id, "lost.id");
		put_u64(e, u->lost.lost, "lost.lost");
		break;
	case PERF_RECORD_COMM:
		put_u32(e, u->comm.pid, "comm.pid");
		put_u32(e, u->comm.tid, "comm.tid");
		put_bytes(e, u->comm.comm_field.data, u->comm.comm_field.len, "comm.comm");
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		put_u32(e, u->fork_exit.pid, "fork.pid");
		put_u32(e, u->fork_exit.ppid, "fork.ppid");
		put_u32(e, u->fork_exit.tid, "fork.tid");
		put_u32(e, u->fork_exit.ptid, "fork.ptid");
		put_u64(e, u->fork_exit.time, "fork.time");
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		put_u64(e, u->throttle.time, "throttle.time");
		put_u64(e, u->throttle.id, "throttle.id");
		put_u64(e, u->throttle.stream_id, "throttle.stream_id");
		break;
	case PERF_RECORD_READ:
		put_u32(e, u->read.pid, "read.pid");
		put_u32(e, u->read.tid, "read.tid");
		put_read_values(e, cfg, &u->read.values, "read.values");
		break;
	case PERF_RECORD_AUX:
		put_u64(e, u->aux.aux_offset, "aux.aux_offset");
		put_u64(e, u->aux.aux_size, "aux.aux_size");
		put_u64(e, u->aux.flags, "aux.flags");
		break;
	case PERF_RECORD_ITRACE_START:
		put_u32(e, u->itrace_start.pid, "itrace_start.pid");
		put_u32(e, u->itrace_start.tid, "itrace_start.tid");
		break;
	case PERF_RECORD_LOST_SAMPLES:
		put_u64(e, u->lost_samples.lost, "lost_samples.lost");
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		put_u32(e, u->switch_cpu_wide.next_prev_pid, "switch.next_prev_pid");
		put_u32(e, u->switch_cpu_wide.next_prev_tid, "switch.next_prev_tid");
		break;
	case PERF_RECORD_NAMESPACES:
		put_namespaces(e, &u->namespaces);
		break;
	case PERF_RECORD_KSYMBOL:
		put_u64(e, u->ksymbol.addr, "ksymbol.addr");
		put_u32(e, u->ksymbol.len, "ksymbol.len");
		put_u16(e, u->ksymbol.ksym_type, "ksymbol.ksym_type");
		put_u16(e, u->ksymbol.flags, "ksymbol.flags");
		put_bytes(e, u->ksymbol.name_field.data, u->ksymbol.name_field.len, "ksymbol.name");
		break;
	case PERF_RECORD_BPF_EVENT:
		put_u16(e, u->bpf_event.type, "bpf_event.type");
		put_u16(e, u->bpf_event.flags, "bpf_event.flags");
		put_u32(e, u->bpf_event.id, "bpf_event.id");
		put_bytes(e, u->bpf_event.tag, sizeof(u->bpf_event.tag), "bpf_event.tag");
		break;
	case PERF_RECORD_CGROUP:
		put_u64(e, u->cgroup.id, "cgroup.id");
		put_bytes(e, u->cgroup.path_field.data, u->cgroup.path_field.len, "cgroup.path");
		break;
	case PERF_RECORD_TEXT_POKE:
		if ((uint64_t)u->text_poke.old_len + u->text_poke.new_len > u->text_poke.field.len)
			enc_bad(e, "text_poke.bytes", "old_len + new_len exceed the bytes field");
		put_u64(e, u->text_poke.addr, "text_poke.addr");
		put_u16(e, u->text_poke.old_len, "text_poke.old_len");
		put_u16(e, u->text_poke.new_len, "text_poke.new_len");
		put_bytes(e, u->text_poke.field.data, u->text_poke.field.len, "text_poke.bytes");
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		put_u64(e, u->aux_output_hw_id.hw_id, "aux_output_hw_id.hw_id");
		break;
	case PR_REC_TYPE_CALLCHAIN_DEFERRED:
		put_u64(e, u->callchain_deferred.cookie, "callchain_deferred.cookie");
		put_u64(e, u->callchain_deferred.ips.nr, "callchain_deferred.nr");
		put_u64_array(e, &u->callchain_deferred.ips, "callchain_deferred.ips");
		break;
	default:
		return false;
	}
	put_sample_id(e, cfg, &rec->sample_id);
	return true;
}

int perfring_record_encode(const struct perfring_parse_config *cfg, const struct perfring_decoded *rec,
			   void *buf, size_t cap)
{
	const char *name;
	struct enc e;

	if (!cfg || !rec || (!buf && cap))
		return pr_fail(EINVAL, "perfring_record_encode: NULL %s", !cfg ? "cfg" : !rec ? "rec" : "buf");
	if (rec->size < 8)
		return pr_fail(EINVAL, "perfring_record_encode: header.size %u is below the 8-byte header",
			       rec->size);
	if (cap < rec->size)
		return pr_fail(ENOSPC, "perfring_record_encode: the record needs %u bytes, the buffer has %zu",
			       rec->size, cap);
	name = perfring_record_type_name(rec->type);
	e = (struct enc){
		.buf = buf,
		.size = rec->size,
		.swapped = cfg->swapped,
		.type_name = name ? name : "record",
	};
	put_u32(&e, rec->type, "header.type");
	put_u16(&e, rec->misc, "header.misc");
	put_u16(&e, rec->size, "header.size");
	if (rec->kind == PERFRING_REC_UNKNOWN) {
		/* The body's layout is unknown: its bytes go as they are. */
		if (!rec->raw || rec->raw_len != rec->size)
			return pr_fail(EINVAL,
				       "record encode: unknown record type %u: raw/raw_len (%zu) do not "
				       "hold the %u bytes of the record",
				       rec->type, rec->raw_len, rec->size);
		put_bytes(&e, (const uint8_t *)rec->raw + 8, rec->size - 8u, "raw");
	} else if (rec->kind != PERFRING_REC_KERNEL) {
		enc_bad(&e, "kind", "neither PERFRING_REC_KERNEL nor PERFRING_REC_UNKNOWN");
	} else if (rec->type == PERF_RECORD_SAMPLE) {
		put_sample(&e, cfg, &rec->u.sample);
	} else if (!put_body(&e, cfg, rec)) {
		return pr_fail(EINVAL,
			       "record encode: type %u is not a kernel record type this library decodes "
			       "(kind PERFRING_REC_KERNEL)",
			       rec->type);
	}
	if (e.err)
		return e.err;
	if (e.off != e.size)
		return pr_fail(EINVAL,
			       "record encode: %s: the fields end at offset %u, after %s, but header.size is %u",
			       e.type_name, e.off, e.last, e.size);
	return (int)e.size;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the record layer (perfring_record_parse/_encode/_sample_id).
 *
 * README: `make O=build fuzz` builds build/fuzz/record_fuzz (clang, libFuzzer + ASan + UBSan); run it
 * on a copy of the seeds, never on tests/fuzz/corpus/record itself:
 *   mkdir -p build/fuzz/corpus && cp -r tests/fuzz/corpus/record/. build/fuzz/corpus/ &&
 *   build/fuzz/record_fuzz -max_total_time=60 build/fuzz/corpus
 * A crash leaves crash-<sha1> in the working directory (or -artifact_prefix); replay it with
 * build/fuzz/record_replay FILE (the same harness built with gcc, no libFuzzer), which also takes
 * directories. make check runs the fuzzer for 60 s (FUZZ_SECONDS), and every build replays the
 * seeds in tests/unit/fuzz_replay. `make fuzz-corpus` regenerates the seeds (tests/fuzz/make_corpus.c).
 *
 * Input: a 48-byte config prefix (record_fuzz.h), then one record. The
 * harness decodes the record, checks that every view lies inside it, reads
 * every element through the accessors (checked against the bytes where
 * the header fixes the layout), and requires encode(decode(x)) == x byte for
 * byte, the same through the other byte order (encoded into a new buffer and
 * in place), a refusal to encode into one byte less, and
 * perfring_record_sample_id() to agree with the full decode. Any broken
 * promise of include/perfring/record.h calls abort() after a
 * "record_fuzz: FINDING:" line: the fuzzer reports it as a crash.
 *
 * The record is decoded twice: from a heap copy of exactly header.size bytes
 * (so that ASan catches a read past the record's end even when the input
 * holds more bytes), and in place with len = the rest of the input (the
 * header's size is authoritative: the result must be the same).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/record.h>

#include "record_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one input gave, for the replay programs. */
struct rf_outcome {
	int config_rc;          /* perfring_parse_config_finish() */
	int parse_rc;           /* perfring_record_parse(), 1 if not called */
	uint32_t type;
	uint16_t size;
	enum perfring_rec_kind kind;
	char error_field[64];
};

__attribute__((noreturn, format(printf, 1, 2))) static void rf_finding(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "record_fuzz: FINDING: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fflush(stderr);
	abort();
}

static uint64_t rf_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void rf_config(const uint8_t *p, struct perfring_parse_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sample_type = rf_le64(p + 0);
	cfg->read_format = rf_le64(p + 8);
	cfg->branch_sample_type = rf_le64(p + 16);
	cfg->sample_regs_user = rf_le64(p + 24);
	cfg->sample_regs_intr = rf_le64(p + 32);
	cfg->sample_id_all = p[RF_FLAGS_OFFSET] & RF_SAMPLE_ID_ALL;
	cfg->swapped = p[RF_FLAGS_OFFSET] & RF_SWAPPED;
	cfg->branch_counters = p[RF_FLAGS_OFFSET] & RF_BRANCH_COUNTERS;
}

/* Everything the harness reads ends up here, so that no read is optimised away. */
static volatile uint64_t rf_sink;

/* The record's bounds, for the view checks. */
struct rf_rec {
	const uint8_t *base;
	size_t size;
	uint64_t sink; /* everything read is folded in here, so nothing is optimised away */
};

/* [p, p + len) must lie inside the record. */
static void rf_view(const struct rf_rec *r, const void *p, uint64_t len, const char *what)
{
	const uint8_t *b = p;

	if (!len)
		return;
	if (!p || b < r->base || b > r->base + r->size || len > (uint64_t)(r->base + r->size - b))
		rf_finding("%s: view [%p, +%" PRIu64 ") outside the record [%p, +%zu)", what, p, len,
			   (const void *)r->base, r->size);
}

/* An array of nr elements of elem bytes must lie inside the record. */
static void rf_array(const struct rf_rec *r, const void *p, uint64_t nr, uint64_t elem, const char *what)
{
	if (nr > r->size / elem)
		rf_finding("%s: %" PRIu64 " elements of %" PRIu64 " bytes in a %zu-byte record", what, nr, elem,
			   r->size);
	rf_view(r, p, nr * elem, what);
}

static void rf_touch_bytes(struct rf_rec *r, const void *p, uint64_t len, const char *what)
{
	const uint8_t *b = p;
	uint64_t i;

	rf_view(r, p, len, what);
	for (i = 0; i < len; i++)
		r->sink += b[i];
}

/* A string view: str inside field, NUL-terminated within it. */
static void rf_string(struct rf_rec *r, const char *str, const struct perfring_bytes *field, const char *what)
{
	const char *f = field->data;
	size_t room;

	rf_touch_bytes(r, field->data, field->len, what);
	if (!str)
		rf_finding("%s: NULL string", what);
	if (!field->len || str < f || str >= f + field->len)
		rf_finding("%s: string %p outside its field [%p, +%" PRIu64 ")", what, (const void *)str,
			   field->data, field->len);
	room = (size_t)(f + field->len - str);
	if (strnlen(str, room) == room)
		rf_finding("%s: no NUL within the field", what);
	r->sink += strlen(str);
}

static void rf_u64s(struct rf_rec *r, const struct perfring_u64_array *a, const char *what)
{
	uint64_t i;

	if (!a->nr)
		return;
	rf_array(r, a->data, a->nr, 8, what);
	for (i = 0; i < a->nr; i++)
		r->sink += perfring_u64_at(a, i);
}

static uint64_t rf_load64(const void *p, bool swapped)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swapped ? __builtin_bswap64(v) : v;
}

/*
 * read_format data. With GROUP: nr entries {value, [id], [lost]} of stride
 * bytes. Without: values points at the one {value, [time_enabled],
 * [time_running], [id], [lost]} and stride covers all of it (the times sit
 * between the value and its id). The accessor is checked against the bytes.
 */
static void rf_read_values(struct rf_rec *r, const struct perfring_read_values *v, uint64_t read_format,
			   const char *what)
{
	struct perfring_read_value rv;
	bool group = read_format & PERF_FORMAT_GROUP;
	unsigned times = 8 * (!!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			      !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING));
	unsigned has_id = !!(read_format & PERF_FORMAT_ID), has_lost = !!(read_format & PERF_FORMAT_LOST);
	unsigned want_stride = 8 * (1 + has_id + has_lost) + (group ? 0 : times);
	unsigned id_off = 8 + (group ? 0 : times);
	uint64_t i;

	r->sink += v->time_enabled + v->time_running;
	if (v->format != read_format)
		rf_finding("%s: format 0x%" PRIx64 ", the config says 0x%" PRIx64, what, v->format, read_format);
	if (v->stride != want_stride)
		rf_finding("%s: stride %u, want %u", what, v->stride, want_stride);
	if (!group && v->nr != 1)
		rf_finding("%s: %" PRIu64 " values without PERF_FORMAT_GROUP", what, v->nr);
	if (!v->nr)
		return;
	rf_array(r, v->values, v->nr, v->stride, what);
	for (i = 0; i < v->nr; i++) {
		const uint8_t *e = (const uint8_t *)v->values + i * v->stride;
		struct perfring_read_value want = { 0 };

		want.value = rf_load64(e, v->swapped);
		if (has_id)
			want.id = rf_load64(e + id_off, v->swapped);
		if (has_lost)
			want.lost = rf_load64(e + id_off + 8 * has_id, v->swapped);
		perfring_read_value_at(v, i, &rv);
		r->sink += rv.value + rv.id + rv.lost;
		if (rv.value != want.value || rv.id != want.id || rv.lost != want.lost)
			rf_finding("%s[%" PRIu64 "]: value/id/lost %" PRIu64 "/%" PRIu64 "/%" PRIu64
				   ", the bytes say %" PRIu64 "/%" PRIu64 "/%" PRIu64, what, i, rv.value, rv.id,
				   rv.lost, want.value, want.id, want.lost);
	}
}

/*
 * Field {lsb, width} of struct perf_branch_entry's flag word (lsb as a
 * little-endian compiler allocates it). The word is a plain C bitfield: a
 * big-endian writer allocates the same fields from bit 63 down.
 */
static uint64_t rf_bits(uint64_t flags, unsigned lsb, unsigned width, bool big_endian_writer)
{
	unsigned shift = big_endian_writer ? 64 - lsb - width : lsb;

	return flags >> shift & ((1ULL << width) - 1);
}

static void rf_branches(struct rf_rec *r, const struct perfring_branch_stack *b,
			const struct perfring_parse_config *cfg)
{
	/* The record's writer was big-endian if this host is and the record is not swapped, or the reverse. */
	bool be = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != b->swapped;
	struct perfring_branch_entry e;
	uint64_t i;

	r->sink += b->hw_idx + b->has_hw_idx;
	if (b->has_hw_idx && !(cfg->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX))
		rf_finding("branch: hw_idx without PERF_SAMPLE_BRANCH_HW_INDEX");
	if (!b->nr)
		return;
	rf_array(r, b->entries, b->nr, 24, "branch.entries");
	if (b->counters)
		rf_array(r, b->counters, b->nr, 8, "branch.counters");
	for (i = 0; i < b->nr; i++) {
		const uint8_t *raw = (const uint8_t *)b->entries + i * 24;

		perfring_branch_at(b, i, &e);
		r->sink += e.from + e.to + e.flags_raw + e.mispred + e.predicted + e.in_tx + e.abort + e.cycles +
			   e.type + e.spec + e.new_type + e.priv;
		if (e.from != rf_load64(raw, b->swapped) || e.to != rf_load64(raw + 8, b->swapped) ||
		    e.flags_raw != rf_load64(raw + 16, b->swapped))
			rf_finding("branch[%" PRIu64 "]: from/to/flags differ from the record's bytes", i);
		if (e.mispred != rf_bits(e.flags_raw, 0, 1, be) || e.predicted != rf_bits(e.flags_raw, 1, 1, be) ||
		    e.in_tx != rf_bits(e.flags_raw, 2, 1, be) || e.abort != rf_bits(e.flags_raw, 3, 1, be) ||
		    e.cycles != rf_bits(e.flags_raw, 4, 16, be) || e.type != rf_bits(e.flags_raw, 20, 4, be) ||
		    e.spec != rf_bits(e.flags_raw, 24, 2, be) || e.new_type != rf_bits(e.flags_raw, 26, 4, be) ||
		    e.priv != rf_bits(e.flags_raw, 30, 3, be))
			rf_finding("branch[%" PRIu64 "]: flags 0x%" PRIx64 " decoded wrongly (%s-endian writer)", i,
				   e.flags_raw, be ? "big" : "little");
		if (b->counters)
			r->sink += rf_load64((const uint8_t *)b->counters + i * 8, b->swapped);
	}
}

static void rf_regs(struct rf_rec *r, const struct perfring_regs *regs, uint64_t mask, const char *what)
{
	uint64_t want = regs->abi ? (uint64_t)__builtin_popcountll(mask) : 0;

	r->sink += regs->abi + regs->mask;
	if (regs->regs.nr != want)
		rf_finding("%s: %" PRIu64 " registers, abi %" PRIu64 " and mask 0x%" PRIx64 " say %" PRIu64, what,
			   regs->regs.nr, regs->abi, mask, want);
	rf_u64s(r, &regs->regs, what);
}

static void rf_sample(struct rf_rec *r, const struct perfring_sample *s,
		      const struct perfring_parse_config *cfg)
{
	uint64_t t = s->present, i;
	struct perfring_weight w;
	struct perfring_data_src ds;
	const char *name;

	if (t != cfg->sample_type)
		rf_finding("sample: present 0x%" PRIx64 ", the config says 0x%" PRIx64, t, cfg->sample_type);
	r->sink += s->identifier + s->ip + s->pid + s->tid + s->time + s->addr + s->id + s->stream_id + s->cpu +
		   s->cpu_res + s->period + s->weight + s->data_src + s->transaction + s->phys_addr + s->cgroup +
		   s->data_page_size + s->code_page_size;
	if (t & PERF_SAMPLE_READ)
		rf_read_values(r, &s->read, cfg->read_format, "sample.read");
	if (t & PERF_SAMPLE_CALLCHAIN) {
		rf_u64s(r, &s->callchain, "sample.callchain");
		for (i = 0; i < s->callchain.nr; i++) {
			uint64_t ip = perfring_u64_at(&s->callchain, i);

			if (perfring_callchain_is_context(ip) && (name = perfring_callchain_context_name(ip)))
				r->sink += strlen(name);
		}
	}
	if (t & PERF_SAMPLE_RAW)
		rf_touch_bytes(r, s->raw.data, s->raw.len, "sample.raw");
	if (t & PERF_SAMPLE_BRANCH_STACK)
		rf_branches(r, &s->branch, cfg);
	if (t & PERF_SAMPLE_REGS_USER)
		rf_regs(r, &s->regs_user, cfg->sample_regs_user, "sample.regs_user");
	if (t & PERF_SAMPLE_STACK_USER) {
		rf_touch_bytes(r, s->stack_user.data, s->stack_user.size, "sample.stack_user");
		r->sink += s->stack_user.dyn_size;
	}
	if (t & PERF_SAMPLE_REGS_INTR)
		rf_regs(r, &s->regs_intr, cfg->sample_regs_intr, "sample.regs_intr");
	if (t & PERF_SAMPLE_AUX)
		rf_touch_bytes(r, s->aux.data, s->aux.len, "sample.aux");
	w = perfring_weight_struct(s->weight);
	ds = perfring_data_src_decode(s->data_src);
	r->sink += w.var1_dw + w.var2_w + w.var3_w + ds.mem_op + ds.mem_lvl + ds.mem_snoop + ds.mem_lock +
		   ds.mem_dtlb + ds.mem_lvl_num + ds.mem_remote + ds.mem_snoopx + ds.mem_blk + ds.mem_hops;
}

/* Every field of the body of a non-SAMPLE record. */
static void rf_body(struct rf_rec *r, const struct perfring_decoded *d,
		    const struct perfring_parse_config *cfg)
{
	uint64_t i;

	switch (d->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const struct perfring_rec_mmap *m = &d->u.mmap;

		r->sink += m->pid + m->tid + m->addr + m->len + m->pgoff + m->has_build_id + m->maj + m->min +
			   m->ino + m->ino_generation + m->build_id_size + m->prot + m->flags;
		for (i = 0; i < sizeof(m->build_id); i++)
			r->sink += m->build_id[i];
		rf_string(r, m->filename, &m->filename_field, "mmap.filename");
		break;
	}
	case PERF_RECORD_LOST:
		r->sink += d->u.lost.id + d->u.lost.lost;
		break;
	case PERF_RECORD_COMM:
		r->sink += d->u.comm.pid + d->u.comm.tid + perfring_misc_comm_exec(d->misc);
		rf_string(r, d->u.comm.comm, &d->u.comm.comm_field, "comm.comm");
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		r->sink += d->u.fork_exit.pid + d->u.fork_exit.ppid + d->u.fork_exit.tid + d->u.fork_exit.ptid +
			   d->u.fork_exit.time + perfring_misc_fork_exec(d->misc);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		r->sink += d->u.throttle.time + d->u.throttle.id + d->u.throttle.stream_id;
		break;
	case PERF_RECORD_READ:
		r->sink += d->u.read.pid + d->u.read.tid;
		rf_read_values(r, &d->u.read.values, cfg->read_format, "read.values");
		break;
	case PERF_RECORD_AUX:
		r->sink += d->u.aux.aux_offset + d->u.aux.aux_size + d->u.aux.flags;
		break;
	case PERF_RECORD_ITRACE_START:
		r->sink += d->u.itrace_start.pid + d->u.itrace_start.tid;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->sink += d->u.lost_samples.lost;
		break;
	case PERF_RECORD_SWITCH:
		r->sink += perfring_misc_switch_out(d->misc) + perfring_misc_switch_out_preempt(d->misc);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		r->sink += d->u.switch_cpu_wide.next_prev_pid + d->u.switch_cpu_wide.next_prev_tid;
		break;
	case PERF_RECORD_NAMESPACES: {
		const struct perfring_rec_namespaces *ns = &d->u.namespaces;

		r->sink += ns->pid + ns->tid;
		if (ns->nr)
			rf_array(r, ns->entries, ns->nr, 16, "namespaces.entries");
		for (i = 0; i < ns->nr; i++) {
			const uint8_t *e = (const uint8_t *)ns->entries + i * 16;

			r->sink += rf_load64(e, ns->swapped) + rf_load64(e + 8, ns->swapped);
		}
		break;
	}
	case PERF_RECORD_KSYMBOL:
		r->sink += d->u.ksymbol.addr + d->u.ksymbol.len + d->u.ksymbol.ksym_type + d->u.ksymbol.flags;
		rf_string(r, d->u.ksymbol.name, &d->u.ksymbol.name_field, "ksymbol.name");
		break;
	case PERF_RECORD_BPF_EVENT:
		r->sink += d->u.bpf_event.type + d->u.bpf_event.flags + d->u.bpf_event.id;
		for (i = 0; i < sizeof(d->u.bpf_event.tag); i++)
			r->sink += d->u.bpf_event.tag[i];
		break;
	case PERF_RECORD_CGROUP:
		r->sink += d->u.cgroup.id;
		rf_string(r, d->u.cgroup.path, &d->u.cgroup.path_field, "cgroup.path");
		break;
	case PERF_RECORD_TEXT_POKE: {
		const struct perfring_rec_text_poke *tp = &d->u.text_poke;
		uint64_t n = (uint64_t)tp->old_len + tp->new_len;

		r->sink += tp->addr;
		rf_touch_bytes(r, tp->field.data, tp->field.len, "text_poke.field");
		if (n > tp->field.len)
			rf_finding("text_poke: old_len %u + new_len %u > field %" PRIu64, tp->old_len, tp->new_len,
				   tp->field.len);
		rf_touch_bytes(r, tp->bytes, n, "text_poke.bytes");
		break;
	}
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		r->sink += d->u.aux_output_hw_id.hw_id;
		break;
	case RF_RECORD_CALLCHAIN_DEFERRED:
		r->sink += d->u.callchain_deferred.cookie;
		rf_u64s(r, &d->u.callchain_deferred.ips, "callchain_deferred.ips");
		break;
	}
}

static bool rf_same_sample_id(const struct perfring_sample_id *a, const struct perfring_sample_id *b,
			      uint64_t bits)
{
	return (!(bits & PERF_SAMPLE_TID) || (a->pid == b->pid && a->tid == b->tid)) &&
	       (!(bits & PERF_SAMPLE_TIME) || a->time == b->time) && (!(bits & PERF_SAMPLE_ID) || a->id == b->id) &&
	       (!(bits & PERF_SAMPLE_STREAM_ID) || a->stream_id == b->stream_id) &&
	       (!(bits & PERF_SAMPLE_CPU) || (a->cpu == b->cpu && a->cpu_res == b->cpu_res)) &&
	       (!(bits & PERF_SAMPLE_IDENTIFIER) || a->identifier == b->identifier);
}

/* perfring_record_sample_id() must agree with the full decode. */
static void rf_check_sample_id(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
			       const uint8_t *rec, size_t len)
{
	struct perfring_sample_id sid, want;
	int rc;

	memset(&sid, 0xa5, sizeof(sid));
	rc = perfring_record_sample_id(cfg, rec, len, &sid);
	if (d->kind != PERFRING_REC_KERNEL)
		return; /* user and unknown types: either answer is fine */
	if (rc)
		rf_finding("sample_id: %d (%s) on a record that decodes", rc, perfring_errmsg());
	if (d->type == PERF_RECORD_SAMPLE) {
		const struct perfring_sample *s = &d->u.sample;

		memset(&want, 0, sizeof(want));
		want.present = cfg->sample_type & RF_SAMPLE_ID_BITS;
		want.pid = s->pid;
		want.tid = s->tid;
		want.time = s->time;
		want.id = s->id;
		want.stream_id = s->stream_id;
		want.cpu = s->cpu;
		want.cpu_res = s->cpu_res;
		want.identifier = s->identifier;
		/* out->sample_id holds a SAMPLE's own id fields too. */
		if (d->sample_id.present != want.present || !rf_same_sample_id(&d->sample_id, &want, want.present))
			rf_finding("decode: a SAMPLE's sample_id (present 0x%" PRIx64 ") differs from its fields",
				   d->sample_id.present);
	} else {
		want = d->sample_id;
		if (want.present != (cfg->sample_id_all ? cfg->sample_type & RF_SAMPLE_ID_BITS : 0))
			rf_finding("decode: sample_id.present 0x%" PRIx64 " for sample_type 0x%" PRIx64
				   " sample_id_all %d", want.present, cfg->sample_type, cfg->sample_id_all);
	}
	if (sid.present != want.present || !rf_same_sample_id(&sid, &want, want.present))
		rf_finding("sample_id: present 0x%" PRIx64 " pid %u tid %u time %" PRIu64 " id %" PRIu64
			   " identifier %" PRIu64 "; the full decode says present 0x%" PRIx64 " pid %u tid %u time %" PRIu64
			   " id %" PRIu64 " identifier %" PRIu64, sid.present, sid.pid, sid.tid, sid.time, sid.id,
			   sid.identifier, want.present, want.pid, want.tid, want.time, want.id, want.identifier);
}

static void rf_hexdump(const char *what, const uint8_t *p, size_t n)
{
	size_t i;

	fprintf(stderr, "%s (%zu bytes):", what, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

/*
 * The other byte order: encode(cfg', decode(cfg, x)) must decode with cfg'
 * (cfg with swapped flipped) and encode back to x with cfg; encoding over
 * the bytes the record was decoded from (in place) must give the same bytes.
 */
static void rf_check_other_order(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
				 const uint8_t *rec, size_t size)
{
	struct perfring_parse_config other = *cfg;
	struct perfring_decoded back;
	uint8_t *conv, *inplace, *again;
	int n, rc;

	if (d->kind != PERFRING_REC_KERNEL)
		return; /* an unknown record's bytes cannot be converted */
	/* An empty branch stack with HW_INDEX: whether hw_idx is there is
	 * inferred from what fits, and the converted bytes may fit the other
	 * guess (a 1-byte stack_user absorbing the 8 bytes, say): not a bug. */
	if (d->type == PERF_RECORD_SAMPLE && (cfg->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    (cfg->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && d->u.sample.branch.nr == 0)
		return;
	other.swapped = !cfg->swapped;
	if (perfring_parse_config_finish(&other))
		rf_finding("parse_config_finish refuses the config with swapped flipped");
	conv = malloc(size);
	inplace = malloc(size);
	again = malloc(size);
	if (!conv || !inplace || !again)
		abort();
	n = perfring_record_encode(&other, d, conv, size);
	if (n != (int)size)
		rf_finding("encode in the other byte order: %d (%s), want %zu", n, n < 0 ? perfring_errmsg() : "",
			   size);
	memset(&back, 0, sizeof(back));
	rc = perfring_record_parse(&other, conv, size, &back);
	if (rc)
		rf_finding("the record encoded in the other byte order does not decode: %d (%s at %zu)", rc,
			   back.error_field, back.error_offset);
	n = perfring_record_encode(cfg, &back, again, size);
	if (n != (int)size || memcmp(again, rec, size)) {
		rf_hexdump("record", rec, size);
		rf_hexdump("other order", conv, size);
		rf_hexdump("back", again, size);
		rf_finding("encode(decode(encode_other_order(decode(x)))) != x (%d)", n);
	}

	/* In place: decode from a copy, encode over that copy. */
	memcpy(inplace, rec, size);
	memset(&back, 0, sizeof(back));
	if (perfring_record_parse(cfg, inplace, size, &back))
		rf_finding("the copy of a record that decodes does not");
	n = perfring_record_encode(&other, &back, inplace, size);
	if (n != (int)size || memcmp(inplace, conv, size)) {
		rf_hexdump("other order", conv, size);
		rf_hexdump("in place", inplace, size);
		rf_finding("encoding in the other byte order in place differs (%d)", n);
	}
	free(conv);
	free(inplace);
	free(again);
}

/* encode(decode(x)) == x, and no write past a too small buffer. */
static void rf_check_encode(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
			    const uint8_t *rec, size_t size)
{
	uint8_t *buf = malloc(size);
	int n;
	size_t i;

	if (!buf)
		abort();
	memset(buf, 0xee, size);
	n = perfring_record_encode(cfg, d, buf, size);
	if (n < 0)
		rf_finding("encode: %d (%s) for a record that decodes (type %u, size %zu)", n, perfring_errmsg(),
			   d->type, size);
	if ((size_t)n != size)
		rf_finding("encode: wrote %d bytes, the record has %zu", n, size);
	if (memcmp(buf, rec, size)) {
		for (i = 0; i < size && buf[i] == rec[i]; i++)
			;
		rf_hexdump("record", rec, size);
		rf_hexdump("encoded", buf, size);
		rf_finding("encode(decode(x)) != x: first difference at byte %zu (type %u, size %zu)", i, d->type,
			   size);
	}
	free(buf);

	/* One byte short: must refuse, without writing past the end. */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		abort();
	n = perfring_record_encode(cfg, d, buf, size - 1);
	if (n >= 0)
		rf_finding("encode: wrote %d bytes into a %zu-byte buffer", n, size - 1);
	free(buf);
}

static uint16_t rf_load16(const uint8_t *p, bool swapped)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

static uint32_t rf_load32(const uint8_t *p, bool swapped)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static void rf_check_error(int rc, const struct perfring_decoded *d, size_t len, const char *how)
{
	if (rc != -PERFRING_ETRUNC && rc != -PERFRING_EBADREC)
		rf_finding("%s: parse returned %d, not 0, -PERFRING_ETRUNC or -PERFRING_EBADREC", how, rc);
	if (!d->error_field || !d->error_field[0])
		rf_finding("%s: error %d without error_field", how, rc);
	if (d->error_offset > len)
		rf_finding("%s: error_offset %zu beyond the %zu bytes", how, d->error_offset, len);
}

/* Every view of d (decoded from the rec copy of size bytes), every accessor. */
static void rf_check_decoded(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
			     const uint8_t *rec, size_t size)
{
	struct rf_rec r = { .base = rec, .size = size };
	const char *name;

	if ((name = perfring_record_type_name(d->type)))
		r.sink += strlen(name);
	r.sink += perfring_misc_cpumode(d->misc) + perfring_misc_exact_ip(d->misc) +
		  perfring_misc_mmap_data(d->misc) + perfring_misc_mmap_build_id(d->misc);
	if (d->kind == PERFRING_REC_UNKNOWN) {
		rf_touch_bytes(&r, d->raw, d->raw_len, "unknown.raw");
	} else if (d->type == PERF_RECORD_SAMPLE) {
		rf_sample(&r, &d->u.sample, cfg);
	} else {
		rf_body(&r, d, cfg);
		r.sink += d->sample_id.pid + d->sample_id.tid + d->sample_id.time + d->sample_id.id +
			  d->sample_id.stream_id + d->sample_id.cpu + d->sample_id.cpu_res + d->sample_id.identifier;
	}
	rf_sink += r.sink;
}

static int rf_run(const uint8_t *data, size_t size, struct rf_outcome *o)
{
	struct perfring_parse_config cfg;
	struct perfring_decoded d, d2;
	struct perfring_sample_id sid;
	const uint8_t *rec;
	uint8_t *copy;
	size_t len, hsize = 0;
	int rc, rc2;

	memset(o, 0, sizeof(*o));
	o->parse_rc = 1;
	if (size < RF_PREFIX_SIZE)
		return 0;
	rf_config(data, &cfg);
	o->config_rc = perfring_parse_config_finish(&cfg);
	if (o->config_rc) {
		if (o->config_rc != -EINVAL)
			rf_finding("parse_config_finish returned %d, not 0 or -EINVAL", o->config_rc);
		return 0;
	}
	rec = data + RF_PREFIX_SIZE;
	len = size - RF_PREFIX_SIZE;
	if (len >= 8)
		hsize = rf_load16(rec + 6, cfg.swapped);

	/* In place, with every byte of the input available. */
	memset(&d, 0, sizeof(d));
	rc = perfring_record_parse(&cfg, rec, len, &d);
	o->parse_rc = rc;
	if (rc) {
		rf_check_error(rc, &d, len, "in place");
		snprintf(o->error_field, sizeof(o->error_field), "%s", d.error_field);
		/* The sample_id alone may still decode; it must not read out of bounds. */
		perfring_record_sample_id(&cfg, rec, len, &sid);
	} else {
		if (len < 8)
			rf_finding("parse accepted %zu bytes, less than a header", len);
		if (hsize < 8 || hsize > len)
			rf_finding("parse accepted a record of header.size %zu with %zu bytes", hsize, len);
		o->type = d.type;
		o->size = d.size;
		o->kind = d.kind;
		if (d.size != hsize || d.type != rf_load32(rec, cfg.swapped) ||
		    d.misc != rf_load16(rec + 4, cfg.swapped))
			rf_finding("header: type %u misc 0x%x size %u, the bytes say %u 0x%x %zu", d.type, d.misc,
				   d.size, rf_load32(rec, cfg.swapped), rf_load16(rec + 4, cfg.swapped), hsize);
		if (d.raw != rec || d.raw_len != hsize)
			rf_finding("raw: %p +%zu, want %p +%zu", d.raw, d.raw_len, (const void *)rec, hsize);
	}
	/* A header.size below 8 is refused whatever len is; compare the rest. */
	if (len < 8 || hsize < 8 || hsize > len)
		return 0;

	/* Again from an exact-size heap copy: a read past header.size is an ASan report. */
	copy = malloc(hsize);
	if (!copy)
		abort();
	memcpy(copy, rec, hsize);
	memset(&d2, 0, sizeof(d2));
	rc2 = perfring_record_parse(&cfg, copy, hsize, &d2);
	if (rc2 != rc)
		rf_finding("parse: %d (%s) with %zu bytes, %d (%s) with exactly header.size = %zu", rc,
			   rc ? d.error_field : "ok", len, rc2, rc2 ? d2.error_field : "ok", hsize);
	if (rc) {
		if (strcmp(d.error_field, d2.error_field) || d.error_offset != d2.error_offset)
			rf_finding("parse: error %s at %zu with %zu bytes, %s at %zu with %zu", d.error_field,
				   d.error_offset, len, d2.error_field, d2.error_offset, hsize);
		perfring_record_sample_id(&cfg, copy, hsize, &sid);
	} else {
		rf_check_decoded(&cfg, &d2, copy, hsize);
		rf_check_sample_id(&cfg, &d2, copy, hsize);
		rf_check_encode(&cfg, &d2, copy, hsize);
		rf_check_other_order(&cfg, &d2, copy, hsize);
	}
	free(copy);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rf_outcome o;

	return rf_run(data, size, &o);
}

#ifdef PERFRING_FUZZ_REPLAY
#include <dirent.h>
#include <sys/stat.h>

/* One line about an outcome, for the replay programs. */
static void rf_describe(const struct rf_outcome *o, char *buf, size_t cap)
{
	const char *name;

	if (o->config_rc)
		snprintf(buf, cap, "config rejected (%d)", o->config_rc);
	else if (o->parse_rc == 1)
		snprintf(buf, cap, "shorter than the config prefix");
	else if (o->parse_rc)
		snprintf(buf, cap, "rejected: %s (%s)", perfring_strerror(o->parse_rc), o->error_field);
	else if ((name = perfring_record_type_name(o->type)))
		snprintf(buf, cap, "decoded, re-encoded: %s, %u bytes", name, o->size);
	else
		snprintf(buf, cap, "decoded, re-encoded: type %u (%s), %u bytes", o->type,
			 o->kind == PERFRING_REC_UNKNOWN ? "unknown" : "kernel", o->size);
}

/* Read a whole file into a heap buffer of exactly its size (so that ASan
 * sees reads past the input, as under libFuzzer). */
static uint8_t *rf_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(n ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	*size = (size_t)n;
out:
	fclose(f);
	return buf;
}

typedef void (*rf_replay_fn)(const char *path, const struct rf_outcome *o, void *ctx);

static int rf_replay_file(const char *path, rf_replay_fn report, void *ctx)
{
	struct rf_outcome o;
	uint8_t *buf;
	size_t size = 0;

	/* Name the input before running it: a finding aborts. */
	fprintf(stderr, "replay %s\n", path);
	buf = rf_read_file(path, &size);
	if (!buf)
		return errno ? -errno : -EIO;
	rf_run(buf, size, &o);
	free(buf);
	report(path, &o, ctx);
	return 1;
}

/* Run a file, or every regular file of a directory (in name order),
 * through the harness. Returns the number of inputs run, or -errno. */
static int rf_replay(const char *path, rf_replay_fn report, void *ctx)
{
	struct dirent **ents;
	struct stat st;
	char file[4096];
	int n, i, done = 0, rc = 0;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return rf_replay_file(path, report, ctx);
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		if (rc >= 0 && ents[i]->d_name[0] != '.' &&
		    snprintf(file, sizeof(file), "%s/%s", path, ents[i]->d_name) < (int)sizeof(file) &&
		    !stat(file, &st) && S_ISREG(st.st_mode)) {
			rc = rf_replay_file(file, report, ctx);
			done++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc < 0 ? rc : done;
}
#endif /* PERFRING_FUZZ_REPLAY */

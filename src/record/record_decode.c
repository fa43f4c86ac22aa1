// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record decoder: the header, the sample_id trailer, and the body of every
 * kernel record type but SAMPLE (record_sample.c). Every read goes through
 * a cursor bounded by the record's header.size; views point into the
 * caller's bytes. The public entry, perfring_record_parse(), is in
 * record_sample_fast.c: it tries the fast path, which comes here for the rest.
 */
#include <linux/perf_event.h>

#include "common/internal.h"
#include "record/record_internal.h"

/* ---- small readers --------------------------------------------------------- */

static inline int need(struct pr_rec_cur *c, const char *field, size_t n)
{
	if (pr_rec_left(c) < n)
		return pr_rec_short(c, field, n);
	return 0;
}

static inline int rd_u16(struct pr_rec_cur *c, const char *field, uint16_t *v)
{
	TRY(need(c, field, 2));
	*v = pr_rec_load_u16(c->rec + c->pos, c->swapped);
	c->pos += 2;
	return 0;
}

static inline int rd_u32(struct pr_rec_cur *c, const char *field, uint32_t *v)
{
	TRY(need(c, field, 4));
	*v = pr_rec_load_u32(c->rec + c->pos, c->swapped);
	c->pos += 4;
	return 0;
}

static inline int rd_bytes(struct pr_rec_cur *c, const char *field, void *dst, size_t n)
{
	TRY(need(c, field, n));
	memcpy(dst, c->rec + c->pos, n);
	c->pos += n;
	return 0;
}

/*
 * A NUL-terminated string padded to the end of the body: the field is all
 * the bytes between the fixed fields and the trailer, and must hold a NUL.
 */
static int rd_string(struct pr_rec_cur *c, const char *field, const char **str, struct perfring_bytes *whole)
{
	size_t n = pr_rec_left(c);
	const uint8_t *p = c->rec + c->pos;

	if (!n || !memchr(p, 0, n))
		return pr_rec_fail(c, PERFRING_EBADREC, field, c->pos, "has no NUL in its %zu bytes", n);
	*str = (const char *)p;
	whole->data = p;
	whole->len = n;
	c->pos += n;
	return 0;
}

/* A record of fixed layout must end with its last field. */
static int end_fixed(struct pr_rec_cur *c, const char *what)
{
	if (pr_rec_left(c))
		return pr_rec_fail(c, PERFRING_EBADREC, what, c->pos, "(%zu bytes after the last field)",
				   pr_rec_left(c));
	return 0;
}

/* ---- header and sample_id trailer ------------------------------------------ */

static inline __attribute__((always_inline)) int parse_header(struct pr_rec_cur *c, size_t len,
								uint32_t *type, uint16_t *misc, uint16_t *size)
{
	if (len < 8) {
		c->end = len;
		return pr_rec_fail(c, PERFRING_ETRUNC, "header.size", 0, "unreadable: %zu bytes given, a header needs 8",
				   len);
	}
	*type = pr_rec_load_u32(c->rec, c->swapped);
	*misc = pr_rec_load_u16(c->rec + 4, c->swapped);
	*size = pr_rec_load_u16(c->rec + 6, c->swapped);
	c->type = *type;
	c->have_type = true;
	if (*size < 8)
		return pr_rec_fail(c, PERFRING_EBADREC, "header.size", 6, "%u is below the header's 8 bytes (type %u)",
				   *size, *type);
	if (*size > len)
		return pr_rec_fail(c, PERFRING_ETRUNC, "header.size", 6, "%u is more than the %zu bytes given (type %u)",
				   *size, len, *type);
	c->pos = 8;
	c->end = *size;
	return 0;
}

static bool is_kernel_type(uint32_t type)
{
	return type >= PERF_RECORD_MMAP && type <= PR_REC_TYPE_LAST_KERNEL;
}

/*
 * The sample_id trailer {TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER} (those
 * in sample_type) sits at the very end of the record: take it from there,
 * whatever the body, and shrink the cursor to the body.
 */
static int parse_trailer(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			 struct perfring_sample_id *sid)
{
	uint64_t st = cfg->sample_type;
	size_t tsz = pr_rec_id_trailer_size(st);
	struct pr_rec_cur t;

	sid->present = st & PR_REC_SAMPLE_ID_BITS;
	if (!tsz)
		return 0;
	if (pr_rec_left(c) < tsz)
		return pr_rec_fail(c, PERFRING_ETRUNC, "sample_id", c->pos, "needs %zu bytes, %zu left after the header",
				   tsz, pr_rec_left(c));
	t = *c;
	t.pos = c->end - tsz;
	/* cannot fail: the bytes were counted above */
	if (st & PERF_SAMPLE_TID)
		TRY(pr_rec_u32x2(&t, "sample_id.tid", &sid->pid, &sid->tid));
	if (st & PERF_SAMPLE_TIME)
		TRY(pr_rec_u64(&t, "sample_id.time", &sid->time));
	if (st & PERF_SAMPLE_ID)
		TRY(pr_rec_u64(&t, "sample_id.id", &sid->id));
	if (st & PERF_SAMPLE_STREAM_ID)
		TRY(pr_rec_u64(&t, "sample_id.stream_id", &sid->stream_id));
	if (st & PERF_SAMPLE_CPU)
		TRY(pr_rec_u32x2(&t, "sample_id.cpu", &sid->cpu, &sid->cpu_res));
	if (st & PERF_SAMPLE_IDENTIFIER)
		TRY(pr_rec_u64(&t, "sample_id.identifier", &sid->identifier));
	c->end -= tsz;
	return 0;
}

/* ---- bodies ------------------------------------------------------------------ */

static int parse_mmap(const struct perfring_parse_config *cfg, struct pr_rec_cur *c, struct perfring_decoded *out,
		      bool mmap2)
{
	struct perfring_rec_mmap *m = &out->u.mmap;

	TRY(pr_rec_u32x2(c, "mmap.pid", &m->pid, &m->tid));
	TRY(pr_rec_u64(c, "mmap.addr", &m->addr));
	TRY(pr_rec_u64(c, "mmap.len", &m->len));
	TRY(pr_rec_u64(c, "mmap.pgoff", &m->pgoff));
	if (mmap2) {
		if (pr_rec_mmap2_build_id(cfg, out->misc)) {
			/* {u8 build_id_size; u8 reserved[3]; u8 build_id[20]}: bytes */
			m->has_build_id = true;
			TRY(need(c, "mmap.build_id", 24));
			m->build_id_size = c->rec[c->pos];
			if (m->build_id_size > sizeof(m->build_id))
				return pr_rec_fail(c, PERFRING_EBADREC, "mmap.build_id_size", c->pos,
						   "%u is larger than the %zu-byte build id field", m->build_id_size,
						   sizeof(m->build_id));
			memcpy(m->build_id_reserved, c->rec + c->pos + 1, 3);
			memcpy(m->build_id, c->rec + c->pos + 4, 20);
			c->pos += 24;
		} else {
			TRY(pr_rec_u32x2(c, "mmap.maj", &m->maj, &m->min));
			TRY(pr_rec_u64(c, "mmap.ino", &m->ino));
			TRY(pr_rec_u64(c, "mmap.ino_generation", &m->ino_generation));
		}
		TRY(pr_rec_u32x2(c, "mmap.prot", &m->prot, &m->flags));
	}
	return rd_string(c, "mmap.filename", &m->filename, &m->filename_field);
}

static int parse_read(struct pr_rec_cur *c, const struct perfring_parse_config *cfg,
		      struct perfring_rec_read *r)
{
	TRY(pr_rec_u32x2(c, "read.pid", &r->pid, &r->tid));
	TRY(pr_rec_read_values(c, cfg->read_format, &pr_rec_read_names_record, &r->values));
	return end_fixed(c, "read: trailing bytes");
}

static int parse_namespaces(struct pr_rec_cur *c, struct perfring_rec_namespaces *ns)
{
	size_t nr_off;

	TRY(pr_rec_u32x2(c, "namespaces.pid", &ns->pid, &ns->tid));
	nr_off = c->pos;
	TRY(pr_rec_u64(c, "namespaces.nr", &ns->nr));
	ns->swapped = c->swapped;
	TRY(pr_rec_array(c, "namespaces.nr", nr_off, ns->nr, 16, &ns->entries));
	return end_fixed(c, "namespaces: trailing bytes");
}

static int parse_ksymbol(struct pr_rec_cur *c, struct perfring_rec_ksymbol *k)
{
	TRY(pr_rec_u64(c, "ksymbol.addr", &k->addr));
	TRY(rd_u32(c, "ksymbol.len", &k->len));
	TRY(rd_u16(c, "ksymbol.ksym_type", &k->ksym_type));
	TRY(rd_u16(c, "ksymbol.flags", &k->flags));
	return rd_string(c, "ksymbol.name", &k->name, &k->name_field);
}

static int parse_bpf_event(struct pr_rec_cur *c, struct perfring_rec_bpf_event *b)
{
	TRY(rd_u16(c, "bpf_event.type", &b->type));
	TRY(rd_u16(c, "bpf_event.flags", &b->flags));
	TRY(rd_u32(c, "bpf_event.id", &b->id));
	TRY(rd_bytes(c, "bpf_event.tag", b->tag, sizeof(b->tag)));
	return end_fixed(c, "bpf_event: trailing bytes");
}

/* old_len old bytes, new_len new bytes, then padding to 8: the field is the rest. */
static int parse_text_poke(struct pr_rec_cur *c, struct perfring_rec_text_poke *tp)
{
	size_t n;

	TRY(pr_rec_u64(c, "text_poke.addr", &tp->addr));
	TRY(rd_u16(c, "text_poke.old_len", &tp->old_len));
	TRY(rd_u16(c, "text_poke.new_len", &tp->new_len));
	n = (size_t)tp->old_len + tp->new_len;
	if (n > pr_rec_left(c))
		return pr_rec_fail(c, PERFRING_EBADREC, "text_poke.bytes", c->pos,
				   "old_len %u + new_len %u need %zu bytes, %zu left", tp->old_len, tp->new_len, n,
				   pr_rec_left(c));
	tp->bytes = c->rec + c->pos;
	tp->field.data = tp->bytes;
	tp->field.len = pr_rec_left(c);
	c->pos = c->end;
	return 0;
}

static int parse_callchain_deferred(struct pr_rec_cur *c, struct perfring_rec_callchain_deferred *d)
{
	size_t nr_off;

	TRY(pr_rec_u64(c, "callchain_deferred.cookie", &d->cookie));
	nr_off = c->pos;
	TRY(pr_rec_u64(c, "callchain_deferred.nr", &d->ips.nr));
	d->ips.swapped = c->swapped;
	TRY(pr_rec_array(c, "callchain_deferred.nr", nr_off, d->ips.nr, 8, &d->ips.data));
	return end_fixed(c, "callchain_deferred: trailing bytes");
}

/* Every kernel type but SAMPLE, the trailer already taken off c. */
static int parse_body(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
		      struct perfring_decoded *out)
{
	switch (out->type) {
	case PERF_RECORD_MMAP:
		return parse_mmap(cfg, c, out, false);
	case PERF_RECORD_MMAP2:
		return parse_mmap(cfg, c, out, true);
	case PERF_RECORD_LOST:
		TRY(pr_rec_u64(c, "lost.id", &out->u.lost.id));
		TRY(pr_rec_u64(c, "lost.lost", &out->u.lost.lost));
		return end_fixed(c, "lost: trailing bytes");
	case PERF_RECORD_COMM:
		TRY(pr_rec_u32x2(c, "comm.pid", &out->u.comm.pid, &out->u.comm.tid));
		return rd_string(c, "comm.comm", &out->u.comm.comm, &out->u.comm.comm_field);
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		TRY(pr_rec_u32x2(c, "fork_exit.pid", &out->u.fork_exit.pid, &out->u.fork_exit.ppid));
		TRY(pr_rec_u32x2(c, "fork_exit.tid", &out->u.fork_exit.tid, &out->u.fork_exit.ptid));
		TRY(pr_rec_u64(c, "fork_exit.time", &out->u.fork_exit.time));
		return end_fixed(c, "fork_exit: trailing bytes");
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		TRY(pr_rec_u64(c, "throttle.time", &out->u.throttle.time));
		TRY(pr_rec_u64(c, "throttle.id", &out->u.throttle.id));
		TRY(pr_rec_u64(c, "throttle.stream_id", &out->u.throttle.stream_id));
		return end_fixed(c, "throttle: trailing bytes");
	case PERF_RECORD_READ:
		return parse_read(c, cfg, &out->u.read);
	case PERF_RECORD_AUX:
		TRY(pr_rec_u64(c, "aux.aux_offset", &out->u.aux.aux_offset));
		TRY(pr_rec_u64(c, "aux.aux_size", &out->u.aux.aux_size));
		TRY(pr_rec_u64(c, "aux.flags", &out->u.aux.flags));
		return end_fixed(c, "aux: trailing bytes");
	case PERF_RECORD_ITRACE_START:
		TRY(pr_rec_u32x2(c, "itrace_start.pid", &out->u.itrace_start.pid, &out->u.itrace_start.tid));
		return end_fixed(c, "itrace_start: trailing bytes");
	case PERF_RECORD_LOST_SAMPLES:
		TRY(pr_rec_u64(c, "lost_samples.lost", &out->u.lost_samples.lost));
		return end_fixed(c, "lost_samples: trailing bytes");
	case PERF_RECORD_SWITCH:
		return end_fixed(c, "switch: trailing bytes");
	case PERF_RECORD_SWITCH_CPU_WIDE:
		TRY(pr_rec_u32x2(c, "switch_cpu_wide.next_prev_pid", &out->u.switch_cpu_wide.next_prev_pid,
				 &out->u.switch_cpu_wide.next_prev_tid));
		return end_fixed(c, "switch_cpu_wide: trailing bytes");
	case PERF_RECORD_NAMESPACES:
		return parse_namespaces(c, &out->u.namespaces);
	case PERF_RECORD_KSYMBOL:
		return parse_ksymbol(c, &out->u.ksymbol);
	case PERF_RECORD_BPF_EVENT:
		return parse_bpf_event(c, &out->u.bpf_event);
	case PERF_RECORD_CGROUP:
		TRY(pr_rec_u64(c, "cgroup.id", &out->u.cgroup.id));
		return rd_string(c, "cgroup.path", &out->u.cgroup.path, &out->u.cgroup.path_field);
	case PERF_RECORD_TEXT_POKE:
		return parse_text_poke(c, &out->u.text_poke);
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		TRY(pr_rec_u64(c, "aux_output_hw_id.hw_id", &out->u.aux_output_hw_id.hw_id));
		return end_fixed(c, "aux_output_hw_id: trailing bytes");
	case PR_REC_TYPE_CALLCHAIN_DEFERRED:
		return parse_callchain_deferred(c, &out->u.callchain_deferred);
	default:
		return 0; /* not reached: callers check is_kernel_type() */
	}
}

/* ---- entry points ------------------------------------------------------------- */

_Static_assert(offsetof(struct perfring_decoded, error_field) + sizeof(const char *) + sizeof(size_t) ==
		       sizeof(struct perfring_decoded),
	       "error_field and error_offset are the last fields of struct perfring_decoded");

/* Every body but SAMPLE's: the bytes of out->u that a non-SAMPLE record uses. */
union pr_rec_other_body {
	struct perfring_rec_mmap mmap;
	struct perfring_rec_lost lost;
	struct perfring_rec_comm comm;
	struct perfring_rec_fork_exit fork_exit;
	struct perfring_rec_throttle throttle;
	struct perfring_rec_read read;
	struct perfring_rec_aux aux;
	struct perfring_rec_itrace_start itrace_start;
	struct perfring_rec_lost_samples lost_samples;
	struct perfring_rec_switch_cpu_wide switch_cpu_wide;
	struct perfring_rec_namespaces namespaces;
	struct perfring_rec_ksymbol ksymbol;
	struct perfring_rec_bpf_event bpf_event;
	struct perfring_rec_cgroup cgroup;
	struct perfring_rec_text_poke text_poke;
	struct perfring_rec_aux_output_hw_id aux_output_hw_id;
	struct perfring_rec_callchain_deferred callchain_deferred;
};

int pr_rec_parse_general(const struct perfring_parse_config *cfg, const void *rec, size_t len,
			 struct perfring_decoded *out)
{
	struct pr_rec_cur c = { .rec = rec };
	uint16_t misc = 0, size = 0;
	uint32_t type = 0;
	int err;

	if (!cfg || !rec || !out)
		return pr_fail(EINVAL, "perfring_record_parse: %s is NULL", !cfg ? "cfg" : !rec ? "rec" : "out");
	/* Every field is written below (the SAMPLE decoder writes all of
	 * its own): no memset of the whole, which costs more than decoding
	 * a small sample. */
	out->error_field = NULL;
	out->error_offset = 0;
	c.swapped = cfg->swapped;
	c.out = out;
	err = parse_header(&c, len, &type, &misc, &size);
	if (err) {
		/* error_field and error_offset come last: keep them */
		memset(out, 0, offsetof(struct perfring_decoded, error_field));
		return err;
	}
	out->raw = rec;
	out->type = type;
	out->misc = misc;
	out->size = size;
	out->raw_len = size;
	if (!is_kernel_type(type)) {
		/* type 0, types this library does not know, and the perf
		 * tool's own records (>= 64, no trailer): bytes only */
		out->kind = PERFRING_REC_UNKNOWN;
		memset(&out->u, 0, sizeof(out->u));
		memset(&out->sample_id, 0, sizeof(out->sample_id));
		return 0;
	}
	out->kind = PERFRING_REC_KERNEL;
	if (type == PERF_RECORD_SAMPLE)
		return pr_rec_parse_sample(cfg, &c, out);
	memset(&out->u, 0, sizeof(union pr_rec_other_body));
	memset(&out->sample_id, 0, sizeof(out->sample_id));
	if (cfg->sample_id_all)
		TRY(parse_trailer(cfg, &c, &out->sample_id));
	return parse_body(cfg, &c, out);
}

int perfring_record_sample_id(const struct perfring_parse_config *cfg, const void *rec, size_t len,
			      struct perfring_sample_id *out)
{
	struct pr_rec_cur c = { .rec = rec };
	uint16_t misc = 0, size = 0;
	uint32_t type = 0;

	if (!cfg || !rec || !out)
		return pr_fail(EINVAL, "perfring_record_sample_id: %s is NULL", !cfg ? "cfg" : !rec ? "rec" : "out");
	memset(out, 0, sizeof(*out));
	c.swapped = cfg->swapped;
	TRY(parse_header(&c, len, &type, &misc, &size));
	if (type == PERF_RECORD_SAMPLE)
		return pr_rec_sample_front_id(cfg, &c, out);
	if (is_kernel_type(type) && cfg->sample_id_all)
		return parse_trailer(cfg, &c, out);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * PERF_RECORD_SAMPLE body: every PERF_SAMPLE_* field in the order the kernel
 * writes them (perf_output_sample()), which is not quite the order of the
 * uapi comment: CGROUP sits after PHYS_ADDR and AUX comes last.
 */
#include <linux/perf_event.h>

#include "common/internal.h"
#include "record/record_internal.h"

const struct pr_rec_read_names pr_rec_read_names_sample = {
	.nr = "read.nr",
	.time_enabled = "read.time_enabled",
	.time_running = "read.time_running",
	.value = "read.value",
	.id = "read.id",
	.lost = "read.lost",
};

const struct pr_rec_read_names pr_rec_read_names_record = {
	.nr = "read.values.nr",
	.time_enabled = "read.values.time_enabled",
	.time_running = "read.values.time_running",
	.value = "read.values.value",
	.id = "read.values.id",
	.lost = "read.values.lost",
};

/*
 * read_format data. Without GROUP: {value, [time_enabled], [time_running],
 * [id], [lost]}; values points at value and stride covers the whole struct
 * (perfring_read_value_at() knows the times sit in between). With GROUP:
 * {nr, [time_enabled], [time_running], {value, [id], [lost]}[nr]}.
 */
int pr_rec_read_values(struct pr_rec_cur *c, uint64_t format, const struct pr_rec_read_names *names,
		       struct perfring_read_values *r)
{
	unsigned per_value = 8 * (1 + !!(format & PERF_FORMAT_ID) + !!(format & PERF_FORMAT_LOST));
	uint64_t scratch;

	r->time_enabled = r->time_running = 0;
	r->format = format;
	r->swapped = c->swapped;
	if (format & PERF_FORMAT_GROUP) {
		size_t nr_off = c->pos;
		uint64_t nr = 0;

		TRY(pr_rec_u64(c, names->nr, &nr));
		if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			TRY(pr_rec_u64(c, names->time_enabled, &r->time_enabled));
		if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			TRY(pr_rec_u64(c, names->time_running, &r->time_running));
		TRY(pr_rec_array(c, names->nr, nr_off, nr, per_value, &r->values));
		r->nr = nr;
		r->stride = per_value;
		return 0;
	}

	r->values = c->rec + c->pos;
	r->nr = 1;
	TRY(pr_rec_u64(c, names->value, &scratch));
	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		TRY(pr_rec_u64(c, names->time_enabled, &r->time_enabled));
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		TRY(pr_rec_u64(c, names->time_running, &r->time_running));
	if (format & PERF_FORMAT_ID)
		TRY(pr_rec_u64(c, names->id, &scratch));
	if (format & PERF_FORMAT_LOST)
		TRY(pr_rec_u64(c, names->lost, &scratch));
	r->stride = (uint32_t)((const uint8_t *)(c->rec + c->pos) - (const uint8_t *)r->values);
	return 0;
}

/* REGS_USER / REGS_INTR: u64 abi, then the registers only if abi != 0. */
static int parse_regs(struct pr_rec_cur *c, uint64_t mask, const char *abi_field, const char *regs_field,
		      struct perfring_regs *regs)
{
	unsigned nr = pr_rec_popcount(mask);

	regs->mask = mask;
	regs->regs.nr = 0;
	regs->regs.swapped = c->swapped;
	TRY(pr_rec_u64(c, abi_field, &regs->abi));
	regs->regs.data = c->rec + c->pos;
	if (regs->abi == 0 || nr == 0)
		return 0;
	if (pr_rec_left(c) < (size_t)nr * 8)
		return pr_rec_short(c, regs_field, (size_t)nr * 8);
	regs->regs.nr = nr;
	c->pos += (size_t)nr * 8;
	return 0;
}

/* A u64 size, then that many bytes (a size beyond the record is EBADREC). */
static int parse_sized_bytes(struct pr_rec_cur *c, const char *field, uint64_t *size, const void **data)
{
	size_t size_off = c->pos;

	TRY(pr_rec_u64(c, field, size));
	return pr_rec_array(c, field, size_off, *size, 1, data);
}

#define SAMPLE_TAIL_FIELDS                                                                               \
	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |  \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* The fields after the branch stack, and the check that nothing follows them. */
static int sample_tail(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
		       struct perfring_sample *s)
{
	uint64_t st = cfg->sample_type;

	memset(&s->regs_user, 0, sizeof(s->regs_user));
	memset(&s->stack_user, 0, sizeof(s->stack_user));
	memset(&s->regs_intr, 0, sizeof(s->regs_intr));
	memset(&s->aux, 0, sizeof(s->aux));
	s->weight = s->data_src = s->transaction = s->phys_addr = s->cgroup = 0;
	s->data_page_size = s->code_page_size = 0;

	/* The common profile (ip, tid, time, cpu, period, call chain) has none
	 * of the tail fields: one test instead of twelve. */
	if (!(st & SAMPLE_TAIL_FIELDS))
		goto end;
	if (st & PERF_SAMPLE_REGS_USER)
		TRY(parse_regs(c, cfg->sample_regs_user, "regs_user.abi", "regs_user.regs", &s->regs_user));
	if (st & PERF_SAMPLE_STACK_USER) {
		TRY(parse_sized_bytes(c, "stack_user.size", &s->stack_user.size, &s->stack_user.data));
		if (s->stack_user.size)
			TRY(pr_rec_u64(c, "stack_user.dyn_size", &s->stack_user.dyn_size));
	}
	/* One u64 slot for either (the kernel refuses an attr with both). */
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		TRY(pr_rec_u64(c, "weight", &s->weight));
	if (st & PERF_SAMPLE_DATA_SRC)
		TRY(pr_rec_u64(c, "data_src", &s->data_src));
	if (st & PERF_SAMPLE_TRANSACTION)
		TRY(pr_rec_u64(c, "transaction", &s->transaction));
	if (st & PERF_SAMPLE_REGS_INTR)
		TRY(parse_regs(c, cfg->sample_regs_intr, "regs_intr.abi", "regs_intr.regs", &s->regs_intr));
	if (st & PERF_SAMPLE_PHYS_ADDR)
		TRY(pr_rec_u64(c, "phys_addr", &s->phys_addr));
	if (st & PERF_SAMPLE_CGROUP)
		TRY(pr_rec_u64(c, "cgroup", &s->cgroup));
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		TRY(pr_rec_u64(c, "data_page_size", &s->data_page_size));
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		TRY(pr_rec_u64(c, "code_page_size", &s->code_page_size));
	if (st & PERF_SAMPLE_AUX)
		TRY(parse_sized_bytes(c, "aux.size", &s->aux.len, &s->aux.data));
end:
	if (pr_rec_left(c))
		return pr_rec_fail(c, PERFRING_EBADREC, "sample: trailing bytes", c->pos,
				   "(%zu bytes after the last field of sample_type 0x%llx)", pr_rec_left(c),
				   (unsigned long long)st);
	return 0;
}

/* The branch stack after its nr, then the rest of the sample. */
static int sample_from_branch(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			      struct perfring_sample *s, size_t nr_off, bool has_hw_idx)
{
	struct perfring_branch_stack *b = &s->branch;
	size_t per_entry = 24 + (cfg->branch_counters ? 8 : 0);

	b->has_hw_idx = has_hw_idx;
	b->hw_idx = 0;
	if (has_hw_idx)
		TRY(pr_rec_u64(c, "branch_stack.hw_idx", &b->hw_idx));
	/* entries and counters together: nr is checked once against both */
	TRY(pr_rec_array(c, "branch_stack.nr", nr_off, b->nr, per_entry, &b->entries));
	c->pos -= (size_t)b->nr * per_entry;
	c->pos += (size_t)b->nr * 24;
	b->counters = NULL;
	if (cfg->branch_counters) {
		b->counters = c->rec + c->pos;
		c->pos += (size_t)b->nr * 8;
	}
	return sample_tail(cfg, c, s);
}

/* Forget what a failed trial decoded from the branch stack on (fields after
 * it in struct perfring_sample, which follows the kernel's order). */
_Static_assert(offsetof(struct perfring_sample, regs_user) > offsetof(struct perfring_sample, branch) &&
		       offsetof(struct perfring_sample, aux) > offsetof(struct perfring_sample, regs_intr) &&
		       offsetof(struct perfring_sample, regs_intr) > offsetof(struct perfring_sample, stack_user) &&
		       offsetof(struct perfring_sample, raw) < offsetof(struct perfring_sample, branch),
	       "struct perfring_sample lists the fields after the branch stack last");

static void reset_from_branch(struct perfring_sample *s)
{
	bool swapped = s->branch.swapped;
	uint64_t nr = s->branch.nr;

	memset(&s->branch, 0, sizeof(*s) - offsetof(struct perfring_sample, branch));
	s->branch.nr = nr;
	s->branch.swapped = swapped;
}

/*
 * With PERF_SAMPLE_BRANCH_HW_INDEX and nr == 0, the kernel writes hw_idx
 * when the PMU gave it an (empty) branch stack and not when it gave none:
 * only the rest of the record tells. Try with hw_idx (the usual case), then
 * without, quietly; if neither fits, decode again with hw_idx to report why.
 */
static int sample_branch_nr0(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			     struct perfring_decoded *out, size_t nr_off)
{
	struct pr_rec_cur saved = *c;
	int err;

	c->quiet = true;
	err = sample_from_branch(cfg, c, &out->u.sample, nr_off, true);
	if (err) {
		*c = saved;
		c->quiet = true;
		reset_from_branch(&out->u.sample);
		err = sample_from_branch(cfg, c, &out->u.sample, nr_off, false);
	}
	if (!err) {
		c->quiet = saved.quiet;
		out->error_field = NULL;
		out->error_offset = 0;
		return 0;
	}
	*c = saved;
	reset_from_branch(&out->u.sample);
	return sample_from_branch(cfg, c, &out->u.sample, nr_off, true);
}

/* IDENTIFIER .. PERIOD: one u64 slot each (TID and CPU hold two u32). */
#define FRONT_BITS                                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
	 PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* The front fields do not fit: read them one by one to name the missing one. */
static __attribute__((cold, noinline)) int sample_front_short(uint64_t st, struct pr_rec_cur *c)
{
	uint64_t v;
	uint32_t a, b;

	if (st & PERF_SAMPLE_IDENTIFIER)
		TRY(pr_rec_u64(c, "identifier", &v));
	if (st & PERF_SAMPLE_IP)
		TRY(pr_rec_u64(c, "ip", &v));
	if (st & PERF_SAMPLE_TID)
		TRY(pr_rec_u32x2(c, "tid", &a, &b));
	if (st & PERF_SAMPLE_TIME)
		TRY(pr_rec_u64(c, "time", &v));
	if (st & PERF_SAMPLE_ADDR)
		TRY(pr_rec_u64(c, "addr", &v));
	if (st & PERF_SAMPLE_ID)
		TRY(pr_rec_u64(c, "id", &v));
	if (st & PERF_SAMPLE_STREAM_ID)
		TRY(pr_rec_u64(c, "stream_id", &v));
	if (st & PERF_SAMPLE_CPU)
		TRY(pr_rec_u32x2(c, "cpu", &a, &b));
	if (st & PERF_SAMPLE_PERIOD)
		TRY(pr_rec_u64(c, "period", &v));
	return pr_rec_short(c, "sample", 8); /* not reached: the sizes disagree */
}

/* The next u64 slot at *p if bit is in st, else 0. */
static inline uint64_t slot64(const uint8_t **p, uint64_t st, uint64_t bit, bool sw)
{
	uint64_t v = 0;

	if (st & bit) {
		v = pr_rec_load_u64(*p, sw);
		*p += 8;
	}
	return v;
}

static inline void slot32x2(const uint8_t **p, uint64_t st, uint64_t bit, bool sw, uint32_t *a, uint32_t *b)
{
	*a = *b = 0;
	if (st & bit) {
		*a = pr_rec_load_u32(*p, sw);
		*b = pr_rec_load_u32(*p + 4, sw);
		*p += 8;
	}
}

/*
 * Every field of out->u.sample and out->sample_id is written (absent ones
 * as 0): the caller does not clear the record first.
 */
int pr_rec_parse_sample(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			struct perfring_decoded *out)
{
	struct perfring_sample *s = &out->u.sample;
	struct perfring_sample_id *sid = &out->sample_id;
	uint64_t st = cfg->sample_type;
	size_t front = 8 * (size_t)pr_rec_popcount(st & FRONT_BITS);
	const uint8_t *p;
	bool sw = c->swapped;

	s->present = st;
	/* One bounds check for the fixed slots at the front. */
	if (PR_UNLIKELY(pr_rec_left(c) < front))
		return sample_front_short(st, c);
	p = c->rec + c->pos;
	s->identifier = slot64(&p, st, PERF_SAMPLE_IDENTIFIER, sw);
	s->ip = slot64(&p, st, PERF_SAMPLE_IP, sw);
	slot32x2(&p, st, PERF_SAMPLE_TID, sw, &s->pid, &s->tid);
	s->time = slot64(&p, st, PERF_SAMPLE_TIME, sw);
	s->addr = slot64(&p, st, PERF_SAMPLE_ADDR, sw);
	s->id = slot64(&p, st, PERF_SAMPLE_ID, sw);
	s->stream_id = slot64(&p, st, PERF_SAMPLE_STREAM_ID, sw);
	slot32x2(&p, st, PERF_SAMPLE_CPU, sw, &s->cpu, &s->cpu_res);
	s->period = slot64(&p, st, PERF_SAMPLE_PERIOD, sw);
	c->pos += front;

	pr_rec_sample_id_of(sid, s);

	if (st & PERF_SAMPLE_READ)
		TRY(pr_rec_read_values(c, cfg->read_format, &pr_rec_read_names_sample, &s->read));
	else
		memset(&s->read, 0, sizeof(s->read));
	memset(&s->callchain, 0, sizeof(s->callchain));
	memset(&s->raw, 0, sizeof(s->raw));
	if (st & PERF_SAMPLE_CALLCHAIN) {
		size_t nr_off = c->pos;

		s->callchain.swapped = sw;
		TRY(pr_rec_u64(c, "callchain.nr", &s->callchain.nr));
		TRY(pr_rec_array(c, "callchain.nr", nr_off, s->callchain.nr, 8, &s->callchain.data));
	}
	if (st & PERF_SAMPLE_RAW) {
		size_t size_off = c->pos;
		uint32_t size;
		size_t pad;

		if (pr_rec_left(c) < 4)
			return pr_rec_short(c, "raw.size", 4);
		size = pr_rec_load_u32(c->rec + c->pos, sw);
		c->pos += 4;
		TRY(pr_rec_array(c, "raw.size", size_off, size, 1, &s->raw.data));
		s->raw.len = size;
		/* The kernel sizes RAW so that 4 + size is a multiple of 8
		 * (its padding is inside size). Whatever the size, the next
		 * field starts 8-aligned: bytes outside size up to there must
		 * be zeros, as the encoder writes them, so that nothing the
		 * decoded view does not hold is lost. */
		pad = (8 - (c->pos & 7)) & 7;
		if (pad) {
			static const uint8_t zeros[8];

			if (pr_rec_left(c) < pad)
				return pr_rec_short(c, "raw.padding", pad);
			if (memcmp(c->rec + c->pos, zeros, pad))
				return pr_rec_fail(c, PERFRING_EBADREC, "raw.padding", c->pos,
						   "(%zu bytes after raw.size %u up to 8-byte alignment) are not zero",
						   pad, size);
			c->pos += pad;
		}
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		size_t nr_off = c->pos;
		bool hw_index = (cfg->branch_sample_type & PR_REC_SAMPLE_BRANCH_HW_INDEX) != 0;

		s->branch.swapped = sw;
		TRY(pr_rec_u64(c, "branch_stack.nr", &s->branch.nr));
		if (hw_index && s->branch.nr == 0)
			return sample_branch_nr0(cfg, c, out, nr_off);
		return sample_from_branch(cfg, c, s, nr_off, hw_index);
	}
	memset(&s->branch, 0, sizeof(s->branch));
	return sample_tail(cfg, c, s);
}

/* IDENTIFIER .. CPU: the front slots up to the last sample_id field. */
#define FRONT_ID_BITS (FRONT_BITS & ~(uint64_t)PERF_SAMPLE_PERIOD)

int pr_rec_sample_front_id(const struct perfring_parse_config *cfg, struct pr_rec_cur *c,
			   struct perfring_sample_id *sid)
{
	uint64_t st = cfg->sample_type;
	size_t need = 8 * (size_t)pr_rec_popcount(st & FRONT_ID_BITS);
	const uint8_t *p;
	bool sw = c->swapped;

	if (PR_UNLIKELY(pr_rec_left(c) < need))
		return sample_front_short(st & FRONT_ID_BITS, c);
	p = c->rec + c->pos;
	sid->present = st & PR_REC_SAMPLE_ID_BITS;
	sid->identifier = slot64(&p, st, PERF_SAMPLE_IDENTIFIER, sw);
	p += (st & PERF_SAMPLE_IP) ? 8 : 0;
	slot32x2(&p, st, PERF_SAMPLE_TID, sw, &sid->pid, &sid->tid);
	sid->time = slot64(&p, st, PERF_SAMPLE_TIME, sw);
	p += (st & PERF_SAMPLE_ADDR) ? 8 : 0;
	sid->id = slot64(&p, st, PERF_SAMPLE_ID, sw);
	sid->stream_id = slot64(&p, st, PERF_SAMPLE_STREAM_ID, sw);
	slot32x2(&p, st, PERF_SAMPLE_CPU, sw, &sid->cpu, &sid->cpu_res);
	c->pos += need;
	return 0;
}

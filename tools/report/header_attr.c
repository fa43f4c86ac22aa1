// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the EVENT_DESC feature section. One
 * "# event : name = ..., , id = { ... }" line per event, then every non-zero
 * perf_event_attr field in the words, order and formats of perf 6.1's
 * perf_event_attr__fprintf() (masks as NAME|NAME, configs and register masks
 * in hex, the rest in decimal); and the events' names, which the group lines
 * use.
 *
 * Why it is safe: the section's bytes are untrusted. Every count and length
 * is checked against the bytes left before it is used, an attr is copied
 * into a zeroed 128-byte buffer (perf 6.1's struct; longer attrs are cut
 * there, shorter ones read as zeros), and a section perf would reject gives
 * perf's "not available" line. Attrs of the other byte order are swapped as
 * perf swaps them (perf_event__attr_swap(): a field only when attr.size
 * reaches past its offset, clockid, sample_regs_intr and sig_data never, the
 * flag bits by reversing the bits of each byte), so that the lines are
 * perf's even where its swap is wrong.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/header.h"

#define RA_ATTR_SIZE 128 /* sizeof(struct perf_event_attr) in perf 6.1 (PERF_ATTR_SIZE_VER7) */
#define RA_FLAGS_OFF 40  /* the u64 of flag bits, after read_format */

/* What perf 6.1 accepts (perf_attr_check(); its uapi header's *_MAX). */
#define RA_SAMPLE_MAX (1ULL << 25)	 /* PERF_SAMPLE_WEIGHT_STRUCT is the last */
#define RA_FORMAT_MAX (1ULL << 5)	 /* PERF_FORMAT_LOST */
#define RA_BRANCH_MAX (1ULL << 19)	 /* PERF_SAMPLE_BRANCH_PRIV_SAVE */
#define RA_SAMPLE_BRANCH_STACK (1ULL << 11)
#define RA_FLAGS_RESERVED (~0ULL << 38) /* the bits after sigtrap */

struct ra_bit {
	unsigned bit;
	const char *name;
};

/* perf's lists, in its order (TRANSACTION, bit 17, is not in it). */
static const struct ra_bit ra_sample_bits[] = {
	{ 0, "IP" },		{ 1, "TID" },		{ 2, "TIME" },		 { 3, "ADDR" },
	{ 4, "READ" },		{ 5, "CALLCHAIN" },	{ 6, "ID" },		 { 7, "CPU" },
	{ 8, "PERIOD" },	{ 9, "STREAM_ID" },	{ 10, "RAW" },		 { 11, "BRANCH_STACK" },
	{ 12, "REGS_USER" },	{ 13, "STACK_USER" },	{ 16, "IDENTIFIER" },	 { 18, "REGS_INTR" },
	{ 15, "DATA_SRC" },	{ 14, "WEIGHT" },	{ 19, "PHYS_ADDR" },	 { 20, "AUX" },
	{ 21, "CGROUP" },	{ 22, "DATA_PAGE_SIZE" }, { 23, "CODE_PAGE_SIZE" }, { 24, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct ra_bit ra_read_bits[] = {
	{ 0, "TOTAL_TIME_ENABLED" }, { 1, "TOTAL_TIME_RUNNING" }, { 2, "ID" }, { 3, "GROUP" }, { 4, "LOST" }, { 0, NULL },
};

static const struct ra_bit ra_branch_bits[] = {
	{ 0, "USER" },		{ 1, "KERNEL" },	{ 2, "HV" },		{ 3, "ANY" },
	{ 4, "ANY_CALL" },	{ 5, "ANY_RETURN" },	{ 6, "IND_CALL" },	{ 7, "ABORT_TX" },
	{ 8, "IN_TX" },		{ 9, "NO_TX" },		{ 10, "COND" },		{ 11, "CALL_STACK" },
	{ 12, "IND_JUMP" },	{ 13, "CALL" },		{ 14, "NO_FLAGS" },	{ 15, "NO_CYCLES" },
	{ 16, "TYPE_SAVE" },	{ 17, "HW_INDEX" },	{ 18, "PRIV_SAVE" },	{ 0, NULL },
};

enum ra_fmt { RA_DEC, RA_HEX, RA_SIGNED, RA_BITS };

/* One printed field: bytes [off, off + size) of the attr, or, with bits
 * set, that many flag bits from bit `bit` of the flags u64. */
struct ra_field {
	const char *name;
	uint8_t off, size, bit, bits;
	uint8_t fmt;
	bool noswap; /* perf never swaps it */
	const struct ra_bit *names;
};

#define RA_NUM(n, o, s, f) { n, o, s, 0, 0, f, false, NULL }
#define RA_FLAG(n, b) { n, RA_FLAGS_OFF, 8, b, 1, RA_DEC, false, NULL }
static const struct ra_field ra_fields[] = {
	RA_NUM("type", 0, 4, RA_DEC),
	RA_NUM("size", 4, 4, RA_DEC),
	RA_NUM("config", 8, 8, RA_HEX),
	RA_NUM("{ sample_period, sample_freq }", 16, 8, RA_DEC),
	{ "sample_type", 24, 8, 0, 0, RA_BITS, false, ra_sample_bits },
	{ "read_format", 32, 8, 0, 0, RA_BITS, false, ra_read_bits },
	RA_FLAG("disabled", 0),
	RA_FLAG("inherit", 1),
	RA_FLAG("pinned", 2),
	RA_FLAG("exclusive", 3),
	RA_FLAG("exclude_user", 4),
	RA_FLAG("exclude_kernel", 5),
	RA_FLAG("exclude_hv", 6),
	RA_FLAG("exclude_idle", 7),
	RA_FLAG("mmap", 8),
	RA_FLAG("comm", 9),
	RA_FLAG("freq", 10),
	RA_FLAG("inherit_stat", 11),
	RA_FLAG("enable_on_exec", 12),
	RA_FLAG("task", 13),
	RA_FLAG("watermark", 14),
	{ "precise_ip", RA_FLAGS_OFF, 8, 15, 2, RA_DEC, false, NULL },
	RA_FLAG("mmap_data", 17),
	RA_FLAG("sample_id_all", 18),
	RA_FLAG("exclude_host", 19),
	RA_FLAG("exclude_guest", 20),
	RA_FLAG("exclude_callchain_kernel", 21),
	RA_FLAG("exclude_callchain_user", 22),
	RA_FLAG("mmap2", 23),
	RA_FLAG("comm_exec", 24),
	RA_FLAG("use_clockid", 25),
	RA_FLAG("context_switch", 26),
	RA_FLAG("write_backward", 27),
	RA_FLAG("namespaces", 28),
	RA_FLAG("ksymbol", 29),
	RA_FLAG("bpf_event", 30),
	RA_FLAG("aux_output", 31),
	RA_FLAG("cgroup", 32),
	RA_FLAG("text_poke", 33),
	RA_FLAG("build_id", 34),
	RA_FLAG("inherit_thread", 35),
	RA_FLAG("remove_on_exec", 36),
	RA_FLAG("sigtrap", 37),
	RA_NUM("{ wakeup_events, wakeup_watermark }", 48, 4, RA_DEC),
	RA_NUM("bp_type", 52, 4, RA_DEC),
	RA_NUM("{ bp_addr, config1 }", 56, 8, RA_HEX),
	RA_NUM("{ bp_len, config2 }", 64, 8, RA_HEX),
	{ "branch_sample_type", 72, 8, 0, 0, RA_BITS, false, ra_branch_bits },
	RA_NUM("sample_regs_user", 80, 8, RA_HEX),
	RA_NUM("sample_stack_user", 88, 4, RA_DEC),
	{ "clockid", 92, 4, 0, 0, RA_SIGNED, true, NULL },
	{ "sample_regs_intr", 96, 8, 0, 0, RA_HEX, true, NULL },
	RA_NUM("aux_watermark", 104, 4, RA_DEC),
	RA_NUM("sample_max_stack", 108, 2, RA_DEC),
	RA_NUM("aux_sample_size", 112, 4, RA_DEC),
	{ "sig_data", 120, 8, 0, 0, RA_DEC, true, NULL },
};
#undef RA_NUM
#undef RA_FLAG

/* An attr as perf holds it after reading (and maybe swapping) it. */
struct ra_attr {
	uint8_t b[RA_ATTR_SIZE];
	bool swapped;
};

struct ra_event {
	struct ra_attr attr;
	char *name;
	const uint8_t *ids; /* nr_ids u64s in the file's byte order */
	uint32_t nr_ids;
};

static bool ra_host_be(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

static uint64_t ra_raw(const uint8_t *p, unsigned size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	default:
		memcpy(&v8, p, 8);
		return v8;
	}
}

static uint64_t ra_swap(uint64_t v, unsigned size)
{
	return size == 2 ? __builtin_bswap16((uint16_t)v) : size == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
}

/* attr.size after perf's swap (type and size are always swapped). */
static uint32_t ra_attr_size(const struct ra_attr *a)
{
	uint32_t v = (uint32_t)ra_raw(a->b + 4, 4);

	return a->swapped ? __builtin_bswap32(v) : v;
}

/* A numeric field's value as perf sees it. */
static uint64_t ra_value(const struct ra_attr *a, const struct ra_field *f)
{
	uint64_t v = ra_raw(a->b + f->off, f->size);

	if (a->swapped && !f->noswap && (f->off < 8 || ra_attr_size(a) > f->off))
		v = ra_swap(v, f->size);
	return v;
}

/* The flag bits as perf reads its bitfield: the bytes in order, bit 0 first
 * (how a little-endian compiler lays them out); a big-endian file's bytes
 * have their bits reversed first, which perf does only when attr.size
 * reaches past the flags. */
static uint64_t ra_flags(const struct ra_attr *a)
{
	bool be_file = a->swapped != ra_host_be();
	bool reverse = be_file && (!a->swapped || ra_attr_size(a) > RA_FLAGS_OFF + 8);
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--) {
		uint8_t b = a->b[RA_FLAGS_OFF + i];

		if (reverse) {
			b = (uint8_t)((b >> 4) | (b << 4));
			b = (uint8_t)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
			b = (uint8_t)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
		}
		v = v << 8 | b;
	}
	return v;
}

static uint64_t ra_get(const struct ra_attr *a, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ra_fields) / sizeof(ra_fields[0]); i++)
		if (!strcmp(ra_fields[i].name, name))
			return ra_value(a, &ra_fields[i]);
	return 0;
}

/* perf_attr_check(): what perf 6.1 refuses to read (reserved bits, or
 * sample, read and branch bits newer than it knows). */
static bool ra_check(const struct ra_attr *a)
{
	if ((ra_flags(a) & RA_FLAGS_RESERVED) || ra_raw(a->b + 110, 2) || ra_raw(a->b + 116, 4))
		return false;
	if (ra_get(a, "sample_type") & ~(RA_SAMPLE_MAX - 1))
		return false;
	if (ra_get(a, "read_format") & ~(RA_FORMAT_MAX - 1))
		return false;
	if ((ra_get(a, "sample_type") & RA_SAMPLE_BRANCH_STACK) &&
	    (ra_get(a, "branch_sample_type") & ~(RA_BRANCH_MAX - 1)))
		return false;
	return true;
}

static void ra_free_events(struct ra_event *ev, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr; i++)
		free(ev[i].name);
	free(ev);
}

/*
 * perf's read_event_desc(): u32 events, u32 attr size, then per event the
 * attr, u32 ids, a string (u32 length, NUL-padded bytes) and the ids.
 * Returns the number of events, or -1 where perf fails (its "not available").
 */
static int ra_read(const void *data, size_t len, bool swapped, struct ra_event **out)
{
	struct bytecur c = bytecur_at(data, len, swapped);
	struct ra_event *ev = NULL;
	uint32_t nre, sz, i;

	*out = NULL;
	if (!data || !bytecur_u32(&c, &nre) || !bytecur_u32(&c, &sz))
		return -1;
	/* each event takes 8 bytes at least: a bound on nre before allocating */
	if (nre > bytecur_left(&c) / 8 || nre > INT32_MAX)
		return -1;
	ev = calloc(nre ? nre : 1, sizeof(*ev));
	if (!ev)
		return -1;
	for (i = 0; i < nre; i++) {
		struct ra_event *e = &ev[i];
		const uint8_t *p, *name;
		uint32_t name_len;

		e->attr.swapped = swapped;
		if (!bytecur_take(&c, sz, &p))
			goto fail;
		memcpy(e->attr.b, p, sz < RA_ATTR_SIZE ? sz : RA_ATTR_SIZE);
		if (!ra_check(&e->attr) || !bytecur_u32(&c, &e->nr_ids) || !bytecur_u32(&c, &name_len) ||
		    !bytecur_take(&c, name_len, &name))
			goto fail;
		e->name = strndup((const char *)name, name_len);
		if (!e->name || e->nr_ids > bytecur_left(&c) / 8 || !bytecur_take(&c, (size_t)e->nr_ids * 8, &e->ids))
			goto fail;
	}
	*out = ev;
	return (int)nre;
fail:
	ra_free_events(ev, nre);
	return -1;
}

/* perf's __p_bits(): the names of the bits set, in the list's order. A
 * value with no named bit leaves buf as it was (perf prints its previous
 * field's text again then; so does this). */
static void ra_bits(char *buf, size_t len, uint64_t v, const struct ra_bit *names)
{
	size_t n = 0;
	bool first = true;

	for (; names->name; names++) {
		if (!(v >> names->bit & 1))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", first ? "" : "|", names->name);
		if (n >= len)
			n = len - 1;
		first = false;
	}
}

static void ra_print_attr(const struct ra_attr *a, FILE *out)
{
	uint64_t flags = ra_flags(a);
	char buf[1024] = "";
	size_t i;

	for (i = 0; i < sizeof(ra_fields) / sizeof(ra_fields[0]); i++) {
		const struct ra_field *f = &ra_fields[i];
		uint64_t v;

		if (f->bits)
			v = flags >> f->bit & ((1ULL << f->bits) - 1);
		else
			v = ra_value(a, f);
		if (!v)
			continue;
		switch (f->fmt) {
		case RA_HEX:
			snprintf(buf, sizeof(buf), "%#" PRIx64, v);
			break;
		case RA_SIGNED:
			snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)(int32_t)(uint32_t)v);
			break;
		case RA_BITS:
			ra_bits(buf, sizeof(buf), v, f->names);
			break;
		default:
			snprintf(buf, sizeof(buf), "%" PRIu64, v);
		}
		fprintf(out, ", %s = %s", f->name, buf);
	}
}

void report_event_desc_print(const void *data, size_t len, bool swapped, FILE *out)
{
	struct ra_event *ev;
	int nr = ra_read(data, len, swapped, &ev), i;
	uint32_t j;

	if (nr < 0) {
		fprintf(out, "# event desc: not available or unable to read\n");
		return;
	}
	/* perf's list ends at the first attr of size 0 */
	for (i = 0; i < nr && ra_attr_size(&ev[i].attr); i++) {
		fprintf(out, "# event : name = %s, ", ev[i].name);
		if (ev[i].nr_ids) {
			fprintf(out, ", id = {");
			for (j = 0; j < ev[i].nr_ids; j++) {
				uint64_t id = ra_raw(ev[i].ids + 8 * j, 8);

				fprintf(out, "%s %" PRIu64, j ? "," : "", swapped ? __builtin_bswap64(id) : id);
			}
			fprintf(out, " }");
		}
		ra_print_attr(&ev[i].attr, out);
		fputc('\n', out);
	}
	ra_free_events(ev, (uint32_t)nr);
}

int report_event_desc_names(const void *data, size_t len, bool swapped, char ***names, uint32_t *nr)
{
	struct ra_event *ev;
	int n = ra_read(data, len, swapped, &ev), i;

	*names = NULL;
	*nr = 0;
	if (n < 0)
		return -1;
	for (i = 0; i < n && ra_attr_size(&ev[i].attr); i++)
		;
	*names = calloc((size_t)i + 1, sizeof(**names));
	if (!*names) {
		ra_free_events(ev, (uint32_t)n);
		return -1;
	}
	for (*nr = 0; *nr < (uint32_t)i; (*nr)++) {
		(*names)[*nr] = ev[*nr].name;
		ev[*nr].name = NULL;
	}
	ra_free_events(ev, (uint32_t)n);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A memory sample's data source (PERF_SAMPLE_DATA_SRC, union
 * perf_mem_data_src) in words, as perf script 6.1 prints its data_src field:
 * "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A".
 * Each part names the bits set, joined by " or "; the level lists the
 * PERF_MEM_LVL bits, then the PERF_MEM_LVLNUM level, then hit or miss.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "script/data_src.h"

/* The fields of union perf_mem_data_src: the first bit and the width of each. */
#define MS_FIELD(v, shift, bits) (((v) >> (shift)) & ((1ull << (bits)) - 1))
#define MS_OP(v) MS_FIELD(v, 0, 5)
#define MS_LVL(v) MS_FIELD(v, 5, 14)
#define MS_SNOOP(v) MS_FIELD(v, 19, 5)
#define MS_LOCK(v) MS_FIELD(v, 24, 2)
#define MS_DTLB(v) MS_FIELD(v, 26, 7)
#define MS_LVLNUM(v) MS_FIELD(v, 33, 4)
#define MS_REMOTE(v) MS_FIELD(v, 37, 1)
#define MS_SNOOPX(v) MS_FIELD(v, 38, 2)
#define MS_BLK(v) MS_FIELD(v, 40, 3)
#define MS_HOPS(v) MS_FIELD(v, 43, 3)

/* Names by bit: level (after N/A, HIT and MISS), snoop, snoopx, TLB. */
static const char *const ms_lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3",
				      "Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)",
				      "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached" };
static const char *const ms_snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const ms_snoopx[] = { "Fwd", "Peer" };
static const char *const ms_tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
static const char *const ms_hops[] = { "N/A", "core, same node", "node, same socket", "socket, same board", "board" };

struct ms_out {
	char *buf;
	size_t len, used;
};

static void ms_put(struct ms_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->used >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n < o->len - o->used ? (size_t)n : o->len - o->used - 1;
}

/* The names of bits set in m (names[i] for bit i), " or " between; how many. */
static int ms_bits(struct ms_out *o, uint64_t m, const char *const *names, size_t n, int printed)
{
	size_t i;

	for (i = 0; m && i < n; i++, m >>= 1)
		if (m & 1)
			ms_put(o, "%s%s", printed++ ? " or " : "", names[i]);
	return printed;
}

static void ms_level(struct ms_out *o, uint64_t v)
{
	uint64_t lvl = MS_LVL(v), num = MS_LVLNUM(v);
	int printed = 0;
	size_t start = o->used;

	if (MS_REMOTE(v))
		ms_put(o, "Remote ");
	/* hops say where the access went instead of the level bits (POWER10) */
	if (MS_HOPS(v))
		ms_put(o, "%s ", MS_HOPS(v) < sizeof(ms_hops) / sizeof(ms_hops[0]) ? ms_hops[MS_HOPS(v)] : "N/A");
	else
		printed = ms_bits(o, lvl & ~(uint64_t)6 /* HIT, MISS: said last */, ms_lvl,
				  sizeof(ms_lvl) / sizeof(ms_lvl[0]), 0);
	if (num) {
		static const char *const named[16] = { [0x0b] = "Any cache", [0x0c] = "LFB/MAB", [0x0d] = "RAM",
							[0x0e] = "PMEM", [0x0f] = "N/A" };

		ms_put(o, "%s", printed++ ? " or " : "");
		if (named[num])
			ms_put(o, "%s", named[num]);
		else
			ms_put(o, "L%u", (unsigned)num);
	}
	if (o->used == start)
		ms_put(o, "N/A");
	if (lvl & 2)
		ms_put(o, " hit");
	if (lvl & 4)
		ms_put(o, " miss");
}

size_t data_src_text(uint64_t v, char *buf, size_t len)
{
	struct ms_out o = { buf, len, 0 };
	uint64_t op = MS_OP(v), lock = MS_LOCK(v), blk = MS_BLK(v), tlb = MS_DTLB(v);
	size_t start;
	int printed;

	if (!len)
		return 0;
	buf[0] = '\0';
	ms_put(&o, "|OP %s", op & 1 ? "N/A" : op & 2 ? "LOAD" : op & 4 ? "STORE" : op & 8 ? "PFETCH" : op & 16 ? "EXEC" : "No");
	ms_put(&o, "|LVL ");
	ms_level(&o, v);
	ms_put(&o, "|SNP ");
	start = o.used;
	printed = ms_bits(&o, MS_SNOOP(v), ms_snoop, sizeof(ms_snoop) / sizeof(ms_snoop[0]), 0);
	ms_bits(&o, MS_SNOOPX(v), ms_snoopx, sizeof(ms_snoopx) / sizeof(ms_snoopx[0]), printed);
	if (o.used == start)
		ms_put(&o, "N/A");
	ms_put(&o, "|TLB ");
	start = o.used;
	ms_bits(&o, tlb & ~(uint64_t)6, ms_tlb, sizeof(ms_tlb) / sizeof(ms_tlb[0]), 0);
	if (o.used == start)
		ms_put(&o, "N/A");
	if (tlb & 2)
		ms_put(&o, " hit");
	if (tlb & 4)
		ms_put(&o, " miss");
	ms_put(&o, "|LCK %s", lock & 1 ? "N/A" : lock & 2 ? "Yes" : "No");
	/* perf puts a blank before each BLK word: "|BLK  N/A" */
	ms_put(&o, "|BLK ");
	if (!blk || (blk & 1))
		ms_put(&o, " N/A");
	else {
		if (blk & 2)
			ms_put(&o, " Data");
		if (blk & 4)
			ms_put(&o, " Addr");
	}
	return o.used;
}

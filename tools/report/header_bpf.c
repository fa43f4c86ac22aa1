// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the BPF_PROG_INFO and BPF_BTF features.
 * Each program recorded (its struct bpf_prog_info and the arrays it points
 * to) and each BTF are kept by id, as perf's trees keep them; a program's
 * lines name it and its sub-programs as perf's synthesize_bpf_prog_name()
 * does, from its tag and the function's name in its BTF, which is indexed
 * here the way libbpf's btf__new() parses it for perf.
 *
 * Why it is on its own: the program's info is a kernel struct perf writes
 * as it is, whose array fields become offsets into the data that follows;
 * reading it takes its own checks (bpf_array(), rh_btf_index()), which
 * leave out a program or a BTF perf would read out of bounds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/header.h"

static int rh_blob_cmp(const void *a, const void *b)
{
	const struct rh_blob *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int rh_blob_id_cmp(const void *a, const void *b)
{
	const struct rh_blob *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Add a copy of data under id; rh_blobs_settle() puts the set in order. */
static int rh_blob_add(struct rh *h, struct rh_blobs *set, uint32_t id, const void *data, size_t len)
{
	void *copy;

	if (set->nr == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		struct rh_blob *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return -1;
		set->v = v;
		set->cap = cap;
	}
	copy = rh_keep(h, malloc(len ? len : 1));
	if (!copy)
		return -1;
	memcpy(copy, data, len);
	set->v[set->nr++] = (struct rh_blob){ .id = id, .len = (uint32_t)len, .data = copy, .seq = set->seq++ };
	return 0;
}

/* Sort by id and keep the first of each id, as perf's trees do. */
static void rh_blobs_settle(struct rh_blobs *set)
{
	size_t i, n = 0;

	if (set->nr > 1)
		qsort(set->v, set->nr, sizeof(*set->v), rh_blob_cmp);
	for (i = 0; i < set->nr; i++)
		if (!n || set->v[n - 1].id != set->v[i].id)
			set->v[n++] = set->v[i];
	set->nr = n;
}

/* sizeof(struct bpf_prog_info) in perf 6.1, and the offsets it uses. */
#define BPF_INFO_SIZE 232
#define BPF_ID 4
#define BPF_NAME 64
#define BPF_NR_JITED_KSYMS 104
#define BPF_NR_JITED_FUNC_LENS 108
#define BPF_JITED_KSYMS 112
#define BPF_JITED_FUNC_LENS 120
#define BPF_BTF_ID 128
#define BPF_FUNC_INFO_REC_SIZE 132
#define BPF_FUNC_INFO 136
#define BPF_NR_PROG_TAGS 180
#define BPF_PROG_TAGS 184
/* A kept program: the info (zero-padded to BPF_INFO_SIZE), u64 arrays (the
 * array fields that hold offsets into the data), then the data. */
#define BPF_ARRAYS BPF_INFO_SIZE
#define BPF_DATA (BPF_INFO_SIZE + 8)

/* perf's process_bpf_prog_info(): u32 count; each: u32 info_len, u32
 * data_len, u64 arrays, the info, the data. Not read from a file of the
 * other byte order (perf says so and goes on). */
int rh_proc_bpf_prog_info(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t nr, info_len, data_len;
	const uint8_t *info, *data;
	uint64_t arrays;
	uint8_t *prog;
	int err = 0;

	if (c->swapped)
		return 0;
	if (!bytecur_u32(c, &nr))
		return -1;
	while (nr-- && !err) {
		if (!bytecur_u32(c, &info_len) || !bytecur_u32(c, &data_len) || info_len > BPF_INFO_SIZE || !bytecur_u64(c, &arrays) ||
		    !bytecur_take(c, info_len, &info) || !bytecur_take(c, data_len, &data) ||
		    !(prog = calloc(1, BPF_DATA + (size_t)data_len))) {
			err = -1;
			break;
		}
		memcpy(prog, info, info_len);
		memcpy(prog + BPF_ARRAYS, &arrays, 8);
		memcpy(prog + BPF_DATA, data, data_len);
		err = rh_blob_add(h, &h->env.progs, rd32(prog + BPF_ID, false), prog, BPF_DATA + (size_t)data_len);
		free(prog);
	}
	rh_blobs_settle(&h->env.progs);
	return err;
}

int rh_proc_bpf_btf(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t nr, id, size;
	const uint8_t *data;
	int err = 0;

	if (c->swapped)
		return 0;
	if (!bytecur_u32(c, &nr))
		return -1;
	while (nr-- && !err)
		if (!bytecur_u32(c, &id) || !bytecur_u32(c, &size) || !bytecur_take(c, size, &data) ||
		    rh_blob_add(h, &h->env.btfs, id, data, size))
			err = -1;
	rh_blobs_settle(&h->env.btfs);
	return err;
}

/*
 * Index a program's BTF as libbpf's btf__new() parses it for perf: the
 * header (magic, sections inside the data, types before strings), strings
 * that start and end with a NUL, then the types, numbered from 1, each 12
 * bytes and what its kind adds (kinds 1 to 19, INT to ENUM64, as perf 6.1's
 * libbpf knows them). false when it does not parse: perf then has no BTF.
 */
static bool rh_btf_index(struct rh *h, struct rh_blob *b)
{
	static const uint8_t per_vlen[20] = { [4] = 12, [5] = 12, [6] = 8, [13] = 8, [15] = 12, [19] = 12 };
	static const uint8_t extra[20] = { [1] = 4, [3] = 12, [14] = 4, [17] = 4 };
	const uint8_t *d = b->data;
	uint32_t hdr_len, type_off, type_len, str_off, str_len, *at;
	uint64_t pos, end;

	if (b->btf_state)
		return b->btf_state > 0;
	b->btf_state = -1;
	if (b->len < 24 || rd16(d, false) != 0xeb9f)
		return false;
	hdr_len = rd32(d + 4, false);
	type_off = rd32(d + 8, false);
	type_len = rd32(d + 12, false);
	str_off = rd32(d + 16, false);
	str_len = rd32(d + 20, false);
	if (hdr_len < 24 || hdr_len > b->len || (uint64_t)str_off + str_len > b->len - hdr_len ||
	    (uint64_t)type_off + type_len > str_off || type_off % 4 || !str_len || d[hdr_len + str_off] ||
	    d[hdr_len + str_off + str_len - 1])
		return false;
	at = rh_alloc(h, type_len / 12, sizeof(*at));
	if (!at)
		return false;
	for (pos = (uint64_t)hdr_len + type_off, end = pos + type_len; pos < end; b->nr_types++) {
		uint32_t info, kind;
		uint64_t size;

		if (end - pos < 12)
			return false;
		info = rd32(d + pos + 4, false);
		kind = info >> 24 & 0x1f;
		if (kind == 0 || kind > 19)
			return false;
		size = 12 + extra[kind] + (uint64_t)per_vlen[kind] * (info & 0xffff);
		if (end - pos < size)
			return false;
		at[b->nr_types] = (uint32_t)pos;
		pos += size;
	}
	b->type_at = at;
	b->str_at = hdr_len + str_off;
	b->str_len = str_len;
	b->btf_state = 1;
	return true;
}

/* The name of type id (btf__type_by_id(), btf__name_by_offset(): id 0 is
 * "void", whose name is ""); NULL when the id or its name is not there. */
static const char *rh_btf_name(const struct rh_blob *b, uint32_t id)
{
	uint32_t off = id ? (id <= b->nr_types ? rd32(b->data + b->type_at[id - 1], false) : UINT32_MAX) : 0;

	return off < b->str_len ? (const char *)b->data + b->str_at + off : NULL;
}

/* An array of a program's data, n entries of size bytes (its field holds an
 * offset into the data when arrays has the bit), or NULL when not there. */
static const uint8_t *bpf_array(const struct rh_blob *prog, int bit, uint32_t field, uint64_t n, uint64_t size)
{
	uint64_t arrays = rd64(prog->data + BPF_ARRAYS, false), off = rd64(prog->data + field, false);
	uint64_t data_len = prog->len - BPF_DATA;

	if (!(arrays >> bit & 1) || off > data_len || (size && n > (data_len - off) / size))
		return NULL;
	return prog->data + BPF_DATA + off;
}

/* perf's synthesize_bpf_prog_name(): bpf_prog_<tag>, then _<name>: the
 * function's in the BTF, else the program's when it is alone, else _F. */
static void bpf_prog_name(char *buf, size_t len, const struct rh_blob *prog, const struct rh_blob *btf,
			  const uint8_t *tags, uint32_t sub, uint32_t nr)
{
	const uint8_t *p = prog->data, *fi;
	uint32_t rec = rd32(p + BPF_FUNC_INFO_REC_SIZE, false);
	const char *short_name = NULL;
	char pname[17];
	size_t n;
	int i;

	n = (size_t)snprintf(buf, len, "bpf_prog_");
	for (i = 0; i < 8; i++)
		n += (size_t)snprintf(buf + n, len - n, "%02x", tags[(size_t)sub * 8 + i]);
	if (btf) {
		fi = bpf_array(prog, 5, BPF_FUNC_INFO, (uint64_t)sub + 1, rec);
		if (fi && rec >= 8)
			short_name = rh_btf_name(btf, rd32(fi + (size_t)sub * rec + 4, false));
	} else if (sub == 0 && nr == 1) {
		memcpy(pname, p + BPF_NAME, 16);
		pname[16] = 0;
		if (pname[0])
			short_name = pname;
	} else {
		short_name = "F";
	}
	if (short_name)
		snprintf(buf + n, len - n, "_%s", short_name);
}

/* perf's __bpf_event__print_bpf_prog_info(): a line for a program, or one
 * for the program and one per sub-program. A program whose arrays are not
 * in its data is left out (perf would read out of bounds). */
static void print_bpf_prog(struct rh *h, const struct rh_blob *prog)
{
	const uint8_t *p = prog->data, *addrs, *lens, *tags;
	uint32_t nr = rd32(p + BPF_NR_JITED_KSYMS, false), btf_id = rd32(p + BPF_BTF_ID, false), i;
	struct rh_blob key = { .id = btf_id }, *btf = NULL;
	char name[512]; /* KSYM_NAME_LEN */

	if (nr != rd32(p + BPF_NR_PROG_TAGS, false) || nr != rd32(p + BPF_NR_JITED_FUNC_LENS, false))
		return;
	if (btf_id && h->env.btfs.nr)
		btf = bsearch(&key, h->env.btfs.v, h->env.btfs.nr, sizeof(key), rh_blob_id_cmp);
	if (btf && !rh_btf_index(h, btf))
		btf = NULL;
	addrs = bpf_array(prog, 3, BPF_JITED_KSYMS, nr, 8);
	lens = bpf_array(prog, 4, BPF_JITED_FUNC_LENS, nr, 4);
	tags = bpf_array(prog, 8, BPF_PROG_TAGS, nr, 8);
	if (nr && (!addrs || !lens || !tags))
		return;
	if (nr == 1) {
		bpf_prog_name(name, sizeof(name), prog, btf, tags, 0, nr);
		fprintf(h->out, "# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n", prog->id, name,
			rd64(addrs, false), rd32(lens, false));
		return;
	}
	fprintf(h->out, "# bpf_prog_info %u:\n", prog->id);
	for (i = 0; i < nr; i++) {
		bpf_prog_name(name, sizeof(name), prog, btf, tags, i, nr);
		fprintf(h->out, "# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n", i, name,
			rd64(addrs + 8 * (size_t)i, false), rd32(lens + 4 * (size_t)i, false));
	}
}

void rh_print_bpf_prog_info(struct rh *h)
{
	size_t i;

	for (i = 0; i < h->env.progs.nr; i++)
		print_bpf_prog(h, &h->env.progs.v[i]);
}

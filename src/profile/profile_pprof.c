// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pprof: a gzip'd perftools.profiles.Profile (profile.proto), what `go tool
 * pprof`, Pyroscope, Parca and Grafana read.
 *
 * Encoder choice: a small hand-written protobuf writer (varints, tags and
 * length-delimited fields, ~60 lines below) rather than protobuf-c. The
 * format is five small messages of integer fields and one string table; the
 * writer needs no generated code, no .proto compiler at build time and no
 * new library (protobuf-c would add libprotobuf-c plus protoc-c to the
 * dependencies and build, and its generated structs would make us build the
 * whole Profile in memory before packing it). Writing by hand also lets the
 * top-level repeated fields stream: each sample, location, ... is encoded
 * into a small buffer and deflated at once, so the memory of the export is
 * that of the profile's tables plus one message. zlib (gzip framing) is
 * already a dependency through libbpf. The oracle is `go tool pprof`
 * (tests/unit/export_profile.c and profile_api.c read our files back with -raw,
 * -traces and -top).
 *
 * What goes where:
 * - sample_type: per event, ("samples", "count") and (event, "nanoseconds"
 *   for cpu-clock/task-clock, else "count"); with several events the first
 *   of the pair is "<event>-samples" so that -sample_index names are unique.
 *   default_sample_type and period_type are the first event's; period is its
 *   fixed period (perfring_profile_set_sampling()), else (a frequency) its mean period;
 *   comments say how each event was sampled ("cpu-clock: sampled at 999 Hz").
 * - one Sample per distinct (event, pid, tid, comm, stack): location ids leaf
 *   first, values (count and period in the event's two slots, 0 elsewhere),
 *   labels pid and tid (numeric) and comm (string), then the sample's own
 *   labels (strings: perfring_profile_sample.labels).
 * - Location: address, mapping, one Line per function, inlined ones first
 *   (pprof's order: the last line is the function they were inlined into).
 *   An unnamed frame has no line (pprof shows its address and can symbolize
 *   it from the mapping's file and build id).
 * - Mapping: memory_start/limit, file_offset, filename, build_id (hex);
 *   programs first, heaviest first, so that pprof's main binary is the
 *   program sampled most.
 * - time_nanos: the first sample's wall-clock time when perfring_profile_set_clock() tied
 *   perf's clock to the epoch, else its time on perf's clock (a comment says
 *   so); duration_nanos from the first to the last sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile/profile_internal.h"

/* ---- protobuf wire format, into a prof_buf (a message being encoded) ---- */

static void pb_bytes(struct prof_buf *pb, const void *data, size_t n)
{
	pr_prof_buf_put(pb, data, n);
}

/* v as a varint into out (10 bytes at most); returns its length. */
static size_t varint_enc(uint8_t out[10], uint64_t v)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void pb_varint(struct prof_buf *pb, uint64_t v)
{
	uint8_t tmp[10];

	pb_bytes(pb, tmp, varint_enc(tmp, v));
}

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void pb_tag(struct prof_buf *pb, unsigned field, unsigned wire)
{
	pb_varint(pb, (uint64_t)field << 3 | wire);
}

/* An integer field (int64, uint64 and bool share the varint encoding); 0 is the default and left out. */
static void pb_uint(struct prof_buf *pb, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(pb, field, WIRE_VARINT);
	pb_varint(pb, v);
}

static void pb_len(struct prof_buf *pb, unsigned field, const void *data, size_t n)
{
	pb_tag(pb, field, WIRE_LEN);
	pb_varint(pb, n);
	pb_bytes(pb, data, n);
}

static void pb_msg(struct prof_buf *pb, unsigned field, const struct prof_buf *sub)
{
	if (sub->err)
		pb->err = sub->err;
	else
		pb_len(pb, field, sub->b, sub->len);
}

/* ---- gzip output ---- */

struct gz {
	z_stream z;
	FILE *out;
	uint8_t buf[1 << 16];
	int err;
};

static void gz_feed(struct gz *g, const void *data, size_t n, int flush)
{
	if (g->err)
		return;
	g->z.next_in = (Bytef *)data;
	g->z.avail_in = (uInt)n;
	do {
		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		int rc = deflate(&g->z, flush);

		if (rc == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		size_t have = sizeof(g->buf) - g->z.avail_out;

		if (have && fwrite(g->buf, 1, have, g->out) != have) {
			g->err = -EIO;
			return;
		}
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
}

/* A top-level field: tag, length and message, deflated; the message buffer is reset for reuse. */
static void gz_field(struct gz *g, unsigned field, struct prof_buf *msg)
{
	uint8_t head[20];
	size_t n;

	if (msg->err) {
		g->err = msg->err;
		return;
	}
	n = varint_enc(head, (uint64_t)field << 3 | WIRE_LEN);
	n += varint_enc(head + n, msg->len);
	gz_feed(g, head, n, Z_NO_FLUSH);
	gz_feed(g, msg->b, msg->len, Z_NO_FLUSH);
	msg->len = 0;
}

/* A top-level integer field (left out when 0, as pb_uint). */
static void gz_varint_field(struct gz *g, unsigned field, uint64_t v)
{
	uint8_t head[20];
	size_t n;

	if (!v)
		return;
	n = varint_enc(head, (uint64_t)field << 3 | WIRE_VARINT);
	n += varint_enc(head + n, v);
	gz_feed(g, head, n, Z_NO_FLUSH);
}

/* ---- strings the profile does not hold: sample types, units, label keys ---- */

struct strs {
	const struct perfring_profile *p;
	/* 6 names and units, a "<event>-samples" and a comment per event, a comment on the time */
	char *extra[8 + 2 * PROF_MAX_EVENTS];
	size_t nextra;
	int err;
};

/* The string table index of s: the profile's own, or one appended after them. */
static int64_t str_id(struct strs *st, const char *s)
{
	long id = pr_prof_itab_find(&st->p->strs, s, strlen(s));

	if (id >= 0)
		return id;
	for (size_t i = 0; i < st->nextra; i++)
		if (strcmp(st->extra[i], s) == 0)
			return (int64_t)(st->p->strs.n + i);
	if (st->nextra == sizeof(st->extra) / sizeof(st->extra[0]) || !(st->extra[st->nextra] = strdup(s))) {
		st->err = -ENOMEM;
		return 0;
	}
	return (int64_t)(st->p->strs.n + st->nextra++);
}

static void write_value_type(struct gz *g, struct prof_buf *m, unsigned field, int64_t type, int64_t unit)
{
	pb_uint(m, 1, (uint64_t)type);
	pb_uint(m, 2, (uint64_t)unit);
	gz_field(g, field, m);
}

static void write_label(struct prof_buf *sample, struct prof_buf *lab, int64_t key, int64_t str, uint64_t num)
{
	lab->len = 0;
	pb_uint(lab, 1, (uint64_t)key);
	pb_uint(lab, 2, (uint64_t)str);
	pb_uint(lab, 3, num);
	pb_msg(sample, 3, lab);
}

struct map_weight {
	uint32_t idx;
	bool program;  /* a file that is not a library nor "[kernel.kallsyms]"-like */
	uint64_t weight;
};

/* Not "[...]", not a shared library (".so" at the end or followed by '.'/'_' and a digit: pprof's test). */
static bool is_program(const char *file)
{
	const char *so;

	if (!*file || *file == '[')
		return false;
	for (so = strstr(file, ".so"); so; so = strstr(so + 1, ".so"))
		if (!so[3] || ((so[3] == '.' || so[3] == '_') && so[4] >= '0' && so[4] <= '9'))
			return false;
	return true;
}

static int cmp_weight(const void *a, const void *b)
{
	const struct map_weight *x = a, *y = b;

	if (x->program != y->program)
		return x->program ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->idx < y->idx ? -1 : 1;
}

/* Mappings in the order pprof reads a main binary from (it takes the first: "File:", "Build ID:"):
 * programs before libraries and "[...]", each heaviest first (the samples whose stacks go
 * through them). */
static int map_order(const struct perfring_profile *p, uint32_t **order_out, uint32_t **id_out)
{
	size_t n = p->maps.n ? p->maps.n : 1;
	struct map_weight *w = calloc(n, sizeof(*w));
	uint32_t *seen = calloc(n, sizeof(*seen)); /* stack index + 1 that last counted the mapping */
	uint32_t *order = calloc(n, sizeof(*order)), *id = calloc(n, sizeof(*id));

	if (!w || !seen || !order || !id) {
		free(w);
		free(seen);
		free(order);
		free(id);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->maps.n; i++) {
		w[i].idx = (uint32_t)i;
		w[i].program = is_program(pr_prof_str(p, pr_prof_map(p, (uint32_t)i + 1)->file_sid));
	}
	for (size_t i = 0; i < p->stacks.n; i++) {
		const struct prof_stack_key *k = pr_prof_stack(p, i);

		for (uint32_t j = 0; j < k->nlocs; j++) {
			uint32_t map = pr_prof_loc(p, k->locs[j])->map;

			if (map && seen[map - 1] != i + 1) {
				seen[map - 1] = (uint32_t)i + 1;
				w[map - 1].weight += p->stack_vals[i].count;
			}
		}
	}
	qsort(w, p->maps.n, sizeof(*w), cmp_weight);
	for (size_t k = 0; k < p->maps.n; k++) {
		order[k] = w[k].idx;
		id[w[k].idx] = (uint32_t)k + 1;
	}
	free(w);
	free(seen);
	*order_out = order;
	*id_out = id;
	return 0;
}

int pr_prof_write_pprof(const struct perfring_profile *p, FILE *out)
{
	struct gz *g;
	struct strs *st;
	struct prof_buf m = { 0 }, sub = { 0 };
	uint8_t *map_flags = NULL;
	uint32_t *order = NULL, *map_id = NULL;
	int err = 0;

	g = calloc(1, sizeof(*g));
	st = calloc(1, sizeof(*st));
	if (!g || !st) {
		free(g);
		free(st);
		return -ENOMEM;
	}
	st->p = p;
	g->out = out;
	if (deflateInit2(&g->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		free(st);
		return -ENOMEM;
	}

	/* 1: sample_type, two per event. */
	int64_t k_pid = str_id(st, "pid"), k_tid = str_id(st, "tid"), k_comm = str_id(st, "comm");
	int64_t u_count = str_id(st, "count"), u_ns = str_id(st, "nanoseconds");

	for (int e = 0; e < p->nevents; e++) {
		const char *ev = pr_prof_str(p, p->event_sid[e]);
		char name[512];

		if (p->nevents == 1)
			snprintf(name, sizeof(name), "samples");
		else
			snprintf(name, sizeof(name), "%s-samples", ev);
		write_value_type(g, &m, 1, str_id(st, name), u_count);
		write_value_type(g, &m, 1, p->event_sid[e], pr_prof_event_is_clock(ev) ? u_ns : u_count);
	}

	/* 2: samples. */
	for (size_t i = 0; i < p->stacks.n && !g->err && !st->err; i++) {
		const struct prof_stack_key *k = pr_prof_stack(p, i);

		sub.len = 0;
		for (uint32_t j = 0; j < k->nlocs; j++)
			pb_varint(&sub, (uint64_t)k->locs[j] + 1);
		if (k->nlocs)
			pb_msg(&m, 1, &sub);
		sub.len = 0;
		for (int e = 0; e < p->nevents; e++) {
			bool mine = (int)k->event == e;

			pb_varint(&sub, mine ? p->stack_vals[i].count : 0);
			pb_varint(&sub, mine ? p->stack_vals[i].period : 0);
		}
		pb_msg(&m, 2, &sub);
		write_label(&m, &sub, k_pid, 0, k->pid);
		write_label(&m, &sub, k_tid, 0, k->tid);
		if (k->comm_sid)
			write_label(&m, &sub, k_comm, k->comm_sid, 0);
		if (k->labels) {
			const struct prof_label_key *l = pr_prof_key(&p->labelsets, k->labels - 1);
			size_t n = p->labelsets.keys[k->labels - 1]->len / sizeof(*l);

			for (size_t j = 0; j < n; j++)
				write_label(&m, &sub, l[j].key_sid, l[j].value_sid, 0);
		}
		gz_field(g, 2, &m);
	}

	/* 3: mappings, with what their locations tell (bit 0 functions, 1 file names, 2 lines, 3 inlines). */
	map_flags = calloc(p->maps.n ? p->maps.n : 1, 1);
	if (!map_flags) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < p->locs.n; i++) {
		const struct prof_loc_key *l = pr_prof_loc(p, (uint32_t)i);

		if (!l->map || !l->nlines)
			continue;
		map_flags[l->map - 1] |= 1 | (l->nlines > 1 ? 8 : 0);
		for (uint32_t j = 0; j < l->nlines; j++) {
			if (pr_prof_func(p, l->lines[j].func)->file_sid)
				map_flags[l->map - 1] |= 2;
			if (l->lines[j].line)
				map_flags[l->map - 1] |= 4;
		}
	}
	if (map_order(p, &order, &map_id)) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < p->maps.n && !g->err; k++) {
		size_t i = order[k];
		const struct prof_map_key *mk = pr_prof_map(p, (uint32_t)i + 1);

		pb_uint(&m, 1, k + 1);
		pb_uint(&m, 2, mk->start);
		pb_uint(&m, 3, mk->limit);
		pb_uint(&m, 4, mk->pgoff);
		pb_uint(&m, 5, mk->file_sid);
		pb_uint(&m, 6, mk->build_id_sid);
		for (unsigned b = 0; b < 4; b++)
			pb_uint(&m, 7 + b, (map_flags[i] >> b) & 1);
		gz_field(g, 3, &m);
	}

	/* 4: locations. */
	for (size_t i = 0; i < p->locs.n && !g->err; i++) {
		const struct prof_loc_key *l = pr_prof_loc(p, (uint32_t)i);

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, l->map ? map_id[l->map - 1] : 0);
		pb_uint(&m, 3, l->addr);
		for (uint32_t j = 0; j < l->nlines; j++) {
			sub.len = 0;
			pb_uint(&sub, 1, l->lines[j].func);
			pb_uint(&sub, 2, l->lines[j].line);
			pb_msg(&m, 4, &sub);
		}
		gz_field(g, 4, &m);
	}

	/* 5: functions (system_name: the same name; the symbol layer gives demangled names only). */
	for (size_t i = 0; i < p->funcs.n && !g->err; i++) {
		const struct prof_func_key *f = pr_prof_func(p, (uint32_t)i + 1);

		pb_uint(&m, 1, i + 1);
		pb_uint(&m, 2, f->name_sid);
		pb_uint(&m, 3, f->name_sid);
		pb_uint(&m, 4, f->file_sid);
		gz_field(g, 5, &m);
	}

	/* 9..14: times, period, default sample type; the extra strings are all known after this. */
	const char *ev0 = pr_prof_str(p, p->event_sid[0]);
	uint64_t n0 = 0, period0 = 0;

	for (size_t i = 0; i < p->stacks.n; i++) {
		if (pr_prof_stack(p, i)->event == 0) {
			n0 += p->stack_vals[i].count;
			period0 += p->stack_vals[i].period;
		}
	}
	if (p->has_clock && p->time_min)
		gz_varint_field(g, 9, p->clock_epoch_ns + (p->time_min - p->clock_perf_ns));
	else
		gz_varint_field(g, 9, p->time_min);
	gz_varint_field(g, 10, p->time_max - p->time_min);
	write_value_type(g, &m, 11, p->event_sid[0], pr_prof_event_is_clock(ev0) ? u_ns : u_count);
	if (p->sampling[0].value && !p->sampling[0].freq)
		gz_varint_field(g, 12, p->sampling[0].value);
	else
		gz_varint_field(g, 12, n0 ? (period0 + n0 / 2) / n0 : 0);
	/* 13: comments (pprof -raw prints them): how each event was sampled, and what the time is. */
	for (int e = 0; e < p->nevents; e++) {
		const struct prof_sampling *sm = &p->sampling[e];
		const char *ev = pr_prof_str(p, p->event_sid[e]);
		char text[600];

		if (!sm->value)
			continue;
		if (sm->freq)
			snprintf(text, sizeof(text), "%s: sampled at %llu Hz", ev, (unsigned long long)sm->value);
		else
			snprintf(text, sizeof(text), "%s: a sample every %llu %s", ev, (unsigned long long)sm->value,
				 pr_prof_event_is_clock(ev) ? "ns" : "events");
		gz_varint_field(g, 13, (uint64_t)str_id(st, text));
	}
	if (p->time_min && !p->has_clock)
		gz_varint_field(g, 13, (uint64_t)str_id(st, "time_nanos is the first sample's time on perf's clock "
							     "(the recording has no wall-clock reference: CLOCK_DATA)"));
	gz_varint_field(g, 14, p->event_sid[0]);

	/* 6: the string table, the profile's strings (index 0 is "") then the extra ones. */
	if (st->err) {
		err = st->err;
		goto out;
	}
	for (size_t i = 0; i < p->strs.n + st->nextra && !g->err; i++) {
		const char *s = i < p->strs.n ? pr_prof_str(p, (uint32_t)i) : st->extra[i - p->strs.n];

		pb_bytes(&m, s, strlen(s));
		gz_field(g, 6, &m);
	}
	gz_feed(g, NULL, 0, Z_FINISH);
	if (!g->err && (fflush(out) || ferror(out)))
		g->err = -EIO;
	err = g->err ? g->err : m.err ? m.err : sub.err;
out:
	deflateEnd(&g->z);
	for (size_t i = 0; i < st->nextra; i++)
		free(st->extra[i]);
	free(map_flags);
	free(order);
	free(map_id);
	free(m.b);
	free(sub.b);
	free(g);
	free(st);
	return err;
}

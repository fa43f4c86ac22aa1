// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the text `perf report --header-only`
 * (perf 6.1) prints, line for line. In file mode: the file header (its
 * mtime, offsets and sizes), one or more lines per feature section in
 * feature order, the features missing, between perf's "# ========" lines.
 * In pipe mode: the header with zero offsets, its closing lines, then each
 * feature as its record arrives, up to the record that ends the features.
 *
 * It works as perf does, in two steps. "Process" decodes a feature into
 * struct rh_env (perf's perf_env): in file mode every section in feature
 * order, stopping at the first one perf fails to decode (the later ones then
 * print what perf prints for a feature it never read); "print" prints a
 * feature from rh_env (EVENT_DESC from its bytes, in report_attr.c). In pipe
 * mode each record is processed then printed, and one perf cannot decode
 * ends the reading, with an error.
 *
 * The reader (perfring_perfdata_open_fd/_mem) checks the file and gives the
 * events and, in pipe mode, the records. In file mode the file is mapped here
 * as well: the reader shows neither the data section's offset and size nor
 * where the feature sections are, and perf reads a section from its offset
 * to the end of the file (a length in it may run past the section's size),
 * which only the whole file allows. A pipe or FIFO is read into memory
 * first, in pipe mode only up to the record that ends the features (the
 * writer may go on for long). A directory (perf record --threads) is read
 * through its file "data".
 *
 * Why it is safe: the bytes of a section or record are read through struct
 * rh_cur, which checks every length from the file against the bytes left
 * before the end of the input, and a count is bounded by those bytes before
 * anything is allocated for it. What the decoding keeps is allocated through
 * rh_keep() and freed at once at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perfring/perfring.h>

#include "perfdata/pd_common.h"
#include "shared/tool.h"

/* report_attr.c: the EVENT_DESC section (it declares the same two). */
void report_event_desc_print(const void *data, size_t len, bool swapped, FILE *out);
int report_event_desc_names(const void *data, size_t len, bool swapped, char ***names, uint32_t *nr);

#define NS ((uint64_t)1000000000)
#define RH_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define RH_FILE_HEADER 104
/* perf 6.1's HEADER_LAST_FEATURE: features 1..31 are known; a pipe's
 * feature record with this id (or a later one) ends its features. */
#define RH_LAST_FEATURE 32

enum {
	F_TRACING_DATA = 1, F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION, F_ARCH, F_NRCPUS, F_CPUDESC, F_CPUID,
	F_TOTAL_MEM, F_CMDLINE, F_EVENT_DESC, F_CPU_TOPOLOGY, F_NUMA_TOPOLOGY, F_BRANCH_STACK, F_PMU_MAPPINGS,
	F_GROUP_DESC, F_AUXTRACE, F_STAT, F_CACHE, F_SAMPLE_TIME, F_MEM_TOPOLOGY, F_CLOCKID, F_DIR_FORMAT,
	F_BPF_PROG_INFO, F_BPF_BTF, F_COMPRESSED, F_CPU_PMU_CAPS, F_CLOCK_DATA, F_HYBRID_TOPOLOGY, F_PMU_CAPS,
};

/* A PMU's capabilities, "name=value" each. */
struct rh_caps {
	uint32_t nr;
	char **caps;
	char *pmu;
};

/* A BPF program's info or a BTF. */
struct rh_blob {
	uint32_t id, len;
	const uint8_t *data;
	size_t seq; /* arrival: of two with one id, perf keeps the first */
	/* a BTF's types, indexed at the first look-up: 1 done, -1 it does not parse */
	int btf_state;
	uint32_t nr_types, str_at, str_len;
	const uint32_t *type_at; /* where type id i + 1 starts */
};

/* BPF programs or BTFs, sorted by id once a section is read. */
struct rh_blobs {
	struct rh_blob *v;
	size_t nr, cap, seq;
};

/* An event (perf's evsel): its name from the file, its group. */
struct rh_ev {
	char *name;  /* from EVENT_DESC or an EVENT_UPDATE */
	char *group; /* on a group's leader: the group's name, if not anonymous */
	uint32_t leader, nr_members;
};

/* An event's id, for EVENT_UPDATE records. */
struct rh_id {
	uint64_t id;
	uint32_t idx;
};

/* What processing the features leaves for printing them: perf's perf_env. */
struct rh_env {
	char *str[RH_LAST_FEATURE]; /* the string features, by feature id */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;
	uint32_t nr_cmdline;
	char **cmdline;
	uint32_t nr_pmus;
	uint32_t *pmu_type;
	char **pmu_name;
	uint64_t first_sample, last_sample;
	uint64_t clock_res_ns, dir_version;
	bool clock_enabled;
	uint32_t clockid;
	uint64_t tod_ns, clock_ns;
	uint32_t comp_ver, comp_type, comp_level, comp_ratio, comp_mmap_len;
	struct rh_caps cpu_caps;
	uint32_t nr_pmu_caps;
	struct rh_caps *pmu_caps;
	struct rh_blobs progs, btfs;
	/* the events (perf's evlist), by index */
	uint32_t nr_ev;
	struct rh_ev *ev;
	struct rh_id *ids; /* sorted, for the events known when it was made */
	size_t nr_ids;
	uint32_t ids_for;
};

struct rh {
	struct perfring_perfdata *pd;
	bool swapped, dir;
	struct rh_env env;
	void **kept;
	size_t nr_kept, cap_kept;
};

/* Bytes of one section or record, read with checked lengths. perf reads a
 * record's bytes, but a section from its offset on to the end of the file
 * (a length in it may run past its size): len is what may be read, size
 * the section's or record's own size, which perf compares with in places. */
struct rh_cur {
	const uint8_t *p;
	size_t len, pos;
	bool swapped;
	uint64_t size;
};

/* ---- keeping, reading ---- */

/* Remember p (freed by rh_free()); NULL stays NULL. */
static void *rh_keep(struct rh *h, void *p)
{
	if (!p)
		return NULL;
	if (h->nr_kept == h->cap_kept) {
		size_t cap = h->cap_kept ? h->cap_kept * 2 : 64;
		void **n = realloc(h->kept, cap * sizeof(*n));

		if (!n) {
			free(p);
			return NULL;
		}
		h->kept = n;
		h->cap_kept = cap;
	}
	h->kept[h->nr_kept++] = p;
	return p;
}

static void *rh_alloc(struct rh *h, size_t n, size_t size)
{
	return rh_keep(h, calloc(n ? n : 1, size));
}

static void rh_free(struct rh *h)
{
	size_t i;

	for (i = 0; i < h->nr_kept; i++)
		free(h->kept[i]);
	free(h->kept);
	free(h->env.ev);
	free(h->env.ids);
	free(h->env.progs.v);
	free(h->env.btfs.v);
}

static uint16_t rd16(const uint8_t *p, bool sw)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return sw ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const uint8_t *p, bool sw)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return sw ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const uint8_t *p, bool sw)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return sw ? __builtin_bswap64(v) : v;
}

static size_t rh_left(const struct rh_cur *c)
{
	return c->len - c->pos;
}

static bool rh_take(struct rh_cur *c, uint64_t n, const uint8_t **p)
{
	if (rh_left(c) < n)
		return false;
	if (p)
		*p = c->p + c->pos;
	c->pos += (size_t)n;
	return true;
}

static bool rh_u32(struct rh_cur *c, uint32_t *v)
{
	const uint8_t *p;

	if (!rh_take(c, 4, &p))
		return false;
	*v = rd32(p, c->swapped);
	return true;
}

static bool rh_u64(struct rh_cur *c, uint64_t *v)
{
	const uint8_t *p;

	if (!rh_take(c, 8, &p))
		return false;
	*v = rd64(p, c->swapped);
	return true;
}

/* perf's string: u32 length, then that many bytes, NUL-padded. *len: the
 * text's length (to its first NUL). */
static bool rh_strview(struct rh_cur *c, const char **s, size_t *len)
{
	const uint8_t *p;
	uint32_t n;

	if (!rh_u32(c, &n) || !rh_take(c, n, &p))
		return false;
	*s = (const char *)p;
	*len = strnlen(*s, n);
	return true;
}

/* A string kept as a C string; NULL when short or out of memory. */
static char *rh_string(struct rh *h, struct rh_cur *c)
{
	const char *s;
	size_t len;

	if (!rh_strview(c, &s, &len))
		return NULL;
	return rh_keep(h, strndup(s, len));
}

/* Skip n strings; adds perf's idea of their size (text and NUL rounded up
 * to 64, plus the length word) to *size when given. */
static bool rh_skip_strings(struct rh_cur *c, uint32_t n, uint64_t *size)
{
	const char *s;
	size_t len;

	while (n--) {
		if (!rh_strview(c, &s, &len))
			return false;
		if (size)
			*size += (len + 1 + 63) / 64 * 64 + 4;
	}
	return true;
}

/* ---- the events: names and groups ---- */

/* Grow the per-event arrays to the events the reader knows (pipe mode adds them as they come). */
static int rh_events_sync(struct rh *h)
{
	struct rh_env *e = &h->env;
	uint32_t n = (uint32_t)perfring_perfdata_attr_cnt(h->pd), i;
	struct rh_ev *ev;

	if (n <= e->nr_ev)
		return 0;
	ev = realloc(e->ev, n * sizeof(*ev));
	if (!ev)
		return -1;
	for (i = e->nr_ev; i < n; i++)
		ev[i] = (struct rh_ev){ .leader = i, .nr_members = 1 };
	e->ev = ev;
	e->nr_ev = n;
	return 0;
}

/* perf's evsel__name(): the name the file gave the event, else one made from its attr. */
static const char *rh_event_name(struct rh *h, uint32_t i, char *buf, size_t len)
{
	const struct perfring_perfdata_attr *a = perfring_perfdata_attr(h->pd, (int)i);
	const struct perf_event_attr *attr = a ? a->attr : NULL;

	if (i < h->env.nr_ev && h->env.ev[i].name)
		return h->env.ev[i].name;
	if (!attr)
		return "unknown";
	if (pd_attr_name(a, buf, len))
		return buf;
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
		return "unknown-hardware";
	case PERF_TYPE_SOFTWARE:
		return "unknown-software";
	case PERF_TYPE_TRACEPOINT:
		return "unknown tracepoint";
	case PERF_TYPE_RAW:
		snprintf(buf, len, "raw 0x%llx", (unsigned long long)attr->config);
		return buf;
	default:
		snprintf(buf, len, "unknown attr type: %d", (int)attr->type);
		return buf;
	}
}

static int rh_id_cmp(const void *a, const void *b)
{
	const struct rh_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The event with this id (perf finds the last one given it), or -1. */
static int rh_event_by_id(struct rh *h, uint64_t id)
{
	struct rh_env *e = &h->env;
	size_t lo = 0, hi, n = 0;
	uint32_t i;

	if (e->ids_for != e->nr_ev) {
		for (i = 0; i < e->nr_ev; i++)
			n += perfring_perfdata_attr(h->pd, (int)i)->nr_ids;
		free(e->ids);
		e->nr_ids = 0;
		e->ids = malloc((n ? n : 1) * sizeof(*e->ids));
		if (!e->ids)
			return -1;
		for (i = 0; i < e->nr_ev; i++) {
			const struct perfring_perfdata_attr *a = perfring_perfdata_attr(h->pd, (int)i);
			uint64_t k;

			for (k = 0; k < a->nr_ids; k++)
				e->ids[e->nr_ids++] = (struct rh_id){ a->ids[k], i };
		}
		qsort(e->ids, e->nr_ids, sizeof(*e->ids), rh_id_cmp);
		e->ids_for = e->nr_ev;
	}
	hi = e->nr_ids;
	while (lo < hi) { /* the first entry past id */
		size_t mid = lo + (hi - lo) / 2;

		if (e->ids[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && e->ids[lo - 1].id == id ? (int)e->ids[lo - 1].idx : -1;
}

/* An EVENT_UPDATE record naming an event (pipe mode): perf renames it. */
static void rh_event_update(struct rh *h, const struct perfring_perfdata_record *r)
{
	const uint8_t *p = r->data;
	int i;

	if (r->size < 24 || rd64(p + 8, h->swapped) != 2 /* PERF_EVENT_UPDATE__NAME */ || rh_events_sync(h))
		return;
	i = rh_event_by_id(h, rd64(p + 16, h->swapped));
	if (i >= 0)
		h->env.ev[i].name = rh_keep(h, strndup((const char *)p + 24, r->size - 24));
}

/* ---- process: perf's process_*() ---- */

static int proc_string(struct rh *h, struct rh_cur *c, int feat)
{
	h->env.str[feat] = rh_string(h, c);
	return h->env.str[feat] ? 0 : -1;
}

static int proc_nrcpus(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t avail, online;

	if (!rh_u32(c, &avail) || !rh_u32(c, &online))
		return -1;
	h->env.nr_cpus_avail = avail;
	h->env.nr_cpus_online = online;
	return 0;
}

static int proc_total_mem(struct rh *h, struct rh_cur *c, int feat)
{
	return rh_u64(c, &h->env.total_mem) ? 0 : -1;
}

static int proc_cmdline(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t nr, i;
	char **argv;

	if (!rh_u32(c, &nr) || nr > rh_left(c) / 4 || !(argv = rh_alloc(h, nr, sizeof(*argv))))
		return -1;
	for (i = 0; i < nr; i++)
		if (!(argv[i] = rh_string(h, c)))
			return -1;
	h->env.cmdline = argv;
	h->env.nr_cmdline = nr;
	return 0;
}

/* Names the events by index, those not named yet; never fails (perf's process_event_desc()). */
static int proc_event_desc(struct rh *h, struct rh_cur *c, int feat)
{
	char **names;
	uint32_t nr, i;

	if (rh_events_sync(h) || report_event_desc_names(c->p, c->len, c->swapped, &names, &nr))
		return 0;
	for (i = 0; i < nr; i++) {
		if (i < h->env.nr_ev && !h->env.ev[i].name)
			h->env.ev[i].name = rh_keep(h, names[i]);
		else
			free(names[i]);
	}
	free(names);
	return 0;
}

/* Validated only: perf prints it with -I alone. Sibling lists, then (when the
 * section is longer than perf counts them) core and socket ids, then dies. */
static int proc_cpu_topology(struct rh *h, struct rh_cur *c, int feat)
{
	const char *arch = h->env.str[F_ARCH];
	uint32_t nr, cpus = h->env.nr_cpus_avail, i;
	/* perf 6.1 takes a socket id past the CPU count for a newer format,
	 * but on s390 and aarch64, whose ids are not CPU numbers */
	bool any_socket = arch && (!strncmp(arch, "s390", 4) || !strncmp(arch, "aarch64", 7));
	uint64_t size = 0;

	for (i = 0; i < 2; i++) {
		if (!rh_u32(c, &nr) || !rh_skip_strings(c, nr, &size))
			return -1;
		size += 4;
	}
	if (c->size <= size)
		return 0;
	for (i = 0; i < cpus; i++) {
		uint32_t core, socket;

		if (!rh_u32(c, &core) || !rh_u32(c, &socket) || (!any_socket && socket != UINT32_MAX && socket > cpus))
			return -1;
	}
	size += (uint64_t)cpus * 8;
	if (c->size <= size)
		return 0;
	if (!rh_u32(c, &nr) || !rh_skip_strings(c, nr, NULL) || !rh_take(c, (uint64_t)cpus * 4, NULL))
		return -1;
	return 0;
}

static int proc_numa_topology(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t nr;

	if (!rh_u32(c, &nr))
		return -1;
	while (nr--)
		if (!rh_take(c, 4 + 8 + 8, NULL) || !rh_skip_strings(c, 1, NULL))
			return -1;
	return 0;
}

static int proc_pmu_mappings(struct rh *h, struct rh_cur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t nr, i, *type;
	char **name;

	if (!rh_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > rh_left(c) / 8 || !(type = rh_alloc(h, nr, sizeof(*type))) || !(name = rh_alloc(h, nr, sizeof(*name))))
		return -1;
	for (i = 0; i < nr; i++)
		if (!rh_u32(c, &type[i]) || !(name[i] = rh_string(h, c)))
			return -1;
	e->nr_pmus = nr;
	e->pmu_type = type;
	e->pmu_name = name;
	return 0;
}

/* perf's process_group_desc(): the groups (name, leader index, members) read
 * whole, then laid over the events in order. What it set before finding the
 * groups inconsistent stays set, as in perf. */
static int proc_group_desc(struct rh *h, struct rh_cur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t nr_groups, i, k, nr = 0, leader = 0;
	struct {
		char *name;
		uint32_t leader, nr_members;
	} *g;

	if (!rh_u32(c, &nr_groups))
		return -1;
	if (!nr_groups)
		return 0;
	if (nr_groups > rh_left(c) / 12 || !(g = rh_alloc(h, nr_groups, sizeof(*g))) || rh_events_sync(h))
		return -1;
	for (i = 0; i < nr_groups; i++)
		if (!(g[i].name = rh_string(h, c)) || !rh_u32(c, &g[i].leader) || !rh_u32(c, &g[i].nr_members))
			return -1;
	for (i = 0, k = 0; k < e->nr_ev; k++) {
		if (i < nr_groups && k == g[i].leader) {
			e->ev[k].leader = k;
			if (strcmp(g[i].name, "{anon_group}"))
				e->ev[k].group = g[i].name;
			e->ev[k].nr_members = g[i].nr_members;
			if (nr > 0)
				return -1;
			leader = k;
			nr = g[i].nr_members - 1;
			i++;
		} else if (nr) {
			e->ev[k].leader = leader;
			nr--;
		}
	}
	return i == nr_groups && nr == 0 ? 0 : -1;
}

static int proc_auxtrace(struct rh *h, struct rh_cur *c, int feat)
{
	uint64_t nr;

	/* u64 count, then 16-byte entries that must fit the section */
	if (!rh_u64(c, &nr) || c->size < 8 || nr > (c->size - 8) / 16 || !rh_take(c, nr * 16, NULL))
		return -1;
	return 0;
}

static int proc_cache(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t version, nr;

	if (!rh_u32(c, &version) || version != 1 || !rh_u32(c, &nr))
		return -1;
	while (nr--)
		if (!rh_take(c, 16, NULL) || !rh_skip_strings(c, 3, NULL))
			return -1;
	return 0;
}

static int proc_sample_time(struct rh *h, struct rh_cur *c, int feat)
{
	uint64_t first, last;

	if (!rh_u64(c, &first) || !rh_u64(c, &last))
		return -1;
	h->env.first_sample = first;
	h->env.last_sample = last;
	return 0;
}

static int proc_mem_topology(struct rh *h, struct rh_cur *c, int feat)
{
	uint64_t version, bsize, nr, bits;

	if (!rh_u64(c, &version) || version != 1 || !rh_u64(c, &bsize) || !rh_u64(c, &nr))
		return -1;
	while (nr--)
		if (!rh_take(c, 16, NULL) || !rh_u64(c, &bits) || !rh_take(c, (bits / 64 + (bits % 64 != 0)) * 8, NULL))
			return -1;
	return 0;
}

static int proc_clockid(struct rh *h, struct rh_cur *c, int feat)
{
	return rh_u64(c, &h->env.clock_res_ns) ? 0 : -1;
}

/* The version of a directory's format (perf record --threads): perf reads it
 * when given the directory, and fails when given a file or a pipe. */
static int proc_dir_format(struct rh *h, struct rh_cur *c, int feat)
{
	return h->dir && rh_u64(c, &h->env.dir_version) ? 0 : -1;
}

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
static int proc_bpf_prog_info(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t nr, info_len, data_len;
	const uint8_t *info, *data;
	uint64_t arrays;
	uint8_t *prog;
	int err = 0;

	if (c->swapped)
		return 0;
	if (!rh_u32(c, &nr))
		return -1;
	while (nr-- && !err) {
		if (!rh_u32(c, &info_len) || !rh_u32(c, &data_len) || info_len > BPF_INFO_SIZE || !rh_u64(c, &arrays) ||
		    !rh_take(c, info_len, &info) || !rh_take(c, data_len, &data) ||
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

static int proc_bpf_btf(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t nr, id, size;
	const uint8_t *data;
	int err = 0;

	if (c->swapped)
		return 0;
	if (!rh_u32(c, &nr))
		return -1;
	while (nr-- && !err)
		if (!rh_u32(c, &id) || !rh_u32(c, &size) || !rh_take(c, size, &data) ||
		    rh_blob_add(h, &h->env.btfs, id, data, size))
			err = -1;
	rh_blobs_settle(&h->env.btfs);
	return err;
}

static int proc_compressed(struct rh *h, struct rh_cur *c, int feat)
{
	struct rh_env *e = &h->env;

	return rh_u32(c, &e->comp_ver) && rh_u32(c, &e->comp_type) && rh_u32(c, &e->comp_level) &&
			       rh_u32(c, &e->comp_ratio) && rh_u32(c, &e->comp_mmap_len)
		       ? 0
		       : -1;
}

/* u32 count, then name and value strings; kept as "name=value". */
static int rh_read_caps(struct rh *h, struct rh_cur *c, struct rh_caps *caps)
{
	uint32_t nr, i;
	char **list;

	*caps = (struct rh_caps){ 0 };
	if (!rh_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > rh_left(c) / 8 || !(list = rh_alloc(h, nr, sizeof(*list))))
		return -1;
	for (i = 0; i < nr; i++) {
		char *name = rh_string(h, c), *value = name ? rh_string(h, c) : NULL;

		if (!value || asprintf(&list[i], "%s=%s", name, value) < 0 || !rh_keep(h, list[i]))
			return -1;
	}
	caps->nr = nr;
	caps->caps = list;
	return 0;
}

static int proc_cpu_pmu_caps(struct rh *h, struct rh_cur *c, int feat)
{
	return rh_read_caps(h, c, &h->env.cpu_caps);
}

static int proc_clock_data(struct rh *h, struct rh_cur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t version;

	if (!rh_u32(c, &version) || version != 1 || !rh_u32(c, &e->clockid) || !rh_u64(c, &e->tod_ns) ||
	    !rh_u64(c, &e->clock_ns))
		return -1;
	e->clock_enabled = true;
	return 0;
}

static int proc_hybrid_topology(struct rh *h, struct rh_cur *c, int feat)
{
	uint32_t nr;

	if (!rh_u32(c, &nr))
		return -1;
	while (nr--)
		if (!rh_skip_strings(c, 2, NULL)) /* a PMU's name, its CPUs */
			return -1;
	return 0;
}

static int proc_pmu_caps(struct rh *h, struct rh_cur *c, int feat)
{
	struct rh_caps *caps;
	uint32_t nr, i;

	if (!rh_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > rh_left(c) / 8 || !(caps = rh_alloc(h, nr, sizeof(*caps))))
		return -1;
	for (i = 0; i < nr; i++)
		if (rh_read_caps(h, c, &caps[i]) || !(caps[i].pmu = rh_string(h, c)))
			return -1;
	h->env.nr_pmu_caps = nr;
	h->env.pmu_caps = caps;
	return 0;
}

/* ---- print: perf's print_*() ---- */

static void print_string(struct rh *h, const char *what, int feat)
{
	/* a feature perf never read prints its NULL as glibc does */
	printf("# %s : %s\n", what, h->env.str[feat] ? h->env.str[feat] : "(null)");
}

static void print_nrcpus(struct rh *h)
{
	printf("# nrcpus online : %u\n", h->env.nr_cpus_online);
	printf("# nrcpus avail : %u\n", h->env.nr_cpus_avail);
}

/* Each argument and a space; a quote as \' */
static void print_cmdline(struct rh *h)
{
	uint32_t i;

	printf("# cmdline : ");
	for (i = 0; i < h->env.nr_cmdline; i++) {
		const char *s;

		for (s = h->env.cmdline[i]; *s; s++)
			if (*s == '\'')
				fputs("\\'", stdout);
			else
				putchar(*s);
		putchar(' ');
	}
	putchar('\n');
}

static void print_pmu_mappings(struct rh *h)
{
	uint32_t i;

	if (!h->env.nr_pmus) {
		printf("# pmu mappings: not available\n");
		return;
	}
	for (i = 0; i < h->env.nr_pmus; i++)
		printf("%s%s = %u", i ? ", " : "# pmu mappings: ", h->env.pmu_name[i], h->env.pmu_type[i]);
	printf("\n");
}

/* A line per group, from its leader through its members (a group cut short
 * by the end of the events is left without its closing brace, as perf does). */
static void print_group_desc(struct rh *h)
{
	struct rh_env *e = &h->env;
	uint32_t k, nr = 0;
	char buf[128];

	rh_events_sync(h);
	for (k = 0; k < e->nr_ev; k++) {
		if (e->ev[k].leader == k && e->ev[k].nr_members > 1) {
			printf("# group: %s{%s", e->ev[k].group ? e->ev[k].group : "",
			       rh_event_name(h, k, buf, sizeof(buf)));
			nr = e->ev[k].nr_members - 1;
		} else if (nr) {
			printf(",%s", rh_event_name(h, k, buf, sizeof(buf)));
			if (--nr == 0)
				printf("}\n");
		}
	}
}

static void print_sample_time(struct rh *h)
{
	uint64_t first = h->env.first_sample, last = h->env.last_sample;

	printf("# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", first / NS, first % NS / 1000);
	printf("# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", last / NS, last % NS / 1000);
	printf("# sample duration : %10.3f ms\n", (double)(last - first) / 1000000);
}

static const char *rh_clock_name(uint32_t id)
{
	const char *name = pd_clock_name((int32_t)id);

	return name ? name : "(not found)";
}

/* The date of CLOCK_DATA's wall-clock time in local time, to the microsecond. */
static void print_clock_data(struct rh *h)
{
	const struct rh_env *e = &h->env;
	time_t sec = (time_t)(e->tod_ns / NS);
	unsigned usec = (unsigned)(e->tod_ns % NS / 1000);
	char date[64], when[96];
	struct tm tm;

	if (!e->clock_enabled) {
		printf("# reference time disabled\n");
		return;
	}
	if (localtime_r(&sec, &tm)) {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(when, sizeof(when), "%s.%06u", date, usec);
	} else {
		snprintf(when, sizeof(when), "<error>");
	}
	printf("# clockid: %s (%u)\n", rh_clock_name(e->clockid), e->clockid);
	printf("# reference time: %s = %ld.%06u (TOD) = %ld.%09ld (%s)\n", when, (long)sec, usec,
	       (long)(e->clock_ns / NS), (long)(e->clock_ns % NS), rh_clock_name(e->clockid));
}

static void print_caps(const struct rh_caps *c, const char *pmu)
{
	uint32_t i;

	if (!c->nr) {
		printf("# %s pmu capabilities: not available\n", pmu);
		return;
	}
	printf("# %s pmu capabilities: ", pmu);
	for (i = 0; i < c->nr; i++)
		printf("%s%s", i ? ", " : "", c->caps[i]);
	printf("\n");
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
		printf("# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n", prog->id, name, rd64(addrs, false),
		       rd32(lens, false));
		return;
	}
	printf("# bpf_prog_info %u:\n", prog->id);
	for (i = 0; i < nr; i++) {
		bpf_prog_name(name, sizeof(name), prog, btf, tags, i, nr);
		printf("# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n", i, name, rd64(addrs + 8 * (size_t)i, false),
		       rd32(lens + 4 * (size_t)i, false));
	}
}

/* ---- the features: perf's feat_ops ---- */

struct rh_feat {
	const char *name;
	bool full_only; /* printed with -I only: a line says it is there */
	int (*process)(struct rh *h, struct rh_cur *c, int feat);
};

/* Nothing to decode: BRANCH_STACK and STAT are empty; TRACING_DATA and
 * BUILD_ID are taken as decoded (perf reads them for other commands, the
 * tracepoint formats and the build ids, and prints neither). */
static int proc_none(struct rh *h, struct rh_cur *c, int feat)
{
	return 0;
}

#define FEAT(n, full, proc) [F_##n] = { #n, full, proc }
static const struct rh_feat rh_feats[RH_LAST_FEATURE] = {
	FEAT(TRACING_DATA, false, proc_none),
	FEAT(BUILD_ID, false, proc_none),
	FEAT(HOSTNAME, false, proc_string),
	FEAT(OSRELEASE, false, proc_string),
	FEAT(VERSION, false, proc_string),
	FEAT(ARCH, false, proc_string),
	FEAT(NRCPUS, false, proc_nrcpus),
	FEAT(CPUDESC, false, proc_string),
	FEAT(CPUID, false, proc_string),
	FEAT(TOTAL_MEM, false, proc_total_mem),
	FEAT(CMDLINE, false, proc_cmdline),
	FEAT(EVENT_DESC, false, proc_event_desc),
	FEAT(CPU_TOPOLOGY, true, proc_cpu_topology),
	FEAT(NUMA_TOPOLOGY, true, proc_numa_topology),
	FEAT(BRANCH_STACK, false, proc_none),
	FEAT(PMU_MAPPINGS, false, proc_pmu_mappings),
	FEAT(GROUP_DESC, false, proc_group_desc),
	FEAT(AUXTRACE, false, proc_auxtrace),
	FEAT(STAT, false, proc_none),
	FEAT(CACHE, true, proc_cache),
	FEAT(SAMPLE_TIME, false, proc_sample_time),
	FEAT(MEM_TOPOLOGY, true, proc_mem_topology),
	FEAT(CLOCKID, false, proc_clockid),
	FEAT(DIR_FORMAT, false, proc_dir_format),
	FEAT(BPF_PROG_INFO, false, proc_bpf_prog_info),
	FEAT(BPF_BTF, false, proc_bpf_btf),
	FEAT(COMPRESSED, false, proc_compressed),
	FEAT(CPU_PMU_CAPS, false, proc_cpu_pmu_caps),
	FEAT(CLOCK_DATA, false, proc_clock_data),
	FEAT(HYBRID_TOPOLOGY, true, proc_hybrid_topology),
	FEAT(PMU_CAPS, false, proc_pmu_caps),
};
#undef FEAT

/* Print feature feat (its bytes for EVENT_DESC, which perf reads again);
 * false for the two perf has no printer for. */
static bool rh_print(struct rh *h, int feat, const struct rh_cur *c)
{
	struct rh_env *e = &h->env;
	uint32_t i;

	if (rh_feats[feat].full_only) {
		printf("# %s info available, use -I to display\n", rh_feats[feat].name);
		return true;
	}
	switch (feat) {
	case F_HOSTNAME: print_string(h, "hostname", feat); break;
	case F_OSRELEASE: print_string(h, "os release", feat); break;
	case F_VERSION: print_string(h, "perf version", feat); break;
	case F_ARCH: print_string(h, "arch", feat); break;
	case F_NRCPUS: print_nrcpus(h); break;
	case F_CPUDESC: print_string(h, "cpudesc", feat); break;
	case F_CPUID: print_string(h, "cpuid", feat); break;
	case F_TOTAL_MEM: printf("# total memory : %" PRIu64 " kB\n", e->total_mem); break;
	case F_CMDLINE: print_cmdline(h); break;
	case F_EVENT_DESC: report_event_desc_print(c->p, c->len, h->swapped, stdout); break;
	case F_BRANCH_STACK: printf("# contains samples with branch stack\n"); break;
	case F_PMU_MAPPINGS: print_pmu_mappings(h); break;
	case F_GROUP_DESC: print_group_desc(h); break;
	case F_AUXTRACE: printf("# contains AUX area data (e.g. instruction trace)\n"); break;
	case F_STAT: printf("# contains stat data\n"); break;
	case F_SAMPLE_TIME: print_sample_time(h); break;
	case F_CLOCKID: printf("# clockid frequency: %" PRIu64 " MHz\n", e->clock_res_ns * 1000); break;
	case F_DIR_FORMAT: printf("# directory data version : %" PRIu64 "\n", e->dir_version); break;
	case F_BPF_PROG_INFO:
		for (i = 0; i < e->progs.nr; i++)
			print_bpf_prog(h, &e->progs.v[i]);
		break;
	case F_BPF_BTF:
		for (i = 0; i < e->btfs.nr; i++)
			printf("# btf info of id %u\n", e->btfs.v[i].id);
		break;
	case F_COMPRESSED:
		printf("# compressed : %s, level = %d, ratio = %d\n", e->comp_type == 1 ? "Zstd" : "Unknown",
		       (int)e->comp_level, (int)e->comp_ratio);
		break;
	case F_CPU_PMU_CAPS: print_caps(&e->cpu_caps, "cpu"); break;
	case F_CLOCK_DATA: print_clock_data(h); break;
	case F_PMU_CAPS:
		for (i = 0; i < e->nr_pmu_caps; i++)
			print_caps(&e->pmu_caps[i], e->pmu_caps[i].pmu);
		break;
	default:
		return false;
	}
	return true;
}

/* ---- the input ---- */

struct rh_input {
	int fd;
	bool close_fd, dir;
	uint8_t *buf; /* a stream (not a regular file), read into memory */
	void *map;    /* a regular file in file mode, mapped */
	const uint8_t *all; /* the whole input: buf or map */
	size_t len;
	time_t mtime;
	uint8_t hdr[RH_FILE_HEADER];
};

/* Whether a pipe-mode stream in buf reaches the record that ends its
 * features (perf stops reading there, and so can this); *at: where the
 * whole records seen so far end. A stream in file mode, or with a record
 * whose payload follows it, is read to its end. */
static bool rh_stream_done(const uint8_t *b, size_t len, size_t *at)
{
	uint64_t magic;
	bool sw;

	if (len < 16)
		return false;
	memcpy(&magic, b, 8);
	sw = magic != RH_MAGIC;
	if ((sw && __builtin_bswap64(magic) != RH_MAGIC) || rd64(b + 8, sw) != 16)
		return false;
	if (*at < 16)
		*at = 16;
	while (len - *at >= 8) {
		uint32_t type = rd32(b + *at, sw), size = rd16(b + *at + 6, sw);

		if (size < 8 || type == PERFRING_RECORD_HEADER_TRACING_DATA || type == PERFRING_RECORD_AUXTRACE)
			return false;
		if (len - *at < size)
			return false;
		if (type == PERFRING_RECORD_HEADER_FEATURE && size >= 16 && rd64(b + *at + 8, sw) >= RH_LAST_FEATURE)
			return true;
		*at += size;
	}
	return false;
}

static int rh_read_stream(const char *cmd, const char *path, struct rh_input *in)
{
	size_t cap = 0, at = 0;
	struct stat st;

	for (;;) {
		ssize_t n;

		if (cap - in->len < 65536) {
			uint8_t *b = realloc(in->buf, cap ? cap * 2 : 1 << 20);

			if (!b)
				return tool_error(cmd, "%s: no memory to read the stream", path);
			in->buf = b;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = read(in->fd, in->buf + in->len, cap - in->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tool_error(cmd, "%s: %s", path, strerror(errno));
		if (n == 0)
			break;
		if (in->len == 0 && fstat(in->fd, &st) == 0)
			in->mtime = st.st_mtime; /* perf looks once the header is read */
		in->len += (size_t)n;
		if (rh_stream_done(in->buf, in->len, &at))
			break;
	}
	return 0;
}

static struct perfring_perfdata *rh_open(const char *cmd, const char *path, struct rh_input *in)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts) };
	struct perfring_perfdata *pd;
	char data[4096];
	struct stat st;
	const char *msg;

	/* a directory (perf record --threads): its header is in its file "data" */
	in->dir = strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	snprintf(data, sizeof(data), "%s/data", path);
	in->fd = strcmp(path, "-") ? open(in->dir ? data : path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (in->fd < 0) {
		tool_error(cmd, "%s: perf.data: cannot open %s: %s", path, in->dir ? data : path, strerror(errno));
		return NULL;
	}
	in->close_fd = in->fd != STDIN_FILENO;
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->mtime = st.st_mtime;
		pd = perfring_perfdata_open_fd(in->fd, &opts);
	} else {
		if (rh_read_stream(cmd, path, in))
			return NULL;
		pd = perfring_perfdata_open_mem(in->buf, in->len, &opts);
	}
	if (!pd) {
		msg = perfring_errmsg();
		tool_error(cmd, "%s: %s", path, msg && *msg ? msg : strerror(errno));
		return NULL;
	}
	if (perfring_perfdata_is_pipe(pd))
		return pd;
	/* File mode: the whole file, for the header and the feature sections
	 * (the reader checked that the header is there). */
	if (!in->buf) {
		in->len = (size_t)st.st_size;
		in->map = mmap(NULL, in->len, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (in->map == MAP_FAILED) {
			in->map = NULL;
			tool_error(cmd, "%s: cannot map it: %s", path, strerror(errno));
			perfring_perfdata_free(pd);
			return NULL;
		}
	}
	in->all = in->buf ? in->buf : in->map;
	memcpy(in->hdr, in->all, RH_FILE_HEADER);
	return pd;
}

/* ---- the two modes ---- */

static void rh_print_file_header(const struct rh_input *in, bool pipe, bool swapped)
{
	uint64_t off = pipe ? 0 : rd64(in->hdr + 40, swapped), size = pipe ? 0 : rd64(in->hdr + 48, swapped);
	char when[64];

	printf("# ========\n");
	printf("# captured on    : %s", ctime_r(&in->mtime, when) ? when : "(null)\n");
	printf("# header version : 1\n"); /* PERF_HEADER_VERSION_2: the "PERFILE2" magic */
	printf("# data offset    : %" PRIu64 "\n", off);
	printf("# data size      : %" PRIu64 "\n", size);
	printf("# feat offset    : %" PRIu64 "\n", off + size);
}

/* File mode: perf's feature table, after the data section: {offset, size}
 * per feature bit set, in bit order. An entry past the end of the file reads
 * as {0, 0}, as perf's short read leaves it; a table wholly past it as none. */
static bool rh_sections(struct rh *h, const struct rh_input *in, struct rh_cur sec[RH_LAST_FEATURE])
{
	uint64_t at = rd64(in->hdr + 40, h->swapped) + rd64(in->hdr + 48, h->swapped);
	int bit, k = 0;

	if (at >= in->len)
		return false;
	for (bit = 0; bit < 256; bit++) {
		uint64_t e = at + 16 * (uint64_t)k, off = 0, size = 0;

		if (!perfring_perfdata_has_feature(h->pd, bit))
			continue;
		k++;
		if (in->len - at >= 16 * (uint64_t)k) {
			off = rd64(in->all + e, h->swapped);
			size = rd64(in->all + e + 8, h->swapped);
		}
		if (off > in->len)
			off = in->len; /* nothing to read there */
		if (bit < RH_LAST_FEATURE)
			sec[bit] = (struct rh_cur){ in->all + off, in->len - off, 0, h->swapped, size };
	}
	return true;
}

/* File mode: process every section in feature order up to the first perf
 * fails on, then print every feature the file has, then those it lacks. */
static void rh_file_features(struct rh *h, const struct rh_input *in)
{
	struct rh_cur sec[RH_LAST_FEATURE] = { { 0 } };
	bool stop = false, table = rh_sections(h, in, sec);
	int feat;

	for (feat = 1; feat < RH_LAST_FEATURE && table; feat++) {
		struct rh_cur c = sec[feat];

		if (perfring_perfdata_has_feature(h->pd, feat) && !stop && rh_feats[feat].process(h, &c, feat))
			stop = true;
	}
	for (feat = 1; feat < RH_LAST_FEATURE && table; feat++)
		if (perfring_perfdata_has_feature(h->pd, feat))
			rh_print(h, feat, &sec[feat]);
	printf("# missing features: ");
	for (feat = 1; feat < RH_LAST_FEATURE; feat++)
		if (!perfring_perfdata_has_feature(h->pd, feat))
			printf("%s ", rh_feats[feat].name);
	printf("\n");
}

/* Pipe mode: each FEATURE record processed then printed as it comes, up
 * to the one that ends them (or the end of the stream). */
static int rh_pipe_features(struct rh *h, const char *cmd, const char *path)
{
	struct perfring_perfdata_record r;
	int ret;

	while ((ret = perfring_perfdata_next(h->pd, &r)) > 0) {
		struct rh_cur c;
		uint64_t feat;

		if (r.type >= PERFRING_RECORD_COMPRESSED2 && !r.from_compressed) {
			/* past perf 6.1's PERF_RECORD_HEADER_MAX: it stops there */
			fflush(stdout);
			return tool_error(cmd, "%s: at offset 0x%llx: a record of type %u, unknown to perf 6.1", path,
					  (unsigned long long)r.offset, r.type);
		}
		if (r.type == PERFRING_RECORD_EVENT_UPDATE)
			rh_event_update(h, &r);
		if (r.type != PERFRING_RECORD_HEADER_FEATURE || r.size < 16)
			continue;
		feat = rd64((const uint8_t *)r.data + 8, h->swapped);
		if (feat >= RH_LAST_FEATURE)
			return EXIT_OK;
		c = (struct rh_cur){ (const uint8_t *)r.data + 16, r.size - 16u, 0, h->swapped, r.size - 16u };
		if (feat == 0 || rh_feats[feat].process(h, &c, (int)feat)) {
			fflush(stdout);
			return tool_error(cmd, "%s: at offset 0x%llx: feature %s: perf cannot decode it", path,
					  (unsigned long long)r.offset, feat ? rh_feats[feat].name : "0");
		}
		c.pos = 0;
		if (!rh_print(h, (int)feat, &c))
			printf("# %s", rh_feats[feat].name); /* perf's words when it has no printer */
	}
	if (ret < 0) {
		fflush(stdout);
		return pd_read_error(cmd, path, h->pd, ret);
	}
	return EXIT_OK;
}

int report_header(const char *cmd, const char *path)
{
	struct rh_input in = { .fd = -1 };
	struct rh h = { 0 };
	bool pipe;
	int ret = EXIT_OK;

	h.pd = rh_open(cmd, path, &in);
	if (h.pd) {
		h.swapped = perfring_perfdata_is_swapped(h.pd);
		h.dir = in.dir;
		pipe = perfring_perfdata_is_pipe(h.pd);
		if (rh_events_sync(&h)) {
			ret = tool_error(cmd, "%s: no memory for the events", path);
		} else {
			rh_print_file_header(&in, pipe, h.swapped);
			if (!pipe)
				rh_file_features(&h, &in);
			printf("# ========\n#\n");
			if (pipe)
				ret = rh_pipe_features(&h, cmd, path);
		}
		perfring_perfdata_free(h.pd);
	} else {
		ret = EXIT_ERROR;
	}
	rh_free(&h);
	free(in.buf);
	if (in.map)
		munmap(in.map, in.len);
	if (in.close_fd)
		close(in.fd);
	return ret;
}

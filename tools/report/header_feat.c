// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the features, perf's feat_ops. For each
 * feature, how perf 6.1 decodes it (proc_*(), perf's process_*(): into
 * struct rh_env, or only checked where perf prints nothing from it) and how
 * it prints it (print_*(), rh_print()), and the table of their names. The
 * driver (report_header.c) calls them in perf's order: in file mode for
 * each section, in pipe mode for each feature record. The BPF programs and
 * BTFs are report_bpf.c's, the events' names and groups report_events.c's,
 * the EVENT_DESC lines report_attr.c's.
 *
 * Why it is safe: every length and count comes from the file and is read
 * through struct bytecur (report_header.h), which checks it against the bytes
 * left; a count is bounded by those bytes before anything is allocated for
 * it. What the decoding keeps is allocated through rh_keep(), which is here
 * too, and freed at once by rh_free() at the end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared/pd_common.h"
#include "report/header.h"

#define NS ((uint64_t)1000000000)

/* ---- keeping, reading strings ---- */

/* Remember p (freed by rh_free()); NULL stays NULL. */
void *rh_keep(struct rh *h, void *p)
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

void *rh_alloc(struct rh *h, size_t n, size_t size)
{
	return rh_keep(h, calloc(n ? n : 1, size));
}

void rh_free(struct rh *h)
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

/* perf's string: u32 length, then that many bytes, NUL-padded. *len: the
 * text's length (to its first NUL). */
static bool rh_strview(struct bytecur *c, const char **s, size_t *len)
{
	const uint8_t *p;
	uint32_t n;

	if (!bytecur_u32(c, &n) || !bytecur_take(c, n, &p))
		return false;
	*s = (const char *)p;
	*len = strnlen(*s, n);
	return true;
}

/* A string kept as a C string; NULL when short or out of memory. */
static char *rh_string(struct rh *h, struct bytecur *c)
{
	const char *s;
	size_t len;

	if (!rh_strview(c, &s, &len))
		return NULL;
	return rh_keep(h, strndup(s, len));
}

/* Skip n strings; adds perf's idea of their size (text and NUL rounded up
 * to 64, plus the length word) to *size when given. */
static bool rh_skip_strings(struct bytecur *c, uint32_t n, uint64_t *size)
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

/* ---- process: perf's process_*() ---- */

static int proc_string(struct rh *h, struct bytecur *c, int feat)
{
	h->env.str[feat] = rh_string(h, c);
	return h->env.str[feat] ? 0 : -1;
}

static int proc_nrcpus(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t avail, online;

	if (!bytecur_u32(c, &avail) || !bytecur_u32(c, &online))
		return -1;
	h->env.nr_cpus_avail = avail;
	h->env.nr_cpus_online = online;
	return 0;
}

static int proc_total_mem(struct rh *h, struct bytecur *c, int feat)
{
	return bytecur_u64(c, &h->env.total_mem) ? 0 : -1;
}

static int proc_cmdline(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t nr, i;
	char **argv;

	if (!bytecur_u32(c, &nr) || nr > bytecur_left(c) / 4 || !(argv = rh_alloc(h, nr, sizeof(*argv))))
		return -1;
	for (i = 0; i < nr; i++)
		if (!(argv[i] = rh_string(h, c)))
			return -1;
	h->env.cmdline = argv;
	h->env.nr_cmdline = nr;
	return 0;
}

/* Names the events by index, those not named yet; never fails (perf's process_event_desc()). */
static int proc_event_desc(struct rh *h, struct bytecur *c, int feat)
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
static int proc_cpu_topology(struct rh *h, struct bytecur *c, int feat)
{
	const char *arch = h->env.str[F_ARCH];
	uint32_t nr, cpus = h->env.nr_cpus_avail, i;
	/* perf 6.1 takes a socket id past the CPU count for a newer format,
	 * but on s390 and aarch64, whose ids are not CPU numbers */
	bool any_socket = arch && (!strncmp(arch, "s390", 4) || !strncmp(arch, "aarch64", 7));
	uint64_t size = 0;

	for (i = 0; i < 2; i++) {
		if (!bytecur_u32(c, &nr) || !rh_skip_strings(c, nr, &size))
			return -1;
		size += 4;
	}
	if (c->size <= size)
		return 0;
	for (i = 0; i < cpus; i++) {
		uint32_t core, socket;

		if (!bytecur_u32(c, &core) || !bytecur_u32(c, &socket) || (!any_socket && socket != UINT32_MAX && socket > cpus))
			return -1;
	}
	size += (uint64_t)cpus * 8;
	if (c->size <= size)
		return 0;
	if (!bytecur_u32(c, &nr) || !rh_skip_strings(c, nr, NULL) || !bytecur_take(c, (uint64_t)cpus * 4, NULL))
		return -1;
	return 0;
}

static int proc_numa_topology(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t nr;

	if (!bytecur_u32(c, &nr))
		return -1;
	while (nr--)
		if (!bytecur_take(c, 4 + 8 + 8, NULL) || !rh_skip_strings(c, 1, NULL))
			return -1;
	return 0;
}

static int proc_pmu_mappings(struct rh *h, struct bytecur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t nr, i, *type;
	char **name;

	if (!bytecur_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > bytecur_left(c) / 8 || !(type = rh_alloc(h, nr, sizeof(*type))) || !(name = rh_alloc(h, nr, sizeof(*name))))
		return -1;
	for (i = 0; i < nr; i++)
		if (!bytecur_u32(c, &type[i]) || !(name[i] = rh_string(h, c)))
			return -1;
	e->nr_pmus = nr;
	e->pmu_type = type;
	e->pmu_name = name;
	return 0;
}

/* perf's process_group_desc(): the groups (name, leader index, members) read
 * whole, then laid over the events in order. What it set before finding the
 * groups inconsistent stays set, as in perf. */
static int proc_group_desc(struct rh *h, struct bytecur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t nr_groups, i, k, nr = 0, leader = 0;
	struct {
		char *name;
		uint32_t leader, nr_members;
	} *g;

	if (!bytecur_u32(c, &nr_groups))
		return -1;
	if (!nr_groups)
		return 0;
	if (nr_groups > bytecur_left(c) / 12 || !(g = rh_alloc(h, nr_groups, sizeof(*g))) || rh_events_sync(h))
		return -1;
	for (i = 0; i < nr_groups; i++)
		if (!(g[i].name = rh_string(h, c)) || !bytecur_u32(c, &g[i].leader) || !bytecur_u32(c, &g[i].nr_members))
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

static int proc_auxtrace(struct rh *h, struct bytecur *c, int feat)
{
	uint64_t nr;

	/* u64 count, then 16-byte entries that must fit the section */
	if (!bytecur_u64(c, &nr) || c->size < 8 || nr > (c->size - 8) / 16 || !bytecur_take(c, nr * 16, NULL))
		return -1;
	return 0;
}

static int proc_cache(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t version, nr;

	if (!bytecur_u32(c, &version) || version != 1 || !bytecur_u32(c, &nr))
		return -1;
	while (nr--)
		if (!bytecur_take(c, 16, NULL) || !rh_skip_strings(c, 3, NULL))
			return -1;
	return 0;
}

static int proc_sample_time(struct rh *h, struct bytecur *c, int feat)
{
	uint64_t first, last;

	if (!bytecur_u64(c, &first) || !bytecur_u64(c, &last))
		return -1;
	h->env.first_sample = first;
	h->env.last_sample = last;
	return 0;
}

static int proc_mem_topology(struct rh *h, struct bytecur *c, int feat)
{
	uint64_t version, bsize, nr, bits;

	if (!bytecur_u64(c, &version) || version != 1 || !bytecur_u64(c, &bsize) || !bytecur_u64(c, &nr))
		return -1;
	while (nr--)
		if (!bytecur_take(c, 16, NULL) || !bytecur_u64(c, &bits) || !bytecur_take(c, (bits / 64 + (bits % 64 != 0)) * 8, NULL))
			return -1;
	return 0;
}

static int proc_clockid(struct rh *h, struct bytecur *c, int feat)
{
	return bytecur_u64(c, &h->env.clock_res_ns) ? 0 : -1;
}

/* The version of a directory's format (perf record --threads): perf reads it
 * when given the directory, and fails when given a file or a pipe. */
static int proc_dir_format(struct rh *h, struct bytecur *c, int feat)
{
	return h->dir && bytecur_u64(c, &h->env.dir_version) ? 0 : -1;
}

static int proc_compressed(struct rh *h, struct bytecur *c, int feat)
{
	struct rh_env *e = &h->env;

	return bytecur_u32(c, &e->comp_ver) && bytecur_u32(c, &e->comp_type) && bytecur_u32(c, &e->comp_level) &&
			       bytecur_u32(c, &e->comp_ratio) && bytecur_u32(c, &e->comp_mmap_len)
		       ? 0
		       : -1;
}

/* u32 count, then name and value strings; kept as "name=value". */
static int rh_read_caps(struct rh *h, struct bytecur *c, struct rh_caps *caps)
{
	uint32_t nr, i;
	char **list;

	*caps = (struct rh_caps){ 0 };
	if (!bytecur_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > bytecur_left(c) / 8 || !(list = rh_alloc(h, nr, sizeof(*list))))
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

static int proc_cpu_pmu_caps(struct rh *h, struct bytecur *c, int feat)
{
	return rh_read_caps(h, c, &h->env.cpu_caps);
}

static int proc_clock_data(struct rh *h, struct bytecur *c, int feat)
{
	struct rh_env *e = &h->env;
	uint32_t version;

	if (!bytecur_u32(c, &version) || version != 1 || !bytecur_u32(c, &e->clockid) || !bytecur_u64(c, &e->tod_ns) ||
	    !bytecur_u64(c, &e->clock_ns))
		return -1;
	e->clock_enabled = true;
	return 0;
}

static int proc_hybrid_topology(struct rh *h, struct bytecur *c, int feat)
{
	uint32_t nr;

	if (!bytecur_u32(c, &nr))
		return -1;
	while (nr--)
		if (!rh_skip_strings(c, 2, NULL)) /* a PMU's name, its CPUs */
			return -1;
	return 0;
}

static int proc_pmu_caps(struct rh *h, struct bytecur *c, int feat)
{
	struct rh_caps *caps;
	uint32_t nr, i;

	if (!bytecur_u32(c, &nr))
		return -1;
	if (!nr)
		return 0;
	if (nr > bytecur_left(c) / 8 || !(caps = rh_alloc(h, nr, sizeof(*caps))))
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
	fprintf(h->out, "# %s : %s\n", what, h->env.str[feat] ? h->env.str[feat] : "(null)");
}

static void print_nrcpus(struct rh *h)
{
	fprintf(h->out, "# nrcpus online : %u\n", h->env.nr_cpus_online);
	fprintf(h->out, "# nrcpus avail : %u\n", h->env.nr_cpus_avail);
}

/* Each argument and a space; a quote as \' */
static void print_cmdline(struct rh *h)
{
	uint32_t i;

	fprintf(h->out, "# cmdline : ");
	for (i = 0; i < h->env.nr_cmdline; i++) {
		const char *s;

		for (s = h->env.cmdline[i]; *s; s++)
			if (*s == '\'')
				fputs("\\'", h->out);
			else
				fputc(*s, h->out);
		fputc(' ', h->out);
	}
	fputc('\n', h->out);
}

static void print_pmu_mappings(struct rh *h)
{
	uint32_t i;

	if (!h->env.nr_pmus) {
		fprintf(h->out, "# pmu mappings: not available\n");
		return;
	}
	for (i = 0; i < h->env.nr_pmus; i++)
		fprintf(h->out, "%s%s = %u", i ? ", " : "# pmu mappings: ", h->env.pmu_name[i], h->env.pmu_type[i]);
	fprintf(h->out, "\n");
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
			fprintf(h->out, "# group: %s{%s", e->ev[k].group ? e->ev[k].group : "",
			        rh_event_name(h, k, buf, sizeof(buf)));
			nr = e->ev[k].nr_members - 1;
		} else if (nr) {
			fprintf(h->out, ",%s", rh_event_name(h, k, buf, sizeof(buf)));
			if (--nr == 0)
				fprintf(h->out, "}\n");
		}
	}
}

static void print_sample_time(struct rh *h)
{
	uint64_t first = h->env.first_sample, last = h->env.last_sample;

	fprintf(h->out, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n", first / NS, first % NS / 1000);
	fprintf(h->out, "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n", last / NS, last % NS / 1000);
	fprintf(h->out, "# sample duration : %10.3f ms\n", (double)(last - first) / 1000000);
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
		fprintf(h->out, "# reference time disabled\n");
		return;
	}
	if (localtime_r(&sec, &tm)) {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(when, sizeof(when), "%s.%06u", date, usec);
	} else {
		snprintf(when, sizeof(when), "<error>");
	}
	fprintf(h->out, "# clockid: %s (%u)\n", rh_clock_name(e->clockid), e->clockid);
	fprintf(h->out, "# reference time: %s = %ld.%06u (TOD) = %ld.%09ld (%s)\n", when, (long)sec, usec,
	        (long)(e->clock_ns / NS), (long)(e->clock_ns % NS), rh_clock_name(e->clockid));
}

static void print_caps(FILE *out, const struct rh_caps *c, const char *pmu)
{
	uint32_t i;

	if (!c->nr) {
		fprintf(out, "# %s pmu capabilities: not available\n", pmu);
		return;
	}
	fprintf(out, "# %s pmu capabilities: ", pmu);
	for (i = 0; i < c->nr; i++)
		fprintf(out, "%s%s", i ? ", " : "", c->caps[i]);
	fprintf(out, "\n");
}

/* ---- the features: perf's feat_ops ---- */

struct rh_feat {
	const char *name;
	bool full_only; /* printed with -I only: a line says it is there */
	int (*process)(struct rh *h, struct bytecur *c, int feat);
};

/* Nothing to decode: BRANCH_STACK and STAT are empty; TRACING_DATA and
 * BUILD_ID are taken as decoded (perf reads them for other commands, the
 * tracepoint formats and the build ids, and prints neither). */
static int proc_none(struct rh *h, struct bytecur *c, int feat)
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
	FEAT(BPF_PROG_INFO, false, rh_proc_bpf_prog_info),
	FEAT(BPF_BTF, false, rh_proc_bpf_btf),
	FEAT(COMPRESSED, false, proc_compressed),
	FEAT(CPU_PMU_CAPS, false, proc_cpu_pmu_caps),
	FEAT(CLOCK_DATA, false, proc_clock_data),
	FEAT(HYBRID_TOPOLOGY, true, proc_hybrid_topology),
	FEAT(PMU_CAPS, false, proc_pmu_caps),
};
#undef FEAT

const char *rh_feat_name(int feat)
{
	return rh_feats[feat].name;
}

int rh_process(struct rh *h, int feat, struct bytecur *c)
{
	return rh_feats[feat].process(h, c, feat);
}

/* Print feature feat (its bytes for EVENT_DESC, which perf reads again);
 * false for the two perf has no printer for. */
bool rh_print(struct rh *h, int feat, const struct bytecur *c)
{
	struct rh_env *e = &h->env;
	uint32_t i;

	if (rh_feats[feat].full_only) {
		fprintf(h->out, "# %s info available, use -I to display\n", rh_feats[feat].name);
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
	case F_TOTAL_MEM: fprintf(h->out, "# total memory : %" PRIu64 " kB\n", e->total_mem); break;
	case F_CMDLINE: print_cmdline(h); break;
	case F_EVENT_DESC: report_event_desc_print(c->p, c->len, h->swapped, h->out); break;
	case F_BRANCH_STACK: fprintf(h->out, "# contains samples with branch stack\n"); break;
	case F_PMU_MAPPINGS: print_pmu_mappings(h); break;
	case F_GROUP_DESC: print_group_desc(h); break;
	case F_AUXTRACE: fprintf(h->out, "# contains AUX area data (e.g. instruction trace)\n"); break;
	case F_STAT: fprintf(h->out, "# contains stat data\n"); break;
	case F_SAMPLE_TIME: print_sample_time(h); break;
	case F_CLOCKID: fprintf(h->out, "# clockid frequency: %" PRIu64 " MHz\n", e->clock_res_ns * 1000); break;
	case F_DIR_FORMAT: fprintf(h->out, "# directory data version : %" PRIu64 "\n", e->dir_version); break;
	case F_BPF_PROG_INFO: rh_print_bpf_prog_info(h); break;
	case F_BPF_BTF:
		for (i = 0; i < e->btfs.nr; i++)
			fprintf(h->out, "# btf info of id %u\n", e->btfs.v[i].id);
		break;
	case F_COMPRESSED:
		fprintf(h->out, "# compressed : %s, level = %d, ratio = %d\n", e->comp_type == 1 ? "Zstd" : "Unknown",
		        (int)e->comp_level, (int)e->comp_ratio);
		break;
	case F_CPU_PMU_CAPS: print_caps(h->out, &e->cpu_caps, "cpu"); break;
	case F_CLOCK_DATA: print_clock_data(h); break;
	case F_PMU_CAPS:
		for (i = 0; i < e->nr_pmu_caps; i++)
			print_caps(h->out, &e->pmu_caps[i], e->pmu_caps[i].pmu);
		break;
	default:
		return false;
	}
	return true;
}

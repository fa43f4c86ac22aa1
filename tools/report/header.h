/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring report --header-only` (report_header.c, the driver): what its
 * files share. The decoded features (struct rh_env, perf's perf_env) and
 * the state of one run (struct rh); and each file's functions the others
 * call. Every section and record is read through the tool's checked byte
 * cursor (struct bytecur, tools/shared/bytecur.h), where the lengths from
 * the file are checked:
 *   report_feat.c    what the decoding keeps, the features' decoding and
 *                    printing, perf's feature table
 *   report_events.c  the events: their names and groups
 *   report_bpf.c     the BPF programs and their BTF
 *   report_attr.c    the EVENT_DESC section's event lines
 */
#ifndef PERFRING_TOOL_REPORT_HEADER_H
#define PERFRING_TOOL_REPORT_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <perfring/perfring.h>

#include "shared/bytecur.h"

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
	FILE *out; /* where the text goes */
	bool swapped, dir;
	struct rh_env env;
	void **kept;
	size_t nr_kept, cap_kept;
};

/* ---- report_feat.c ---- */

/* What the decoding keeps (rh_keep(), rh_alloc()) lives until rh_free(). */
void *rh_keep(struct rh *h, void *p);
void *rh_alloc(struct rh *h, size_t n, size_t size);
void rh_free(struct rh *h);
/* Feature feat (1 to RH_LAST_FEATURE - 1): its name as perf spells it
 * ("HOSTNAME"), its decoding into h->env (0, or -1 where perf fails), its
 * lines (false when perf has no printer for it). */
const char *rh_feat_name(int feat);
int rh_process(struct rh *h, int feat, struct bytecur *c);
bool rh_print(struct rh *h, int feat, const struct bytecur *c);

/* ---- report_events.c ---- */

/* h->env.ev for every event the reader knows; an event's name; an
 * EVENT_UPDATE record's new name for one. */
int rh_events_sync(struct rh *h);
const char *rh_event_name(struct rh *h, uint32_t i, char *buf, size_t len);
void rh_event_update(struct rh *h, const struct perfring_perfdata_record *r);

/* ---- report_bpf.c ---- */

/* The BPF_PROG_INFO and BPF_BTF features' decoding; BPF_PROG_INFO's lines. */
int rh_proc_bpf_prog_info(struct rh *h, struct bytecur *c, int feat);
int rh_proc_bpf_btf(struct rh *h, struct bytecur *c, int feat);
void rh_print_bpf_prog_info(struct rh *h);

/* ---- report_attr.c: the EVENT_DESC section ---- */

/* The "# event :" lines of the section's bytes (or perf's "not available" line). */
void report_event_desc_print(const void *data, size_t len, bool swapped, FILE *out);
/* The events' names, by index (*names and each name: the caller's to free); 0 or -1. */
int report_event_desc_names(const void *data, size_t len, bool swapped, char ***names, uint32_t *nr);

/* ---- report_header.c ---- */

/* report_header() (tools/shared/pd_common.h) with the text to out. */
int report_header_out(const char *cmd, const char *path, FILE *out);
/* The same for the bytes of a perf.data file or stream in memory (a fuzz
 * target's input); name stands for it in errors, its capture time is 0. */
int report_header_mem(const char *cmd, const char *name, const void *data, size_t len, FILE *out);

#endif

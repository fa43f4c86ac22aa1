// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers shared by the perf.data subcommands: names, opening, errors. */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <perfring/perfring.h>

#include "shared/pd_common.h"
#include "shared/tool.h"

/* perf's own names (tools/perf/util/event.c), so that counts can be compared
 * with `perf report --stats` line by line. Types perf 6.1 does not know
 * (CALLCHAIN_DEFERRED, COMPRESSED2) get the kernel's/newer perf's names. */
static const char *const pd_names[PD_TYPE_MAX] = {
	[1] = "MMAP",
	[2] = "LOST",
	[3] = "COMM",
	[4] = "EXIT",
	[5] = "THROTTLE",
	[6] = "UNTHROTTLE",
	[7] = "FORK",
	[8] = "READ",
	[9] = "SAMPLE",
	[10] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
	[22] = "CALLCHAIN_DEFERRED",
	[PERFRING_RECORD_HEADER_ATTR] = "ATTR",
	[PERFRING_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PERFRING_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
	[PERFRING_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
	[PERFRING_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
	[PERFRING_RECORD_ID_INDEX] = "ID_INDEX",
	[PERFRING_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PERFRING_RECORD_AUXTRACE] = "AUXTRACE",
	[PERFRING_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PERFRING_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PERFRING_RECORD_CPU_MAP] = "CPU_MAP",
	[PERFRING_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PERFRING_RECORD_STAT] = "STAT",
	[PERFRING_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PERFRING_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PERFRING_RECORD_TIME_CONV] = "TIME_CONV",
	[PERFRING_RECORD_HEADER_FEATURE] = "FEATURE",
	[PERFRING_RECORD_COMPRESSED] = "COMPRESSED",
	[PERFRING_RECORD_FINISHED_INIT] = "FINISHED_INIT",
	[PERFRING_RECORD_COMPRESSED2] = "COMPRESSED2",
};

const char *pd_type_name(uint32_t type)
{
	return type < PD_TYPE_MAX ? pd_names[type] : NULL;
}

struct perfring_perfdata *pd_open(const char *cmd, const char *path, bool ordered)
{
	/* No readahead thread: this tool's consumers either do nearly nothing
	 * per record (report --stats: 35 ms with it, 24 without, on the bench
	 * file, before the thread learnt to retire) or far more than reading
	 * it (script --dump: 1.27 s, 1.17 s: a second thread makes glibc's
	 * stdio lock at every call); the thread pays only when both sides have
	 * as much to do. */
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts), .ordered = ordered };

	return pd_open_opts(cmd, path, &opts);
}

struct perfring_perfdata *pd_open_opts(const char *cmd, const char *path, const struct perfring_perfdata_opts *opts)
{
	struct perfring_perfdata *pd;

	pd = perfring_perfdata_open(path, opts);
	if (!pd) {
		const char *msg = perfring_errmsg();

		tool_error(cmd, "%s: %s", path, msg && *msg ? msg : strerror(errno));
	}
	return pd;
}

int pd_read_error(const char *cmd, const char *path, struct perfring_perfdata *pd, int err)
{
	const char *msg = perfring_errmsg();

	/* The library's messages name the offset themselves; say it only for one that does not. */
	if (msg && *msg && strstr(msg, "offset"))
		return tool_error(cmd, "%s: %s", path, msg);
	return tool_error(cmd, "%s: at offset 0x%llx: %s", path,
			  (unsigned long long)perfring_perfdata_error_offset(pd),
			  msg && *msg ? msg : perfring_strerror(err));
}

static const char *const pd_hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const pd_sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

/*
 * The modifiers perf's evsel__add_modifiers() appends to a hardware or
 * software event's name: the contexts not excluded (k, u, h) when one is,
 * p per precise_ip level, H and G for host and guest when the guest choice
 * is not the default one; ":" before them.
 */
static void add_modifiers(const struct perf_event_attr *attr, char *buf, size_t len)
{
	size_t n = strlen(buf), start = n;
	bool guest_default = false;
	unsigned p;

#define PD_MOD(excluded, c)                    \
	do {                                   \
		if (!(excluded) && n + 2 < len) \
			buf[n++] = (c);         \
	} while (0)
	if (n + 1 >= len)
		return;
	buf[n++] = ':';
	if (attr->exclude_kernel || attr->exclude_user || attr->exclude_hv) {
		PD_MOD(attr->exclude_kernel, 'k');
		PD_MOD(attr->exclude_user, 'u');
		PD_MOD(attr->exclude_hv, 'h');
		guest_default = true;
	}
	if (attr->precise_ip) {
		for (p = 0; p < attr->precise_ip && p < 3; p++)
			PD_MOD(false, 'p');
		guest_default = true;
	}
	if (attr->exclude_host || attr->exclude_guest == guest_default) {
		PD_MOD(attr->exclude_host, 'H');
		PD_MOD(attr->exclude_guest, 'G');
	}
#undef PD_MOD
	buf[n == start + 1 ? start : n] = '\0';
}

const char *pd_attr_name(const struct perfring_perfdata_attr *a, char *buf, size_t len)
{
	const struct perf_event_attr *attr = a->attr;
	const char *base = NULL;

	if (attr && attr->type == PERF_TYPE_HARDWARE && attr->config < sizeof(pd_hw_names) / sizeof(pd_hw_names[0]))
		base = pd_hw_names[attr->config];
	if (attr && attr->type == PERF_TYPE_SOFTWARE && attr->config < sizeof(pd_sw_names) / sizeof(pd_sw_names[0]))
		base = pd_sw_names[attr->config];
	if (!base)
		return NULL;
	snprintf(buf, len, "%s", base);
	add_modifiers(attr, buf, len);
	return buf;
}

const char *pd_event_name(const struct perfring_perfdata_attr *a, char *buf, size_t len)
{
	const struct perf_event_attr *attr = a->attr;

	if (a->name)
		return a->name;
	if (pd_attr_name(a, buf, len))
		return buf;
	if (!attr)
		return "unknown";
	snprintf(buf, len, "%u:%#llx", attr->type, (unsigned long long)attr->config);
	return buf;
}

/* The clocks perf record -k names, and its shorthands (first name wins in pd_clock_name). */
static const struct {
	const char *name;
	int32_t id;
} pd_clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "realtime", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME },	  { "tai", CLOCK_TAI },			    { "mono", CLOCK_MONOTONIC },
	{ "raw", CLOCK_MONOTONIC_RAW },	  { "real", CLOCK_REALTIME },		    { "boot", CLOCK_BOOTTIME },
};
#define PD_NR_CLOCKS (sizeof(pd_clocks) / sizeof(pd_clocks[0]))

bool pd_max_stack_parse(const char *arg, int *max)
{
	uint64_t v;

	if (!tool_parse_u64(arg, 0, INT_MAX, &v))
		return false;
	*max = (int)v;
	return true;
}

bool pd_clock_parse(const char *s, int32_t *id)
{
	char *end;
	long v;
	size_t i;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end != s && !*end && !errno && v >= INT32_MIN && v <= INT32_MAX) {
		*id = (int32_t)v;
		return true;
	}
	if (strncasecmp(s, "CLOCK_", 6) == 0)
		s += 6;
	for (i = 0; i < PD_NR_CLOCKS; i++)
		if (strcasecmp(s, pd_clocks[i].name) == 0) {
			*id = pd_clocks[i].id;
			return true;
		}
	return false;
}

const char *pd_clock_name(int32_t id)
{
	size_t i;

	for (i = 0; i < PD_NR_CLOCKS; i++)
		if (pd_clocks[i].id == id)
			return pd_clocks[i].name;
	return NULL;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Event names to perf_event_attr type/config: built-in names, tracepoints, PMU terms. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/event.h>

#include "event/event_internal.h"
#include "common/internal.h"

#ifndef PERF_COUNT_SW_BPF_OUTPUT
#define PERF_COUNT_SW_BPF_OUTPUT 10
#endif
#ifndef PERF_COUNT_SW_CGROUP_SWITCHES
#define PERF_COUNT_SW_CGROUP_SWITCHES 11
#endif

#define PMU_SYSFS "/sys/bus/event_source/devices"

struct named_event {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
};

/* A path component taken from the caller's name: no separators, no "..". */
static bool safe_component(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || s[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

/* Read a small sysfs/tracefs file into buf, without the trailing newline. */
static int read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int parse_tracepoint(const char *name, const char *colon, struct perf_event_attr *attr)
{
	char tracefs[128], path[512], buf[64];
	size_t sys_len = (size_t)(colon - name);
	uint64_t id;
	int err;

	if (!safe_component(name, sys_len) || !safe_component(colon + 1, strlen(colon + 1)))
		return pr_fail(EINVAL, "bad tracepoint name '%s': want SYSTEM:EVENT, e.g. sched:sched_switch", name);
	err = perfring_tracefs_path(tracefs, sizeof(tracefs));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", tracefs, (int)sys_len, name, colon + 1);
	err = read_small_file(path, buf, sizeof(buf));
	if (err == -ENOENT)
		return pr_fail(ENOENT, "tracepoint '%s' not found: %s does not exist (list them in %s/available_events)",
			       name, path, tracefs);
	if (err)
		return pr_fail(-err, "tracepoint '%s': reading %s: %s", name, path, strerror(-err));
	if (parse_u64(buf, &id))
		return pr_fail(EINVAL, "tracepoint '%s': %s holds '%s', not an id", name, path, buf);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	return 0;
}

int pr_event_apply_format(const char *spec, uint64_t value, struct perf_event_attr *attr)
{
	const char *colon = strchr(spec, ':'), *p;
	uint64_t *field;
	unsigned int placed = 0;

	if (!colon)
		return -EINVAL;
	if ((size_t)(colon - spec) == 6 && !strncmp(spec, "config", 6))
		field = (uint64_t *)&attr->config;
	else if ((size_t)(colon - spec) == 7 && !strncmp(spec, "config1", 7))
		field = (uint64_t *)&attr->config1;
	else if ((size_t)(colon - spec) == 7 && !strncmp(spec, "config2", 7))
		field = (uint64_t *)&attr->config2;
	else
		return -EINVAL;
	/* Bit ranges in order: the value's low bits go to the first range. */
	for (p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, bit;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (bit = lo; bit <= hi; bit++, placed++) {
			uint64_t v = placed < 64 ? (value >> placed) & 1 : 0;

			*field = (*field & ~(1ULL << bit)) | (v << bit);
		}
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	if (placed < 64 && (value >> placed))
		return -ERANGE;
	return 0;
}

static int apply_pmu_term(const char *name, const char *pmu_dir, char *term, struct perf_event_attr *attr)
{
	char *eq = strchr(term, '=');
	char path[512], spec[128];
	uint64_t value = 1;
	int err;

	if (eq) {
		*eq = '\0';
		if (parse_u64(eq + 1, &value))
			return pr_fail(EINVAL, "event '%s': term '%s' has value '%s', not a number", name, term,
				       eq + 1);
	}
	if (!strcmp(term, "config")) {
		attr->config = value;
		return 0;
	}
	if (!strcmp(term, "config1")) {
		attr->config1 = value;
		return 0;
	}
	if (!strcmp(term, "config2")) {
		attr->config2 = value;
		return 0;
	}
	if (!safe_component(term, strlen(term)))
		return pr_fail(EINVAL, "event '%s': bad term '%s'", name, term);
	snprintf(path, sizeof(path), "%s/format/%s", pmu_dir, term);
	err = read_small_file(path, spec, sizeof(spec));
	if (err)
		return pr_fail(EINVAL, "event '%s': unknown term '%s' (%s: %s); use config=, config1=, config2= or "
			       "a term listed in %s/format", name, term, path, strerror(-err), pmu_dir);
	err = pr_event_apply_format(spec, value, attr);
	if (err == -ERANGE)
		return pr_fail(EINVAL, "event '%s': value 0x%llx of term '%s' does not fit in '%s'", name,
			       (unsigned long long)value, term, spec);
	if (err)
		return pr_fail(EINVAL, "event '%s': cannot use format '%s' of %s", name, spec, path);
	return 0;
}

int pr_event_parse_pmu(const char *name, const char *sysfs_root, struct perf_event_attr *attr)
{
	const char *slash = strchr(name, '/');
	size_t len = strlen(name), pmu_len = (size_t)(slash - name);
	char pmu_dir[384], path[512], buf[64], terms[256], *term, *save = NULL;
	uint64_t type;
	int err;

	if (len < pmu_len + 2 || name[len - 1] != '/' || !safe_component(name, pmu_len))
		return pr_fail(EINVAL, "bad PMU event '%s': want PMU/TERM=VALUE,.../, e.g. software/config=0/", name);
	snprintf(pmu_dir, sizeof(pmu_dir), "%s/%.*s", sysfs_root, (int)pmu_len, name);
	snprintf(path, sizeof(path), "%s/type", pmu_dir);
	err = read_small_file(path, buf, sizeof(buf));
	if (err)
		return pr_fail(ENOENT, "event '%s': no PMU '%.*s' (%s: %s); the PMUs are the entries of %s", name,
			       (int)pmu_len, name, path, strerror(-err), sysfs_root);
	if (parse_u64(buf, &type) || type > UINT32_MAX)
		return pr_fail(EINVAL, "event '%s': %s holds '%s', not a PMU type", name, path, buf);
	attr->type = (uint32_t)type;
	if (len - pmu_len - 2 >= sizeof(terms))
		return pr_fail(EINVAL, "event '%s': terms too long", name);
	memcpy(terms, slash + 1, len - pmu_len - 2);
	terms[len - pmu_len - 2] = '\0';
	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		err = apply_pmu_term(name, pmu_dir, term, attr);
		if (err)
			return err;
	}
	return 0;
}

static bool named_event(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++)
		if (strlen(named_events[i].name) == len && !strncmp(name, named_events[i].name, len))
			return true;
	return false;
}

/*
 * perf's event modifiers at the end of a name: "cycles:u", "sched:sched_switch:k",
 * "cpu/config=0/uk": u (user), k (kernel), h (hypervisor) select the
 * privilege levels counted (any of them: the others are excluded), each p
 * raises precise_ip. Returns the length of the name without them.
 */
static size_t event_modifiers(const char *name, struct perf_event_attr *mods, bool *any)
{
	size_t len = strlen(name), base = len, i;
	const char *slash = strrchr(name, '/'), *colon = strrchr(name, ':');
	bool u = false, k = false, h = false;

	*any = false;
	if (slash && slash != name + len - 1) {
		base = (size_t)(slash - name) + 1;
	} else if (!slash && colon && colon[1]) {
		/* only when what precedes is an event: a known name or SYS:EVENT */
		if (!named_event(name, (size_t)(colon - name)) && !memchr(name, ':', (size_t)(colon - name)))
			return len;
		base = (size_t)(colon - name);
	} else {
		return len;
	}
	for (i = base + (name[base] == ':'); i < len; i++) {
		switch (name[i]) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p':
			if (mods->precise_ip < 3)
				mods->precise_ip++;
			break;
		default:
			return len; /* not modifiers: let the name fail as a whole */
		}
	}
	if (u || k || h) {
		mods->exclude_user = !u;
		mods->exclude_kernel = !k;
		mods->exclude_hv = !h;
	}
	*any = true;
	return base;
}

int perfring_event_parse(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr mods;
	const char *colon;
	char base[512];
	size_t i, n;
	bool any;
	int err;

	if (!name || !attr)
		return pr_fail(EINVAL, "perfring_event_parse: name and attr must not be NULL");
	memset(&mods, 0, sizeof(mods));
	n = event_modifiers(name, &mods, &any);
	if (any) {
		if (n >= sizeof(base))
			return pr_fail(EINVAL, "event name '%.64s...' is too long", name);
		memcpy(base, name, n);
		base[n] = '\0';
		err = perfring_event_parse(base, attr);
		if (err)
			return err;
		attr->exclude_user = mods.exclude_user;
		attr->exclude_kernel = mods.exclude_kernel;
		attr->exclude_hv = mods.exclude_hv;
		attr->precise_ip = mods.precise_ip;
		return 0;
	}
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	for (i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++) {
		if (!strcmp(name, named_events[i].name)) {
			attr->type = named_events[i].type;
			attr->config = named_events[i].config;
			return 0;
		}
	}
	if (strchr(name, '/'))
		return pr_event_parse_pmu(name, PMU_SYSFS, attr);
	colon = strchr(name, ':');
	if (colon)
		return parse_tracepoint(name, colon, attr);
	return pr_fail(ENOENT,
		       "unknown event '%s': use a name such as cpu-clock, task-clock, page-faults, "
		       "context-switches, cycles or instructions, a tracepoint SYSTEM:EVENT (e.g. sched:sched_switch), "
		       "or PMU/config=N/ (e.g. software/config=0/)",
		       name);
}

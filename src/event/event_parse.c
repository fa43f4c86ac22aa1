// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Event names to perf_event_attr type/config: built-in names, tracepoints, PMU terms,
 * breakpoints, perf's modifiers; tracepoint globs expanded. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

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

	if (strpbrk(name, "*?["))
		return pr_fail(EINVAL, "tracepoint glob '%s' names several events: expand it with perfring_event_expand()",
			       name);
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

/* perf's breakpoint events: "mem:ADDR[/LEN][:ACCESS]...". */
static bool is_breakpoint(const char *name)
{
	return !strncmp(name, "mem:", 4);
}

/*
 * Whether name is a tracepoint "SYS:EVENT[:MODIFIERS]" by its shape (no
 * PMU slash, not a breakpoint, and not a built-in name with modifiers such
 * as "cpu-clock:u"), and where its EVENT part ends (the colon before the
 * modifiers, or the end).
 */
static bool tracepoint_shape(const char *name, size_t *event_end)
{
	const char *colon = strchr(name, ':'), *mods;

	if (!colon || strchr(name, '/') || is_breakpoint(name) || named_event(name, (size_t)(colon - name)))
		return false;
	mods = strchr(colon + 1, ':');
	*event_end = mods ? (size_t)(mods - name) : strlen(name);
	return true;
}

/*
 * perf's event modifiers (perf 6.1's parse-events), letters after the
 * event: u, k, h count in user space, the kernel, the hypervisor (any
 * given: the others are excluded); G, H count in the guest, the host (any
 * given: the other is excluded; without them u or p exclude the guest, as
 * perf does); I excludes the idle task; each p raises precise_ip (up to 3),
 * P asks for the highest the PMU takes (3, lowered at open until it
 * opens); S reads the counter into each sample (PERF_SAMPLE_READ); D pins
 * the event, e makes it exclusive; W (weak group) and b (BPF counter) change
 * nothing in the attr. Each letter but p at most once, at most 15 in all.
 */
static int apply_modifiers(const char *event, const char *mods, struct perf_event_attr *attr,
			   struct pr_event_extra *x)
{
	static const char letters[] = "ukhGHpPSDIWeb";
	bool u = false, k = false, h = false, guest = false, host = false;
	unsigned int p = 0;
	const char *c;

	if (!*mods)
		return 0; /* none: perf's defaults stay */
	if (strlen(mods) > 15)
		return pr_fail(EINVAL, "event '%s': modifiers '%s' are too many (at most 15 letters of %s)", event,
			       mods, letters);
	for (c = mods; *c; c++) {
		if (!strchr(letters, *c))
			return pr_fail(EINVAL,
				       "event '%s': unknown modifier '%c' (perf's modifiers: u k h G H I p P S D W e b)",
				       event, *c);
		if (*c != 'p' && strchr(c + 1, *c))
			return pr_fail(EINVAL, "event '%s': modifier '%c' given twice", event, *c);
		switch (*c) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': guest = true; break;
		case 'H': host = true; break;
		case 'I': attr->exclude_idle = 1; break;
		case 'p': p++; break;
		case 'P':
			attr->precise_ip = 3;
			if (x)
				x->precise_max = true;
			break;
		case 'S':
			/* the counter's value with each sample, told apart by its id */
			attr->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
			attr->read_format |= PERF_FORMAT_ID;
			break;
		case 'D': attr->pinned = 1; break;
		case 'e': attr->exclusive = 1; break;
		default: break; /* W, b: nothing in the attr */
		}
	}
	if (p > 3)
		return pr_fail(EINVAL, "event '%s': %u p modifiers (precise_ip is 0 to 3: p, pp or ppp)", event, p);
	if (p)
		attr->precise_ip = p;
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (guest || host) {
		attr->exclude_guest = !guest;
		attr->exclude_host = !host;
	} else {
		attr->exclude_guest = u || p;
	}
	return 0;
}

/* "123" or "0x7b" (perf's num_dec and num_hex) at s; the end in *end. */
static int parse_number(const char *s, const char **end, uint64_t *out)
{
	char *e;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (!(hex ? isxdigit((unsigned char)s[2]) : isdigit((unsigned char)s[0])))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &e, hex ? 16 : 10);
	if (errno)
		return -EINVAL;
	*end = e;
	return 0;
}

/*
 * perf's hardware breakpoints "mem:ADDR[/LEN][:ACCESS][[:]MODIFIERS]":
 * ACCESS is r, w, x in any order, each at most once (default rw), LEN the
 * bytes watched (default 4, or sizeof(long) for x); the kernel checks the
 * combination when the event opens.
 */
static int parse_breakpoint(const char *name, struct perf_event_attr *attr, struct pr_event_extra *x)
{
	const char *p, *mods = "";
	uint64_t addr, len = 0;
	unsigned int access = 0, bit;

	if (parse_number(name + 4, &p, &addr))
		return pr_fail(EINVAL, "bad breakpoint '%s': want mem:ADDR[/LEN][:rwx], e.g. mem:0x404030/8:w", name);
	if (*p == '/' && parse_number(p + 1, &p, &len))
		return pr_fail(EINVAL, "breakpoint '%s': bad length after '/' (want a number, e.g. /8)", name);
	if (*p == ':') {
		for (p++; *p == 'r' || *p == 'w' || *p == 'x'; p++) {
			bit = *p == 'r' ? HW_BREAKPOINT_R : *p == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
			if (access & bit)
				return pr_fail(EINVAL, "breakpoint '%s': access '%c' given twice", name, *p);
			access |= bit;
		}
		if (*p == ':' && access)
			p++;
		if (!*p && p[-1] == ':')
			return pr_fail(EINVAL, "breakpoint '%s': nothing after ':' (want r, w, x or modifiers)", name);
		mods = p;
	} else if (*p) {
		return pr_fail(EINVAL, "bad breakpoint '%s': '%s' after the address (want mem:ADDR[/LEN][:rwx])", name,
			       p);
	}
	if (!access)
		access = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (!len)
		len = access == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_type = access;
	attr->bp_addr = addr;
	attr->bp_len = len;
	return apply_modifiers(name, mods, attr, x);
}

/*
 * Where perf's modifiers start in name ("cycles:u", "sched:sched_switch:k",
 * "cpu/config=0/uk", "cpu/config=0/:uk"): the length of the event without
 * them and, in *mods, the letters; name's length when it has none.
 */
static size_t modifiers_at(const char *name, const char **mods)
{
	size_t len = strlen(name), end;
	const char *slash = strrchr(name, '/'), *colon = strchr(name, ':');

	*mods = NULL;
	if (slash && slash != name + len - 1) {
		*mods = slash + 1 + (slash[1] == ':');
		return (size_t)(slash - name) + 1;
	}
	if (slash || !colon || !colon[1])
		return len;
	/* a built-in name with modifiers, or SYS:EVENT:MODIFIERS */
	if (named_event(name, (size_t)(colon - name))) {
		*mods = colon + 1;
		return (size_t)(colon - name);
	}
	if (tracepoint_shape(name, &end) && end < len && name[end + 1]) {
		*mods = name + end + 1;
		return end;
	}
	return len;
}

static int parse_base(const char *name, struct perf_event_attr *attr)
{
	const char *colon;
	size_t i;

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
		       "a breakpoint mem:ADDR[/LEN][:rwx], or PMU/config=N/ (e.g. software/config=0/)",
		       name);
}

int pr_event_parse(const char *name, struct perf_event_attr *attr, struct pr_event_extra *x)
{
	const char *mods;
	char base[512];
	size_t n;
	int err;

	if (!name || !attr)
		return pr_fail(EINVAL, "perfring_event_parse: name and attr must not be NULL");
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	/* perf's default (perf_guest off): count the host only; the
	 * modifiers decide again when there are any */
	attr->exclude_guest = 1;
	if (x)
		memset(x, 0, sizeof(*x));
	if (is_breakpoint(name))
		return parse_breakpoint(name, attr, x);
	n = modifiers_at(name, &mods);
	if (!mods)
		return parse_base(name, attr);
	if (n >= sizeof(base))
		return pr_fail(EINVAL, "event name '%.64s...' is too long", name);
	memcpy(base, name, n);
	base[n] = '\0';
	err = parse_base(base, attr);
	if (err)
		return err;
	return apply_modifiers(name, mods, attr, x);
}

int perfring_event_parse(const char *name, struct perf_event_attr *attr)
{
	return pr_event_parse(name, attr, NULL);
}

/* Whether dir/name (an entry read from dir) is a directory. */
static bool entry_is_dir(DIR *dir, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return fstatat(dirfd(dir), d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

struct glob_walk {
	const char *sys_glob, *event_glob, *mods;
	perfring_event_expand_fn fn;
	void *ctx;
	int matched;
};

/* The events of one tracefs system directory matching the walk's glob. */
static int walk_system(struct glob_walk *w, const char *events_dir, const char *sys)
{
	char path[1024], spec[1024];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", events_dir, sys);
	dir = opendir(path);
	if (!dir)
		return 0; /* vanished since listed, or not readable: no events of it */
	while (!err && (d = readdir(dir))) {
		if (d->d_name[0] == '.' || fnmatch(w->event_glob, d->d_name, 0) || !entry_is_dir(dir, d))
			continue;
		/* perf names the event SYS:EVENT whatever its modifiers */
		snprintf(spec, sizeof(spec), "%s:%s%s%s", sys, d->d_name, *w->mods ? ":" : "", w->mods);
		snprintf(path, sizeof(path), "%s:%s", sys, d->d_name);
		err = w->fn(spec, path, w->ctx);
		if (err >= 0) {
			err = 0;
			w->matched++;
		}
	}
	closedir(dir);
	return err;
}

/* Every tracepoint SYS:EVENT matching the walk's globs, in tracefs's
 * directory order (perf's). */
static int walk_tracepoints(struct glob_walk *w)
{
	char tracefs[128], events_dir[256];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	err = perfring_tracefs_path(tracefs, sizeof(tracefs));
	if (err)
		return err;
	snprintf(events_dir, sizeof(events_dir), "%s/events", tracefs);
	dir = opendir(events_dir);
	if (!dir)
		return pr_fail(errno, "cannot list %s: %s", events_dir, strerror(errno));
	while (!err && (d = readdir(dir)))
		if (d->d_name[0] != '.' && !fnmatch(w->sys_glob, d->d_name, 0) && entry_is_dir(dir, d))
			err = walk_system(w, events_dir, d->d_name);
	closedir(dir);
	if (err)
		return err;
	if (!w->matched)
		return pr_fail(ENOENT, "no tracepoint matches '%s:%s' (see %s/available_events)", w->sys_glob,
			       w->event_glob, tracefs);
	return w->matched;
}

int perfring_event_expand(const char *name, perfring_event_expand_fn fn, void *ctx)
{
	struct glob_walk w = { .fn = fn, .ctx = ctx, .mods = "" };
	char buf[512], *colon;
	size_t end = 0, len;
	int err;

	if (!name || !fn)
		return pr_fail(EINVAL, "perfring_event_expand: name and fn must not be NULL");
	len = strlen(name);
	if (len >= sizeof(buf))
		return pr_fail(EINVAL, "event name '%.64s...' is too long", name);
	memcpy(buf, name, len + 1);
	if (tracepoint_shape(name, &end)) {
		buf[end] = '\0'; /* perf shows a tracepoint as SYS:EVENT, without modifiers */
		if (strpbrk(buf, "*?[")) {
			colon = strchr(buf, ':');
			*colon = '\0';
			w.sys_glob = buf;
			w.event_glob = colon + 1;
			w.mods = end < len ? name + end + 1 : "";
			return walk_tracepoints(&w);
		}
	} else if (is_breakpoint(name)) {
		buf[strcspn(buf, "/")] = '\0'; /* perf's name ends at the length: "mem:0x404030" */
	}
	err = fn(name, buf, ctx);
	return err < 0 ? err : 1;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Event names to attrs (perfring_event_parse): every built-in software and
 * hardware name and alias, unknown and malformed names with their messages,
 * tracepoint ids read from tracefs, and PMU/term=value/ syntax against the
 * real sysfs PMUs and a fake PMU directory; perf's modifiers and breakpoints
 * with the attr bits perf sets; tracepoint globs (perfring_event_expand);
 * plus the open-failure messages.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfring/event.h>

#include "event/event_internal.h"
#include "harness.h"

struct expect {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static void check_names(const struct expect *e, size_t n)
{
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&a, 0xa5, sizeof(a));
		CHECKF(perfring_event_parse(e[i].name, &a) == 0, "%s: %s", e[i].name, perfring_errmsg());
		CHECKF(a.type == e[i].type && a.config == e[i].config, "%s: type %u config %llu, want %u %llu",
		       e[i].name, a.type, (unsigned long long)a.config, e[i].type, (unsigned long long)e[i].config);
		CHECK_EQ_INT(a.size, sizeof(a));
		/* perf's default: the host only */
		CHECK_EQ_INT(a.exclude_guest, 1);
		/* Everything else is zeroed. */
		CHECK_EQ_INT(a.exclude_user + a.exclude_kernel + a.exclude_hv + a.exclude_host, 0);
		CHECK_EQ_U64(a.sample_type, 0);
		CHECK_EQ_U64(a.config1, 0);
		CHECK_EQ_INT(a.disabled, 0);
	}
}

TEST(software_names_and_aliases)
{
	static const struct expect e[] = {
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
		{ "bpf-output", PERF_TYPE_SOFTWARE, 10 },
		{ "cgroup-switches", PERF_TYPE_SOFTWARE, 11 },
	};

	check_names(e, sizeof(e) / sizeof(e[0]));
}

TEST(hardware_names_and_aliases)
{
	static const struct expect e[] = {
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

	check_names(e, sizeof(e) / sizeof(e[0]));
}

TEST(unknown_names_fail_with_suggestions)
{
	static const char *const bad[] = { "", "cpu_clock", "CPU-CLOCK", "nosuchevent", "cs " };
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = perfring_event_parse(bad[i], &a);

		CHECKF(rc == -ENOENT, "'%s': %d (%s)", bad[i], rc, perfring_errmsg());
		CHECKF(strstr(perfring_errmsg(), bad[i]) != NULL, "'%s': message does not name it: %s", bad[i],
		       perfring_errmsg());
	}
	CHECK_EQ_INT(perfring_event_parse("nosuchevent", &a), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "cpu-clock") && strstr(perfring_errmsg(), "sched:sched_switch") &&
		       strstr(perfring_errmsg(), "software/config=0/"),
	       "message lists no valid names: %s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_parse(NULL, &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("cpu-clock", NULL), -EINVAL);
}

/* perf's modifiers: u/k/h choose the privilege levels, p raises precise_ip. */
TEST(event_modifiers)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
		unsigned int ex_user, ex_kernel, ex_hv, precise;
	} m[] = {
		{ "cycles:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 1, 0 },
		{ "cpu-clock:k", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1, 0, 1, 0 },
		{ "cpu-clock:uk", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0, 1, 0 },
		{ "task-clock:ppp", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, 3 },
		{ "instructions:upp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 1, 1, 2 },
		{ "software/config=0/u", PERF_TYPE_SOFTWARE, 0, 0, 1, 1, 0 },
		{ "software/config=1/:k", PERF_TYPE_SOFTWARE, 1, 1, 0, 1, 0 },
	};
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		int rc = perfring_event_parse(m[i].name, &a);

		if (rc == -ENOENT && strchr(m[i].name, '/'))
			continue; /* no software PMU in sysfs here */
		CHECKF(rc == 0, "'%s': %d (%s)", m[i].name, rc, perfring_errmsg());
		CHECKF(a.type == m[i].type && a.config == m[i].config, "'%s': type %u config %llu", m[i].name, a.type,
		       (unsigned long long)a.config);
		CHECKF(a.exclude_user == m[i].ex_user && a.exclude_kernel == m[i].ex_kernel &&
			       a.exclude_hv == m[i].ex_hv && a.precise_ip == m[i].precise,
		       "'%s': exclude user %u kernel %u hv %u, precise %u", m[i].name, (unsigned)a.exclude_user,
		       (unsigned)a.exclude_kernel, (unsigned)a.exclude_hv, (unsigned)a.precise_ip);
	}
}

/*
 * Every modifier perf 6.1 accepts, with the attr bits perf record sets for
 * it (perf evlist -v of `perf record -e cpu-clock:M -- true`): exclude_guest
 * follows u and p unless G or H is given; S adds PERF_SAMPLE_READ|ID.
 */
TEST(perf_modifiers_set_perfs_attr_bits)
{
	static const struct {
		const char *name;
		unsigned int eu, ek, eh, eg, ehost, eidle, precise, pinned, exclusive, read;
	} m[] = {
		{ "cpu-clock:u", 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:k", 1, 0, 1, 0, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:h", 1, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:G", 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 },
		{ "cpu-clock:H", 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:GH", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:Gu", 0, 1, 1, 0, 1, 0, 0, 0, 0, 0 },
		{ "cpu-clock:uH", 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:I", 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 },
		{ "cpu-clock:p", 0, 0, 0, 1, 0, 0, 1, 0, 0, 0 },
		{ "cpu-clock:pp", 0, 0, 0, 1, 0, 0, 2, 0, 0, 0 },
		{ "cpu-clock:ppp", 0, 0, 0, 1, 0, 0, 3, 0, 0, 0 },
		{ "cpu-clock:P", 0, 0, 0, 0, 0, 0, 3, 0, 0, 0 },
		{ "cpu-clock:S", 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ "cpu-clock:D", 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 },
		{ "cpu-clock:e", 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
		{ "cpu-clock:W", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:b", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:uk", 0, 0, 1, 1, 0, 0, 0, 0, 0, 0 },
		{ "cpu-clock:up", 0, 1, 1, 1, 0, 0, 1, 0, 0, 0 },
		{ "cpu-clock:ukhGHpppPSDIWeb", 0, 0, 0, 0, 0, 1, 3, 1, 1, 1 },
		{ "page-faults:S", 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ "sched:sched_switch:u", 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
		{ "sched:sched_switch:k", 1, 0, 1, 0, 0, 0, 0, 0, 0, 0 },
	};
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		const char *n = m[i].name;
		uint64_t read = PERF_SAMPLE_READ | PERF_SAMPLE_ID;

		memset(&a, 0xa5, sizeof(a));
		CHECKF(perfring_event_parse(n, &a) == 0, "'%s': %s", n, perfring_errmsg());
		CHECKF(a.exclude_user == m[i].eu && a.exclude_kernel == m[i].ek && a.exclude_hv == m[i].eh,
		       "'%s': exclude user %u kernel %u hv %u", n, (unsigned)a.exclude_user, (unsigned)a.exclude_kernel,
		       (unsigned)a.exclude_hv);
		CHECKF(a.exclude_guest == m[i].eg && a.exclude_host == m[i].ehost && a.exclude_idle == m[i].eidle,
		       "'%s': exclude guest %u host %u idle %u", n, (unsigned)a.exclude_guest, (unsigned)a.exclude_host,
		       (unsigned)a.exclude_idle);
		CHECKF(a.precise_ip == m[i].precise && a.pinned == m[i].pinned && a.exclusive == m[i].exclusive,
		       "'%s': precise_ip %u pinned %u exclusive %u", n, (unsigned)a.precise_ip, (unsigned)a.pinned,
		       (unsigned)a.exclusive);
		CHECKF(a.sample_type == (m[i].read ? read : 0) &&
			       a.read_format == (m[i].read ? (uint64_t)PERF_FORMAT_ID : 0),
		       "'%s': sample_type %#llx read_format %#llx", n, (unsigned long long)a.sample_type,
		       (unsigned long long)a.read_format);
		CHECK_EQ_INT(a.size, sizeof(a));
	}
}

/* What perf refuses is an error naming the letter (perf 6.1: "Bad modifier",
 * "parser error"). */
TEST(bad_modifiers_named)
{
	static const struct {
		const char *name, *want;
	} bad[] = {
		{ "cpu-clock:q", "unknown modifier 'q'" },
		{ "cycles:q", "unknown modifier 'q'" },
		{ "cpu-clock:ux", "unknown modifier 'x'" },
		{ "cpu-clock:u:k", "unknown modifier ':'" },
		{ "sched:sched_switch:q", "unknown modifier 'q'" },
		{ "cpu-clock:uu", "modifier 'u' given twice" },
		{ "cpu-clock:kpk", "modifier 'k' given twice" },
		{ "cpu-clock:pppp", "4 p modifiers" },
		{ "cpu-clock:ukhGHpppPSDIWebu", "too many" },
	};
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = perfring_event_parse(bad[i].name, &a);

		CHECKF(rc == -EINVAL, "'%s': %d (%s)", bad[i].name, rc, perfring_errmsg());
		CHECKF(strstr(perfring_errmsg(), bad[i].want) && strstr(perfring_errmsg(), bad[i].name),
		       "'%s': message names neither it nor '%s': %s", bad[i].name, bad[i].want, perfring_errmsg());
	}
}

/* perf's mem:ADDR[/LEN][:ACCESS][[:]MODIFIERS], fields as perf record sets
 * them (perf evlist -v: bp_type, { bp_addr, config1 }, { bp_len, config2 }). */
TEST(breakpoints)
{
	static const struct {
		const char *name;
		uint64_t addr, len;
		unsigned int type, eu, ek;
	} bp[] = {
		{ "mem:0x404030", 0x404030, 4, 3, 0, 0 },
		{ "mem:0x404030:w", 0x404030, 4, 2, 0, 0 },
		{ "mem:0x404030:r", 0x404030, 4, 1, 0, 0 },
		{ "mem:0x404030:rw", 0x404030, 4, 3, 0, 0 },
		{ "mem:0x404030:wr", 0x404030, 4, 3, 0, 0 },
		{ "mem:0x404030:x", 0x404030, sizeof(long), 4, 0, 0 },
		{ "mem:0x404030:rwx", 0x404030, 4, 7, 0, 0 },
		{ "mem:0x404030/8:w", 0x404030, 8, 2, 0, 0 },
		{ "mem:0x404030/0x8:w", 0x404030, 8, 2, 0, 0 },
		{ "mem:0x404030/8", 0x404030, 8, 3, 0, 0 },
		{ "mem:0x404030/2:w", 0x404030, 2, 2, 0, 0 },
		{ "mem:4210736:w", 0x404030, 4, 2, 0, 0 },
		{ "mem:0", 0, 4, 3, 0, 0 },
		{ "mem:0x404030:wu", 0x404030, 4, 2, 0, 1 },
		{ "mem:0x404030:w:u", 0x404030, 4, 2, 0, 1 },
		{ "mem:0x404030/8:w:k", 0x404030, 8, 2, 1, 0 },
		{ "mem:0x404030:u", 0x404030, 4, 3, 0, 1 },
	};
	static const char *const bad[] = { "mem:",	     "mem:zz",		"mem:0x",	     "mem:0x404030:",
					   "mem:0x404030:w:", "mem:0x404030:ww",	"mem:0x404030/8/w", "mem:0x404030/",
					   "mem:0x404030:q",  "mem:0x404030:wq", "mem:0x404030::u", "mem:99999999999999999999999",
					   "mem:-1",	     "mem:0x404030/x" };
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(bp) / sizeof(bp[0]); i++) {
		const char *n = bp[i].name;

		memset(&a, 0xa5, sizeof(a));
		CHECKF(perfring_event_parse(n, &a) == 0, "'%s': %s", n, perfring_errmsg());
		CHECKF(a.type == PERF_TYPE_BREAKPOINT && a.config == 0, "'%s': type %u config %llu", n, a.type,
		       (unsigned long long)a.config);
		CHECKF(a.bp_addr == bp[i].addr && a.bp_len == bp[i].len && a.bp_type == bp[i].type,
		       "'%s': bp_addr %#llx bp_len %llu bp_type %u", n, (unsigned long long)a.bp_addr,
		       (unsigned long long)a.bp_len, a.bp_type);
		CHECKF(a.exclude_user == bp[i].eu && a.exclude_kernel == bp[i].ek && a.sample_period == 0 &&
			       a.exclude_guest == (strchr(n + 4, 'u') || strchr(n + 4, 'k') ? bp[i].ek : 1),
		       "'%s': exclude user %u kernel %u period %llu", n, (unsigned)a.exclude_user,
		       (unsigned)a.exclude_kernel, (unsigned long long)a.sample_period);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = perfring_event_parse(bad[i], &a);

		CHECKF(rc == -EINVAL, "'%s': %d (%s)", bad[i], rc, perfring_errmsg());
		CHECKF(strstr(perfring_errmsg(), bad[i]) != NULL, "'%s': message does not name it: %s", bad[i],
		       perfring_errmsg());
	}
}

#define CHECK_EQ_STR(a, b) CHECKF(strcmp((a), (b)) == 0, "'%s', want '%s'", (a), (b))

struct expanded {
	char spec[64][128], name[64][128];
	int n, stop_at;
};

static int collect(const char *spec, const char *name, void *ctx)
{
	struct expanded *x = ctx;

	if (x->n == x->stop_at)
		return -42;
	if (x->n < 64) {
		snprintf(x->spec[x->n], sizeof(x->spec[0]), "%s", spec);
		snprintf(x->name[x->n], sizeof(x->name[0]), "%s", name);
	}
	x->n++;
	return 0;
}

/* A name that is not a glob is itself, with perf's name for it. */
TEST(expand_single_names)
{
	static const char *const m[][2] = {
		{ "cpu-clock", "cpu-clock" },
		{ "cpu-clock:u", "cpu-clock:u" },
		{ "sched:sched_switch", "sched:sched_switch" },
		{ "sched:sched_switch:u", "sched:sched_switch" },
		{ "mem:0x404030:w", "mem:0x404030:w" },
		{ "mem:0x404030/8:w", "mem:0x404030" },
		{ "software/config=0/u", "software/config=0/u" },
		{ "nosuch:thing", "nosuch:thing" },
	};
	struct expanded *x = calloc(1, sizeof(*x));
	size_t i;
	char big[600];

	REQUIRE(x);
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		x->n = 0;
		x->stop_at = -1;
		CHECKF(perfring_event_expand(m[i][0], collect, x) == 1, "'%s': %s", m[i][0], perfring_errmsg());
		CHECK_EQ_INT(x->n, 1);
		CHECK_EQ_STR(x->spec[0], m[i][0]);
		CHECK_EQ_STR(x->name[0], m[i][1]);
	}
	x->n = 0;
	x->stop_at = 0;
	CHECK_EQ_INT(perfring_event_expand("cpu-clock", collect, x), -42);
	CHECK_EQ_INT(perfring_event_expand(NULL, collect, x), -EINVAL);
	CHECK_EQ_INT(perfring_event_expand("cpu-clock", NULL, x), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_EQ_INT(perfring_event_expand(big, collect, x), -EINVAL);
	free(x);
}

/* The tracepoint directories of events/sys matching glob, in readdir order. */
static int list_tracepoints(const char *sys, const char *glob, char out[][128], int cap)
{
	char tracefs[128], path[512];
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int n = 0;

	if (perfring_tracefs_path(tracefs, sizeof(tracefs)))
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s", tracefs, sys);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < cap) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs, sys, d->d_name);
		if (d->d_name[0] != '.' && !fnmatch(glob, d->d_name, 0) && !stat(path, &st) && S_ISDIR(st.st_mode))
			snprintf(out[n++], 128, "%.30s:%.90s", sys, d->d_name);
	}
	closedir(dir);
	return n;
}

/* A tracepoint glob: one event per tracepoint, in tracefs's order (perf
 * record -e 'sched:sched_process_*'; perf evlist lists them so), the
 * modifiers on each spec and off each name. */
TEST(expand_tracepoint_globs)
{
	struct expanded *x = calloc(1, sizeof(*x));
	static char want[64][128];
	char spec[160];
	int n, i;

	REQUIRE(x);
	n = list_tracepoints("sched", "sched_process_*", want, 64);
	REQUIREF(n >= 4, "%d sched:sched_process_* tracepoints", n);
	x->stop_at = -1;
	CHECKF(perfring_event_expand("sched:sched_process_*", collect, x) == n, "%s", perfring_errmsg());
	CHECK_EQ_INT(x->n, n);
	for (i = 0; i < n && i < x->n; i++) {
		CHECK_EQ_STR(x->spec[i], want[i]);
		CHECK_EQ_STR(x->name[i], want[i]);
	}
	x->n = 0;
	CHECKF(perfring_event_expand("sched:sched_process_*:k", collect, x) == n, "%s", perfring_errmsg());
	for (i = 0; i < n && i < x->n; i++) {
		snprintf(spec, sizeof(spec), "%.128s:k", want[i]);
		CHECK_EQ_STR(x->spec[i], spec);
		CHECK_EQ_STR(x->name[i], want[i]);
	}
	x->n = 0;
	CHECKF(perfring_event_expand("s?hed:sched_process_e[x]ec", collect, x) == 1, "%s", perfring_errmsg());
	CHECK_EQ_STR(x->spec[0], "sched:sched_process_exec");
	x->n = 0;
	CHECKF(perfring_event_expand("*:sched_process_exec", collect, x) == 1, "%s", perfring_errmsg());
	/* a glob that matches nothing is an error naming it, as perf's */
	CHECK_EQ_INT(perfring_event_expand("sched:nope*", collect, x), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "no tracepoint matches 'sched:nope*'"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_expand("nosys*:x", collect, x), -ENOENT);
	/* fn stops the walk */
	x->n = 0;
	x->stop_at = 2;
	CHECK_EQ_INT(perfring_event_expand("sched:sched_process_*", collect, x), -42);
	CHECK_EQ_INT(x->n, 2);
	free(x);
}

/* A glob given to perfring_event_parse() says to expand it. */
TEST(parse_refuses_globs)
{
	struct perf_event_attr a;

	CHECK_EQ_INT(perfring_event_parse("sched:sched_process_*", &a), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "perfring_event_expand") && strstr(perfring_errmsg(), "sched:sched_process_*"),
	       "%s", perfring_errmsg());
}

static int read_id(const char *tracefs, const char *sys, const char *ev, uint64_t *id)
{
	char path[512];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, ev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu", (unsigned long long *)id);
	fclose(f);
	return n == 1 ? 0 : -1;
}

TEST(tracefs_path_found)
{
	char buf[128], small[4];
	struct stat st;

	REQUIREF(perfring_tracefs_path(buf, sizeof(buf)) == 0, "%s", perfring_errmsg());
	CHECKF(!strcmp(buf, "/sys/kernel/tracing") || !strcmp(buf, "/sys/kernel/debug/tracing"), "tracefs at %s",
	       buf);
	CHECK(stat(buf, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ_INT(perfring_tracefs_path(small, sizeof(small)), -ENAMETOOLONG);
}

TEST(tracepoint_ids_from_tracefs)
{
	static const char *const tps[][2] = { { "sched", "sched_switch" },
					     { "syscalls", "sys_enter_openat" },
					     { "sched", "sched_process_exec" } };
	struct perf_event_attr a;
	char tracefs[128], name[128];
	uint64_t id;
	size_t i;

	REQUIREF(perfring_tracefs_path(tracefs, sizeof(tracefs)) == 0, "%s", perfring_errmsg());
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		REQUIREF(read_id(tracefs, tps[i][0], tps[i][1], &id) == 0, "no id file for %s:%s", tps[i][0],
			 tps[i][1]);
		snprintf(name, sizeof(name), "%s:%s", tps[i][0], tps[i][1]);
		CHECKF(perfring_event_parse(name, &a) == 0, "%s: %s", name, perfring_errmsg());
		CHECK_EQ_INT(a.type, PERF_TYPE_TRACEPOINT);
		CHECK_EQ_U64(a.config, id);
		CHECK(id != 0);
	}
}

TEST(tracepoint_missing_names_path)
{
	struct perf_event_attr a;

	CHECK_EQ_INT(perfring_event_parse("sched:no_such_tracepoint", &a), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "events/sched/no_such_tracepoint/id") != NULL, "path not named: %s",
	       perfring_errmsg());
	CHECK_EQ_INT(perfring_event_parse("nosys:x", &a), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "events/nosys/x/id") != NULL, "%s", perfring_errmsg());
	/* Names that would escape events/. */
	CHECK_EQ_INT(perfring_event_parse("..:x", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("sched:", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse(":x", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("sched:a b", &a), -EINVAL);
}

TEST(pmu_software_and_tracepoint)
{
	struct perf_event_attr a;
	char tracefs[128], name[128];
	uint64_t id;

	CHECKF(perfring_event_parse("software/config=0/", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(a.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_EQ_INT(a.size, sizeof(a));
	CHECKF(perfring_event_parse("software/config=0x9/", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_U64(a.config, PERF_COUNT_SW_DUMMY);
	CHECKF(perfring_event_parse("software/config=1,config1=7,config2=0x10/", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_U64(a.config, 1);
	CHECK_EQ_U64(a.config1, 7);
	CHECK_EQ_U64(a.config2, 16);
	CHECKF(perfring_event_parse("software//", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(a.config, 0);

	REQUIRE(perfring_tracefs_path(tracefs, sizeof(tracefs)) == 0);
	REQUIRE(read_id(tracefs, "sched", "sched_switch", &id) == 0);
	snprintf(name, sizeof(name), "tracepoint/config=%llu/", (unsigned long long)id);
	CHECKF(perfring_event_parse(name, &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_INT(a.type, PERF_TYPE_TRACEPOINT);
	CHECK_EQ_U64(a.config, id);
}

TEST(pmu_format_terms_from_sysfs)
{
	struct perf_event_attr a;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	unsigned int type = 0;

	REQUIREF(f, "no uprobe PMU in sysfs");
	REQUIRE(fscanf(f, "%u", &type) == 1);
	fclose(f);
	/* uprobe/format: retprobe = config:0, ref_ctr_offset = config:32-63. */
	CHECKF(perfring_event_parse("uprobe/retprobe/", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_INT(a.type, type);
	CHECK_EQ_U64(a.config, 1);
	CHECKF(perfring_event_parse("uprobe/ref_ctr_offset=0x12,retprobe=0/", &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_U64(a.config, 0x12ULL << 32);
	CHECKF(perfring_event_parse("uprobe/retprobe=2/", &a) == -EINVAL, "a 2 in a 1-bit field: %s",
	       perfring_errmsg());
	CHECKF(strstr(perfring_errmsg(), "retprobe"), "%s", perfring_errmsg());
}

TEST(pmu_bad_syntax)
{
	struct perf_event_attr a;

	CHECK_EQ_INT(perfring_event_parse("nopmu/config=1/", &a), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "nopmu") && strstr(perfring_errmsg(), "/sys/bus/event_source/devices"),
	       "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_parse("software/config=1", &a), -EINVAL); /* no closing slash */
	CHECK_EQ_INT(perfring_event_parse("software/", &a), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "PMU/TERM=VALUE"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_parse("/", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("/config=1/", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("software/config=x/", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("software/config=-1/", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("software/nosuchterm=1/", &a), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "nosuchterm"), "%s", perfring_errmsg());
	CHECK_EQ_INT(perfring_event_parse("../config=1/", &a), -EINVAL);
	CHECK_EQ_INT(perfring_event_parse("software/../x/", &a), -EINVAL);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(pmu_fake_sysfs_multi_range_format)
{
	char root[] = "/tmp/perfring-pmuXXXXXX", path[256];
	struct perf_event_attr a;

	REQUIRE(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/fake", root);
	REQUIRE(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/fake/format", root);
	REQUIRE(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/fake/type", root);
	write_file(path, "42\n");
	snprintf(path, sizeof(path), "%s/fake/format/event", root);
	write_file(path, "config:0-7,32-35\n");
	snprintf(path, sizeof(path), "%s/fake/format/umask", root);
	write_file(path, "config:8-15\n");
	snprintf(path, sizeof(path), "%s/fake/format/ldlat", root);
	write_file(path, "config1:0-15\n");

	memset(&a, 0, sizeof(a));
	CHECKF(pr_event_parse_pmu("fake/event=0xabc,umask=0x5,ldlat=3/", root, &a) == 0, "%s", perfring_errmsg());
	CHECK_EQ_INT(a.type, 42);
	CHECK_EQ_U64(a.config, 0xbcULL | (0xaULL << 32) | (0x5ULL << 8));
	CHECK_EQ_U64(a.config1, 3);
	memset(&a, 0, sizeof(a));
	CHECK_EQ_INT(pr_event_parse_pmu("fake/event=0x1000/", root, &a), -EINVAL); /* 13 bits into 12 */

	/* The format spec parser on its own. */
	memset(&a, 0, sizeof(a));
	CHECK_EQ_INT(pr_event_apply_format("config2:63", 1, &a), 0);
	CHECK_EQ_U64(a.config2, 1ULL << 63);
	CHECK_EQ_INT(pr_event_apply_format("config:0-63", UINT64_MAX, &a), 0);
	CHECK_EQ_U64(a.config, UINT64_MAX);
	CHECK_EQ_INT(pr_event_apply_format("config3:0", 1, &a), -EINVAL);
	CHECK_EQ_INT(pr_event_apply_format("config:7-3", 1, &a), -EINVAL);
	CHECK_EQ_INT(pr_event_apply_format("config:0-64", 1, &a), -EINVAL);
	CHECK_EQ_INT(pr_event_apply_format("config", 1, &a), -EINVAL);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	CHECK(system(path) == 0);
}

TEST(open_failure_messages)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	CHECK_EQ_INT(pr_event_open_fail(EACCES, "cpu-clock", &a, -1, 0, 2, NULL), -EACCES);
	CHECKF(strstr(perfring_errmsg(), "/proc/sys/kernel/perf_event_paranoid is 2") &&
		       strstr(perfring_errmsg(), "CAP_PERFMON") && strstr(perfring_errmsg(), "cpu-clock") &&
		       strstr(perfring_errmsg(), "<= 0"),
	       "%s", perfring_errmsg());
	CHECK_EQ_INT(pr_event_open_fail(EPERM, "task-clock", &a, 0, -1, 3, NULL), -EPERM);
	CHECKF(strstr(perfring_errmsg(), "perf_event_paranoid is 3") && strstr(perfring_errmsg(), "<= 1"), "%s",
	       perfring_errmsg());
	a.exclude_kernel = 1;
	CHECK_EQ_INT(pr_event_open_fail(EACCES, "task-clock", &a, 0, -1, INT_MIN, NULL), -EACCES);
	CHECKF(strstr(perfring_errmsg(), "unreadable") && strstr(perfring_errmsg(), "<= 2"), "%s",
	       perfring_errmsg());

	a.type = PERF_TYPE_HARDWARE;
	CHECK_EQ_INT(pr_event_open_fail(ENOENT, "cycles", &a, 0, -1, 2, NULL), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "no hardware PMU") && strstr(perfring_errmsg(), "cycles"), "%s",
	       perfring_errmsg());
	CHECK_EQ_INT(pr_event_open_fail(EOPNOTSUPP, "instructions", &a, 0, -1, 2, NULL), -EOPNOTSUPP);
	CHECKF(strstr(perfring_errmsg(), "no hardware PMU"), "%s", perfring_errmsg());

	a.type = PERF_TYPE_SOFTWARE;
	CHECK_EQ_INT(pr_event_open_fail(EINVAL, "cpu-clock", &a, 0, -1, 2, "inherit"), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "option inherit"), "%s", perfring_errmsg());
}

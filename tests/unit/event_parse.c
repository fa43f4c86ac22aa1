// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Event names to attrs (perfring_event_parse): every built-in software and
 * hardware name and alias, unknown and malformed names with their messages,
 * tracepoint ids read from tracefs, and PMU/term=value/ syntax against the
 * real sysfs PMUs and a fake PMU directory; plus the open-failure messages.
 */
#include <errno.h>
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
		/* Everything else is zeroed. */
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
	static const char *const bad[] = { "", "cpu_clock", "CPU-CLOCK", "cycles:q", "nosuchevent", "cs " };
	struct perf_event_attr a;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = perfring_event_parse(bad[i], &a);

		/* "cycles:q" (not a modifier) looks like a tracepoint of a system "cycles": ENOENT too. */
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
	/* a bad modifier fails with the whole name */
	CHECK_EQ_INT(perfring_event_parse("cpu-clock:ux", &a), -ENOENT);
	CHECKF(strstr(perfring_errmsg(), "cpu-clock:ux") != NULL, "%s", perfring_errmsg());
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

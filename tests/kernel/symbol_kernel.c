// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer on live data: kernel symbols against /proc/kallsyms as the
 * test reads it, and a real cpu-clock event's samples with call chains,
 * taken while this process spins in rt_spin_ns() (tests/kernel/rectest.h),
 * whose user frames in rt_spin_ns()'s section must all be named rt_spin_ns
 * (this process loaded from /proc into the process model), and whose kernel
 * frames resolve through kallsyms.
 */
#include "rectest.h"

#include <perfring/symbol.h>

struct ksym {
	uint64_t addr;
	char name[256];
};

/* A few well-known text symbols, and every name sharing their address, as /proc/kallsyms lists them. */
static int read_kallsyms(struct ksym *out, int max, bool *hidden)
{
	static const char *const want[] = { "schedule", "__x64_sys_getpid", "vfs_read", "do_sys_openat2",
					    "perf_event_open", "__x64_sys_perf_event_open", NULL };
	char line[512];
	int n = 0, i;
	FILE *f = fopen("/proc/kallsyms", "r");

	*hidden = true;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		unsigned long long a;
		char t, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3)
			continue;
		if (a)
			*hidden = false;
		if (t != 'T' && t != 't')
			continue;
		for (i = 0; want[i]; i++) {
			if (!strcmp(name, want[i]) && !strchr(line, '[')) {
				out[n].addr = a;
				snprintf(out[n].name, sizeof(out[n].name), "%s", name);
				n++;
			}
		}
	}
	fclose(f);
	return n;
}

/* Is name one of the text symbols at addr (aliases share addresses)? */
static bool kallsyms_has(uint64_t addr, const char *name)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, n[256];

		if (sscanf(line, "%llx %c %255s", &a, &t, n) == 3 && a == addr && !strcmp(n, name))
			found = true;
	}
	fclose(f);
	return found;
}

TEST(kallsyms_known_symbols)
{
	struct ksym ks[16];
	struct perfring_symbolizer *s = perfring_symbolizer_new(NULL);
	struct perfring_sym_result r;
	bool hidden;
	int n, i, rc;

	REQUIRE(s);
	n = read_kallsyms(ks, 16, &hidden);
	if (n < 0)
		SKIP("/proc/kallsyms unreadable");
	if (hidden) {
		rc = perfring_symbolize(s, NULL, 0, 0xffffffff81000000ull, PERF_RECORD_MISC_KERNEL, &r);
		CHECK_EQ_INT(rc, -EACCES);
		CHECK(r.reason && strstr(r.reason, "kptr_restrict"));
		perfring_symbolizer_free(s);
		SKIP("kernel addresses hidden (kptr_restrict): checked the reason only");
	}
	REQUIRE(n > 0);
	for (i = 0; i < n; i++) {
		rc = perfring_symbolize(s, NULL, 0, ks[i].addr, PERF_RECORD_MISC_KERNEL, &r);
		CHECKF(rc == 0 && r.sym_addr == ks[i].addr && r.offset == 0 && kallsyms_has(ks[i].addr, r.name),
		       "%s at %#llx: rc %d %s+%#llx (%s)", ks[i].name, (unsigned long long)ks[i].addr, rc,
		       r.name ? r.name : "NULL", (unsigned long long)r.offset, r.reason ? r.reason : "");
		CHECK_EQ_INT(r.source, PERFRING_SYM_KALLSYMS);
		CHECK(r.binary && !strcmp(r.binary, "[kernel.kallsyms]"));
		rc = perfring_symbolize(s, NULL, 0, ks[i].addr + 4, PERF_RECORD_MISC_KERNEL, &r);
		CHECKF(rc == 0 && r.sym_addr == ks[i].addr && r.offset == 4, "%s+4: rc %d %s+%#llx", ks[i].name, rc,
		       r.name ? r.name : "NULL", (unsigned long long)r.offset);
		/* cpumode unknown: the address alone says kernel. */
		rc = perfring_symbolize(s, NULL, 0, ks[i].addr, PERF_RECORD_MISC_CPUMODE_UNKNOWN, &r);
		CHECK(rc == 0 && r.sym_addr == ks[i].addr);
	}
	/* Below the kernel: no symbol. */
	rc = perfring_symbolize(s, NULL, 0, 0xffff900000000000ull, PERF_RECORD_MISC_KERNEL, &r);
	CHECK(rc < 0 && !r.name && r.reason);
	perfring_symbolizer_free(s);
}

TEST(kernel_build_id_mismatch)
{
	static const uint8_t fake[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	struct perfring_procs *p = perfring_procs_new(NULL);
	struct perfring_symbolizer *s = perfring_symbolizer_new(NULL);
	struct perfring_sym_result r;
	struct ksym ks[16];
	bool hidden;
	int n, rc;

	REQUIRE(p && s);
	n = read_kallsyms(ks, 16, &hidden);
	if (n <= 0 || hidden)
		SKIP("no readable kernel symbols");
	if (access("/sys/kernel/notes", R_OK))
		SKIP("/sys/kernel/notes missing: the running kernel's build id is unknown");
	/* A recording of another kernel: its symbols would be wrong here. */
	REQUIRE(perfring_procs_set_build_id(p, PERFRING_PID_KERNEL, "[kernel.kallsyms]", fake, 20) == 0);
	rc = perfring_symbolize(s, p, 0, ks[0].addr, PERF_RECORD_MISC_KERNEL, &r);
	CHECK_EQ_INT(rc, -ESTALE);
	CHECK(!r.name && r.reason && strstr(r.reason, "kernel build id mismatch"));
	perfring_symbolizer_free(s);
	perfring_procs_free(p);
}

struct walk {
	uint64_t user, user_named, spin, spin_named, spin_wrong, kernel, kernel_named, caller_named;
	char wrong[160];
};

static void walk_chain(struct perfring_symbolizer *s, const struct perfring_procs *p,
		       const struct perfring_sample *smp, struct walk *w)
{
	const struct perfring_u64_array *cc = &smp->callchain;
	unsigned mode = PERF_RECORD_MISC_USER;
	bool prev_spin = false;
	uint64_t i;

	for (i = 0; i < cc->nr; i++) {
		uint64_t ip = perfring_u64_at(cc, i);
		struct perfring_sym_result r;
		int rc;

		if (perfring_callchain_is_context(ip)) {
			mode = ip == RT_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
			continue;
		}
		rc = perfring_symbolize(s, p, smp->pid, ip, mode, &r);
		if (mode == PERF_RECORD_MISC_KERNEL) {
			w->kernel++;
			w->kernel_named += rc == 0;
			continue;
		}
		w->user++;
		w->user_named += rc == 0;

		if (prev_spin && rc == 0)
			w->caller_named++;
		prev_spin = rt_in_spin(ip);
		if (!prev_spin)
			continue;
		w->spin++;
		if (rc == 0 && !strcmp(r.name, "rt_spin_ns")) {
			w->spin_named++;
		} else if (!w->wrong[0]) {
			snprintf(w->wrong, sizeof(w->wrong), "%#llx: rc %d %s (%s)", (unsigned long long)ip, rc,
				 r.name ? r.name : "NULL", r.reason ? r.reason : "");
			w->spin_wrong++;
		} else {
			w->spin_wrong++;
		}
	}
}

TEST(cpu_clock_callchains_symbolize)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	struct perfring_procs *p = perfring_procs_new(NULL);
	struct perfring_symbolizer *s = perfring_symbolizer_new(NULL);
	struct perfring_symbolizer_stats st;
	struct walk w = { 0 };
	uint64_t samples = 0, t0, t1;
	size_t i;
	int fd;

	REQUIRE(p && s);
	rt_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	fd = rt_perf_open(&attr, 0, -1, -1);
	if (fd < 0)
		SKIP("perf_event_open(cpu-clock): %s", strerror(-fd));
	ring = rt_ring(fd, 64, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	CHECK(rt_spin_and_drain(ring, &recs, 200000000ull, 10000000ull) == 0);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	CHECK(rt_drain_copy(ring, &recs) >= 0);
	/* The process existed before "recording": read it from /proc, as perf record -p does. */
	REQUIRE(perfring_procs_load_proc(p, (uint32_t)getpid()) == 0);

	t0 = rt_now_ns();
	for (i = 0; i < recs.n; i++) {
		struct perfring_decoded d;

		if (rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &e) || d.type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		walk_chain(s, p, &d.u.sample, &w);
	}
	t1 = rt_now_ns();
	{
		/* The same chains again: every answer from the cache. */
		struct walk w2 = { 0 };
		struct perfring_symbolizer_stats st1, st2;
		uint64_t t2 = rt_now_ns(), t3;

		REQUIRE(perfring_symbolizer_stats(s, &st1) == 0);
		for (i = 0; i < recs.n; i++) {
			struct perfring_decoded d;

			if (perfring_record_parse(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d) == 0 &&
			    d.type == PERF_RECORD_SAMPLE)
				walk_chain(s, p, &d.u.sample, &w2);
		}
		t3 = rt_now_ns();
		REQUIRE(perfring_symbolizer_stats(s, &st2) == 0);
		printf("  again: %llu lookups in %.2f ms (%.0f ns each)\n",
		       (unsigned long long)(st2.lookups - st1.lookups), (t3 - t2) / 1e6,
		       (double)(t3 - t2) / (double)(st2.lookups - st1.lookups ? st2.lookups - st1.lookups : 1));
		CHECK(w2.spin_named == w.spin_named && w2.user_named == w.user_named);
		CHECK_EQ_U64(st2.binaries, st1.binaries);
	}
	REQUIRE(perfring_symbolizer_stats(s, &st) == 0);
	printf("  %llu samples: %llu user frames (%llu named), %llu in rt_spin_ns (%llu named so), %llu kernel "
	       "frames (%llu named); %llu lookups in %.2f ms (%.0f ns each), %llu cache hits, %llu binaries\n",
	       (unsigned long long)samples, (unsigned long long)w.user, (unsigned long long)w.user_named,
	       (unsigned long long)w.spin, (unsigned long long)w.spin_named, (unsigned long long)w.kernel,
	       (unsigned long long)w.kernel_named, (unsigned long long)st.lookups, (t1 - t0) / 1e6,
	       st.lookups ? (double)(t1 - t0) / (double)st.lookups : 0.0, (unsigned long long)st.cache_hits,
	       (unsigned long long)st.binaries);
	RT_CHECK_NO_ERR(&e, "records");
	CHECKF(samples >= 100, "only %llu samples", (unsigned long long)samples);
	CHECKF(w.spin >= 50, "only %llu user frames in rt_spin_ns()", (unsigned long long)w.spin);
	/* Never a wrong name: every frame inside rt_spin_ns() is named rt_spin_ns. */
	CHECKF(w.spin_wrong == 0, "%llu frames in rt_spin_ns() misnamed, first %s", (unsigned long long)w.spin_wrong,
	       w.wrong);
	/* Its caller (frame pointers) is in the test binary: named too. */
	CHECKF(w.caller_named >= w.spin / 2, "%llu of %llu callers of rt_spin_ns() named",
	       (unsigned long long)w.caller_named, (unsigned long long)w.spin);
	if (w.kernel)
		CHECKF(w.kernel_named * 10 >= w.kernel * 9, "%llu of %llu kernel frames named",
		       (unsigned long long)w.kernel_named, (unsigned long long)w.kernel);
	/* A hot address is resolved once. */
	CHECK(st.cache_hits > 0);
	CHECK(st.binaries <= 8);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
	perfring_symbolizer_free(s);
	perfring_procs_free(p);
}

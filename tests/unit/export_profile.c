/* The profile (src/profile/) and its exports, on a profile built by
 * hand with known stacks: folded lines exactly as stackcollapse-perf.pl
 * would print them and summing to the samples; pprof read back by the outside
 * oracle `go tool pprof` (-raw: every sample's values, locations and labels,
 * every mapping's range, offset, file and build id; -top: flat and cum per
 * function); speedscope JSON parsed by python3's json and checked against the
 * format's required fields (and speedscope's own schema when its npm package
 * is in build/speedscope). Bad arguments, and memory: each distinct item
 * once, however many samples repeat it.
 *
 * EXPORT_KEEP=DIR keeps the written files in DIR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <perfring/profile.h>

#include "harness.h"
/* the tables' sizes, for the memory tests */
#include "profile/profile_internal.h"

/* ---- the public API, as the tests use it ---- */

/* A sample whose frames are an array (the tests' tables): add() makes it a perfring_stack. */
struct tsample {
	uint32_t pid, tid;
	const char *comm;
	uint64_t time;
	uint32_t event;
	uint64_t period;
	const struct perfring_frame *frames;
	size_t nframes;
};

static int add(struct perfring_profile *p, const struct tsample *t)
{
	struct perfring_stack st = { .nframes = t->nframes, .frame_sz = sizeof(struct perfring_frame),
				     .frames = t->frames };
	struct perfring_profile_sample s = { .sz = sizeof(s), .stack = &st, .pid = t->pid, .tid = t->tid,
					     .comm = t->comm, .time = t->time, .event = t->event,
					     .period = t->period };

	return perfring_profile_add(p, &s);
}

static struct perfring_profile *new_profile(const char *const *events, size_t n, bool timeline)
{
	struct perfring_profile_opts o = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = events,
							    .nevents = n, .timeline = timeline);

	return perfring_profile_new(&o);
}

static int write_folded(const struct perfring_profile *p, uint32_t event, bool by_period, FILE *f)
{
	struct perfring_profile_write_opts o = PERFRING_OPTS_INIT(perfring_profile_write_opts, .event = event,
								.by_period = by_period);

	return perfring_profile_write(p, PERFRING_PROFILE_FOLDED, f, &o);
}

static int write_titled(const struct perfring_profile *p, enum perfring_profile_format fmt, const char *title, FILE *f)
{
	struct perfring_profile_write_opts o = PERFRING_OPTS_INIT(perfring_profile_write_opts, .title = title);

	return perfring_profile_write(p, fmt, f, &o);
}

/* ---- the hand-made profile ---- */

static const uint8_t app_bid[20] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x10, 0x32,
				     0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0x00, 0x11, 0x22, 0x33 };
static const uint8_t libc_bid[20] = { 0xfe, 0xed, 0xfa, 0xce, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

#define APP(addr_, name_, line_, inl_)                                                                      \
	{ .addr = (addr_), .name = (name_), .offset = 0x10, .dso = "/usr/bin/app", .build_id = app_bid, \
	  .build_id_size = 20, .mapped = true, .map_start = 0x400000, .map_end = 0x500000, .map_pgoff = 0x1000,            \
	  .file = "app.c", .line = (line_), .inlined = (inl_) }
#define LIBC(addr_, name_)                                                                                \
	{ .addr = (addr_), .name = (name_), .dso = "/lib/x86_64-linux-gnu/libc.so.6", .build_id = libc_bid, \
	  .build_id_size = 20, .mapped = true, .map_start = 0x7f0000000000, .map_end = 0x7f0000200000, .map_pgoff = 0 }
#define KERN(addr_, name_)                                                                            \
	{ .addr = (addr_), .name = (name_), .dso = "[kernel.kallsyms]", .mapped = true, .map_start = 0xffffffff81000000, \
	  .map_end = 0xffffffff83000000, .kernel = true }

/* Leaf first. compute() is inlined into work() at 0x401100: one location, two lines. */
static const struct perfring_frame s1[] = { APP(0x401100, "compute", 12, true), APP(0x401100, "work", 30, false),
					APP(0x401200, "main", 50, false) };
static const struct perfring_frame s2[] = { LIBC(0x7f0000010000, "memcpy"), APP(0x401150, "work", 31, false),
					APP(0x401200, "main", 50, false) };
static const struct perfring_frame s3[] = { LIBC(0x7f0000020000, NULL), APP(0x401210, "main", 51, false) };
static const struct perfring_frame s4[] = { KERN(0xffffffff81001000, "do_syscall_64"),
					KERN(0xffffffff81002000, "entry_SYSCALL_64"),
					{ .addr = 0x1234 },
					APP(0x401200, "main", 50, false) };
static const struct perfring_frame s5[] = { APP(0x401200, "main", 50, false) };
static const struct perfring_frame s6[] = { APP(0x401300, "std::vector<int>::push_back(int const&)", 70, false),
					APP(0x401200, "main", 50, false) };

struct known {
	const struct perfring_frame *frames;
	size_t nframes;
	uint32_t pid, tid;
	const char *comm;
	unsigned times;
	uint64_t period;
	const char *folded;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct known known[] = {
	{ s1, N(s1), 100, 100, "app", 5, 1000000, "app;main;work;compute" },
	{ s2, N(s2), 100, 101, "app", 3, 1000000, "app;main;work;memcpy" },
	{ s3, N(s3), 100, 100, "app", 2, 2000000, "app;main;[libc.so.6]" },
	{ s4, N(s4), 200, 200, "my app", 4, 1000000, "my_app;main;[unknown];entry_SYSCALL_64;do_syscall_64" },
	{ s5, N(s5), 300, 300, "", 1, 3000000, ":300;main" },
	{ s6, N(s6), 100, 100, "app", 2, 1000000, "app;main;std::vector<int>::push_back" },
};

static struct perfring_profile *build(void)
{
	const char *events[] = { "cpu-clock" };
	struct perfring_profile *p = new_profile(events, 1, true); /* the timeline: for the Firefox export */
	uint64_t t = 1000000000;

	if (!p)
		return NULL;
	/* Interleaved, as a recording would give them. */
	for (unsigned round = 0; round < 5; round++) {
		for (size_t i = 0; i < N(known); i++) {
			if (round >= known[i].times)
				continue;
			struct tsample s = { .pid = known[i].pid, .tid = known[i].tid, .comm = known[i].comm,
						 .time = t, .event = 0, .period = known[i].period,
						 .frames = known[i].frames, .nframes = known[i].nframes };

			t += 1000000;
			if (add(p, &s)) {
				perfring_profile_free(p);
				return NULL;
			}
		}
	}
	return p;
}

/* ---- helpers ---- */

static char dir[256];

static const char *tmpdir(void)
{
	const char *keep = getenv("EXPORT_KEEP");

	if (dir[0])
		return dir;
	if (keep) {
		mkdir(keep, 0755);
		snprintf(dir, sizeof(dir), "%s", keep);
	} else {
		snprintf(dir, sizeof(dir), "/tmp/export_profile.XXXXXX");
		if (!mkdtemp(dir))
			dir[0] = 0;
	}
	return dir;
}

static void cleanup(void)
{
	char cmd[300];

	if (dir[0] && !getenv("EXPORT_KEEP")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

/* Runs cmd, returns its stdout (malloc'd) or NULL; *rc its exit status. */
static char *run(const char *cmd, int *rc)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	int st = pclose(f);

	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (buf)
		buf[len] = 0;
	return buf;
}

static bool have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static char *write_file(const char *name, int (*fn)(const struct perfring_profile *, FILE *), const struct perfring_profile *p)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir(), name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	int err = fn(p, f);

	if (fclose(f) || err)
		return NULL;
	return path;
}

static int folded_samples(const struct perfring_profile *p, FILE *f)
{
	return write_folded(p, 0, false, f);
}

static int folded_periods(const struct perfring_profile *p, FILE *f)
{
	return write_folded(p, 0, true, f);
}

static int pprof(const struct perfring_profile *p, FILE *f)
{
	return perfring_profile_write(p, PERFRING_PROFILE_PPROF, f, NULL);
}

static int speedscope(const struct perfring_profile *p, FILE *f)
{
	return write_titled(p, PERFRING_PROFILE_SPEEDSCOPE, "hand-made", f);
}

/* One export of p into memory (kind: 'f' folded by samples, 'F' by period, 's' speedscope); NULL on error. */
static char *export_mem(const struct perfring_profile *p, char kind)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int err;

	if (!f)
		return NULL;
	err = kind == 's' ? write_titled(p, PERFRING_PROFILE_SPEEDSCOPE, "n\"ame", f) : write_folded(p, 0, kind == 'F', f);
	if (fclose(f) || err) {
		free(out);
		return NULL;
	}
	return out;
}

/* A profile of one sample of one event. */
static struct perfring_profile *one_sample(const char *event, const struct tsample *s)
{
	struct perfring_profile *p = new_profile(&event, 1, false);

	if (p && add(p, s)) {
		perfring_profile_free(p);
		p = NULL;
	}
	return p;
}

/* ---- folded ---- */

TEST(folded_lines_as_stackcollapse)
{
	struct perfring_profile *p = build();
	char *out;

	REQUIRE(p);
	out = export_mem(p, 'f');
	REQUIRE(out);
	/* Sorted bytewise, as the Perl script's `sort keys`. */
	const char *want = ":300;main 1\n"
			   "app;main;[libc.so.6] 2\n"
			   "app;main;std::vector<int>::push_back 2\n"
			   "app;main;work;compute 5\n"
			   "app;main;work;memcpy 3\n"
			   "my_app;main;[unknown];entry_SYSCALL_64;do_syscall_64 4\n";
	CHECKF(strcmp(out, want) == 0, "folded:\n%s\nwanted:\n%s", out, want);
	free(out);
	perfring_profile_free(p);
}

TEST(folded_sums_equal_samples_and_periods)
{
	struct perfring_profile *p = build();
	uint64_t want_n = 0, want_period = 0;

	REQUIRE(p);
	for (size_t i = 0; i < N(known); i++) {
		want_n += known[i].times;
		want_period += known[i].times * known[i].period;
	}
	for (int by_period = 0; by_period < 2; by_period++) {
		char *path = write_file(by_period ? "periods.folded" : "samples.folded",
					by_period ? folded_periods : folded_samples, p);
		REQUIRE(path);
		FILE *f = fopen(path, "r");
		char line[1024];
		uint64_t sum = 0;
		unsigned nlines = 0;

		REQUIRE(f);
		while (fgets(line, sizeof(line), f)) {
			char *sp = strrchr(line, ' ');
			uint64_t v;

			REQUIRE(sp);
			v = strtoull(sp + 1, NULL, 10);
			*sp = 0;
			sum += v;
			nlines++;
			/* Each line's value is the known stack's. */
			for (size_t i = 0; i < N(known); i++)
				if (strcmp(line, known[i].folded) == 0)
					CHECK_EQ_U64(v, by_period ? known[i].times * known[i].period : known[i].times);
		}
		fclose(f);
		CHECK_EQ_INT(nlines, N(known));
		CHECK_EQ_U64(sum, by_period ? want_period : want_n);
	}
	perfring_profile_free(p);
}

TEST(folded_tidies_names)
{
	struct perfring_frame fr[] = {
		{ .addr = 1, .name = "a;b" },
		{ .addr = 2, .name = "(anonymous namespace)::f(int)" },
		{ .addr = 3, .name = "main.(*T).Run" },
		{ .addr = 4, .name = "say \"hi\"\nnow" },
		{ .addr = 5, .dso = "/x/y/libz.so" },
		{ .addr = 6, .dso = "[kernel.kallsyms]", .kernel = true },
	};
	struct tsample s = { .pid = 1, .tid = 1, .comm = "a b;c", .period = 7, .frames = fr, .nframes = 6 };
	struct perfring_profile *p = one_sample("cycles", &s);
	char *out;

	REQUIRE(p);
	out = export_mem(p, 'F');
	REQUIRE(out);
	const char *want = "a_b:c;[kernel.kallsyms];[libz.so];say hi now;main.(*T).Run;(anonymous namespace)::f;a:b 7\n";
	CHECKF(strcmp(out, want) == 0, "folded: %s wanted: %s", out, want);
	free(out);
	perfring_profile_free(p);
}

/* ---- pprof, read by go tool pprof ---- */

static bool has_line(const char *text, const char *want)
{
	const char *p = text;
	size_t n = strlen(want);

	while ((p = strstr(p, want))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
		p++;
	}
	return false;
}

/* A line of `pprof -top`'s table for a function: flat and cum. */
static bool top_entry(const char *top, const char *func, double *flat, double *cum)
{
	const char *p = top;
	size_t n = strlen(func);

	while ((p = strstr(p, func))) {
		const char *bol = p;

		while (bol > top && bol[-1] != '\n')
			bol--;
		if ((p[n] == '\n' || p[n] == 0) && p[-1] == ' ') {
			char f1[32], f2[32], f3[32], c1[32], c2[32];

			if (sscanf(bol, "%31s %31s %31s %31s %31s", f1, f2, f3, c1, c2) == 5) {
				*flat = strtod(f1, NULL);
				*cum = strtod(c1, NULL);
				return true;
			}
		}
		p += n;
	}
	return false;
}

/* -raw's Samples section: "COUNT PERIOD: locs" then "comm:[C]" (when known) and "pid:[P] tid:[T]";
 * every known stack once, with its count, period and labels. */
static void check_raw_samples(const char *raw)
{
	const char *p = strstr(raw, "Samples:\n");
	bool seen[N(known)] = { false };
	unsigned nsamples = 0;

	REQUIREF(p, "no Samples section");
	p = strchr(p + 9, '\n'); /* the types line */
	while (p && *++p == ' ') {
		unsigned long long count, period;
		char comm[64] = "";
		unsigned pid = 0, tid = 0;
		const char *eol;

		if (sscanf(p, " %llu %llu:", &count, &period) != 2)
			break;
		nsamples++;
		p = strchr(p, '\n');
		/* Label lines are indented deeper and have no ':' followed by location ids. */
		while (p && p[1] == ' ' && strstr(p + 1, ":[") && strstr(p + 1, ":[") < strchr(p + 1, '\n')) {
			eol = strchr(p + 1, '\n');
			const char *c = strstr(p + 1, "comm:[");

			if (c && c < eol)
				sscanf(c, "comm:[%63[^]]]", comm);
			const char *q = strstr(p + 1, "pid:[");

			if (q && q < eol)
				sscanf(q, "pid:[%u] tid:[%u]", &pid, &tid);
			p = eol;
		}
		bool found = false;

		for (size_t i = 0; i < N(known); i++) {
			if (known[i].pid == pid && known[i].tid == tid && strcmp(known[i].comm, comm) == 0 &&
			    known[i].times == count && known[i].times * known[i].period == period && !seen[i]) {
				seen[i] = found = true;
				break;
			}
		}
		CHECKF(found, "a sample not added: %llu %llu comm %s pid %u tid %u", count, period, comm, pid, tid);
		if (!p)
			break;
	}
	CHECK_EQ_INT(nsamples, N(known));
}

/* `go tool pprof -raw` of p written to NAME: its output (malloc'd), or NULL when pprof failed
 * (its message in *err, malloc'd, or NULL when the file could not be written). */
static char *pprof_raw(const struct perfring_profile *p, const char *name, char **err)
{
	char cmd[1024], *out, *path = write_file(name, pprof, p);
	int rc;

	*err = NULL;
	if (!path)
		return NULL;
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none '%s' 2>&1", tmpdir(), path);
	out = run(cmd, &rc);
	if (out && rc == 0)
		return out;
	*err = out;
	return NULL;
}

/* Time, duration, period and comments: build()'s samples span 1 s + 16 ms of perf's clock. */
TEST(pprof_time_and_sampling)
{
	char *out, *err;

	if (!have("go"))
		SKIP("go tool pprof is not installed (scripts/install-deps.sh installs golang-go)");
	struct perfring_profile *p = build();

	REQUIRE(p);
	/* No clock: time_nanos is the first sample's perf time (1 s after 1970), said in a comment. */
	out = pprof_raw(p, "noclock.pb.gz", &err);
	REQUIREF(out, "go tool pprof -raw failed: %s", err ? err : "(no file)");
	CHECKF(has_line(out, "Time: 1970-01-01 00:00:01 +0000 UTC"), "time:\n%s", out);
	CHECKF(strstr(out, "Comment: time_nanos is the first sample's time on perf's clock"), "comment:\n%s", out);
	CHECKF(has_line(out, "Duration: 16ms"), "duration (16 ms between the first and last samples):\n%s", out);
	free(out);

	/* A wall-clock reference and a fixed period. */
	perfring_profile_set_clock(p, 500000000, 1700000000000000000ull); /* perf 0.5 s = 2023-11-14 22:13:20 */
	perfring_profile_set_sampling(p, 0, 250000, false);
	out = pprof_raw(p, "clock.pb.gz", &err);
	REQUIREF(out, "go tool pprof -raw failed: %s", err ? err : "(no file)");
	CHECKF(has_line(out, "Time: 2023-11-14 22:13:20.5 +0000 UTC"), "time (0.5 s after the reference):\n%s", out);
	CHECKF(!strstr(out, "time_nanos is"), "a comment on the time despite the clock:\n%s", out);
	CHECKF(has_line(out, "Period: 250000"), "fixed period:\n%s", out);
	CHECKF(has_line(out, "Comment: cpu-clock: a sample every 250000 ns"), "period comment:\n%s", out);
	free(out);

	/* A frequency: the period is the mean one again, the comment says the frequency. */
	perfring_profile_set_sampling(p, 0, 999, true);
	out = pprof_raw(p, "freq.pb.gz", &err);
	REQUIREF(out, "go tool pprof -raw failed: %s", err ? err : "(no file)");
	CHECKF(has_line(out, "Period: 1235294"), "mean period:\n%s", out);
	CHECKF(has_line(out, "Comment: cpu-clock: sampled at 999 Hz"), "frequency comment:\n%s", out);
	free(out);
	perfring_profile_free(p);
}

TEST(pprof_read_by_go_tool_pprof)
{
	char cmd[1024], *out;
	int rc;

	if (!have("go"))
		SKIP("go tool pprof is not installed (scripts/install-deps.sh installs golang-go)");
	struct perfring_profile *p = build();

	REQUIRE(p);
	char *path = write_file("profile.pb.gz", pprof, p);

	REQUIRE(path);
	/* gzip framing first: gzip itself reads it. */
	snprintf(cmd, sizeof(cmd), "gzip -t '%s' 2>&1", path);
	out = run(cmd, &rc);
	CHECKF(rc == 0, "gzip -t: %s", out ? out : "?");
	free(out);

	/* -raw: the profile as pprof decoded it. */
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none '%s' 2>&1", tmpdir(), path);
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "go tool pprof -raw failed (%d): %s", rc, out ? out : "");
	if (getenv("EXPORT_VERBOSE"))
		printf("%s\n", out);
	CHECKF(has_line(out, "PeriodType: cpu-clock nanoseconds"), "raw:\n%s", out);
	CHECKF(has_line(out, "Period: 1235294"), "period: the mean of 17 samples' periods (21 ms / 17):\n%s", out);
	CHECKF(strstr(out, "Duration: ") != NULL, "no duration");
	CHECKF(has_line(out, "samples/count cpu-clock/nanoseconds[dflt]"), "sample types:\n%s", out);
	/* Mappings: range, offset, file, build id. */
	CHECKF(strstr(out, "0x400000/0x500000/0x1000 /usr/bin/app 0123456789abcdef1032547698badcfe00112233 [FN][FL][LN][IN]"),
	       "app mapping:\n%s", out);
	CHECKF(strstr(out, "0x7f0000000000/0x7f0000200000/0x0 /lib/x86_64-linux-gnu/libc.so.6 "
			   "feedface0102030405060708090a0b0c0d0e0f10 [FN]"),
	       "libc mapping:\n%s", out);
	CHECKF(strstr(out, "0xffffffff81000000/0xffffffff83000000/0x0 [kernel.kallsyms]"), "kernel mapping:\n%s", out);
	/* The inlined location: two lines, compute then work. */
	CHECKF(strstr(out, "0x401100 M=1 compute app.c:12 s=0\n             work app.c:30 s=0\n"), "inline:\n%s", out);
	/* An unnamed frame: its address and mapping, no line. */
	CHECKF(strstr(out, ": 0x7f0000020000 M=2 \n") && strstr(out, ": 0x1234 \n"), "unnamed:\n%s", out);
	check_raw_samples(out);
	free(out);

	/* -traces: every sample with its labels and values. */
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -traces -symbolize=none -sample_index=samples '%s' 2>&1",
		 tmpdir(), path);
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "go tool pprof -traces failed (%d): %s", rc, out ? out : "");
	if (getenv("EXPORT_VERBOSE"))
		printf("%s\n", out);
	CHECKF(strstr(out, "comm:  my app\n       pid:  200\n       tid:  200\n         4   do_syscall_64\n"),
	       "labels:\n%s", out);
	free(out);

	/* -top: flat and cum per function, in samples, as added. */
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s go tool pprof -top -nodecount=100 -symbolize=none -sample_index=samples '%s' 2>&1",
		 tmpdir(), path);
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "go tool pprof -top failed (%d): %s", rc, out ? out : "");
	if (getenv("EXPORT_VERBOSE"))
		printf("%s\n", out);
	static const struct {
		const char *func;
		double flat, cum;
	} want[] = {
		{ "compute (inline)", 5, 5 }, { "work", 0, 8 },  { "memcpy", 3, 3 },        { "main", 1, 17 }, { "[libc.so.6]", 2, 2 }, { "<unknown>", 0, 4 },
		{ "do_syscall_64", 4, 4 }, { "entry_SYSCALL_64", 0, 4 }, { "std::vector<int>::push_back(int const&)", 2, 2 },
	};
	/* The main binary pprof names: the program, not libc or the kernel. */
	CHECKF(strstr(out, "File: app\nBuild ID: 0123456789abcdef1032547698badcfe00112233\n"), "main binary:\n%s", out);
	for (size_t i = 0; i < N(want); i++) {
		double flat = -1, cum = -1;

		CHECKF(top_entry(out, want[i].func, &flat, &cum), "no %s in -top:\n%s", want[i].func, out);
		CHECKF(flat == want[i].flat && cum == want[i].cum, "%s: flat %g cum %g, wanted %g %g", want[i].func,
		       flat, cum, want[i].flat, want[i].cum);
	}
	free(out);
	/* The same by period (the default sample type): main's cum is every period. */
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -top -nodecount=100 -symbolize=none -unit=ms '%s' 2>&1",
		 tmpdir(), path);
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "go tool pprof -top failed (%d): %s", rc, out ? out : "");
	double flat, cum;

	CHECKF(top_entry(out, "main", &flat, &cum) && flat == 3 && cum == 21, "main by period:\n%s", out);
	CHECKF(top_entry(out, "compute (inline)", &flat, &cum) && flat == 5 && cum == 5, "compute by period:\n%s", out);
	free(out);
	perfring_profile_free(p);
}

/* ---- speedscope ---- */

TEST(speedscope_json_checked)
{
	char cmd[1024], *out;
	int rc;
	/* speedscope's own schema when tests/cli/export_speedscope.sh has installed its npm package */
	const char *schema = "build/speedscope/node_modules/speedscope/dist/release/file-format-schema.json";
	struct stat st;

	if (!have("python3"))
		SKIP("python3 is not installed");
	struct perfring_profile *p = build();

	REQUIRE(p);
	char *path = write_file("profile.speedscope.json", speedscope, p);

	REQUIRE(path);
	snprintf(cmd, sizeof(cmd), "python3 tests/helpers/speedscope_check.py '%s' %s 2>&1", path,
		 stat(schema, &st) == 0 ? schema : "");
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "speedscope_check.py (%d): %s", rc, out ? out : "");
	if (getenv("EXPORT_VERBOSE"))
		printf("%s\n", out);
	/* Profiles by process, heaviest first; weights are periods in ns; stacks root first. */
	const char *first = "profile\tcpu-clock: app (pid 100)\tnanoseconds\t14000000\t14000000\n";

	CHECKF(strncmp(out, first, strlen(first)) == 0, "first profile:\n%s", out);
	CHECK(has_line(out, "stack\tcpu-clock: app (pid 100)\tmain;work;compute\t5000000"));
	CHECK(has_line(out, "stack\tcpu-clock: app (pid 100)\tmain;work;memcpy\t3000000"));
	CHECK(has_line(out, "stack\tcpu-clock: app (pid 100)\tmain;[libc.so.6]\t4000000"));
	CHECK(has_line(out, "stack\tcpu-clock: app (pid 100)\tmain;std::vector<int>::push_back(int const&)\t2000000"));
	CHECK(has_line(out, "profile\tcpu-clock: my app (pid 200)\tnanoseconds\t4000000\t4000000"));
	CHECK(has_line(out, "stack\tcpu-clock: my app (pid 200)\tmain;[unknown];entry_SYSCALL_64;do_syscall_64\t4000000"));
	CHECK(has_line(out, "profile\tcpu-clock: :300 (pid 300)\tnanoseconds\t3000000\t3000000"));
	CHECKF(strstr(out, "profile\tcpu-clock: my app") < strstr(out, "profile\tcpu-clock: :300"), "order:\n%s", out);
	free(out);
	perfring_profile_free(p);
}

/* ---- Firefox Profiler ---- */

static int firefox(const struct perfring_profile *p, FILE *f)
{
	return write_titled(p, PERFRING_PROFILE_FIREFOX, "export_profile", f);
}

/*
 * The processed format's tables decoded back (python): a thread per process
 * and thread, the heaviest first, every sample at its time (ms from the
 * first) with its period in ms, and each sample's stack, read back through
 * prefixOffset, frame and func, is its frames root first.
 * tests/cli/export_firefox.sh opens the same file with the Firefox Profiler's
 * own code.
 */
TEST(firefox_json_checked)
{
	char cmd[2048], *out;
	int rc;

	if (!have("python3"))
		SKIP("python3 is not installed");
	struct perfring_profile *p = build();

	REQUIRE(p);
	char *path = write_file("profile.firefox.json", firefox, p);

	REQUIRE(path);
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' '%s' 2>&1",
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1])); sh = d[\"shared\"]; st = sh[\"stackTable\"]; s = sh[\"stringArray\"]\n"
		 "assert d[\"meta\"][\"preprocessedProfileVersion\"] == 75 and d[\"meta\"][\"interval\"] == 1\n"
		 "def stack(i):\n"
		 "    out = []\n"
		 "    while True:\n"
		 "        out.append(s[sh[\"funcTable\"][\"name\"][sh[\"frameTable\"][\"func\"][st[\"frame\"][i]]]])\n"
		 "        if st[\"prefixOffset\"][i] == 0: return \";\".join(reversed(out))\n"
		 "        i -= st[\"prefixOffset\"][i]\n"
		 "for t in d[\"threads\"]:\n"
		 "    sm = t[\"samples\"]\n"
		 "    assert sm[\"length\"] == len(sm[\"stack\"]) == len(sm[\"time\"]) == len(sm[\"weight\"])\n"
		 "    assert sm[\"time\"] == sorted(sm[\"time\"])\n"
		 "    w = {}\n"
		 "    for k, x in zip(sm[\"stack\"], sm[\"weight\"]): w[stack(k)] = w.get(stack(k), 0) + x\n"
		 "    print(t[\"name\"], t[\"pid\"], t[\"tid\"], sm[\"weightType\"], sm[\"time\"][0], \" \".join(\"%s=%g\" % kv for kv in sorted(w.items())))\n",
		 path);
	out = run(cmd, &rc);
	REQUIREF(out && rc == 0, "the Firefox profile does not decode (%d): %s", rc, out ? out : "");
	if (getenv("EXPORT_VERBOSE"))
		printf("%s\n", out);
	/* app's main thread: 5 x 1 ms in compute, 2 x 2 ms in libc, 2 x 1 ms in push_back (11 ms, first);
	 * then my app (4 ms), app's thread 101 (3 ms), and pid 300 (3 ms; no comm: ":300", as perf). */
	const char *want = "app 100 100 tracing-ms 0.0 main;[libc.so.6]=4 main;std::vector<int>::push_back(int const&)=2 "
			   "main;work;compute=5\n"
			   "my app 200 200 tracing-ms 3.0 main;[unknown];entry_SYSCALL_64;do_syscall_64=4\n"
			   "app 100 101 tracing-ms 1.0 main;work;memcpy=3\n"
			   ":300 300 300 tracing-ms 4.0 main=3\n";

	CHECKF(!strcmp(out, want), "decoded:\n%s\nwant:\n%s", out, want);
	free(out);
	/* Without the timeline, the export says so (-EINVAL) rather than write samples without times. */
	const char *ev[] = { "cpu-clock" };
	struct perfring_profile *q = new_profile(ev, 1, false);

	REQUIRE(q);
	CHECK_EQ_INT(write_titled(q, PERFRING_PROFILE_FIREFOX, "x", stdout), -EINVAL);
	perfring_profile_free(q);
	perfring_profile_free(p);
}

TEST(speedscope_escapes_and_utf8)
{
	struct perfring_frame fr[] = { { .addr = 1, .name = "q\"uote\\back\tslash\x01", .file = "f\xc3\xa9.c" },
				   { .addr = 2, .name = "bad\xff\xc3(utf8)\xed\xa0\x80" } };
	struct tsample s = { .pid = 1, .tid = 1, .comm = "x", .period = 1, .frames = fr, .nframes = 2 };
	struct perfring_profile *p = one_sample("cycles", &s);
	char *out;

	REQUIRE(p);
	out = export_mem(p, 's');
	REQUIRE(out);
	CHECK(strstr(out, "\"name\":\"n\\\"ame\""));
	CHECK(strstr(out, "{\"name\":\"q\\\"uote\\\\back\\u0009slash\\u0001\",\"file\":\"f\xc3\xa9.c\"}"));
	CHECK(strstr(out, "{\"name\":\"bad\\ufffd\\ufffd(utf8)\\ufffd\\ufffd\\ufffd\"}"));
	CHECK(strstr(out, "\"unit\":\"none\""));
	free(out);
	perfring_profile_free(p);
}

/* Threads of a process, and addresses of a function, are one speedscope sample; the folded line too. */
TEST(speedscope_merges_threads_and_addresses)
{
	const char *events[] = { "task-clock" };
	struct perfring_profile *p = new_profile(events, 1, false);
	struct perfring_frame f1[] = { APP(0x401100, "work", 30, false), APP(0x401200, "main", 50, false) };
	struct perfring_frame f2[] = { APP(0x401108, "work", 30, false), APP(0x401210, "main", 50, false) };
	struct tsample a = { .pid = 7, .tid = 7, .comm = "t", .period = 10, .frames = f1, .nframes = 2 };
	struct tsample b = { .pid = 7, .tid = 8, .comm = "t", .period = 5, .frames = f2, .nframes = 2 };
	char *out;

	REQUIRE(p);
	REQUIRE(add(p, &a) == 0 && add(p, &b) == 0 && add(p, &b) == 0);
	CHECK_EQ_INT(p->stacks.n, 2);
	out = export_mem(p, 's');
	CHECKF(out && strstr(out, "\"samples\":[[1,0]],\n\"weights\":[20]}"), "speedscope:\n%s", out ? out : "");
	free(out);
	out = export_mem(p, 'F');
	CHECKF(out && strcmp(out, "t;main;work 20\n") == 0, "folded: %s", out ? out : "");
	free(out);
	perfring_profile_free(p);
}

/* ---- arguments and memory ---- */

/* No sample: every export still well-formed (pprof read by go tool pprof, speedscope with a profile). */
TEST(empty_profile)
{
	const char *events[] = { "cpu-clock", "cycles" };
	struct perfring_profile *p = new_profile(events, 2, false);
	char cmd[1024], *out;
	int rc;

	REQUIRE(p);
	out = export_mem(p, 'f');
	CHECK(out && !*out);
	free(out);
	out = export_mem(p, 's');
	CHECK(out && strstr(out, "\"profiles\":[\n{\"type\":\"sampled\",\"name\":\"cpu-clock\",\"unit\":\"nanoseconds\""));
	CHECK(out && strstr(out, "{\"type\":\"sampled\",\"name\":\"cycles\",\"unit\":\"none\""));
	free(out);
	char *path = write_file("empty.speedscope.json", speedscope, p);

	if (path && have("python3")) {
		snprintf(cmd, sizeof(cmd), "python3 tests/helpers/speedscope_check.py '%s' 2>&1", path);
		out = run(cmd, &rc);
		CHECKF(rc == 0, "speedscope_check.py: %s", out ? out : "?");
		free(out);
	}
	path = write_file("empty.pb.gz", pprof, p);
	REQUIRE(path);
	if (have("go")) {
		snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw '%s' 2>&1", tmpdir(), path);
		out = run(cmd, &rc);
		CHECKF(rc == 0 && out && strstr(out, "cpu-clock-samples/count cpu-clock/nanoseconds[dflt] "
							 "cycles-samples/count cycles/count\n"),
		       "go tool pprof -raw (%d): %s", rc, out ? out : "");
		free(out);
	}
	perfring_profile_free(p);
}

TEST(bad_arguments)
{
	const char *events[] = { "cpu-clock", "cycles" };
	struct perfring_profile *p;
	struct perfring_stack nullframes = { .nframes = 3, .frame_sz = sizeof(struct perfring_frame) };
	struct perfring_frame fr = { .addr = 1 };
	struct perfring_stack small = { .nframes = 1, .frame_sz = 8, .frames = &fr };
	struct perfring_profile_label nokey = { .value = "v" };
	struct perfring_profile_sample s = { .sz = sizeof(s), .event = 2 };
	struct perfring_profile_opts bad_sz = { .sz = 4, .event_names = events, .nevents = 2 };

	errno = 0;
	CHECK(new_profile(events, 0, false) == NULL && errno == EINVAL);
	CHECK(new_profile(NULL, 1, false) == NULL && errno == EINVAL);
	CHECK(new_profile(events, 4097, false) == NULL && errno == EINVAL);
	CHECK(perfring_profile_new(NULL) == NULL && errno == EINVAL);
	CHECK(perfring_profile_new(&bad_sz) == NULL && errno == EINVAL);
	p = new_profile(events, 2, false);
	REQUIRE(p);
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL); /* no event 2 */
	CHECK(strstr(perfring_errmsg(), "no event 2"));
	s.event = 1;
	s.stack = &nullframes;
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	s.stack = &small;
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	s.stack = NULL;
	s.labels = &nokey;
	s.nlabels = 1;
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	s.nlabels = 257;
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	s.nlabels = 0;
	s.sz = 0;
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	s.sz = offsetof(struct perfring_profile_sample, period); /* not even a whole sample */
	CHECK_EQ_INT(perfring_profile_add(p, &s), -EINVAL);
	/* a newer program's sample, with a field this library does not know set */
	struct {
		struct perfring_profile_sample s;
		uint64_t more;
	} newer = { .s = s, .more = 1 };

	newer.s.sz = sizeof(newer);
	CHECK_EQ_INT(perfring_profile_add(p, &newer.s), -EINVAL);
	newer.more = 0; /* unknown bytes that are 0 are what this library would read as defaults */
	CHECK_EQ_INT(perfring_profile_add(p, &newer.s), 0);
	s.sz = sizeof(s);
	CHECK_EQ_INT(perfring_profile_add(NULL, &s), -EINVAL);
	CHECK_EQ_INT(perfring_profile_add(p, NULL), -EINVAL);
	/* an empty stack is a sample of its process */
	CHECK_EQ_INT(perfring_profile_add(p, &s), 0);
	CHECK_EQ_INT(perfring_profile_set_sampling(p, 2, 1, false), -EINVAL);
	CHECK_EQ_INT(perfring_profile_set_clock(NULL, 1, 1), -EINVAL);
	CHECK_EQ_INT(write_folded(p, 2, false, stdout), -EINVAL);
	CHECK_EQ_INT(write_folded(NULL, 0, false, stdout), -EINVAL);
	CHECK_EQ_INT(perfring_profile_write(p, PERFRING_PROFILE_PPROF, NULL, NULL), -EINVAL);
	CHECK_EQ_INT(perfring_profile_write(p, (enum perfring_profile_format)99, stdout, NULL), -EOPNOTSUPP);
	/* A write error is -EIO. */
	FILE *full = fopen("/dev/full", "w");

	if (full) {
		CHECK_EQ_INT(write_folded(p, 1, false, full), -EIO);
		CHECK_EQ_INT(perfring_profile_write(p, PERFRING_PROFILE_PPROF, full, NULL), -EIO);
		CHECK_EQ_INT(write_titled(p, PERFRING_PROFILE_SPEEDSCOPE, "x", full), -EIO);
		fclose(full);
	}
	perfring_profile_free(p);
	perfring_profile_free(NULL);
	CHECK_EQ_INT(perfring_profile_reset(NULL), -EINVAL);
}

TEST(memory_per_distinct_item)
{
	struct perfring_profile *p = build();

	REQUIRE(p);
	size_t strs = p->strs.n, locs = p->locs.n, funcs = p->funcs.n, maps = p->maps.n, stacks = p->stacks.n;

	CHECK_EQ_INT(stacks, N(known));
	CHECK_EQ_INT(maps, 3);
	CHECK_EQ_INT(funcs, 7); /* compute work main memcpy do_syscall_64 entry_SYSCALL_64 push_back */
	CHECK_EQ_INT(locs, 10);
	/* 100000 more samples of the known stacks add nothing but counts. */
	for (unsigned i = 0; i < 100000; i++) {
		const struct known *k = &known[i % N(known)];
		struct tsample s = { .pid = k->pid, .tid = k->tid, .comm = k->comm, .period = k->period,
					 .frames = k->frames, .nframes = k->nframes };

		REQUIRE(add(p, &s) == 0);
	}
	CHECK_EQ_INT(p->strs.n, strs);
	CHECK_EQ_INT(p->locs.n, locs);
	CHECK_EQ_INT(p->funcs.n, funcs);
	CHECK_EQ_INT(p->maps.n, maps);
	CHECK_EQ_INT(p->stacks.n, stacks);
	CHECK_EQ_U64(p->nsamples, 17 + 100000);
	perfring_profile_free(p);
}

/* Frames at one address but of other functions or binaries (another process, a reused address)
 * are other locations, however often the first was seen (the location cache is checked). */
TEST(same_address_other_frames)
{
	const char *events[] = { "cycles" };
	struct perfring_profile *p = new_profile(events, 1, false);
	struct perfring_frame a = { .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000 };
	struct perfring_frame variants[] = {
		a,
		{ .addr = 0x1000, .name = "b", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000 },
		{ .addr = 0x1000, .name = "a", .dso = "/y", .mapped = true, .map_start = 0x1000, .map_end = 0x2000 },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x3000 },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000, .line = 3 },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000, .file = "f.c" },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000,
		  .build_id = app_bid, .build_id_size = 20 },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000,
		  .build_id = app_bid, .build_id_size = 19 },
		{ .addr = 0x1000, .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000 },
		{ .addr = 0x1000, .name = "a" },
		{ .addr = 0x1000, .name = "a", .dso = "/x", .mapped = true, .map_start = 0x1000, .map_end = 0x2000, .kernel = true },
	};

	REQUIRE(p);
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < N(variants); i++) {
			/* a first, so that the cache holds a when the variant comes */
			struct tsample sa = { .pid = 1, .tid = 1, .comm = "c", .period = 1, .frames = &a, .nframes = 1 };
			struct tsample s = sa;

			s.frames = &variants[i];
			REQUIRE(add(p, &sa) == 0);
			REQUIRE(add(p, &s) == 0);
			REQUIRE(add(p, &s) == 0);
		}
	}
	CHECK_EQ_INT(p->locs.n, N(variants));
	CHECK_EQ_INT(p->stacks.n, N(variants));
	CHECK_EQ_U64(p->stack_vals[0].count, 3 * (N(variants) + 2));
	for (size_t i = 1; i < p->stacks.n; i++)
		CHECK_EQ_U64(p->stack_vals[i].count, 6);
	char *out = export_mem(p, 'f');

	/* a: 3 rounds of 11 + its own 2 + the 8 other variants named a, twice */
	CHECK(out && strcmp(out, "c;[x] 6\nc;a 87\nc;b 6\n") == 0);
	free(out);
	perfring_profile_free(p);
}

TEST(zz_cleanup)
{
	cleanup();
}

/* The profile layer used as an embedder uses it: only <perfring/profile.h>
 * (and stack.h's frames), no internals. A continuous profiler's interval by
 * hand: stacks built as the library would hand them out (frames frame_sz
 * apart, larger than the struct this test knows, as a newer library's
 * would be), samples with pid, tid, comm and labels (cgroup, host), every
 * format written; pprof decoded by the outside oracle `go tool pprof -raw`
 * (each sample's values and labels), the text formats parsed; then a reset
 * and a second interval, whose pprof holds none of the first one's
 * strings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <zlib.h>

#include <perfring/profile.h>

#include "harness.h"

/* A frame as a newer library could lay it out: the struct, then fields this test does not know. */
struct wide_frame {
	struct perfring_frame f;
	uint64_t future[2];
};

static const uint8_t bid[20] = { 0xaa, 0xbb, 0xcc, 0xdd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static struct perfring_frame user(uint64_t addr, const char *name)
{
	return (struct perfring_frame){ .addr = addr, .name = name, .dso = "/usr/bin/svc", .build_id = bid,
					.build_id_size = 20, .cpumode = 2 /* PERF_RECORD_MISC_USER */,
					.mapped = true, .map_start = 0x400000, .map_end = 0x480000,
					.map_pgoff = 0 };
}

/* A stack of n frames, leaf first, in wide frames (the stack points into w). */
static struct perfring_stack stack_of(struct wide_frame *w, const struct perfring_frame *f, size_t n)
{
	memset(w, 0xff, n * sizeof(*w)); /* the unknown fields hold garbage: the profile must skip them */
	for (size_t i = 0; i < n; i++)
		w[i].f = f[i];
	return (struct perfring_stack){ .nframes = n, .frame_sz = sizeof(*w), .frames = w };
}

static char tmp[64];

static const char *tmpdir(void)
{
	if (!tmp[0]) {
		snprintf(tmp, sizeof(tmp), "/tmp/profile_api.XXXXXX");
		if (!mkdtemp(tmp))
			tmp[0] = 0;
	}
	return tmp;
}

static char *run(const char *cmd, int *rc)
{
	FILE *f = popen(cmd, "r");
	size_t len = 0, cap = 1 << 16, n;
	char *buf = malloc(cap);

	if (!f || !buf) {
		free(buf);
		if (f)
			pclose(f);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b)
				break;
			buf = b;
		}
	}
	buf[len] = 0;
	int st = pclose(f);

	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return buf;
}

/* p as fmt in memory (NUL-terminated, malloc'd), *len its size; NULL when the write failed. */
static char *written(const struct perfring_profile *p, enum perfring_profile_format fmt, size_t *len)
{
	struct perfring_profile_write_opts o = PERFRING_OPTS_INIT(perfring_profile_write_opts, .title = "svc");
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	int err = perfring_profile_write(p, fmt, f, &o);

	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A gzip'd buffer inflated (malloc'd), *out_len its size; NULL when it does not gunzip. */
static char *gunzip(const char *gz, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	int rc = Z_OK;

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)n;
	while (rc == Z_OK) {
		if (len == cap) {
			char *b = realloc(out, cap *= 2);

			if (!b)
				break;
			out = b;
		}
		z.next_out = (Bytef *)out + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	}
	inflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	*out_len = len;
	return out;
}

/* The Sample messages (Profile field 2) of a pprof protobuf: go tool pprof merges samples
 * with equal labels when it reads them, so the file's own count is read here. -1: malformed. */
static int pb_samples(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	int count = 0;

	while (p < end) {
		uint64_t key = 0, v = 0;

		for (int s = 0; p < end && s < 64; s += 7) {
			key |= (uint64_t)(*p & 0x7f) << s;
			if (!(*p++ & 0x80))
				break;
		}
		for (int s = 0; p < end && s < 64; s += 7) {
			v |= (uint64_t)(*p & 0x7f) << s;
			if (!(*p++ & 0x80))
				break;
		}
		if ((key & 7) == 2) {
			if (v > (uint64_t)(end - p))
				return -1;
			p += v;
		} else if ((key & 7) != 0) {
			return -1;
		}
		count += key >> 3 == 2;
	}
	return count;
}

static bool mem_has(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

/* `go tool pprof -raw` of p's pprof (malloc'd output), or NULL (the reason printed). */
static char *pprof_raw(const struct perfring_profile *p, const char *name)
{
	char path[128], cmd[512], *gz, *out;
	size_t len;
	int rc;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir(), name);
	gz = written(p, PERFRING_PROFILE_PPROF, &len);
	if (!gz || !(f = fopen(path, "w")))
		return NULL;
	fwrite(gz, 1, len, f);
	free(gz);
	if (fclose(f))
		return NULL;
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none '%s' 2>&1", tmpdir(), path);
	out = run(cmd, &rc);
	if (out && rc == 0)
		return out;
	printf("go tool pprof -raw %s: %s\n", path, out ? out : "(did not run)");
	free(out);
	return NULL;
}

static bool have_go(void)
{
	return system("command -v go >/dev/null 2>&1") == 0;
}

/* One interval of a service: main -> handle -> parse (or -> write), in two cgroups on one host. */
static int add_interval(struct perfring_profile *p, const char *fn)
{
	struct perfring_frame leaf_parse[] = { user(0x401010, fn), user(0x402020, "handle"), user(0x403030, "main") };
	struct perfring_frame leaf_write[] = { user(0x404040, "write"), user(0x402028, "handle"),
					       user(0x403030, "main") };
	struct wide_frame w[3];
	struct perfring_profile_label a[] = { { "cgroup", "/sys/fs/cgroup/a.slice" }, { "host", "h1" } };
	/* the same labels in the other order: the same sample */
	struct perfring_profile_label a_rev[] = { { "host", "h1" }, { "cgroup", "/sys/fs/cgroup/a.slice" } };
	struct perfring_profile_label b[] = { { "cgroup", "/sys/fs/cgroup/b.slice" }, { "host", "h1" } };
	struct perfring_stack st;
	struct perfring_profile_sample s = { .sz = sizeof(s), .pid = 42, .tid = 43, .comm = "svc",
					     .event = 0, .period = 1000000 };
	uint64_t t = 5000000000ull;
	int err = 0;

	/* cgroup a: 3 samples of parse (2 with the labels one way, 1 the other), 1 of write */
	st = stack_of(w, leaf_parse, 3);
	s.stack = &st;
	s.labels = a;
	s.nlabels = 2;
	for (int i = 0; i < 2 && !err; i++) {
		s.time = t += 1000000;
		err = perfring_profile_add(p, &s);
	}
	s.labels = a_rev;
	s.time = t += 1000000;
	err = err ? err : perfring_profile_add(p, &s);
	st = stack_of(w, leaf_write, 3);
	s.labels = a;
	s.time = t += 1000000;
	err = err ? err : perfring_profile_add(p, &s);
	/* cgroup b: 2 samples of parse, another thread, period 2 ms */
	st = stack_of(w, leaf_parse, 3);
	s.labels = b;
	s.tid = 44;
	s.period = 2000000;
	for (int i = 0; i < 2 && !err; i++) {
		s.time = t += 1000000;
		err = perfring_profile_add(p, &s);
	}
	return err;
}

/* -raw's samples: "   COUNT   PERIOD: LOCS" then label lines. Counts (count, period) per label
 * line set, as "count period labels..." lines, for comparison. */
static void raw_samples(const char *raw, char *out, size_t cap)
{
	const char *p = strstr(raw, "Samples:\n");
	size_t used = 0;

	out[0] = 0;
	if (!p)
		return;
	p = strchr(p + 9, '\n'); /* the types line */
	while (p && p[1] == ' ') {
		unsigned long long count, period;

		if (sscanf(p + 1, " %llu %llu:", &count, &period) != 2)
			break;
		used += (size_t)snprintf(out + used, cap - used, "%llu %llu", count, period);
		p = strchr(p + 1, '\n');
		/* label lines: deeper, "key:[value]" */
		while (p && p[1] == ' ') {
			const char *eol = strchr(p + 1, '\n'), *q = p + 1;

			while (*q == ' ')
				q++;
			if (!eol || *q < 'a' || *q > 'z') /* a sample's line starts with its count */
				break;
			used += (size_t)snprintf(out + used, cap - used, " %.*s", (int)(eol - q), q);
			p = eol;
		}
		used += (size_t)snprintf(out + used, cap - used, "\n");
	}
}

TEST(embedder_writes_every_format)
{
	const char *events[] = { "cpu-clock" };
	struct perfring_profile_opts o = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = events,
							    .nevents = 1, .timeline = true);
	struct perfring_profile *p = perfring_profile_new(&o);
	char *out;
	size_t len;

	REQUIRE(p);
	REQUIREF(add_interval(p, "parse") == 0, "perfring_profile_add: %s", perfring_errmsg());
	REQUIRE(perfring_profile_set_sampling(p, 0, 1000000, false) == 0);

	/* folded: labels do not split lines; threads of a comm share them */
	out = written(p, PERFRING_PROFILE_FOLDED, &len);
	CHECKF(out && !strcmp(out, "svc;main;handle;parse 5\nsvc;main;handle;write 1\n"), "folded:\n%s", out);
	free(out);

	/* speedscope and Firefox: JSON with the frames, by python3's parser when there is one */
	for (int fmt = PERFRING_PROFILE_SPEEDSCOPE; fmt <= PERFRING_PROFILE_FIREFOX; fmt++) {
		char path[128], cmd[256];
		int rc;
		FILE *f;

		out = written(p, (enum perfring_profile_format)fmt, &len);
		REQUIREF(out, "format %d: %s", fmt, perfring_errmsg());
		CHECK(strstr(out, "\"parse\"") && strstr(out, "\"handle\"") && strstr(out, "\"main\""));
		snprintf(path, sizeof(path), "%s/p%d.json", tmpdir(), fmt);
		f = fopen(path, "w");
		REQUIRE(f);
		fwrite(out, 1, len, f);
		fclose(f);
		free(out);
		if (system("command -v python3 >/dev/null 2>&1") == 0) {
			snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s' 2>&1",
				 path);
			out = run(cmd, &rc);
			CHECKF(rc == 0, "format %d is not JSON: %s", fmt, out ? out : "");
			free(out);
		}
	}

	/* pprof: one sample per (thread, labels, stack), labels as given (order aside) */
	char *gz = written(p, PERFRING_PROFILE_PPROF, &len), *pb;
	size_t pblen;

	REQUIRE(gz);
	pb = gunzip(gz, len, &pblen);
	free(gz);
	REQUIRE(pb);
	CHECKF(pb_samples((const uint8_t *)pb, pblen) == 3, "%d samples in the pprof file, want 3",
	       pb_samples((const uint8_t *)pb, pblen));
	free(pb);
	if (!have_go()) {
		perfring_profile_free(p);
		SKIP("go tool pprof is not installed (scripts/install-deps.sh installs golang-go)");
	}
	out = pprof_raw(p, "interval1.pb.gz");
	REQUIRE(out);
	if (getenv("PROFILE_VERBOSE"))
		printf("%s\n", out);
	char samples[4096];

	raw_samples(out, samples, sizeof(samples));
	const char *want = "3 3000000 cgroup:[/sys/fs/cgroup/a.slice] comm:[svc] host:[h1] pid:[42] tid:[43]\n"
			   "1 1000000 cgroup:[/sys/fs/cgroup/a.slice] comm:[svc] host:[h1] pid:[42] tid:[43]\n"
			   "2 4000000 cgroup:[/sys/fs/cgroup/b.slice] comm:[svc] host:[h1] pid:[42] tid:[44]\n";

	CHECKF(!strcmp(samples, want), "pprof -raw samples:\n%s\nwant:\n%s\nraw:\n%s", samples, want, out);
	CHECKF(strstr(out, "0x400000/0x480000/0x0 /usr/bin/svc aabbccdd0102030405060708090a0b0c0d0e0f10"),
	       "mapping:\n%s", out);
	CHECKF(strstr(out, "Period: 1000000\n"), "period:\n%s", out);
	free(out);
	perfring_profile_free(p);
}

/* A profiler writes a file every interval and resets: the next file holds only the next
 * interval's samples and strings, so memory follows what one interval names. */
TEST(reset_between_intervals)
{
	const char *events[] = { "cpu-clock" };
	struct perfring_profile_opts o = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = events,
							    .nevents = 1);
	struct perfring_profile *p = perfring_profile_new(&o);
	char *gz, *pb, *out;
	size_t len, pblen;

	REQUIRE(p);
	REQUIRE(add_interval(p, "parse_interval_one") == 0);
	REQUIRE(perfring_profile_set_clock(p, 1000000000ull, 1700000000000000000ull) == 0);
	REQUIRE(perfring_profile_reset(p) == 0);
	out = written(p, PERFRING_PROFILE_FOLDED, &len);
	CHECKF(out && len == 0, "folded after a reset: %s", out ? out : "(failed)");
	free(out);
	REQUIRE(add_interval(p, "parse_interval_two") == 0);
	out = written(p, PERFRING_PROFILE_FOLDED, &len);
	CHECKF(out && !strcmp(out, "svc;main;handle;parse_interval_two 5\nsvc;main;handle;write 1\n"), "folded:\n%s", out);
	free(out);
	/* pprof writes its whole string table: the first interval's function is not in it */
	gz = written(p, PERFRING_PROFILE_PPROF, &len);
	REQUIRE(gz);
	pb = gunzip(gz, len, &pblen);
	free(gz);
	REQUIRE(pb);
	CHECK(mem_has(pb, pblen, "parse_interval_two"));
	CHECK(mem_has(pb, pblen, "cpu-clock"));
	CHECK(!mem_has(pb, pblen, "parse_interval_one"));
	free(pb);
	if (have_go()) {
		/* the clock stays: the time is the wall-clock one (perf 5.001 s = 1700000000 + 4.001 s) */
		out = pprof_raw(p, "interval2.pb.gz");
		REQUIRE(out);
		CHECKF(strstr(out, "Time: 2023-11-14 22:13:24.001 +0000 UTC\n"), "time:\n%s", out);
		free(out);
	}
	perfring_profile_free(p);
}

TEST(zz_cleanup)
{
	char cmd[128];

	if (tmp[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		CHECK(system(cmd) == 0);
	}
}

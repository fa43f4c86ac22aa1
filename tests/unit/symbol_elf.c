// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer on ELF files, against outside oracles: the build's
 * tests/helpers/sym_target (-g, known noinline functions) whose names,
 * addresses and sizes come from `nm`, file offsets from the test's own
 * program-header reader, lines and inlined frames from `llvm-symbolizer`,
 * build ids from `readelf -n`. Copies made with objcopy: stripped (names
 * from .dynsym, or unknown: never a wrong one), a debug file found by build
 * id, MiniDebugInfo (.gnu_debugdata); a missing file and a replaced one
 * (build id mismatch) give unknown with the reason.
 */
#include "harness.h"
#include "unit/symtest.h"

#define MAXSYM 32

static char target[PATH_MAX];
static struct st_sym syms[MAXSYM];
static int nsyms;

static bool setup(void)
{
	if (nsyms > 0)
		return true;
	if (st_helper("sym_target", target, sizeof(target)))
		return false;
	nsyms = st_nm(target, "symt_", syms, MAXSYM);
	return nsyms >= 5;
}

static const struct st_sym *find_sym(const char *name)
{
	int i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return &syms[i];
	return NULL;
}

static struct perfring_symbolizer *new_sym(bool lines, const char *debug_dir)
{
	const char *dirs[2] = { debug_dir, NULL };
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .lines = lines,
							       .inlines = lines, .debug_dirs = dirs, .kallsyms = "",
							       .jit_dir = "");

	return perfring_symbolizer_new(&o);
}

/* Symbolize ELF address vaddr of file (through its file offset). */
static int sym_vaddr(struct perfring_symbolizer *s, const char *file, const uint8_t *bid, size_t nbid,
		     uint64_t vaddr, struct perfring_sym_result *r)
{
	uint64_t off;

	if (st_vaddr_to_off(file, vaddr, &off))
		return -9999;
	return perfring_symbolize_file(s, file, bid, nbid, off, r);
}

TEST(symbol_names_match_nm)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	int i, rc;

	if (!setup())
		SKIP("tests/helpers/sym_target not built or nm missing");
	s = new_sym(false, NULL);
	REQUIRE(s);
	for (i = 0; i < nsyms; i++) {
		rc = sym_vaddr(s, target, NULL, 0, syms[i].addr, &r);
		CHECKF(rc == 0 && r.name && !strcmp(r.name, syms[i].name) && r.offset == 0,
		       "%s at %#llx: rc %d name %s+%#llx (%s)", syms[i].name, (unsigned long long)syms[i].addr, rc,
		       r.name ? r.name : "NULL", (unsigned long long)r.offset, r.reason ? r.reason : "");
		CHECK_EQ_U64(r.sym_addr, syms[i].addr);
		CHECK_EQ_U64(r.sym_size, syms[i].size);
		CHECK_EQ_U64(r.elf_addr, syms[i].addr);
		CHECK_EQ_INT(r.source, PERFRING_SYM_SYMTAB);
		CHECK(r.binary && !strcmp(r.binary, target));
		if (syms[i].size > 5) {
			rc = sym_vaddr(s, target, NULL, 0, syms[i].addr + 5, &r);
			CHECKF(rc == 0 && r.name && !strcmp(r.name, syms[i].name) && r.offset == 5,
			       "%s+5: rc %d name %s+%#llx", syms[i].name, rc, r.name ? r.name : "NULL",
			       (unsigned long long)r.offset);
		}
		/* The last byte is still the function. */
		rc = sym_vaddr(s, target, NULL, 0, syms[i].addr + syms[i].size - 1, &r);
		CHECKF(rc == 0 && r.name && !strcmp(r.name, syms[i].name), "%s's last byte: %s", syms[i].name,
		       r.name ? r.name : r.reason);
	}
	perfring_symbolizer_free(s);
}

/* Data objects name their addresses too, flagged (perf report shows them
 * NAME+0xOFFSET); functions are not flagged. */
TEST(symbol_objects_match_nm)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	struct st_sym obj[8];
	int i, n, rc;

	if (!setup())
		SKIP("tests/helpers/sym_target not built or nm missing");
	n = st_nm_types(target, "symt_", "DdRr", obj, 8);
	REQUIREF(n == 2, "nm shows %d of symt_table and symt_data", n);
	s = new_sym(false, NULL);
	REQUIRE(s);
	for (i = 0; i < n; i++) {
		rc = sym_vaddr(s, target, NULL, 0, obj[i].addr + obj[i].size / 2, &r);
		CHECKF(rc == 0 && r.name && !strcmp(r.name, obj[i].name) && r.offset == obj[i].size / 2,
		       "%s: rc %d name %s (%s)", obj[i].name, rc, r.name ? r.name : "NULL", r.reason ? r.reason : "");
		CHECK_EQ_INT(r.flags, PERFRING_SYM_OBJECT);
		CHECK_EQ_U64(r.sym_size, obj[i].size);
	}
	for (i = 0; i < nsyms; i++) {
		rc = sym_vaddr(s, target, NULL, 0, syms[i].addr, &r);
		CHECKF(rc == 0 && r.flags == 0, "%s: rc %d flags %u", syms[i].name, rc, r.flags);
	}
	perfring_symbolizer_free(s);
}

TEST(symbol_cache_resolves_once)
{
	struct perfring_symbolizer *s;
	struct perfring_symbolizer_stats st;
	struct perfring_sym_result r;
	const struct st_sym *a;
	int i;

	if (!setup() || !(a = find_sym("symt_beta")))
		SKIP("tests/helpers/sym_target not built");
	s = new_sym(true, NULL);
	REQUIRE(s);
	for (i = 0; i < 1000; i++)
		REQUIRE(sym_vaddr(s, target, NULL, 0, a->addr + 3, &r) == 0);
	REQUIRE(perfring_symbolizer_stats(s, &st) == 0);
	CHECK_EQ_U64(st.lookups, 1000);
	CHECK_EQ_U64(st.cache_hits, 999);
	CHECK_EQ_U64(st.binaries, 1);
	CHECK_EQ_U64(st.resolved, 1000);
	CHECK(st.symbols >= (uint64_t)nsyms);
	perfring_symbolizer_free(s);
}

TEST(symbol_build_id_matches_readelf)
{
	uint8_t id[PERFRING_BUILD_ID_MAX];
	char hex[64], oracle[64];
	int n;

	if (!setup())
		SKIP("tests/helpers/sym_target not built");
	if (st_readelf_build_id(target, oracle, sizeof(oracle)))
		SKIP("readelf -n shows no build id for %s", target);
	n = perfring_elf_build_id(target, id);
	REQUIREF(n > 0, "perfring_elf_build_id: %d %s", n, perfring_errmsg());
	st_hex(id, (size_t)n, hex);
	CHECKF(!strcmp(hex, oracle), "build id %s, readelf says %s", hex, oracle);
	CHECK_EQ_INT(perfring_elf_build_id("/nonexistent/file", id), -ENOENT);
	CHECK_EQ_INT(perfring_elf_build_id("/proc/self/status", id), -ENOEXEC);
}

TEST(symbol_build_id_mismatch_is_unknown)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	uint8_t id[PERFRING_BUILD_ID_MAX], other[PERFRING_BUILD_ID_MAX];
	const struct st_sym *a;
	char dir[64], copy[PATH_MAX];
	uint64_t off;
	int n, rc;

	if (!setup() || !(a = find_sym("symt_alpha")))
		SKIP("tests/helpers/sym_target not built");
	n = perfring_elf_build_id(target, id);
	REQUIRE(n > 0);
	REQUIRE(st_vaddr_to_off(target, a->addr, &off) == 0);
	s = new_sym(false, NULL);
	REQUIRE(s);
	/* The right build id: named. */
	rc = perfring_symbolize_file(s, target, id, (size_t)n, off, &r);
	CHECKF(rc == 0 && r.name && !strcmp(r.name, "symt_alpha"), "rc %d %s", rc, r.reason ? r.reason : "");
	/* Another one: unknown, with the reason. */
	memcpy(other, id, (size_t)n);
	other[0] ^= 0xff;
	rc = perfring_symbolize_file(s, target, other, (size_t)n, off, &r);
	CHECK_EQ_INT(rc, -ESTALE);
	CHECK(r.name == NULL);
	CHECKF(r.reason && strstr(r.reason, "build id mismatch"), "reason: %s", r.reason ? r.reason : "NULL");
	CHECKF(strstr(perfring_errmsg(), "build id mismatch"), "errmsg: %s", perfring_errmsg());

	/* The file replaced after recording (same name, other contents). */
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(copy, sizeof(copy), "%s/prog", dir);
	REQUIRE(st_run(NULL, 0, "cp '%s' '%s'", target, copy) == 0);
	rc = perfring_symbolize_file(s, copy, id, (size_t)n, off, &r);
	CHECKF(rc == 0 && r.name && !strcmp(r.name, "symt_alpha"), "copy: rc %d %s", rc, r.reason ? r.reason : "");
	perfring_symbolizer_free(s);
	REQUIRE(st_run(NULL, 0, "cp /bin/true '%s'", copy) == 0);
	s = new_sym(false, NULL);
	REQUIRE(s);
	rc = perfring_symbolize_file(s, copy, id, (size_t)n, off, &r);
	CHECK_EQ_INT(rc, -ESTALE);
	CHECK(r.name == NULL);
	CHECKF(r.reason && strstr(r.reason, "build id mismatch") && strstr(r.reason, copy), "reason: %s",
	       r.reason ? r.reason : "NULL");
	/* ... unless a build-id directory keeps the recorded binary (perf's cache layout). */
	{
		char hex[64], cache[2 * PATH_MAX], dirs_root[PATH_MAX];

		st_hex(id, (size_t)n, hex);
		snprintf(dirs_root, sizeof(dirs_root), "%s/cache", dir);
		snprintf(cache, sizeof(cache), "%s/.build-id/%.2s/%s", dirs_root, hex, hex + 2);
		REQUIRE(st_run(NULL, 0, "mkdir -p '%s' && cp '%s' '%s/elf'", cache, target, cache) == 0);
		perfring_symbolizer_free(s);
		s = new_sym(false, dirs_root);
		REQUIRE(s);
		rc = perfring_symbolize_file(s, copy, id, (size_t)n, off, &r);
		CHECKF(rc == 0 && r.name && !strcmp(r.name, "symt_alpha"), "from the cache: rc %d %s", rc,
		       r.reason ? r.reason : "");
		CHECK(r.debug_file && strstr(r.debug_file, "/.build-id/"));
	}
	perfring_symbolizer_free(s);
	st_rmdir(dir);
}

TEST(symbol_missing_file_is_unknown)
{
	struct perfring_symbolizer *s = new_sym(false, NULL);
	struct perfring_sym_result r;
	int rc;

	REQUIRE(s);
	rc = perfring_symbolize_file(s, "/nonexistent/perfring/libgone.so", NULL, 0, 0x1234, &r);
	CHECK_EQ_INT(rc, -ENOENT);
	CHECK(r.name == NULL);
	CHECKF(r.reason && strstr(r.reason, "missing"), "reason: %s", r.reason ? r.reason : "NULL");
	/* Not an ELF file. */
	rc = perfring_symbolize_file(s, "/proc/self/status", NULL, 0, 0, &r);
	CHECK_EQ_INT(rc, -ENOEXEC);
	CHECK(r.name == NULL && r.reason);
	perfring_symbolizer_free(s);
}

/* A recording names a FIFO (or a terminal) as a mapped file: refused at
 * once, not opened for reading (that blocks until a writer comes). */
TEST(symbol_fifo_is_refused_not_waited_for)
{
	struct perfring_symbolizer *s = new_sym(false, NULL);
	struct perfring_sym_result r;
	char dir[64], fifo[128];
	int rc;

	REQUIRE(s);
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	REQUIRE(mkfifo(fifo, 0600) == 0);
	alarm(20); /* a blocked open fails the test instead of hanging it */
	rc = perfring_symbolize_file(s, fifo, NULL, 0, 0x1000, &r);
	alarm(0);
	CHECK_EQ_INT(rc, -ENOEXEC);
	CHECK(r.name == NULL && r.reason);
	unlink(fifo);
	perfring_symbolizer_free(s);
	st_rmdir(dir);
}

TEST(symbol_stripped_uses_dynsym_or_says_unknown)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	char dir[64], stripped[PATH_MAX];
	int i, rc, named = 0;

	if (!setup())
		SKIP("tests/helpers/sym_target not built");
	if (!st_have("objcopy"))
		SKIP("objcopy missing");
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	REQUIRE(st_run(NULL, 0, "objcopy --strip-all '%s' '%s'", target, stripped) == 0);
	s = new_sym(true, NULL);
	REQUIRE(s);
	for (i = 0; i < nsyms; i++) {
		rc = sym_vaddr(s, stripped, NULL, 0, syms[i].addr + 1, &r);
		if (syms[i].type == 'T') {
			/* Exported (-rdynamic): .dynsym still names it. */
			CHECKF(rc == 0 && r.name && !strcmp(r.name, syms[i].name) && r.offset == 1 &&
			       r.source == PERFRING_SYM_DYNSYM, "%s: rc %d %s (%s)", syms[i].name, rc,
			       r.name ? r.name : "NULL", r.reason ? r.reason : "");
			CHECK(r.nr_frames == 0); /* no DWARF left */
			named++;
		} else {
			/* Only .symtab had it: unknown, never a neighbour's name. */
			CHECKF(rc < 0 && r.name == NULL && r.reason, "%s: rc %d name %s", syms[i].name, rc,
			       r.name ? r.name : "NULL");
		}
	}
	CHECK(named >= 4);
	perfring_symbolizer_free(s);
	st_rmdir(dir);
}

/* Frames of llvm-symbolizer --inlining for each address: per address, "function\nfile:line:col\n"
 * pairs, then a blank line. One run for all the addresses of a function. */
struct oracle_frame {
	char fn[64], file[256];
	unsigned line;
};

#define MAXADDR 64
#define MAXFR 8

static int llvm_frames(const char *file, const uint64_t *addrs, int naddr, struct oracle_frame (*out)[MAXFR],
		       int *nframes)
{
	static char buf[1 << 18];
	char cmd[4096], *p, *end;
	size_t len;
	int a = 0, k;

	len = (size_t)snprintf(cmd, sizeof(cmd), "llvm-symbolizer --inlining --obj='%s'", file);
	for (k = 0; k < naddr && len < sizeof(cmd) - 24; k++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %#llx", (unsigned long long)addrs[k]);
	if (st_run(buf, sizeof(buf), "%s", cmd) != 0)
		return -1;
	memset(nframes, 0, sizeof(*nframes) * (size_t)naddr);
	for (p = buf; *p && a < naddr; p = end) {
		char *nl = strchr(p, '\n'), *loc, *colon;

		if (!nl)
			break;
		if (nl == p) { /* blank line: next address */
			a++;
			end = nl + 1;
			continue;
		}
		*nl = '\0';
		loc = nl + 1;
		nl = strchr(loc, '\n');
		if (!nl)
			break;
		*nl = '\0';
		end = nl + 1;
		k = nframes[a];
		if (k >= MAXFR)
			continue;
		snprintf(out[a][k].fn, sizeof(out[a][k].fn), "%.63s", p);
		/* file:line:col (col may be absent) */
		colon = strrchr(loc, ':');
		if (colon && strchr(loc, ':') != colon) {
			*colon = '\0';
			colon = strrchr(loc, ':');
		}
		out[a][k].line = colon ? (unsigned)atoi(colon + 1) : 0;
		if (colon)
			*colon = '\0';
		snprintf(out[a][k].file, sizeof(out[a][k].file), "%.255s", loc);
		nframes[a]++;
	}
	return 0;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : (p ? p : "");
}

/* Every third byte of every function: the innermost file:line, and the inline chain, as
 * llvm-symbolizer says. */
static void check_lines(const char *file, const char *debug_dir, int *compared)
{
	static struct oracle_frame of[MAXADDR][MAXFR];
	struct perfring_symbolizer *s = new_sym(true, debug_dir);
	struct perfring_sym_result r;
	uint64_t addrs[MAXADDR];
	int nfr[MAXADDR];
	int i, j, k, rc, n, na, inlined_seen = 0;

	if (!s) {
		th_fail(__FILE__, __LINE__, "symbolizer_new: %s", perfring_errmsg());
		return;
	}
	for (i = 0; i < nsyms; i++) {
		for (na = 0; na < MAXADDR && (uint64_t)na * 3 < syms[i].size; na++)
			addrs[na] = syms[i].addr + (uint64_t)na * 3;
		if (llvm_frames(target, addrs, na, of, nfr)) {
			th_fail(__FILE__, __LINE__, "llvm-symbolizer failed");
			break;
		}
		for (j = 0; j < na; j++) {
			uint64_t a = addrs[j];

			n = nfr[j];
			if (n <= 0)
				continue;
			rc = sym_vaddr(s, file, NULL, 0, a, &r);
			if (rc) {
				th_fail(__FILE__, __LINE__, "%#llx: rc %d %s", (unsigned long long)a, rc, r.reason);
				continue;
			}
			(*compared)++;
			CHECKF(r.file && !strcmp(base(r.file), base(of[j][0].file)) && r.line == of[j][0].line,
			       "%#llx: %s:%u, llvm-symbolizer %s:%u", (unsigned long long)a, r.file ? r.file : "NULL",
			       r.line, of[j][0].file, of[j][0].line);
			CHECKF((int)r.nr_frames == n, "%#llx: %u frames, llvm-symbolizer %d", (unsigned long long)a,
			       r.nr_frames, n);
			for (k = 0; k < n && k < (int)r.nr_frames; k++) {
				CHECKF(r.frames[k].function && !strcmp(r.frames[k].function, of[j][k].fn) &&
				       r.frames[k].line == of[j][k].line,
				       "%#llx frame %d: %s line %u, llvm-symbolizer %s line %u", (unsigned long long)a,
				       k, r.frames[k].function ? r.frames[k].function : "NULL", r.frames[k].line,
				       of[j][k].fn, of[j][k].line);
			}
			if (n > 1)
				inlined_seen++;
		}
	}
	CHECKF(inlined_seen > 0, "no address inside symt_inlined() (inlined into symt_outer) was compared");
	perfring_symbolizer_free(s);
}

TEST(symbol_lines_match_llvm_symbolizer)
{
	int compared = 0;

	if (!setup())
		SKIP("tests/helpers/sym_target not built");
	if (!st_have("llvm-symbolizer"))
		SKIP("llvm-symbolizer missing (the oracle)");
	check_lines(target, NULL, &compared);
	printf("  %d addresses compared\n", compared);
	CHECK(compared > 50);
}

/*
 * The functions DWARF names, innermost first, as addr2line (binutils, which
 * perf asks) names them: a C++ function by its linkage (mangled) name, of an
 * assembler's several subprograms over one function's bytes the last. Every
 * third byte of names_work's functions (C++, and assembly with three names).
 */
TEST(symbol_dwarf_names_match_addr2line)
{
	static char out[1 << 16];
	struct st_sym fns[64];
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	char work[PATH_MAX];
	int n, i, compared = 0, mangled = 0, asm_last = 0;

	if (st_helper("names_work", work, sizeof(work)) || (n = st_nm(work, "", fns, 64)) < 4)
		SKIP("tests/helpers/names_work not built");
	if (!st_have("addr2line"))
		SKIP("addr2line (binutils) missing: the oracle");
	s = new_sym(true, NULL);
	REQUIREF(s, "symbolizer_new: %s", perfring_errmsg());
	for (i = 0; i < n; i++) {
		uint64_t a;

		if (strncmp(fns[i].name, "_ZN5names", 9) && strstr(fns[i].name, "names_asm_loop") == NULL)
			continue;
		for (a = fns[i].addr; a < fns[i].addr + fns[i].size; a += 3) {
			char *line, *save = NULL;
			uint32_t k = 0;

			if (sym_vaddr(s, work, NULL, 0, a, &r) ||
			    st_run(out, sizeof(out), "addr2line -f -i -e '%s' %#llx", work, (unsigned long long)a)) {
				th_fail(__FILE__, __LINE__, "%s+%#llx: perfring gave no name, or addr2line failed",
					fns[i].name, (unsigned long long)(a - fns[i].addr));
				continue;
			}
			/* addr2line -f -i: a function line, then its file:line, innermost first */
			for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
				CHECKF(k < r.nr_frames && r.frames[k].function && !strcmp(r.frames[k].function, line),
				       "%#llx frame %u: perfring %s, addr2line %s", (unsigned long long)a, k,
				       k < r.nr_frames && r.frames[k].function ? r.frames[k].function : "(none)", line);
				mangled += !strncmp(line, "_ZN5names", 9);
				asm_last += !strcmp(line, "__GI_names_asm_loop");
				strtok_r(NULL, "\n", &save); /* its file:line */
			}
			CHECKF(k == r.nr_frames, "%#llx: perfring %u frames, addr2line %u", (unsigned long long)a,
			       r.nr_frames, k);
			compared++;
		}
	}
	printf("  %d addresses compared (%d C++ linkage names, %d of the assembler's last name)\n", compared,
	       mangled, asm_last);
	CHECK(compared > 20 && mangled > 0 && asm_last > 0);
	perfring_symbolizer_free(s);
}

/* One program asked, address after address, of addr2line (one process, as perf runs it) and of
 * the symbolizer (a new one), in the order of idx: the same frames. Returns the addresses
 * compared; *symbol_named / *source_named count addr2line's answers that name a function
 * without a linkage name by the ELF symbol / by its source name. */
static int a2l_same_order(const char *bin, const char *dir, const uint64_t *addrs, const size_t *idx, size_t n,
			  int *symbol_named, int *source_named)
{
	char in[PATH_MAX], outp[PATH_MAX], line[65536];
	struct perfring_symbolizer *s = new_sym(true, NULL);
	struct perfring_sym_result r;
	FILE *f;
	size_t i;
	uint32_t k = 0;
	int compared = 0, have = 0;

	snprintf(in, sizeof(in), "%s/addrs", dir);
	snprintf(outp, sizeof(outp), "%s/a2l.out", dir);
	f = fopen(in, "w");
	if (!f || !s)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(f, "%#llx\n", (unsigned long long)addrs[idx[i]]);
	fclose(f);
	if (st_run(NULL, 0, "addr2line -f -i -a -e '%s' < '%s' > '%s'", bin, in, outp) != 0 || !(f = fopen(outp, "r")))
		return -1;
	/* -a: each answer starts with the address, then function and file:line lines, innermost first */
	i = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2)) {
			if (have)
				CHECKF(k == r.nr_frames, "%#llx: perfring %u frames, addr2line %u",
				       (unsigned long long)r.elf_addr, r.nr_frames, k);
			if (i >= n || sym_vaddr(s, bin, NULL, 0, addrs[idx[i++]], &r) != 0)
				break;
			have = 1;
			k = 0;
			compared++;
			continue;
		}
		CHECKF(k < r.nr_frames && r.frames[k].function && !strcmp(r.frames[k].function, line),
		       "%#llx frame %u: perfring %s, addr2line %s", (unsigned long long)r.elf_addr, k,
		       k < r.nr_frames && r.frames[k].function ? r.frames[k].function : "(none)", line);
		*symbol_named += !strncmp(line, "_ZSt16__introsort_loop", 22);
		*source_named += !strncmp(line, "__introsort_loop<", 17);
		k++;
		if (!fgets(line, sizeof(line), f)) /* its file:line */
			break;
	}
	if (have)
		CHECK(k == r.nr_frames);
	fclose(f);
	perfring_symbolizer_free(s);
	return compared;
}

/*
 * g++ writes no linkage name for std::sort's helpers over a lambda local to
 * main; addr2line (whose answers perf shows) names such a function by the
 * ELF symbol the first time it is the innermost one at an address asked,
 * then by its source name, and for good by the symbol when the function
 * starts there: the symbolizer's answers are addr2line's, asked in the same
 * order (every byte of the program's functions, ascending, then in a
 * scattered order).
 */
TEST(symbol_dwarf_names_in_addr2line_order)
{
	static const char prog[] =
		"#include <algorithm>\n#include <vector>\n#include <cstdlib>\n"
		"template <typename T> struct P { T x, y; int id; };\n"
		"int main(int argc, char **argv) {\n"
		"  std::vector<P<double>> v(1000 + argc);\n"
		"  for (auto &p : v) { p.x = rand() % 1000; p.y = rand() % 7; }\n"
		"  std::sort(v.begin(), v.end(), [](const P<double> &a, const P<double> &b) {\n"
		"    return a.x * a.x + a.y < b.x * b.x + b.y; });\n"
		"  return (int)v[argc].x;\n}\n";
	static struct st_sym fns[512];
	static uint64_t addrs[200000];
	static size_t idx[200000];
	char dir[64], src[PATH_MAX], bin[PATH_MAX];
	int nf, i, symbol_named = 0, source_named = 0, c1, c2;
	size_t n = 0, j, stride = 7919;
	FILE *f;

	if (!st_have("g++") || !st_have("addr2line"))
		SKIP("g++ or addr2line (binutils: the oracle) missing");
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(src, sizeof(src), "%s/sort.cc", dir);
	snprintf(bin, sizeof(bin), "%s/sort", dir);
	f = fopen(src, "w");
	REQUIRE(f);
	fputs(prog, f);
	fclose(f);
	REQUIRE(st_run(NULL, 0, "g++ -O2 -g -o '%s' '%s' 2>&1", bin, src) == 0);
	nf = st_nm(bin, "", fns, 512);
	REQUIRE(nf > 0);
	for (i = 0; i < nf; i++)
		if (!strncmp(fns[i].name, "_ZSt", 4) || !strcmp(fns[i].name, "main"))
			for (j = 0; j < fns[i].size && n < 200000; j++)
				addrs[n++] = fns[i].addr + j;
	REQUIRE(n > 100);
	for (j = 0; j < n; j++)
		idx[j] = j;
	c1 = a2l_same_order(bin, dir, addrs, idx, n, &symbol_named, &source_named);
	while (n % stride == 0)
		stride += 2;
	for (j = 0; j < n; j++)
		idx[j] = (j * stride) % n;
	c2 = a2l_same_order(bin, dir, addrs, idx, n, &symbol_named, &source_named);
	printf("  %d and %d addresses compared (%d frames named by the symbol, %d by the source name)\n", c1, c2,
	       symbol_named, source_named);
	CHECK(c1 == (int)n && c2 == (int)n && symbol_named > 0 && source_named > 0);
	st_rmdir(dir);
}

/*
 * rustc puts every function in the namespaces of its module and impl, where
 * elfutils' dwarf_getscopes() does not look: the symbolizer finds them all
 * the same, with the functions inlined there, as addr2line does (every
 * byte of the program's own functions, asked in the same order).
 */
TEST(symbol_dwarf_rust_functions_in_namespaces)
{
	static const char prog[] =
		"use std::collections::HashMap;\n"
		"#[inline(never)]\nfn work(n: u64) -> u64 {\n"
		"    let mut m: HashMap<u64, u64> = HashMap::new();\n"
		"    for i in 0..n { *m.entry(i % 64).or_insert(0) += i; }\n"
		"    m.values().sum()\n}\n"
		"fn main() { println!(\"{}\", work(std::env::args().count() as u64 * 1000)); }\n";
	static struct st_sym fns[4096];
	static uint64_t addrs[200000];
	static size_t idx[200000];
	char dir[64], src[PATH_MAX], bin[PATH_MAX];
	int nf, i, unused1 = 0, unused2 = 0, c;
	size_t n = 0, j;
	FILE *f;

	if (!st_have("rustc") || !st_have("addr2line"))
		SKIP("rustc or addr2line (binutils: the oracle) missing");
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(src, sizeof(src), "%s/work.rs", dir);
	snprintf(bin, sizeof(bin), "%s/work", dir);
	f = fopen(src, "w");
	REQUIRE(f);
	fputs(prog, f);
	fclose(f);
	REQUIRE(st_run(NULL, 0, "rustc -O -g -o '%s' '%s' 2>&1", bin, src) == 0);
	nf = st_nm(bin, "", fns, 4096);
	REQUIRE(nf > 0);
	for (i = 0; i < nf; i++) /* the program's own functions (legacy or v0 mangling) */
		if (strstr(fns[i].name, "4work4work") || strstr(fns[i].name, "4work4main"))
			for (j = 0; j < fns[i].size && n < 200000; j++)
				addrs[n++] = fns[i].addr + j;
	REQUIRE(n > 50);
	for (j = 0; j < n; j++)
		idx[j] = j;
	c = a2l_same_order(bin, dir, addrs, idx, n, &unused1, &unused2);
	printf("  %d addresses of a Rust program compared\n", c);
	CHECK(c == (int)n);
	st_rmdir(dir);
}

TEST(symbol_debug_file_by_build_id)
{
	uint8_t id[PERFRING_BUILD_ID_MAX];
	char dir[64], stripped[PATH_MAX], dbgdir[PATH_MAX], hex[64];
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	const struct st_sym *loc;
	int n, rc, compared = 0;

	if (!setup() || !(loc = find_sym("symt_local")))
		SKIP("tests/helpers/sym_target not built");
	if (!st_have("objcopy") || !st_have("llvm-symbolizer"))
		SKIP("objcopy or llvm-symbolizer missing");
	n = perfring_elf_build_id(target, id);
	REQUIRE(n > 0);
	st_hex(id, (size_t)n, hex);
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	snprintf(dbgdir, sizeof(dbgdir), "%s/debug", dir);
	REQUIRE(st_run(NULL, 0, "objcopy --strip-all '%s' '%s' && mkdir -p '%s/.build-id/%.2s' && "
		       "objcopy --only-keep-debug '%s' '%s/.build-id/%.2s/%s.debug'", target, stripped, dbgdir, hex,
		       target, dbgdir, hex, hex + 2) == 0);
	/* Without the debug directory the static function is unknown ... */
	s = new_sym(false, NULL);
	REQUIRE(s);
	rc = sym_vaddr(s, stripped, NULL, 0, loc->addr, &r);
	CHECK(rc < 0 && r.name == NULL);
	perfring_symbolizer_free(s);
	/* ... with it, named from the debug file's .symtab. */
	s = new_sym(false, dbgdir);
	REQUIRE(s);
	rc = sym_vaddr(s, stripped, NULL, 0, loc->addr + 2, &r);
	CHECKF(rc == 0 && r.name && !strcmp(r.name, "symt_local") && r.offset == 2 &&
	       r.source == PERFRING_SYM_SYMTAB, "rc %d %s (%s)", rc, r.name ? r.name : "NULL",
	       r.reason ? r.reason : "");
	CHECKF(r.debug_file && strstr(r.debug_file, hex + 2), "debug_file %s", r.debug_file ? r.debug_file : "NULL");
	perfring_symbolizer_free(s);
	/* Lines and inlines come from the debug file too. */
	check_lines(stripped, dbgdir, &compared);
	CHECK(compared > 50);
	st_rmdir(dir);
}

TEST(symbol_minidebuginfo)
{
	char dir[64], mini[PATH_MAX];
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	int i, rc;

	if (!setup())
		SKIP("tests/helpers/sym_target not built");
	if (!st_have("objcopy") || !st_have("xz"))
		SKIP("objcopy or xz missing");
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(mini, sizeof(mini), "%s/mini", dir);
	/* As Fedora's MiniDebugInfo: a .symtab-only ELF, xz'd into .gnu_debugdata of a stripped copy. */
	REQUIRE(st_run(NULL, 0, "cd '%s' && objcopy --only-keep-debug '%s' full.debug && "
		       "objcopy --strip-debug --remove-section .comment full.debug symtab.elf && "
		       "xz -f symtab.elf && objcopy --strip-all --remove-section .dynsym --remove-section .dynstr "
		       "'%s' mini 2>/dev/null || objcopy --strip-all '%s' mini; "
		       "objcopy --add-section .gnu_debugdata=symtab.elf.xz mini", dir, target, target, target) == 0);
	s = new_sym(false, NULL);
	REQUIRE(s);
	for (i = 0; i < nsyms; i++) {
		rc = sym_vaddr(s, mini, NULL, 0, syms[i].addr + 1, &r);
		CHECKF(rc == 0 && r.name && !strcmp(r.name, syms[i].name) && r.offset == 1 &&
		       r.source == PERFRING_SYM_DEBUGDATA, "%s: rc %d %s source %d (%s)", syms[i].name, rc,
		       r.name ? r.name : "NULL", r.source, r.reason ? r.reason : "");
	}
	perfring_symbolizer_free(s);
	st_rmdir(dir);
}

TEST(symbol_offset_outside_segments)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	int rc;

	if (!setup())
		SKIP("tests/helpers/sym_target not built");
	s = new_sym(false, NULL);
	REQUIRE(s);
	rc = perfring_symbolize_file(s, target, NULL, 0, 1ull << 40, &r);
	CHECK_EQ_INT(rc, -ENOENT);
	CHECK(r.name == NULL && r.reason && strstr(r.reason, "PT_LOAD"));
	perfring_symbolizer_free(s);
}

/* A section's address and size from readelf -SW. */
static bool section_of(const char *file, const char *name, uint64_t *addr, uint64_t *size)
{
	char buf[256];
	unsigned long long a, sz;

	if (st_run(buf, sizeof(buf), "readelf -SW '%s' | awk '$2 == \"%s\" { print $4, $6 } $3 == \"%s\" { print $5, $7 }'",
		   file, name, name) || sscanf(buf, "%llx %llx", &a, &sz) != 2)
		return false;
	*addr = a;
	*size = sz;
	return true;
}

/*
 * The PLT as perf 6.1 names it (every address of .init and .plt of four
 * binaries, perf script against perfring script, tests/cli/script_oracle.sh):
 * the header, and the first stub after it, are _init's (no size: it runs to
 * the next symbol perf keeps, the second stub), the other stubs NAME@plt in
 * .rela.plt's order.
 */
TEST(symbol_plt_stubs_as_perf)
{
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	uint64_t init, init_sz, plt, plt_sz;
	char name[128];
	int rc;

	if (!setup() || !st_have("readelf"))
		SKIP("tests/helpers/sym_target not built or readelf missing");
	if (!section_of(target, ".init", &init, &init_sz) || !section_of(target, ".plt", &plt, &plt_sz) ||
	    plt_sz < 48 || st_run(name, sizeof(name), "readelf -rW '%s' | awk '/JUMP_SLOT/ { n++; if (n == 2) { sub(/@.*/, \"\", $5); print $5 } }'", target))
		SKIP("sym_target has no .init or no .plt of three entries (linked otherwise)");
	name[strcspn(name, "\n")] = '\0';
	s = new_sym(false, NULL);
	REQUIRE(s);
	/* The first stub: _init's. */
	rc = sym_vaddr(s, target, NULL, 0, plt + 16, &r);
	CHECKF(rc == 0 && r.name && !strcmp(r.name, "_init") && r.offset == plt + 16 - init,
	       "first stub: rc %d %s+%#llx", rc, r.name ? r.name : r.reason, (unsigned long long)r.offset);
	rc = sym_vaddr(s, target, NULL, 0, plt + 31, &r);
	CHECKF(rc == 0 && r.name && !strcmp(r.name, "_init"), "first stub's last byte: %s", r.name ? r.name : r.reason);
	/* The second: the second relocation's function. */
	rc = sym_vaddr(s, target, NULL, 0, plt + 32, &r);
	CHECKF(rc == 0 && r.name && !strncmp(r.name, name, strlen(name)) && !strcmp(r.name + strlen(name), "@plt") &&
		       r.offset == 0 && r.sym_size == 16,
	       "second stub: rc %d %s+%#llx, want %s@plt", rc, r.name ? r.name : r.reason, (unsigned long long)r.offset,
	       name);
	perfring_symbolizer_free(s);
}

TEST(symbolizer_opts_checked)
{
	struct {
		struct perfring_symbolizer_opts o;
		uint64_t extra;
	} big;

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.extra = 1;
	errno = 0;
	CHECK(perfring_symbolizer_new(&big.o) == NULL && errno == EINVAL);
	CHECK(perfring_symbolize_file(NULL, "x", NULL, 0, 0, NULL) == -EINVAL);
	perfring_symbolizer_free(NULL);
}

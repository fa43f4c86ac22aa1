// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The compile units' scope index (src/symbol/sym_scopes.c) against libdw's
 * own walks (dwarf_getscopes(), dwarf_getscopes_die()), which it replaces
 * for speed: on every address of the text of the build's C and C++ test
 * helpers (inlined functions, namespaces, templates, lambdas) and on
 * addresses spread over glibc's text (its debug file from libc6-dbg, where
 * installed: assembler units, inlined instances across many units), the
 * symbolizer gives the same inline chain (functions, files, lines, columns)
 * with the index as with libdw alone (pr_scopes_off). And the DWARF read
 * from zlib-compressed sections (inflated by the symbolizer before libdw
 * opens them, sections naming does not read left out) gives the chains the
 * same binary's uncompressed DWARF gives, and a corrupt stream no crash.
 */
#include "harness.h"
#include "unit/symtest.h"

#include "symbol/sym_scopes.h"

#define MAXADDR 40000

static struct perfring_symbolizer *new_sym(const char *debug_dir)
{
	const char *dirs[2] = { debug_dir, NULL };
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .lines = true,
							       .inlines = true, .debug_dirs = dirs, .kallsyms = "",
							       .jit_dir = "");

	return perfring_symbolizer_new(&o);
}

/* The file offsets of the addresses compared: every stride-th byte of .text. */
static int text_offsets(const char *file, uint64_t stride, uint64_t *offs, int max)
{
	unsigned long long addr, size;
	char out[256];
	int n = 0;
	uint64_t a;

	if (st_run(out, sizeof(out), "readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//' | awk '$1 == \".text\" {print $3, $5}'",
		   file) ||
	    sscanf(out, "%llx %llx", &addr, &size) != 2)
		return -1;
	for (a = addr; a < addr + size && n < max; a += stride)
		if (!st_vaddr_to_off(file, a, &offs[n]))
			n++;
	return n;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Compare the chains of file a (with the index) with file b's (libdw alone
 * when b_libdw), at a's .text addresses; counts addresses and inlined ones. */
static void compare2(const char *fa, const char *fb, bool b_libdw, const char *debug_dir, uint64_t stride,
		     int *compared, int *inlined)
{
	static uint64_t offs[MAXADDR];
	struct perfring_symbolizer *ix = new_sym(debug_dir), *dw = new_sym(debug_dir);
	struct perfring_sym_result a, b;
	int n = text_offsets(fa, stride, offs, MAXADDR), i, k, ra, rb;

	REQUIREF(ix && dw, "symbolizer_new: %s", perfring_errmsg());
	CHECKF(n > 0, "%s: no .text addresses", fa);
	for (i = 0; i < n; i++) {
		pr_scopes_off = false;
		ra = perfring_symbolize_file(ix, fa, NULL, 0, offs[i], &a);
		pr_scopes_off = b_libdw;
		rb = perfring_symbolize_file(dw, fb, NULL, 0, offs[i], &b);
		pr_scopes_off = false;
		if (ra != rb || a.nr_frames != b.nr_frames) {
			th_fail(__FILE__, __LINE__, "%s +%#llx: rc %d, %u frames; %s: rc %d, %u", fa,
				(unsigned long long)offs[i], ra, a.nr_frames, fb, rb, b.nr_frames);
			continue;
		}
		(*compared)++;
		*inlined += a.nr_frames > 1;
		for (k = 0; k < (int)a.nr_frames; k++)
			CHECKF(same_str(a.frames[k].function, b.frames[k].function) &&
				       same_str(a.frames[k].file, b.frames[k].file) && a.frames[k].line == b.frames[k].line &&
				       a.frames[k].column == b.frames[k].column,
			       "%s +%#llx frame %d: %s %s:%u:%u; %s: %s %s:%u:%u", fa, (unsigned long long)offs[i], k,
			       a.frames[k].function ? a.frames[k].function : "NULL",
			       a.frames[k].file ? a.frames[k].file : "NULL", a.frames[k].line, a.frames[k].column, fb,
			       b.frames[k].function ? b.frames[k].function : "NULL",
			       b.frames[k].file ? b.frames[k].file : "NULL", b.frames[k].line, b.frames[k].column);
	}
	perfring_symbolizer_free(ix);
	perfring_symbolizer_free(dw);
}

/* Compare file's chains with and without the index. */
static void compare(const char *file, const char *debug_dir, uint64_t stride, int *compared, int *inlined)
{
	compare2(file, file, true, debug_dir, stride, compared, inlined);
}

TEST(scopes_match_libdw_on_helpers)
{
	static const char *const helpers[] = { "inline_work", "sym_target", "names_work", "prof_work" };
	char path[PATH_MAX];
	int compared = 0, inlined = 0;
	size_t i;

	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (st_helper(helpers[i], path, sizeof(path)))
			continue;
		compare(path, NULL, 1, &compared, &inlined);
	}
	printf("# helpers: %d addresses compared, %d with inlined frames\n", compared, inlined);
	CHECKF(compared > 1000, "only %d addresses compared", compared);
	/* how much the helpers inline depends on the compiler and the sanitizers
	 * (hundreds with gcc -O2, 31 with clang's ASan build): some, at least;
	 * glibc's test below holds thousands whatever built the tests */
	CHECKF(inlined > 0, "no address with inlined frames compared");
}

TEST(scopes_match_libdw_on_glibc)
{
	static const char libc[] = "/lib/x86_64-linux-gnu/libc.so.6";
	char bid[128], dbg[PATH_MAX];
	int compared = 0, inlined = 0;

	if (st_readelf_build_id(libc, bid, sizeof(bid)) || strlen(bid) < 3)
		SKIP("no build id in %s", libc);
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	if (access(dbg, R_OK))
		SKIP("no debug file %s (libc6-dbg)", dbg);
	compare(libc, "/usr/lib/debug", 499, &compared, &inlined);
	printf("# glibc: %d addresses compared, %d with inlined frames\n", compared, inlined);
	CHECKF(compared > 1000, "only %d addresses compared", compared);
	CHECKF(inlined > 50, "only %d addresses with inlined frames compared", inlined);
}

TEST(compressed_dwarf_names_as_uncompressed)
{
	static const char *const helpers[] = { "inline_work", "sym_target", "names_work", "prof_work" };
	char tmp[PATH_MAX], helper[PATH_MAX], z[PATH_MAX + 16], plain[PATH_MAX + 16], bad[PATH_MAX + 16];
	int compared = 0, inlined = 0, found = 0;
	size_t i;

	if (!st_have("objcopy"))
		SKIP("no objcopy");
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		found += !st_helper(helpers[i], helper, sizeof(helper));
	if (!found)
		SKIP("no test helpers built");
	REQUIRE(!st_tmpdir(tmp, sizeof(tmp)));
	snprintf(z, sizeof(z), "%s/z", tmp);
	snprintf(plain, sizeof(plain), "%s/plain", tmp);
	snprintf(bad, sizeof(bad), "%s/bad", tmp);
	for (i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		if (st_helper(helpers[i], helper, sizeof(helper)))
			continue;
		REQUIRE(!st_run(NULL, 0, "objcopy --compress-debug-sections=zlib '%s' '%s' && "
					 "objcopy --decompress-debug-sections '%s' '%s'", helper, z, helper, plain));
		/* the copy really holds compressed DWARF (the C flag) */
		CHECK(!st_run(NULL, 0, "readelf -SW '%s' | grep -q '\\.debug_info .* C '", z));
		compare2(z, plain, false, NULL, 1, &compared, &inlined);
	}
	printf("# compressed: %d addresses compared, %d with inlined frames\n", compared, inlined);
	CHECKF(compared > 1000, "only %d addresses compared", compared);
	/* as in scopes_match_libdw_on_helpers: the count depends on the compiler
	 * and the sanitizers (31 under clang's ASan build) */
	CHECKF(inlined > 0, "no address with inlined frames compared");

	/* .debug_info's stream corrupted past its header: no DWARF (symbols
	 * still), no crash */
	{
		char off[64];
		unsigned long long o;
		struct perfring_symbolizer *s;
		struct perfring_sym_result r;
		uint64_t text[1];

		REQUIRE(!st_run(off, sizeof(off), "readelf -SW '%s' | sed 's/^ *\\[ *[0-9]*\\]//' | "
						  "awk '$1 == \".debug_info\" {print $4}'", z));
		REQUIRE(sscanf(off, "%llx", &o) == 1);
		REQUIRE(!st_run(NULL, 0, "cp '%s' '%s' && printf '\\377\\377\\377\\377\\377\\377\\377\\377' | "
					 "dd of='%s' bs=1 seek=%llu conv=notrunc status=none", z, bad, bad, o + 40));
		REQUIRE(text_offsets(bad, 1, text, 1) == 1);
		REQUIRE((s = new_sym(NULL)));
		CHECK(perfring_symbolize_file(s, bad, NULL, 0, text[0], &r) >= 0);
		perfring_symbolizer_free(s);
	}
	st_rmdir(tmp);
}

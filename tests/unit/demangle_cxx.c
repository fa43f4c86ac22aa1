// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The demangler of perfring script/report (tools/shared/demangle.c)
 * against binutils' `c++filt -p` (names without parameters, as perf shows
 * them): every C++ name that libstdc++ and (when installed) libLLVM export,
 * from `nm -D`, demangled both ways. Also the cache: one answer per name
 * pointer, names that are not mangled returned as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/demangle.h"
#include "harness.h"

#define MAXN 200000

static char *names[MAXN];

/* c++filt prints the standard substitutions in full (DMGL_VERBOSE, its
 * default), perf and the C++ runtime by their short names: put ours in full
 * before comparing. */
static void verbose(const char *in, char *out, size_t cap)
{
	static const char *const from[] = { "std::string", "std::istream", "std::ostream", "std::iostream" };
	static const char *const to[] = {
		"std::basic_string<char, std::char_traits<char>, std::allocator<char> >",
		"std::basic_istream<char, std::char_traits<char> >",
		"std::basic_ostream<char, std::char_traits<char> >",
		"std::basic_iostream<char, std::char_traits<char> >",
	};
	size_t n = 0, k;

	while (*in && n + 1 < cap) {
		for (k = 0; k < 4; k++) {
			size_t l = strlen(from[k]);

			if (!strncmp(in, from[k], l) && !(in[l] == '_' || (in[l] >= 'a' && in[l] <= 'z')) &&
			    n + strlen(to[k]) + 1 < cap) {
				strcpy(out + n, to[k]);
				n += strlen(to[k]);
				in += l;
				break;
			}
		}
		if (k == 4)
			out[n++] = *in++;
	}
	out[n] = 0;
}
static int nnames;

static int load_names(const char *lib)
{
	char cmd[512], line[4096], addr[64], type[8], name[4000];
	FILE *f;
	int before = nnames;

	if (access(lib, R_OK))
		return 0;
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s 2>/dev/null", lib);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (nnames < MAXN && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %7s %3999s", addr, type, name) == 3 && !strncmp(name, "_Z", 2)) {
			name[strcspn(name, "@")] = 0; /* the symbol version nm adds */
			names[nnames++] = strdup(name);
		}
	pclose(f);
	return nnames - before;
}

TEST(against_cxxfilt)
{
	char path[] = "/tmp/perfring-demangle.XXXXXX", cmd[256], line[8192];
	int fd = mkstemp(path), i, same = 0, differ = 0, shown = 0;
	FILE *f, *out;

	CHECK(fd >= 0);
	if (!load_names("/usr/lib/x86_64-linux-gnu/libstdc++.so.6")) {
		SKIP("libstdc++.so.6 or nm is missing");
		return;
	}
	load_names("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1");
	f = fdopen(fd, "w");
	for (i = 0; i < nnames; i++)
		fprintf(f, "%s\n", names[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "c++filt -p < %s", path);
	out = popen(cmd, "r");
	CHECK(out != NULL);
	for (i = 0; i < nnames && fgets(line, sizeof(line), out); i++) {
		char *ours = demangle_str(names[i]), full[16384];

		line[strcspn(line, "\n")] = 0;
		if (ours)
			verbose(ours, full, sizeof(full));
		if (ours && !strcmp(full, line)) {
			same++;
		} else {
			differ++;
			if (shown++ < 10)
				printf("  differs: %s: c++filt -p '%s', perfring '%s'\n", names[i], line, ours ? ours : "(none)");
		}
		free(ours);
	}
	pclose(out);
	unlink(path);
	printf("  %d names: %d equal, %d differ\n", nnames, same, differ);
	CHECK(i == nnames);
	/* The C++ runtime's demangler and libiberty's disagree on a few corner
	 * cases (ABI tags, some template arguments); the rest must be equal. */
	CHECK(same * 1000 >= nnames * 995);
}

TEST(cache_and_plain_names)
{
	struct demangler *d = demangler_new();
	const char *plain = "main", *m = "_ZN3foo3barEi";
	const char *a, *b;

	CHECK(d != NULL);
	CHECK(demangle(d, plain) == plain);
	a = demangle(d, m);
	b = demangle(d, m);
	CHECK(a == b && !strcmp(a, "foo::bar"));
	CHECK(!strcmp(demangle(d, "_Znam"), "operator new[]"));
	CHECK(!strcmp(demangle(d, "_ZNK4llvm8TypeSizecvmEv"), "llvm::TypeSize::operator unsigned long"));
	CHECK(!strcmp(demangle(d, "_Z3fooIiEvT_"), "foo<int>"));
	CHECK(!strcmp(demangle(d, "_ZNSo5flushEv@plt"), "std::ostream::flush@plt"));
	/* not a valid mangling: the name itself */
	CHECK(!strcmp(demangle(d, "_Zzzz"), "_Zzzz"));
	demangler_free(d);
}

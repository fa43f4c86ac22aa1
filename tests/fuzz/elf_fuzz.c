// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the symbolizer (src/symbol/): the input is an ELF file,
 * damaged at will, written to a memfd and symbolized through its
 * /proc/self/fd path with lines and inlined frames wanted, as a mapped
 * binary would be: build id read, program headers, .symtab/.dynsym,
 * .gnu_debugdata (xz), DWARF lines and scopes (libdw). Nothing may crash or
 * read out of bounds, and results must keep the API's promises (a name, or
 * NULL with a reason; frames bounded; every string readable). Offsets asked
 * for: sixteen spread over the file, and those the last 32 bytes of the
 * input name (so that mutations reach symbols inside segments). Seeds:
 * tests/fuzz/corpus/elf/ (tests/fuzz/make_elf_seeds.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <perfring/symbol.h>

static int memfd = -1;

/*
 * libdw (elfutils 0.188) leaks the array dwarf_getscopes() builds when a
 * pass of it fails on broken DWARF (a DW_AT_abstract_origin that does not
 * resolve, say): it returns -1 and never frees the array
 * (libdw/dwarf_getscopes.c). It is not perfring's to free, and there is at
 * most one per address looked up (the symbolizer keeps each address's
 * answer), so it grows with the input only. LeakSanitizer leaves leaks
 * from inside libdw alone here (a leak of an array libdw hands perfring is
 * valgrind's to find, in the unit tests); the seed leak-2acbd67e... is
 * such a file.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libdw.so\n";
}

static void finding(const char *what, long long a)
{
	fprintf(stderr, "elf_fuzz: FINDING: %s (%lld)\n", what, a);
	abort();
}

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void check(int rc, const struct perfring_sym_result *r)
{
	volatile size_t sink = 0;
	uint32_t i;

	if (rc == 0) {
		if (!r->name)
			finding("success without a name", rc);
		if (r->offset != r->elf_addr - r->sym_addr)
			finding("offset is not elf_addr - sym_addr", (long long)r->offset);
	} else {
		if (rc > 0)
			finding("positive return", rc);
		if (r->name || !r->reason || !*r->reason)
			finding("failure with a name or without a reason", rc);
	}
	if (r->nr_frames > 64 || (r->nr_frames && !r->frames))
		finding("frames", r->nr_frames);
	sink += touch(r->name) + touch(r->reason) + touch(r->binary) + touch(r->debug_file) + touch(r->file);
	for (i = 0; i < r->nr_frames; i++)
		sink += touch(r->frames[i].function) + touch(r->frames[i].file);
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_dirs[] = { NULL };
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .debug_dirs = no_dirs,
							       .kallsyms = "", .jit_dir = "", .lines = true,
							       .inlines = true);
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	uint8_t id[PERFRING_BUILD_ID_MAX];
	char path[64];
	size_t k;
	int rc, n;

	if (memfd < 0 && (memfd = memfd_create("elf_fuzz", MFD_CLOEXEC)) < 0)
		return 0;
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	n = perfring_elf_build_id(path, id);
	if (n > PERFRING_BUILD_ID_MAX || n == 0)
		finding("build id size", n);
	s = perfring_symbolizer_new(&o);
	if (!s)
		return 0;
	for (k = 0; k < 16; k++) {
		rc = perfring_symbolize_file(s, path, NULL, 0, size * k / 16, &r);
		check(rc, &r);
	}
	for (k = 0; k + 4 <= 32 && k + 4 <= size; k += 4) {
		uint32_t off;

		memcpy(&off, data + size - 4 - k, 4);
		rc = perfring_symbolize_file(s, path, NULL, 0, off % (size + 64), &r);
		check(rc, &r);
		/* The same again: from the cache, the same answer. */
		{
			struct perfring_sym_result again;

			if (perfring_symbolize_file(s, path, NULL, 0, off % (size + 64), &again) != rc ||
			    again.name != r.name)
				finding("cached answer differs", rc);
		}
	}
	if (n > 0) {
		/* The file's own build id passes the check; a different one does not. */
		rc = perfring_symbolize_file(s, path, id, (size_t)n, size / 2, &r);
		check(rc, &r);
		if (rc == -ESTALE)
			finding("own build id reported as a mismatch", rc);
		id[0] ^= 1;
		rc = perfring_symbolize_file(s, path, id, (size_t)n, size / 2, &r);
		check(rc, &r);
		if (rc != -ESTALE)
			finding("another build id not reported as a mismatch", rc);
	}
	perfring_symbolizer_free(s);
	return 0;
}

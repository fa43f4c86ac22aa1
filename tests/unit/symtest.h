/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers of the symbolizer tests: the build's sym_target program, a scratch
 * directory, running outside tools (nm, objcopy, llvm-symbolizer, readelf)
 * as oracles, and an ELF program-header reader of the test's own (so the
 * file offset of an address is not computed by the code under test).
 */
#ifndef PERFRING_TESTS_SYMTEST_H
#define PERFRING_TESTS_SYMTEST_H

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libgen.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <sys/stat.h>

#include <perfring/symbol.h>

/* $(O)/tests/helpers/NAME, from this test's own path $(O)/tests/{unit,kernel}/TEST. */
static inline int st_helper(const char *name, char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	snprintf(out, cap, "%s/../helpers/%s", dirname(exe), name);
	return access(out, R_OK) ? -1 : 0;
}

/* Run a shell command, its stdout into buf (NUL-terminated). Exit status or -1. */
static inline int st_run(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline int st_run(char *buf, size_t cap, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	size_t n = 0;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (buf) {
		while (n + 1 < cap) {
			size_t got = fread(buf + n, 1, cap - 1 - n, p);

			if (!got)
				break;
			n += got;
		}
		buf[n] = '\0';
	} else {
		char tmp[4096];

		while (fread(tmp, 1, sizeof(tmp), p) > 0)
			;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline bool st_have(const char *tool)
{
	return st_run(NULL, 0, "command -v %s >/dev/null 2>&1", tool) == 0;
}

/* A fresh scratch directory; st_rmdir() removes it. */
static inline int st_tmpdir(char *out, size_t cap)
{
	snprintf(out, cap, "/tmp/perfring-symtest-XXXXXX");
	return mkdtemp(out) ? 0 : -1;
}

static inline void st_rmdir(const char *dir)
{
	if (!strncmp(dir, "/tmp/perfring-symtest-", 22))
		st_run(NULL, 0, "rm -rf '%s'", dir);
}

/* Function symbols from `nm -S --defined-only`, the oracle of names and addresses. */
struct st_sym {
	char name[64];
	uint64_t addr, size;
	char type;
};

/* The defined symbols of file whose names begin with prefix and whose nm
 * type is one of types. */
static inline int st_nm_types(const char *file, const char *prefix, const char *types, struct st_sym *out, int max)
{
	static char buf[1 << 20];
	char *line, *save = NULL;
	int n = 0;

	if (st_run(buf, sizeof(buf), "nm -S --defined-only '%s'", file) != 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, s;
		char t, name[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &t, name) != 4)
			continue;
		if (!strchr(types, t) || strncmp(name, prefix, strlen(prefix)))
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%.63s", name);
		out[n].addr = a;
		out[n].size = s;
		out[n].type = t;
		n++;
	}
	return n;
}

/* Its functions (nm types T, t, W). */
static inline int st_nm(const char *file, const char *prefix, struct st_sym *out, int max)
{
	return st_nm_types(file, prefix, "TtW", out, max);
}

/* The file offset of ELF address vaddr, from the file's own program headers
 * (64-bit, host byte order), read here without libelf. */
static inline int st_vaddr_to_off(const char *file, uint64_t vaddr, uint64_t *off)
{
	Elf64_Ehdr eh;
	FILE *f = fopen(file, "rb");
	int i, r = -1;

	if (!f)
		return -1;
	if (fread(&eh, sizeof(eh), 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, f) != 1)
			goto out;
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			r = 0;
			break;
		}
	}
out:
	fclose(f);
	return r;
}

/* The GNU build id as `readelf -n` prints it (hex), the oracle of the library's own reading. */
static inline int st_readelf_build_id(const char *file, char *hex, size_t cap)
{
	char buf[16384], *p;

	if (st_run(buf, sizeof(buf), "readelf -n '%s' 2>/dev/null", file) != 0)
		return -1;
	p = strstr(buf, "Build ID: ");
	if (!p)
		return -1;
	p += 10;
	snprintf(hex, cap, "%.*s", (int)strcspn(p, " \n"), p);
	return 0;
}

static inline void st_hex(const uint8_t *id, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

static inline int st_hex_to_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2, i;

	if (n > max)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)n;
}

#endif /* PERFRING_TESTS_SYMTEST_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Address tables read from text files: the kernel's /proc/kallsyms (core
 * and module symbols) and JIT maps (/tmp/perf-PID.map). Each is a sorted
 * array searched by binary search; kallsyms gives no sizes, so a symbol ends
 * where the next one starts, and the last one of a module (or of the core
 * kernel, at _etext) ends there rather than at the next module. Data
 * symbols (d/D/b/B) are kept as perf keeps them, marked as objects.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbol/symbol_internal.h"

/* A symbol without a known end (the last of its group) ends at most at the
 * page boundary after start + this (perf's symbols__fixup_end() for kallsyms:
 * roundup(start + 4096, 4096)). */
#define KSYM_LAST_MAX 4096

static int add(struct pr_table *t, size_t *cap, const struct pr_tent *e)
{
	if (pr_grow(&t->v, cap, t->n + 1, sizeof(*t->v)))
		return -ENOMEM;
	t->v[t->n++] = *e;
	return 0;
}

static int cmp_tent(const void *a, const void *b)
{
	const struct pr_tent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Same address: in file order (end holds the line's index until the
	 * ends are computed). The last alias is the one found, the one perf
	 * names: its symbols__fixup_end() gives only the last a size, and
	 * symbols__fixup_duplicate() keeps the symbol with a size. */
	return x->end < y->end ? -1 : x->end > y->end;
}

static int fail_table(struct pr_table *t, struct pr_strtab *strs, int err, const char *fmt, const char *arg)
{
	char buf[512];

	snprintf(buf, sizeof(buf), fmt, arg);
	t->err = -err;
	t->reason = pr_intern_str(strs, buf);
	if (!t->reason)
		t->reason = "out of memory";
	return -err;
}

/* kallsyms_line()'s character classes, a table look-up a character rather
 * than its comparisons: a hex digit's value plus one (0: not a digit), and
 * what ends a name. The kernel's 120 000 lines made these loops a sixth of
 * a script run's instructions. */
static const uint8_t hex_digit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
static const bool ends_name[256] = { ['\0'] = true, [' '] = true, ['\t'] = true, ['\n'] = true };

/*
 * One line of kallsyms, "ADDR TYPE NAME[\t[MODULE]]": 3 or 4 (with the
 * module) fields filled, or fewer when the line is not one. By hand: sscanf
 * took most of the time of reading the kernel's 100 000 lines.
 */
static int kallsyms_line(char *line, unsigned long long *addr, char *type, char **name, size_t *name_len,
			 char **mod, size_t *mod_len)
{
	char *p = line, *q;
	unsigned long long a = 0;
	int digits = 0;

	while (*p == ' ')
		p++;
	for (;; p++, digits++) {
		unsigned v = hex_digit[(unsigned char)*p];

		if (!v)
			break;
		if (digits == 16)
			return 0;
		a = a << 4 | (v - 1);
	}
	if (!digits || (*p != ' ' && *p != '\t'))
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return 1;
	*addr = a;
	*type = *p++;
	while (*p == ' ' || *p == '\t')
		p++;
	for (q = p; !ends_name[(unsigned char)*q]; q++)
		;
	if (q == p)
		return 2;
	*name = p;
	*name_len = (size_t)(q - p);
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '[')
		return 3;
	p = ++q;
	while (*q && *q != ']' && *q != '\n')
		q++;
	if (*q != ']' || q == p)
		return 3;
	*mod = p;
	*mod_len = (size_t)(q - p);
	return 4;
}

/*
 * Sort v by cmp_tent() when it is a few ascending runs, as kallsyms is (the
 * kernel's symbols in address order, then a few that are not): the runs
 * merged pairwise, in passes. -1 (nothing done) when it has many runs, or
 * no memory: qsort() then.
 */
static int sort_runs(struct pr_tent *v, size_t n)
{
	size_t runs = 1, i, width;
	struct pr_tent *tmp, *src = v, *dst;

	for (i = 1; i < n; i++)
		runs += cmp_tent(&v[i - 1], &v[i]) > 0;
	if (runs == 1)
		return 0;
	if (runs > 64 || !(tmp = malloc(n * sizeof(*tmp))))
		return -1;
	dst = tmp;
	/* Each pass merges neighbouring runs (found again each pass: few). */
	for (width = runs; width > 1; width = (width + 1) / 2) {
		size_t a = 0, out = 0;

		while (a < n) {
			size_t b = a + 1, c, x, y;

			while (b < n && cmp_tent(&src[b - 1], &src[b]) <= 0)
				b++;
			c = b < n ? b + 1 : b;
			while (c < n && cmp_tent(&src[c - 1], &src[c]) <= 0)
				c++;
			for (x = a, y = b; x < b || y < c;)
				dst[out++] = y >= c || (x < b && cmp_tent(&src[x], &src[y]) <= 0) ? src[x++] : src[y++];
			a = c;
		}
		struct pr_tent *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}

int pr_kallsyms_load(struct pr_table *t, struct pr_strtab *strs, const char *path)
{
	const char *core = pr_intern_str(strs, "[kernel.kallsyms]");
	uint64_t etext = 0;
	size_t cap = 0, nonzero = 0, ntext = 0, i;
	char *line = NULL;
	size_t lcap = 0;
	FILE *f;
	int r = 0;

	memset(t, 0, sizeof(*t));
	if (!core)
		return fail_table(t, strs, ENOMEM, "%s: out of memory", path);
	f = fopen(path, "re");
	if (!f)
		return fail_table(t, strs, errno == EACCES ? EACCES : ENOENT, "kernel symbols: cannot read %s", path);
	while (getline(&line, &lcap, f) > 0) {
		unsigned long long addr = 0;
		char type = 0, *name = NULL, *mod = NULL;
		size_t name_len = 0, mod_len = 0;
		struct pr_tent e;
		int n;

		n = kallsyms_line(line, &addr, &type, &name, &name_len, &mod, &mod_len);
		if (n < 3)
			continue;
		if (name_len > 255)
			name_len = 255; /* as the sscanf before: a name is cut at 255 */
		if (name_len == 6 && !memcmp(name, "_etext", 6))
			etext = addr;
		if (n == 3 && !t->text && name_len == 5 && !memcmp(name, "_text", 5))
			t->text = addr;
		if (n == 3 && !t->stext && name_len == 6 && !memcmp(name, "_stext", 6))
			t->stext = addr;
		/* Text symbols (t/T, weak w/W) and, as perf's symbol_type__filter()
		 * keeps them, data ones (d/D, b/B: objects, named NAME+0xOFFSET). */
		e.object = type == 'd' || type == 'D' || type == 'b' || type == 'B';
		if (!e.object && type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr)
			nonzero++;
		ntext += !e.object;
		e.addr = addr;
		e.end = 0;
		e.name = pr_strtab_copy(strs, name, name_len);
		if (n == 4) {
			char buf[160];

			snprintf(buf, sizeof(buf), "[%.*s]", (int)(mod_len < 127 ? mod_len : 127), mod);
			e.mod = pr_intern_str(strs, buf);
		} else {
			e.mod = core;
		}
		if (!e.name || !e.mod || add(t, &cap, &e)) {
			r = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	if (r)
		return fail_table(t, strs, ENOMEM, "%s: out of memory", path);
	if (t->n && !nonzero)
		return fail_table(t, strs, EACCES,
				  "kernel addresses are hidden in %s (kernel.kptr_restrict: run as root, "
				  "or sysctl kernel.kptr_restrict=0)", path);
	if (!ntext)
		return fail_table(t, strs, ENOENT, "no text symbols in %s", path);
	for (i = 0; i < t->n; i++)
		t->v[i].end = i;
	if (sort_runs(t->v, t->n))
		qsort(t->v, t->n, sizeof(*t->v), cmp_tent);
	for (i = 0; i < t->n; i++) {
		struct pr_tent *e = &t->v[i];
		uint64_t limit = (e->addr + KSYM_LAST_MAX + 4095) & ~4095ull;

		/* A data symbol (a section's start, mostly) runs to the next
		 * symbol of its module, as perf's symbols__fixup_end() has it. */
		if (e->object && i + 1 < t->n && t->v[i + 1].mod == e->mod)
			limit = UINT64_MAX;
		else if (e->mod == core && etext > e->addr)
			limit = etext;
		if (i + 1 < t->n && t->v[i + 1].addr < limit)
			limit = t->v[i + 1].addr;
		e->end = limit;
	}
	/* Aliases (same address) share the end of the last of them. */
	for (i = t->n; i-- > 1;)
		if (t->v[i - 1].addr == t->v[i].addr)
			t->v[i - 1].end = t->v[i].end;
	return 0;
}

int pr_jitmap_load(struct pr_table *t, struct pr_strtab *strs, const char *path)
{
	const char *mod;
	char *line = NULL;
	size_t lcap = 0, cap = 0, i, j;
	FILE *f;
	int r = 0;

	memset(t, 0, sizeof(*t));
	f = fopen(path, "re");
	if (!f)
		return fail_table(t, strs, ENOENT, "no JIT map %s", path);
	mod = pr_intern_str(strs, path);
	while (mod && getline(&line, &lcap, f) > 0) {
		char *p = line, *end;
		unsigned long long start, size;
		struct pr_tent e;

		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || size == 0 || size > UINT64_MAX - start)
			continue;
		p = end + 1;
		p[strcspn(p, "\n")] = '\0';
		e.addr = start;
		e.end = start + size;
		e.mod = mod;
		e.object = false;
		e.name = pr_intern_str(strs, p);
		if (!e.name || add(t, &cap, &e)) {
			r = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	if (!mod || r)
		return fail_table(t, strs, ENOMEM, "%s: out of memory", path);
	qsort(t->v, t->n, sizeof(*t->v), cmp_tent);
	/* A later entry at the same address replaces an earlier one (code
	 * regenerated in place); keep the last by address order. */
	for (i = j = 0; i < t->n; i++) {
		if (j && t->v[j - 1].addr == t->v[i].addr)
			j--;
		t->v[j++] = t->v[i];
	}
	t->n = j;
	return 0;
}

const struct pr_tent *pr_table_find(const struct pr_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* t->v[lo - 1] is the last entry starting at or below addr. Code maps
	 * may nest (a stub inside a bigger blob): look a few back. */
	for (hi = lo; hi > 0 && lo - hi < 4; hi--)
		if (addr < t->v[hi - 1].end)
			return &t->v[hi - 1];
	return NULL;
}

void pr_table_free(struct pr_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

size_t pr_notes_build_id(const void *notes, size_t len, bool swapped, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	const uint8_t *p = notes;
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_al, desc_al;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		if (swapped) {
			namesz = __builtin_bswap32(namesz);
			descsz = __builtin_bswap32(descsz);
			type = __builtin_bswap32(type);
		}
		off += 12;
		name_al = ((size_t)namesz + 3) & ~(size_t)3;
		desc_al = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_al > len - off || desc_al > len - off - name_al)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + off, "GNU", 4) && descsz > 0) {
			size_t n = descsz > PERFRING_BUILD_ID_MAX ? PERFRING_BUILD_ID_MAX : descsz;

			memcpy(id, p + off + name_al, n);
			return n;
		}
		off += name_al + desc_al;
	}
	return 0;
}

size_t pr_running_kernel_build_id(uint8_t id[PERFRING_BUILD_ID_MAX])
{
	uint8_t buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? pr_notes_build_id(buf, (size_t)n, false, id) : 0;
}

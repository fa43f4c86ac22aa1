// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Demangled names without parameters, as perf shows them (see demangle.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/zalloc.h"
#include "shared/demangle.h"
#include "shared/rust_demangle.h"

/* The Itanium C++ ABI's demangler, in the C++ runtime (libstdc++). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

struct dm_ent {
	const char *key;
	const char *val;
};

struct demangler {
	struct dm_ent *tab;
	size_t cap, n;
};

struct demangler *demangler_new(void)
{
	struct demangler *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->cap = 256;
	d->tab = tool_zalloc(d->cap, sizeof(*d->tab));
	if (!d->tab) {
		free(d);
		return NULL;
	}
	return d;
}

void demangler_free(struct demangler *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->cap; i++)
		if (d->tab[i].key && d->tab[i].val != d->tab[i].key)
			free((char *)d->tab[i].val);
	free(d->tab);
	free(d);
}

/* Cut "(params) const" at the end, and a return type before the name
 * (a space outside <> and (), not the one of "operator new"). */
static void strip(char *s)
{
	size_t n = strlen(s), i;
	int depth = 0;
	char *sp = NULL;

	/* The last top-level parameter list: from the last ')', back to its '('. */
	for (i = n; i-- > 0;) {
		if (s[i] == ')') {
			size_t j = i;

			for (;; j--) {
				if (s[j] == ')')
					depth++;
				else if (s[j] == '(' && --depth == 0)
					break;
				if (j == 0)
					return;
			}
			/* "operator()" itself is a name, not parameters */
			if (j >= 8 && !strncmp(s + j - 8, "operator", 8) && i == j + 1)
				continue;
			s[j] = 0;
			break;
		}
	}
	/* Spaces after "operator" belong to the name ("operator new[]",
	 * "operator unsigned long"): only those before it may end a return type. */
	depth = 0;
	for (i = 0; s[i]; i++) {
		if (s[i] == '<' || s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == '>' || s[i] == ')' || s[i] == ']') && depth > 0)
			depth--;
		else if (depth == 0 && !strncmp(s + i, "operator", 8) && (i == 0 || s[i - 1] == ':' || s[i - 1] == ' '))
			break;
		else if (s[i] == ' ' && depth == 0)
			sp = s + i;
	}
	if (sp && sp[1])
		memmove(s, sp + 1, strlen(sp + 1) + 1);
}

/* Rust's legacy mangling ends in a hash path element "::h0123456789abcdef": perf drops it
 * (a name the Rust demangler refused, demangled as C++), when the hash has 5 or more
 * distinct digits, as the Rust demangler asks too. */
static void strip_rust_hash(char *s)
{
	size_t n = strlen(s), i;
	unsigned seen = 0, distinct = 0;

	if (n < 19 || strncmp(s + n - 19, "::h", 3))
		return;
	for (i = n - 16; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return;
		seen |= 1u << (isdigit((unsigned char)s[i]) ? s[i] - '0' : s[i] - 'a' + 10);
	}
	for (; seen; seen >>= 1)
		distinct += seen & 1;
	if (distinct >= 5)
		s[n - 19] = 0;
}

char *demangle_str(const char *name)
{
	const char *at = strchr(name, '@');
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2))
		return NULL;
	if (at) {
		/* A version or a PLT stub ("_ZNSo5flushEv@plt"): the name before it,
		 * demangled, then the suffix, as perf shows it. */
		char *base = strndup(name, (size_t)(at - name)), *d, *joined;

		if (!base)
			return NULL;
		d = demangle_str(base);
		free(base);
		if (!d)
			return NULL;
		joined = malloc(strlen(d) + strlen(at) + 1);
		if (joined) {
			strcpy(joined, d);
			strcat(joined, at);
		}
		free(d);
		return joined;
	}
	/* Rust first: a legacy Rust name is a C++ one too (perf's libiberty tries Rust first). */
	out = rust_demangle(name);
	if (out || name[1] == 'R')
		return out;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (!out || status) {
		free(out);
		return NULL;
	}
	/* Special names (_ZT: thunks, vtables, typeinfo; _ZG: guard variables,
	 * transaction clones, ...) keep their whole text, as perf (libiberty)
	 * prints them. */
	if (name[2] != 'T' && name[2] != 'G')
		strip(out);
	strip_rust_hash(out);
	return out;
}

static size_t slot(const struct dm_ent *tab, size_t cap, const char *key)
{
	size_t i = ((uintptr_t)key >> 3) * 11400714819323198485ull & (cap - 1);

	while (tab[i].key && tab[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

const char *demangle(struct demangler *d, const char *name)
{
	struct dm_ent *e;
	char *v;

	if (!d || !name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	e = &d->tab[slot(d->tab, d->cap, name)];
	if (e->key)
		return e->val;
	if ((d->n + 1) * 2 > d->cap) {
		size_t cap = d->cap * 2, i;
		struct dm_ent *t = tool_zalloc(cap, sizeof(*t));

		if (!t)
			return name;
		for (i = 0; i < d->cap; i++)
			if (d->tab[i].key)
				t[slot(t, cap, d->tab[i].key)] = d->tab[i];
		free(d->tab);
		d->tab = t;
		d->cap = cap;
		e = &d->tab[slot(d->tab, d->cap, name)];
	}
	v = demangle_str(name);
	e->key = name;
	e->val = v ? v : name;
	d->n++;
	return e->val;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Rust symbol names as perf shows them (see rust_demangle.h). Written
 * from the v0 mangling's specification (the Rust compiler book's "v0 Symbol
 * Format") and from what perf printed for real symbols; perf (Debian's 6.1)
 * demangles with binutils' libiberty, whose short form this is: no hash, no
 * crate disambiguator, no type suffix on constants.
 *
 * Bounded on any input: the output is at most RD_MAX_OUT bytes, back
 * references only point backwards and nest at most RD_MAX_DEPTH deep, and
 * the parser takes at most RD_MAX_STEPS steps; past any of them the name is
 * not demangled (NULL).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/rust_demangle.h"

#define RD_MAX_OUT 65536
#define RD_MAX_DEPTH 256
#define RD_MAX_STEPS 1000000

/* One v0 demangling: the input after "_R" and what is printed. */
struct rd {
	const char *s;
	size_t n, i;     /* the input's length (its ".suffix" left out), the position */
	char *out;
	size_t len;
	bool bad;        /* malformed or past a bound: the whole answer is NULL */
	bool quiet;      /* parsing without printing (an impl path, the instantiating crate) */
	unsigned depth;  /* back references and nested types being followed */
	unsigned long steps;
	uint64_t bound;  /* lifetimes bound by the binders around (for<'a> ...) */
};

static void put(struct rd *r, const char *p, size_t len)
{
	if (r->quiet || r->bad)
		return;
	if (r->len + len >= RD_MAX_OUT) {
		r->bad = true;
		return;
	}
	memcpy(r->out + r->len, p, len);
	r->len += len;
}

static void puts_(struct rd *r, const char *p)
{
	put(r, p, strlen(p));
}

static void put_u64(struct rd *r, uint64_t v)
{
	char buf[24];
	size_t k = sizeof(buf);

	do
		buf[--k] = (char)('0' + v % 10);
	while ((v /= 10));
	put(r, buf + k, sizeof(buf) - k);
}

static bool eat(struct rd *r, char c)
{
	if (r->i < r->n && r->s[r->i] == c) {
		r->i++;
		return true;
	}
	return false;
}

static char peek(const struct rd *r)
{
	return r->i < r->n ? r->s[r->i] : 0;
}

/* A step of the parser: false (and the answer bad) past the bounds. */
static bool step(struct rd *r)
{
	if (r->bad || ++r->steps > RD_MAX_STEPS)
		r->bad = true;
	return !r->bad;
}

/* <base-62-number>: "_" is 0, digits 0-9a-zA-Z then "_" their value + 1. */
static uint64_t base62(struct rd *r)
{
	uint64_t v = 0;
	char c;

	if (eat(r, '_'))
		return 0;
	while ((c = peek(r)) && c != '_') {
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'z' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'Z' ? (unsigned)(c - 'A' + 36) : 99;

		if (d == 99 || v > (UINT64_MAX - d) / 62) {
			r->bad = true;
			return 0;
		}
		v = v * 62 + d;
		r->i++;
	}
	if (!eat(r, '_') || v == UINT64_MAX) {
		r->bad = true;
		return 0;
	}
	return v + 1;
}

/* [s <base-62-number>]: the disambiguator's value (0 when absent, else the number + 1). */
static uint64_t disambiguator(struct rd *r)
{
	uint64_t v;

	if (!eat(r, 's'))
		return 0;
	v = base62(r);
	if (v == UINT64_MAX)
		r->bad = true;
	return r->bad ? 0 : v + 1;
}

/* <decimal-number>: no leading zero but "0" itself. */
static size_t decimal(struct rd *r)
{
	size_t v = 0;

	if (peek(r) == '0') {
		r->i++;
		return 0;
	}
	if (peek(r) < '1' || peek(r) > '9') {
		r->bad = true;
		return 0;
	}
	while (peek(r) >= '0' && peek(r) <= '9') {
		v = v * 10 + (size_t)(r->s[r->i++] - '0');
		if (v > RD_MAX_OUT) {
			r->bad = true;
			return 0;
		}
	}
	return v;
}

/* <undisambiguated-identifier>: where its bytes are (punycode, "u", is not shown: bad). */
static bool ident(struct rd *r, const char **p, size_t *len)
{
	bool puny = eat(r, 'u');

	*len = decimal(r);
	if (r->bad)
		return false;
	eat(r, '_');
	if (*len > r->n - r->i || puny) {
		r->bad = true;
		return false;
	}
	*p = r->s + r->i;
	r->i += *len;
	return true;
}

static void path(struct rd *r, bool in_value);
static void type(struct rd *r);

/*
 * B <base-62-number> (its "B" read): a back reference to an earlier
 * position (counted after "_R"), where the parser goes to print what is
 * there; *back is where to come back to (backref_leave()). False when bad.
 */
static bool backref_enter(struct rd *r, size_t *back)
{
	size_t at = r->i - 1, to = (size_t)base62(r);

	if (r->bad || to >= at || r->depth >= RD_MAX_DEPTH) {
		r->bad = true;
		return false;
	}
	*back = r->i;
	r->depth++;
	r->i = to;
	return true;
}

static void backref_leave(struct rd *r, size_t back)
{
	r->i = back;
	r->depth--;
}

/* Items up to "E", separated by ", ": how many. */
static size_t list(struct rd *r, void (*item)(struct rd *))
{
	size_t k;

	for (k = 0; !eat(r, 'E'); k++) {
		if (r->i >= r->n || !step(r)) {
			r->bad = true;
			break;
		}
		if (k)
			puts_(r, ", ");
		item(r);
	}
	return k;
}

/* A lifetime by its De Bruijn index: '_ (erased) or the binder's 'a, 'b, ... */
static void lifetime(struct rd *r, uint64_t idx)
{
	uint64_t d;

	if (idx == 0) {
		puts_(r, "'_");
		return;
	}
	if (idx > r->bound) {
		r->bad = true;
		return;
	}
	d = r->bound - idx;
	if (d < 26) {
		char c[2] = { '\'', (char)('a' + d) };

		put(r, c, 2);
	} else {
		puts_(r, "'_");
		put_u64(r, d);
	}
}

/* [G <base-62-number>]: for<'a, ...> before what it binds; the lifetimes bound before it. */
static uint64_t binder(struct rd *r)
{
	uint64_t was = r->bound, n, k;

	if (!eat(r, 'G'))
		return was;
	n = base62(r) + 1;
	if (r->bad || n > 1000) {
		r->bad = true;
		return was;
	}
	puts_(r, "for<");
	for (k = 0; k < n && !r->bad; k++) {
		if (k)
			puts_(r, ", ");
		r->bound++;
		lifetime(r, 1);
	}
	puts_(r, "> ");
	return was;
}

/* Hex digits up to "_" (const-data): their value, false when past 64 bits. */
static bool hex_value(struct rd *r, uint64_t *v, size_t *digits)
{
	char c;

	*v = 0;
	*digits = 0;
	while ((c = peek(r)) != '_') {
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 99;

		if (d == 99) {
			r->bad = true;
			return false;
		}
		if (*v >> 60)
			return false; /* too wide: shown as it was written */
		*v = *v << 4 | d;
		r->i++;
		(*digits)++;
	}
	return true;
}

/* <const>: a value (integer, bool, char), "_" (p), or a back reference. */
static void constant(struct rd *r)
{
	char t = peek(r);
	uint64_t v;
	size_t start, digits, back;

	if (!step(r))
		return;
	if (eat(r, 'B')) {
		if (backref_enter(r, &back)) {
			constant(r);
			backref_leave(r, back);
		}
		return;
	}
	if (eat(r, 'p')) {
		puts_(r, "_");
		return;
	}
	if (!t || !strchr("ahtmyojsxlnibc", t)) {
		r->bad = true;
		return;
	}
	r->i++;
	if (eat(r, 'n')) {
		if (!strchr("asxlni", t)) { /* only signed integers are negative */
			r->bad = true;
			return;
		}
		puts_(r, "-");
	}
	start = r->i;
	if (!hex_value(r, &v, &digits)) {
		if (r->bad)
			return;
		/* as perf (libiberty) shows it: the digits as written but the
		 * first, then the closing "_" */
		puts_(r, "0x");
		while (peek(r) != '_' && peek(r))
			r->i++;
		put(r, r->s + start + 1, r->i - start);
	} else if (t == 'b') {
		if (v > 1)
			r->bad = true;
		puts_(r, v ? "true" : "false");
	} else if (t == 'c') {
		char q[4] = { '\'', (char)v, '\'' };

		if (v < 0x20 || v >= 0x7f || v == '\'' || v == '\\') {
			r->bad = true; /* shown escaped by perf: not here */
			return;
		}
		put(r, q, 3);
	} else {
		put_u64(r, v);
	}
	if (!eat(r, '_'))
		r->bad = true;
}

/* <generic-arg>: a lifetime, a type or K <const>. */
static void generic_arg(struct rd *r)
{
	if (eat(r, 'L'))
		lifetime(r, base62(r));
	else if (eat(r, 'K'))
		constant(r);
	else
		type(r);
}

/* {<generic-arg>} E, separated by ", " (the opening "<" printed already). */
static void generic_args(struct rd *r)
{
	list(r, generic_arg);
}

static const char *basic_type(char c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

/* F <fn-sig>: [for<...>] [unsafe] [extern "ABI"] fn(ARGS) [-> RET]. */
static void fn_sig(struct rd *r)
{
	uint64_t was = binder(r);

	if (eat(r, 'U'))
		puts_(r, "unsafe ");
	if (eat(r, 'K')) {
		puts_(r, "extern \"");
		if (eat(r, 'C')) {
			puts_(r, "C");
		} else {
			const char *p;
			size_t len, j;

			if (!ident(r, &p, &len))
				return;
			for (j = 0; j < len; j++)
				put(r, p[j] == '_' ? "-" : p + j, 1);
		}
		puts_(r, "\" ");
	}
	puts_(r, "fn(");
	list(r, type);
	puts_(r, ")");
	if (eat(r, 'u')) { /* -> () is not shown */
		r->bound = was;
		return;
	}
	puts_(r, " -> ");
	type(r);
	r->bound = was;
}

/*
 * A dyn trait's path, its generic arguments left open when it has some
 * (the associated types bound go inside the same <>): true when open.
 */
static bool dyn_trait_path(struct rd *r)
{
	bool open;
	size_t back;

	if (!step(r))
		return false;
	if (eat(r, 'B')) {
		if (!backref_enter(r, &back))
			return false;
		open = dyn_trait_path(r);
		backref_leave(r, back);
		return open;
	}
	if (eat(r, 'I')) {
		path(r, false);
		puts_(r, "<");
		generic_args(r);
		return true;
	}
	path(r, false);
	return false;
}

/* D <dyn-bounds> <lifetime>: dyn A<X = T> + B [+ 'a]. */
static void dyn_bounds(struct rd *r)
{
	uint64_t was, lt;
	size_t k;

	puts_(r, "dyn ");
	was = binder(r);
	for (k = 0; !eat(r, 'E'); k++) {
		bool open;
		size_t b;

		if (r->i >= r->n || !step(r)) {
			r->bad = true;
			return;
		}
		if (k)
			puts_(r, " + ");
		open = dyn_trait_path(r);
		for (b = 0; eat(r, 'p'); b++) {
			const char *p;
			size_t len;

			puts_(r, open || b ? ", " : "<");
			if (!ident(r, &p, &len))
				return;
			put(r, p, len);
			puts_(r, " = ");
			type(r);
		}
		if (open || b)
			puts_(r, ">");
	}
	r->bound = was;
	if (!eat(r, 'L')) {
		r->bad = true;
		return;
	}
	lt = base62(r);
	if (lt) {
		puts_(r, " + ");
		lifetime(r, lt);
	}
}

static void type(struct rd *r)
{
	char c = peek(r);
	const char *basic = basic_type(c);
	size_t k, back;

	if (!step(r) || r->depth >= RD_MAX_DEPTH) {
		r->bad = true;
		return;
	}
	if (basic) {
		r->i++;
		puts_(r, basic);
		return;
	}
	r->depth++;
	switch (c) {
	case 'R':
	case 'Q':
		r->i++;
		puts_(r, "&");
		if (eat(r, 'L')) {
			uint64_t lt = base62(r);

			if (lt) {
				lifetime(r, lt);
				puts_(r, " ");
			}
		}
		if (c == 'Q')
			puts_(r, "mut ");
		type(r);
		break;
	case 'P':
	case 'O':
		r->i++;
		puts_(r, c == 'P' ? "*const " : "*mut ");
		type(r);
		break;
	case 'A':
	case 'S':
		r->i++;
		puts_(r, "[");
		type(r);
		if (c == 'A') {
			puts_(r, "; ");
			constant(r);
		}
		puts_(r, "]");
		break;
	case 'T':
		r->i++;
		puts_(r, "(");
		k = list(r, type);
		puts_(r, k == 1 ? ",)" : ")");
		break;
	case 'F':
		r->i++;
		fn_sig(r);
		break;
	case 'D':
		r->i++;
		dyn_bounds(r);
		break;
	case 'B':
		r->i++;
		if (backref_enter(r, &back)) {
			type(r);
			backref_leave(r, back);
		}
		break;
	default:
		path(r, false);
		break;
	}
	r->depth--;
}

/* Print without output (an impl's own path: perf leaves it out). */
static void skip_path(struct rd *r)
{
	bool q = r->quiet;

	r->quiet = true;
	path(r, false);
	r->quiet = q;
}

/*
 * <path>: crate::a::b, <T>, <T as Trait>, {closure#N}, generic arguments
 * (in a value's path "::<...>", in a type's "<...>").
 */
static void path(struct rd *r, bool in_value)
{
	char c = peek(r), ns;
	const char *p;
	size_t len, back;
	uint64_t dis;

	if (!step(r) || r->depth >= RD_MAX_DEPTH) {
		r->bad = true;
		return;
	}
	r->i++;
	r->depth++;
	switch (c) {
	case 'C':
		disambiguator(r);
		if (ident(r, &p, &len))
			put(r, p, len);
		break;
	case 'M':
	case 'X':
	case 'Y':
		if (c != 'Y') {
			disambiguator(r);
			skip_path(r);
		}
		puts_(r, "<");
		type(r);
		if (c != 'M') {
			puts_(r, " as ");
			path(r, false);
		}
		puts_(r, ">");
		break;
	case 'N':
		ns = peek(r);
		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			r->bad = true;
			break;
		}
		r->i++;
		path(r, in_value);
		dis = disambiguator(r);
		if (!ident(r, &p, &len))
			break;
		if (ns >= 'a' && ns <= 'z') { /* an unnamed one (a constructor's "Nc..0") is not shown */
			if (len)
				puts_(r, "::");
			put(r, p, len);
			break;
		}
		puts_(r, "::{");
		puts_(r, ns == 'C' ? "closure" : ns == 'S' ? "shim" : (char[]){ ns, 0 });
		if (len) {
			puts_(r, ":");
			put(r, p, len);
		}
		puts_(r, "#");
		put_u64(r, dis);
		puts_(r, "}");
		break;
	case 'I':
		path(r, in_value);
		puts_(r, in_value ? "::<" : "<");
		generic_args(r);
		puts_(r, ">");
		break;
	case 'B':
		if (backref_enter(r, &back)) {
			path(r, in_value);
			backref_leave(r, back);
		}
		break;
	default:
		r->bad = true;
		break;
	}
	r->depth--;
}

/* A v0 name: _R <path> [<instantiating-crate>] [.suffix]. */
static char *demangle_v0(const char *sym)
{
	struct rd r = { 0 };
	const char *dot;

	r.s = sym + 2;
	dot = strchr(r.s, '.');
	r.n = dot ? (size_t)(dot - r.s) : strlen(r.s);
	if (r.n && r.s[0] >= '0' && r.s[0] <= '9')
		return NULL; /* an encoding version: none is defined but the implicit one */
	r.out = malloc(RD_MAX_OUT);
	if (!r.out)
		return NULL;
	path(&r, true);
	if (!r.bad && r.i < r.n) { /* the instantiating crate: not shown */
		r.quiet = true;
		path(&r, false);
	}
	if (r.bad || r.i != r.n) {
		free(r.out);
		return NULL;
	}
	r.out[r.len] = 0;
	return r.out;
}

/* The legacy hash element: h and 16 hex digits, at least 5 of them distinct (perf's libiberty asks so much). */
static bool legacy_hash(const char *p, size_t len)
{
	unsigned seen = 0, n = 0, k;

	if (len != 17 || p[0] != 'h')
		return false;
	for (k = 1; k < 17; k++) {
		char c = p[k];

		if (c >= '0' && c <= '9')
			seen |= 1u << (c - '0');
		else if (c >= 'a' && c <= 'f')
			seen |= 1u << (c - 'a' + 10);
		else
			return false;
	}
	for (; seen; seen >>= 1)
		n += seen & 1;
	return n >= 5;
}

/* One $...$ escape of a legacy element at p (len bytes left): its character and length, 0 if none. */
static size_t legacy_escape(const char *p, size_t len, char *out)
{
	static const struct {
		const char *code;
		char c;
	} codes[] = { { "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' },
		      { "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' } };
	size_t k, n;
	unsigned v = 0;

	for (k = 0; k < sizeof(codes) / sizeof(codes[0]); k++) {
		n = strlen(codes[k].code);
		if (len >= n && !memcmp(p, codes[k].code, n)) {
			*out = codes[k].c;
			return n;
		}
	}
	if (len < 4 || p[1] != 'u')
		return 0;
	for (k = 2; k < len && p[k] != '$' && k < 8; k++) {
		char c = p[k];

		if (c >= '0' && c <= '9')
			v = v * 16 + (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (unsigned)(c - 'a' + 10);
		else
			return 0;
	}
	if (k == 2 || k >= len || p[k] != '$' || v < 0x20 || v > 0x7f)
		return 0;
	*out = (char)v;
	return k + 1;
}

/* One legacy path element, its escapes decoded (an unknown one: the rest as it is), ".." as "::". */
static void legacy_element(struct rd *r, const char *p, size_t len)
{
	size_t n;
	char c;

	if (len >= 2 && p[0] == '_' && p[1] == '$') { /* the "_" only made it an identifier */
		p++;
		len--;
	}
	while (len && !r->bad) {
		if (p[0] == '$') {
			n = legacy_escape(p, len, &c);
			if (!n) {
				put(r, p, len);
				return;
			}
			put(r, &c, 1);
		} else if (p[0] == '.') {
			n = len >= 2 && p[1] == '.' ? 2 : 1;
			puts_(r, n == 2 ? "::" : ".");
		} else {
			for (n = 0; n < len && p[n] != '$' && p[n] != '.'; n++)
				;
			put(r, p, n);
		}
		p += n;
		len -= n;
	}
}

/* A legacy name: _ZN {<length><element>} <length>h<16 hex> E [.suffix]. */
static char *demangle_legacy(const char *sym)
{
	struct rd r = { 0 };
	const char *p = sym + 3, *elems[256];
	size_t lens[256], ne = 0, k;

	while (*p != 'E') {
		size_t len = 0;

		if (*p < '1' || *p > '9' || ne == 256)
			return NULL;
		while (*p >= '0' && *p <= '9') {
			len = len * 10 + (size_t)(*p++ - '0');
			if (len > RD_MAX_OUT)
				return NULL;
		}
		if (strnlen(p, len) < len)
			return NULL;
		for (k = 0; k < len; k++)
			if (!(p[k] == '_' || p[k] == '$' || p[k] == '.' || (p[k] >= '0' && p[k] <= '9') ||
			      (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z')))
				return NULL;
		elems[ne] = p;
		lens[ne++] = len;
		p += len;
	}
	if (p[1] && p[1] != '.')
		return NULL;
	if (ne < 2 || !legacy_hash(elems[ne - 1], lens[ne - 1]))
		return NULL;
	r.out = malloc(RD_MAX_OUT);
	if (!r.out)
		return NULL;
	for (k = 0; k + 1 < ne && !r.bad; k++) {
		if (k)
			puts_(&r, "::");
		legacy_element(&r, elems[k], lens[k]);
	}
	if (r.bad) {
		free(r.out);
		return NULL;
	}
	r.out[r.len] = 0;
	return r.out;
}

char *rust_demangle(const char *sym)
{
	if (!sym)
		return NULL;
	if (!strncmp(sym, "_R", 2))
		return demangle_v0(sym);
	if (!strncmp(sym, "_ZN", 3))
		return demangle_legacy(sym);
	return NULL;
}

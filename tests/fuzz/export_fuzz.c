// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the profile layer's writers (src/profile/, through
 * perfring/profile.h): the names, files, comms, labels and build ids a
 * profile carries come from outside (symbol tables and DWARF of any binary,
 * comms of any process, cgroup paths), so any bytes there must give
 * well-formed output. The input is a script of samples: names are slices of
 * the input (any bytes: ';', newlines, quotes, invalid UTF-8), addresses,
 * flags and counts are input bytes. Checked on every input:
 * - the same samples added in reverse order give the same folded stacks;
 * - folded: every line is "STACK COUNT\n" (names may hold spaces, never a
 *   newline or carriage return), the count is digits, the counts sum to the
 *   samples of event 0;
 * - pprof (with or without a clock reference and sampling comments):
 *   gunzips (zlib), and is a well-formed protobuf message
 *   (every field's wire type one we write, every length inside its message,
 *   the Profile's nested messages and packed fields well-formed too);
 * - speedscope and Firefox: valid JSON (a strict RFC 8259 syntax check
 *   below) and valid UTF-8 throughout.
 * Seeds: tests/fuzz/corpus/export/ (tests/fuzz/make_export_seeds.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <perfring/profile.h>

#define FINDING(...)                                              \
	do {                                                      \
		fprintf(stderr, "export_fuzz: FINDING: " __VA_ARGS__); \
		fprintf(stderr, "\n");                            \
		abort();                                          \
	} while (0)

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* A string: a length byte, then that many bytes (copied, NUL-terminated; NUL bytes end it early). */
static char *str(struct in *in, char *buf, size_t cap)
{
	size_t len = byte(in) % cap;
	size_t i;

	for (i = 0; i < len && in->n; i++)
		buf[i] = (char)byte(in);
	buf[i] = 0;
	return buf;
}

/* ---- checks ---- */

static const unsigned char *json_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

static const unsigned char *json_value(const unsigned char *p, const unsigned char *end, int depth);

static const unsigned char *json_string(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; p++) {
		if (*p == '"')
			return p + 1;
		if (*p < 0x20)
			return NULL;
		if (*p == '\\') {
			if (++p >= end)
				return NULL;
			if (*p == 'u') {
				for (int i = 0; i < 4; i++)
					if (++p >= end || !strchr("0123456789abcdefABCDEF", *p) || !*p)
						return NULL;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
	}
	return NULL;
}

static const unsigned char *json_value(const unsigned char *p, const unsigned char *end, int depth)
{
	if (depth > 64)
		return NULL;
	p = json_ws(p, end);
	if (p >= end)
		return NULL;
	if (*p == '"')
		return json_string(p, end);
	if (*p == '{' || *p == '[') {
		unsigned char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';

		p = json_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_string(json_ws(p, end), end);
				if (!p || (p = json_ws(p, end)) >= end || *p != ':')
					return NULL;
				p++;
			}
			p = json_value(p, end, depth + 1);
			if (!p || (p = json_ws(p, end)) >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		const unsigned char *s = p;

		while (p < end && strchr("-+.eE0123456789", *p) && *p)
			p++;
		return p > s ? p : NULL;
	}
	/* The literals (the Firefox profile writes true, false and null). */
	for (const char *const *l = (const char *const[]){ "true", "false", "null", NULL }; *l; l++)
		if ((size_t)(end - p) >= strlen(*l) && !memcmp(p, *l, strlen(*l)))
			return p + strlen(*l);
	return NULL;
}

static bool utf8_valid(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;

		if (!k || i + k > n)
			return false;
		for (size_t j = 1; j < k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
		if ((c == 0xe0 && p[i + 1] < 0xa0) || (c == 0xed && p[i + 1] >= 0xa0) || (c == 0xf0 && p[i + 1] < 0x90) ||
		    (c == 0xf4 && p[i + 1] >= 0x90))
			return false;
		i += k;
	}
	return true;
}

static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (*p >= end)
			return false;
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Fields of profile.proto whose values are messages: Profile 1,2,3,4,5,11; Sample 3; Location 4. */
static bool pb_message(const uint8_t *p, const uint8_t *end, int level, unsigned parent_field)
{
	while (p < end) {
		uint64_t key, v;

		if (!varint(&p, end, &key) || key >> 3 == 0)
			return false;
		switch (key & 7) {
		case 0:
			if (!varint(&p, end, &v))
				return false;
			break;
		case 2: {
			if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
				return false;
			unsigned f = (unsigned)(key >> 3);
			bool nested = (level == 0 && ((f >= 1 && f <= 5) || f == 11)) ||
				      (level == 1 && ((parent_field == 2 && f == 3) || (parent_field == 4 && f == 4)));
			bool packed = level == 1 && parent_field == 2 && (f == 1 || f == 2);

			if (nested && !pb_message(p, p + v, level + 1, f))
				return false;
			for (const uint8_t *q = p; packed && q < p + v;)
				if (!varint(&q, p + v, &key))
					return false;
			p += v;
			break;
		}
		default:
			return false; /* we write no fixed32/fixed64/groups */
		}
	}
	return true;
}

static void check_pprof(const uint8_t *gz, size_t n)
{
	z_stream z = { 0 };
	size_t cap = 1 << 16, len = 0;
	uint8_t *out = malloc(cap);
	int rc;

	if (!out || inflateInit2(&z, 15 + 16) != Z_OK)
		abort();
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)n;
	do {
		if (len == cap) {
			cap *= 2;
			out = realloc(out, cap);
			if (!out)
				abort();
		}
		z.next_out = out + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
	} while (rc == Z_OK);
	inflateEnd(&z);
	if (rc != Z_STREAM_END)
		FINDING("pprof output does not gunzip (zlib %d)", rc);
	if (!pb_message(out, out + len, 0, 0))
		FINDING("pprof output is not a well-formed protobuf message (%zu bytes)", len);
	free(out);
}

static void check_folded(const char *s, size_t n, uint64_t want)
{
	uint64_t sum = 0;
	const char *end = s + n;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *sp;

		if (!nl)
			FINDING("folded: a line without its newline");
		for (sp = nl; sp > s && sp[-1] != ' '; sp--)
			;
		if (sp == s || sp == nl)
			FINDING("folded: a line without its count");
		for (const char *d = sp; d < nl; d++)
			if (*d < '0' || *d > '9')
				FINDING("folded: the count is not digits");
		if (memchr(s, '\r', (size_t)(nl - s)))
			FINDING("folded: a carriage return in a line");
		sum += strtoull(sp, NULL, 10);
		s = nl + 1;
	}
	if (sum != want)
		FINDING("folded: counts sum to %llu, %llu samples", (unsigned long long)sum, (unsigned long long)want);
}

static void check_json(const char *what, const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf, *e = u + len;
	const unsigned char *after = json_value(u, e, 0);

	if (!after || json_ws(after, e) != e)
		FINDING("%s output is not JSON (at byte %zd of %zu)", what, after ? after - u : -1, len);
	if (!utf8_valid(u, len))
		FINDING("%s output is not UTF-8", what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* p written as fmt (title: the first comm), malloc'd (NULL-terminated). */
static char *written(const struct perfring_profile *p, enum perfring_profile_format fmt, const char *title,
		     size_t *len)
{
	struct perfring_profile_write_opts o = PERFRING_OPTS_INIT(perfring_profile_write_opts, .title = title);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f || (err = perfring_profile_write(p, fmt, f, &o)))
		FINDING("perfring_profile_write(%d) failed: %s", (int)fmt, perfring_errmsg());
	fclose(f);
	return buf;
}

#define MAX_SAMPLES 32
#define MAX_FRAMES 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	const char *events[] = { "cpu-clock", "cycles:u" };
	/* The first byte: bit 0 the events, bit 1 a clock reference, bits 2-3 the sampling, bit 4
	 * labels. */
	uint8_t mode = byte(&in);
	uint32_t nevents = 1 + (mode & 1);
	struct perfring_profile_opts o = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = events,
							    .nevents = nevents);
	struct perfring_profile *rev = perfring_profile_new(&o), *p;
	static char names[MAX_SAMPLES][MAX_FRAMES][48], files[MAX_SAMPLES][MAX_FRAMES][24];
	static char comms[MAX_SAMPLES][32], bins[4][32], lkeys[MAX_SAMPLES][16], lvals[MAX_SAMPLES][32];
	static uint8_t bid[20];
	static struct perfring_frame frames[MAX_SAMPLES][MAX_FRAMES];
	static struct perfring_stack stacks[MAX_SAMPLES];
	static struct perfring_profile_label labels[MAX_SAMPLES][2];
	struct perfring_profile_sample samples[MAX_SAMPLES];
	int nsamples = 0;
	uint64_t samples0 = 0;

	o.timeline = true;
	p = perfring_profile_new(&o);
	if (!p || !rev)
		abort();
	/* A perf time later than the samples' (time_nanos then wraps below the reference). */
	if (mode & 2)
		perfring_profile_set_clock(p, (uint64_t)mode << 20, 1700000000000000000ull);
	if (mode & 4)
		perfring_profile_set_sampling(p, nevents - 1, mode, mode & 8);
	for (int b = 0; b < 4; b++)
		str(&in, bins[b], sizeof(bins[b]));
	str(&in, (char *)bid, sizeof(bid));
	while (nsamples < MAX_SAMPLES && in.n) {
		/* One statement per input read: the order of evaluation in an initializer is unspecified. */
		struct perfring_profile_sample *ps = &samples[nsamples];
		struct perfring_stack *st = &stacks[nsamples];

		*ps = (struct perfring_profile_sample){ .sz = sizeof(*ps), .stack = st };
		*st = (struct perfring_stack){ .frame_sz = sizeof(struct perfring_frame), .frames = frames[nsamples] };
		st->nframes = byte(&in) % MAX_FRAMES;
		ps->pid = byte(&in);
		ps->tid = byte(&in);
		ps->comm = str(&in, comms[nsamples], sizeof(comms[0]));
		ps->time = byte(&in) * 1000ull;
		ps->event = byte(&in) % nevents;
		ps->period = byte(&in);
		if (mode & 16) {
			/* one or two labels, the second's key maybe the first's */
			labels[nsamples][0].key = str(&in, lkeys[nsamples], sizeof(lkeys[0]));
			labels[nsamples][0].value = str(&in, lvals[nsamples], sizeof(lvals[0]));
			labels[nsamples][1] = (struct perfring_profile_label){ .key = "cgroup", .value = comms[nsamples] };
			ps->labels = labels[nsamples];
			ps->nlabels = 1 + (byte(&in) & 1);
		}
		for (size_t f = 0; f < st->nframes; f++) {
			struct perfring_frame *fr = &frames[nsamples][f];
			uint8_t flags = byte(&in);
			uint8_t bin = flags & 3;

			*fr = (struct perfring_frame){ .dso = flags & 8 ? "[unknown]" : bins[bin], .mapped = !(flags & 8),
						       .map_start = bin * 0x100000, .map_end = bin * 0x100000 + 0x80000,
						       .map_pgoff = bin, .kernel = flags & 64, .inlined = flags & 128 };
			fr->addr = 0x400000 + byte(&in) * 16;
			if (!(flags & 4))
				fr->name = str(&in, names[nsamples][f], sizeof(names[0][0]));
			if (flags & 16) {
				fr->build_id = bid;
				fr->build_id_size = byte(&in) % 21;
			}
			if (flags & 32)
				fr->file = str(&in, files[nsamples][f], sizeof(files[0][0]));
			fr->line = byte(&in);
		}
		if (ps->event == 0)
			samples0++;
		nsamples++;
	}
	/* The same samples in both orders: a profile must not depend on it (frames that share an
	 * address but not their names or mappings, the location cache's risk, give the same lines). */
	for (int i = 0; i < nsamples; i++) {
		int rc = perfring_profile_add(p, &samples[i]);

		if (rc || (rc = perfring_profile_add(rev, &samples[nsamples - 1 - i])))
			FINDING("perfring_profile_add: %d: %s", rc, perfring_errmsg());
	}
	size_t len_rev, len;
	char *fwd, *bwd = written(rev, PERFRING_PROFILE_FOLDED, NULL, &len_rev), *buf;

	perfring_profile_free(rev);
	fwd = written(p, PERFRING_PROFILE_FOLDED, NULL, &len);
	check_folded(fwd, len, samples0);
	if (len != len_rev || memcmp(fwd, bwd, len))
		FINDING("folded stacks differ with the order of the samples:\n%s\n--- reversed:\n%s", fwd, bwd);
	free(fwd);
	free(bwd);

	buf = written(p, PERFRING_PROFILE_PPROF, NULL, &len);
	check_pprof((const uint8_t *)buf, len);
	free(buf);

	buf = written(p, PERFRING_PROFILE_SPEEDSCOPE, comms[0], &len);
	check_json("speedscope", buf, len);
	free(buf);

	buf = written(p, PERFRING_PROFILE_FIREFOX, comms[0], &len);
	check_json("Firefox", buf, len);
	free(buf);

	/* A reset profile is an empty one: folded writes nothing. */
	if (perfring_profile_reset(p))
		FINDING("perfring_profile_reset failed");
	buf = written(p, PERFRING_PROFILE_FOLDED, NULL, &len);
	if (len)
		FINDING("folded stacks after a reset: %s", buf);
	free(buf);
	perfring_profile_free(p);
	return 0;
}

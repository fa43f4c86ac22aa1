// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring trace`'s decoder (tools/trace/trace_format.c, trace_decode.c,
 * trace_emit.c) on formats written here, with every field kind the kernel
 * uses (__rel_loc included, which no tracepoint of a stock kernel may have),
 * and on samples built byte by byte: exact values, exact output lines, and
 * damaged or hostile samples that must give an error or a null, never a
 * read outside the sample (this runs under ASan and valgrind in make check).
 * The live side (real tracepoints) is tests/cli/trace.sh and trace_fields.sh.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "trace/trace_decode.h"
#include "trace/trace_emit.h"

#define COMMON_FIELDS                                                                          \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                 \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                 \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"         \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char kinds_format[] =
	"name: kinds\nID: 4001\nformat:\n" COMMON_FIELDS
	"\tfield:s8 a_s8;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:u8 a_u8;\toffset:9;\tsize:1;\tsigned:0;\n"
	"\tfield:short a_s16;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:u16 a_u16;\toffset:12;\tsize:2;\tsigned:0;\n"
	"\tfield:int a_s32;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int a_u32;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 a_s64;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 a_u64;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char a_chars[8];\toffset:40;\tsize:8;\tsigned:1;\n"
	"\tfield:s16 a_arr[3];\toffset:48;\tsize:6;\tsigned:1;\n"
	"\tfield:__data_loc char[] a_str;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc u32[] a_dyn;\toffset:60;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] a_rel;\toffset:64;\tsize:4;\tsigned:1;\n"
	"\tfield:void * a_ptr;\toffset:72;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%d\", REC->a_s8\n";

/* A syscall's format: 8-byte argument slots, user pointers. */
static const char execve_format[] =
	"name: sys_enter_execve\nID: 4002\nformat:\n" COMMON_FIELDS
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char *const * argv;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:const char *const * envp;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:int dfd;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"filename: 0x%08lx\", ((unsigned long)(REC->filename))\n";

#define HDR sizeof(struct trace_sample_hdr)

struct built {
	uint8_t buf[1024];
	size_t len;
};

static struct trace_formats *formats(void)
{
	struct trace_formats *tf = trace_formats_new();
	char err[256];

	if (!tf)
		return NULL;
	if (trace_formats_add_text(tf, "test", "kinds", kinds_format, sizeof(kinds_format) - 1, err, sizeof(err)) != 1 ||
	    trace_formats_add_text(tf, "syscalls", "sys_enter_execve", execve_format, sizeof(execve_format) - 1, err,
				   sizeof(err)) != 1) {
		printf("     | %s\n", err);
		trace_formats_free(tf);
		return NULL;
	}
	return tf;
}

static void put(struct built *b, size_t off, const void *v, size_t n)
{
	memcpy(b->buf + off, v, n);
}

/* A sample of the kinds tracepoint: a_str "hello", a_dyn {7, 0xffffffff}, a_rel "rel!". */
static void build_kinds(struct built *b)
{
	struct trace_sample_hdr h = { .time_ns = 2000001000, .pid = 42, .tid = 43, .id = 4001 };
	uint8_t *r = b->buf + HDR;
	int8_t s8 = -5;
	uint8_t u8 = 250;
	int16_t s16 = -1234, arr[3] = { -1, 2, -3 };
	uint16_t u16 = 65000;
	int32_t s32 = -100000;
	uint32_t u32 = 4000000000u, dyn[2] = { 7, 0xffffffffu }, loc;
	int64_t s64 = -5000000000ll;
	uint64_t u64 = 18000000000000000000ull, ptr = 0xffff888012345678ull;
	size_t rec = 80 + 8 + 8 + 5;

	memset(b, 0, sizeof(*b));
	memcpy(h.comm, "tester", 7);
	put(b, HDR + 8, &s8, 1);
	put(b, HDR + 9, &u8, 1);
	put(b, HDR + 10, &s16, 2);
	put(b, HDR + 12, &u16, 2);
	put(b, HDR + 16, &s32, 4);
	put(b, HDR + 20, &u32, 4);
	put(b, HDR + 24, &s64, 8);
	put(b, HDR + 32, &u64, 8);
	memcpy(r + 40, "abc", 3); /* NUL-padded */
	put(b, HDR + 48, arr, 6);
	loc = 80 | (6u << 16); /* "hello" + NUL at 80 */
	put(b, HDR + 56, &loc, 4);
	memcpy(r + 80, "hello", 6);
	loc = 88 | (8u << 16);
	put(b, HDR + 60, &loc, 4);
	put(b, HDR + 88, dyn, 8);
	loc = (96 - 68) | (5u << 16); /* relative to the end of the locator at 64 */
	put(b, HDR + 64, &loc, 4);
	memcpy(r + 96, "rel!", 5);
	put(b, HDR + 72, &ptr, 8);
	h.rec_size = (uint16_t)rec;
	put(b, 0, &h, HDR);
	b->len = HDR + ((rec + 7) & ~(size_t)7);
}

static void add_str(struct built *b, uint8_t field, uint8_t elem, const char *s)
{
	struct trace_extra x = { .field = field, .elem = elem, .len = s ? (uint16_t)(strlen(s) + 1) : 0 };

	put(b, b->len, &x, sizeof(x));
	if (s)
		memcpy(b->buf + b->len + sizeof(x), s, x.len);
	b->len += (sizeof(x) + x.len + 3) & ~(size_t)3;
}

/* An execve sample: filename "/bin/cat", argv {"cat", "a b", NULL-unreadable}, dfd -100. */
static void build_execve(struct built *b)
{
	struct trace_sample_hdr h = { .time_ns = 2000000000, .pid = 7, .tid = 7, .id = 4002 };
	uint64_t fn = 0x7ffd0000, argv = 0x7ffd1000, envp = 0x7ffd2000, dfd = (uint64_t)(uint32_t)-100;
	int32_t nr = 59;
	size_t start;

	memset(b, 0, sizeof(*b));
	memcpy(h.comm, "sh", 3);
	put(b, HDR + 8, &nr, 4);
	put(b, HDR + 16, &fn, 8);
	put(b, HDR + 24, &argv, 8);
	put(b, HDR + 32, &envp, 8);
	put(b, HDR + 40, &dfd, 8);
	h.rec_size = 48;
	b->len = HDR + 48;
	start = b->len;
	add_str(b, 0, 0, "/bin/cat");
	add_str(b, 1, 0, "cat");
	add_str(b, 1, 1, "a b");
	add_str(b, 1, 2, NULL);
	h.extra_size = (uint16_t)(b->len - start);
	put(b, 0, &h, HDR);
}

/* The sample as a line of text or JSON. */
static char *emit(const struct trace_formats *tf, const struct built *b, bool json)
{
	struct trace_emit te = { .json = json, .start_ns = 2000000000, .name_width = 16 };
	struct trace_sample s;
	const char *why;
	char *out = NULL;
	size_t len = 0;

	if (trace_sample_parse(tf, b->buf, b->len, &s, &why))
		return NULL;
	te.f = open_memstream(&out, &len);
	if (!te.f)
		return NULL;
	trace_emit_event(&te, &s, 1, trace_sample_unread(&s));
	fclose(te.f);
	return out;
}

TEST(classify_every_kind)
{
	struct trace_formats *tf = formats();
	const struct trace_tp *tp;
	static const struct {
		const char *name;
		enum trace_field_kind kind;
		int elem;
		bool sign;
	} want[] = {
		{ "a_s8", TF_INT, 1, true },	      { "a_u8", TF_INT, 1, false },	  { "a_s16", TF_INT, 2, true },
		{ "a_u16", TF_INT, 2, false },	      { "a_s32", TF_INT, 4, true },	  { "a_u32", TF_INT, 4, false },
		{ "a_s64", TF_INT, 8, true },	      { "a_u64", TF_INT, 8, false },	  { "a_chars", TF_CHARS, 0, true },
		{ "a_arr", TF_ARRAY, 2, true },	      { "a_str", TF_DYN_STRING, 0, true }, { "a_dyn", TF_DYN_ARRAY, 4, false },
		{ "a_rel", TF_DYN_STRING, 0, true }, { "a_ptr", TF_POINTER, 0, false },
	};
	size_t i;

	REQUIRE(tf);
	REQUIRE(trace_formats_count(tf) == 2);
	tp = trace_formats_find(tf, 4001);
	REQUIRE(tp && strcmp(tp->full, "test:kinds") == 0);
	REQUIRE(tp->nfields == sizeof(want) / sizeof(want[0]));
	for (i = 0; i < tp->nfields; i++) {
		const struct trace_field *f = &tp->fields[i];

		CHECKF(strcmp(f->name, want[i].name) == 0, "field %zu is %s, not %s", i, f->name, want[i].name);
		CHECKF(f->kind == want[i].kind, "%s: kind %s", f->name, trace_field_kind_name(f->kind));
		if (want[i].elem)
			CHECKF(f->elem_size == want[i].elem && f->is_signed == want[i].sign, "%s: elem %u signed %d",
			       f->name, f->elem_size, f->is_signed);
	}
	CHECK(tp->fields[12].relative && !tp->fields[10].relative);
	/* What the BPF program is told to copy. */
	CHECK_EQ_INT(tp->cfg.fixed_size, 80);
	CHECK_EQ_INT(tp->cfg.n_dyn, 3);
	CHECK(tp->cfg.dyn_off[0] == 56 && tp->cfg.dyn_off[1] == 60 && tp->cfg.dyn_off[2] == 64);
	CHECK(tp->cfg.dyn_kind[0] == TRACE_DYN_DATA_LOC && tp->cfg.dyn_kind[2] == TRACE_DYN_REL_LOC);
	CHECK_EQ_INT(tp->cfg.n_ustr, 0);

	tp = trace_formats_find(tf, 4002);
	REQUIRE(tp && tp->nfields == 5);
	CHECK(tp->fields[1].kind == TF_USER_STRING && tp->fields[1].ustr == 0);
	CHECK(tp->fields[2].kind == TF_USER_STRINGS && tp->fields[2].ustr == 1);
	CHECK(tp->fields[3].kind == TF_POINTER); /* envp is left as an address */
	/* "int dfd" in an 8-byte unsigned slot: narrowed to a signed int. */
	CHECK(tp->fields[4].kind == TF_INT && tp->fields[4].elem_size == 4 && tp->fields[4].is_signed);
	CHECK(tp->cfg.n_ustr == 2 && tp->cfg.ustr_off[0] == 16 && tp->cfg.ustr_off[1] == 24);
	CHECK(tp->cfg.ustr_kind[0] == TRACE_USTR_STRING && tp->cfg.ustr_kind[1] == TRACE_USTR_ARRAY);
	CHECK_EQ_INT(tp->cfg.fixed_size, 48);
	CHECK(trace_formats_find(tf, 4003) == NULL);
	trace_formats_free(tf);
}

TEST(values_text_and_json)
{
	struct trace_formats *tf = formats();
	struct built b;
	char *text, *json;

	REQUIRE(tf);
	build_kinds(&b);
	text = emit(tf, &b, false);
	json = emit(tf, &b, true);
	REQUIRE(text && json);
	CHECKF(strcmp(text, "    0.000001   1 tester                42 kinds            a_s8=-5 a_u8=250 a_s16=-1234 "
			    "a_u16=65000 a_s32=-100000 a_u32=4000000000 a_s64=-5000000000 "
			    "a_u64=18000000000000000000 a_chars=abc a_arr=[-1,2,-3] a_str=hello a_dyn=[7,4294967295] "
			    "a_rel=rel! a_ptr=0xffff888012345678\n") == 0,
	       "text: %s", text);
	CHECKF(strcmp(json, "{\"time_ns\":1000,\"ktime_ns\":2000001000,\"cpu\":1,\"comm\":\"tester\",\"pid\":42,"
			    "\"tid\":43,\"event\":\"test:kinds\",\"fields\":{\"a_s8\":-5,\"a_u8\":250,\"a_s16\":-1234,"
			    "\"a_u16\":65000,\"a_s32\":-100000,\"a_u32\":4000000000,\"a_s64\":-5000000000,"
			    "\"a_u64\":18000000000000000000,\"a_chars\":\"abc\",\"a_arr\":[-1,2,-3],\"a_str\":\"hello\","
			    "\"a_dyn\":[7,4294967295],\"a_rel\":\"rel!\",\"a_ptr\":\"0xffff888012345678\"}}\n") == 0,
	       "json: %s", json);
	free(text);
	free(json);

	build_execve(&b);
	text = emit(tf, &b, false);
	json = emit(tf, &b, true);
	REQUIRE(text && json);
	CHECKF(strstr(text, " sh                     7 sys_enter_execve __syscall_nr=59 filename=/bin/cat "
			    "argv=[cat,\"a b\",?] envp=0x7ffd2000 dfd=-100 (1 string unread)\n") != NULL,
	       "text: %s", text);
	CHECKF(strstr(json, "\"unread\":1,\"fields\":{\"__syscall_nr\":59,\"filename\":\"/bin/cat\",\"argv\":[\"cat\",\"a b\",null],"
			    "\"envp\":\"0x7ffd2000\",\"dfd\":-100}}\n") != NULL,
	       "json: %s", json);
	free(text);
	free(json);
	trace_formats_free(tf);
}

/* The user string was not readable (no extra for it): null, counted as
 * unread, never the address in the string's place. */
TEST(unreadable_user_string)
{
	struct trace_formats *tf = formats();
	struct trace_sample_hdr h;
	struct built b;
	char *json, *text;

	REQUIRE(tf);
	build_execve(&b);
	memcpy(&h, b.buf, HDR);
	h.extra_size = 0;
	put(&b, 0, &h, HDR);
	b.len = HDR + 48;
	json = emit(tf, &b, true);
	text = emit(tf, &b, false);
	REQUIRE(json && text);
	CHECKF(strstr(json, "\"unread\":1,\"fields\":{") != NULL, "json: %s", json);
	CHECKF(strstr(json, "\"filename\":null,\"argv\":[],") != NULL, "json: %s", json);
	CHECKF(strstr(text, " filename=? argv=[] ") != NULL && strstr(text, " (1 string unread)\n") != NULL,
	       "text: %s", text);
	CHECKF(strstr(json, "0x7ffd0000") == NULL && strstr(text, "0x7ffd0000") == NULL, "json: %s text: %s", json,
	       text);
	free(json);
	free(text);
	trace_formats_free(tf);
}

/* What the program stores when bpf_probe_read_user_str() fails (a page not
 * yet faulted in): an entry of length 0. Null and unread; a NULL pointer is
 * null too, but not unread. */
TEST(user_string_read_failed)
{
	struct trace_formats *tf = formats();
	struct trace_sample_hdr h;
	struct trace_sample s;
	const char *why;
	uint64_t null_ptr = 0;
	struct built b;
	char *json;
	size_t start;

	REQUIRE(tf);
	build_execve(&b);
	memcpy(&h, b.buf, HDR);
	b.len = HDR + 48;
	start = b.len;
	add_str(&b, 0, 0, NULL);
	add_str(&b, 1, 0, "cat");
	h.extra_size = (uint16_t)(b.len - start);
	put(&b, 0, &h, HDR);
	json = emit(tf, &b, true);
	REQUIRE(json);
	CHECKF(strstr(json, "\"unread\":1,") != NULL && strstr(json, "\"filename\":null,\"argv\":[\"cat\"],") != NULL,
	       "json: %s", json);
	free(json);
	put(&b, HDR + 16, &null_ptr, 8);
	REQUIRE(trace_sample_parse(tf, b.buf, b.len, &s, &why) == 0);
	CHECK(trace_sample_unread(&s) == 0);
	json = emit(tf, &b, true);
	REQUIRE(json);
	CHECKF(strstr(json, "\"unread\"") == NULL && strstr(json, "\"filename\":null,") != NULL, "json: %s", json);
	free(json);
	trace_formats_free(tf);
}

TEST(damaged_samples)
{
	struct trace_formats *tf = formats();
	struct trace_sample_hdr h;
	struct trace_sample s;
	struct trace_value v;
	const char *why = NULL;
	struct built b;
	uint32_t loc;
	char *json;

	REQUIRE(tf);
	build_kinds(&b);
	/* Shorter than the header, and than the record it announces. */
	CHECK(trace_sample_parse(tf, b.buf, HDR - 1, &s, &why) == -1 && strstr(why, "header"));
	CHECK(trace_sample_parse(tf, b.buf, HDR + 8, &s, &why) == -1 && strstr(why, "larger than the sample"));
	/* An id no tracepoint has. */
	memcpy(&h, b.buf, HDR);
	h.id = 999;
	put(&b, 0, &h, HDR);
	CHECK(trace_sample_parse(tf, b.buf, b.len, &s, &why) == -1 && strstr(why, "unknown tracepoint id"));

	/* A __data_loc pointing past the record, and one whose length runs past it. */
	build_kinds(&b);
	loc = 200 | (4u << 16);
	put(&b, HDR + 56, &loc, 4);
	loc = 96 | (100u << 16);
	put(&b, HDR + 60, &loc, 4);
	loc = 0xffff | (0xffffu << 16);
	put(&b, HDR + 64, &loc, 4);
	json = emit(tf, &b, true);
	REQUIRE(json);
	CHECKF(strstr(json, "\"a_str\":null,\"a_dyn\":null,\"a_rel\":null,") != NULL, "json: %s", json);
	free(json);

	/* A record cut short (rec_size below the fixed part): fields beyond it are null. */
	build_kinds(&b);
	memcpy(&h, b.buf, HDR);
	h.rec_size = 20;
	put(&b, 0, &h, HDR);
	REQUIRE(trace_sample_parse(tf, b.buf, b.len, &s, &why) == 0);
	trace_field_value(&s, &s.tp->fields[4], &v); /* a_s32 at 16..20: inside */
	CHECK(!v.missing && (int64_t)v.u == -100000);
	trace_field_value(&s, &s.tp->fields[5], &v); /* a_u32 at 20..24: outside */
	CHECK(v.missing);

	/* A user string whose length runs past the strings: the walk stops. */
	build_execve(&b);
	{
		struct trace_extra x;
		size_t cursor = 0, len;
		const char *str;

		memcpy(&x, b.buf + HDR + 48, sizeof(x));
		x.len = 5000;
		put(&b, HDR + 48, &x, sizeof(x));
		REQUIRE(trace_sample_parse(tf, b.buf, b.len, &s, &why) == 0);
		CHECK(!trace_user_string_next(&s, 0, &cursor, &str, &len));
		json = emit(tf, &b, true);
		REQUIRE(json);
		CHECKF(strstr(json, "\"filename\":null,\"argv\":[],") != NULL, "json: %s", json);
		free(json);
	}
	trace_formats_free(tf);
}

/* Random damage to valid samples: whatever the bytes, decoding and printing
 * stay inside the sample (ASan and valgrind watch). */
TEST(random_damage)
{
	struct trace_formats *tf = formats();
	struct built good[2], b;
	unsigned int seed = 12345, i, j, parsed = 0;
	FILE *null = fopen("/dev/null", "w");

	REQUIRE(tf && null);
	build_kinds(&good[0]);
	build_execve(&good[1]);
	for (i = 0; i < 20000; i++) {
		struct trace_emit te = { .f = null, .json = i & 1, .name_width = 8 };
		struct trace_sample s;
		const char *why;
		uint8_t *copy;

		b = good[i % 2];
		for (j = 0; j < 1 + (unsigned int)rand_r(&seed) % 6; j++)
			b.buf[rand_r(&seed) % b.len] = (uint8_t)rand_r(&seed);
		if (rand_r(&seed) % 4 == 0)
			b.len = rand_r(&seed) % (b.len + 1);
		/* An exact-size heap copy, so that ASan sees any read past it. */
		copy = malloc(b.len ? b.len : 1);
		REQUIRE(copy);
		memcpy(copy, b.buf, b.len);
		if (trace_sample_parse(tf, copy, b.len, &s, &why) == 0) {
			parsed++;
			trace_emit_event(&te, &s, 0, trace_sample_unread(&s));
		}
		free(copy);
	}
	fclose(null);
	CHECKF(parsed > 1000, "only %u of 20000 damaged samples parsed: the damage is too coarse", parsed);
	trace_formats_free(tf);
}

TEST(bad_formats)
{
	struct trace_formats *tf = trace_formats_new();
	char err[256];
	char fmt[4096];
	int i, n;

	REQUIRE(tf);
	snprintf(fmt, sizeof(fmt),
		 "name: far\nID: 4010\nformat:\n" COMMON_FIELDS "\tfield:u64 x;\toffset:9000;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \"%%llu\", REC->x\n");
	CHECK(trace_formats_add_text(tf, "test", "far", fmt, strlen(fmt), err, sizeof(err)) == -1);
	CHECKF(strstr(err, "field x (offset 9000, size 8) lies beyond the 8192-byte record limit"), "err: %s", err);

	n = snprintf(fmt, sizeof(fmt), "name: many\nID: 4011\nformat:\n" COMMON_FIELDS);
	for (i = 0; i < TRACE_MAX_DYN + 1; i++)
		n += snprintf(fmt + n, sizeof(fmt) - (size_t)n, "\tfield:__data_loc char[] s%d;\toffset:%d;\tsize:4;\tsigned:1;\n",
			      i, 8 + 4 * i);
	snprintf(fmt + n, sizeof(fmt) - (size_t)n, "\nprint fmt: \"x\"\n");
	CHECK(trace_formats_add_text(tf, "test", "many", fmt, strlen(fmt), err, sizeof(err)) == -1);
	CHECKF(strstr(err, "more than 8 dynamic fields"), "err: %s", err);

	CHECK(trace_formats_add_text(tf, "test", "other", kinds_format, sizeof(kinds_format) - 1, err, sizeof(err)) == -1);
	CHECKF(strstr(err, "its format names another event"), "err: %s", err);
	CHECK(trace_formats_count(tf) == 0);
	trace_formats_free(tf);
}

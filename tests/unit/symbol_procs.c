// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process model (perfring_procs): fed with MMAP/MMAP2/COMM/FORK/EXIT/
 * KSYMBOL records built byte by byte (tests/unit/recbuild.h, with the
 * sample_id trailer), then asked which mapping holds an address; loaded from
 * /proc for this very process, checked against dladdr() and the test's own
 * reading of the ELF program headers; KSYMBOL ranges and JIT maps through
 * the symbolizer.
 */
#include <dlfcn.h>
#include <fcntl.h>

#include "harness.h"
#include "unit/recbuild.h"
#include "unit/symtest.h"

#define TRAILER (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static struct perfring_parse_config cfg;
static struct perfring_procs *procs;

static void fresh(void)
{
	perfring_procs_free(procs);
	procs = perfring_procs_new(NULL);
	if (rb_config(&cfg, TRAILER, 0, true, false))
		abort();
}

static int feed(struct rb *b)
{
	struct perfring_sample_id id = rb_trailer_values();

	rb_trailer(b, TRAILER, &id);
	rb_finish(b);
	return perfring_procs_feed_record(procs, &cfg, rb_exact(b), b->len);
}

static int mmap2(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, const char *file, const uint8_t *bid,
		 size_t nbid)
{
	struct rb b;

	rb_init(&b, false);
	rb_header(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	rb_u32(&b, pid);
	rb_u32(&b, pid);
	rb_u64(&b, addr);
	rb_u64(&b, len);
	rb_u64(&b, pgoff);
	if (bid) {
		uint8_t pad[20] = { 0 };

		rb_u8(&b, (uint8_t)nbid);
		rb_zeros(&b, 3);
		memcpy(pad, bid, nbid);
		rb_bytes(&b, pad, 20);
	} else {
		rb_u32(&b, 0xfe);   /* maj */
		rb_u32(&b, 1);      /* min */
		rb_u64(&b, 424242); /* ino */
		rb_u64(&b, 7);
	}
	rb_u32(&b, 5); /* PROT_READ | PROT_EXEC */
	rb_u32(&b, 2); /* MAP_PRIVATE */
	rb_str(&b, file);
	return feed(&b);
}

static int mmap1(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff, const char *file)
{
	struct rb b;

	rb_init(&b, false);
	rb_header(&b, PERF_RECORD_MMAP, pid == PERFRING_PID_KERNEL ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	rb_u32(&b, pid);
	rb_u32(&b, pid);
	rb_u64(&b, addr);
	rb_u64(&b, len);
	rb_u64(&b, pgoff);
	rb_str(&b, file);
	return feed(&b);
}

static int comm(uint32_t pid, uint32_t tid, const char *name, bool exec)
{
	struct rb b;

	rb_init(&b, false);
	rb_header(&b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	rb_u32(&b, pid);
	rb_u32(&b, tid);
	rb_str(&b, name);
	return feed(&b);
}

static int fork_exit(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct rb b;

	rb_init(&b, false);
	rb_header(&b, type, 0);
	rb_u32(&b, pid);
	rb_u32(&b, ppid);
	rb_u32(&b, tid);
	rb_u32(&b, ptid);
	rb_u64(&b, 123456789);
	return feed(&b);
}

static int ksymbol(uint64_t addr, uint32_t len, uint16_t type, uint16_t flags, const char *name)
{
	struct rb b;

	rb_init(&b, false);
	rb_header(&b, PERF_RECORD_KSYMBOL, 0);
	rb_u64(&b, addr);
	rb_u32(&b, len);
	rb_u16(&b, type);
	rb_u16(&b, flags);
	rb_str(&b, name);
	return feed(&b);
}

/* Expect addr of pid in file at file offset off. */
static void expect(int line, uint32_t pid, uint64_t addr, const char *file, uint64_t off)
{
	struct perfring_map_hit h;
	int r = perfring_procs_lookup(procs, pid, addr, &h);

	if (r || strcmp(h.path, file) || h.file_offset != off)
		th_fail(__FILE__, line, "pid %u %#llx: rc %d %s+%#llx, want %s+%#llx (%s)", pid,
			(unsigned long long)addr, r, h.path, (unsigned long long)h.file_offset, file,
			(unsigned long long)off, h.reason ? h.reason : "");
}

static void expect_none(int line, uint32_t pid, uint64_t addr, int err)
{
	struct perfring_map_hit h;
	int r = perfring_procs_lookup(procs, pid, addr, &h);

	if (r != err || !h.reason || !*perfring_errmsg())
		th_fail(__FILE__, line, "pid %u %#llx: rc %d (%s), want %d", pid, (unsigned long long)addr, r,
			h.path, err);
}

TEST(procs_mmap2_lookup)
{
	struct perfring_map_hit h;
	struct perfring_procs_stats st;

	fresh();
	REQUIRE(procs);
	CHECK_EQ_INT(mmap2(100, 0x400000, 0x2000, 0x1000, "/usr/bin/prog", NULL, 0), 1);
	CHECK_EQ_INT(mmap2(100, 0x7f0000000000, 0x10000, 0, "/usr/lib/libfoo.so", NULL, 0), 1);
	expect(__LINE__, 100, 0x400000, "/usr/bin/prog", 0x1000);
	expect(__LINE__, 100, 0x401fff, "/usr/bin/prog", 0x2fff);
	expect(__LINE__, 100, 0x7f0000000123, "/usr/lib/libfoo.so", 0x123);
	expect_none(__LINE__, 100, 0x402000, -ENOENT); /* just past the end */
	expect_none(__LINE__, 100, 0x3fffff, -ENOENT);
	expect_none(__LINE__, 101, 0x400000, -ESRCH);
	REQUIRE(perfring_procs_lookup(procs, 100, 0x400010, &h) == 0);
	CHECK_EQ_U64(h.start, 0x400000);
	CHECK_EQ_U64(h.end, 0x402000);
	CHECK_EQ_U64(h.pgoff, 0x1000);
	CHECK_EQ_U64(h.maj, 0xfe);
	CHECK_EQ_U64(h.ino, 424242);
	CHECK_EQ_U64(h.prot, 5);
	CHECK(!h.anon && !h.exited && h.build_id_size == 0);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.processes, 1);
	CHECK_EQ_U64(st.mappings, 2);
	CHECK_EQ_U64(st.records, 2);
	/* MMAP (the first version) too. */
	CHECK_EQ_INT(mmap1(100, 0x500000, 0x1000, 0, "/usr/lib/old.so"), 1);
	expect(__LINE__, 100, 0x500fff, "/usr/lib/old.so", 0xfff);
}

TEST(procs_overlap_splits)
{
	struct perfring_procs_stats st;

	fresh();
	REQUIRE(procs);
	mmap2(7, 0x1000, 0x8000, 0, "/a", NULL, 0);
	mmap2(7, 0x3000, 0x2000, 0x10000, "/b", NULL, 0); /* in the middle of /a */
	expect(__LINE__, 7, 0x2fff, "/a", 0x1fff);
	expect(__LINE__, 7, 0x3000, "/b", 0x10000);
	expect(__LINE__, 7, 0x4fff, "/b", 0x11fff);
	expect(__LINE__, 7, 0x5000, "/a", 0x4000); /* the tail keeps its file offsets */
	expect(__LINE__, 7, 0x8fff, "/a", 0x7fff);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.mappings, 3);
	/* One mapping over both edges: replaces /b and cuts /a twice. */
	mmap2(7, 0x2000, 0x5000, 0, "/c", NULL, 0);
	expect(__LINE__, 7, 0x1fff, "/a", 0xfff);
	expect(__LINE__, 7, 0x2000, "/c", 0);
	expect(__LINE__, 7, 0x4000, "/c", 0x2000);
	expect(__LINE__, 7, 0x7000, "/a", 0x6000);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.mappings, 3);
	/* Exactly over one: replaced. */
	mmap2(7, 0x2000, 0x5000, 0x100, "/d", NULL, 0);
	expect(__LINE__, 7, 0x2000, "/d", 0x100);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.mappings, 3);
	/* Zero length: ignored. */
	CHECK_EQ_INT(mmap2(7, 0x100000, 0, 0, "/e", NULL, 0), 0);
	expect_none(__LINE__, 7, 0x100000, -ENOENT);
}

TEST(procs_fork_exec_exit)
{
	struct perfring_map_hit h;

	fresh();
	REQUIRE(procs);
	CHECK_EQ_INT(comm(100, 100, "parent", true), 1);
	mmap2(100, 0x400000, 0x1000, 0, "/bin/parent", NULL, 0);
	mmap2(100, 0x7f0000000000, 0x1000, 0, "/lib/libc.so.6", NULL, 0);
	/* A new thread: nothing changes. */
	CHECK_EQ_INT(fork_exit(PERF_RECORD_FORK, 100, 100, 101, 100), 0);
	expect_none(__LINE__, 101, 0x400000, -ESRCH);
	/* A child process starts with the parent's mappings and name. */
	CHECK_EQ_INT(fork_exit(PERF_RECORD_FORK, 200, 100, 200, 100), 1);
	expect(__LINE__, 200, 0x400010, "/bin/parent", 0x10);
	expect(__LINE__, 200, 0x7f0000000010, "/lib/libc.so.6", 0x10);
	REQUIRE(perfring_procs_lookup(procs, 200, 0x400000, &h) == 0);
	CHECK(!strcmp(h.comm, "parent"));
	/* ... which are its own from then on. */
	mmap2(200, 0x400000, 0x1000, 0, "/bin/other", NULL, 0);
	expect(__LINE__, 200, 0x400000, "/bin/other", 0);
	expect(__LINE__, 100, 0x400000, "/bin/parent", 0);
	/* A thread renaming itself does not rename the process. */
	CHECK_EQ_INT(comm(200, 201, "worker", false), 0);
	REQUIRE(perfring_procs_lookup(procs, 200, 0x400000, &h) == 0);
	CHECK(!strcmp(h.comm, "parent"));
	/*
	 * exec: the new image comes with its MMAPs, which replace what they overlap; until then (a
	 * sample later in the exec) the old image's mappings name its addresses, as perf names them.
	 */
	CHECK_EQ_INT(comm(200, 200, "child", true), 1);
	expect(__LINE__, 200, 0x400000, "/bin/other", 0);
	expect(__LINE__, 200, 0x7f0000000010, "/lib/libc.so.6", 0x10);
	mmap2(200, 0x500000, 0x1000, 0, "/bin/child", NULL, 0);
	mmap2(200, 0x7f0000000000, 0x1000, 0, "/lib/ld.so", NULL, 0);
	expect(__LINE__, 200, 0x500000, "/bin/child", 0);
	expect(__LINE__, 200, 0x7f0000000010, "/lib/ld.so", 0x10);
	expect(__LINE__, 200, 0x400000, "/bin/other", 0);
	REQUIRE(perfring_procs_lookup(procs, 200, 0x500000, &h) == 0);
	CHECK(!strcmp(h.comm, "child"));
	/* EXIT of a thread: nothing; of the process: marked, still resolvable. */
	CHECK_EQ_INT(fork_exit(PERF_RECORD_EXIT, 200, 100, 201, 200), 0);
	CHECK_EQ_INT(fork_exit(PERF_RECORD_EXIT, 200, 100, 200, 100), 1);
	REQUIRE(perfring_procs_lookup(procs, 200, 0x500000, &h) == 0);
	CHECK(h.exited);
	/* The pid reused by a new fork: the parent's mappings again, not the dead one's. */
	CHECK_EQ_INT(fork_exit(PERF_RECORD_FORK, 200, 100, 200, 100), 1);
	REQUIRE(perfring_procs_lookup(procs, 200, 0x400000, &h) == 0);
	CHECK(!h.exited && !strcmp(h.path, "/bin/parent"));
	expect_none(__LINE__, 200, 0x500000, -ENOENT);
	/* An exited pid's exec COMM (its FORK lost): a new process, none of the dead one's mappings. */
	CHECK_EQ_INT(comm(300, 300, "old", true), 1);
	mmap2(300, 0x600000, 0x1000, 0, "/bin/old", NULL, 0);
	CHECK_EQ_INT(fork_exit(PERF_RECORD_EXIT, 300, 100, 300, 100), 1);
	CHECK_EQ_INT(comm(300, 300, "new", true), 1);
	expect_none(__LINE__, 300, 0x600000, -ENOENT);
}

TEST(procs_build_ids)
{
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const uint8_t other[8] = { 1, 1, 2, 3, 5, 8, 13, 21 };
	struct perfring_map_hit h;

	fresh();
	REQUIRE(procs);
	mmap2(9, 0x1000, 0x1000, 0, "/with/bid", bid, 20);
	mmap2(9, 0x2000, 0x1000, 0, "/without", NULL, 0);
	REQUIRE(perfring_procs_lookup(procs, 9, 0x1000, &h) == 0);
	CHECK_EQ_INT(h.build_id_size, 20);
	CHECK(!memcmp(h.build_id, bid, 20));
	CHECK_EQ_U64(h.ino, 0); /* a build id replaces maj/min/ino */
	REQUIRE(perfring_procs_lookup(procs, 9, 0x2000, &h) == 0);
	CHECK_EQ_INT(h.build_id_size, 0);
	/* perf.data's HEADER_BUILD_ID: by file name. */
	CHECK_EQ_INT(perfring_procs_set_build_id(procs, 9, "/without", other, sizeof(other)), 0);
	REQUIRE(perfring_procs_lookup(procs, 9, 0x2000, &h) == 0);
	CHECK_EQ_INT(h.build_id_size, 8);
	CHECK(!memcmp(h.build_id, other, 8));
	/* The mapping's own build id wins over the file name's. */
	CHECK_EQ_INT(perfring_procs_set_build_id(procs, 9, "/with/bid", other, sizeof(other)), 0);
	REQUIRE(perfring_procs_lookup(procs, 9, 0x1000, &h) == 0);
	CHECK(h.build_id_size == 20 && !memcmp(h.build_id, bid, 20));
	CHECK_EQ_INT(perfring_procs_set_build_id(procs, 9, "/x", other, 0), -EINVAL);
	CHECK_EQ_INT(perfring_procs_set_build_id(procs, 9, "/x", other, 21), -EINVAL);
}

TEST(procs_kernel_maps_and_ksymbols)
{
	const struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .kallsyms = "",
								     .jit_dir = "");
	struct perfring_symbolizer *s = perfring_symbolizer_new(&o);
	struct perfring_sym_result r;
	struct perfring_procs_stats st;
	struct perfring_map_hit h;
	const uint64_t prog = 0xffffffffc0001000ull;

	fresh();
	REQUIRE(procs && s);
	/* perf's kernel map runs to the top of the address space. */
	CHECK_EQ_INT(mmap1(PERFRING_PID_KERNEL, 0xffffffff81000000ull, 0x7effffff, 0xffffffff81000000ull,
			   "[kernel.kallsyms]_text"), 1);
	REQUIRE(perfring_procs_lookup(procs, PERFRING_PID_KERNEL, 0xffffffff81234567ull, &h) == 0);
	CHECK(!strcmp(h.path, "[kernel.kallsyms]_text") && h.anon);
	CHECK_EQ_INT(ksymbol(prog, 0x200, 1 /* BPF */, 0, "bpf_prog_0123456789abcdef_handler"), 1);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, prog + 0x10, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECK(r.name && !strcmp(r.name, "bpf_prog_0123456789abcdef_handler"));
	CHECK_EQ_U64(r.offset, 0x10);
	CHECK_EQ_INT(r.source, PERFRING_SYM_KSYMBOL);
	CHECK(r.binary && !strcmp(r.binary, "[bpf]"));
	/* Past its end, and once unregistered: unknown (no kallsyms here). */
	CHECK(perfring_symbolize(s, procs, 0, prog + 0x200, PERF_RECORD_MISC_KERNEL, &r) < 0 && !r.name);
	CHECK_EQ_INT(ksymbol(prog, 0x200, 1, 1 /* UNREGISTER */, "bpf_prog_0123456789abcdef_handler"), 1);
	CHECK(perfring_symbolize(s, procs, 0, prog + 0x10, PERF_RECORD_MISC_KERNEL, &r) < 0 && !r.name && r.reason);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.ksymbols, 0);
	perfring_symbolizer_free(s);
}

/*
 * KASLR: a recording's kernel is where it was at that boot. perf record's
 * kernel map "[kernel.kallsyms]_text" has _text's address then as its
 * pgoff; kallsyms has it where it is now: core kernel addresses move by the
 * difference, module symbols (which move on their own) are looked up as
 * recorded, and a recording without that map is not moved.
 */
TEST(procs_kernel_relocated)
{
	char dir[64], path[PATH_MAX];
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .jit_dir = "");
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	FILE *f;

	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	REQUIRE((f = fopen(path, "w")) != NULL);
	/* with lines kallsyms never has, which the reader skips: not hex, no
	 * name, an address of 17 digits, an unclosed module; and data symbols,
	 * which perf names addresses with (as objects: NAME+0xOFFSET) */
	fputs("ffffffff82000000 T _text\n"
	      "ffffffff82000000 T startup_64\n"
	      "zzzz T not_an_address\n"
	      "ffffffff82000800 T\n"
	      "1ffffffff82000900 T too_long\n"
	      "ffffffff82000a00 D some_data\n"
	      "ffffffff82001000 T do_work\n"
	      "ffffffff82002000 T other_work\n"
	      "ffffffff82100000 T _etext\n"
	      "ffffffff82200000 D __start_rodata\n"
	      "ffffffff82800000 r some_rodata\n" /* r: not kept (perf neither) */
	      "ffffffff83000000 B __bss_start\n"
	      "ffffffffc0010000 t mod_fn\t[mymod]\n"
	      "ffffffffc0020000 t half_mod_fn\t[unclosed\n"
	      "ffffffff82000c00 t late_but_lower\n" /* out of address order, as a few are */
	      "ffffffff82000b00 t lower_still\n",
	      f);
	REQUIRE(fclose(f) == 0);
	o.kallsyms = path;

	/* Recorded when _text was at 0xffffffff81000000: 0x1000 into do_work's place then. */
	fresh();
	REQUIRE(procs);
	CHECK_EQ_INT(mmap1(PERFRING_PID_KERNEL, 0xffffffff81000000ull, 0x1100000, 0xffffffff81000000ull,
			   "[kernel.kallsyms]_text"), 1);
	REQUIRE((s = perfring_symbolizer_new(&o)) != NULL);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff81001010ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "do_work"), "%s", r.name ? r.name : r.reason);
	CHECK_EQ_U64(r.offset, 0x10);
	CHECK_EQ_U64(r.sym_addr, 0xffffffff81001000ull); /* in the recording's addresses */
	CHECK(r.binary && !strcmp(r.binary, "[kernel.kallsyms]"));
	/* A module address is not moved with the core kernel. */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffffc0010004ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECK(r.name && !strcmp(r.name, "mod_fn") && r.offset == 4);
	CHECK(r.binary && !strcmp(r.binary, "[mymod]"));
	/* the lines out of order are in their places */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff81000c04ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "late_but_lower") && r.offset == 4, "%s", r.name ? r.name : r.reason);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff81000b08ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "lower_still") && r.offset == 8, "%s", r.name ? r.name : r.reason);
	CHECK_EQ_INT(r.flags, 0); /* a function */
	/* the bad lines name nothing: startup_64 runs to the data symbol */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff810009f0ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "startup_64"), "%s", r.name ? r.name : r.reason);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff81000a10ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "some_data"), "%s", r.name ? r.name : r.reason);
	CHECK(r.flags == PERFRING_SYM_OBJECT && r.offset == 0x10);
	/* Past _etext: a data symbol runs to the next symbol, however far (an
	 * r symbol is not one), as perf's run; the last one has a page. */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff81e80314ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "__start_rodata"), "%s", r.name ? r.name : r.reason);
	CHECK(r.flags == PERFRING_SYM_OBJECT && r.offset == 0xc80314);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff82000ff8ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECKF(r.name && !strcmp(r.name, "__bss_start") && r.offset == 0xff8, "%s", r.name ? r.name : r.reason);
	CHECK(perfring_symbolize(s, procs, 0, 0xffffffff82001000ull, PERF_RECORD_MISC_KERNEL, &r) < 0);
	perfring_symbolizer_free(s);

	/* The same boot (pgoff == _text now): as recorded. */
	fresh();
	REQUIRE(procs);
	CHECK_EQ_INT(mmap1(PERFRING_PID_KERNEL, 0xffffffff82000000ull, 0x100000, 0xffffffff82000000ull,
			   "[kernel.kallsyms]_text"), 1);
	REQUIRE((s = perfring_symbolizer_new(&o)) != NULL);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff82002008ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECK(r.name && !strcmp(r.name, "other_work") && r.offset == 8);
	perfring_symbolizer_free(s);

	/* No kernel map recorded (perfring record, a user-only recording): as recorded. */
	fresh();
	REQUIRE(procs);
	REQUIRE((s = perfring_symbolizer_new(&o)) != NULL);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 0, 0xffffffff82001010ull, PERF_RECORD_MISC_KERNEL, &r), 0);
	CHECK(r.name && !strcmp(r.name, "do_work") && r.offset == 0x10);
	perfring_symbolizer_free(s);
	unlink(path);
	rmdir(dir);
}

TEST(procs_jit_map)
{
	char dir[64], path[PATH_MAX];
	struct perfring_symbolizer_opts o = PERFRING_OPTS_INIT(perfring_symbolizer_opts, .kallsyms = "");
	struct perfring_symbolizer *s;
	struct perfring_sym_result r;
	FILE *f;

	fresh();
	REQUIRE(procs);
	REQUIRE(st_tmpdir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	f = fopen(path, "w");
	REQUIRE(f);
	fprintf(f, "7f1000001000 40 Interpreter::loop\n7f1000002000 100 LazyCompile:*fib app.js:3\n"
		   "garbage line\n7f2000000000 10 outside_any_mapping\n");
	fclose(f);
	o.jit_dir = dir;
	s = perfring_symbolizer_new(&o);
	REQUIRE(s);
	mmap2(4242, 0x7f1000000000, 0x10000, 0, "//anon", NULL, 0);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4242, 0x7f1000002010, PERF_RECORD_MISC_USER, &r), 0);
	CHECK(r.name && !strcmp(r.name, "LazyCompile:*fib app.js:3") && r.offset == 0x10);
	CHECK_EQ_INT(r.source, PERFRING_SYM_JIT_MAP);
	CHECK(r.binary && !strcmp(r.binary, path));
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4242, 0x7f100000103f, PERF_RECORD_MISC_USER, &r), 0);
	CHECK(r.name && !strcmp(r.name, "Interpreter::loop") && r.offset == 0x3f);
	/* Code no MMAP described is still found in the map. */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4242, 0x7f2000000004, PERF_RECORD_MISC_USER, &r), 0);
	CHECK(r.name && !strcmp(r.name, "outside_any_mapping"));
	/* Anonymous memory the map does not cover: unknown, saying why. */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4242, 0x7f1000001040, PERF_RECORD_MISC_USER, &r), -ENODATA);
	CHECK(!r.name && r.reason && strstr(r.reason, "anonymous"));
	/* Another process has no map. */
	mmap2(4243, 0x7f1000000000, 0x10000, 0, "//anon", NULL, 0);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4243, 0x7f1000002010, PERF_RECORD_MISC_USER, &r), -ENODATA);
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4244, 0x7f1000002010, PERF_RECORD_MISC_USER, &r), -ESRCH);
	/* A guest's addresses are not the host process's. */
	CHECK_EQ_INT(perfring_symbolize(s, procs, 4242, 0x7f1000002010, PERF_RECORD_MISC_GUEST_USER, &r), -ENOENT);
	CHECK(!r.name && r.reason && strstr(r.reason, "guest"));
	perfring_symbolizer_free(s);
	st_rmdir(dir);
}

static __attribute__((noinline, used)) int procs_test_probe(int x)
{
	return x * 3 + 1;
}

/* The file offset of addr in the object dladdr() says holds it (the test's own arithmetic). */
static int oracle(const void *addr, Dl_info *di, char *real, uint64_t *off)
{
	if (!dladdr(addr, di) || !di->dli_fname || !realpath(di->dli_fname, real))
		return -1;
	return st_vaddr_to_off(real, (uint64_t)((uintptr_t)addr - (uintptr_t)di->dli_fbase), off);
}

TEST(procs_load_self_from_proc)
{
	const void *fns[2] = { (const void *)procs_test_probe, (const void *)getpid };
	struct perfring_symbolizer *s = perfring_symbolizer_new(NULL);
	struct perfring_sym_result r;
	int i;

	fresh();
	REQUIRE(procs && s);
	REQUIRE(perfring_procs_load_proc(procs, (uint32_t)getpid()) == 0);
	for (i = 0; i < 2; i++) {
		struct perfring_map_hit h;
		char real[PATH_MAX], hreal[PATH_MAX], hex[64], oracle_hex[64];
		uint64_t off;
		Dl_info di;

		REQUIREF(oracle(fns[i], &di, real, &off) == 0, "dladdr/phdrs of fn %d", i);
		REQUIREF(perfring_procs_lookup(procs, (uint32_t)getpid(), (uintptr_t)fns[i], &h) == 0, "%s",
			 perfring_errmsg());
		CHECKF(realpath(h.path, hreal) && !strcmp(hreal, real), "fn %d: %s, dladdr says %s", i, h.path, real);
		CHECK_EQ_U64(h.file_offset, off);
		CHECK(h.prot & 4); /* PROT_EXEC */
		CHECK(!h.anon);
		/* /proc loading read the file's build id, as readelf sees it. */
		if (st_readelf_build_id(real, oracle_hex, sizeof(oracle_hex)) == 0) {
			st_hex(h.build_id, h.build_id_size, hex);
			CHECKF(!strcmp(hex, oracle_hex), "build id of %s: %s, readelf %s", real, hex, oracle_hex);
		}
		/* And the symbolizer names the function: the test's own from .symtab, libc's
		 * at the address dladdr gives. */
		REQUIREF(perfring_symbolize(s, procs, (uint32_t)getpid(), (uintptr_t)fns[i], PERF_RECORD_MISC_USER,
					    &r) == 0, "%s", perfring_errmsg());
		if (i == 0)
			CHECKF(!strcmp(r.name, "procs_test_probe") && r.offset == 0, "%s+%#llx", r.name,
			       (unsigned long long)r.offset);
		else
			CHECKF(di.dli_saddr && r.sym_addr + (uintptr_t)di.dli_fbase == (uintptr_t)di.dli_saddr &&
			       r.offset == 0, "libc: %s at %#llx, dladdr %s at %p", r.name,
			       (unsigned long long)r.sym_addr, di.dli_sname ? di.dli_sname : "?", di.dli_saddr);
	}
	CHECK(perfring_procs_load_proc(procs, 0x7ffffff0) == -ESRCH);
	perfring_symbolizer_free(s);
}

TEST(procs_load_all)
{
	struct perfring_procs_stats st;
	struct perfring_map_hit h;
	int n;

	fresh();
	REQUIRE(procs);
	n = perfring_procs_load_all(procs);
	CHECKF(n >= 2, "loaded %d processes", n);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK(st.processes >= (uint64_t)n);
	CHECK(perfring_procs_lookup(procs, (uint32_t)getpid(), (uintptr_t)procs_test_probe, &h) == 0);
	{
		/* The name as /proc says it (valgrind runs us as memcheck-...). */
		char want[64] = "";
		FILE *f = fopen("/proc/self/comm", "r");

		if (f) {
			if (!fgets(want, sizeof(want), f))
				want[0] = '\0';
			fclose(f);
		}
		want[strcspn(want, "\n")] = '\0';
		CHECKF(!strcmp(h.comm, want), "comm %s, /proc/self/comm %s", h.comm, want);
	}
}

TEST(procs_bad_records)
{
	struct rb b;
	struct perfring_procs_stats st;
	struct perfring_decoded d;

	fresh();
	REQUIRE(procs);
	/* A truncated MMAP2: decode error, model unchanged. */
	rb_init(&b, false);
	rb_header(&b, PERF_RECORD_MMAP2, 0);
	rb_u32(&b, 1);
	rb_u32(&b, 1);
	rb_finish(&b);
	CHECK(perfring_procs_feed_record(procs, &cfg, rb_exact(&b), b.len) < 0);
	REQUIRE(perfring_procs_stats(procs, &st) == 0);
	CHECK_EQ_U64(st.processes, 0);
	/* Records of no interest: ignored. */
	memset(&d, 0, sizeof(d));
	d.type = PERF_RECORD_SAMPLE;
	CHECK_EQ_INT(perfring_procs_feed(procs, &d), 0);
	d.type = 77;
	d.kind = PERFRING_REC_UNKNOWN;
	CHECK_EQ_INT(perfring_procs_feed(procs, &d), 0);
	CHECK_EQ_INT(perfring_procs_feed(NULL, &d), -EINVAL);
	CHECK_EQ_INT(perfring_procs_lookup(NULL, 1, 0, NULL), -EINVAL);
	perfring_procs_free(procs);
	procs = NULL;
}

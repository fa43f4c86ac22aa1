// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stacks of named frames (perfring/stack.h) through the public API, on
 * this very process (live: read from /proc when first asked):
 * - a BPF-style user stack (perfring_stacks_addrs): the leaf named as it
 *   is, a return address named as the function it returns into;
 * - a decoded SAMPLE with a call chain and its PERF_CONTEXT_USER marker:
 *   the markers skipped, frames leaf first; max_stack cuts it, a negative
 *   max_stack leaves the ip alone, apart from the chain;
 * - perfring_demangle(): C++ and Rust names as perf shows them, cut to fit;
 * - perfring_kmod_name(): a module's file as [NAME], compressed or not;
 * - bad arguments: EINVAL with a message.
 */
#include <errno.h>
#include <linux/perf_event.h>

#include <perfring/stack.h>

#include "harness.h"

__attribute__((noinline, used)) void stack_api_leaf(void);
__attribute__((noinline, used)) void stack_api_caller(void);

__attribute__((noinline, used)) void stack_api_leaf(void)
{
	__asm__ __volatile__("nop\n\tnop\n\tnop\n\tnop");
}

__attribute__((noinline, used)) void stack_api_caller(void)
{
	stack_api_leaf();
	__asm__ __volatile__("nop");
}

static struct perfring_stacks *live_stacks(int max_stack)
{
	struct perfring_stacks_opts o = { .sz = sizeof(o), .live = true, .max_stack = max_stack, .kallsyms = "" };

	return perfring_stacks_new(&o);
}

static const char *fname(const struct perfring_stack *s, size_t i)
{
	const struct perfring_frame *f = perfring_stack_frame(s, i);

	return f->name ? f->name : "(null)";
}

TEST(stacks_addrs_user)
{
	struct perfring_stacks *st = live_stacks(0);
	/* the leaf's third byte (where the CPU was), then an address inside the
	 * caller (a return address: the instruction after a call) */
	uint64_t addrs[2] = { (uintptr_t)stack_api_leaf + 2, (uintptr_t)stack_api_caller + 4 };
	struct perfring_stack s;

	REQUIRE(st);
	REQUIRE(perfring_stacks_addrs(st, (uint32_t)getpid(), PERF_RECORD_MISC_USER, addrs, 2, &s) == 0);
	REQUIRE(s.nframes == 2 && s.frame_sz >= sizeof(struct perfring_frame));
	CHECKF(!strcmp(fname(&s, 0), "stack_api_leaf") && perfring_stack_frame(&s, 0)->offset == 2, "%s+%llu",
	       fname(&s, 0), (unsigned long long)perfring_stack_frame(&s, 0)->offset);
	CHECKF(!strcmp(fname(&s, 1), "stack_api_caller"), "%s", fname(&s, 1));
	CHECK(perfring_stack_frame(&s, 0)->mapped && !perfring_stack_frame(&s, 0)->kernel);
	CHECKF(strstr(perfring_stack_frame(&s, 0)->dso, "stack_api") != NULL, "dso %s", perfring_stack_frame(&s, 0)->dso);
	CHECK(perfring_stack_frame(&s, 0)->cpumode == PERF_RECORD_MISC_USER);
	CHECK(!s.ip_frame && !s.ip_apart && !s.unwound);
	/* an address no mapping holds: a frame still, unnamed, with its reason */
	addrs[0] = 16;
	REQUIRE(perfring_stacks_addrs(st, (uint32_t)getpid(), PERF_RECORD_MISC_USER, addrs, 1, &s) == 0);
	CHECK(s.nframes == 1 && !perfring_stack_frame(&s, 0)->name && perfring_stack_frame(&s, 0)->reason);
	CHECK(!strcmp(perfring_stack_frame(&s, 0)->dso, "[unknown]"));
	CHECK(perfring_stacks_procs(st) && perfring_stacks_symbolizer(st));
	perfring_stacks_free(st);
}

/* A kernel stack, as a BPF program's: the core kernel's and a module's
 * functions named from kallsyms (live: a module too, though no record
 * mapped it). Needs kernel addresses visible (root, kptr_restrict). */
TEST(stacks_addrs_kernel)
{
	struct perfring_stacks_opts o = { .sz = sizeof(o), .live = true };
	char line[512], type, name[256], mod[256] = "", want_core[256] = "", want_mod[256] = "";
	unsigned long long a, core = 0, modaddr = 0;
	struct perfring_stacks *st;
	struct perfring_stack s;
	FILE *f = fopen("/proc/kallsyms", "r");
	uint64_t addrs[2];

	while (f && fgets(line, sizeof(line), f) && !(core && modaddr)) {
		int n = sscanf(line, "%llx %c %255s %255s", &a, &type, name, mod);

		if (n < 3 || !a || (type != 't' && type != 'T'))
			continue;
		if (n == 3 && !core && !strcmp(name, "schedule"))
			core = a, snprintf(want_core, sizeof(want_core), "%s", name);
		else if (n == 4 && !modaddr && mod[0] == '[' && strcmp(mod, "[bpf]"))
			modaddr = a, snprintf(want_mod, sizeof(want_mod), "%s", name);
	}
	if (f)
		fclose(f);
	if (!core || !modaddr) {
		SKIP("no visible kernel or module text symbols in /proc/kallsyms");
	}
	REQUIRE((st = perfring_stacks_new(&o)));
	addrs[0] = core + 1;
	addrs[1] = modaddr + 1;
	REQUIRE(perfring_stacks_addrs(st, 0, PERF_RECORD_MISC_KERNEL, addrs, 2, &s) == 0);
	REQUIRE(s.nframes == 2);
	CHECKF(!strcmp(fname(&s, 0), want_core) && perfring_stack_frame(&s, 0)->kernel &&
	       !strcmp(perfring_stack_frame(&s, 0)->dso, "[kernel.kallsyms]"), "%s in %s", fname(&s, 0),
	       perfring_stack_frame(&s, 0)->dso);
	CHECKF(perfring_stack_frame(&s, 1)->name && perfring_stack_frame(&s, 1)->dso[0] == '[',
	       "module symbol %s: %s in %s", want_mod, fname(&s, 1), perfring_stack_frame(&s, 1)->dso);
	perfring_stacks_free(st);
}

/* A SAMPLE of this process: ip, then its chain (USER marker, leaf, caller, caller's caller). */
static void sample_of(struct perfring_decoded *d, const uint64_t *chain, uint64_t nr)
{
	memset(d, 0, sizeof(*d));
	d->type = PERF_RECORD_SAMPLE;
	d->misc = PERF_RECORD_MISC_USER;
	d->u.sample.present = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	d->u.sample.ip = chain[1];
	d->u.sample.pid = d->u.sample.tid = (uint32_t)getpid();
	d->u.sample.callchain.data = chain;
	d->u.sample.callchain.nr = nr;
}

TEST(stacks_sample_chain)
{
	uint64_t chain[4] = { PERF_CONTEXT_USER, (uintptr_t)stack_api_leaf + 1, (uintptr_t)stack_api_caller + 4,
			      (uintptr_t)main + 1 };
	struct perfring_stacks *st = live_stacks(0), *st2 = live_stacks(2), *st0 = live_stacks(-1);
	struct perfring_decoded d;
	struct perfring_stack s;

	REQUIRE(st && st2 && st0);
	sample_of(&d, chain, 4);
	REQUIRE(perfring_stacks_sample(st, &d, &s) == 0);
	REQUIREF(s.nframes == 3, "%zu frames", s.nframes);
	CHECK(!strcmp(fname(&s, 0), "stack_api_leaf") && !strcmp(fname(&s, 1), "stack_api_caller") &&
	      !strcmp(fname(&s, 2), "main"));
	CHECK(!s.ip_frame); /* the chain starts at the ip */
	/* max_stack 2: the leaf's end kept */
	REQUIRE(perfring_stacks_sample(st2, &d, &s) == 0);
	CHECK(s.nframes == 2 && !strcmp(fname(&s, 1), "stack_api_caller"));
	/* negative: the ip alone, apart from the (empty) chain, as perf --max-stack 0 */
	REQUIRE(perfring_stacks_sample(st0, &d, &s) == 0);
	CHECK(s.nframes == 0 && s.ip_apart && s.ip_frame && s.ip_frame->name &&
	      !strcmp(s.ip_frame->name, "stack_api_leaf"));
	/* no chain: the ip */
	d.u.sample.present &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	REQUIRE(perfring_stacks_sample(st, &d, &s) == 0);
	CHECK(s.nframes == 1 && !strcmp(fname(&s, 0), "stack_api_leaf"));
	perfring_stacks_free(st);
	perfring_stacks_free(st2);
	perfring_stacks_free(st0);
}

TEST(stacks_demangle)
{
	char buf[64], tiny[6];

	CHECK(!strcmp(perfring_demangle("_ZN3foo3barEi", buf, sizeof(buf)), "foo::bar"));
	CHECK(!strcmp(perfring_demangle("_ZNSo5flushEv", buf, sizeof(buf)), "std::ostream::flush"));
	CHECK(!strcmp(perfring_demangle("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", buf, sizeof(buf)),
		      "std::rt::lang_start_internal"));
	CHECK(!strcmp(perfring_demangle("_ZN3std2rt10lang_start17h0123456789abcdefE", buf, sizeof(buf)),
		      "std::rt::lang_start"));
	CHECK(!strcmp(perfring_demangle("_ZN3foo3barEi", tiny, sizeof(tiny)), "foo::"));
	const char *plain = "main";
	CHECK(perfring_demangle(plain, buf, sizeof(buf)) == plain);
	CHECK(perfring_demangle("_Zzzz", buf, sizeof(buf))[0] == '_');
	CHECK(perfring_demangle("_ZN3foo3barEi", NULL, 0)[0] == '_');
	CHECK(perfring_demangle(NULL, buf, sizeof(buf)) == NULL);
}

TEST(stacks_kmod_name)
{
	char buf[64], tiny[8];

	CHECK(!strcmp(perfring_kmod_name("/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko", buf, sizeof(buf)) ?: "",
		      "[ext4]"));
	CHECK(!strcmp(perfring_kmod_name("/lib/modules/6.8/kernel/drivers/nvme-core.ko.zst", buf, sizeof(buf)) ?: "",
		      "[nvme_core]"));
	CHECK(!strcmp(perfring_kmod_name("i915.ko.xz", buf, sizeof(buf)) ?: "", "[i915]"));
	CHECK(perfring_kmod_name("/usr/lib/libc.so.6", buf, sizeof(buf)) == NULL);
	CHECK(perfring_kmod_name("/lib/modules/.ko", buf, sizeof(buf)) == NULL); /* no name */
	CHECK(perfring_kmod_name("/x/12345678.ko", tiny, sizeof(tiny)) == NULL); /* "[12345678]" needs 11 */
	CHECK(!strcmp(perfring_kmod_name("/x/12345.ko", tiny, sizeof(tiny)) ?: "", "[12345]"));
	CHECK(perfring_kmod_name(NULL, buf, sizeof(buf)) == NULL);
}

TEST(stacks_bad_args)
{
	struct { struct perfring_stacks_opts o; uint64_t future; } big = { .o = { .sz = sizeof(big) }, .future = 1 };
	struct perfring_stacks *st = live_stacks(0);
	struct perfring_decoded d = { .type = PERF_RECORD_MMAP };
	struct perfring_stack s;

	REQUIRE(st);
	errno = 0;
	CHECK(!perfring_stacks_new(&big.o) && errno == EINVAL);
	CHECK(perfring_stacks_sample(st, &d, &s) == -EINVAL && strstr(perfring_errmsg(), "SAMPLE"));
	CHECK(perfring_stacks_addrs(st, 1, PERF_RECORD_MISC_USER, NULL, 1, &s) == -EINVAL);
	CHECK(perfring_stacks_feed(st, NULL) == -EINVAL);
	CHECK(perfring_stacks_name(st, NULL) == NULL);
	perfring_stacks_free(NULL);
	perfring_stacks_free(st);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stacks of named frames (stack.h): the object, the records that keep its
 * process model and frame cache true, and the walks of a sample's call
 * chain (perf's thread__resolve_callchain_sample()), of its unwound user
 * stack (perf's unwind_entry()), and of a BPF stack map's addresses. Each
 * address is named by stack_name.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "profile/stack_internal.h"

#define STACKS_MAX_STACK_DEFAULT 127
/* No record holds a longer chain (64 KiB of 8-byte entries), nor a stack
 * copy more frames: a larger max_stack is the same as this. */
#define STACKS_MAX_STACK_CAP 8192

static int read_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? v : STACKS_MAX_STACK_DEFAULT;
}

/* The symbolizer's choice between symbols at one address compares their
 * shown names, as perf's (which demangles as it reads). */
static const char *shown_name(void *arg, const char *name)
{
	return pr_stacks_shown(arg, name);
}

static int stacks_init(struct perfring_stacks *st, const struct perfring_stacks_opts *opts)
{
	struct perfring_procs_opts popts = { .sz = sizeof(popts), .no_build_ids = !st->live };
	struct perfring_symbolizer_opts sopts = { .sz = sizeof(sopts) };
	const char *kallsyms = PR_OPT(opts, kallsyms, NULL);

	if (kallsyms && !(st->kallsyms = strdup(kallsyms)))
		return -ENOMEM;
	if (!PR_OPT(opts, no_demangle, false) && !(st->demangler = pr_demangler_new()))
		return -ENOMEM;
	if (!(st->fcache = pr_fcache_new()))
		return -ENOMEM;
	st->procs = PR_OPT(opts, procs, NULL);
	if (!st->procs) {
		if (!(st->procs = perfring_procs_new(&popts)))
			return -errno;
		st->own_procs = true;
	}
	st->sym = PR_OPT(opts, symbolizer, NULL);
	if (!st->sym) {
		sopts.lines = st->lines;
		sopts.inlines = st->inlines || st->inline_frames;
		sopts.kallsyms = st->kallsyms;
		sopts.shown_name = shown_name;
		sopts.shown_name_arg = st;
		if (!(st->sym = perfring_symbolizer_new(&sopts)))
			return -errno;
		st->own_sym = true;
	}
	return 0;
}

struct perfring_stacks *perfring_stacks_new(const struct perfring_stacks_opts *opts)
{
	struct perfring_stacks *st;
	int max, err;

	err = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(struct perfring_stacks_opts), "perfring_stacks_opts");
	if (err)
		return pr_errno_null(-err);
	st = calloc(1, sizeof(*st));
	if (!st)
		return pr_fail_null(ENOMEM, "perfring_stacks_new: out of memory");
	st->vdso_fd = -1;
	st->live = PR_OPT(opts, live, false);
	st->lines = PR_OPT(opts, lines, false);
	st->inlines = PR_OPT(opts, inlines, false);
	st->inline_frames = PR_OPT(opts, inline_frames, false);
	st->no_unwind = PR_OPT(opts, no_unwind, false);
	st->no_symbols = PR_OPT(opts, no_symbols, false);
	st->chain_from_root = PR_OPT(opts, chain_from_root, false);
	max = PR_OPT(opts, max_stack, 0);
	st->max_stack = max < 0 ? 0 : max ? max : read_max_stack();
	if (st->max_stack > STACKS_MAX_STACK_CAP)
		st->max_stack = STACKS_MAX_STACK_CAP;
	err = stacks_init(st, opts);
	if (err) {
		perfring_stacks_free(st);
		if (err == -ENOMEM)
			return pr_fail_null(ENOMEM, "perfring_stacks_new: out of memory");
		return pr_errno_null(-err); /* the procs' or the symbolizer's message */
	}
	return st;
}

void perfring_stacks_free(struct perfring_stacks *st)
{
	if (!st)
		return;
	if (st->own_procs)
		perfring_procs_free(st->procs);
	if (st->own_sym)
		perfring_symbolizer_free(st->sym);
	pr_demangler_free(st->demangler);
	pr_fcache_free(st->fcache);
	pr_strtab_free(&st->strs);
	pr_unwinder_free(st->unwinder);
	free(st->frames);
	free(st->ips);
	free(st->loaded);
	free(st->kallsyms);
	if (st->vdso_fd >= 0)
		close(st->vdso_fd);
	free(st);
}

struct perfring_procs *perfring_stacks_procs(struct perfring_stacks *st)
{
	return st ? st->procs : NULL;
}

struct perfring_symbolizer *perfring_stacks_symbolizer(struct perfring_stacks *st)
{
	return st ? st->sym : NULL;
}

const char *perfring_stacks_name(struct perfring_stacks *st, const char *name)
{
	return st && name ? pr_stacks_shown(st, name) : name;
}

const char *perfring_demangle(const char *name, char *buf, size_t len)
{
	char *out;
	size_t n;

	if (!name || !buf || !len || !(out = pr_demangle_str(name)))
		return name;
	n = strlen(out);
	if (n >= len)
		n = len - 1;
	memcpy(buf, out, n);
	buf[n] = '\0';
	free(out);
	return buf;
}

int perfring_stacks_feed(struct perfring_stacks *st, const struct perfring_decoded *d)
{
	int ret;

	if (!st || !d)
		return pr_fail(EINVAL, "perfring_stacks_feed: NULL argument");
	ret = perfring_procs_feed(st->procs, d);
	/* a FORK the model refuses (an unknown parent) still makes a new child */
	if (ret <= 0 && d->type != PERF_RECORD_FORK)
		return ret;
	switch (d->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (d->u.mmap.pid == PERFRING_PID_KERNEL)
			st->kernel_mapped = true;
		pr_fcache_changed(st->fcache, d->u.mmap.pid);
		break;
	case PERF_RECORD_COMM:
		pr_fcache_changed(st->fcache, d->u.comm.pid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pr_fcache_changed(st->fcache, d->u.fork_exit.pid);
		break;
	default: /* KSYMBOL, BPF_EVENT */
		pr_fcache_changed(st->fcache, PERFRING_PID_KERNEL);
		break;
	}
	return ret;
}

static int reserve_frames(struct perfring_stacks *st, size_t n)
{
	return pr_grow(&st->frames, &st->frames_cap, n, sizeof(*st->frames));
}

static void stack_out(struct perfring_stacks *st, size_t n, struct perfring_stack *out)
{
	out->nframes = n;
	out->frame_sz = sizeof(struct pr_frame);
	out->frames = st->frames;
}

/* A caller's frame is a return address: the instruction after the call,
 * which can be past the end of the inlined function that made the call (or
 * on another line). Its inline chain and line are those of the call, at
 * addr - 1, as addr2line and pprof take them; its name stays addr's, as
 * perf names it. The first entry of each context (the sampled ip, or the
 * user ip the kernel was entered at) is where the CPU was, not a return. */
static void call_site_inlines(struct perfring_stacks *st, uint32_t pid, uint64_t addr, unsigned cpumode,
			      struct pr_frame *f)
{
	struct perfring_sym_result res;

	if (!f->name || addr == 0 || perfring_symbolize(st->sym, st->procs, pid, addr - 1, cpumode, &res) != 0 ||
	    !res.name || strcmp(pr_stacks_shown(st, res.name), f->name))
		return; /* addr - 1 is in another function (a call at the very end): keep addr's */
	f->file = res.file;
	f->line = res.line;
	f->inlines = res.nr_frames > 1 ? res.frames : NULL;
	f->ninlines = res.nr_frames > 1 ? res.nr_frames - 1 : 0;
}

/*
 * The unwound frame at st->frames[*n] as perf's unwind_entry() appends it:
 * when DWARF describes the address, a frame per function of its inline
 * chain, innermost first, each an inlined one unless it is the binary's
 * symbol there (perf's new_inline_sym()); else the frame itself. DWARF
 * names functions as addr2line (perf's) does, so the outermost one too can
 * differ from the symbol: __GI___libc_read at read, a clone's source name
 * at get_common_cache_info.constprop.0; it then counts as inlined, as in
 * perf. *n moves past what was added.
 */
static int inline_frames(struct perfring_stacks *st, uint32_t pid, uint64_t addr, size_t *n)
{
	const struct pr_frame base = st->frames[*n];
	struct perfring_sym_result res;
	uint32_t j;

	if (!base.name || !base.mapped || base.kernel ||
	    perfring_symbolize(st->sym, st->procs, pid, addr, PERF_RECORD_MISC_USER, &res) != 0 || !res.nr_frames) {
		(*n)++;
		return 0;
	}
	if (reserve_frames(st, *n + res.nr_frames))
		return -ENOMEM;
	for (j = 0; j < res.nr_frames; j++) {
		const char *fn = pr_stacks_shown(st, res.frames[j].function);
		struct pr_frame *f;

		if (!fn && j + 1 < res.nr_frames)
			continue; /* an unnamed inlined scope: no frame (as addr2line's "??" gives none in perf) */
		f = &st->frames[(*n)++];
		*f = base;
		f->inlines = NULL;
		f->ninlines = 0;
		/* where in this function: the address's line, or the call site of the one inlined into it */
		f->file = res.frames[j].file;
		f->line = res.frames[j].line;
		if (!fn || !strcmp(fn, base.name))
			continue; /* the symbol itself */
		f->name = fn;
		f->inlined = true;
	}
	return 0;
}

/* inline_frames() through the frame cache: a profile unwinds the same
 * addresses again and again. */
static int inline_frames_cached(struct perfring_stacks *st, uint32_t pid, uint64_t addr, size_t *n)
{
	const struct pr_frame *kept;
	size_t k = pr_fcache_get_inlines(st->fcache, pid, addr, &kept), at = *n;

	if (k) {
		if (reserve_frames(st, at + k))
			return -ENOMEM;
		memcpy(&st->frames[at], kept, k * sizeof(*kept));
		*n = at + k;
		return 0;
	}
	if (inline_frames(st, pid, addr, n))
		return -ENOMEM;
	pr_fcache_put_inlines(st->fcache, pid, addr, &st->frames[at], *n - at);
	return 0;
}

/* How many entries that are not context markers a chain has beyond max:
 * those left out from its start when it is cut from the root end
 * (opts.chain_from_root). perf 6.1 cuts perf.data.callgraph-3.4's
 * 255-entry chains so (kernel.perf_event_max_stack is 127), and --max-stack
 * 1 keeps only a kernel sample's outermost user caller. */
static uint64_t deep_chain(const struct perfring_u64_array *cc, int max)
{
	uint64_t i, n = 0;

	for (i = 0; i < cc->nr; i++)
		n += !perfring_callchain_is_context(perfring_u64_at(cc, i));
	return n > (uint64_t)max ? n - (uint64_t)max : 0;
}

/* The sampled ip's frame apart from the chain (perfring_stack.ip_apart). */
static void ip_apart(struct perfring_stacks *st, const struct perfring_decoded *d, struct perfring_stack *out)
{
	const struct perfring_sample *s = &d->u.sample;

	pr_stacks_name(st, s->pid, s->ip, perfring_misc_cpumode(d->misc), &st->own);
	out->ip_frame = &st->own;
	out->ip_apart = true;
}

/*
 * A sample with a copy of its user stack (perf record --call-graph dwarf):
 * its call chain's kernel part, then the user frames unwound from the
 * stack, as perf's thread__resolve_callchain() puts them (callee order).
 * With no frame at all (no call chain, nothing unwound) the sampled ip.
 */
static int sample_unwound(struct perfring_stacks *st, const struct perfring_decoded *d, struct perfring_stack *out)
{
	const struct perfring_sample *s = &d->u.sample;
	size_t max = (size_t)st->max_stack, n = 0, nu, k;
	unsigned cpumode = PERF_RECORD_MISC_USER;
	uint64_t i, ip, skip;
	bool cut;

	/* max of the recorded chain (the kernel's part), then max unwound, as
	 * perf's thread__resolve_callchain() gives each its own max_stack */
	if (reserve_frames(st, 2 * max))
		return -ENOMEM;
	if (pr_grow(&st->ips, &st->ips_cap, max, sizeof(*st->ips)))
		return -ENOMEM;
	out->unwound = true;
	/* the recorded part is cut as any chain is (from the root end when
	 * walked callers first); what is unwound, from the sample's end */
	skip = st->chain_from_root ? deep_chain(&s->callchain, st->max_stack) : 0;
	cut = skip > 0;
	for (i = 0; i < s->callchain.nr && n < max; i++) {
		ip = perfring_u64_at(&s->callchain, i);
		if (perfring_callchain_is_context(ip)) {
			if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER)
				break; /* a guest's or the hypervisor's: not unwound here */
			cpumode = ip == PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
			continue;
		}
		if (skip) {
			skip--;
			continue;
		}
		pr_stacks_name(st, s->pid, ip, cpumode, &st->frames[n++]);
	}
	if (!st->unwinder) {
		if (!(st->unwinder = pr_unwinder_new()))
			return -ENOMEM;
		pr_unwinder_set_vdso(st->unwinder, pr_stacks_vdso_file, st);
	}
	nu = pr_unwind_stack(st->unwinder, st->procs, s, st->ips, max);
	for (k = 0; k < nu; k++) {
		size_t at = n;

		if (reserve_frames(st, n + 1))
			return -ENOMEM;
		pr_stacks_name(st, s->pid, st->ips[k], PERF_RECORD_MISC_USER, &st->frames[n]);
		if (!st->inline_frames && !st->inlines) {
			/* a caller's pc is already its call's (less one) */
			n++;
			continue;
		}
		if (at == 0)
			st->own = st->frames[0];
		/* the functions inlined there are frames beyond max, as perf's
		 * append_inlines() adds them after unwinding max */
		if (inline_frames_cached(st, s->pid, st->ips[k], &n))
			return -ENOMEM;
		/* perf's entry for the sample is its symbol; the inlined
		 * functions at the sampled pc are only in its call chain */
		if (at == 0 && (n > 1 || st->frames[0].inlined))
			out->ip_frame = &st->own;
	}
	if (!n)
		pr_stacks_name(st, s->pid, s->ip, perfring_misc_cpumode(d->misc), &st->frames[n++]);
	stack_out(st, n, out);
	if (cut && (s->present & PERF_SAMPLE_IP)) /* the sample's own frame was cut: its entry is apart */
		ip_apart(st, d, out);
	return 0;
}

/* The cpumode a call chain's context marker sets; false for one perf does not know. */
static bool context_cpumode(uint64_t marker, unsigned *cpumode)
{
	switch (marker) {
	case PERF_CONTEXT_HV:
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
		return true;
	case PERF_CONTEXT_KERNEL:
		*cpumode = PERF_RECORD_MISC_KERNEL;
		return true;
	case PERF_CONTEXT_USER:
		*cpumode = PERF_RECORD_MISC_USER;
		return true;
	case PERF_CONTEXT_GUEST_KERNEL:
		*cpumode = PERF_RECORD_MISC_GUEST_KERNEL;
		return true;
	case PERF_CONTEXT_GUEST_USER:
		*cpumode = PERF_RECORD_MISC_GUEST_USER;
		return true;
	default:
		return false;
	}
}

/* A recorded call chain's frames, as perf's thread__resolve_callchain_sample() walks them. */
static int sample_chain(struct perfring_stacks *st, const struct perfring_decoded *d, struct perfring_stack *out)
{
	const struct perfring_sample *s = &d->u.sample;
	uint64_t i, nr = s->callchain.nr, ip, first_ip = 0, skip = 0;
	/* entries before the first marker are user ones for perf */
	unsigned cpumode = PERF_RECORD_MISC_USER;
	bool first_of_context = true;
	size_t n = 0;

	if (st->chain_from_root && nr > (uint64_t)st->max_stack)
		skip = deep_chain(&s->callchain, st->max_stack);
	if (reserve_frames(st, nr < (uint64_t)st->max_stack ? nr : (uint64_t)st->max_stack))
		return -ENOMEM;
	for (i = 0; i < nr && n < (size_t)st->max_stack; i++) {
		ip = perfring_u64_at(&s->callchain, i);
		if (perfring_callchain_is_context(ip)) {
			if (!context_cpumode(ip, &cpumode)) {
				n = 0; /* perf drops the chain at a marker it does not know */
				break;
			}
			first_of_context = true;
			continue;
		}
		if (skip) {
			skip--;
			first_of_context = false; /* what follows is a return address still */
			continue;
		}
		if (!n)
			first_ip = ip;
		pr_stacks_name(st, s->pid, ip, cpumode, &st->frames[n]);
		if (st->inlines && !first_of_context)
			call_site_inlines(st, s->pid, ip, cpumode, &st->frames[n]);
		first_of_context = false;
		n++;
	}
	stack_out(st, n, out);
	/* perf's entry for a sample is its ip's (thread__resolve_callchain_sample()
	 * walks the chain for the callers only): apart when the chain does not
	 * start at the ip, as it does when the kernel wrote one */
	if ((s->present & PERF_SAMPLE_IP) && (!n || first_ip != s->ip))
		ip_apart(st, d, out);
	return 0;
}

int perfring_stacks_sample(struct perfring_stacks *st, const struct perfring_decoded *d, struct perfring_stack *out)
{
	const struct perfring_sample *s;
	bool chain;

	if (!st || !d || !out || d->type != PERF_RECORD_SAMPLE)
		return pr_fail(EINVAL, "perfring_stacks_sample: %s", !st || !d || !out ? "NULL argument" : "not a SAMPLE");
	s = &d->u.sample;
	memset(out, 0, sizeof(*out));
	chain = (s->present & PERF_SAMPLE_CALLCHAIN) != 0;
	/* as perf: the stack copy is unwound when the event records a call
	 * chain too (perf record --call-graph dwarf: the kernel's part); an
	 * event with only the registers and stack gives each sample its ip alone */
	if (!st->no_unwind && chain && st->max_stack > 0 && pr_unwind_wanted(s))
		return sample_unwound(st, d, out) ? pr_fail(ENOMEM, "perfring_stacks_sample: out of memory") : 0;
	if (chain && s->callchain.nr)
		return sample_chain(st, d, out) ? pr_fail(ENOMEM, "perfring_stacks_sample: out of memory") : 0;
	if (reserve_frames(st, 1))
		return pr_fail(ENOMEM, "perfring_stacks_sample: out of memory");
	pr_stacks_name(st, s->pid, s->ip, perfring_misc_cpumode(d->misc), &st->frames[0]);
	stack_out(st, 1, out);
	return 0;
}

int perfring_stacks_addrs(struct perfring_stacks *st, uint32_t pid, unsigned cpumode, const uint64_t *addrs,
			  size_t n, struct perfring_stack *out)
{
	size_t i;

	if (!st || !out || (n && !addrs))
		return pr_fail(EINVAL, "perfring_stacks_addrs: NULL argument");
	memset(out, 0, sizeof(*out));
	if (reserve_frames(st, n ? n : 1))
		return pr_fail(ENOMEM, "perfring_stacks_addrs: out of memory");
	for (i = 0; i < n; i++) {
		pr_stacks_name(st, pid, addrs[i], cpumode, &st->frames[i]);
		if (st->inlines && i > 0)
			call_site_inlines(st, pid, addrs[i], cpumode, &st->frames[i]);
	}
	stack_out(st, n, out);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user part of a sample's call chain from its stack, for recordings
 * made with `perf record --call-graph dwarf`: the kernel copies the user
 * registers (PERF_SAMPLE_REGS_USER) and the top of the user stack
 * (PERF_SAMPLE_STACK_USER) into each sample, and the reader unwinds them
 * with the binaries' call frame information (.eh_frame, .debug_frame), as
 * perf's util/unwind-libdw.c does with elfutils' libdwfl:
 *
 * - the binaries the frames are in are reported to a Dwfl as modules at
 *   their load bias (the mapping's start less its file offset), as the
 *   unwinding reaches them;
 * - the first frame's registers are the sample's (x86-64: perf's register
 *   numbers put in DWARF's order);
 * - memory is the stack copy, else the bytes of the binary mapped there;
 * - each frame gives its pc; a caller's is its return address less one (the
 *   call instruction's, as perf takes it).
 *
 * perf makes a Dwfl per sample; here one per process is kept (struct
 * uw_proc), its modules' ELF and CFI read once for all the process's
 * samples, each unwinding starting from that sample's registers.
 *
 * libdwfl still finds each frame's rules anew (about 8,000 instructions a
 * frame), so a process's samples after its first are unwound by a fast
 * path (unwind_fast()) that evaluates the same rules, kept per pc
 * (unwind_fast.c), as libdwfl's handle_cfi() does; a frame it does not
 * model sends the sample to libdwfl. PERFRING_UNWIND_CHECK runs both.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "profile/stack_internal.h"
#include "profile/unwind_fast.h"

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h). */
enum {
	PR_X86_AX = 0, PR_X86_BX = 1, PR_X86_CX = 2, PR_X86_DX = 3, PR_X86_SI = 4, PR_X86_DI = 5, PR_X86_BP = 6,
	PR_X86_SP = 7, PR_X86_IP = 8, PR_X86_R8 = 16,
};
#define PERF_SAMPLE_REGS_ABI_64 2

/* The sample being unwound: what the callbacks read (their arg). */
struct unwind_ctx {
	const struct perfring_procs *procs;
	const struct perfring_sample *s;
	Dwfl *dwfl;
	uint64_t sp;
	const uint8_t *stack;
	uint64_t stack_len;
	uint64_t *ips;
	bool *act;          /* ips[i] is where the frame was (not a return address) */
	size_t n, max;
	bool stale;         /* a module of the Dwfl is no longer what the process maps there */
	bool ran_out;       /* unwinding the frame after the last one read past the stack copy and failed */
	/* the last binary read for memory outside the stack */
	char path[256];
	int fd;
	/* where the vDSO's image is (pr_unwinder_set_vdso()) */
	pr_vdso_file_fn vdso;
	void *vdso_arg;
	char file_path[4096]; /* the file a new module is read from */
	/* module_at()'s last module within the sample being unwound (the
	 * process's maps and its Dwfl's modules do not change meanwhile): the
	 * answer for any address both it and the mapping found hold. */
	Dwfl_Module *last_mod;
	uint64_t last_lo, last_hi;
};

/* A Dwfl per process, kept: its modules (their ELF and CFI read once) serve
 * every sample. Each holds its binaries open: at most UW_PROCS are kept,
 * the least recently used made again when needed. */
#define UW_PROCS 32
struct uw_proc {
	uint32_t pid;
	Dwfl *dwfl;
	uint64_t used; /* the unwinder's count of samples when it last served */
	uint64_t id;   /* the Dwfl's number (unwinder.ids): its rules' key in the fast path's cache */
};

struct pr_unwinder {
	struct unwind_ctx c;
	size_t act_cap;
	struct uw_proc procs[UW_PROCS];
	size_t nprocs;
	uint64_t samples;
	uint64_t ids;           /* Dwfls made */
	struct uwf_cache *fast; /* the rules at the pcs unwound through (NULL: libdwfl alone) */
	bool check;             /* PERFRING_UNWIND_CHECK: every sample both ways, differences said */
	uint64_t checked, checked_fast, checked_differ;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

/* Register r (perf's number) of the sample's user registers: false when the mask has not got it. */
static bool reg(const struct perfring_regs *regs, int r, uint64_t *v)
{
	uint64_t below;

	if (!(regs->mask & (1ull << r)))
		return false;
	below = regs->mask & ((1ull << r) - 1);
	if ((uint64_t)__builtin_popcountll(below) >= regs->regs.nr)
		return false;
	*v = perfring_u64_at(&regs->regs, (uint64_t)__builtin_popcountll(below));
	return true;
}

/* The recording names the files: only a regular one is opened (a FIFO would block). */
static bool regular_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * The file whose call frame information unwinds through the binary a
 * recording mapped (hit), as perf opens it: its copy in perf's build-id
 * cache (~/.debug/.build-id/ab/cdef.../elf) first, else the file at the
 * recorded path when its build id is the recorded one (or none was
 * recorded). NULL when neither: a rebuilt or another machine's binary
 * would unwind by the wrong rules (its names are unknown too).
 */
static const char *binary_file(const struct perfring_map_hit *hit, char *buf, size_t len)
{
	const char *cached;

	if (!hit->build_id_size)
		return regular_file(hit->path) ? hit->path : NULL;
	cached = pr_build_id_cached_path(hit->build_id, hit->build_id_size, false, buf, len);
	if (cached)
		return cached;
	return pr_file_has_build_id(hit->path, hit->build_id, hit->build_id_size) ? hit->path : NULL;
}

/* The module of the binary mapped at ip, reported on first need (perf's
 * report_module()). A module the process no longer maps there (after an
 * exec, a dlclose) marks the Dwfl stale: the sample is unwound again with
 * a new one. */
/* m, found for an address in hit's mapping, as module_at()'s answer for the
 * rest of the sample where both hold the address. */
static Dwfl_Module *remember_module(struct unwind_ctx *c, const struct perfring_map_hit *hit, Dwfl_Module *m)
{
	Dwarf_Addr lo, hi;

	if (m && dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL)) {
		c->last_mod = m;
		c->last_lo = lo > hit->start ? lo : hit->start;
		c->last_hi = hi < hit->end ? hi : hit->end;
	}
	return m;
}

static Dwfl_Module *module_at(struct unwind_ctx *c, uint64_t ip)
{
	struct perfring_map_hit hit;
	Dwfl_Module *m;
	const char *name, *file = NULL;
	bool vdso;

	/* a sample's frames are mostly in one or two binaries: looked up once */
	if (c->last_mod && ip >= c->last_lo && ip < c->last_hi)
		return c->last_mod;
	m = dwfl_addrmodule(c->dwfl, ip);
	if (perfring_procs_lookup(c->procs, c->s->pid, ip, &hit) || !hit.path)
		return NULL;
	vdso = !strcmp(hit.path, "[vdso]"); /* a mapping without a file, but with an image */
	if (!vdso && (hit.anon || hit.path[0] != '/'))
		return NULL;
	if (m) { /* the same binary still (a module is named by the recorded path) */
		name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		if (name && !strcmp(name, hit.path))
			return remember_module(c, &hit, m);
		c->stale = true;
		return NULL;
	}
	file = vdso ? (c->vdso ? c->vdso(c->vdso_arg, &hit, c->file_path, sizeof(c->file_path)) : NULL)
		    : binary_file(&hit, c->file_path, sizeof(c->file_path));
	if (!file)
		return NULL;
	return remember_module(c, &hit, dwfl_report_elf(c->dwfl, hit.path, file, -1, hit.start - hit.pgoff, false));
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp) /* one thread: the sample's */
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

/* Any thread of the process is the sample's (its registers are the sample's). */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* 8 bytes of the binary mapped at addr (a value outside the stack copy: a constant, a GOT entry). */
static bool binary_word(struct unwind_ctx *c, uint64_t addr, Dwarf_Word *out)
{
	struct perfring_map_hit hit;

	if (perfring_procs_lookup(c->procs, c->s->pid, addr, &hit) || hit.anon || !hit.path || hit.path[0] != '/' ||
	    strlen(hit.path) >= sizeof(c->path))
		return false;
	if (strcmp(c->path, hit.path)) { /* another binary: its file, once (-1: it has none) */
		char buf[4096];
		const char *file = binary_file(&hit, buf, sizeof(buf)); /* the one the CFI came from */

		if (c->fd >= 0)
			close(c->fd);
		c->fd = file ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
		strcpy(c->path, hit.path);
	}
	return c->fd >= 0 && pread(c->fd, out, sizeof(*out), (off_t)hit.file_offset) == (ssize_t)sizeof(*out);
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_ctx *c = arg;

	(void)dwfl;
	if (addr + sizeof(*result) < addr)
		return false;
	if (addr < c->sp || addr + sizeof(*result) > c->sp + c->stack_len) {
		if (binary_word(c, addr, result))
			return true;
		c->ran_out |= addr >= c->sp;
		return false;
	}
	memcpy(result, c->stack + (addr - c->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	/* DWARF's x86-64 order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then rip */
	static const int order[17] = { PR_X86_AX, PR_X86_DX, PR_X86_CX, PR_X86_BX, PR_X86_SI, PR_X86_DI,
				       PR_X86_BP, PR_X86_SP, PR_X86_R8,	    PR_X86_R8 + 1, PR_X86_R8 + 2,
				       PR_X86_R8 + 3, PR_X86_R8 + 4, PR_X86_R8 + 5, PR_X86_R8 + 6, PR_X86_R8 + 7,
				       PR_X86_IP };
	struct unwind_ctx *c = arg;
	Dwarf_Word regs[17];
	int i;

	for (i = 0; i < 17; i++) {
		uint64_t v = 0;

		reg(&c->s->regs_user, order[i], &v); /* one the mask lacks: 0, as perf has it */
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *c = arg;
	bool activation;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	module_at(c, pc); /* its CFI is needed for the next frame */
	/* asking whether this frame is an activation unwinds the next one:
	 * its reads are the ones ran_out is to tell about */
	c->ran_out = false;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	c->act[c->n] = activation;
	c->ips[c->n++] = pc;
	return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

bool pr_unwind_wanted(const struct perfring_sample *s)
{
	return (s->present & PERF_SAMPLE_REGS_USER) && (s->present & PERF_SAMPLE_STACK_USER) &&
	       s->regs_user.abi == PERF_SAMPLE_REGS_ABI_64 && s->stack_user.size && s->stack_user.dyn_size;
}

struct pr_unwinder *pr_unwinder_new(void)
{
	struct pr_unwinder *u = calloc(1, sizeof(*u));

	if (u) {
		u->c.fd = -1;
		u->fast = pr_uwf_cache_new(); /* without it, libdwfl unwinds every sample */
		u->check = getenv("PERFRING_UNWIND_CHECK") != NULL;
	}
	return u;
}

void pr_unwinder_set_vdso(struct pr_unwinder *u, pr_vdso_file_fn fn, void *arg)
{
	u->c.vdso = fn;
	u->c.vdso_arg = arg;
}

void pr_unwinder_free(struct pr_unwinder *u)
{
	size_t i;

	if (!u)
		return;
	if (u->check)
		fprintf(stderr, "perfring: unwind check: %llu samples, %llu by the fast path, %llu differ\n",
			(unsigned long long)u->checked, (unsigned long long)u->checked_fast,
			(unsigned long long)u->checked_differ);
	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	if (u->c.fd >= 0)
		close(u->c.fd);
	pr_uwf_cache_free(u->fast);
	free(u->c.act);
	free(u);
}

/* The process's Dwfl slot (made empty when new: a free one, else the least recently used). */
static struct uw_proc *proc_slot(struct pr_unwinder *u, uint32_t pid)
{
	struct uw_proc *p;
	size_t i;

	u->samples++;
	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid) {
			u->procs[i].used = u->samples;
			return &u->procs[i];
		}
	if (u->nprocs < UW_PROCS) {
		p = &u->procs[u->nprocs++];
	} else {
		for (p = &u->procs[0], i = 1; i < UW_PROCS; i++)
			if (u->procs[i].used < p->used)
				p = &u->procs[i];
		if (p->dwfl)
			dwfl_end(p->dwfl);
	}
	*p = (struct uw_proc){ pid, NULL, u->samples, 0 };
	return p;
}

/*
 * libdwfl calls two frames in a row activations where a signal interrupted
 * the code: the sigreturn trampoline (__restore_rt, which the handler
 * returns into) and the interrupted frame. perf, built with libunwind,
 * takes the trampoline's pc as a return address (less one, shown at the
 * byte before __restore_rt) and the interrupted pc as it is: so here too.
 */
static void signal_trampolines(struct unwind_ctx *c)
{
	size_t i;

	for (i = 1; i + 1 < c->n; i++)
		if (c->act[i] && c->act[i + 1])
			c->ips[i]--;
}

/* One try with the process's Dwfl (made and attached when there is none): the frames found. */
static size_t unwind_once(struct pr_unwinder *u, struct uw_proc *p, uint64_t ip)
{
	struct unwind_ctx *c = &u->c;

	c->n = 0;
	c->stale = false;
	c->last_mod = NULL; /* a new sample, or a new Dwfl */
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&callbacks);
		p->id = ++u->ids;
		c->dwfl = p->dwfl;
		/* the first module tells libdwfl the machine */
		if (!p->dwfl || !module_at(c, ip) || !dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_callbacks, c)) {
			if (p->dwfl)
				dwfl_end(p->dwfl);
			p->dwfl = NULL;
			return 0;
		}
	}
	c->dwfl = p->dwfl;
	if (!module_at(c, ip))
		return 0;
	c->ran_out = false;
	dwfl_getthread_frames(p->dwfl, (pid_t)c->s->tid, frame, c);
	signal_trampolines(c);
	/* What was found before a frame it could not unwind stays, as with
	 * perf. Where the stack copy ran out (a caller's frame past its end),
	 * perf (built with libunwind, as Debian's) reads the return address
	 * as 0 and shows one more frame, at 0 less one: so here too. */
	if (c->ran_out && c->n && c->n < c->max)
		c->ips[c->n++] = UINT64_MAX;
	return c->n;
}

/*
 * One frame's caller from the cached rules, as libdwfl's handle_cfi()
 * evaluates them: each register of the caller from the callee's (regs,
 * those in set), the caller's pc its return address. 1: *pc is the
 * caller's; 0: the unwinding ends there (the return address undefined or
 * 0, or unreadable); -1: not modelled.
 */
static int fast_step(struct pr_unwinder *u, struct uw_proc *p, uint64_t *regs, uint32_t *set, uint64_t *pc,
		     bool activation)
{
	const struct uwf_rules *r;
	uint64_t next[UWF_NREGS];
	uint32_t nset = 0;
	bool ra_undefined = false;
	int i;

	/* a caller's pc is a return address: its call is the byte before */
	if (!pr_uwf_rules_at(u->fast, p->dwfl, p->id, activation ? *pc : *pc - 1, &r))
		return -1;
	for (i = 0; i < UWF_NREGS; i++) {
		Dwarf_Word w;
		uint64_t v;

		switch (r->kind[i]) {
		case UWF_UNDEFINED:
			ra_undefined |= i == UWF_NREGS - 1;
			continue;
		case UWF_SAME:
			if (!(*set & (1u << i)))
				continue;
			next[i] = regs[i];
			break;
		default: /* the CFA plus off, or what is there */
			if (!(*set & (1u << r->cfa_reg)))
				continue;
			v = regs[r->cfa_reg] + (uint64_t)r->cfa_off + (uint64_t)r->off[i];
			if (r->kind[i] == UWF_AT) {
				if (!memory_read(p->dwfl, v, &w, &u->c))
					continue;
				v = w;
			}
			next[i] = v;
			break;
		}
		nset |= 1u << i;
	}
	if (ra_undefined || !(nset & (1u << (UWF_NREGS - 1))) || !next[UWF_NREGS - 1])
		return 0;
	memcpy(regs, next, sizeof(next));
	*set = nset;
	*pc = next[UWF_NREGS - 1];
	return 1;
}

/*
 * unwind_once() without libdwfl's unwinding, for a process whose Dwfl is
 * made: the same frames, read with each pc's rules from the cache
 * (unwind_fast.c). The steps are libdwfl's as frame() sees them: the
 * first frame is an activation, each caller's pc a return address; the
 * modules are reported as the frames reach them; ran_out tells about the
 * reads of the last step. -1 when a frame is not modelled (no rules for
 * it, a stale module): libdwfl unwinds the sample then, from the start.
 */
static long unwind_fast(struct pr_unwinder *u, struct uw_proc *p, uint64_t ip)
{
	/* DWARF's x86-64 order, as set_initial_registers() */
	static const int order[UWF_NREGS] = { PR_X86_AX, PR_X86_DX, PR_X86_CX, PR_X86_BX, PR_X86_SI, PR_X86_DI,
					      PR_X86_BP, PR_X86_SP, PR_X86_R8, PR_X86_R8 + 1, PR_X86_R8 + 2,
					      PR_X86_R8 + 3, PR_X86_R8 + 4, PR_X86_R8 + 5, PR_X86_R8 + 6,
					      PR_X86_R8 + 7, PR_X86_IP };
	struct unwind_ctx *c = &u->c;
	uint64_t regs[UWF_NREGS], pc = ip;
	uint32_t set = (1u << UWF_NREGS) - 1;
	bool activation = true;
	int i, st;

	if (!u->fast || !p->dwfl)
		return -1;
	c->dwfl = p->dwfl;
	c->n = 0;
	c->stale = false;
	c->ran_out = false;
	c->last_mod = NULL; /* a new sample */
	for (i = 0; i < UWF_NREGS; i++) {
		regs[i] = 0;
		reg(&c->s->regs_user, order[i], &regs[i]);
	}
	if (!module_at(c, ip))
		return c->stale ? -1 : 0;
	for (;;) {
		uint64_t here = pc;

		module_at(c, here); /* its CFI is needed for the next frame */
		if (c->stale)
			return -1;
		c->ran_out = false;
		st = fast_step(u, p, regs, &set, &pc, activation);
		if (st < 0)
			return -1;
		c->act[c->n] = activation;
		c->ips[c->n++] = activation ? here : here - 1;
		if (c->n >= c->max || st == 0)
			break;
		activation = false;
	}
	if (c->ran_out && c->n < c->max) /* as unwind_once() */
		c->ips[c->n++] = UINT64_MAX;
	return (long)c->n;
}

/* libdwfl's unwinding of the sample, again with a new Dwfl when a module went stale. */
static size_t unwind_slow(struct pr_unwinder *u, struct uw_proc *p, uint64_t ip)
{
	size_t n = unwind_once(u, p, ip);

	if (u->c.stale) { /* the process mapped other binaries since: a new Dwfl */
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
		n = unwind_once(u, p, ip);
	}
	return n;
}

/* PERFRING_UNWIND_CHECK: the fast path's frames against libdwfl's, a line on stderr where they differ. */
static size_t unwind_checked(struct pr_unwinder *u, struct uw_proc *p, uint64_t ip)
{
	struct unwind_ctx *c = &u->c;
	long fast = unwind_fast(u, p, ip);
	uint64_t *mine = fast > 0 ? malloc((size_t)fast * sizeof(*mine)) : NULL;
	size_t n, i;

	if (mine)
		memcpy(mine, c->ips, (size_t)fast * sizeof(*mine));
	n = unwind_slow(u, p, ip);
	u->checked++;
	u->checked_fast += fast >= 0;
	if (fast >= 0 && ((size_t)fast != n || (n && (!mine || memcmp(mine, c->ips, n * sizeof(*mine)))))) {
		u->checked_differ++;
		fprintf(stderr, "perfring: unwind check: pid %u time %llu: fast path %ld frames, libdwfl %zu:", c->s->pid,
			(unsigned long long)c->s->time, fast, n);
		for (i = 0; i < n || (mine && i < (size_t)fast); i++)
			fprintf(stderr, " %llx/%llx", mine && i < (size_t)fast ? (unsigned long long)mine[i] : 0ull,
				i < n ? (unsigned long long)c->ips[i] : 0ull);
		fprintf(stderr, "\n");
	}
	free(mine);
	return n;
}

size_t pr_unwind_stack(struct pr_unwinder *u, const struct perfring_procs *procs, const struct perfring_sample *s,
		  uint64_t *ips, size_t max)
{
	struct unwind_ctx *c = &u->c;
	struct uw_proc *p;
	uint64_t ip;
	long fast;

#if !defined(__x86_64__)
	return 0; /* the registers' order is x86-64's */
#endif
	if (!max || !pr_unwind_wanted(s) || !reg(&s->regs_user, PR_X86_IP, &ip) ||
	    !reg(&s->regs_user, PR_X86_SP, &c->sp))
		return 0;
	p = proc_slot(u, s->pid);
	c->procs = procs;
	c->s = s;
	if (pr_grow(&c->act, &u->act_cap, max, sizeof(*c->act)))
		return 0;
	c->ips = ips;
	c->max = max;
	c->stack = s->stack_user.data;
	c->stack_len = s->stack_user.dyn_size < s->stack_user.size ? s->stack_user.dyn_size : s->stack_user.size;
	if (u->check)
		return unwind_checked(u, p, ip);
	fast = unwind_fast(u, p, ip);
	if (fast >= 0)
		return (size_t)fast;
	return unwind_slow(u, p, ip);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process model: per pid, the command name and a sorted, non-overlapping
 * list of mappings, updated by MMAP/MMAP2/COMM/FORK/EXIT records the way the
 * kernel changed the address space (the image before the last exec kept apart,
 * for the addresses no new mapping holds, as perf names them); plus the
 * kernel's KSYMBOL ranges.
 * Processes are never forgotten (an EXIT only marks them): samples recorded
 * before the exit may be read after it, and a reused pid starts afresh with
 * its FORK or exec COMM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "symbol/symbol_internal.h"

#ifndef PERF_RECORD_KSYMBOL
#define PERF_RECORD_KSYMBOL 17
#define PERF_RECORD_BPF_EVENT 18
#endif
#define KSYMBOL_FLAGS_UNREGISTER 1

struct perfring_procs *perfring_procs_new(const struct perfring_procs_opts *opts)
{
	struct perfring_procs *p;
	const char *root;
	int r;

	r = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(struct perfring_procs_opts), "perfring_procs_opts");
	if (r)
		return pr_errno_null(-r);
	p = calloc(1, sizeof(*p));
	if (!p)
		return pr_fail_null(ENOMEM, "perfring_procs_new: out of memory");
	root = PR_OPT(opts, proc_root, NULL);
	p->proc_root = strdup(root ? root : "/proc");
	p->no_build_ids = PR_OPT(opts, no_build_ids, false);
	if (!p->proc_root) {
		free(p);
		return pr_fail_null(ENOMEM, "perfring_procs_new: out of memory");
	}
	return p;
}

void perfring_procs_free(struct perfring_procs *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->tab_cap; i++) {
		if (p->tab[i]) {
			free(p->tab[i]->maps);
			free(p->tab[i]->pre_exec);
			free(p->tab[i]);
		}
	}
	free(p->tab);
	free(p->ksyms);
	pr_strtab_free(&p->strs);
	free(p->proc_root);
	free(p);
}

static size_t pid_slot(uint32_t pid, size_t cap)
{
	return (size_t)((pid * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

const struct pr_proc *pr_procs_find(const struct perfring_procs *p, uint32_t pid)
{
	size_t j;

	if (!p->tab_cap)
		return NULL;
	for (j = pid_slot(pid, p->tab_cap); p->tab[j]; j = (j + 1) & (p->tab_cap - 1))
		if (p->tab[j]->pid == pid)
			return p->tab[j];
	return NULL;
}

static int tab_grow(struct perfring_procs *p)
{
	size_t cap = p->tab_cap ? p->tab_cap * 2 : 64, i, j;
	struct pr_proc **tab = pr_zalloc(cap, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < p->tab_cap; i++) {
		if (!p->tab[i])
			continue;
		for (j = pid_slot(p->tab[i]->pid, cap); tab[j]; j = (j + 1) & (cap - 1))
			;
		tab[j] = p->tab[i];
	}
	free(p->tab);
	p->tab = tab;
	p->tab_cap = cap;
	return 0;
}

struct pr_proc *pr_procs_get(struct perfring_procs *p, uint32_t pid, bool create)
{
	struct pr_proc *proc = (struct pr_proc *)pr_procs_find(p, pid);
	size_t j;

	if (proc || !create)
		return proc;
	if ((p->nprocs + 1) * 2 > p->tab_cap && tab_grow(p))
		return NULL;
	proc = calloc(1, sizeof(*proc));
	if (!proc)
		return NULL;
	proc->pid = pid;
	proc->comm = "";
	for (j = pid_slot(pid, p->tab_cap); p->tab[j]; j = (j + 1) & (p->tab_cap - 1))
		;
	p->tab[j] = proc;
	p->nprocs++;
	return proc;
}

void pr_proc_clear_maps(struct perfring_procs *p, struct pr_proc *proc)
{
	p->nmaps -= proc->n;
	proc->n = 0;
	free(proc->pre_exec);
	proc->pre_exec = NULL;
	proc->npre_exec = 0;
}

/* An exec: the current mappings become the image before it (the one before that goes). */
static void pr_proc_exec(struct perfring_procs *p, struct pr_proc *proc)
{
	free(proc->pre_exec);
	proc->pre_exec = proc->maps;
	proc->npre_exec = proc->n;
	p->nmaps -= proc->n;
	proc->maps = NULL;
	proc->n = proc->cap = 0;
}

static int reserve(struct pr_proc *proc, size_t more)
{
	return pr_grow(&proc->maps, &proc->cap, proc->n + more, sizeof(*proc->maps));
}

/* The first of maps[0..n) whose end is above addr (maps sorted and disjoint). */
static size_t first_ending_after_in(const struct pr_map *maps, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static size_t first_ending_after(const struct pr_proc *proc, uint64_t addr)
{
	return first_ending_after_in(proc->maps, proc->n, addr);
}

/* The mapping of proc that holds addr: a current one, else one of the image before its exec. */
static const struct pr_map *proc_map_at(const struct pr_proc *proc, uint64_t addr)
{
	size_t i = first_ending_after(proc, addr);

	if (i < proc->n && proc->maps[i].start <= addr)
		return &proc->maps[i];
	i = first_ending_after_in(proc->pre_exec, proc->npre_exec, addr);
	if (i < proc->npre_exec && proc->pre_exec[i].start <= addr)
		return &proc->pre_exec[i];
	return NULL;
}

/*
 * Insert m, cutting what it overlaps as mmap(MAP_FIXED) does: a mapping
 * partly covered keeps its head and/or tail (the tail's pgoff moves on).
 */
int pr_proc_add_map(struct perfring_procs *p, struct pr_proc *proc, const struct pr_map *m)
{
	size_t i, j, nrepl;
	struct pr_map head, tail, repl[3];
	bool has_head = false, has_tail = false;

	if (reserve(proc, 3))
		return -ENOMEM;
	i = first_ending_after(proc, m->start);
	for (j = i; j < proc->n && proc->maps[j].start < m->end; j++)
		;
	/* maps[i..j) overlap m */
	if (i < j && proc->maps[i].start < m->start) {
		head = proc->maps[i];
		head.end = m->start;
		has_head = true;
	}
	if (i < j && proc->maps[j - 1].end > m->end) {
		tail = proc->maps[j - 1];
		tail.pgoff += m->end - tail.start;
		tail.start = m->end;
		has_tail = true;
	}
	nrepl = 0;
	if (has_head)
		repl[nrepl++] = head;
	repl[nrepl++] = *m;
	if (has_tail)
		repl[nrepl++] = tail;
	memmove(&proc->maps[i + nrepl], &proc->maps[j], (proc->n - j) * sizeof(*proc->maps));
	memcpy(&proc->maps[i], repl, nrepl * sizeof(*repl));
	p->nmaps += nrepl;
	p->nmaps -= j - i;
	proc->n = proc->n - (j - i) + nrepl;
	return 0;
}

static int feed_mmap(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	const struct perfring_rec_mmap *mm = &rec->u.mmap;
	struct pr_proc *proc;
	struct pr_map m = { 0 };

	if (mm->len == 0)
		return 0; /* nothing mapped */
	m.start = mm->addr;
	/* perf describes the kernel with a mapping up to the top of memory. */
	m.end = mm->len > UINT64_MAX - mm->addr ? UINT64_MAX : mm->addr + mm->len;
	m.pgoff = mm->pgoff;
	m.path = pr_intern_str(&p->strs, mm->filename ? mm->filename : "");
	if (!m.path)
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	if (rec->type == PERF_RECORD_MMAP2) {
		if (mm->has_build_id) {
			m.bid_size = mm->build_id_size > PERFRING_BUILD_ID_MAX ? PERFRING_BUILD_ID_MAX
									       : mm->build_id_size;
			memcpy(m.bid, mm->build_id, m.bid_size);
		} else {
			m.maj = mm->maj;
			m.min = mm->min;
			m.ino = mm->ino;
			m.ino_generation = mm->ino_generation;
		}
		m.prot = mm->prot;
		m.flags = mm->flags;
	}
	proc = pr_procs_get(p, mm->pid, true);
	if (!proc || pr_proc_add_map(p, proc, &m))
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	return 1;
}

static int feed_comm(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	const struct perfring_rec_comm *c = &rec->u.comm;
	bool exec = perfring_misc_comm_exec(rec->misc);
	struct pr_proc *proc;
	const char *comm;

	/* A thread renaming itself does not rename the process. */
	if (c->pid != c->tid && !exec)
		return 0;
	comm = pr_intern_str(&p->strs, c->comm ? c->comm : "");
	proc = pr_procs_get(p, c->pid, true);
	if (!comm || !proc)
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	proc->comm = comm;
	if (exec) {
		/*
		 * The old image's mappings stay, as perf keeps them until the new image's MMAPs, which
		 * follow this COMM, replace what they overlap: a sample taken later in the exec still
		 * has the old image's user registers and stack, and is named by them. They are kept
		 * apart (pre_exec, looked up where no current mapping holds an address), only for the
		 * last exec and not copied by FORKs: perf's way, copying them into every child and
		 * keeping every exec's, multiplied the mappings of a recording of shell scripts (+52 MB
		 * on the bench's file) for addresses no process can reach. An exited process's pid
		 * seen again (its FORK lost) starts afresh.
		 */
		if (proc->exited)
			pr_proc_clear_maps(p, proc);
		else
			pr_proc_exec(p, proc);
		proc->exited = false;
	}
	return 1;
}

static int feed_fork(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	const struct perfring_rec_fork_exit *f = &rec->u.fork_exit;
	const struct pr_proc *parent;
	struct pr_proc *child;

	if (f->pid == f->ppid)
		return 0; /* a new thread shares its process's mappings */
	child = pr_procs_get(p, f->pid, true);
	if (!child)
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	pr_proc_clear_maps(p, child); /* a reused pid */
	child->exited = false;
	parent = pr_procs_find(p, f->ppid);
	if (!parent)
		return 1;
	child->comm = parent->comm;
	if (reserve(child, parent->n))
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	if (parent->n) /* a parent without mappings (a kernel thread) has maps NULL */
		memcpy(child->maps, parent->maps, parent->n * sizeof(*parent->maps));
	child->n = parent->n;
	p->nmaps += parent->n;
	return 1;
}

static int feed_exit(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	const struct perfring_rec_fork_exit *f = &rec->u.fork_exit;
	struct pr_proc *proc;

	if (f->pid != f->tid)
		return 0; /* a thread ended, the process goes on */
	proc = pr_procs_get(p, f->pid, false);
	if (!proc)
		return 0;
	proc->exited = true;
	return 1;
}

static size_t ksym_lower(const struct perfring_procs *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nksyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->ksyms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int feed_ksymbol(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	const struct perfring_rec_ksymbol *k = &rec->u.ksymbol;
	size_t i = ksym_lower(p, k->addr);
	bool same = i < p->nksyms && p->ksyms[i].addr == k->addr;
	struct pr_ksym e;

	if (k->flags & KSYMBOL_FLAGS_UNREGISTER) {
		if (!same)
			return 0;
		memmove(&p->ksyms[i], &p->ksyms[i + 1], (p->nksyms - i - 1) * sizeof(*p->ksyms));
		p->nksyms--;
		return 1;
	}
	if (k->len == 0)
		return 0;
	e.addr = k->addr;
	e.len = k->len;
	e.type = k->ksym_type;
	e.name = pr_intern_str(&p->strs, k->name ? k->name : "");
	if (!e.name)
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	if (same) {
		p->ksyms[i] = e;
		return 1;
	}
	if (pr_grow(&p->ksyms, &p->ksyms_cap, p->nksyms + 1, sizeof(*p->ksyms)))
		return pr_fail(ENOMEM, "perfring_procs_feed: out of memory");
	memmove(&p->ksyms[i + 1], &p->ksyms[i], (p->nksyms - i) * sizeof(*p->ksyms));
	p->ksyms[i] = e;
	p->nksyms++;
	return 1;
}

const struct pr_ksym *pr_procs_ksym(const struct perfring_procs *p, uint64_t addr)
{
	size_t i = ksym_lower(p, addr + 1); /* first entry above addr */

	if (i == 0)
		return NULL;
	i--;
	if (addr - p->ksyms[i].addr < p->ksyms[i].len)
		return &p->ksyms[i];
	return NULL;
}

int perfring_procs_feed(struct perfring_procs *p, const struct perfring_decoded *rec)
{
	int r;

	if (!p || !rec)
		return pr_fail(EINVAL, "perfring_procs_feed: NULL %s", p ? "record" : "procs");
	if (rec->kind != PERFRING_REC_KERNEL)
		return 0;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		r = feed_mmap(p, rec);
		break;
	case PERF_RECORD_COMM:
		r = feed_comm(p, rec);
		break;
	case PERF_RECORD_FORK:
		r = feed_fork(p, rec);
		break;
	case PERF_RECORD_EXIT:
		r = feed_exit(p, rec);
		break;
	case PERF_RECORD_KSYMBOL:
		r = feed_ksymbol(p, rec);
		break;
	case PERF_RECORD_BPF_EVENT:
		p->bpf_events++;
		r = 1;
		break;
	default:
		return 0;
	}
	if (r > 0)
		p->records++;
	return r;
}

int perfring_procs_feed_record(struct perfring_procs *p, const struct perfring_parse_config *cfg, const void *rec,
			       size_t len)
{
	struct perfring_decoded d;
	int r;

	if (!p || !cfg || !rec)
		return pr_fail(EINVAL, "perfring_procs_feed_record: NULL argument");
	r = perfring_record_parse(cfg, rec, len, &d);
	if (r)
		return r;
	return perfring_procs_feed(p, &d);
}

int perfring_procs_set_build_id(struct perfring_procs *p, uint32_t pid, const char *path, const uint8_t *build_id,
				size_t size)
{
	const char *s;
	struct pr_istr *e;

	(void)pid;
	if (!p || !path || !build_id)
		return pr_fail(EINVAL, "perfring_procs_set_build_id: NULL argument");
	if (size == 0 || size > PERFRING_BUILD_ID_MAX)
		return pr_fail(EINVAL, "perfring_procs_set_build_id: build id of %zu bytes for %s (1 to %d)", size,
			       path, PERFRING_BUILD_ID_MAX);
	s = pr_intern_str(&p->strs, path);
	if (!s)
		return pr_fail(ENOMEM, "perfring_procs_set_build_id: out of memory");
	e = pr_istr_of(s);
	memcpy(e->bid, build_id, size);
	e->bid_size = (uint8_t)size;
	e->bid_tried = 1;
	return 0;
}

/* Names the kernel gives memory that no file backs. */
static bool path_is_anon(const char *path)
{
	return path[0] != '/' || !strncmp(path, "//anon", 6) || !strncmp(path, "/dev/zero", 9) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5) || !strncmp(path, "/anon_hugepage", 14);
}

int perfring_procs_lookup(const struct perfring_procs *p, uint32_t pid, uint64_t addr, struct perfring_map_hit *hit)
{
	const struct pr_proc *proc;
	const struct pr_map *m;
	const struct pr_istr *e;

	if (!p || !hit)
		return pr_fail(EINVAL, "perfring_procs_lookup: NULL %s", p ? "hit" : "procs");
	memset(hit, 0, sizeof(*hit));
	hit->pid = pid;
	hit->comm = "";
	hit->path = "";
	proc = pr_procs_find(p, pid);
	if (!proc) {
		hit->reason = pid == PERFRING_PID_KERNEL ? "no kernel mapping recorded" : "process not seen";
		return pr_fail(ESRCH, "perfring_procs_lookup: pid %d: %s (no COMM, MMAP or FORK record, not loaded "
			       "from /proc)", (int)pid, hit->reason);
	}
	hit->comm = proc->comm;
	hit->exited = proc->exited;
	m = proc_map_at(proc, addr);
	if (!m) {
		hit->reason = "no mapping holds the address";
		return pr_fail(ENOENT, "perfring_procs_lookup: pid %d (%s): no mapping holds %#llx", (int)pid,
			       proc->comm, (unsigned long long)addr);
	}
	hit->start = m->start;
	hit->end = m->end;
	hit->pgoff = m->pgoff;
	hit->file_offset = addr - m->start + m->pgoff;
	hit->path = m->path;
	hit->maj = m->maj;
	hit->min = m->min;
	hit->ino = m->ino;
	hit->ino_generation = m->ino_generation;
	hit->prot = m->prot;
	hit->flags = m->flags;
	hit->anon = path_is_anon(m->path);
	e = pr_istr_of(m->path);
	if (m->bid_size) {
		hit->build_id_size = m->bid_size;
		memcpy(hit->build_id, m->bid, m->bid_size);
	} else if (e->bid_size) {
		hit->build_id_size = e->bid_size;
		memcpy(hit->build_id, e->bid, e->bid_size);
	}
	return 0;
}

bool pr_procs_kernel_ref(const struct perfring_procs *p, const char **name, uint64_t *addr)
{
	const struct pr_proc *k = pr_procs_find(p, PERFRING_PID_KERNEL);
	size_t i;

	for (i = 0; k && i < k->n; i++) {
		const char *path = k->maps[i].path;

		if (!strncmp(path, "[kernel.kallsyms]", 17) && path[17]) {
			*name = path + 17;
			*addr = k->maps[i].pgoff;
			return true;
		}
	}
	return false;
}

size_t pr_procs_kernel_build_id(const struct perfring_procs *p, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	const struct pr_proc *k = pr_procs_find(p, PERFRING_PID_KERNEL);
	size_t i;

	for (i = 0; k && i < k->n; i++) {
		const struct pr_map *m = &k->maps[i];
		const struct pr_istr *e = pr_istr_of(m->path);

		if (strncmp(m->path, "[kernel.kallsyms]", 17))
			continue;
		if (m->bid_size) {
			memcpy(id, m->bid, m->bid_size);
			return m->bid_size;
		}
		if (e->bid_size) {
			memcpy(id, e->bid, e->bid_size);
			return e->bid_size;
		}
	}
	/* perf.data's HEADER_BUILD_ID names the kernel "[kernel.kallsyms]". */
	for (i = 0; i < p->strs.cap; i++) {
		const struct pr_istr *e = p->strs.slots[i];

		if (e && e->bid_size && !strcmp(e->s, "[kernel.kallsyms]")) {
			memcpy(id, e->bid, e->bid_size);
			return e->bid_size;
		}
	}
	return 0;
}

int perfring_procs_stats(const struct perfring_procs *p, struct perfring_procs_stats *st)
{
	if (!p || !st)
		return pr_fail(EINVAL, "perfring_procs_stats: NULL %s", p ? "stats" : "procs");
	memset(st, 0, sizeof(*st));
	st->processes = p->nprocs;
	st->mappings = p->nmaps;
	st->ksymbols = p->nksyms;
	st->bpf_events = p->bpf_events;
	st->records = p->records;
	return 0;
}

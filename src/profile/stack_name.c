// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One address of a process named as a frame, as perf names it: the mapping
 * holding it (perf's dso column: the file as recorded, "[kernel.kallsyms]",
 * a module's "[NAME]", "//anon" code named after its JIT map), its address
 * in the binary, the function (demangled) and, when asked, its source line
 * and inlined functions. Frames are cached by (pid, cpumode, address).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "profile/stack_internal.h"

/* x86-64's kernel half (an address whose cpumode is unknown). */
#define KERNEL_START 0xffff800000000000ull

bool pr_kernel_addr(unsigned cpumode, uint64_t addr)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && addr >= KERNEL_START);
}

const char *pr_stacks_shown(struct perfring_stacks *st, const char *name)
{
	return st->demangler ? pr_demangle(st->demangler, name) : name;
}

/* perf maps these with the identity (map_ip): anonymous memory has no file
 * to be an offset in (util/map.c: is_anon_memory, is_no_dso_memory). */
static bool is_anon_memory(const char *path)
{
	return !strncmp(path, "//anon", 6) || !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/anon_hugepage", 14);
}

static bool identity_mapped(const char *path)
{
	return is_anon_memory(path) || !strncmp(path, "[stack", 6) || !strncmp(path, "/SYSV", 5) ||
	       !strcmp(path, "[heap]");
}

static bool is_core_kernel(const char *path)
{
	return !strncmp(path, "[kernel.kallsyms]", 17) || !strncmp(path, "[guest.kernel.kallsyms", 22);
}

/* A kernel map of a module (perf record's MMAP of /lib/modules/.../NAME.ko,
 * or [NAME] when it found no file): its samples are that module's, as perf
 * names them, not the core kernel's, even when no symbol names them. */
static bool kernel_module_map(const char *path)
{
	return (path[0] == '/' || path[0] == '[') && !is_core_kernel(path);
}

/* perf's kmod_path__parse_name(): the module's name is the file's, without
 * its extension (.ko, perhaps compressed). */
const char *perfring_kmod_name(const char *path, char *buf, size_t len)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst", ".ko.bz2" };
	const char *base;
	size_t n, i, e;

	if (!path || !buf)
		return NULL;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n = strlen(base);
	for (e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
		size_t el = strlen(ext[e]);

		if (n > el && !strcmp(base + n - el, ext[e]) && n - el + 3 <= len) {
			buf[0] = '[';
			for (i = 0; i < n - el; i++)
				buf[i + 1] = base[i] == '-' ? '_' : base[i];
			buf[i + 1] = ']';
			buf[i + 2] = '\0';
			return buf;
		}
	}
	return NULL;
}

/*
 * The binary perf script shows for a kernel address: the core kernel's
 * [kernel.kallsyms]; a module's file when the recording has its build id
 * (perf's dso made from HEADER_BUILD_ID keeps the path as its name), else
 * the module's [NAME] (the dso made from the MMAP); [unknown] for an
 * address in kernel mode that no recorded kernel map holds (perf finds no
 * map: unmapped is true, see in_loaded_kernel_map()); else [kernel.kallsyms].
 */
static const char *kernel_dso(struct perfring_stacks *st, int look, bool unmapped, const struct perfring_map_hit *hit)
{
	const char *s;
	char name[256];

	if (unmapped)
		return "[unknown]";
	if (look || !kernel_module_map(hit->path))
		return "[kernel.kallsyms]";
	if (hit->build_id_size || hit->path[0] == '[' || !perfring_kmod_name(hit->path, name, sizeof(name)))
		return hit->path;
	s = pr_intern_str(&st->strs, name);
	return s ? s : hit->path;
}

/* A build id kept as long as st (frames are values: they point to it).
 * Consecutive frames are mostly in one binary: the last one is kept at hand. */
static const uint8_t *kept_build_id(struct perfring_stacks *st, const uint8_t *id, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * PERFRING_BUILD_ID_MAX + 1];
	struct pr_istr *e;
	const char *s;
	size_t i;

	if (st->last_bid && st->last_bid_size == size && !memcmp(st->last_bid, id, size))
		return st->last_bid;
	for (i = 0; i < size; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[2 * size] = '\0';
	if (!(s = pr_intern(&st->strs, hex, 2 * size)))
		return NULL;
	e = pr_istr_of(s); /* the pool's build id slot of the hex key holds the bytes */
	if (!e->bid_size) {
		memcpy(e->bid, id, size);
		e->bid_size = (uint8_t)size;
	}
	st->last_bid = e->bid;
	st->last_bid_size = size;
	return e->bid;
}

/* The size of this process's [vdso] mapping, from /proc/self/maps; 0 if none. */
static size_t vdso_size(unsigned long base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long long lo, hi;
	char line[512];
	size_t n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base && hi > lo)
			n = (size_t)(hi - lo);
	fclose(f);
	return n;
}

/* A copy of the running kernel's vDSO (the image this process has mapped) in a
 * memfd, made once; NULL when there is none. */
static const char *running_vdso(struct perfring_stacks *st)
{
	unsigned long base;
	size_t size;

	if (st->vdso_tried)
		return st->vdso_fd >= 0 ? st->vdso_path : NULL;
	st->vdso_tried = true;
	base = getauxval(AT_SYSINFO_EHDR);
	size = base ? vdso_size(base) : 0;
	if (!size)
		return NULL;
	st->vdso_fd = memfd_create("perfring-vdso", MFD_CLOEXEC);
	if (st->vdso_fd < 0)
		return NULL;
	if (write(st->vdso_fd, (const void *)base, size) != (ssize_t)size) {
		close(st->vdso_fd);
		st->vdso_fd = -1;
		return NULL;
	}
	snprintf(st->vdso_path, sizeof(st->vdso_path), "/proc/self/fd/%d", st->vdso_fd);
	return st->vdso_path;
}

/* The vDSO has no file: perf record keeps a copy in its build-id cache,
 * ~/.debug/[vdso]/BUILD_ID/vdso, which perf report names it from (and
 * unwinds through). Without that copy (perf record -N, another home,
 * perfring record) it is the running kernel's vDSO, as perf takes it
 * (vdso__dso_findnew()): when the recording has no build id for it, or the
 * same one; another kernel's vDSO has no file here. */
const char *pr_stacks_vdso_file(void *arg, const struct perfring_map_hit *hit, char *buf, size_t len)
{
	const char *cached = pr_build_id_cached_path(hit->build_id, hit->build_id_size, true, buf, len);
	struct perfring_stacks *st = arg;
	const char *running;

	if (cached)
		return cached;
	running = running_vdso(st);
	if (!running || !hit->build_id_size)
		return running;
	return pr_file_has_build_id(running, hit->build_id, hit->build_id_size) ? running : NULL;
}

static int vdso_symbolize(struct perfring_stacks *st, const struct perfring_map_hit *hit,
			  struct perfring_sym_result *res)
{
	char path[4096];
	const char *file;

	if (strcmp(hit->path, "[vdso]") || !(file = pr_stacks_vdso_file(st, hit, path, sizeof(path))))
		return -ENOENT;
	return perfring_symbolize_file(st->sym, file, hit->build_id_size ? hit->build_id : NULL, hit->build_id_size,
				       hit->file_offset, res);
}

/*
 * The running kernel's _text and _etext, and the extent of its own symbols
 * as perf loads them (types T, W, D and B, either case; not a module's, the
 * lines with a [module]), from kallsyms, read once.
 */
static void read_running_kernel_text(struct perfring_stacks *st)
{
	FILE *f;
	uint64_t text = 0, stext = 0, etext = 0, first = 0, last = 0;
	char line[512];

	if (st->ktext_read)
		return;
	st->ktext_read = true;
	f = fopen(st->kallsyms ? st->kallsyms : "/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[128], module[128];

		if (sscanf(line, "%llx %c %127s %127s", &a, &type, name, module) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_stext"))
			stext = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
		if (a && strchr("TtWwDdBb", type)) {
			if (!first || a < first)
				first = a;
			if (a > last)
				last = a;
		}
	}
	if (f)
		fclose(f);
	st->ktext_start = text ? text : stext;
	st->ktext_end = etext;
	st->ksyms_start = first;
	/* the last symbol ends at the page after its own (util/symbol.c:
	 * symbols__fixup_end() for kallsyms) */
	st->ksyms_end = last ? (last + 4096 + 4095) & ~4095ull : 0;
}

/*
 * Whether a kernel address is in the running kernel's [_text, _etext), which
 * is where perf maps the kernel of a recording that mapped none (perf record
 * -e cycles:u writes no kernel MMAP; machine__create_kernel_maps() then
 * takes the running kernel's). When kallsyms hides the addresses, every
 * address counts as inside.
 */
static bool in_running_kernel_text(struct perfring_stacks *st, uint64_t addr)
{
	read_running_kernel_text(st);
	if (!st->ktext_start || st->ktext_end <= st->ktext_start)
		return true;
	return addr >= st->ktext_start && addr < st->ktext_end;
}

/*
 * Whether perf's kernel map holds a kernel address that no recorded map
 * holds. perf's kernel map is the file's [kernel.kallsyms]_text MMAP (start
 * to start+len, util/machine.c: machine__set_kernel_mmap()) until it loads
 * the kernel's symbols; from kallsyms (a recording of the running kernel, or
 * --kallsyms) dso__load_kernel_sym() then sets the map's extent to its
 * symbols' (map__fixup_start(), map__fixup_end(): the first kernel symbol to
 * the end of the last, which covers .init.text and the data past _etext).
 * An address outside has no map (thread__find_map() finds none): perf names
 * it [unknown], as a BPF program's JIT code without a KSYMBOL record.
 */
static bool in_loaded_kernel_map(struct perfring_stacks *st, uint64_t addr)
{
	if (!st->ksyms_checked) {
		uint8_t rec[PERFRING_BUILD_ID_MAX], run[PERFRING_BUILD_ID_MAX];
		size_t nrec, nrun;

		st->ksyms_checked = true;
		nrec = pr_procs_kernel_build_id(st->procs, rec);
		nrun = nrec && !st->kallsyms ? pr_running_kernel_build_id(run) : 0;
		st->ksyms_usable = st->kallsyms || !nrec || !nrun || (nrec == nrun && !memcmp(rec, run, nrec));
	}
	if (!st->ksyms_usable)
		return false;
	read_running_kernel_text(st);
	return addr >= st->ksyms_start && addr < st->ksyms_end;
}

/* The slot of pid in st->loaded (pids are never 0 there). */
static uint32_t *loaded_slot(uint32_t *t, size_t cap, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (cap - 1);

	while (t[i] && t[i] != pid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* opts.live: read pid from /proc once, the first time an address of it
 * is not found. true when it was read now (look it up again). */
static bool live_load(struct perfring_stacks *st, uint32_t pid)
{
	uint32_t *slot;

	if (!st->live || !pid || pid == PERFRING_PID_KERNEL)
		return false;
	if ((st->nloaded + 1) * 2 > st->loaded_cap) {
		size_t cap = st->loaded_cap ? st->loaded_cap * 2 : 256, i;
		uint32_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return false;
		for (i = 0; i < st->loaded_cap; i++)
			if (st->loaded[i])
				*loaded_slot(t, cap, st->loaded[i]) = st->loaded[i];
		free(st->loaded);
		st->loaded = t;
		st->loaded_cap = cap;
	}
	slot = loaded_slot(st->loaded, st->loaded_cap, pid);
	if (*slot)
		return false;
	*slot = pid;
	st->nloaded++;
	if (perfring_procs_load_proc(st->procs, pid))
		return false;
	pr_fcache_changed(st->fcache, pid);
	return true;
}

/* The mapping of the frame's address: f's dso, dso_addr and map_*. */
static void frame_map(struct perfring_stacks *st, uint32_t pid, const struct perfring_map_hit *hit,
		      struct pr_frame *f)
{
	f->mapped = true;
	f->map_start = hit->start;
	f->map_end = hit->end;
	f->map_pgoff = hit->pgoff;
	f->build_id_size = hit->build_id_size;
	f->build_id = hit->build_id_size ? kept_build_id(st, hit->build_id, hit->build_id_size) : NULL;
	if (!f->build_id)
		f->build_id_size = 0;
	if (f->kernel)
		return;
	f->dso = hit->path;
	if (!identity_mapped(hit->path))
		f->dso_addr = hit->file_offset;
	/* perf names anonymous code after the JIT map that may describe it
	 * (util/map.c: map__new() renames an executable "//anon" to
	 * /tmp/perf-PID.map; prot 0: not recorded, an MMAP of code). */
	if (is_anon_memory(hit->path) && (!hit->prot || (hit->prot & PROT_EXEC))) {
		char jit[40];
		const char *s;

		snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", pid);
		if ((s = pr_intern_str(&st->strs, jit)))
			f->dso = s;
	}
}

static void name_uncached(struct perfring_stacks *st, uint32_t pid, uint64_t addr, unsigned cpumode,
			  struct pr_frame *f)
{
	struct perfring_sym_result res;
	struct perfring_map_hit hit;
	bool kernel = pr_kernel_addr(cpumode, addr), module, unmapped;
	int look;

	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->dso_addr = addr;
	f->cpumode = (uint8_t)cpumode;
	f->kernel = kernel;
	f->dso = "[unknown]";
	look = perfring_procs_lookup(st->procs, kernel ? PERFRING_PID_KERNEL : pid, addr, &hit);
	if (look == -ESRCH && !kernel && live_load(st, pid))
		look = perfring_procs_lookup(st->procs, pid, addr, &hit);
	/* perf's map__new() maps the vDSO from offset 0 whatever pgoff the MMAP
	 * says (older perf record wrote its start address there). */
	if (look == 0 && !strcmp(hit.path, "[vdso]")) {
		hit.file_offset -= hit.pgoff;
		hit.pgoff = 0;
	}
	if (look == 0)
		frame_map(st, pid, &hit, f);
	module = kernel && look == 0 && kernel_module_map(hit.path);
	f->module = module;
	/* no map holds it: any address outside the recorded kernel maps (but
	 * those of its loaded symbols, in_loaded_kernel_map()); a kernel one outside the running
	 * kernel's text when the records mapped no kernel; live, a user-space
	 * address (the running kernel's modules are kallsyms' too) */
	unmapped = kernel && look < 0 &&
		   (st->kernel_mapped ? !in_loaded_kernel_map(st, addr)
		    : st->live	      ? addr < KERNEL_START
				      : !in_running_kernel_text(st, addr));
	if (kernel)
		f->dso = kernel_dso(st, look, unmapped, &hit);
	if (st->no_symbols)
		return;
	if (f->mapped && !kernel && vdso_symbolize(st, &hit, &res) == 0) {
		f->name = res.name; /* as perf: the vDSO's names are C's */
		f->offset = res.offset;
		f->source = res.source;
	} else if (perfring_symbolize(st->sym, st->procs, pid, addr, cpumode, &res) == 0 &&
		   /* perf names an unmapped one by a KSYMBOL only */
		   !(unmapped && res.source != PERFRING_SYM_KSYMBOL)) {
		f->name = pr_stacks_shown(st, res.name);
		f->offset = res.offset;
		f->source = res.source;
		f->data = res.flags & PERFRING_SYM_OBJECT;
		f->file = res.file;
		f->line = res.line;
		if (st->inlines && res.nr_frames > 1) {
			/* the symbolizer keeps its frames until it is freed */
			f->inlines = res.frames;
			f->ninlines = res.nr_frames - 1;
		}
		if (kernel && res.binary && !(module && is_core_kernel(res.binary)))
			f->dso = res.binary;
		/* perf names a BPF program's dso after the program (bpf_prog_TAG_NAME). */
		if (res.source == PERFRING_SYM_KSYMBOL && res.binary && !strcmp(res.binary, "[bpf]"))
			f->dso = res.name;
	} else {
		f->reason = unmapped ? "a user-space address in kernel mode that no kernel mapping holds" : res.reason;
		if (kernel && res.binary && !module && !unmapped)
			f->dso = res.binary;
	}
}

void pr_stacks_name(struct perfring_stacks *st, uint32_t pid, uint64_t addr, unsigned cpumode, struct pr_frame *f)
{
	/* Kernel addresses mean the same in every process. */
	uint32_t key = pr_kernel_addr(cpumode, addr) ? PERFRING_PID_KERNEL : pid;

	if (pr_fcache_get(st->fcache, key, cpumode, addr, f))
		return;
	name_uncached(st, pid, addr, cpumode, f);
	pr_fcache_put(st->fcache, key, cpumode, addr, f);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The samples of a perf.data file, their frames named (see samples.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "shared/demangle.h"
#include "shared/buildid.h"
#include "shared/fcache.h"
#include "shared/intern.h"
#include "shared/samples.h"
#include "shared/unwind.h"
#include "shared/threads.h"
#include "shared/pd_common.h"
#include "shared/tool.h"

#define ANS_MAX_STACK_DEFAULT 127
#define ANS_MAX_STACK_CAP 8192

struct samples_reader {
	const char *cmd, *path;
	struct samples_opts opts;
	struct perfring_perfdata *pd;
	struct perfring_procs *procs;
	struct perfring_symbolizer *sym;
	struct threads *threads;
	struct demangler *demangler;
	struct fcache *fcache;
	struct intern *names_strs; /* strings frames point to that no other object keeps */
	/* The events: attr pointers of the file and their names. */
	const struct perfring_perfdata_attr **attrs;
	char **names;
	int nattrs;
	int max_stack;
	uint64_t bad_samples, lost_samples;
	/* every record read (perf's nr_events[0]), the LOST and SAMPLE ones: its lost-data warnings */
	uint64_t nr_records, nr_lost_records, nr_sample_records;
	struct perfring_perfdata_record rec;
	struct perfring_decoded d;
	struct named_frame *frames;
	size_t frames_cap;
	uint64_t *ips;      /* the user frames unwind_stack() found */
	size_t ips_cap;
	struct named_frame own; /* named_sample.own */
	struct unwinder *unwinder; /* made at the first sample with a stack copy */
	char comm_buf[24];
	void *tracing;      /* pipe mode: a copy of the HEADER_TRACING_DATA payload */
	size_t tracing_len;
	int vdso_fd;        /* the running vdso's copy (memfd), -1 until made or when it cannot be */
	bool vdso_tried;
	bool kernel_mapped; /* the recording mapped the kernel (an MMAP of pid -1) */
	bool ktext_read;    /* ktext_* are read (running_kernel_text()) */
	uint8_t *cpu_on;    /* opts.cpus: cpu_on[CPU] for the CPUs asked for, cpu_n of them */
	uint32_t cpu_n;
	uint64_t ktext_start, ktext_end;
	char vdso_path[40];
	/* The live KSYMBOL registrations, by address: each one's number (from 1,
	 * in record order, the same for every reader of the file). */
	struct ksym_reg {
		uint64_t addr;
		uint32_t nr;
	} *kregs;
	size_t nkregs, kregs_cap;
	uint32_t kreg_count;
	/* samples_opts.share: the samples seen (decoded), this reader's among them */
	uint64_t seq;
	/* PERF_SAMPLE_READ: each counter's last value, by id (read_period()) */
	struct read_last {
		uint64_t id, value;
	} *rlast;
	size_t nrlast, rlast_cap; /* rlast_cap: 0 or a power of 2 */
};

static uint32_t kreg_of(const struct samples_reader *r, uint64_t addr);

static int read_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? v : ANS_MAX_STACK_DEFAULT;
}

/* Names of the attrs the file has now (pipe mode adds them as it goes). */
static int sync_attrs(struct samples_reader *r)
{
	int n = perfring_perfdata_attr_cnt(r->pd), i;
	const struct perfring_perfdata_attr **a;
	char **names, buf[64];

	if (n <= r->nattrs)
		return 0;
	a = realloc(r->attrs, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->attrs = a;
	names = realloc(r->names, n * sizeof(*names));
	if (!names)
		return -ENOMEM;
	r->names = names;
	for (i = r->nattrs; i < n; i++) {
		a[i] = perfring_perfdata_attr(r->pd, i);
		names[i] = strdup(pd_event_name(a[i], buf, sizeof(buf)));
		if (!names[i]) {
			r->nattrs = i;
			return -ENOMEM;
		}
	}
	r->nattrs = n;
	return 0;
}

static int event_index(struct samples_reader *r, const struct perfring_perfdata_attr *a)
{
	int i;

	for (i = 0; i < r->nattrs; i++)
		if (r->attrs[i] == a)
			return i;
	if (sync_attrs(r))
		return -ENOMEM;
	for (i = 0; i < r->nattrs; i++)
		if (r->attrs[i] == a)
			return i;
	return -ENOENT;
}

/* Build ids of files mapped without one (HEADER_BUILD_ID), as perf reads them. */
static void load_build_ids(struct samples_reader *r)
{
	const struct perfring_perfdata_info *info = perfring_perfdata_info(r->pd);
	const struct perfring_perfdata_build_id *b;
	uint32_t i;

	for (i = 0; info && i < info->nr_build_ids; i++) {
		b = perfring_perfdata_build_id(r->pd, i);
		if (!b || !b->filename || !b->size)
			continue;
		perfring_procs_set_build_id(r->procs, b->pid == -1 ? PERFRING_PID_KERNEL : (uint32_t)b->pid,
					    b->filename, b->build_id, b->size);
	}
}

/* PERFRING_THREADS as a number (0 when unset). */
static int threads_asked(void)
{
	const char *env = getenv("PERFRING_THREADS");

	return env ? atoi(env) : 0;
}

/* perf's MAX_NR_CPUS: a larger id is refused, as perf refuses it. */
#define ANS_MAX_CPUS 4096

bool samples_cpus_option(const char *cmd, const char *list)
{
	int cpus[ANS_MAX_CPUS], n, i;

	n = perfring_parse_cpu_list(list, cpus, ANS_MAX_CPUS);
	if (n < 0) {
		tool_usage_error(cmd, "--cpu: '%s' is not a CPU list such as 0-2,5 (%s)", list, perfring_errmsg());
		return false;
	}
	for (i = 0; i < n && i < ANS_MAX_CPUS; i++)
		if (cpus[i] >= ANS_MAX_CPUS) {
			tool_usage_error(cmd, "--cpu: CPU %d is past the %d CPUs a file can have", cpus[i], ANS_MAX_CPUS);
			return false;
		}
	if (n == 0 || n > ANS_MAX_CPUS) {
		tool_usage_error(cmd, "--cpu: '%s' names %s", list, n ? "more CPUs than a file can have" : "no CPU");
		return false;
	}
	return true;
}

/* r->cpu_on from opts.cpus (checked by the caller with samples_cpus_option()). */
static int cpus_init(struct samples_reader *r)
{
	int cpus[ANS_MAX_CPUS], n, i;

	n = perfring_parse_cpu_list(r->opts.cpus, cpus, ANS_MAX_CPUS);
	if (n <= 0 || n > ANS_MAX_CPUS)
		return -EINVAL;
	r->cpu_n = ANS_MAX_CPUS;
	r->cpu_on = calloc(r->cpu_n, 1);
	if (!r->cpu_on)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < ANS_MAX_CPUS)
			r->cpu_on[cpus[i]] = 1;
	return 0;
}

/* The CPU of the sample r holds (named_sample.cpu): -1 when not recorded. */
static int32_t sample_cpu(const struct samples_reader *r)
{
	const struct perfring_sample *s = &r->d.u.sample;

	return s->present & PERF_SAMPLE_CPU ? (int32_t)s->cpu : -1;
}

/* The slot of counter id in r->rlast (id 0 is never one: slots with id 0 are free). */
static struct read_last *read_slot(struct read_last *t, size_t cap, uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ULL) & (cap - 1);

	while (t[i].id && t[i].id != id)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static int read_table_grow(struct samples_reader *r)
{
	size_t cap = r->rlast_cap ? r->rlast_cap * 2 : 64, i;
	struct read_last *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < r->rlast_cap; i++)
		if (r->rlast[i].id)
			*read_slot(t, cap, r->rlast[i].id) = r->rlast[i];
	free(r->rlast);
	r->rlast = t;
	r->rlast_cap = cap;
	return 0;
}

/*
 * perf's period of a sample that reads its counter (PERF_SAMPLE_READ, perf
 * record -e EVENT:S) without PERF_FORMAT_GROUP: what the counter of its id
 * grew since the previous sample of that id (the first: since 0), as
 * perf's deliver_sample_value(). Every sample goes through here, the ones
 * --cpu or a share leaves out too, as perf takes the difference before its
 * filters. 1 with *period set, 0 when the sample has no such value (the
 * period stays the sample's), -ENOMEM.
 */
static int read_period(struct samples_reader *r, uint64_t *period)
{
	const struct perfring_sample *s = &r->d.u.sample;
	struct perfring_read_value v;
	struct read_last *slot;

	if (!(s->present & PERF_SAMPLE_READ) || (s->read.format & PERF_FORMAT_GROUP) ||
	    !(s->read.format & PERF_FORMAT_ID) || s->read.nr != 1)
		return 0;
	perfring_read_value_at(&s->read, 0, &v);
	if (!v.id)
		return 0;
	if ((r->nrlast + 1) * 2 > r->rlast_cap && read_table_grow(r))
		return -ENOMEM;
	slot = read_slot(r->rlast, r->rlast_cap, v.id);
	if (!slot->id) {
		slot->id = v.id;
		r->nrlast++;
	}
	*period = v.value - slot->value;
	slot->value = v.value;
	return 1;
}

/* A sample --cpu leaves out (its CPU is not asked for); -EINVAL, said,
 * when its event records no CPU, as perf refuses such a file. */
static int cpu_skipped(struct samples_reader *r)
{
	int32_t cpu = sample_cpu(r);

	if (cpu < 0) {
		int ev = event_index(r, r->rec.attr);

		if (!r->opts.quiet)
			tool_error(r->cmd, "%s: --cpu: the samples of event '%s' record no CPU (perf record -a or "
				   "--sample-cpu records it)", r->path, ev >= 0 ? r->names[ev] : "?");
		return -EINVAL;
	}
	return (uint32_t)cpu >= r->cpu_n || !r->cpu_on[cpu];
}

/* A symbol's shown name: the symbolizer's choice between symbols at one
 * address compares those, as perf's (which demangles as it reads). */
static const char *shown_name(void *arg, const char *name)
{
	struct samples_reader *r = arg;

	return r->demangler ? demangle(r->demangler, name) : name;
}

/* Whether the functions inlined at frames are named (--inline, or stacks to unwind). */
static bool names_inlines(const struct samples_reader *r)
{
	return r->opts.inlines || samples_any_event(r, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

struct samples_reader *samples_open(const char *cmd, const char *path, const struct samples_opts *opts)
{
	struct perfring_procs_opts popts = { .sz = sizeof(popts), .no_build_ids = true };
	struct perfring_symbolizer_opts sopts = { .sz = sizeof(sopts) };
	struct perfring_perfdata_opts pdopts = { .sz = sizeof(pdopts), .ordered = true };
	struct samples_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		if (!opts || !opts->quiet)
			tool_error(cmd, "out of memory");
		return NULL;
	}
	r->cmd = cmd;
	r->vdso_fd = -1;
	r->path = path;
	if (opts)
		r->opts = *opts;
	r->max_stack = r->opts.max_stack_set ? r->opts.max_stack : read_max_stack();
	if (r->opts.cpus && cpus_init(r)) {
		if (!r->opts.quiet)
			tool_error(cmd, "--cpu: '%s': out of memory, or not a CPU list", r->opts.cpus);
		free(r->cpu_on);
		free(r);
		return NULL;
	}
	/* No record holds a longer chain (64 KiB of 8-byte entries), nor a
	 * stack copy more frames: a larger --max-stack is the same as this. */
	if (r->max_stack > ANS_MAX_STACK_CAP)
		r->max_stack = ANS_MAX_STACK_CAP;
	/* No readahead thread (perfring_perfdata_opts.readahead_thread): on
	 * this 2-CPU host it made reading slower in every order, idle or busy
	 * (make bench, time order: 0.675 of perf report with it, 0.601
	 * without; 1.105 and 0.629 under load), and two readers of a large
	 * file (samples_two_readers()) keep both CPUs busy already. */
	if (r->opts.quiet)
		r->pd = perfring_perfdata_open(path, &pdopts);
	else
		r->pd = pd_open_opts(cmd, path, &pdopts);
	if (!r->pd) {
		free(r);
		return NULL;
	}
	sopts.lines = r->opts.lines;
	/* unwound stacks name their inlined functions, as perf's do */
	sopts.inlines = names_inlines(r);
	sopts.kallsyms = r->opts.kallsyms;
	sopts.shown_name = shown_name;
	sopts.shown_name_arg = r;
	r->procs = perfring_procs_new(&popts);
	r->sym = perfring_symbolizer_new(&sopts);
	r->threads = threads_new();
	r->demangler = demangler_new();
	r->fcache = fcache_new();
	r->names_strs = intern_new();
	if (!r->procs || !r->sym || !r->threads || !r->demangler || !r->fcache || !r->names_strs || sync_attrs(r)) {
		if (!r->opts.quiet)
			tool_error(cmd, "out of memory");
		samples_close(r);
		return NULL;
	}
	threads_set_renames(r->threads, r->opts.renames, r->opts.nrenames);
	load_build_ids(r);
	return r;
}

const struct comm_rename *samples_comm_renames(const struct samples_reader *r, size_t *n)
{
	return threads_renames(r->threads, n);
}

void samples_close(struct samples_reader *r)
{
	int i;

	if (!r)
		return;
	perfring_perfdata_free(r->pd);
	free(r->cpu_on);
	perfring_procs_free(r->procs);
	perfring_symbolizer_free(r->sym);
	threads_free(r->threads);
	demangler_free(r->demangler);
	fcache_free(r->fcache);
	intern_free(r->names_strs);
	for (i = 0; i < r->nattrs; i++)
		free(r->names[i]);
	free(r->names);
	free(r->attrs);
	free(r->frames);
	free(r->ips);
	unwinder_free(r->unwinder);
	free(r->kregs);
	free(r->rlast);
	free(r->tracing);
	if (r->vdso_fd >= 0)
		close(r->vdso_fd);
	free(r);
}

/* perf maps these with the identity (map_ip): anonymous memory has no file
 * to be an offset in (util/map.c: is_anon_memory, is_no_dso_memory). */
static bool is_anon_memory(const char *path)
{
	return !strncmp(path, "//anon", 6) || !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/anon_hugepage", 14);
}

int kmod_name(const char *path, char *buf, size_t len)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst", ".ko.bz2" };
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base), i, e;

	for (e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
		size_t el = strlen(ext[e]);

		if (n > el && !strcmp(base + n - el, ext[e]) && n - el + 3 <= len) {
			buf[0] = '[';
			for (i = 0; i < n - el; i++)
				buf[i + 1] = base[i] == '-' ? '_' : base[i];
			buf[i + 1] = ']';
			buf[i + 2] = '\0';
			return 1;
		}
	}
	return 0;
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

/*
 * The binary perf script shows for a kernel address: the core kernel's
 * [kernel.kallsyms]; a module's file when the recording has its build id
 * (perf's dso made from HEADER_BUILD_ID keeps the path as its name), else
 * the module's [NAME] (the dso made from the MMAP); [unknown] for a
 * user-space address in kernel mode that no recorded kernel map holds (perf
 * finds no map: unmapped is true); else [kernel.kallsyms]. (A kernel-space
 * address outside the recorded maps, as .init.text past _etext, perf maps
 * with /proc/kcore's segments when it names a recording of this kernel.)
 */
static const char *kernel_dso(struct samples_reader *r, int look, bool unmapped, const struct perfring_map_hit *hit)
{
	char name[256];
	int32_t id;

	if (unmapped)
		return "[unknown]";
	if (look || !kernel_module_map(hit->path))
		return "[kernel.kallsyms]";
	if (hit->build_id_size || hit->path[0] == '[' || !kmod_name(hit->path, name, sizeof(name)))
		return hit->path;
	id = intern_str(r->names_strs, name);
	return id >= 0 ? intern_get(r->names_strs, id) : hit->path;
}

static bool identity_mapped(const char *path)
{
	return is_anon_memory(path) || !strncmp(path, "[stack", 6) || !strncmp(path, "/SYSV", 5) ||
	       !strcmp(path, "[heap]");
}

static bool kernel_mode(unsigned cpumode)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
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
static const char *running_vdso(struct samples_reader *r)
{
	unsigned long base;
	size_t size;

	if (r->vdso_tried)
		return r->vdso_fd >= 0 ? r->vdso_path : NULL;
	r->vdso_tried = true;
	base = getauxval(AT_SYSINFO_EHDR);
	size = base ? vdso_size(base) : 0;
	if (!size)
		return NULL;
	r->vdso_fd = memfd_create("perfring-vdso", MFD_CLOEXEC);
	if (r->vdso_fd < 0)
		return NULL;
	if (write(r->vdso_fd, (const void *)base, size) != (ssize_t)size) {
		close(r->vdso_fd);
		r->vdso_fd = -1;
		return NULL;
	}
	snprintf(r->vdso_path, sizeof(r->vdso_path), "/proc/self/fd/%d", r->vdso_fd);
	return r->vdso_path;
}

/* The vDSO has no file: perf record keeps a copy in its build-id cache,
 * ~/.debug/[vdso]/BUILD_ID/vdso, which perf report names it from (and
 * unwinds through). Without that copy (perf record -N, another home,
 * perfring record) it is the running kernel's vDSO, as perf takes it
 * (vdso__dso_findnew()): when the recording has no build id for it, or the
 * same one; another kernel's vDSO has no file here. */
static const char *vdso_file(struct samples_reader *r, const struct perfring_map_hit *hit, char *buf, size_t len)
{
	const char *cached = build_id_cached_path(hit->build_id, hit->build_id_size, true, buf, len);
	const char *running;

	if (cached)
		return cached;
	running = running_vdso(r);
	if (!running || !hit->build_id_size)
		return running;
	return file_has_build_id(running, hit->build_id, hit->build_id_size) ? running : NULL;
}

static const char *vdso_file_cb(void *arg, const struct perfring_map_hit *hit, char *buf, size_t len)
{
	return vdso_file(arg, hit, buf, len);
}

static int vdso_symbolize(struct samples_reader *r, const struct perfring_map_hit *hit, struct perfring_sym_result *res)
{
	char path[4096];
	const char *file;

	if (strcmp(hit->path, "[vdso]") || !(file = vdso_file(r, hit, path, sizeof(path))))
		return -ENOENT;
	return perfring_symbolize_file(r->sym, file, hit->build_id_size ? hit->build_id : NULL, hit->build_id_size,
				       hit->file_offset, res);
}

static void name_frame_uncached(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode,
				struct named_frame *f);

static void name_frame(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode, struct named_frame *f)
{
	/* Kernel addresses mean the same in every process. */
	uint32_t key = (kernel_mode(cpumode) || (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN &&
						 addr >= 0xffff800000000000ull)) ? PERFRING_PID_KERNEL : pid;

	if (fcache_get(r->fcache, key, cpumode, addr, f))
		return;
	name_frame_uncached(r, pid, addr, cpumode, f);
	f->name_len = f->name ? (uint32_t)strlen(f->name) : 0;
	f->dso_len = (uint32_t)strlen(f->dso);
	fcache_put(r->fcache, key, cpumode, addr, f);
}

/*
 * Whether a kernel address is in the running kernel's [_text, _etext), which
 * is where perf maps the kernel of a recording that mapped none (perf record
 * -e cycles:u writes no kernel MMAP; machine__create_kernel_maps() then
 * takes the running kernel's). Read from kallsyms once, when first asked;
 * when it cannot be (hidden addresses), every address counts as inside.
 */
static bool in_running_kernel_text(struct samples_reader *r, uint64_t addr)
{
	if (!r->ktext_read) {
		FILE *f = fopen(r->opts.kallsyms ? r->opts.kallsyms : "/proc/kallsyms", "r");
		uint64_t text = 0, stext = 0, etext = 0;
		char line[512];

		r->ktext_read = true;
		while (f && fgets(line, sizeof(line), f) && !((text || stext) && etext)) {
			unsigned long long a;
			char type, name[128];

			if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3)
				continue;
			if (!strcmp(name, "_text"))
				text = a;
			else if (!strcmp(name, "_stext"))
				stext = a;
			else if (!strcmp(name, "_etext"))
				etext = a;
		}
		if (f)
			fclose(f);
		r->ktext_start = text ? text : stext;
		r->ktext_end = etext;
	}
	if (!r->ktext_start || r->ktext_end <= r->ktext_start)
		return true;
	return addr >= r->ktext_start && addr < r->ktext_end;
}

static void name_frame_uncached(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode,
				struct named_frame *f)
{
	struct perfring_sym_result res;
	struct perfring_map_hit hit;
	bool kernel = kernel_mode(cpumode) ||
		      (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && addr >= 0xffff800000000000ull);
	bool module, unmapped;
	int look;

	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->shown_addr = addr;
	f->kernel = kernel;
	f->dso = "[unknown]";
	look = perfring_procs_lookup(r->procs, kernel ? PERFRING_PID_KERNEL : pid, addr, &hit);
	/* perf's map__new() maps the vDSO from offset 0 whatever pgoff the MMAP
	 * says (older perf record wrote its start address there). */
	if (look == 0 && !strcmp(hit.path, "[vdso]")) {
		hit.file_offset -= hit.pgoff;
		hit.pgoff = 0;
	}
	if (look == 0) {
		f->mapped = true;
		f->map_start = hit.start;
		f->map_end = hit.end;
		f->map_pgoff = hit.pgoff;
		f->build_id_size = hit.build_id_size;
		memcpy(f->build_id, hit.build_id, sizeof(f->build_id));
		if (!kernel) {
			f->dso = hit.path;
			if (!identity_mapped(hit.path))
				f->shown_addr = hit.file_offset;
			/* perf names anonymous code after the JIT map that may describe it
			 * (util/map.c: map__new() renames an executable "//anon" to
			 * /tmp/perf-PID.map; prot 0: not recorded, an MMAP of code). */
			if (is_anon_memory(hit.path) && (!hit.prot || (hit.prot & PROT_EXEC))) {
				char jit[40];
				int32_t id;

				snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", pid);
				id = intern_str(r->names_strs, jit);
				if (id >= 0)
					f->dso = intern_get(r->names_strs, id);
			}
		}
	}
	module = kernel && look == 0 && kernel_module_map(hit.path);
	f->module = module;
	/* no map holds it: a user-space address in kernel mode, or a kernel one
	 * outside the running kernel's text when the recording mapped no kernel */
	unmapped = kernel && look < 0 &&
		   (r->kernel_mapped ? look == -ENOENT && addr < 0xffff800000000000ull : !in_running_kernel_text(r, addr));
	if (kernel)
		f->dso = kernel_dso(r, look, unmapped, &hit);
	if (r->opts.no_symbols)
		return;
	if (f->mapped && !kernel && vdso_symbolize(r, &hit, &res) == 0) {
		f->name = res.name;
		f->offset = res.offset;
	} else if (perfring_symbolize(r->sym, r->procs, pid, addr, cpumode, &res) == 0 &&
		   /* perf names an unmapped one by a KSYMBOL only */
		   !(unmapped && res.source != PERFRING_SYM_KSYMBOL)) {
		f->name = demangle(r->demangler, res.name);
		f->offset = res.offset;
		f->object = res.flags & PERFRING_SYM_OBJECT;
		f->file = res.file;
		f->line = res.line;
		if (r->opts.inlines && res.nr_frames > 1) {
			/* The symbolizer keeps its frames until it is freed, as long as this reader. */
			f->inlined = res.frames;
			f->ninlined = res.nr_frames - 1;
		}
		if (kernel && res.binary && !(module && is_core_kernel(res.binary)))
			f->dso = res.binary;
		/* perf names a BPF program's dso after the program (bpf_prog_TAG_NAME). */
		if (res.source == PERFRING_SYM_KSYMBOL && res.binary && !strcmp(res.binary, "[bpf]"))
			f->dso = res.name;
		if (res.source == PERFRING_SYM_KSYMBOL)
			f->ksym_reg = kreg_of(r, res.sym_addr);
	} else {
		f->reason = unmapped ? "a user-space address in kernel mode that no kernel mapping holds" : res.reason;
		if (kernel && res.binary && !module && !unmapped)
			f->dso = res.binary;
	}
}

const char *samples_function_name(const struct samples_reader *r, const char *function)
{
	return demangle(r->demangler, function);
}

/* A caller's frame is a return address: the instruction after the call,
 * which can be past the end of the inlined function that made the call (or
 * on another line). Its inline chain and line are those of the call, at
 * addr - 1, as addr2line and pprof take them; its name stays addr's, as
 * perf names it. The first entry of each context (the sampled ip, or the
 * user ip the kernel was entered at) is where the CPU was, not a return. */
static void call_site_inlines(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode,
			      struct named_frame *f)
{
	struct perfring_sym_result res;

	if (!f->name || addr == 0 ||
	    perfring_symbolize(r->sym, r->procs, pid, addr - 1, cpumode, &res) != 0 || !res.name ||
	    strcmp(demangle(r->demangler, res.name), f->name))
		return; /* addr - 1 is in another function (a call at the very end): keep addr's */
	f->file = res.file;
	f->line = res.line;
	f->inlined = res.nr_frames > 1 ? res.frames : NULL;
	f->ninlined = res.nr_frames > 1 ? res.nr_frames - 1 : 0;
}

static int reserve_frames(struct samples_reader *r, size_t n)
{
	struct named_frame *f;

	if (n <= r->frames_cap)
		return 0;
	f = realloc(r->frames, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	r->frames = f;
	r->frames_cap = n;
	return 0;
}

/*
 * The unwound frame at r->frames[*n] as perf's unwind_entry() appends it:
 * when DWARF describes the address, a frame per function of its inline
 * chain, innermost first, each named "FUNCTION (inlined)" unless it is the
 * binary's symbol there (perf's new_inline_sym()); else the frame itself.
 * DWARF names functions as addr2line (perf's) does, so the outermost one
 * too can differ from the symbol: __GI___libc_read at read, a clone's
 * source name at get_common_cache_info.constprop.0; it then counts as
 * inlined, as in perf. *n moves past what was added.
 */
static int inline_frames(struct samples_reader *r, uint32_t pid, uint64_t addr, size_t *n)
{
	const struct named_frame base = r->frames[*n];
	struct perfring_sym_result res;
	uint32_t j;

	if (!base.name || !base.mapped || base.kernel ||
	    perfring_symbolize(r->sym, r->procs, pid, addr, PERF_RECORD_MISC_USER, &res) != 0 || !res.nr_frames) {
		(*n)++;
		return 0;
	}
	if (reserve_frames(r, *n + res.nr_frames))
		return -ENOMEM;
	for (j = 0; j < res.nr_frames; j++) {
		const char *fn = demangle(r->demangler, res.frames[j].function);
		struct named_frame *f;
		char buf[512];
		int32_t id;

		if (!fn && j + 1 < res.nr_frames)
			continue; /* an unnamed inlined scope: no frame (as addr2line's "??" gives none in perf) */
		f = &r->frames[(*n)++];
		*f = base;
		f->inlined = NULL;
		f->ninlined = 0;
		/* where in this function: the address's line, or the call site of the one inlined into it */
		f->file = res.frames[j].file;
		f->line = res.frames[j].line;
		if (!fn || !strcmp(fn, base.name))
			continue; /* the symbol itself */
		snprintf(buf, sizeof(buf), "%s (inlined)", fn);
		id = intern_str(r->names_strs, buf);
		if (id < 0)
			return -ENOMEM;
		f->name = intern_get(r->names_strs, id);
		f->name_len = (uint32_t)strlen(f->name);
		f->inline_id = 0x80000000u | (uint32_t)id;
		id = intern_str(r->names_strs, fn);
		if (id < 0)
			return -ENOMEM;
		f->inline_name = intern_get(r->names_strs, id);
	}
	return 0;
}

/* inline_frames() through the frame cache: a profile unwinds the same
 * addresses again and again. */
static int inline_frames_cached(struct samples_reader *r, uint32_t pid, uint64_t addr, size_t *n)
{
	const struct named_frame *kept;
	size_t k = fcache_get_inlines(r->fcache, pid, addr, &kept), at = *n;

	if (k) {
		if (reserve_frames(r, at + k))
			return -ENOMEM;
		memcpy(&r->frames[at], kept, k * sizeof(*kept));
		*n = at + k;
		return 0;
	}
	if (inline_frames(r, pid, addr, n))
		return -ENOMEM;
	fcache_put_inlines(r->fcache, pid, addr, &r->frames[at], *n - at);
	return 0;
}

/* How many entries that are not context markers a chain has beyond max:
 * those left out from its start when it is cut from the root end
 * (samples_opts.chain_from_root). perf 6.1 cuts perf.data.callgraph-3.4's
 * 255-entry chains so (kernel.perf_event_max_stack is 127), and --max-stack
 * 1 keeps only a kernel sample's outermost user caller. */
static uint64_t deep_chain(const struct perfring_u64_array *cc, int max)
{
	uint64_t i, n = 0;

	for (i = 0; i < cc->nr; i++)
		n += !perfring_callchain_is_context(perfring_u64_at(cc, i));
	return n > (uint64_t)max ? n - (uint64_t)max : 0;
}

/*
 * A sample with a copy of its user stack (perf record --call-graph dwarf):
 * its call chain's kernel part, then the user frames unwound from the
 * stack, as perf's thread__resolve_callchain() puts them (callee order).
 * With no frame at all (no call chain, nothing unwound) the sampled ip.
 */
static int sample_frames_unwound(struct samples_reader *r, struct named_sample *out)
{
	const struct perfring_sample *s = out->s;
	size_t max = (size_t)r->max_stack, n = 0, nu, k;
	unsigned cpumode = PERF_RECORD_MISC_USER;
	uint64_t i, ip, skip;
	bool cut;

	/* max of the recorded chain (the kernel's part), then max unwound, as
	 * perf's thread__resolve_callchain() gives each its own max_stack */
	if (reserve_frames(r, 2 * max))
		return -ENOMEM;
	if (r->ips_cap < max) {
		uint64_t *ips = realloc(r->ips, max * sizeof(*ips));

		if (!ips)
			return -ENOMEM;
		r->ips = ips;
		r->ips_cap = max;
	}
	/* the recorded part is cut as any chain is (from the root end when
	 * walked callers first); what is unwound, from the sample's end */
	skip = out->has_callchain && r->opts.chain_from_root ? deep_chain(&s->callchain, r->max_stack) : 0;
	cut = skip > 0;
	for (i = 0; out->has_callchain && i < s->callchain.nr && n < max; i++) {
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
		name_frame(r, s->pid, ip, cpumode, &r->frames[n++]);
	}
	if (!r->unwinder) {
		if (!(r->unwinder = unwinder_new()))
			return -ENOMEM;
		unwinder_set_vdso(r->unwinder, vdso_file_cb, r);
	}
	nu = unwind_stack(r->unwinder, r->procs, s, r->ips, max);
	for (k = 0; k < nu; k++) {
		size_t at = n;

		if (reserve_frames(r, n + 1))
			return -ENOMEM;
		name_frame(r, s->pid, r->ips[k], PERF_RECORD_MISC_USER, &r->frames[n]);
		if (!r->opts.inline_entries && !r->opts.inlines) {
			/* a caller's pc is already its call's (less one) */
			n++;
			continue;
		}
		if (at == 0)
			r->own = r->frames[0];
		/* the functions inlined there are frames beyond max, as perf's
		 * append_inlines() adds them after unwinding max */
		if (inline_frames_cached(r, s->pid, r->ips[k], &n))
			return -ENOMEM;
		/* perf's entry for the sample is its symbol; the inlined
		 * functions at the sampled pc are only in its call chain */
		if (at == 0 && (n > 1 || r->frames[0].inline_id))
			out->own = &r->own;
	}
	if (!n)
		name_frame(r, s->pid, s->ip, perfring_misc_cpumode(out->d->misc), &r->frames[n++]);
	out->frames = r->frames;
	out->nframes = n;
	if (cut && (s->present & PERF_SAMPLE_IP)) { /* the sample's own frame was cut: its entry is apart */
		name_frame(r, s->pid, s->ip, perfring_misc_cpumode(out->d->misc), &r->own);
		out->own = &r->own;
		out->own_apart = true;
	}
	return 0;
}

/* The frames of a sample, as perf's thread__resolve_callchain_sample() walks them. */
static int sample_frames(struct samples_reader *r, struct named_sample *out)
{
	const struct perfring_sample *s = out->s;
	unsigned cpumode = perfring_misc_cpumode(out->d->misc);
	uint64_t i, nr = s->callchain.nr, ip, first_ip = 0, skip = 0;
	size_t n = 0;

	/* as perf: the stack copy is unwound when the event records a call
	 * chain too (perf record --call-graph dwarf: the kernel's part); an
	 * event with only the registers and stack (perfring record's dwarf
	 * before it asked for the chain) gives each sample its ip alone */
	if (unwind_wanted(s) && out->has_callchain && r->max_stack > 0)
		return sample_frames_unwound(r, out);
	if (r->opts.chain_from_root && nr > (uint64_t)r->max_stack)
		skip = deep_chain(&s->callchain, r->max_stack);
	if (!out->has_callchain || !nr) {
		if (reserve_frames(r, 1))
			return -ENOMEM;
		name_frame(r, s->pid, s->ip, cpumode, &r->frames[0]);
		out->frames = r->frames;
		out->nframes = 1;
		return 0;
	}
	/* Entries before the first marker are user ones for perf. */
	cpumode = PERF_RECORD_MISC_USER;
	bool first_of_context = true;
	if (reserve_frames(r, nr < (uint64_t)r->max_stack ? nr : (uint64_t)r->max_stack))
		return -ENOMEM;
	for (i = 0; i < nr && n < (size_t)r->max_stack; i++) {
		ip = perfring_u64_at(&s->callchain, i);
		if (perfring_callchain_is_context(ip)) {
			switch (ip) {
			case PERF_CONTEXT_HV:
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
				break;
			case PERF_CONTEXT_KERNEL:
				cpumode = PERF_RECORD_MISC_KERNEL;
				break;
			case PERF_CONTEXT_USER:
				cpumode = PERF_RECORD_MISC_USER;
				break;
			case PERF_CONTEXT_GUEST_KERNEL:
				cpumode = PERF_RECORD_MISC_GUEST_KERNEL;
				break;
			case PERF_CONTEXT_GUEST_USER:
				cpumode = PERF_RECORD_MISC_GUEST_USER;
				break;
			default:
				/* perf drops the chain at a marker it does not know. */
				n = 0;
				i = nr;
				continue;
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
		name_frame(r, s->pid, ip, cpumode, &r->frames[n]);
		if (r->opts.inlines && !first_of_context)
			call_site_inlines(r, s->pid, ip, cpumode, &r->frames[n]);
		first_of_context = false;
		n++;
	}
	out->frames = r->frames;
	out->nframes = n;
	/* perf's entry for a sample is its ip's (thread__resolve_callchain_sample()
	 * walks the chain for the callers only): apart when the chain does not
	 * start at the ip, as it does when the kernel wrote one */
	if ((s->present & PERF_SAMPLE_IP) && (!n || first_ip != s->ip)) {
		name_frame(r, s->pid, s->ip, perfring_misc_cpumode(out->d->misc), &r->own);
		out->own = &r->own;
		out->own_apart = true;
	}
	return 0;
}

/* Where a registration at addr is (or goes) in r->kregs. */
static size_t kreg_at(const struct samples_reader *r, uint64_t addr)
{
	size_t lo = 0, hi = r->nkregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->kregs[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A KSYMBOL record: the registration it adds (numbered) or removes. */
static void kreg_feed(struct samples_reader *r, const struct perfring_rec_ksymbol *k)
{
	size_t i = kreg_at(r, k->addr);
	bool same = i < r->nkregs && r->kregs[i].addr == k->addr;

	if (k->flags & 1) { /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
		if (same) {
			memmove(&r->kregs[i], &r->kregs[i + 1], (r->nkregs - i - 1) * sizeof(*r->kregs));
			r->nkregs--;
		}
		return;
	}
	if (!same) {
		if (r->nkregs == r->kregs_cap) {
			size_t cap = r->kregs_cap ? r->kregs_cap * 2 : 64;
			struct ksym_reg *v = realloc(r->kregs, cap * sizeof(*v));

			if (!v)
				return; /* its frames show no registration: one binary with the last */
			r->kregs = v;
			r->kregs_cap = cap;
		}
		memmove(&r->kregs[i + 1], &r->kregs[i], (r->nkregs - i) * sizeof(*r->kregs));
		r->nkregs++;
	}
	r->kregs[i] = (struct ksym_reg){ k->addr, ++r->kreg_count };
}

static uint32_t kreg_of(const struct samples_reader *r, uint64_t addr)
{
	size_t i = kreg_at(r, addr);

	return i < r->nkregs && r->kregs[i].addr == addr ? r->kregs[i].nr : 0;
}

static void feed(struct samples_reader *r)
{
	const struct perfring_decoded *d = &r->d;

	/* The model and the names may refuse a record (out of memory, a bad
	 * field): the samples that follow are then named "[unknown]", as perf does. */
	if (perfring_procs_feed(r->procs, d) <= 0 && d->type != PERF_RECORD_FORK)
		goto names;
	switch (d->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (d->u.mmap.pid == (uint32_t)-1)
			r->kernel_mapped = true;
		fcache_changed(r->fcache, d->u.mmap.pid);
		break;
	case PERF_RECORD_COMM:
		fcache_changed(r->fcache, d->u.comm.pid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fcache_changed(r->fcache, d->u.fork_exit.pid);
		break;
	default: /* KSYMBOL, BPF_EVENT */
		if (d->type == PERF_RECORD_KSYMBOL)
			kreg_feed(r, &d->u.ksymbol);
		fcache_changed(r->fcache, PERFRING_PID_KERNEL);
		break;
	}
names:
	threads_feed(r->threads, d);
}

int samples_next(struct samples_reader *r, struct named_sample *out)
{
	uint64_t seq, read_value = 0;
	int ret, ev, read;

	while ((ret = perfring_perfdata_next(r->pd, &r->rec)) > 0) {
		r->nr_records++;
		r->nr_lost_records += r->rec.type == PERF_RECORD_LOST;
		r->nr_sample_records += r->rec.type == PERF_RECORD_SAMPLE;
		if (r->rec.type == PERFRING_RECORD_HEADER_TRACING_DATA && r->rec.payload_len && !r->tracing) {
			r->tracing = malloc(r->rec.payload_len);
			if (r->tracing) {
				memcpy(r->tracing, r->rec.payload, r->rec.payload_len);
				r->tracing_len = r->rec.payload_len;
			}
		}
		if (r->rec.type >= PERFRING_RECORD_HEADER_ATTR || !r->rec.attr)
			continue;
		if (perfring_record_parse(&r->rec.attr->cfg, r->rec.data, r->rec.size, &r->d) < 0) {
			if (r->rec.type == PERF_RECORD_SAMPLE)
				r->bad_samples++;
			continue;
		}
		if (r->rec.type != PERF_RECORD_SAMPLE) {
			if (r->rec.type == PERF_RECORD_LOST_SAMPLES)
				r->lost_samples += r->d.u.lost_samples.lost;
			feed(r);
			continue;
		}
		read = read_period(r, &read_value);
		if (read < 0) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		if (r->cpu_on) {
			int skip = cpu_skipped(r);

			if (skip < 0)
				return skip;
			if (skip)
				continue; /* perf drops it before anything counts it */
		}
		seq = r->seq++;
		if (r->opts.share_n > 1 &&
		    seq / (r->opts.share_block ? r->opts.share_block : 1) % r->opts.share_n != r->opts.share_i)
			continue; /* another reader's */
		ev = event_index(r, r->rec.attr);
		if (ev < 0) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		memset(out, 0, sizeof(*out));
		out->seq = seq;
		out->rec = &r->rec;
		out->d = &r->d;
		out->s = &r->d.u.sample;
		out->event = ev;
		out->cpu = sample_cpu(r);
		out->event_name = r->names[ev];
		if (out->s->present & PERF_SAMPLE_PERIOD)
			out->period = out->s->period;
		else
			out->period = r->rec.attr->attr ? r->rec.attr->attr->sample_period : 1;
		if (read)
			out->period = read_value;
		out->has_callchain = (r->rec.attr->cfg.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
		out->comm = threads_comm(r->threads, out->s->tid);
		if (!out->comm && out->s->tid == 0)
			out->comm = "swapper"; /* the idle task: perf names it so (its idle thread) */
		if (!out->comm)
			out->comm = threads_unnamed(r->threads, out->s->tid);
		if (!out->comm) {
			snprintf(r->comm_buf, sizeof(r->comm_buf), ":%d", (int)out->s->tid);
			out->comm = r->comm_buf;
		}
		if (sample_frames(r, out)) {
			if (!r->opts.quiet)
				tool_error(r->cmd, "out of memory");
			return -ENOMEM;
		}
		return 1;
	}
	if (ret < 0) {
		if (!r->opts.quiet)
			pd_read_error(r->cmd, r->path, r->pd, ret);
		return ret;
	}
	return 0;
}

const char *samples_thread_comm(const struct samples_reader *r, uint32_t tid)
{
	return threads_comm(r->threads, tid);
}

uint64_t samples_lost(const struct samples_reader *r)
{
	return r->lost_samples;
}

void samples_lost_warnings(const struct samples_reader *r, const char *cmd, const char *path)
{
	uint64_t all = r->nr_sample_records + r->lost_samples;

	if (r->nr_lost_records)
		fprintf(stderr, "perfring %s: warning: %s: Processed %llu events and lost %llu chunks! "
				"Check IO/CPU overload!\n",
			cmd, path, (unsigned long long)r->nr_records, (unsigned long long)r->nr_lost_records);
	/* perf: lost / (samples + lost) > 0.05, the samples of every event, kept or not */
	if (all && (double)r->lost_samples / (double)all > 0.05)
		fprintf(stderr, "perfring %s: warning: %s: Processed %llu samples and lost %3.2f%%!\n", cmd, path,
			(unsigned long long)all, 100.0 * (double)r->lost_samples / (double)all);
}

bool samples_any_event(const struct samples_reader *r, uint64_t bits)
{
	int i;

	for (i = 0; i < perfring_perfdata_attr_cnt(r->pd); i++) {
		const struct perfring_perfdata_attr *at = perfring_perfdata_attr(r->pd, i);

		if (at && (at->cfg.sample_type & bits) == bits)
			return true;
	}
	return false;
}

struct perfring_perfdata *samples_perfdata(const struct samples_reader *r)
{
	return r->pd;
}

int samples_nevents(const struct samples_reader *r)
{
	return r->nattrs;
}

const char *samples_event_name(const struct samples_reader *r, int event)
{
	return event >= 0 && event < r->nattrs ? r->names[event] : "unknown";
}

const struct perf_event_attr *samples_event_attr(const struct samples_reader *r, int event)
{
	return event >= 0 && event < r->nattrs && r->attrs[event] ? r->attrs[event]->attr : NULL;
}

void samples_name_addr(struct samples_reader *r, uint32_t pid, uint64_t addr, unsigned cpumode, struct named_frame *f)
{
	name_frame(r, pid, addr, cpumode, f);
}

const char *samples_kernel_function(void *reader, uint64_t addr, uint64_t *start)
{
	struct named_frame f;

	name_frame(reader, 0, addr, PERF_RECORD_MISC_KERNEL, &f);
	if (!f.name)
		return NULL;
	*start = addr - f.offset;
	return f.name;
}

bool samples_one_reader(const struct samples_reader *r, const char *why)
{
	if (threads_asked() == 2)
		fprintf(stderr, "perfring %s: PERFRING_THREADS=2: one reader: %s\n", r->cmd, why);
	return false;
}

bool samples_two_readers(const struct samples_reader *r)
{
	struct stat st;

	if (threads_asked() == 1)
		return false;
	if (perfring_perfdata_is_pipe(r->pd))
		return samples_one_reader(r, "the input is a pipe");
	/* A DWARF function without a linkage name is named as addr2line
	 * names it, which depends on the addresses asked before (the
	 * symbolizer's pr_binary_frames()): in the file's order, on one
	 * reader, as perf asks. */
	if (names_inlines(r))
		return samples_one_reader(r, "inlined functions are named in the order of the samples");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return samples_one_reader(r, "one CPU online");
	if (threads_asked() == 2)
		return true;
	/* a small file is read in the time the second reader takes to start
	 * (it loads the kernel's symbols too): one reader, half the CPU. A
	 * sample with a copy of the user stack is some 8 KiB the reader skips
	 * but for the words the unwinding reads, while each reader opens every
	 * binary's DWARF (glibc's debug file: 10 MB to inflate) on its own: a
	 * 78 MB file of 9,600 such samples took twice the CPU and more time
	 * with two readers (scripts/bench_dwarf.sh) */
	return stat(r->path, &st) == 0 &&
	       (uint64_t)st.st_size >= (samples_any_event(r, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
						? ANS_TWO_READERS_MIN_STACKS
						: ANS_TWO_READERS_MIN);
}

void samples_share(struct samples_reader *r, uint32_t n, uint32_t i, uint32_t block)
{
	r->opts.share_n = n;
	r->opts.share_i = i;
	r->opts.share_block = block;
}

uint64_t samples_bad(const struct samples_reader *r)
{
	return r->bad_samples;
}

const struct perfring_symbolizer *samples_symbolizer(const struct samples_reader *r)
{
	return r->sym;
}

bool samples_tracing_data(const struct samples_reader *r, const void **data, size_t *len)
{
	if (perfring_perfdata_feature(r->pd, 1, data, len) == 0 && *len)
		return true;
	*data = r->tracing;
	*len = r->tracing_len;
	return r->tracing != NULL;
}

int samples_finish(const struct samples_reader *r, const char *cmd, const char *path, int status)
{
	uint64_t early = perfring_perfdata_early_flushed(r->pd);

	/* One line is the rule: after the fatal error, nothing more. */
	if (status != EXIT_OK)
		return status;
	if (early)
		fprintf(stderr, "perfring %s: warning: %s: time ordering reached its memory bound (no FINISHED_ROUND "
				"for too long): %llu record(s) were delivered before their round ended, so order "
				"may be imperfect\n",
			cmd, path, (unsigned long long)early);
	/* The output lacks them: an error, as perfring(1) says (exit 1). */
	if (r->bad_samples)
		return tool_error(cmd, "%s: %llu sample(s) could not be decoded and were skipped", path,
				  (unsigned long long)r->bad_samples);
	return EXIT_OK;
}

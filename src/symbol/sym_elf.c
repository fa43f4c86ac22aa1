// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Binaries: an ELF file read once with elfutils' libelf, giving its build
 * id, its PT_LOAD segments (file offset -> ELF address) and its function
 * symbols from .symtab and .dynsym, a debug file's .symtab found by build id,
 * or the .symtab inside .gnu_debugdata (xz, MiniDebugInfo). A file whose
 * build id is not the recorded one is refused (-ESTALE) unless a debug
 * directory holds a copy with the right one (perf's build-id cache): a wrong
 * name is worse than none.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "symbol/symbol_internal.h"

/* MiniDebugInfo is small; refuse to inflate hostile input beyond this. */
#define DEBUGDATA_MAX (64u << 20)

/* Open path as ELF (mapped; the descriptor is closed at once). */
int pr_elf_open(const char *path, Elf **out)
{
	struct stat st;
	Elf *elf;
	int fd, err;

	*out = NULL;
	/* The path comes from the recording: a FIFO or a terminal there must
	 * not block the reader (O_NONBLOCK), and only a regular file is read. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -ENOEXEC;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	/* Everything is mapped or read now: libelf needs the fd no more. */
	err = elf_cntl(elf, ELF_C_FDREAD); /* reads what is not mapped, then lets go of fd */
	close(fd);
	if (err) {
		elf_end(elf);
		return -EIO;
	}
	*out = elf;
	return 0;
}

static size_t notes_build_id(Elf_Data *d, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
			size_t n = nh.n_descsz > PERFRING_BUILD_ID_MAX ? PERFRING_BUILD_ID_MAX : nh.n_descsz;

			memcpy(id, (const char *)d->d_buf + desc_off, n);
			return n;
		}
		off = next;
	}
	return 0;
}

/* The GNU build id from the note sections, or the PT_NOTE segments of a
 * file without section headers. Size, or 0. */
static size_t elf_build_id(Elf *elf, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	Elf_Scn *scn = NULL;
	size_t n, i, nph;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && (n = notes_build_id(d, id)))
			return n;
	}
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d && d->d_buf && (n = notes_build_id(d, id)))
			return n;
	}
	return 0;
}

int pr_elf_file_build_id(const char *path, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	Elf *elf;
	size_t n;
	int r = pr_elf_open(path, &elf);

	if (r)
		return r;
	n = elf_build_id(elf, id);
	elf_end(elf);
	return n ? (int)n : -ENODATA;
}

int perfring_elf_build_id(const char *path, uint8_t id[PERFRING_BUILD_ID_MAX])
{
	int r;

	if (!path || !id)
		return pr_fail(EINVAL, "perfring_elf_build_id: NULL argument");
	r = pr_elf_file_build_id(path, id);
	if (r == -ENODATA)
		return pr_fail(ENODATA, "perfring_elf_build_id: %s has no GNU build id note", path);
	if (r < 0)
		return pr_fail(-r, "perfring_elf_build_id: %s: %s", path,
			       r == -ENOEXEC ? "not an ELF file" : strerror(-r));
	return r;
}

static void set_err(struct pr_binary *b, const struct pr_bin_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_err(struct pr_binary *b, const struct pr_bin_ctx *ctx, int err, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	b->err = -err;
	b->reason = pr_intern_str(ctx->strs, buf);
	if (!b->reason)
		b->reason = "out of memory";
}

/*
 * A file with build id bid in the debug directories: a debug file
 * (want_debug: DIR/.build-id/ab/cdef.debug or perf's DIR/.build-id/ab/cdef/debug)
 * or a copy of the binary itself (perf's DIR/.build-id/ab/cdef/elf, or the
 * old layout where DIR/.build-id/ab/cdef is the file). Its build id is checked.
 */
static Elf *find_by_build_id(const struct pr_bin_ctx *ctx, const uint8_t *bid, size_t size, bool want_debug,
			     char *found, size_t found_sz)
{
	static const char *const debug_fmt[] = { "%s/.build-id/%.2s/%s.debug", "%s/.build-id/%.2s/%s/debug" };
	static const char *const elf_fmt[] = { "%s/.build-id/%.2s/%s/elf", "%s/.build-id/%.2s/%s" };
	const char *const *fmts = want_debug ? debug_fmt : elf_fmt;
	char hex[2 * PERFRING_BUILD_ID_MAX + 1];
	size_t d, k;

	if (!size || size < 2 || !ctx->debug_dirs)
		return NULL;
	pr_build_id_hex(bid, size, hex);
	for (d = 0; ctx->debug_dirs[d]; d++) {
		for (k = 0; k < 2; k++) {
			uint8_t got[PERFRING_BUILD_ID_MAX];
			struct stat st;
			Elf *elf;

			snprintf(found, found_sz, fmts[k], ctx->debug_dirs[d], hex, hex + 2);
			if (stat(found, &st) || !S_ISREG(st.st_mode) || pr_elf_open(found, &elf))
				continue;
			if (elf_build_id(elf, got) == size && !memcmp(got, bid, size))
				return elf;
			elf_end(elf);
		}
	}
	return NULL;
}

static int read_loads(struct pr_binary *b, Elf *elf)
{
	size_t nph, i;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	b->loads = calloc(nph ? nph : 1, sizeof(*b->loads));
	if (!b->loads)
		return -ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > UINT64_MAX - ph.p_filesz || ph.p_vaddr > UINT64_MAX - ph.p_memsz)
			continue;
		b->loads[b->nloads++] = (struct pr_load){ ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_vaddr };
	}
	return b->nloads ? 0 : -ENOEXEC;
}

int pr_binary_vaddr(const struct pr_binary *b, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < b->nloads; i++) {
		const struct pr_load *l = &b->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = l->vaddr + (off - l->off);
			return 0;
		}
	}
	return -ENOENT;
}

struct symvec {
	struct pr_sym *v;
	size_t n, cap;
};

static int bind_rank(unsigned bind)
{
	/* perf's choose_best_symbol(): a non-weak symbol over a weak one,
	 * then a global one over a local one. */
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 2 : 1;
}

/* Append sym, its name interned. 0 or -ENOMEM. */
static int push_sym(const struct pr_bin_ctx *ctx, struct symvec *sv, struct pr_sym sym)
{
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 1024;
		struct pr_sym *v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	sym.name = pr_intern_str(ctx->strs, sym.name);
	if (!sym.name)
		return -ENOMEM;
	sv->v[sv->n++] = sym;
	return 0;
}

/* Function symbols of every section of type `type` (SHT_SYMTAB or SHT_DYNSYM),
 * and data objects, as perf's elf_sym__filter() keeps them (they name the
 * addresses a stray call chain entry or a data segment mapped executable
 * holds: perf report shows them NAME+0xOFFSET). */
static int collect(const struct pr_bin_ctx *ctx, Elf *elf, Elf64_Word type, uint8_t source, struct symvec *sv,
		   bool *found)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n, entsz;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		d = elf_getdata(scn, NULL);
		entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		if (!d || !d->d_buf || !entsz)
			continue;
		*found = true;
		n = d->d_size / entsz;
		for (i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;
			unsigned st = 0;

			if (!gelf_getsym(d, (int)i, &s))
				break;
			st = GELF_ST_TYPE(s.st_info);
			if (s.st_shndx == SHN_UNDEF || s.st_value == 0)
				continue;
			if (st == STT_NOTYPE) {
				/* A code label (asm entry points such as ld.so's
				 * _dl_start_user): perf names addresses with it too
				 * (elf_sym__is_label()), if it is visible and in
				 * code. It has no size: it runs to the next symbol. */
				unsigned vis = GELF_ST_VISIBILITY(s.st_other);
				GElf_Shdr tsh;
				Elf_Scn *ts;

				if (s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE || vis == STV_HIDDEN ||
				    vis == STV_INTERNAL || !(ts = elf_getscn(elf, s.st_shndx)) || !gelf_getshdr(ts, &tsh) ||
				    !(tsh.sh_flags & SHF_EXECINSTR))
					continue;
			} else if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_OBJECT) {
				continue;
			}
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (push_sym(ctx, sv, (struct pr_sym){ .addr = s.st_value, .size = s.st_size, .name = name,
							       .source = source,
							       .bind = (uint8_t)bind_rank(GELF_ST_BIND(s.st_info)),
							       .object = st == STT_OBJECT, .index = (uint32_t)i }))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * The PLT's stubs, named as perf names them (util/symbol-elf.c,
 * dso__synthesize_plt_symbols()): NAME@plt for entry i of .rela.plt (NAME
 * from .dynsym; an IRELATIVE entry has none: "@plt"), the stub at .plt +
 * E + E * i (E: .plt's sh_entsize, the header being one entry), or at
 * .plt.sec + E * i when the binary has one (IBT). x86-64 only, the layout
 * being the architecture's.
 */
static int collect_plt(const struct pr_bin_ctx *ctx, Elf *elf, struct symvec *sv, uint64_t *first_stub)
{
	Elf_Scn *scn = NULL, *rela = NULL, *symscn;
	GElf_Shdr rsh = { 0 }, psh = { 0 }, ssh = { 0 }, symsh;
	bool has_plt = false, has_sec = false;
	Elf_Data *d, *symd = NULL;
	uint64_t base, limit, ent;
	size_t shstrndx, i, n;
	GElf_Ehdr eh;
	char buf[512];

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = scn;
			rsh = sh;
		} else if (!strcmp(name, ".plt") && sh.sh_type == SHT_PROGBITS) {
			has_plt = true;
			psh = sh;
		} else if (!strcmp(name, ".plt.sec") && sh.sh_type == SHT_PROGBITS) {
			has_sec = true;
			ssh = sh;
		}
	}
	/* perf takes the stubs' size from the section's sh_entsize, and names
	 * none when it is 0 (as lld writes it). */
	if (!rela || !has_plt || !(d = elf_getdata(rela, NULL)) || !rsh.sh_entsize || !psh.sh_entsize ||
	    (has_sec && !ssh.sh_entsize))
		return 0;
	symscn = elf_getscn(elf, rsh.sh_link);
	if (symscn && gelf_getshdr(symscn, &symsh))
		symd = elf_getdata(symscn, NULL);
	ent = has_sec ? ssh.sh_entsize : psh.sh_entsize;
	base = has_sec ? ssh.sh_addr : psh.sh_addr + psh.sh_entsize;
	limit = has_sec ? ssh.sh_addr + ssh.sh_size : psh.sh_addr + psh.sh_size;
	n = d->d_size / rsh.sh_entsize;
	for (i = 0; i < n && base + ent * (i + 1) <= limit; i++) {
		const char *name = "";
		GElf_Rela r;
		GElf_Sym sym;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		if (GELF_R_SYM(r.r_info) && symd && gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
		snprintf(buf, sizeof(buf), "%s@plt", name ? name : "");
		if (push_sym(ctx, sv, (struct pr_sym){ .addr = base + ent * i, .size = ent, .name = buf,
							.source = PERFRING_SYM_DYNSYM, .index = (uint32_t)i }))
			return -ENOMEM;
		if (!i && !has_sec)
			*first_stub = base;
	}
	return 0;
}

/*
 * perf (6.1) shows the first stub after .plt's header as the symbol before
 * .plt when that one has no size (_init, which runs to the next symbol it
 * keeps: the second stub), never as its NAME@plt; every stub of libc, where
 * nothing precedes .plt, has its name. Measured on every address of the
 * .init and .plt of four binaries (tests/cli/script_oracle.sh plt_every_byte
 * compares them with perf script; tests/unit/symbol_elf.c). So the first
 * stub's symbol goes in that case.
 */
static void plt_first_stub_to_init(struct symvec *sv, uint64_t first_stub)
{
	const struct pr_sym *below = NULL;
	size_t i, stub = sv->n;

	for (i = 0; i < sv->n; i++) {
		const struct pr_sym *s = &sv->v[i];

		if (s->addr == first_stub && s->source == PERFRING_SYM_DYNSYM && !s->index && s->size &&
		    strstr(s->name, "@plt"))
			stub = i;
		else if (s->addr < first_stub && (!below || s->addr > below->addr || (s->addr == below->addr && s->size)))
			below = s;
	}
	if (stub < sv->n && below && !below->size)
		sv->v[stub] = sv->v[--sv->n];
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* The name perf compares: the shown one (perf demangles names as it reads them). */
static const char *shown(const struct pr_bin_ctx *ctx, const char *name)
{
	const char *s = ctx->shown_name ? ctx->shown_name(ctx->shown_name_arg, name) : NULL;

	return s ? s : name;
}

/* By address; at one address the best name first, as perf's
 * choose_best_symbol() picks it: one with a size, non-weak over weak,
 * global over local, fewer leading underscores, the longest name (of the
 * names shown: <usize as Display>::fmt over <u64 as Display>::fmt, whose
 * mangled names are as long); then .symtab over .dynsym, and the first in
 * its table (perf keeps the first of two equals). */
static int cmp_sym(const void *a, const void *b, void *arg)
{
	const struct pr_sym *x = a, *y = b;
	const char *xn, *yn;
	size_t ux, uy;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind - y->bind;
	xn = shown(arg, x->name);
	yn = shown(arg, y->name);
	ux = leading_underscores(xn);
	uy = leading_underscores(yn);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	ux = strlen(xn);
	uy = strlen(yn);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	if (x->source != y->source)
		return x->source - y->source;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return x->size < y->size ? -1 : x->size > y->size;
}

static void sort_dedupe(const struct pr_bin_ctx *ctx, struct symvec *sv)
{
	size_t i, j;

	if (!sv->n)
		return;
	qsort_r(sv->v, sv->n, sizeof(*sv->v), cmp_sym, (void *)ctx);
	for (i = 1, j = 1; i < sv->n; i++)
		if (sv->v[i].addr != sv->v[j - 1].addr)
			sv->v[j++] = sv->v[i];
	sv->n = j;
}

/* Inflate .gnu_debugdata (an xz stream holding a small ELF with .symtab). */
static void *xz_inflate(const void *in, size_t len, size_t *out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = len < 16384 ? 65536 : len * 4;
	uint8_t *buf = NULL;
	lzma_ret ret;

	if (cap > DEBUGDATA_MAX)
		cap = DEBUGDATA_MAX;
	if (lzma_stream_decoder(&s, 256u << 20, 0) != LZMA_OK)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	s.next_in = in;
	s.avail_in = len;
	s.next_out = buf;
	s.avail_out = cap;
	for (;;) {
		ret = lzma_code(&s, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK)
			goto fail;
		if (s.avail_out == 0) {
			size_t done = cap;
			uint8_t *nb;

			if (cap >= DEBUGDATA_MAX)
				goto fail;
			cap = cap * 2 > DEBUGDATA_MAX ? DEBUGDATA_MAX : cap * 2;
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
			s.next_out = buf + done;
			s.avail_out = cap - done;
		}
	}
	*out_len = cap - s.avail_out;
	lzma_end(&s);
	return buf;
fail:
	lzma_end(&s);
	free(buf);
	return NULL;
}

Elf_Scn *pr_elf_section(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int collect_debugdata(const struct pr_bin_ctx *ctx, Elf *elf, struct symvec *sv, bool *found)
{
	Elf_Scn *scn = pr_elf_section(elf, ".gnu_debugdata");
	Elf_Data *d;
	void *img;
	size_t len;
	Elf *mini;
	int r;

	if (!scn || !(d = elf_rawdata(scn, NULL)) || !d->d_buf || !d->d_size)
		return 0;
	img = xz_inflate(d->d_buf, d->d_size, &len);
	if (!img)
		return 0; /* damaged: as if absent */
	mini = elf_memory(img, len);
	if (!mini || elf_kind(mini) != ELF_K_ELF) {
		if (mini)
			elf_end(mini);
		free(img);
		return 0;
	}
	r = collect(ctx, mini, SHT_SYMTAB, PERFRING_SYM_DEBUGDATA, sv, found);
	elf_end(mini);
	free(img);
	return r;
}

static bool same_id(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	return na == nb && !memcmp(a, b, na);
}

void pr_binary_load(struct pr_binary *b, const struct pr_bin_ctx *ctx, const char *path, const uint8_t *bid,
		    size_t bid_size, const struct pr_map *rec)
{
	char full[4096], alt[4096], want_hex[2 * PERFRING_BUILD_ID_MAX + 1], got_hex[2 * PERFRING_BUILD_ID_MAX + 1];
	struct symvec sv = { 0 };
	bool has_symtab = false, has_dynsym = false, unused = false;
	uint64_t first_stub = 0;
	Elf *elf = NULL, *dbg = NULL;
	const char *opened = full;
	int r;

	snprintf(full, sizeof(full), "%s%s", ctx->root ? ctx->root : "", path);
	r = pr_elf_open(full, &elf);
	if (r == -ENOEXEC) {
		set_err(b, ctx, ENOEXEC, "%s is not an ELF file", full);
		return;
	}
	if (r) {
		elf = find_by_build_id(ctx, bid, bid_size, false, alt, sizeof(alt));
		if (!elf) {
			set_err(b, ctx, r == -ENOENT ? ENOENT : -r, "binary missing: %s: %s", full, strerror(-r));
			return;
		}
		opened = alt;
	}
	b->bid_size = (uint8_t)elf_build_id(elf, b->bid);
	if (bid_size && !same_id(b->bid, b->bid_size, bid, bid_size)) {
		Elf *copy = find_by_build_id(ctx, bid, bid_size, false, alt, sizeof(alt));

		pr_build_id_hex(bid, bid_size, want_hex);
		pr_build_id_hex(b->bid, b->bid_size, got_hex);
		if (!copy) {
			elf_end(elf);
			if (b->bid_size)
				set_err(b, ctx, ESTALE, "build id mismatch: %s has %s, recorded %s (changed since "
					"recording)", full, got_hex, want_hex);
			else
				set_err(b, ctx, ESTALE, "build id mismatch: %s has no build id, recorded %s", full,
					want_hex);
			return;
		}
		elf_end(elf);
		elf = copy;
		opened = alt;
		b->bid_size = (uint8_t)elf_build_id(elf, b->bid);
	} else if (!bid_size && rec && rec->ino && opened == full) {
		/* No build id recorded: the inode is the next best witness of
		 * a replaced file (only on the same device: overlay file
		 * systems report another one). */
		struct stat st;

		if (!stat(full, &st) && major(st.st_dev) == rec->maj && minor(st.st_dev) == rec->min &&
		    st.st_ino != rec->ino) {
			elf_end(elf);
			set_err(b, ctx, ESTALE, "%s changed since recording (inode %llu, recorded %llu)", full,
				(unsigned long long)st.st_ino, (unsigned long long)rec->ino);
			return;
		}
	}
	b->opened = pr_intern_str(ctx->strs, opened);
	r = read_loads(b, elf);
	if (r) {
		elf_end(elf);
		set_err(b, ctx, -r, r == -ENOMEM ? "out of memory" : "%s has no PT_LOAD segment", opened);
		return;
	}
	r = collect(ctx, elf, SHT_SYMTAB, PERFRING_SYM_SYMTAB, &sv, &has_symtab);
	if (!r)
		r = collect(ctx, elf, SHT_DYNSYM, PERFRING_SYM_DYNSYM, &sv, &has_dynsym);
	if (!r)
		r = collect_plt(ctx, elf, &sv, &first_stub);
	if (!r && !has_symtab && b->bid_size) {
		dbg = find_by_build_id(ctx, b->bid, b->bid_size, true, alt, sizeof(alt));
		if (dbg) {
			b->debug_path = pr_intern_str(ctx->strs, alt);
			r = collect(ctx, dbg, SHT_SYMTAB, PERFRING_SYM_SYMTAB, &sv, &has_symtab);
			elf_end(dbg);
		}
	}
	if (!r && !has_symtab)
		r = collect_debugdata(ctx, elf, &sv, &unused);
	elf_end(elf);
	if (r) {
		free(sv.v);
		set_err(b, ctx, ENOMEM, "out of memory reading %s", opened);
		return;
	}
	if (first_stub)
		plt_first_stub_to_init(&sv, first_stub);
	sort_dedupe(ctx, &sv);
	b->syms = sv.v;
	b->nsyms = sv.n;
	if (ctx->nsymbols)
		*ctx->nsymbols += sv.n;
	if (!sv.n) {
		char buf[768];

		pr_build_id_hex(b->bid, b->bid_size, got_hex);
		snprintf(buf, sizeof(buf), "no function symbols in %s (stripped: no .symtab, %s, no "
			 ".gnu_debugdata; %s%s)", opened,
			 has_dynsym ? "no defined function in .dynsym" : "no .dynsym",
			 b->bid_size ? "no debug file for build id " : "no build id to find a debug file by",
			 b->bid_size ? got_hex : "");
		b->nosym_reason = pr_intern_str(ctx->strs, buf);
	}
}

const struct pr_sym *pr_binary_sym(const struct pr_binary *b, uint64_t vaddr)
{
	size_t lo = 0, hi = b->nsyms, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* syms[lo - 1] starts at or below vaddr. */
	for (k = lo; k > 0 && lo - k < 4; k--) {
		const struct pr_sym *s = &b->syms[k - 1];

		if (s->size && vaddr - s->addr < s->size)
			return s;
		if (!s->size && k == lo) {
			/* No size: it runs to the next symbol, inside its segment. */
			size_t i;

			for (i = 0; i < b->nloads; i++) {
				const struct pr_load *l = &b->loads[i];

				if (s->addr >= l->vaddr && s->addr - l->vaddr < l->memsz &&
				    vaddr - l->vaddr < l->memsz)
					return s;
			}
		}
	}
	return NULL;
}

void pr_binary_free(struct pr_binary *b)
{
	free(b->loads);
	free(b->syms);
	b->loads = NULL;
	b->syms = NULL;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Source lines and inlined frames from DWARF, through elfutils' libdw (the
 * library perf uses): the compile unit holding the address, its line table
 * row, and the chain of DW_TAG_inlined_subroutine scopes up to the real
 * function. The DWARF comes from the binary itself or from its debug file
 * (found by build id), opened on the first address that asks for lines.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libdeflate.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/sym_scopes.h"
#include "symbol/symbol_internal.h"

/* The inline chains of real programs are short; a hostile file's are not. */
#define MAX_FRAMES 64

static bool has_debug_info(Elf *elf)
{
	const char *names[] = { ".debug_info", ".zdebug_info" };
	size_t i;

	for (i = 0; i < 2; i++) {
		Elf_Scn *scn = pr_elf_section(elf, names[i]);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS)
			return true;
	}
	return false;
}

static Elf *open_elf(const char *path)
{
	Elf *elf;

	return pr_elf_open(path, &elf) ? NULL : elf;
}

/* Debug sections libdw scans for but naming never reads: variables'
 * locations and macros (glibc's location lists are 14% of its DWARF). */
static bool section_unread(const char *name)
{
	static const char *const unread[] = { ".debug_loclists", ".debug_loc", ".debug_macro", ".debug_macinfo" };
	size_t i;

	for (i = 0; i < sizeof(unread) / sizeof(unread[0]); i++)
		if (!strcmp(name, unread[i]))
			return true;
	return false;
}

/* The compressed section's ELF_T_CHDR header and payload: true when it is
 * zlib's and its claimed size is one deflate can reach (1032:1 at most). */
static bool zlib_section(Elf *elf, Elf_Scn *scn, GElf_Chdr *ch, const uint8_t **in, size_t *in_size)
{
	size_t hdr = gelf_getclass(elf) == ELFCLASS64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	Elf_Data *raw;

	if (!gelf_getchdr(scn, ch) || ch->ch_type != ELFCOMPRESS_ZLIB)
		return false;
	raw = elf_rawdata(scn, NULL);
	if (!raw || !raw->d_buf || raw->d_size <= hdr || ch->ch_size / 1032 > raw->d_size)
		return false;
	*in = (const uint8_t *)raw->d_buf + hdr;
	*in_size = raw->d_size - hdr;
	return true;
}

/* Point both of scn's data descriptors (libdw 0.188 reads elf_getdata(),
 * later ones elf_rawdata()) at its inflated bytes, and its header at their
 * size without SHF_COMPRESSED, as elf_compress(scn, 0, 0) would. */
static bool install_inflated(Elf_Scn *scn, GElf_Shdr *sh, const GElf_Chdr *ch, void *buf)
{
	Elf_Data *d = elf_getdata(scn, NULL), *raw = elf_rawdata(scn, NULL);
	Elf_Data *both[2] = { d, raw };
	size_t i;

	if (!d || !raw)
		return false;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = ch->ch_addralign;
	if (!gelf_update_shdr(scn, sh))
		return false;
	for (i = 0; i < 2; i++) {
		both[i]->d_buf = buf;
		both[i]->d_size = ch->ch_size;
		both[i]->d_type = ELF_T_BYTE;
		both[i]->d_align = ch->ch_addralign;
		both[i]->d_off = 0;
	}
	return true;
}

/*
 * Inflate elf's compressed DWARF sections before libdw opens it, into one
 * buffer returned (the caller frees it after elf_end(); NULL when nothing was
 * inflated). dwarf_begin_elf() inflates every .debug_ section with zlib;
 * on a distribution's debug file (glibc's: 10 MB of DWARF) that was 40% of
 * a `script` run's instructions. libdeflate does the same work in about
 * half, and the sections naming never reads are not inflated at all: their
 * names lose their dot, so that libdw's scan passes them by. A section this
 * cannot do (zstd, a bad stream) is left to libdw, as before.
 */
static void *inflate_debug_sections(Elf *elf)
{
	struct libdeflate_decompressor *z = NULL;
	size_t shstrndx, total = 0, used = 0, pass;
	uint8_t *buf = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	/* pass 0 sizes the buffer, pass 1 fills it */
	for (pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			const char *name;
			const uint8_t *in;
			size_t in_size, at;
			GElf_Shdr sh;
			GElf_Chdr ch;

			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
				continue;
			if (section_unread(name)) {
				if (pass == 1) {
					sh.sh_name++;
					gelf_update_shdr(scn, &sh);
				}
				continue;
			}
			if (!zlib_section(elf, scn, &ch, &in, &in_size))
				continue;
			at = (used + 15) & ~(size_t)15;
			used = at + ch.ch_size;
			if (pass == 0)
				continue;
			if (used > total || libdeflate_zlib_decompress(z, in, in_size, buf + at, ch.ch_size, NULL) !=
						    LIBDEFLATE_SUCCESS)
				continue;
			install_inflated(scn, &sh, &ch, buf + at);
		}
		if (pass == 0) {
			total = used;
			used = 0;
			if (!total || !(buf = malloc(total)) || !(z = libdeflate_alloc_decompressor())) {
				free(buf);
				return NULL;
			}
		}
	}
	libdeflate_free_decompressor(z);
	return buf;
}

/* libdw on elf, when it has DWARF: true with b->dw, b->dw_elf and the
 * inflated sections' buffer set; false with elf ended. */
static bool begin_dwarf(struct pr_binary *b, Elf *elf)
{
	void *inflated;

	if (!has_debug_info(elf)) {
		elf_end(elf);
		return false;
	}
	inflated = inflate_debug_sections(elf);
	b->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!b->dw) {
		elf_end(elf);
		free(inflated);
		return false;
	}
	b->dw_elf = elf;
	b->dw_inflated = inflated;
	return true;
}

/* The binary's own DWARF, else its debug file's (already found for symbols,
 * or looked up now by build id). */
static void open_dwarf(struct pr_binary *b, const struct pr_bin_ctx *ctx)
{
	const char *cands[2] = { b->opened, b->debug_path };
	char hex[2 * PERFRING_BUILD_ID_MAX + 1], path[4096];
	size_t i, d, k;

	b->dw_tried = true;
	for (i = 0; i < 2; i++) {
		Elf *elf;

		if (cands[i] && (elf = open_elf(cands[i])) && begin_dwarf(b, elf))
			return;
	}
	if (b->debug_path || b->bid_size < 2 || !ctx->debug_dirs)
		return;
	pr_build_id_hex(b->bid, b->bid_size, hex);
	for (d = 0; ctx->debug_dirs[d]; d++) {
		for (k = 0; k < 2; k++) {
			uint8_t got[PERFRING_BUILD_ID_MAX];
			Elf *elf;

			snprintf(path, sizeof(path), k ? "%s/.build-id/%.2s/%s/debug" : "%s/.build-id/%.2s/%s.debug",
				 ctx->debug_dirs[d], hex, hex + 2);
			if (pr_elf_file_build_id(path, got) != b->bid_size || memcmp(got, b->bid, b->bid_size))
				continue;
			if ((elf = open_elf(path)) && begin_dwarf(b, elf)) {
				b->debug_path = pr_intern_str(ctx->strs, path);
				return;
			}
		}
	}
}

void pr_binary_dwarf_close(struct pr_binary *b)
{
	pr_scopes_free(b->scopes);
	b->scopes = NULL;
	if (b->dw)
		dwarf_end(b->dw);
	if (b->dw_elf)
		elf_end(b->dw_elf);
	free(b->dw_inflated); /* after elf_end(): its sections' bytes */
	b->dw = NULL;
	b->dw_elf = NULL;
	b->dw_inflated = NULL;
	free(b->a2l);
	b->a2l = NULL;
	b->a2l_n = b->a2l_cap = 0;
}

/* The compile unit holding vaddr: .debug_aranges, else every unit's ranges. */
static bool find_cu(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, vaddr, cu))
		return true;
	while (dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) > 0)
			return true;
		if (next <= off)
			break;
		off = next;
	}
	return false;
}

/* A function's name as addr2line gives it: the linkage name first (the
 * symbol a C++ function or an asm-labelled C one has: __GI___qsort_r for
 * DWARF's __qsort_r), else the source name; both through the abstract
 * origin and specification of an inlined instance or out-of-line copy. */
static const char *die_name(Dwarf_Die *die, bool *linkage)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute a;
	const char *s;
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (dwarf_attr_integrate(die, attrs[i], &a) && (s = dwarf_formstring(&a))) {
			*linkage = attrs[i] != DW_AT_name;
			return s;
		}
	*linkage = false;
	return NULL;
}

/*
 * Whether addr2line (binutils' bfd, its mangle_style()) takes a source
 * name (DW_AT_name) in units of this language for a symbol's name: in C,
 * assembler, Fortran 77 and a few old languages it does; in C++, Rust, Ada,
 * D, Java and any language it does not list it does not (a2l_name()).
 */
static bool source_name_is_symbol(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
	case 0x8765: /* DW_LANG_Upc */
		return true;
	default:
		return false;
	}
}

/* What addr2line has settled for a function DWARF names by its source name only. */
struct pr_a2l_name {
	uint64_t key;     /* the DIE's offset + 1 (0: a free slot) */
	const char *name; /* the symbol's name it took for good, or NULL: its source name */
	bool settled;     /* it was the innermost function of an address asked for */
};

/* The function's entry (made when new), or NULL without memory. */
static struct pr_a2l_name *a2l_entry(struct pr_binary *b, uint64_t key)
{
	size_t i;

	if ((b->a2l_n + 1) * 2 > b->a2l_cap) {
		size_t cap = b->a2l_cap ? b->a2l_cap * 2 : 64, j;
		struct pr_a2l_name *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (j = 0; j < b->a2l_cap; j++) {
			if (!b->a2l[j].key)
				continue;
			for (i = (b->a2l[j].key * 0x9e3779b97f4a7c15ull) & (cap - 1); t[i].key; i = (i + 1) & (cap - 1))
				;
			t[i] = b->a2l[j];
		}
		free(b->a2l);
		b->a2l = t;
		b->a2l_cap = cap;
	}
	for (i = (key * 0x9e3779b97f4a7c15ull) & (b->a2l_cap - 1); b->a2l[i].key; i = (i + 1) & (b->a2l_cap - 1))
		if (b->a2l[i].key == key)
			return &b->a2l[i];
	b->a2l[i].key = key;
	b->a2l_n++;
	return &b->a2l[i];
}

/* Where a function's first range starts (bfd's arange.low): 0 when unknown. */
static Dwarf_Addr die_low(Dwarf_Die *die)
{
	Dwarf_Addr lo = 0, base, end;
	ptrdiff_t off;

	if (dwarf_lowpc(die, &lo) == 0)
		return lo;
	off = dwarf_ranges(die, 0, &base, &lo, &end);
	return off > 0 ? lo : 0;
}

/*
 * The name addr2line gives the function of a frame, which perf shows. A
 * linkage name (or a source name in C, assembler: source_name_is_symbol())
 * is the name. A function with only a source name (C++ templates over a
 * lambda local to a function that is no template, as std::sort's helpers
 * in main) is named, the first time it is the innermost function of an
 * address asked for, by the symbol holding that address (mangled: perf
 * demangles it); from then on by its source name, but for a function that
 * starts where that symbol does, which takes the symbol's name for good,
 * as a caller too. addr2line keeps that state over a binary's addresses;
 * perf asks it each address once, in the order it meets them, and so does
 * the symbolizer (its answers are cached by address).
 */
static const char *a2l_name(struct pr_binary *b, Dwarf_Die *cu, Dwarf_Die *die, bool innermost, uint64_t vaddr)
{
	bool linkage;
	const char *name = die_name(die, &linkage);
	const struct pr_sym *sym;
	struct pr_a2l_name *e;

	if (linkage || (name && source_name_is_symbol(cu)))
		return name;
	if (!b->a2l_n && !innermost)
		return name;
	e = a2l_entry(b, dwarf_dieoffset(die) + 1);
	if (!e || e->name)
		return e ? e->name : name;
	if (!innermost || e->settled)
		return name;
	e->settled = true;
	sym = pr_binary_sym(b, vaddr);
	if (!sym)
		return name;
	if (sym->addr == die_low(die))
		e->name = sym->name;
	return sym->name;
}

static const char *intern_or_null(struct pr_strtab *strs, const char *s)
{
	return s ? pr_intern_str(strs, s) : NULL;
}

/* The call site of an inlined scope: DW_AT_call_file/line/column. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, struct pr_strtab *strs, struct perfring_sym_frame *loc)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;

	loc->file = NULL;
	loc->line = loc->column = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		loc->file = intern_or_null(strs, dwarf_filesrc(files, v, NULL, NULL));
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v) == 0)
		loc->line = (uint32_t)v;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_column, &a), &v) == 0)
		loc->column = (uint32_t)v;
}

/* The size of a function's one range, 0 when it has none or several. */
static Dwarf_Addr die_span(Dwarf_Die *die)
{
	Dwarf_Addr lo, hi;

	return dwarf_lowpc(die, &lo) == 0 && dwarf_highpc(die, &hi) == 0 && hi > lo ? hi - lo : 0;
}

/*
 * The assembler writes a subprogram per name a function has (glibc's
 * syscall wrappers: __socketpair, __GI___socketpair, socketpair,
 * __GI_socketpair, all over the same bytes); addr2line, whose names perf
 * shows, takes the narrowest function holding the address and, of equal
 * ones, the last. dwarf_getscopes() gives the first: look on among its
 * later siblings. Only in assembler units: a compiler writes one per
 * function, and looking on costs a walk over the unit.
 */
static void last_equal_subprogram(Dwarf_Die *cu, Dwarf_Die *fn, uint64_t vaddr)
{
	Dwarf_Addr span = die_span(fn), s;
	Dwarf_Die sib = *fn;

	if (dwarf_srclang(cu) != DW_LANG_Mips_Assembler || !span)
		return;
	while (dwarf_siblingof(&sib, &sib) == 0)
		if (dwarf_tag(&sib) == DW_TAG_subprogram && dwarf_haspc(&sib, vaddr) > 0 && (s = die_span(&sib)) &&
		    s <= span) {
			*fn = sib;
			span = s;
		}
}

/* libdw's own walks, where the unit's index (sym_scopes.c) cannot answer:
 * the innermost function-like scope holding vaddr... */
static bool innermost_libdw(Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int nscopes = dwarf_getscopes(cu, vaddr, &scopes), i;
	bool found = false;

	/* Past an inlined instance dwarf_getscopes() goes on into the inlined
	 * function's abstract definition: only the first function-like scope is
	 * taken, each next caller found from the instance's own DIE. */
	for (i = 0; i < nscopes && !found; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			*fn = scopes[i];
			found = true;
		}
	}
	free(scopes);
	return found;
}

/* ... and the function-like scope holding an inlined instance (the concrete tree). */
static bool caller_libdw(Dwarf_Die *inl, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int nscopes = dwarf_getscopes_die(inl, &scopes), i;
	bool found = false;

	for (i = 1; i < nscopes && !found; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			*fn = scopes[i];
			found = true;
		}
	}
	free(scopes);
	return found;
}

/* A DIE without addresses that holds functions: a Rust module or impl, a C++ class. */
static bool holds_functions(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_module;
}

/*
 * The innermost function (subprogram or inlined instance) holding vaddr
 * below parent, into *fn. elfutils' dwarf_getscopes() does not look inside
 * a DIE without addresses, and rustc puts every function in the namespaces
 * of its module and impl: then this walk finds it (depth bounded against a
 * hostile file; each DIE is seen once).
 */
static bool function_below(Dwarf_Die *parent, uint64_t vaddr, Dwarf_Die *fn, unsigned depth)
{
	Dwarf_Die child;
	bool found = false;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (holds_functions(tag)) {
			if (function_below(&child, vaddr, fn, depth + 1))
				return true;
		} else if (dwarf_haspc(&child, vaddr) > 0) {
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
				*fn = child;
				found = true;
			}
			/* a lexical block, or an instance inlined deeper */
			return function_below(&child, vaddr, fn, depth + 1) || found;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int pr_binary_frames(struct pr_binary *b, const struct pr_bin_ctx *ctx, bool inlines, uint64_t vaddr,
		     struct perfring_sym_frame **out)
{
	struct perfring_sym_frame loc = { 0 }, *frames;
	struct pr_scope_unit *unit;
	Dwarf_Die cu, cur;
	Dwarf_Line *line;
	uint32_t node = 0;
	int n = 0, r;
	bool found = false;

	*out = NULL;
	if (!b->dw_tried)
		open_dwarf(b, ctx);
	if (!b->dw || !find_cu(b->dw, vaddr, &cu))
		return 0;
	line = dwarf_getsrc_die(&cu, vaddr);
	if (line) {
		int ln = 0, col = 0;

		loc.file = intern_or_null(ctx->strs, dwarf_linesrc(line, NULL, NULL));
		if (dwarf_lineno(line, &ln) == 0 && ln > 0)
			loc.line = (uint32_t)ln;
		if (dwarf_linecol(line, &col) == 0 && col > 0)
			loc.column = (uint32_t)col;
	}
	frames = calloc(MAX_FRAMES, sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	/* The innermost function-like scope holding the address: from the
	 * unit's index, else (what it does not model) from libdw's walk. */
	unit = pr_scopes_off ? NULL : pr_scopes_unit(b, &cu);
	r = unit ? pr_scopes_innermost(unit, vaddr, &node) : -1;
	if (r > 0) {
		cur = pr_scopes_die(unit, node);
		found = true;
	} else if (r < 0) {
		unit = NULL;
		found = innermost_libdw(&cu, vaddr, &cur);
	}
	if (found && dwarf_tag(&cur) == DW_TAG_subprogram)
		last_equal_subprogram(&cu, &cur, vaddr);
	if (!found) {
		/* inside a namespace (Rust's modules), where neither looks */
		unit = NULL;
		found = function_below(&cu, vaddr, &cur, 0);
	}
	while (found && n < MAX_FRAMES) {
		int tag = dwarf_tag(&cur);

		frames[n] = loc;
		frames[n].function = intern_or_null(ctx->strs, a2l_name(b, &cu, &cur, n == 0, vaddr));
		n++;
		if (tag != DW_TAG_inlined_subroutine || !inlines)
			break;
		call_site(&cu, &cur, ctx->strs, &loc);
		if (unit) {
			found = pr_scopes_caller(unit, &node);
			if (found)
				cur = pr_scopes_die(unit, node);
		} else {
			found = caller_libdw(&cur, &cur);
		}
	}
	if (n == 0) {
		/* Lines without a function scope (assembly): the location alone. */
		if (!loc.file && !loc.line) {
			free(frames);
			return 0;
		}
		frames[n++] = loc;
	}
	*out = frames;
	return n;
}

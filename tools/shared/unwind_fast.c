// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The call frame rules at a pc, read once per process and pc.
 *
 * libdwfl finds a frame's rules anew for every frame of every sample
 * (dwarf_cfi_addrframe() runs the CIE's and the FDE's instructions up to
 * the pc, allocating as it goes): about 8,000 instructions a frame, most
 * of reading a DWARF recording once the names are cached. A profile
 * unwinds through the same few hundred pcs again and again, so their rules
 * are kept here, in the form libdwfl's handle_cfi() evaluates them
 * (dwarf_frame_cfa(), dwarf_frame_register()): a CFA that is a register
 * plus an offset, and registers that are undefined, the callee's, or at
 * or equal to the CFA plus an offset. Anything else (an expression, a
 * signal frame, no .eh_frame entry) is not modelled: the sample is then
 * unwound by libdwfl (unwind_stack.c).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "shared/unwind_fast.h"

#define UWF_SLOTS (1u << 13)

struct uwf_ent {
	uint64_t id, pc;
	bool used, ok;
	struct uwf_rules r;
};

struct uwf_cache {
	struct uwf_ent *v;
};

struct uwf_cache *uwf_cache_new(void)
{
	struct uwf_cache *c = calloc(1, sizeof(*c));

	if (c && !(c->v = calloc(UWF_SLOTS, sizeof(*c->v)))) {
		free(c);
		return NULL;
	}
	return c;
}

void uwf_cache_free(struct uwf_cache *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

/* One register's rule from dwarf_frame_register()'s answer: false when it is not modelled. */
static bool reg_rule(Dwarf_Frame *frame, int regno, uint8_t *kind, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops, i = 1;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops) != 0)
		return false;
	if (nops == 0) {
		if (ops == mem)
			*kind = UWF_UNDEFINED;
		else if (!ops)
			*kind = UWF_SAME;
		else
			return false;
		return true;
	}
	/* offset(N) / val_offset(N): DW_OP_call_frame_cfa [DW_OP_plus_uconst N] [DW_OP_stack_value] */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	*off = 0;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		*off = (int64_t)ops[i++].number;
	*kind = UWF_AT;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		*kind = UWF_VAL;
		i++;
	}
	return i == nops;
}

/* The rules of frame: false when they are not modelled. */
static bool read_rules(Dwarf_Frame *frame, struct uwf_rules *r)
{
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	size_t nops;
	bool signal = false;
	int regno;

	if (dwarf_frame_info(frame, &start, &end, &signal) < 0 || signal)
		return false; /* a signal frame changes what the caller's pc means */
	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    ops[0].number >= UWF_NREGS)
		return false;
	r->cfa_reg = (uint8_t)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	for (regno = 0; regno < UWF_NREGS; regno++)
		if (!reg_rule(frame, regno, &r->kind[regno], &r->off[regno]))
			return false;
	return true;
}

/* The rules at pc, as libdwfl's __libdwfl_frame_unwind() finds them: the
 * module at pc, its .eh_frame. */
static bool find_rules(Dwfl_Module *mod, uint64_t pc, struct uwf_rules *r)
{
	Dwarf_Frame *frame;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	bool ok;

	if (!(cfi = dwfl_module_eh_cfi(mod, &bias)) || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return false; /* libdwfl would try .debug_frame, then the frame pointer */
	ok = read_rules(frame, r);
	free(frame);
	return ok;
}

int uwf_rules_at(struct uwf_cache *c, Dwfl *dwfl, uint64_t id, uint64_t pc, const struct uwf_rules **out)
{
	uint64_t h = (pc ^ (id << 40)) * 0x9e3779b97f4a7c15ull;
	struct uwf_ent *e = &c->v[h >> (64 - 13)];

	if (!e->used || e->id != id || e->pc != pc) {
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);

		if (!mod)
			return 0; /* not kept: the module may be reported later */
		e->used = true;
		e->id = id;
		e->pc = pc;
		e->ok = find_rules(mod, pc, &e->r);
	}
	if (!e->ok)
		return 0;
	*out = &e->r;
	return 1;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * C++ (and Rust legacy) names as perf shows them: demangled without
 * parameters or return type (perf's demangle_sym() with DMGL_NO_OPTS), e.g.
 * "_ZN16object_allocatorI12asan_mem_refED1Ev" ->
 * "object_allocator<asan_mem_ref>::~object_allocator". The demangler is the
 * C++ runtime's (abi::__cxa_demangle); results are cached by the name's
 * pointer (the symbolizer interns its names).
 */
#ifndef PERFRING_TOOL_ANS_DEMANGLE_H
#define PERFRING_TOOL_ANS_DEMANGLE_H

struct ans_demangler;

struct ans_demangler *ans_demangler_new(void);
void ans_demangler_free(struct ans_demangler *d);

/* The shown name of name (name itself when it is not mangled, or on any
 * failure). Valid until the demangler is freed. */
const char *ans_demangle(struct ans_demangler *d, const char *name);

/* The same on one string, into a malloc'd result (NULL: not mangled or no memory). For tests. */
char *ans_demangle_str(const char *name);

#endif

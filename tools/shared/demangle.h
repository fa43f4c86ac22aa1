/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * C++ (and Rust legacy) names as perf shows them: demangled without
 * parameters or return type (perf's demangle_sym() with DMGL_NO_OPTS), e.g.
 * "_ZN16object_allocatorI12asan_mem_refED1Ev" ->
 * "object_allocator<asan_mem_ref>::~object_allocator". The demangler is the
 * C++ runtime's (abi::__cxa_demangle); results are cached by the name's
 * pointer (the symbolizer interns its names).
 */
#ifndef PERFRING_TOOL_DEMANGLE_H
#define PERFRING_TOOL_DEMANGLE_H

struct demangler;

struct demangler *demangler_new(void);
void demangler_free(struct demangler *d);

/* The shown name of name (name itself when it is not mangled, or on any
 * failure). Valid until the demangler is freed. */
const char *demangle(struct demangler *d, const char *name);

/* The same on one string, into a malloc'd result (NULL: not mangled or no memory). For tests. */
char *demangle_str(const char *name);

#endif

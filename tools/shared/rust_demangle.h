/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Rust symbol names as perf shows them, both manglings:
 * - legacy, "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h8c50...E.llvm.19..."
 *   -> "std::rt::lang_start::{{closure}}" (the hash element and a ".suffix" dropped,
 *   the $..$ escapes decoded);
 * - v0, "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal" -> "std::rt::lang_start_internal"
 *   (no crate disambiguator; closures "{closure#0}", impls "<T as Trait>", generic
 *   arguments "::<T>" in a value's path).
 */
#ifndef PERFRING_TOOL_RUST_DEMANGLE_H
#define PERFRING_TOOL_RUST_DEMANGLE_H

/* The shown name of sym, malloc'd; NULL when sym is no Rust symbol (a legacy one
 * is a C++ name too: then not Rust), is malformed, or without memory. */
char *rust_demangle(const char *sym);

#endif

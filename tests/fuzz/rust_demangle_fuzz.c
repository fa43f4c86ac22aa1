// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the Rust demangler of `perfring script/report`
 * (tools/shared/rust_demangle.c) and the demangling around it
 * (demangle.c): the input, made a string, is a symbol name. Whatever
 * its back references, nesting and lengths, nothing is read past its end
 * (ASan), the output is bounded and a string, and nothing loops (libFuzzer's
 * timeout). Seeds: tests/fuzz/corpus/rust_demangle/ (real legacy and v0
 * names of a Rust program and its standard library, and damaged ones).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shared/demangle.h"
#include "shared/rust_demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sym = malloc(size + 1), *d;

	if (!sym)
		return 0;
	memcpy(sym, data, size);
	sym[size] = 0;
	d = rust_demangle(sym);
	if (d && strlen(d) >= 65536)
		abort();
	free(d);
	d = demangle_str(sym);
	free(d);
	free(sym);
	return 0;
}

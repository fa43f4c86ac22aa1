/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Allocation helpers the library and the tool share: pr_zalloc() for a
 * table to be probed at once.
 * Not installed, and not API: header-only inline functions that call only
 * libc, so that the tool (which links libperfring only through its public
 * API) includes this file by path without reaching into the library, and
 * the library exports no allocator an embedder has no use for.
 */
#ifndef PERFRING_COMMON_ALLOC_H
#define PERFRING_COMMON_ALLOC_H

#include <stdint.h>
#include <stdlib.h>

/*
 * n zeroed elements of size bytes, written now (a hash table's slots), or
 * NULL. calloc() leaves a large block to the kernel's zero page: a table
 * probed before it is filled takes a copy-on-write fault on each page's
 * first store, and in a process whose other threads run (perfring report's
 * two readers) that fault interrupts their CPUs to flush TLBs. Storing a
 * zero in each page takes it once, writable.
 */
static inline void *pr_zalloc(size_t n, size_t size)
{
	size_t bytes, i;
	char *p;

	if (size && n > SIZE_MAX / size)
		return (void *)0;
	bytes = n * size;
	/* not malloc() + memset(): compilers turn that back into calloc() */
	p = calloc(bytes ? bytes : 1, 1);
	for (i = 0; p && i < bytes; i += 4096)
		((volatile char *)p)[i] = 0;
	return p;
}

#endif

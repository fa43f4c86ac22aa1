/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef PERFRING_TOOL_ZALLOC_H
#define PERFRING_TOOL_ZALLOC_H

#include <stdint.h>
#include <stdlib.h>

/*
 * n zeroed elements of size bytes, written now. calloc() leaves a large
 * block to the kernel's shared zero page, so a table probed before it is
 * filled (a hash table) takes a copy-on-write fault on each page's first
 * store; in a process with a second thread running (perfring report's two
 * readers) that fault also interrupts the other CPU to flush its TLB.
 * Storing a zero in each page takes it once, writable.
 */
static inline void *tool_zalloc(size_t n, size_t size)
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

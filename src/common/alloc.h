/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Allocation helpers the library and the tool share: pr_zalloc() for a
 * table to be probed at once, pr_grow() for every array that grows.
 * Not installed, and not API: header-only inline functions that call only
 * libc, so that the tool (which links libperfring only through its public
 * API) includes this file by path without reaching into the library, and
 * the library exports no allocator an embedder has no use for.
 */
#ifndef PERFRING_COMMON_ALLOC_H
#define PERFRING_COMMON_ALLOC_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Room for need elements of elem bytes in an array of *cap elements, whose
 * address is arrp (a T **, any T): the capacity doubles, from 16 when
 * empty, until it holds need, so that n appends cost O(n). Returns 0 with
 * *arrp and *cap updated (unchanged when need fits already), or -ENOMEM
 * (errno too) when out of memory or need * elem exceeds size_t; both are
 * then kept, so the caller still owns, and frees, the array it had.
 * arrp is a void * rather than a void **, so that no caller casts: the
 * pointer is read and written with memcpy(), which every pointer type allows.
 */
static inline int pr_grow(void *arrp, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *old, *p;

	if (need <= *cap)
		return 0;
	if (!elem || need > SIZE_MAX / elem) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	if (c > SIZE_MAX / elem)
		c = need;
	memcpy(&old, arrp, sizeof(old));
	p = realloc(old, c * elem);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = c;
	return 0;
}

#endif

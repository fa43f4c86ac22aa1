/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Strings to small ids for `perfring report`'s grouping: by content, with
 * a cache by pointer for the strings that never move (the symbolizer's and
 * the process model's names), so that a hot frame costs one pointer lookup.
 */
#ifndef PERFRING_TOOL_INTERN_H
#define PERFRING_TOOL_INTERN_H

#include <stdint.h>

struct intern;

struct intern *intern_new(void);
void intern_free(struct intern *t);

/* The id of s's content (a copy is kept); -1 when out of memory. */
int32_t intern_str(struct intern *t, const char *s);
/* The same for a string that stays at its address while t is used. */
int32_t intern_ptr(struct intern *t, const char *s);
/* How many strings there are (ids are 0 to this, exclusive). */
int32_t intern_count(const struct intern *t);
/* The string of an id. */
const char *intern_get(const struct intern *t, int32_t id);

#endif

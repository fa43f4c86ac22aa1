/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The demo's events (struct demo_event of bpf/demo.h): decoding a sample
 * delivered by perfring, and formatting it for a line of output. */
#ifndef PERFRING_DEMO_EVENT_H
#define PERFRING_DEMO_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <perfring/reader.h>

#include "../bpf/demo.h"

/* Copy a sample into *e. The payload may come as two spans (it straddles
 * the end of the ring) and is padded by the kernel; the producer's string
 * is NUL-terminated here whatever it sent. False if too short or malformed. */
bool demo_event_decode(const struct perfring_event *ev, struct demo_event *e);

/* "EXEC", "EXIT", "OPEN" or "?". */
const char *demo_event_type_name(uint32_t type);

/* The DETAIL column: the file, the path and open flags, or the exit status. */
void demo_event_detail(const struct demo_event *e, char *buf, size_t len);

#endif

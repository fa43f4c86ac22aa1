/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `perfring script`: write the fields of a decoded record through pd_emit. */
#ifndef PERFRING_TOOL_PD_DECODE_H
#define PERFRING_TOOL_PD_DECODE_H

#include <perfring/record.h>

#include "shared/pd_emit.h"

/* Every field of d (a kernel record decoded with perfring_record_parse()). */
void pd_emit_decoded(struct pd_emit *e, const struct perfring_decoded *d);

#endif

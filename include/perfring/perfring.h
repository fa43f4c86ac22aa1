/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perfring: every public header. */
#ifndef PERFRING_PERFRING_H
#define PERFRING_PERFRING_H

#include <perfring/common.h>
#include <perfring/ring.h>
#include <perfring/reader.h>
#include <perfring/ringbuf.h>
#include <perfring/record.h>
#include <perfring/perfdata.h>
#include <perfring/perfdata_write.h>
#include <perfring/event.h>
#include <perfring/symbol.h>
#include <perfring/stack.h>
#include <perfring/profile.h>

#endif /* PERFRING_PERFRING_H */

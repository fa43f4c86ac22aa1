// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fault injection over an overwrite ring buffer in memory (rbsim's overwrite
 * producer wraps it before each run): new_mem, a read whose snapshot index
 * and record copy are allocated on first use, a second read, free, with
 * each allocation the library makes failing in turn (tests/unit/fault.h).
 * Each run succeeds or returns a negative error with a fresh
 * perfring_errmsg(); the ASan suite checks that no run leaks.
 */
#include "unit/fault_sweep.h"
#include "unit/rbsim.h"

static struct rbsim sim;

static int count(void *ctx, const void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(unsigned *)ctx)++;
	return PERFRING_CONTINUE;
}

static void prepare(void)
{
	uint32_t i;

	rbs_free(&sim);
	if (rbs_init(&sim, 4096))
		return;
	for (i = 0; i < 300; i++)
		rbs_ow_put(&sim, 20 + i % 50, i);
}

static int sc_overwrite(void)
{
	struct perfring_ringbuf *rb = rbs_ow_ring(&sim);
	unsigned n = 0;
	int ret;

	if (!rb)
		return -errno;
	ret = perfring_ringbuf_consume(rb, 5, count, &n);
	if (ret >= 0)
		ret = perfring_ringbuf_consume(rb, 0, count, &n);
	if (ret >= 0 && n < 50) /* the rest of the first read: the ring holds more than 50 */
		ret = -EPROTO;
	perfring_ringbuf_free(rb);
	return ret < 0 ? ret : 0;
}

TEST(fault_ringbuf_overwrite)
{
	fault_sweep("overwrite ring buffer", sc_overwrite, prepare);
	rbs_free(&sim);
}

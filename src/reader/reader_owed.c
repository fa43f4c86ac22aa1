// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rings a wait looks at, so that its cost grows with the rings that
 * have data and not with the rings that exist (a host with 256 CPUs has
 * 256 rings, a wakeup finds one or two of them written).
 *
 * With one wakeup per record (wakeup_events = 1), every record of a perf
 * ring is announced: the kernel sets the ring's poll flag and wakes its
 * waiters at each one, and the reader's epoll set reports the ring at its
 * next epoll_wait (level-triggered: a report left unread stays; records
 * written between a drain and the wait report the ring, and the wait
 * returns at once). The owed list holds the rings reported, and those a
 * drain left early (the kernel would not report them again); a wait looks
 * at them only, a poll drains them only. Records are never left behind:
 *  - a ring no report announces is watched instead, looked at by every
 *    wait: BPF ring buffers (edge-triggered, see reader_rings.c) and rings
 *    whose fd hung up (taken out of the epoll set);
 *  - a ring added (set-up, hotplug) is owed once, for records written
 *    before its fd joined the epoll set;
 *  - the reports are taken by epoll_wait calling perf_poll(), which clears
 *    the flag: another poller of the reader's epoll fd (a program's own
 *    epoll or poll() on it, which polls the rings through it) could take a
 *    report the reader never sees. Once perfring_reader_epoll_fd() was
 *    called, the waits look at every ring, as they do for readers that
 *    batch (wakeup_events > 1, wakeup_bytes: records below the threshold
 *    have no report, and the deadline and max_delay_ns must find them) and
 *    overwrite rings (their data is found by a moved head).
 * A flush drains every ring.
 *
 * Whether a ring has data is answered here too (pr_rd_ring_has_data), for
 * the waits, the reads and the drains.
 *
 * Calls (downward only): reader_ringbuf_drain.c (a ring buffer's data), the
 * ring layer.
 */
#include <stdlib.h>

#include "common/barrier.h"
#include "common/internal.h"
#include "reader/reader_internal.h"
#include "ring/ring_internal.h"

uint64_t pr_rd_ow_head(const struct pr_rd_ring *r)
{
	const struct perf_event_mmap_page *meta = perfring_ring_meta(r->ring);

	return pr_load_head(&meta->data_head);
}

bool pr_rd_ring_has_data(const struct pr_rd_ring *r)
{
	if (r->rb)
		return pr_rd_rb_has_data(r);
	if (r->overwrite)
		return pr_rd_ow_head(r) != r->ow_seen_head;
	return perfring_ring_bytes_available(r->ring) != 0;
}

int pr_rd_rings_with_data(const struct perfring_reader *rd)
{
	int i, n = 0;

	for (i = 0; i < rd->ring_cnt; i++)
		n += pr_rd_ring_has_data(rd->rings[i]);
	return n;
}


void pr_rd_owe(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	r->owed = true;
	if (r->listed)
		return;
	r->listed = true;
	rd->owed_list[rd->owed_cnt++] = r->idx;
}

void pr_rd_watch(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	if (r->watched)
		return;
	r->watched = true;
	rd->watch[rd->watch_cnt++] = r->idx;
}

bool pr_rd_by_report(const struct perfring_reader *rd)
{
	return rd->cfg.wakeup_events == 1 && !rd->cfg.overwrite &&
	       !__atomic_load_n(&rd->epoll_shared, __ATOMIC_RELAXED);
}

bool pr_rd_owed_due(struct perfring_reader *rd)
{
	int i, j = 0;

	for (i = 0; i < rd->watch_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[rd->watch[i]];

		if (pr_rd_ring_has_data(r))
			pr_rd_owe(rd, r);
	}
	for (i = 0; i < rd->owed_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[rd->owed_list[i]];

		/* Empty: what the kernel announced was consumed meanwhile
		 * (a consume call, a flush's drain of every ring). */
		if (r->owed && !pr_rd_ring_has_data(r))
			r->owed = false;
		if (!r->owed) {
			r->listed = false;
			continue;
		}
		rd->owed_list[j++] = r->idx;
	}
	rd->owed_cnt = j;
	return j > 0;
}

int pr_rd_owed_reserve(struct perfring_reader *rd, int cap)
{
	int *o = realloc(rd->owed_list, (size_t)cap * sizeof(*o)), *w;

	if (!o)
		return -ENOMEM;
	rd->owed_list = o;
	w = realloc(rd->watch, (size_t)cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	rd->watch = w;
	return 0;
}

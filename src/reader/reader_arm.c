// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The idle cost of max_delay_ns (BPF readers that batch: a watermark or
 * wakeup_events > 1). The bound needs the reader to see a record below the
 * threshold within max_delay of its write, and the kernel says nothing
 * about such a record: waking every max_delay to look costs a wakeup per
 * bound even when nothing is written. Instead, once the rings have stayed
 * empty for a bound, each CPU's map slot is switched to an "arming" event:
 * a second BPF output event of that CPU whose output is set into the same
 * ring (PERF_EVENT_IOC_SET_OUTPUT) and that wakes the reader on every
 * record (wakeup_events = 1). The reader then sleeps with no bound, and the
 * first record written wakes it at once; it is delivered then (well within
 * the bound). If records keep coming faster than the bound, the slots go
 * back to the batching events and the reader bounds its sleeps again.
 *
 * The switch is a map update: a program that read the old slot just before
 * it may still write through the batching event just after (the kernel does
 * not wait for it). Such a record would not wake the reader, so after
 * arming the reader looks once more a bound later (PR_ARM_CHECK) before it
 * sleeps without a bound. Switching back needs no such care: a late write
 * through the arming event only wakes the reader once more.
 *
 * Cost per isolated record: one wakeup, no system call besides the wait.
 * Cost of a change of regime: a map update per CPU, and one more wakeup
 * when arming.
 *
 * Calls (downward only): reader_bpf_map.c (events, map slots).
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

/* Open (again) the arming event of r. 0, or a negative error (logged). */
int pr_rd_arm_open(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	int fd = pr_rd_bpf_open_event(rd, r->cpu, true);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = errno;

		close(fd);
		return -err;
	}
	pthread_mutex_lock(&rd->lock);
	if (r->arm_fd >= 0)
		close(r->arm_fd);
	r->arm_fd = fd;
	pthread_mutex_unlock(&rd->lock);
	return 0;
}

void pr_rd_arm_init(struct perfring_reader *rd)
{
	int i, err;

	rd->arm_state = PR_ARM_OFF;
	if (!rd->is_bpf || !rd->cfg.max_delay_ns || rd->cfg.overwrite ||
	    (!rd->cfg.wakeup_bytes && rd->cfg.wakeup_events <= 1))
		return;
	for (i = 0; i < rd->ring_cnt; i++) {
		err = pr_rd_arm_open(rd, rd->rings[i]);
		if (err) {
			pr_log(PERFRING_LOG_INFO, "max_delay_ns: no arming event for CPU %d (%s); the reader looks at "
						  "the rings every max_delay_ns instead", rd->rings[i]->cpu, strerror(-err));
			return;
		}
	}
	rd->arm_state = PR_ARM_MAIN;
}

/* Store every ring's slot fd for the new state; paused or closed slots stay empty. */
static void set_state(struct perfring_reader *rd, enum pr_arm_state st)
{
	int i;

	pthread_mutex_lock(&rd->lock);
	rd->arm_state = st;
	if (!rd->paused && !__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		for (i = 0; i < rd->ring_cnt; i++)
			if (!rd->rings[i]->paused && !rd->rings[i]->rb) /* ring buffers have no map slot of ours */
				pr_rd_bpf_set_ring_output(rd, rd->rings[i], true, true);
	pthread_mutex_unlock(&rd->lock);
}

uint64_t pr_rd_arm_idle(struct perfring_reader *rd, uint64_t now, bool checked)
{
	uint64_t bound = now + rd->cfg.max_delay_ns;

	switch (rd->arm_state) {
	case PR_ARM_MAIN:
		/* Empty at two checks a bound apart: quiet. */
		if (checked && ++rd->arm_empty >= 2) {
			set_state(rd, PR_ARM_CHECK);
			rd->arm_check_ns = bound;
		}
		return bound;
	case PR_ARM_CHECK:
		if (now < rd->arm_check_ns)
			return rd->arm_check_ns;
		if (!checked)
			return bound;
		pthread_mutex_lock(&rd->lock); /* pause/resume read it */
		rd->arm_state = PR_ARM_ARMED; /* the slots stay */
		pthread_mutex_unlock(&rd->lock);
		return UINT64_MAX;
	case PR_ARM_ARMED:
		return UINT64_MAX;
	default:
		return bound;
	}
}

void pr_rd_arm_busy(struct perfring_reader *rd)
{
	uint64_t now;

	rd->arm_empty = 0;
	if (rd->arm_state != PR_ARM_ARMED && rd->arm_state != PR_ARM_CHECK)
		return;
	now = pr_now_ns();
	/* Records faster than the bound: batch again. */
	if (now - rd->arm_last_go_ns < rd->cfg.max_delay_ns)
		set_state(rd, PR_ARM_MAIN);
	rd->arm_last_go_ns = now;
}

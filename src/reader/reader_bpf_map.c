// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BPF readers' map slots and per-CPU events: opening a CPU's
 * PERF_COUNT_SW_BPF_OUTPUT event, storing a ring's fd in the map at key =
 * the CPU id (or deleting it: pause), and which fd a slot should hold now
 * (the batching event, or the arming event of reader_arm.c). Shared by the
 * BPF constructor, pause/resume/close, hotplug and arming.
 *
 * Calls: nothing else of the reader (the bottom of the set-up side).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"
#include "common/sys.h"
#include "reader/reader_internal.h"

static int open_error(int err, int cpu)
{
	char paranoid[32] = "?";
	FILE *f;

	if (err != EACCES && err != EPERM)
		return pr_fail(err, "perf_event_open(PERF_COUNT_SW_BPF_OUTPUT) on CPU %d failed: %s", cpu,
			       strerror(err));
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	if (f) {
		if (fgets(paranoid, sizeof(paranoid), f))
			paranoid[strcspn(paranoid, "\n")] = '\0';
		fclose(f);
	}
	return pr_fail(err,
		       "perf_event_open(PERF_COUNT_SW_BPF_OUTPUT) on CPU %d: %s. Per-CPU perf events are "
		       "restricted by /proc/sys/kernel/perf_event_paranoid (now %s): run as root, or grant "
		       "CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8) together with CAP_BPF, or lower "
		       "perf_event_paranoid (sysctl kernel.perf_event_paranoid=-1 allows CPU-wide events)",
		       cpu, strerror(err), paranoid);
}

int pr_rd_bpf_open_event(const struct perfring_reader *rd, int cpu, bool arming)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	attr.sample_type = PERF_SAMPLE_RAW;
	attr.sample_period = 1;
	if (arming) {
		attr.wakeup_events = 1; /* reader_arm.c: every record wakes */
	} else if (rd->cfg.wakeup_bytes) {
		attr.watermark = 1;
		attr.wakeup_watermark = rd->cfg.wakeup_bytes;
	} else {
		attr.wakeup_events = rd->cfg.wakeup_events;
	}
	attr.write_backward = rd->cfg.overwrite;
	/* Enabled once its ring is mapped. */
	attr.disabled = 1;
	fd = pr_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENODEV)
		return -ENODEV;
	return open_error(errno, cpu);
}

int pr_rd_bpf_set_ring_output(struct perfring_reader *rd, struct pr_rd_ring *r, bool on, bool quiet)
{
	int ret;

	/* Key = the CPU id. Deleting an empty slot is not an error: pause is
	 * idempotent. */
	if (on)
		ret = pr_bpf_map_update_u32(rd->map_fd, (uint32_t)r->cpu, (uint32_t)pr_rd_arm_slot_fd(rd, r));
	else
		ret = pr_bpf_map_delete_u32(rd->map_fd, (uint32_t)r->cpu);
	if (ret == -ENOENT && !on)
		ret = 0;
	if (ret && !quiet)
		pr_fail(-ret, "cannot %s the perf event fd of CPU %d %s the BPF map: %s", on ? "store" : "remove",
			r->cpu, on ? "in" : "from", strerror(-ret));
	return ret;
}

int pr_rd_bpf_set_output(struct perfring_reader *rd, bool on, bool quiet)
{
	int i, ret, first = 0;

	for (i = 0; i < rd->ring_cnt; i++) {
		if (rd->rings[i]->rb)
			continue; /* a ring buffer has no map slot */
		/* Only the first failure's message is kept. */
		ret = pr_rd_bpf_set_ring_output(rd, rd->rings[i], on, quiet || first);
		if (ret && !first)
			first = ret;
	}
	return first;
}

int pr_rd_arm_slot_fd(const struct perfring_reader *rd, const struct pr_rd_ring *r)
{
	if ((rd->arm_state == PR_ARM_ARMED || rd->arm_state == PR_ARM_CHECK) && r->arm_fd >= 0)
		return r->arm_fd;
	return r->wfd >= 0 ? r->wfd : r->fd;
}

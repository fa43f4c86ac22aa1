// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU hotplug for BPF readers, with no thread of its own: the kernel's
 * uevents (NETLINK_KOBJECT_UEVENT, multicast group 1) are read by the
 * thread that waits in poll/read/wait, through the reader's epoll set, so
 * that an idle reader sleeps until something happens (a periodic look at
 * /sys/devices/system/cpu/online would wake it for nothing, and could miss
 * an offline-online cycle between two looks).
 *
 * What the kernel does (measured on 6.18): when a CPU goes offline, its
 * per-CPU events are taken out of their context for good; the fd and the
 * mapped ring stay, but bpf_perf_event_output() into the event fails with
 * EOPNOTSUPP once the CPU is back, and PERF_EVENT_IOC_ENABLE does not
 * revive it. So a CPU that comes back gets a new event whose output is set
 * (PERF_EVENT_IOC_SET_OUTPUT) into its existing ring, and the new event
 * replaces the old in the map: records written before the offline are
 * still in the ring, records written after go to the same ring behind
 * them, and the epoll entry of the ring's own fd is woken for both (the
 * kernel wakes every event attached to a buffer). A CPU offline at
 * creation gets a new event and ring when it comes online; the ring array
 * was sized for every CPU the reader may serve, so it never moves under
 * the accessors of other threads.
 *
 * The uevent socket is opened at creation (so that no event is missed) and
 * joins the epoll set at the first wait, which also compares the online
 * CPUs with the rings once. An external event loop that only consumes never
 * has it in its epoll set, so its fd is not made readable by uevents it
 * would not take. Messages are accepted only from the kernel (port 0).
 *
 * Calls (downward only): reader_arm.c (arming event of a new CPU), reader_bpf_map.c
 * (events, map slots), reader_rings.c (a ring for a new CPU).
 */
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

int pr_rd_hp_init(struct perfring_reader *rd, const int *cpus, int cnt)
{
	struct sockaddr_nl sa;
	int fd;

	rd->hp_fd = -1;
	if (rd->cfg.no_hotplug)
		return 0;
	rd->hp_cpus = malloc((size_t)(cnt ? cnt : 1) * sizeof(*rd->hp_cpus));
	if (!rd->hp_cpus)
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	memcpy(rd->hp_cpus, cpus, (size_t)cnt * sizeof(*cpus));
	rd->hp_cpu_cnt = cnt;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		pr_log(PERFRING_LOG_INFO, "CPU hotplug is not followed: cannot open a uevent netlink socket: %s",
		       strerror(errno));
		return 0;
	}
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	sa.nl_groups = 1; /* the kernel's own uevents */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		pr_log(PERFRING_LOG_INFO, "CPU hotplug is not followed: cannot bind the uevent socket: %s",
		       strerror(errno));
		close(fd);
		return 0;
	}
	rd->hp_fd = fd;
	__atomic_store_n(&rd->hp_stats.active, true, __ATOMIC_RELAXED);
	return 0;
}

void pr_rd_hp_free(struct perfring_reader *rd)
{
	if (rd->hp_fd >= 0)
		close(rd->hp_fd);
	rd->hp_fd = -1;
	free(rd->hp_cpus);
	rd->hp_cpus = NULL;
}

void pr_rd_hp_arm(struct perfring_reader *rd)
{
	struct epoll_event ev;

	if (rd->hp_fd < 0 || rd->hp_armed)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = PR_RD_HOTPLUG_TAG;
	if (epoll_ctl(rd->epoll_fd, EPOLL_CTL_ADD, rd->hp_fd, &ev)) {
		pr_log(PERFRING_LOG_WARN, "CPU hotplug is not followed: cannot add the uevent socket to the epoll set: %s",
		       strerror(errno));
		pr_rd_hp_free(rd);
		__atomic_store_n(&rd->hp_stats.active, false, __ATOMIC_RELAXED);
		return;
	}
	rd->hp_armed = true;
	/* CPUs that came online between creation and now. */
	pr_rd_hp_process(rd, true);
}

static void report(struct perfring_reader *rd, uint64_t *counter, int cpu, int idx, int what)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
	if (rd->cfg.on_cpu)
		rd->cfg.on_cpu(rd->cfg.on_cpu_ctx, cpu, idx, what);
}

static struct pr_rd_ring *ring_of_cpu(struct perfring_reader *rd, int cpu)
{
	int i;

	for (i = 0; i < rd->ring_cnt; i++)
		if (rd->rings[i]->cpu == cpu && !rd->rings[i]->rb) /* not a per-CPU ring buffer */
			return rd->rings[i];
	return NULL;
}

/* Store the ring's writer in the map unless output is paused or closed. */
static int store_writer(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	int ret = 0;

	if (!rd->paused && !r->paused && !__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		ret = pr_rd_bpf_set_ring_output(rd, r, true, false);
	return ret;
}

static void cpu_failed(struct perfring_reader *rd, int cpu, int idx, const char *what)
{
	pr_log(PERFRING_LOG_WARN, "CPU %d came online but %s: %s", cpu, what, perfring_errmsg());
	report(rd, &rd->hp_stats.failed, cpu, idx, PERFRING_CPU_FAILED);
}

/* A CPU offline at creation is online: a new event and ring. */
static void add_cpu(struct perfring_reader *rd, int cpu)
{
	struct pr_rd_ring *r;
	int fd, idx, ret;

	fd = pr_rd_bpf_open_event(rd, cpu, false);
	if (fd == -ENODEV)
		return; /* offline again already: its uevent follows */
	if (fd < 0)
		return cpu_failed(rd, cpu, -1, "its BPF output event cannot be opened");
	idx = pr_rd_add_ring(rd, fd, cpu, true);
	if (idx < 0) {
		close(fd);
		return cpu_failed(rd, cpu, -1, "its ring cannot be mapped");
	}
	r = rd->rings[idx];
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		pr_fail(errno, "PERF_EVENT_IOC_ENABLE on the event of CPU %d failed: %s", cpu, strerror(errno));
		return cpu_failed(rd, cpu, idx, "its event cannot be enabled");
	}
	/* Before the map holds it: an armed reader stores the arming event. */
	if (rd->arm_state != PR_ARM_OFF && pr_rd_arm_open(rd, r))
		pr_log(PERFRING_LOG_WARN, "CPU %d: no arming event; max_delay_ns may not hold for it while idle", cpu);
	pthread_mutex_lock(&rd->lock);
	ret = store_writer(rd, r);
	pthread_mutex_unlock(&rd->lock);
	if (ret)
		return cpu_failed(rd, cpu, idx, "its event cannot be stored in the map");
	report(rd, &rd->hp_stats.rings_added, cpu, idx, PERFRING_CPU_RING_ADDED);
}

/* A CPU that went offline is back: a new event writing into its ring. */
static void reopen_cpu(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	int fd, old, ret;

	fd = pr_rd_bpf_open_event(rd, r->cpu, false);
	if (fd == -ENODEV)
		return;
	if (fd < 0)
		return cpu_failed(rd, r->cpu, r->idx, "its BPF output event cannot be opened again");
	/* The arming event died with the CPU too. */
	if (r->arm_fd >= 0 && pr_rd_arm_open(rd, r))
		pr_log(PERFRING_LOG_WARN, "CPU %d: no arming event; max_delay_ns may not hold for it while idle",
		       r->cpu);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		pr_fail(errno, "cannot send the new event of CPU %d into its ring: %s", r->cpu, strerror(errno));
		close(fd);
		return cpu_failed(rd, r->cpu, r->idx, "its new event cannot write into its ring");
	}
	pthread_mutex_lock(&rd->lock);
	old = r->wfd;
	r->wfd = fd;
	ret = store_writer(rd, r);
	pthread_mutex_unlock(&rd->lock);
	/* A program that took the old event from the map before the update
	 * holds its own reference until it is done. */
	if (old >= 0)
		close(old);
	r->cpu_gone = false;
	if (ret)
		return cpu_failed(rd, r->cpu, r->idx, "its new event cannot be stored in the map");
	report(rd, &rd->hp_stats.reopened, r->cpu, r->idx, PERFRING_CPU_REOPENED);
}

/* Bring the rings in line with the online CPUs. all_gone: messages were
 * lost, so any CPU may have gone offline and come back meanwhile. */
static void reconcile(struct perfring_reader *rd, bool all_gone)
{
	int *online = NULL, n, i, j;

	n = pr_cpu_list_alloc(perfring_online_cpus, &online);
	if (n < 0) {
		pr_log(PERFRING_LOG_WARN, "CPU hotplug: %s", perfring_errmsg());
		return;
	}
	for (i = 0; i < rd->hp_cpu_cnt; i++) {
		int cpu = rd->hp_cpus[i];
		struct pr_rd_ring *r;
		bool on = false;

		for (j = 0; j < n && !on; j++)
			on = online[j] == cpu;
		if (!on)
			continue;
		r = ring_of_cpu(rd, cpu);
		if (!r)
			add_cpu(rd, cpu);
		else if (r->cpu_gone || all_gone)
			reopen_cpu(rd, r);
	}
	free(online);
}

static int cpu_of(const char *msg, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long cpu;

	if (strncmp(msg, prefix, n) || msg[n] < '0' || msg[n] > '9')
		return -1;
	cpu = strtol(msg + n, &end, 10);
	return *end == '\0' && cpu < 1 << 20 ? (int)cpu : -1;
}

void pr_rd_hp_process(struct perfring_reader *rd, bool do_reconcile)
{
	bool all_gone = false;
	char buf[2048];

	if (rd->hp_fd < 0)
		return;
	for (;;) {
		struct sockaddr_nl sa;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
		struct msghdr msg = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1 };
		struct pr_rd_ring *r;
		ssize_t n;
		int cpu;

		memset(&sa, 0, sizeof(sa));
		n = recvmsg(rd->hp_fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) { /* the queue overflowed: messages lost */
				do_reconcile = all_gone = true;
				continue;
			}
			break;
		}
		if (sa.nl_pid != 0)
			continue; /* not from the kernel */
		buf[n] = '\0'; /* the first string: "action@devpath" */
		cpu = cpu_of(buf, "offline@/devices/system/cpu/cpu");
		if (cpu >= 0) {
			r = ring_of_cpu(rd, cpu);
			if (r && !r->cpu_gone) {
				r->cpu_gone = true;
				report(rd, &rd->hp_stats.offline, cpu, r->idx, PERFRING_CPU_OFFLINE);
			}
			continue;
		}
		if (cpu_of(buf, "online@/devices/system/cpu/cpu") >= 0)
			do_reconcile = true;
	}
	if (do_reconcile)
		reconcile(rd, all_gone);
}

int perfring_reader_hotplug_stats(const struct perfring_reader *rd, struct perfring_reader_hotplug *st)
{
	if (!rd || !st)
		return pr_fail(EINVAL, "perfring_reader_hotplug_stats: %s is NULL", rd ? "st" : "reader");
	st->rings_added = __atomic_load_n(&rd->hp_stats.rings_added, __ATOMIC_RELAXED);
	st->reopened = __atomic_load_n(&rd->hp_stats.reopened, __ATOMIC_RELAXED);
	st->offline = __atomic_load_n(&rd->hp_stats.offline, __ATOMIC_RELAXED);
	st->failed = __atomic_load_n(&rd->hp_stats.failed, __ATOMIC_RELAXED);
	st->active = __atomic_load_n(&rd->hp_stats.active, __ATOMIC_RELAXED);
	return 0;
}

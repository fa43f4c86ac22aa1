// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's ring table: mapping a ring for an event fd and adding it
 * (index, epoll registration, slot), and the CPUs skipped at creation.
 * Shared by every constructor, perfring_reader_add() and hotplug.
 *
 * Calls: nothing else of the reader (the bottom of the set-up side).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include "common/internal.h"
#include "common/barrier.h"
#include "reader/reader_internal.h"
#include "common/sys.h"
#include <perfring/ringbuf.h>

/* Read a small /proc value for a message ("?" if unreadable). */
static void read_proc_value(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "?");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Explain why mapping a ring failed; err is the errno of perfring_ring_new(). */
static int ring_map_error(int err, int fd, int cpu, size_t data_bytes, const char *ring_msg)
{
	int64_t len = perfring_ring_mmap_len(data_bytes);
	size_t page = perfring_page_size();
	char who[64], mlock_kb[32], memlock[48];

	if (cpu >= 0)
		snprintf(who, sizeof(who), "CPU %d", cpu);
	else
		snprintf(who, sizeof(who), "perf event fd %d", fd);
	/* The ring layer failed before its mmap (e.g. allocating the ring): its
	 * message says what, the mlock advice below would mislead. */
	if (strncmp(ring_msg, "mmap", 4) != 0)
		return pr_fail(err, "cannot set up the perf ring of %s: %s", who, ring_msg);
	switch (err) {
	case EPERM:
	case ENOMEM:
		read_proc_value("/proc/sys/kernel/perf_event_mlock_kb", mlock_kb, sizeof(mlock_kb));
		pr_memlock_limit(memlock, sizeof(memlock));
		return pr_fail(err,
			       "cannot map the perf ring of %s (%lld bytes: 1 + %zu pages): %s. Perf ring memory "
			       "is limited per user by /proc/sys/kernel/perf_event_mlock_kb (now %s KiB, times the "
			       "number of CPUs) and beyond that by RLIMIT_MEMLOCK (now %s); raise one of them "
			       "(sysctl kernel.perf_event_mlock_kb, ulimit -l), grant CAP_IPC_LOCK, or ask for "
			       "smaller rings (data_pages)",
			       who, (long long)len, data_bytes / page, strerror(err), mlock_kb, memlock);
	case EINVAL:
		return pr_fail(err,
			       "cannot map the perf ring of %s (%lld bytes): EINVAL. A perf ring is 1 metadata page "
			       "+ 2^n data pages (page size %zu), and an event already mapped elsewhere must be "
			       "mapped with the same size (%s)",
			       who, (long long)len, page, ring_msg);
	default:
		return pr_fail(err, "cannot map the perf ring of %s (%lld bytes): %s (%s)", who, (long long)len,
			       strerror(err), ring_msg);
	}
}

int pr_rd_add_ring(struct perfring_reader *rd, int fd, int cpu, bool own_fd)
{
	struct perfring_ring_opts ropts = PERFRING_OPTS_INIT(perfring_ring_opts);
	struct pr_rd_ring *r;
	char ring_msg[256];
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	ropts.data_bytes = rd->cfg.data_bytes;
	ropts.overwrite = rd->cfg.overwrite;
	/* The ring hands over straddling records already copied, so that the
	 * event's raw record (perfring_msg_record()) is contiguous too, not only its payload. */
	ropts.linearize = rd->cfg.linearize;
	r->ring = perfring_ring_new(fd, &ropts);
	if (!r->ring) {
		err = errno;
		snprintf(ring_msg, sizeof(ring_msg), "%s", perfring_errmsg());
		free(r);
		return ring_map_error(err, fd, cpu, rd->cfg.data_bytes, ring_msg);
	}
	r->fd = fd;
	r->wfd = -1;
	r->arm_fd = -1;
	r->cpu = cpu;
	r->own_fd = own_fd;
	r->overwrite = rd->cfg.overwrite;
	err = pr_rd_append_ring(rd, r);
	if (err < 0) {
		perfring_ring_free(r->ring);
		free(r);
	}
	return err;
}

int pr_rd_append_ring(struct perfring_reader *rd, struct pr_rd_ring *r)
{
	struct epoll_event ev;
	size_t cap;
	int err;

	pthread_mutex_lock(&rd->lock);
	/* Rings added at set-up leave room for every CPU hotplug may add
	 * later, so that the array never moves once threads read it. */
	cap = (size_t)rd->ring_cap;
	if (pr_grow(&rd->rings, &cap, (size_t)rd->ring_cnt + 1 + (rd->hp_armed ? 0 : (size_t)rd->hp_cpu_cnt),
		    sizeof(*rd->rings)) ||
	    /* the owed and watched lists hold as many rings as the array */
	    (cap != (size_t)rd->ring_cap && pr_rd_owed_reserve(rd, (int)cap))) {
		/* ring_cap stays: the lists are grown again with the next ring */
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	}
	rd->ring_cap = (int)cap;
	r->idx = rd->ring_cnt;
	memset(&ev, 0, sizeof(ev));
	/* A ring buffer's fd polls readable as long as it holds bytes, also a
	 * record still BUSY: edge-triggered, it wakes us when the kernel
	 * commits the record we wait at (see pr_rd_rb_has_data()). */
	ev.events = r->rb ? EPOLLIN | EPOLLET : EPOLLIN;
	ev.data.u64 = (uint64_t)r->idx;
	if (epoll_ctl(rd->epoll_fd, EPOLL_CTL_ADD, r->fd, &ev)) {
		err = errno;
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(err, "cannot add %s fd %d to the reader's epoll set: %s",
			       r->rb ? "BPF ring buffer map" : "perf event", r->fd, strerror(err));
	}
	rd->rings[rd->ring_cnt] = r;
	/* Publish the count after the slot: accessors may read it. */
	__atomic_store_n(&rd->ring_cnt, rd->ring_cnt + 1, __ATOMIC_RELEASE);
	/* No report announces a ring buffer's records (reader_owed.c); a
	 * ring's records written before its fd joined the epoll set may have
	 * had theirs taken (a caller's fd): look once. */
	if (r->rb)
		pr_rd_watch(rd, r);
	else if (pr_rd_by_report(rd))
		pr_rd_owe(rd, r);
	/* A ring added to a paused or closed caller-fd reader starts paused. */
	if (!rd->is_bpf && r->ring && (rd->paused || __atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)))
		perfring_ring_pause(r->ring);
	pthread_mutex_unlock(&rd->lock);
	return r->idx;
}

int pr_rd_skip_cpu(struct perfring_reader *rd, int cpu)
{
	if (pr_grow(&rd->skipped, &rd->skipped_cap, (size_t)rd->skipped_cnt + 1, sizeof(*rd->skipped)))
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	rd->skipped[rd->skipped_cnt++] = cpu;
	return 0;
}

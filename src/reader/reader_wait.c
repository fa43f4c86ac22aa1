// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Blocking: when a poll/read/wait may return, and sleeping until then.
 *
 * Every cross-thread request (flush, wakeup, close, a new deadline) is a
 * counter or flag changed with an atomic, followed by a write to the
 * reader's eventfd, which sits in the epoll set with the ring fds. The
 * waiter checks the flags, then the rings (loads, no syscall), and only
 * then sleeps: a request made after the check finds the eventfd readable,
 * so none is lost.
 *
 * Records wait for the wakeup threshold. The kernel reports a perf ring
 * readable once per wakeup (perf_poll() clears the flag): that report
 * marks the ring owed, and an owed ring's records are due until a drain
 * reaches its head. A ring left half read by an early stop stays owed (the
 * kernel would not report it again). Without a report, records already in
 * a ring when a call starts are not due (cilium's Read behaves the same),
 * except with wakeup_events = 1, where every record is the threshold. The
 * byte count of a watermark ring is not checked here: the kernel's wakeup
 * points are not relative to our tail, and a drain of records whose wakeup
 * flag is still set in the kernel would leave that flag to announce the
 * next record, below the threshold, as due.
 *
 * Records below the threshold come out on a flush, when the deadline
 * passes (then -ETIMEDOUT), or max_delay_ns after they were written:
 * rd->quiet_ns is a time after which every record not yet due was written
 * (the last check or drain that left nothing behind), each sleep lasts at
 * most max_delay_ns so that a record written meanwhile is seen, and records
 * become due at quiet_ns + max_delay_ns. A plain timeout does not release
 * them.
 *
 * With one wakeup per record the wait looks only at the rings the kernel
 * reported (reader_owed.c), so that its cost does not grow with the rings
 * that exist; the rest of this file holds in both cases.
 *
 * Calls (downward only): reader_owed.c (owed rings, pr_rd_ring_has_data),
 * reader_hotplug.c (uevents), reader_arm.c (arming), reader_order.c (held
 * records due).
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/internal.h"
#include "reader/reader_internal.h"

#ifndef __NR_epoll_pwait2
#define __NR_epoll_pwait2 441
#endif

int pr_rd_no_epoll_pwait2;

/* Wake the sleeper. rearm: the waiter should read the eventfd once it has
 * seen the request, so that the epoll fd stops being readable. */
void pr_rd_notify(struct perfring_reader *rd, bool rearm)
{
	uint64_t one = 1;

	if (rd->event_fd < 0)
		return;
	/* EAGAIN only if the counter is saturated: it is readable anyway. */
	if (write(rd->event_fd, &one, sizeof(one)) < 0) {
		/* nothing to do */
	}
	if (rearm)
		__atomic_store_n(&rd->notify_pending, 1, __ATOMIC_RELEASE);
}

static void eventfd_clear(struct perfring_reader *rd)
{
	uint64_t v;

	if (read(rd->event_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: already clear */
	}
	/* Once closed, the epoll fd stays readable for the caller's own event
	 * loop; close sets the flag before it writes, so if our read took its
	 * write, we see the flag here and put it back. */
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		pr_rd_notify(rd, false);
}

void perfring_reader_flush(struct perfring_reader *rd)
{
	if (!rd)
		return;
	__atomic_add_fetch(&rd->flush_req, 1, __ATOMIC_RELEASE);
	pr_rd_notify(rd, true);
}

void perfring_reader_wakeup(struct perfring_reader *rd)
{
	if (!rd)
		return;
	__atomic_add_fetch(&rd->wake_req, 1, __ATOMIC_RELEASE);
	pr_rd_notify(rd, true);
}

void perfring_reader_set_deadline(struct perfring_reader *rd, uint64_t deadline_ns)
{
	if (!rd)
		return;
	__atomic_store_n(&rd->deadline_ns, deadline_ns, __ATOMIC_RELEASE);
	/* A blocked call recomputes its timeout. */
	pr_rd_notify(rd, true);
}

void pr_wait_init(struct pr_wait *w, int64_t timeout_ns)
{
	memset(w, 0, sizeof(*w));
	w->timeout_ns = timeout_ns;
}

static bool deadline_passed(struct perfring_reader *rd)
{
	uint64_t dl = __atomic_load_n(&rd->deadline_ns, __ATOMIC_ACQUIRE);

	return dl && pr_now_ns() >= dl;
}

/* Records were delivered: if the deadline has passed meanwhile, the next
 * call reports it. */
void pr_rd_note_deadline(struct perfring_reader *rd)
{
	if (__atomic_load_n(&rd->deadline_ns, __ATOMIC_RELAXED) && deadline_passed(rd))
		rd->deadline_report = true;
}

void pr_rd_flush_done(struct perfring_reader *rd, uint64_t snap)
{
	if (snap > rd->flush_done)
		rd->flush_done = snap;
}

/* What a poll/read/wait reports before anything else. */
int pr_rd_enter(struct perfring_reader *rd)
{
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		return -PERFRING_ECLOSED;
	/* One -PERFRING_EFLUSHED per flush, also when one drain served several. */
	if (rd->flush_reported < rd->flush_done) {
		rd->flush_reported++;
		return -PERFRING_EFLUSHED;
	}
	if (rd->deadline_report) {
		rd->deadline_report = false;
		if (deadline_passed(rd))
			return -ETIMEDOUT;
	}
	return 0;
}

/* Whether r's records are due now (see the top of this file); *pending is
 * set if it holds records that are not. */
static bool ring_due(const struct perfring_reader *rd, struct pr_rd_ring *r, bool *pending)
{
	/* Empty: what the kernel announced was consumed meanwhile. */
	if (!pr_rd_ring_has_data(r)) {
		r->owed = false;
		return false;
	}
	/* A ring buffer has no threshold of ours: the kernel (or the
	 * program's BPF_RB_* flags) decides its wakeups, as for libbpf. */
	if (r->owed || r->rb || rd->cfg.wakeup_events == 1)
		return true;
	*pending = true;
	return false;
}

static bool any_due(struct perfring_reader *rd, bool *pending)
{
	int i;

	*pending = false;
	/* Only the rings the kernel reported, a drain left, or no report
	 * announces (reader_owed.c). */
	if (pr_rd_by_report(rd))
		return pr_rd_owed_due(rd);
	for (i = 0; i < rd->ring_cnt; i++)
		if (ring_due(rd, rd->rings[i], pending))
			return true;
	return false;
}

uint64_t pr_rd_drain_begin(const struct perfring_reader *rd)
{
	return rd->cfg.max_delay_ns ? pr_now_ns() : 0;
}

void pr_rd_drained(struct perfring_reader *rd, uint64_t t)
{
	if (t)
		rd->quiet_ns = t;
}

/* epoll_pwait2() (nanoseconds), or epoll_wait() with the timeout rounded
 * up to a millisecond where the kernel lacks it. ns < 0: no timeout. */
static int epoll_wait_ns(int epfd, struct epoll_event *evs, int max, int64_t ns)
{
	int n, ms;

	if (!__atomic_load_n(&pr_rd_no_epoll_pwait2, __ATOMIC_RELAXED)) {
		struct timespec ts, *tp = NULL;

		if (ns >= 0) {
			ts.tv_sec = (time_t)(ns / 1000000000);
			ts.tv_nsec = (long)(ns % 1000000000);
			tp = &ts;
		}
		n = (int)syscall(__NR_epoll_pwait2, epfd, evs, max, tp, NULL, (size_t)8);
		if (n >= 0)
			return n;
		/* seccomp filters may answer EPERM for a syscall they do not know */
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		__atomic_store_n(&pr_rd_no_epoll_pwait2, 1, __ATOMIC_RELAXED);
	}
	if (ns < 0)
		ms = -1;
	else if (ns > (int64_t)INT_MAX * 1000000)
		ms = INT_MAX;
	else
		ms = (int)((ns + 999999) / 1000000);
	n = epoll_wait(epfd, evs, max, ms);
	return n < 0 ? -errno : n;
}

static int sleep_once(struct perfring_reader *rd, int64_t ns)
{
	/* Level-triggered: reports beyond these are read by the next call. */
	struct epoll_event evs[32];
	int n, i;

	n = epoll_wait_ns(rd->epoll_fd, evs, (int)(sizeof(evs) / sizeof(evs[0])), ns);
	if (n == -EINTR)
		return -EINTR;
	if (n < 0)
		return pr_fail(-n, "epoll_wait on the reader's epoll fd failed: %s", strerror(-n));
	for (i = 0; i < n; i++) {
		uint64_t tag = evs[i].data.u64;

		if (tag == PR_RD_EVENTFD_TAG) {
			if (!__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
				eventfd_clear(rd);
		} else if (tag == PR_RD_HOTPLUG_TAG) {
			pr_rd_hp_process(rd, false);
		} else if (tag < (uint64_t)rd->ring_cnt) {
			struct pr_rd_ring *r = rd->rings[tag];

			/* A kernel wakeup: the ring's threshold was reached. */
			if (evs[i].events & EPOLLIN)
				pr_rd_owe(rd, r);
			if (!(evs[i].events & (EPOLLHUP | EPOLLERR)))
				continue;
			/* Its data is still drained by the head checks. */
			pr_rd_owe(rd, r);
			pr_rd_watch(rd, r);
			if (!r->hup) {
				r->hup = true;
				epoll_ctl(rd->epoll_fd, EPOLL_CTL_DEL, r->fd, NULL);
			}
		}
	}
	return 0;
}

static int go_data(struct perfring_reader *rd)
{
	if (rd->arm_state != PR_ARM_OFF)
		pr_rd_arm_busy(rd);
	return PR_GO_DATA;
}

/*
 * Whether a ring buffer's consumer position moved since the wait last
 * looked, noting where each is now. A drain that delivered nothing may
 * still have moved it past DISCARD records to a BUSY one; the kernel's
 * commit of that record wakes us only if it saw the new position, so the
 * wait must look at the rings once more (after the fence of (S) in
 * barrier.h) before it sleeps, or that record could wait for the next.
 */
static bool rb_moved(struct perfring_reader *rd)
{
	bool moved = false;
	int i;

	for (i = 0; i < rd->watch_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[rd->watch[i]];

		if (r->rb && pr_rd_rb_moved(r))
			moved = true;
	}
	return moved;
}

int pr_rd_gate(struct perfring_reader *rd, struct pr_wait *w)
{
	pr_rd_hp_tick(rd);
	for (;;) {
		uint64_t now, dl, req, wake, target, due, od;
		bool pending, checked;
		int ret;

		/* By report, the owed list is complete only once the reports
		 * are read (reader_owed.c): read them, without sleeping, before
		 * the rings already owed go, so that one call delivers every
		 * ring announced (and before a call gives up without a sleep,
		 * at give_up). A call that sleeps reads them then. Before the
		 * flags: the read may take the eventfd's count. */
		if (!w->harvested && rd->owed_cnt && pr_rd_by_report(rd)) {
			w->harvested = true;
			ret = sleep_once(rd, 0);
			if (ret)
				return ret;
		}
		if (__atomic_load_n(&rd->notify_pending, __ATOMIC_RELAXED) &&
		    __atomic_exchange_n(&rd->notify_pending, 0, __ATOMIC_ACQ_REL))
			eventfd_clear(rd);
		if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
			return -PERFRING_ECLOSED;
		wake = __atomic_load_n(&rd->wake_req, __ATOMIC_ACQUIRE);
		if (wake != rd->wake_seen) {
			rd->wake_seen = wake;
			return -PERFRING_EWOKEN;
		}
		req = __atomic_load_n(&rd->flush_req, __ATOMIC_ACQUIRE);
		if (req != rd->flush_done) {
			w->flush_snap = req;
			return PR_GO_FLUSH;
		}
		pending = false;
		/* After a drain that found nothing, look again only if it
		 * moved a ring buffer's position: otherwise it would spin. */
		checked = !w->skip_data || rb_moved(rd);
		if (checked && any_due(rd, &pending))
			return go_data(rd);
		w->skip_data = false;

		/* Records held back by the time order: due at a time. */
		od = pr_rd_order_due(rd);
		if (od == 0)
			return go_data(rd);
		dl = __atomic_load_n(&rd->deadline_ns, __ATOMIC_ACQUIRE);
		if (w->timeout_ns == 0 && !dl && !(pending && rd->cfg.max_delay_ns) && od == UINT64_MAX)
			goto give_up;
		now = pr_now_ns();
		if (od != UINT64_MAX && (now >= od || (dl && now >= dl)))
			return go_data(rd);
		/* Records below the threshold: out when the deadline passes
		 * (delivered first, reported next), or max_delay after the
		 * last moment the rings were seen without them. */
		due = UINT64_MAX;
		if (pending && dl && now >= dl)
			return go_data(rd);
		if (rd->cfg.max_delay_ns) {
			if (checked && !pending)
				rd->quiet_ns = now;
			/* Pending: due max_delay after quiet_ns. Otherwise a
			 * record written from now on must be seen in time. */
			due = (pending ? rd->quiet_ns : now) + rd->cfg.max_delay_ns;
			if (pending && now >= due)
				return go_data(rd);
			/* Nothing waits: with arming events, maybe no bound. */
			if (rd->arm_state != PR_ARM_OFF) {
				if (pending)
					rd->arm_empty = 0;
				else
					due = pr_rd_arm_idle(rd, now, checked);
			}
		}
		if (w->timeout_ns == 0 && !dl)
			goto give_up;
		if (!w->end_set && w->timeout_ns >= 0) {
			w->end_ns = now + (uint64_t)w->timeout_ns;
			if (w->end_ns < now)
				w->end_ns = UINT64_MAX;
			w->end_set = true;
		}
		if ((dl && now >= dl) || (w->end_set && now >= w->end_ns))
			goto give_up;
		target = w->end_set ? w->end_ns : UINT64_MAX;
		if (dl && dl < target)
			target = dl;
		if (due < target)
			target = due;
		if (od < target)
			target = od;
		pr_rd_hp_arm(rd);
		w->harvested = true;
		ret = sleep_once(rd, target == UINT64_MAX ? -1 : target > now ? (int64_t)(target - now) : 0);
		if (ret)
			return ret;
		continue;
give_up:
		/* By report, the rings announced since the last read are not
		 * known yet: read the reports once, then look again. */
		if (w->harvested || !pr_rd_by_report(rd))
			return -ETIMEDOUT;
		w->harvested = true;
		ret = sleep_once(rd, 0);
		if (ret)
			return ret;
	}
}

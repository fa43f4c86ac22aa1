// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader: options, construction and free, accessors, and the control
 * calls that any thread may make (pause, resume, close). The top of the
 * set-up side with reader_bpf.c (which builds on it) and reader_ringbuf.c.
 *
 * Calls (downward only): reader_rings.c (adding rings), reader_bpf_map.c
 * (map slots for pause/resume/close), reader_order.c (init, free),
 * reader_hotplug.c (free), reader_wait.c (pr_rd_notify on close),
 * reader_ringbuf_drain.c (pending).
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

static bool is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

/* Bytes of the record that carries a payload of n bytes. */
static size_t record_bytes(bool bpf, size_t n)
{
	if (n > PR_RECORD_MAX)
		return SIZE_MAX;
	/* BPF: header, u32 raw size, payload padded so that 4 + size is a
	 * multiple of 8. Other events: header, body padded to 8. */
	return bpf ? 8 + ((4 + n + 7) & ~(size_t)7) : 8 + ((n + 7) & ~(size_t)7);
}

static int check_buffer(const struct perfring_reader_opts *opts, struct pr_rd_config *cfg)
{
	size_t pages = PR_OPT(opts, data_pages, 0);
	size_t bytes = PR_OPT(opts, data_bytes, 0);
	size_t page = perfring_page_size();

	if (pages && bytes)
		return pr_fail(EINVAL, "data_pages (%zu) and data_bytes (%zu) are both set: give one of them",
			       pages, bytes);
	if (pages) {
		if (!is_pow2(pages))
			return pr_fail(EINVAL, "data_pages = %zu is not a power of two (1, 2, 4, ... 64, 128, ...)",
				       pages);
		if (pages > (SIZE_MAX >> 1) / page)
			return pr_fail(EINVAL, "data_pages = %zu is too large", pages);
		bytes = pages * page;
	} else if (bytes) {
		if (bytes % page || !is_pow2(bytes / page)) {
			size_t lo = page, hi;

			while (lo <= bytes / 2)
				lo *= 2;
			hi = lo * 2;
			return pr_fail(EINVAL,
				       "data_bytes = %zu is not the page size (%zu) times a power of two; "
				       "use e.g. %zu or %zu",
				       bytes, page, lo, hi);
		}
	} else {
		bytes = PR_RD_DEFAULT_PAGES * page;
	}
	if (perfring_ring_mmap_len(bytes) < 0)
		return -EINVAL; /* the ring layer's message explains */
	cfg->data_bytes = bytes;
	return 0;
}

static int check_wakeup(const struct perfring_reader_opts *opts, struct pr_rd_config *cfg)
{
	uint32_t events = PR_OPT(opts, wakeup_events, 0);
	uint32_t bytes = PR_OPT(opts, wakeup_bytes, 0);

	if (events && bytes)
		return pr_fail(EINVAL,
			       "wakeup_events (%u) and wakeup_bytes (%u) are mutually exclusive: set one of them",
			       events, bytes);
	if (bytes && bytes >= cfg->data_bytes)
		return pr_fail(EINVAL,
			       "wakeup_bytes = %u must be smaller than the %zu-byte buffer, or the reader is "
			       "never woken; lower it or raise data_pages",
			       bytes, cfg->data_bytes);
	cfg->wakeup_events = bytes ? 0 : (events ? events : 1);
	cfg->wakeup_bytes = bytes;
	return 0;
}

static int check_max_sample(const struct perfring_reader_opts *opts, bool bpf, struct pr_rd_config *cfg)
{
	size_t n = PR_OPT(opts, max_sample_size, 0);
	size_t rec, need, page = perfring_page_size();
	size_t max_payload = bpf ? PR_RECORD_MAX - 12 : PR_RECORD_MAX - 8;

	cfg->max_sample_size = n;
	if (!n)
		return 0;
	rec = record_bytes(bpf, n);
	if (rec > PR_RECORD_MAX)
		return pr_fail(E2BIG,
			       "max_sample_size = %zu: a perf record is at most %u bytes, so a sample payload "
			       "is at most %zu bytes; no buffer size can hold it, send smaller samples",
			       n, PR_RECORD_MAX, max_payload);
	/* The kernel keeps one byte of a forward ring free (CIRC_SPACE), so a
	 * record as large as the whole data area never fits either. */
	if (rec >= cfg->data_bytes) {
		need = page;
		while (need <= rec)
			need *= 2;
		return pr_fail(E2BIG,
			       "max_sample_size = %zu makes a %zu-byte record, which can never fit the "
			       "%zu-byte buffer (the kernel would drop it every time); "
			       "use a buffer of at least %zu bytes (data_pages = %zu)",
			       n, rec, cfg->data_bytes, need, need / page);
	}
	return 0;
}

int pr_rd_parse_opts(const struct perfring_reader_opts *opts, bool bpf, struct pr_rd_config *cfg)
{
	int err;

	memset(cfg, 0, sizeof(*cfg));
	err = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_reader_opts");
	if (err)
		return err;
	err = check_buffer(opts, cfg);
	if (err)
		return err;
	err = check_wakeup(opts, cfg);
	if (err)
		return err;
	err = check_max_sample(opts, bpf, cfg);
	if (err)
		return err;
	cfg->max_delay_ns = PR_OPT(opts, max_delay_ns, 0);
	cfg->overwrite = PR_OPT(opts, overwrite, false);
	cfg->linearize = PR_OPT(opts, linearize, false);
	cfg->no_hotplug = PR_OPT(opts, no_hotplug, false);
	cfg->on_cpu = PR_OPT(opts, on_cpu, NULL);
	cfg->on_cpu_ctx = PR_OPT(opts, on_cpu_ctx, NULL);
	cfg->cpus = PR_OPT(opts, cpus, NULL);
	cfg->cpu_cnt = PR_OPT(opts, cpu_cnt, 0);
	if (cfg->cpus && !cfg->cpu_cnt)
		return pr_fail(EINVAL, "opts.cpus is set but opts.cpu_cnt is 0: list at least one CPU, "
				       "or leave cpus NULL for every online CPU");
	if (!cfg->cpus && cfg->cpu_cnt)
		return pr_fail(EINVAL, "opts.cpu_cnt is %zu but opts.cpus is NULL", cfg->cpu_cnt);
	return 0;
}

struct perfring_reader *pr_rd_alloc(const struct pr_rd_config *cfg)
{
	struct perfring_reader *rd;
	struct epoll_event ev;
	int err;

	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return pr_fail_null(ENOMEM, "perfring reader: out of memory");
	rd->cfg = *cfg;
	rd->cfg.cpus = NULL; /* the caller's array is not kept */
	rd->cfg.cpu_cnt = 0;
	rd->map_fd = -1;
	rd->event_fd = -1;
	rd->hp_fd = -1;
	pthread_mutex_init(&rd->lock, NULL);
	rd->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (rd->epoll_fd < 0) {
		err = errno;
		goto fail;
	}
	rd->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rd->event_fd < 0) {
		err = errno;
		goto fail;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = PR_RD_EVENTFD_TAG;
	if (epoll_ctl(rd->epoll_fd, EPOLL_CTL_ADD, rd->event_fd, &ev)) {
		err = errno;
		goto fail;
	}
	return rd;
fail:
	perfring_reader_free(rd);
	return pr_fail_null(err, "perfring reader: cannot create its epoll instance or eventfd: %s", strerror(err));
}

struct perfring_reader *perfring_reader_new(const struct perfring_reader_opts *opts)
{
	struct pr_rd_config cfg;
	int err;

	err = pr_rd_parse_opts(opts, false, &cfg);
	if (err) {
		errno = -err;
		return NULL;
	}
	struct perfring_reader *rd;

	if (cfg.cpus)
		return pr_fail_null(EINVAL, "opts.cpus applies to perfring_reader_new_bpf() only; label the rings "
					    "of perfring_reader_new() with perfring_reader_add(rd, fd, cpu)");
	rd = pr_rd_alloc(&cfg);
	if (rd) {
		err = pr_rd_order_init(rd, opts);
		if (err) {
			perfring_reader_free(rd);
			errno = -err;
			return NULL;
		}
	}
	return rd;
}

int perfring_reader_add(struct perfring_reader *rd, int fd, int cpu)
{
	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_add: reader is NULL");
	if (rd->is_bpf)
		return pr_fail(EINVAL, "perfring_reader_add: this reader reads a BPF perf event array; add caller "
				       "events to a reader made with perfring_reader_new()");
	if (fd < 0)
		return pr_fail(EBADF, "perfring_reader_add: fd %d is not a perf event fd", fd);
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE))
		return pr_fail(PERFRING_ECLOSED, "perfring_reader_add: the reader is closed");
	return pr_rd_add_ring(rd, fd, cpu, false);
}

void perfring_reader_free(struct perfring_reader *rd)
{
	int i;

	if (!rd)
		return;
	perfring_reader_close(rd);
	for (i = 0; i < rd->ring_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[i];

		perfring_ring_free(r->ring);
		perfring_ringbuf_free(r->rb);
		if (r->own_fd)
			close(r->fd);
		if (r->wfd >= 0)
			close(r->wfd);
		if (r->arm_fd >= 0)
			close(r->arm_fd);
		free(r);
	}
	free(rd->rings);
	free(rd->owed_list);
	free(rd->watch);
	free(rd->skipped);
	pr_rd_hp_free(rd);
	pr_rd_order_free(rd);
	if (rd->map_fd >= 0)
		close(rd->map_fd);
	if (rd->epoll_fd >= 0)
		close(rd->epoll_fd);
	if (rd->event_fd >= 0)
		close(rd->event_fd);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
}

/* Pause or resume the output of every caller-fd ring; rings held paused
 * by an overwrite drain are resumed by that drain when it ends. */
static int rings_set_output(struct perfring_reader *rd, bool on)
{
	int i, ret, first = 0;

	for (i = 0; i < rd->ring_cnt; i++) {
		struct pr_rd_ring *r = rd->rings[i];

		if (r->draining || r->rb)
			continue; /* a ring buffer cannot be paused from user space */
		ret = on ? perfring_ring_resume(r->ring) : perfring_ring_pause(r->ring);
		if (ret && !first)
			first = ret;
	}
	return first;
}

int perfring_reader_pause(struct perfring_reader *rd)
{
	int ret;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_pause: reader is NULL");
	pthread_mutex_lock(&rd->lock);
	/* After close the output is paused for good; pause says so as resume
	 * does, rather than claim a pause it did not make. */
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(PERFRING_ECLOSED, "perfring_reader_pause: the reader is closed");
	}
	ret = rd->is_bpf ? pr_rd_bpf_set_output(rd, false, false) : rings_set_output(rd, false);
	if (!ret)
		rd->paused = true;
	pthread_mutex_unlock(&rd->lock);
	return ret;
}

int perfring_reader_resume(struct perfring_reader *rd)
{
	int ret;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_resume: reader is NULL");
	pthread_mutex_lock(&rd->lock);
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(PERFRING_ECLOSED, "perfring_reader_resume: the reader is closed");
	}
	ret = rd->is_bpf ? pr_rd_bpf_set_output(rd, true, false) : rings_set_output(rd, true);
	if (!ret) {
		int i;

		rd->paused = false;
		for (i = 0; i < rd->ring_cnt; i++)
			rd->rings[i]->paused = false;
	}
	pthread_mutex_unlock(&rd->lock);
	return ret;
}

/* One ring: the BPF reader's map slot of its CPU, or the event's output. */
static int ring_set_output(struct perfring_reader *rd, int idx, bool on, const char *fn)
{
	struct pr_rd_ring *r;
	int ret = 0;

	if (!rd)
		return pr_fail(EINVAL, "%s: reader is NULL", fn);
	pthread_mutex_lock(&rd->lock);
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(PERFRING_ECLOSED, "%s: the reader is closed", fn);
	}
	if (idx < 0 || idx >= rd->ring_cnt) {
		pthread_mutex_unlock(&rd->lock);
		return pr_fail(EINVAL, "%s: ring index %d is out of range (the reader has %d rings)", fn, idx,
			       rd->ring_cnt);
	}
	r = rd->rings[idx];
	if (r->rb)
		ret = pr_fail(EOPNOTSUPP, "%s: ring %d is a BPF ring buffer, which cannot be paused from user "
				  "space (the program writes to it directly)", fn, idx);
	else if (rd->is_bpf)
		ret = pr_rd_bpf_set_ring_output(rd, r, on, false);
	else if (!r->draining) /* a drain holds it paused and resumes it after */
		ret = on ? perfring_ring_resume(r->ring) : perfring_ring_pause(r->ring);
	if (!ret)
		r->paused = !on;
	pthread_mutex_unlock(&rd->lock);
	return ret;
}

int perfring_reader_pause_ring(struct perfring_reader *rd, int idx)
{
	return ring_set_output(rd, idx, false, "perfring_reader_pause_ring");
}

int perfring_reader_resume_ring(struct perfring_reader *rd, int idx)
{
	return ring_set_output(rd, idx, true, "perfring_reader_resume_ring");
}

int perfring_reader_pending(const struct perfring_reader *rd)
{
	int i, cnt, n = 0;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_pending: reader is NULL");
	cnt = __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
	for (i = 0; i < cnt; i++)
		if (rd->rings[i]->rb ? pr_rd_rb_has_data(rd->rings[i]) :
				       perfring_ring_bytes_available(rd->rings[i]->ring) != 0)
			n++;
	return n;
}

void perfring_reader_close(struct perfring_reader *rd)
{
	if (!rd)
		return;
	pthread_mutex_lock(&rd->lock);
	if (__atomic_load_n(&rd->closed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&rd->lock);
		return;
	}
	/* Quiet: close cannot fail, and must not overwrite the message of
	 * the failure that may have led to it. */
	if (rd->is_bpf)
		pr_rd_bpf_set_output(rd, false, true);
	else
		rings_set_output(rd, false);
	__atomic_store_n(&rd->closed, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rd->lock);
	/* Not re-armed: the epoll fd stays readable once closed. */
	pr_rd_notify(rd, false);
}

/* The ring at idx, or NULL with perfring_errmsg() naming fn and what was
 * wrong (the caller returns -EINVAL: same misuse, same error everywhere). */
static struct pr_rd_ring *ring_at(const struct perfring_reader *rd, int idx, const char *fn)
{
	int cnt;

	if (!rd) {
		pr_fail(EINVAL, "%s: reader is NULL", fn);
		return NULL;
	}
	cnt = __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
	if (idx < 0 || idx >= cnt) {
		pr_fail(EINVAL, "%s: ring index %d is out of range (the reader has %d rings)", fn, idx, cnt);
		return NULL;
	}
	return rd->rings[idx];
}

int perfring_reader_epoll_fd(const struct perfring_reader *rd)
{
	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_epoll_fd: reader is NULL");
	/* Another poller of it may take the kernel's reports: from now on
	 * the waits look at every ring (reader_owed.c). The reader is never
	 * defined const; the flag is the only field an accessor writes. */
	__atomic_store_n(&((struct perfring_reader *)rd)->epoll_shared, 1, __ATOMIC_RELAXED);
	return rd->epoll_fd;
}

int perfring_reader_ring_cnt(const struct perfring_reader *rd)
{
	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_ring_cnt: reader is NULL");
	return __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
}

int perfring_reader_ring_fd(const struct perfring_reader *rd, int idx)
{
	struct pr_rd_ring *r = ring_at(rd, idx, "perfring_reader_ring_fd");

	return r ? r->fd : -EINVAL;
}

int perfring_reader_ring_cpu(const struct perfring_reader *rd, int idx)
{
	struct pr_rd_ring *r = ring_at(rd, idx, "perfring_reader_ring_cpu");

	return r ? r->cpu : -EINVAL;
}

struct perfring_ring *perfring_reader_ring(const struct perfring_reader *rd, int idx)
{
	struct pr_rd_ring *r = ring_at(rd, idx, "perfring_reader_ring");

	if (!r) {
		errno = EINVAL;
		return NULL;
	}
	if (r->rb)
		return pr_fail_null(ENOTTY, "perfring_reader_ring: ring %d is a BPF ring buffer: see "
				    "perfring_reader_ringbuf()", idx);
	return r->ring;
}

int perfring_reader_cpu_ring(const struct perfring_reader *rd, int cpu)
{
	int i, cnt;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_cpu_ring: reader is NULL");
	cnt = __atomic_load_n(&rd->ring_cnt, __ATOMIC_ACQUIRE);
	for (i = 0; i < cnt; i++)
		if (rd->rings[i]->cpu == cpu)
			return i;
	return pr_fail(ENOENT, "perfring_reader_cpu_ring: no ring of the reader serves CPU %d", cpu);
}

int perfring_reader_stats(const struct perfring_reader *rd, int idx, struct perfring_ring_stats *stats)
{
	struct pr_rd_ring *r = ring_at(rd, idx, "perfring_reader_stats");

	if (!r)
		return -EINVAL;
	if (!stats)
		return pr_fail(EINVAL, "perfring_reader_stats: stats is NULL");
	if (r->rb)
		return perfring_ringbuf_stats(r->rb, stats);
	return perfring_ring_stats(r->ring, stats);
}

size_t perfring_reader_data_size(const struct perfring_reader *rd)
{
	return rd ? rd->cfg.data_bytes : 0;
}

int perfring_reader_skipped_cpus(const struct perfring_reader *rd, int *cpus, size_t cnt)
{
	size_t i;

	if (!rd)
		return pr_fail(EINVAL, "perfring_reader_skipped_cpus: reader is NULL");
	for (i = 0; cpus && i < cnt && i < (size_t)rd->skipped_cnt; i++)
		cpus[i] = rd->skipped[i];
	return rd->skipped_cnt;
}

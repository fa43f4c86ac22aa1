/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared helpers of the live record-decoder tests (tests/kernel/record_*.c):
 * open real perf events (software events and tracepoints), read their rings
 * through perfring's ring layer, decode every record with
 * perfring_record_parse() and check it against what the test knows.
 *
 *   struct rt_recs recs = {0};
 *   rt_drain_copy(ring, &recs);            // copies of whole records
 *   for (i = 0; i < recs.n; i++)
 *           rt_decode(&cfg, rt_rec(&recs, i), rt_rec_size(&recs, i), &d, &err);
 *
 * rt_decode() also checks what every record must satisfy whatever its
 * type: the header fields are echoed, encode(decode(bytes)) == bytes, and
 * perfring_record_sample_id() agrees with the full decode. Failures are
 * collected in a struct rt_err (first messages kept), not asserted, so
 * that a test reports one line per kind of problem instead of thousands.
 */
#ifndef PERFRING_RECTEST_H
#define PERFRING_RECTEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include <perfring/reader.h>
#include <perfring/record.h>
#include <perfring/ring.h>

#include "harness.h"

/* Context markers of call chains (uapi enum perf_callchain_context). */
#define RT_CONTEXT_KERNEL ((uint64_t)-128)
#define RT_CONTEXT_USER ((uint64_t)-512)

/* Kernel addresses on x86_64 live in the upper half. */
#define RT_KERNEL_ADDR_MIN 0xffff800000000000ull

/* ---- time ---------------------------------------------------------------- */

static inline uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void rt_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline uint64_t rt_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Burn CPU in user mode for ns of wall time. It lives in its own section so
 * that the tests know its exact address range (rt_in_spin()), and keeps a
 * frame pointer so that the kernel's user unwinder finds its caller. The
 * canary sits in its frame while it spins: a user stack dump taken then
 * must contain it at the address it has here.
 */
#define RT_CANARY0 0x7065726672696e67ull /* "perfring" */
#define RT_CANARY1 0x0123456789abcdefull

extern const char __start_rt_spin_text[], __stop_rt_spin_text[];
static volatile uintptr_t rt_canary_addr;

/* gcc keeps its frame pointer by attribute; clang has no such attribute, and the clang
 * builds (sanitizers) compile with -fno-omit-frame-pointer anyway. */
#ifdef __clang__
#define RT_FRAME_POINTER
#else
#define RT_FRAME_POINTER , optimize("no-omit-frame-pointer")
#endif
__attribute__((noinline, used, section("rt_spin_text") RT_FRAME_POINTER))
static uint64_t rt_spin_ns(uint64_t ns)
{
	volatile uint64_t canary[2] = { RT_CANARY0, RT_CANARY1 };
	volatile uint64_t acc = 0;
	uint64_t end = rt_now_ns() + ns;
	unsigned i;

	rt_canary_addr = (uintptr_t)&canary[0];
	do {
		for (i = 0; i < 20000; i++)
			acc += i ^ canary[i & 1];
	} while (rt_now_ns() < end);
	return acc;
}

static inline bool rt_in_spin(uint64_t ip)
{
	return ip >= (uintptr_t)__start_rt_spin_text && ip < (uintptr_t)__stop_rt_spin_text;
}

/* ---- perf events --------------------------------------------------------- */

static inline int rt_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* A zeroed attr of this uapi's size, times on CLOCK_MONOTONIC (comparable
 * with rt_now_ns()). */
static inline void rt_attr_init(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static inline uint64_t rt_event_id(int fd)
{
	uint64_t id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return 0;
	return id;
}

static inline int rt_ncpus_conf(void)
{
	return (int)sysconf(_SC_NPROCESSORS_CONF);
}

static inline int rt_pin_self(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -errno : 0;
}

/* ---- errors, collected ----------------------------------------------------- */

#define RT_ERR_KEEP 4

struct rt_err {
	int n;
	char msg[RT_ERR_KEEP][320];
};

__attribute__((format(printf, 2, 3))) static inline void rt_errf(struct rt_err *e, const char *fmt, ...)
{
	va_list ap;

	if (e->n < RT_ERR_KEEP) {
		va_start(ap, fmt);
		vsnprintf(e->msg[e->n], sizeof(e->msg[0]), fmt, ap);
		va_end(ap);
	}
	e->n++;
}

/* Assert that nothing was collected, printing the first messages. */
#define RT_CHECK_NO_ERR(e, what)                                                                      \
	do {                                                                                          \
		CHECKF((e)->n == 0, "%s: %d problems; first: %s%s%s%s%s%s%s", what, (e)->n, (e)->msg[0], \
		       (e)->n > 1 ? " | " : "", (e)->n > 1 ? (e)->msg[1] : "", (e)->n > 2 ? " | " : "",  \
		       (e)->n > 2 ? (e)->msg[2] : "", (e)->n > 3 ? " | " : "", (e)->n > 3 ? (e)->msg[3] : ""); \
	} while (0)

/* ---- records copied out of a ring ----------------------------------------- */

struct rt_recs {
	uint8_t *buf;
	size_t len, cap;
	size_t *off;     /* start of record i in buf */
	size_t n, ncap;
	uint64_t straddled; /* records that crossed the end of the ring */
	uint64_t lost;      /* sum of LOST counts (as the ring layer saw them) */
	bool oom;
};

static inline const void *rt_rec(const struct rt_recs *r, size_t i)
{
	return r->buf + r->off[i];
}

static inline size_t rt_rec_size(const struct rt_recs *r, size_t i)
{
	uint16_t size;

	memcpy(&size, r->buf + r->off[i] + 6, 2);
	return size;
}

static inline uint32_t rt_rec_type(const struct rt_recs *r, size_t i)
{
	uint32_t type;

	memcpy(&type, r->buf + r->off[i], 4);
	return type;
}

static inline int rt_recs_add(struct rt_recs *r, const void *rec, size_t size)
{
	if (r->len + size > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1 << 20;
		uint8_t *p;

		while (cap < r->len + size)
			cap *= 2;
		p = realloc(r->buf, cap);
		if (!p) {
			r->oom = true;
			return -ENOMEM;
		}
		r->buf = p;
		r->cap = cap;
	}
	if (r->n == r->ncap) {
		size_t ncap = r->ncap ? r->ncap * 2 : 4096;
		size_t *p = realloc(r->off, ncap * sizeof(*p));

		if (!p) {
			r->oom = true;
			return -ENOMEM;
		}
		r->off = p;
		r->ncap = ncap;
	}
	memcpy(r->buf + r->len, rec, size);
	r->off[r->n++] = r->len;
	r->len += size;
	return 0;
}

static inline void rt_recs_free(struct rt_recs *r)
{
	free(r->buf);
	free(r->off);
	memset(r, 0, sizeof(*r));
}

/*
 * Drain everything the ring holds now into r, records made contiguous with
 * perfring_ring_linear(). Returns the number of records or a negative error.
 */
static inline int rt_drain_copy(struct perfring_ring *ring, struct rt_recs *r)
{
	struct perfring_ring_record rec;
	int64_t avail = perfring_ring_begin(ring);
	int n = 0, ret;

	if (avail < 0)
		return (int)avail;
	while ((ret = perfring_ring_next(ring, &rec)) == 1) {
		const void *lin = perfring_ring_linear(ring, &rec);
		uint64_t lost;

		if (!lin)
			return -ENOMEM;
		if (rec.len2)
			r->straddled++;
		if (rec.type == PERF_RECORD_LOST && rec.size >= 24) {
			memcpy(&lost, (const uint8_t *)lin + 16, 8);
			r->lost += lost;
		}
		if (rt_recs_add(r, lin, rec.size))
			return -ENOMEM;
		n++;
	}
	perfring_ring_commit(ring);
	return ret < 0 ? ret : n;
}

/* A perf event's ring (data_pages data pages), or NULL with the reason in e. */
static inline struct perfring_ring *rt_ring(int fd, size_t data_pages, struct rt_err *e)
{
	struct perfring_ring_opts o = PERFRING_OPTS_INIT(perfring_ring_opts, .data_pages = data_pages);
	struct perfring_ring *ring = perfring_ring_new(fd, &o);

	if (!ring)
		rt_errf(e, "perfring_ring_new(%zu pages): %s: %s", data_pages, strerror(errno), perfring_errmsg());
	return ring;
}

/*
 * Spin until this thread has had cpu_ns of CPU time (what per-task clock
 * events count, however loaded the machine is; at most 4 x cpu_ns + 1 s of
 * wall time), in slices of slice_ns, draining the ring after each.
 */
static inline int rt_spin_and_drain(struct perfring_ring *ring, struct rt_recs *r, uint64_t cpu_ns,
				    uint64_t slice_ns)
{
	uint64_t start = rt_thread_cpu_ns(), give_up = rt_now_ns() + 4 * cpu_ns + 1000000000ull;
	int ret;

	do {
		rt_spin_ns(slice_ns);
		ret = rt_drain_copy(ring, r);
		if (ret < 0)
			return ret;
	} while (rt_thread_cpu_ns() - start < cpu_ns && rt_now_ns() < give_up);
	return 0;
}

/* ---- one event per online CPU (inherited events cannot map a per-task ring) -- */

#define RT_MAX_CPUS 64

struct rt_percpu {
	int n;
	int cpu[RT_MAX_CPUS];
	int fd[RT_MAX_CPUS];
	uint64_t id[RT_MAX_CPUS];
	struct perfring_ring *ring[RT_MAX_CPUS];
	struct rt_recs recs[RT_MAX_CPUS];
};

static inline void rt_percpu_close(struct rt_percpu *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		perfring_ring_free(p->ring[i]);
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		rt_recs_free(&p->recs[i]);
	}
	p->n = 0;
}

/* attr on (pid, each online CPU), each with its own ring. 0, or -1 with e set. */
static inline int rt_percpu_open(struct rt_percpu *p, struct perf_event_attr *attr, int pid, size_t data_pages,
				 struct rt_err *e)
{
	int cpus[RT_MAX_CPUS], n = perfring_online_cpus(cpus, RT_MAX_CPUS), i;

	memset(p, 0, sizeof(*p));
	if (n <= 0 || n > RT_MAX_CPUS) {
		rt_errf(e, "perfring_online_cpus: %d %s", n, perfring_errmsg());
		return -1;
	}
	for (i = 0; i < n; i++) {
		p->cpu[i] = cpus[i];
		p->fd[i] = rt_perf_open(attr, pid, cpus[i], -1);
		p->n = i + 1;
		if (p->fd[i] < 0) {
			rt_errf(e, "perf_event_open(pid %d, cpu %d): %s", pid, cpus[i], strerror(-p->fd[i]));
			rt_percpu_close(p);
			return -1;
		}
		p->id[i] = rt_event_id(p->fd[i]);
		p->ring[i] = rt_ring(p->fd[i], data_pages, e);
		if (!p->ring[i]) {
			rt_percpu_close(p);
			return -1;
		}
	}
	return 0;
}

static inline int rt_percpu_ioctl(struct rt_percpu *p, unsigned long req)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (ioctl(p->fd[i], req, 0))
			return -errno;
	return 0;
}

static inline int rt_percpu_drain(struct rt_percpu *p)
{
	int i, ret;

	for (i = 0; i < p->n; i++) {
		ret = rt_drain_copy(p->ring[i], &p->recs[i]);
		if (ret < 0)
			return ret;
		if (p->recs[i].oom)
			return -ENOMEM;
	}
	return 0;
}

/* ---- decoding, with the checks every record must pass --------------------- */

static inline uint64_t rt_align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

static inline bool rt_sample_id_equal(const struct perfring_sample_id *a, const struct perfring_sample_id *b)
{
	return a->present == b->present && a->pid == b->pid && a->tid == b->tid && a->time == b->time &&
	       a->id == b->id && a->stream_id == b->stream_id && a->cpu == b->cpu && a->cpu_res == b->cpu_res &&
	       a->identifier == b->identifier;
}

/*
 * Decode one record. Besides perfring_record_parse() returning 0, checks:
 * type/misc/size/raw echo the header; perfring_record_encode() gives the
 * same bytes back; perfring_record_sample_id() agrees with the decode (the
 * SAMPLE's own fields, or the trailer). Returns 0 if it decoded (even if a
 * cross-check failed: that is recorded in e), -1 if it did not.
 */
static inline int rt_decode(const struct perfring_parse_config *cfg, const void *rec, size_t size,
			    struct perfring_decoded *d, struct rt_err *e)
{
	static uint8_t enc[65536];
	struct perfring_sample_id sid;
	uint32_t type;
	uint16_t misc;
	int ret;

	memcpy(&type, rec, 4);
	memcpy(&misc, (const uint8_t *)rec + 4, 2);
	memset(d, 0xa5, sizeof(*d)); /* no field may be left as it was */
	ret = perfring_record_parse(cfg, rec, size, d);
	if (ret) {
		rt_errf(e, "%s (type %u, misc %#x, size %zu): parse %d (%s), field %s at offset %zu: %s",
			perfring_record_type_name(type) ?: "?", type, misc, size, ret, perfring_strerror(ret),
			d->error_field ?: "(none)", d->error_offset, perfring_errmsg());
		return -1;
	}
	if (d->type != type || d->misc != misc || d->size != size || d->raw != rec || d->raw_len != size ||
	    d->kind != PERFRING_REC_KERNEL || d->error_field)
		rt_errf(e, "%s size %zu: header echoed as type %u misc %#x size %u raw %s len %zu kind %d error %s",
			perfring_record_type_name(type) ?: "?", size, d->type, d->misc, d->size,
			d->raw == rec ? "ok" : "moved", d->raw_len, (int)d->kind, d->error_field ?: "none");

	ret = perfring_record_encode(cfg, d, enc, sizeof(enc));
	if (ret != (int)size)
		rt_errf(e, "%s size %zu: encode returned %d (%s)", perfring_record_type_name(type) ?: "?", size, ret,
			perfring_errmsg());
	else if (memcmp(enc, rec, size)) {
		size_t i = 0;

		while (i < size && enc[i] == ((const uint8_t *)rec)[i])
			i++;
		rt_errf(e, "%s size %zu: encode(decode(bytes)) differs first at byte %zu (%#x, kernel wrote %#x)",
			perfring_record_type_name(type) ?: "?", size, i, enc[i], ((const uint8_t *)rec)[i]);
	}

	memset(&sid, 0, sizeof(sid));
	ret = perfring_record_sample_id(cfg, rec, size, &sid);
	if (ret) {
		rt_errf(e, "%s size %zu: perfring_record_sample_id %d: %s", perfring_record_type_name(type) ?: "?",
			size, ret, perfring_errmsg());
	} else if (type == PERF_RECORD_SAMPLE) {
		const struct perfring_sample *s = &d->u.sample;
		uint64_t st = cfg->sample_type;

		if (((st & PERF_SAMPLE_TID) && (sid.pid != s->pid || sid.tid != s->tid)) ||
		    ((st & PERF_SAMPLE_TIME) && sid.time != s->time) || ((st & PERF_SAMPLE_ID) && sid.id != s->id) ||
		    ((st & PERF_SAMPLE_CPU) && sid.cpu != s->cpu) ||
		    ((st & PERF_SAMPLE_IDENTIFIER) && sid.identifier != s->identifier))
			rt_errf(e, "SAMPLE: perfring_record_sample_id gives pid %u tid %u time %llu cpu %u, "
				"the decode pid %u tid %u time %llu cpu %u", sid.pid, sid.tid,
				(unsigned long long)sid.time, sid.cpu, s->pid, s->tid, (unsigned long long)s->time,
				s->cpu);
	} else if (cfg->sample_id_all && !rt_sample_id_equal(&sid, &d->sample_id)) {
		rt_errf(e, "%s: perfring_record_sample_id gives present %#llx pid %u tid %u time %llu, the decode's "
			"trailer present %#llx pid %u tid %u time %llu", perfring_record_type_name(type) ?: "?",
			(unsigned long long)sid.present, sid.pid, sid.tid, (unsigned long long)sid.time,
			(unsigned long long)d->sample_id.present, d->sample_id.pid, d->sample_id.tid,
			(unsigned long long)d->sample_id.time);
	}
	return 0;
}

/*
 * Check the sample_id trailer of a non-SAMPLE record against what the test
 * expects: present == the sample_id bits of sample_type, pid/tid as given
 * (pid < 0: not checked), time within [t_min, t_max].
 */
#define RT_SAMPLE_ID_BITS                                                                              \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_IDENTIFIER)

static inline void rt_check_trailer(const struct perfring_parse_config *cfg, const struct perfring_decoded *d,
				    int pid, int tid, uint64_t t_min, uint64_t t_max, struct rt_err *e)
{
	const struct perfring_sample_id *s = &d->sample_id;
	const char *name = perfring_record_type_name(d->type) ?: "?";

	if (s->present != (cfg->sample_type & RT_SAMPLE_ID_BITS))
		rt_errf(e, "%s: trailer present %#llx, sample_type's id bits %#llx", name,
			(unsigned long long)s->present, (unsigned long long)(cfg->sample_type & RT_SAMPLE_ID_BITS));
	if ((cfg->sample_type & PERF_SAMPLE_TID) && pid >= 0 && (s->pid != (uint32_t)pid || s->tid != (uint32_t)tid))
		rt_errf(e, "%s: trailer pid/tid %u/%u, expected %d/%d", name, s->pid, s->tid, pid, tid);
	if ((cfg->sample_type & PERF_SAMPLE_TIME) && (s->time < t_min || s->time > t_max))
		rt_errf(e, "%s: trailer time %llu outside [%llu, %llu]", name, (unsigned long long)s->time,
			(unsigned long long)t_min, (unsigned long long)t_max);
	if ((cfg->sample_type & PERF_SAMPLE_CPU) && (s->cpu >= (uint32_t)rt_ncpus_conf() || s->cpu_res))
		rt_errf(e, "%s: trailer cpu %u res %u", name, s->cpu, s->cpu_res);
}

/* ---- /proc/self/maps -------------------------------------------------------- */

struct rt_mapping {
	uint64_t start, end, pgoff;
	char perms[5];
	char path[256];
};

struct rt_maps {
	struct rt_mapping m[2048];
	int n;
	char exe[PATH_MAX]; /* realpath of /proc/self/exe */
};

static inline int rt_maps_load(struct rt_maps *maps)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	ssize_t n;

	maps->n = 0;
	if (!f)
		return -errno;
	while (maps->n < (int)(sizeof(maps->m) / sizeof(maps->m[0])) && fgets(line, sizeof(line), f)) {
		struct rt_mapping *m = &maps->m[maps->n];
		unsigned long long s, en, off;
		char perms[8], path[256] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &s, &en, perms, &off, path) < 4)
			continue;
		m->start = s;
		m->end = en;
		m->pgoff = off;
		snprintf(m->perms, sizeof(m->perms), "%.4s", perms);
		snprintf(m->path, sizeof(m->path), "%s", path);
		maps->n++;
	}
	fclose(f);
	n = readlink("/proc/self/exe", maps->exe, sizeof(maps->exe) - 1);
	maps->exe[n > 0 ? n : 0] = '\0';
	return 0;
}

static inline const struct rt_mapping *rt_maps_find(const struct rt_maps *maps, uint64_t addr)
{
	int i;

	for (i = 0; i < maps->n; i++)
		if (addr >= maps->m[i].start && addr < maps->m[i].end)
			return &maps->m[i];
	return NULL;
}

/* addr is in an executable mapping of the test binary itself. */
static inline bool rt_in_exe_text(const struct rt_maps *maps, uint64_t addr)
{
	const struct rt_mapping *m = rt_maps_find(maps, addr);

	return m && m->perms[2] == 'x' && !strcmp(m->path, maps->exe);
}

/* addr is in any executable mapping (the binary, libc, ld.so, the vdso, ...). */
static inline bool rt_in_any_text(const struct rt_maps *maps, uint64_t addr)
{
	const struct rt_mapping *m = rt_maps_find(maps, addr);

	return m && m->perms[2] == 'x';
}

static inline const struct rt_mapping *rt_maps_named(const struct rt_maps *maps, const char *path)
{
	int i;

	for (i = 0; i < maps->n; i++)
		if (!strcmp(maps->m[i].path, path))
			return &maps->m[i];
	return NULL;
}

#endif /* PERFRING_RECTEST_H */

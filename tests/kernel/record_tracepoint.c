// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of tracepoint samples (PERF_TYPE_TRACEPOINT, sample_type
 * RAW | TID | TIME): the RAW bytes are read with the tracepoint's own
 * format file (the "field:" lines give offset and size), no libtraceevent.
 *  - syscalls/sys_enter_openat: the test makes N openat() calls with
 *    known arguments; exactly N samples, each with common_pid == our tid,
 *    __syscall_nr == __NR_openat and the very dfd, filename pointer, flags
 *    and mode passed;
 *  - sched/sched_switch on this task: each sleep gives a sample whose
 *    prev_pid is us, prev_comm our comm, prev_state "S", next_pid another.
 * The RAW size is the event's record size padded so that 4 + size is a
 * multiple of 8.
 */
#include <sys/mount.h>
#include <sys/prctl.h>

#include "rectest.h"

#define TRACEFS "/sys/kernel/tracing"

struct tp_field {
	char name[64];
	unsigned offset, size;
};

struct tp_format {
	uint64_t id;
	struct tp_field f[32];
	int n;
	unsigned end; /* the largest offset + size */
};

/* Mount tracefs if it is not there yet. 0, or -errno. */
static int ensure_tracefs(void)
{
	if (access(TRACEFS "/events", F_OK) == 0)
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		return -errno;
	return access(TRACEFS "/events", F_OK) ? -errno : 0;
}

static int read_format(const char *event, struct tp_format *fmt, char *why, size_t whylen)
{
	char path[256], line[512];
	FILE *f;

	memset(fmt, 0, sizeof(*fmt));
	snprintf(path, sizeof(path), TRACEFS "/events/%s/format", event);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long id;
		char *field = strstr(line, "field:"), *semi, *name;
		unsigned off, size;

		if (sscanf(line, "ID: %llu", &id) == 1) {
			fmt->id = id;
			continue;
		}
		if (!field || fmt->n == (int)(sizeof(fmt->f) / sizeof(fmt->f[0])))
			continue;
		/* "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:X;" */
		semi = strchr(field, ';');
		if (!semi || sscanf(semi, "; offset:%u; size:%u;", &off, &size) != 2)
			continue;
		*semi = '\0';
		name = strrchr(field, ' ');
		name = name ? name + 1 : field + 6;
		if (strchr(name, '['))
			*strchr(name, '[') = '\0';
		snprintf(fmt->f[fmt->n].name, sizeof(fmt->f[0].name), "%s", name);
		fmt->f[fmt->n].offset = off;
		fmt->f[fmt->n].size = size;
		if (off + size > fmt->end)
			fmt->end = off + size;
		fmt->n++;
	}
	fclose(f);
	if (!fmt->id || fmt->n < 5) {
		snprintf(why, whylen, "%s: id %llu, %d fields", path, (unsigned long long)fmt->id, fmt->n);
		return -1;
	}
	return 0;
}

static const struct tp_field *field_of(const struct tp_format *fmt, const char *name)
{
	int i;

	for (i = 0; i < fmt->n; i++)
		if (!strcmp(fmt->f[i].name, name))
			return &fmt->f[i];
	return NULL;
}

/* An integer field of 1, 2, 4 or 8 bytes, zero-extended; ~0 if absent. */
static uint64_t field_u(const struct tp_format *fmt, const struct perfring_bytes *raw, const char *name)
{
	const struct tp_field *f = field_of(fmt, name);
	uint64_t v = 0;

	if (!f || f->offset + f->size > raw->len || f->size > 8)
		return ~0ull;
	memcpy(&v, (const uint8_t *)raw->data + f->offset, f->size); /* little endian */
	return v;
}

static const char *field_str(const struct tp_format *fmt, const struct perfring_bytes *raw, const char *name,
			     char *buf, size_t len)
{
	const struct tp_field *f = field_of(fmt, name);

	if (!f || f->offset + f->size > raw->len)
		return "";
	snprintf(buf, len, "%.*s", (int)f->size, (const char *)raw->data + f->offset);
	return buf;
}

/* Distinct openat() flags per call, so that each sample is matched to its call. */
static int flags_of(int i)
{
	return O_RDONLY | O_CLOEXEC | (i & 1 ? O_NONBLOCK : 0);
}

static int open_tracepoint(struct perf_event_attr *attr, uint64_t id)
{
	rt_attr_init(attr, PERF_TYPE_TRACEPOINT, id);
	attr->sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_period = 1;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	return rt_perf_open(attr, 0, -1, -1);
}

/* Common checks of a tracepoint SAMPLE; returns the RAW view or NULL. */
static const struct perfring_bytes *check_tp_sample(const struct perfring_decoded *d, const struct tp_format *fmt,
						    uint64_t t0, uint64_t t1, struct rt_err *e)
{
	const struct perfring_sample *s = &d->u.sample;
	uint64_t want_raw = rt_align8(fmt->end + 4) - 4;

	if (d->type != PERF_RECORD_SAMPLE) {
		rt_errf(e, "unexpected %s", perfring_record_type_name(d->type) ?: "?");
		return NULL;
	}
	if (s->pid != (uint32_t)getpid() || s->tid != (uint32_t)gettid())
		rt_errf(e, "sample pid/tid %u/%u", s->pid, s->tid);
	if (s->time < t0 || s->time > t1)
		rt_errf(e, "sample time %llu outside [%llu, %llu]", (unsigned long long)s->time,
			(unsigned long long)t0, (unsigned long long)t1);
	/* header, tid, time, then u32 size and the bytes */
	if (s->raw.len != want_raw || d->size != 8 + 8 + 8 + 4 + want_raw ||
	    (const uint8_t *)s->raw.data != (const uint8_t *)d->raw + 28) {
		rt_errf(e,
			"RAW of %llu bytes at offset %td in a %u-byte record; the format's %u bytes pad to "
			"%llu",
			(unsigned long long)s->raw.len,
			(const uint8_t *)s->raw.data - (const uint8_t *)d->raw, d->size, fmt->end,
			(unsigned long long)want_raw);
		return NULL;
	}
	if (field_u(fmt, &s->raw, "common_type") != (fmt->id & 0xffff))
		rt_errf(e, "common_type %llu, event id %llu",
			(unsigned long long)field_u(fmt, &s->raw, "common_type"),
			(unsigned long long)fmt->id);
	if (field_u(fmt, &s->raw, "common_pid") != (uint32_t)gettid())
		rt_errf(e, "common_pid %llu, our tid %d", (unsigned long long)field_u(fmt, &s->raw, "common_pid"),
			gettid());
	return &s->raw;
}

TEST(tracepoint_sys_enter_openat)
{
	static char paths[5][64];
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	struct tp_format fmt;
	uint64_t t0, t1;
	char why[300];
	int fd, i, samples = 0, err;
	size_t k;

	err = ensure_tracefs();
	REQUIREF(err == 0, "tracefs at %s: %s", TRACEFS, strerror(-err));
	REQUIREF(read_format("syscalls/sys_enter_openat", &fmt, why, sizeof(why)) == 0, "%s", why);
	fd = open_tracepoint(&attr, fmt.id);
	REQUIREF(fd >= 0, "perf_event_open(tracepoint %llu): %s", (unsigned long long)fmt.id, strerror(-fd));
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	ring = rt_ring(fd, 16, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	for (i = 0; i < 5; i++)
		snprintf(paths[i], sizeof(paths[i]), "/nonexistent/perfring-record-tracepoint-%d", i);
	t0 = rt_now_ns();
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	for (i = 0; i < 5; i++) {
		long r = syscall(__NR_openat, (long)AT_FDCWD, (long)paths[i], (long)flags_of(i), (long)(0600 + i));

		CHECK(r < 0 && errno == ENOENT);
	}
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	t1 = rt_now_ns();
	CHECK(rt_drain_copy(ring, &recs) >= 0);

	for (k = 0; k < recs.n; k++) {
		struct perfring_decoded d;
		const struct perfring_bytes *raw;

		if (rt_decode(&cfg, rt_rec(&recs, k), rt_rec_size(&recs, k), &d, &e))
			continue;
		raw = check_tp_sample(&d, &fmt, t0, t1, &e);
		if (!raw)
			continue;
		i = samples++;
		if (i >= 5) {
			rt_errf(&e, "more than 5 sys_enter_openat samples");
			continue;
		}
		if (field_u(&fmt, raw, "__syscall_nr") != __NR_openat ||
		    field_u(&fmt, raw, "dfd") != (uint64_t)(long)AT_FDCWD ||
		    field_u(&fmt, raw, "filename") != (uint64_t)(uintptr_t)paths[i] ||
		    field_u(&fmt, raw, "flags") != (uint64_t)flags_of(i) ||
		    field_u(&fmt, raw, "mode") != (uint64_t)(0600 + i))
			rt_errf(&e, "call %d: nr %llu dfd %#llx filename %#llx flags %#llx mode %#llo; passed nr %d "
				"dfd %#llx filename %p flags %#x mode %#o", i,
				(unsigned long long)field_u(&fmt, raw, "__syscall_nr"),
				(unsigned long long)field_u(&fmt, raw, "dfd"),
				(unsigned long long)field_u(&fmt, raw, "filename"),
				(unsigned long long)field_u(&fmt, raw, "flags"),
				(unsigned long long)field_u(&fmt, raw, "mode"), __NR_openat,
				(unsigned long long)(long)AT_FDCWD, (void *)paths[i],
				flags_of(i), 0600 + i);
	}
	printf("  %d sys_enter_openat samples (id %llu, %u-byte entry)\n", samples, (unsigned long long)fmt.id,
	       fmt.end);
	RT_CHECK_NO_ERR(&e, "records");
	CHECK_EQ_INT(samples, 5);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
}

TEST(tracepoint_sched_switch)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct perfring_ring *ring;
	struct rt_recs recs = { 0 };
	struct rt_err e = { 0 }, setup = { 0 };
	struct tp_format fmt;
	uint64_t t0, t1, last = 0;
	char why[300], comm[17] = "", buf[32];
	int fd, i, samples = 0, sleeping = 0, err;
	size_t k;

	err = ensure_tracefs();
	REQUIREF(err == 0, "tracefs at %s: %s", TRACEFS, strerror(-err));
	REQUIREF(read_format("sched/sched_switch", &fmt, why, sizeof(why)) == 0, "%s", why);
	REQUIRE(prctl(PR_GET_NAME, comm) == 0);
	fd = open_tracepoint(&attr, fmt.id);
	REQUIREF(fd >= 0, "perf_event_open(tracepoint %llu): %s", (unsigned long long)fmt.id, strerror(-fd));
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	ring = rt_ring(fd, 16, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(ring);

	t0 = rt_now_ns();
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);
	for (i = 0; i < 20; i++)
		rt_sleep_ns(1000000);
	REQUIRE(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	t1 = rt_now_ns();
	CHECK(rt_drain_copy(ring, &recs) >= 0);

	for (k = 0; k < recs.n; k++) {
		struct perfring_decoded d;
		const struct perfring_bytes *raw;
		uint64_t state;

		if (rt_decode(&cfg, rt_rec(&recs, k), rt_rec_size(&recs, k), &d, &e))
			continue;
		raw = check_tp_sample(&d, &fmt, t0, t1, &e);
		if (!raw)
			continue;
		samples++;
		if (d.u.sample.time < last)
			rt_errf(&e, "time %llu after %llu", (unsigned long long)d.u.sample.time,
				(unsigned long long)last);
		last = d.u.sample.time;
		/* The task's event fires as the task leaves the CPU. */
		if (field_u(&fmt, raw, "prev_pid") != (uint32_t)gettid() ||
		    field_u(&fmt, raw, "next_pid") == (uint32_t)gettid() ||
		    strcmp(field_str(&fmt, raw, "prev_comm", buf, sizeof(buf)), comm))
			rt_errf(&e, "sched_switch prev %s/%llu next %llu; we are %s/%d",
				field_str(&fmt, raw, "prev_comm", buf, sizeof(buf)),
				(unsigned long long)field_u(&fmt, raw, "prev_pid"),
				(unsigned long long)field_u(&fmt, raw, "next_pid"), comm, gettid());
		state = field_u(&fmt, raw, "prev_state");
		if (state == 1) /* TASK_INTERRUPTIBLE, as the tracepoint reports it: "S" */
			sleeping++;
		else if (state != 0) /* or preempted while running: "R" */
			rt_errf(&e, "prev_state %#llx", (unsigned long long)state);
	}
	printf("  %d sched_switch samples, %d leaving to sleep\n", samples, sleeping);
	RT_CHECK_NO_ERR(&e, "records");
	CHECKF(sleeping >= 20, "%d switches to sleep for 20 sleeps", sleeping);
	perfring_ring_free(ring);
	close(fd);
	rt_recs_free(&recs);
}

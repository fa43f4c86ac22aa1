// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HEADER_TRACING_DATA feature of a perf.data file: what perf (and
 * libtraceevent) need to decode the raw bytes of tracepoint samples, in the
 * layout perf's trace-event-read.c reads:
 *
 *   "\027\010\104tracing" "0.6\0"  u8 big endian, u8 sizeof(long), u32 page size
 *   "header_page\0"  u64 size, tracefs events/header_page
 *   "header_event\0" u64 size, tracefs events/header_event
 *   u32 nr ftrace formats, each u64 size + events/ftrace/NAME/format
 *   u32 nr systems, each: "SYS\0", u32 nr events, each u64 size + format
 *   u32 kallsyms size (0: perf reads addresses from its own kallsyms)
 *   u32 size + tracefs printk_formats
 *   u64 size + tracefs saved_cmdlines
 *
 * Only the recorded tracepoints' formats are written: they are found by
 * their id (attr.config) under tracefs events/SYS/NAME/id, which also covers
 * events given as tracepoint/config=N/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <perfring/event.h>

#include "common/internal.h"
#include "perfdata/perfdata_internal.h"

struct tbuf {
	uint8_t *p;
	size_t len, cap;
	int err; /* first failure (negative errno), sticky */
};

static void tb_add(struct tbuf *b, const void *s, size_t n)
{
	if (b->err || !n)
		return;
	if (pr_grow(&b->p, &b->cap, b->len + n, 1)) {
		b->err = pr_fail(ENOMEM, "perf.data writer: no memory for the tracing data");
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void tb_u32(struct tbuf *b, uint32_t v)
{
	tb_add(b, &v, 4);
}

static void tb_u64(struct tbuf *b, uint64_t v)
{
	tb_add(b, &v, 8);
}

/* A tracefs file (its st_size says 0: read to the end), preceded by its
 * size in size_bytes (4 or 8). A missing file is written as size 0 when
 * optional, else it fails naming the file. */
static void tb_file(struct tbuf *b, const char *path, int size_bytes, bool optional)
{
	size_t at = b->len, n0;
	ssize_t n;
	int fd;

	if (b->err)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (!optional)
			b->err = pr_fail(errno, "tracing data: cannot open %s: %s", path, strerror(errno));
		else if (size_bytes == 4)
			tb_u32(b, 0);
		else
			tb_u64(b, 0);
		return;
	}
	tb_add(b, "\0\0\0\0\0\0\0\0", (size_t)size_bytes); /* the size, filled in below */
	n0 = b->len;
	for (;;) {
		char chunk[16384];

		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		tb_add(b, chunk, (size_t)n);
	}
	if (n < 0 && !b->err)
		b->err = pr_fail(errno, "tracing data: reading %s: %s", path, strerror(errno));
	close(fd);
	if (!b->err) {
		uint64_t sz = b->len - n0;
		uint32_t sz32 = (uint32_t)sz;

		if (size_bytes == 4)
			memcpy(b->p + at, &sz32, 4);
		else
			memcpy(b->p + at, &sz, 8);
	}
}

static bool read_id(const char *path, uint64_t *id)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*id = strtoull(buf, NULL, 10);
	return true;
}

static bool skip_entry(const char *name)
{
	return name[0] == '.';
}

/* The formats of system sys's events whose id is in ids, preceded by their
 * count; with count_only, only counts them. */
static uint32_t system_formats(struct tbuf *b, const char *events, const char *sys, const uint64_t *ids,
			       size_t nr, bool count_only)
{
	char path[1024];
	struct dirent *d;
	uint32_t count = 0;
	uint64_t id;
	size_t i;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%s", events, sys);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (skip_entry(d->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s/id", events, sys, d->d_name);
		if (!read_id(path, &id))
			continue;
		for (i = 0; i < nr && ids[i] != id; i++)
			;
		if (i == nr)
			continue;
		count++;
		if (!count_only) {
			snprintf(path, sizeof(path), "%s/%s/%s/format", events, sys, d->d_name);
			tb_file(b, path, 8, false);
		}
	}
	closedir(dir);
	return count;
}

int pd_tracing_data(const uint64_t *ids, size_t nr, uint8_t **out, size_t *out_len)
{
	static const uint8_t magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint16_t one = 1;
	struct tbuf b = { 0 };
	char tracefs[256], events[300], path[512];
	uint32_t nsys = 0, n;
	uint8_t u8;
	struct dirent *d;
	DIR *dir;
	int pass, err;

	err = perfring_tracefs_path(tracefs, sizeof(tracefs));
	if (err)
		return err;
	snprintf(events, sizeof(events), "%s/events", tracefs);
	tb_add(&b, magic, sizeof(magic));
	tb_add(&b, "0.6", 4);
	u8 = *(const uint8_t *)&one == 0; /* big endian */
	tb_add(&b, &u8, 1);
	u8 = (uint8_t)sizeof(long);
	tb_add(&b, &u8, 1);
	tb_u32(&b, (uint32_t)sysconf(_SC_PAGESIZE));
	tb_add(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/header_page", events);
	tb_file(&b, path, 8, false);
	tb_add(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/header_event", events);
	tb_file(&b, path, 8, false);
	/* the ftrace system's events have their own list (perf's layout) */
	tb_u32(&b, system_formats(&b, events, "ftrace", ids, nr, true));
	system_formats(&b, events, "ftrace", ids, nr, false);
	/* the other systems: counted, then written */
	for (pass = 0; pass < 2 && !b.err; pass++) {
		dir = opendir(events);
		if (!dir) {
			b.err = pr_fail(errno, "tracing data: cannot list %s: %s", events, strerror(errno));
			break;
		}
		if (pass)
			tb_u32(&b, nsys);
		while ((d = readdir(dir)) && !b.err) {
			if (skip_entry(d->d_name) || !strcmp(d->d_name, "ftrace"))
				continue;
			n = system_formats(&b, events, d->d_name, ids, nr, true);
			if (!n)
				continue;
			if (!pass) {
				nsys++;
				continue;
			}
			tb_add(&b, d->d_name, strlen(d->d_name) + 1);
			tb_u32(&b, n);
			system_formats(&b, events, d->d_name, ids, nr, false);
		}
		closedir(dir);
	}
	tb_u32(&b, 0); /* kallsyms: perf reads its own (as perf record does since 5.x) */
	snprintf(path, sizeof(path), "%s/printk_formats", tracefs);
	tb_file(&b, path, 4, true);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs);
	tb_file(&b, path, 8, true);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	*out_len = b.len;
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPU range lists, as sysfs writes them ("0-3,8-11\n"): the online CPUs of a
 * machine need not be contiguous, so a BPF perf event array must be keyed by
 * the ids this list names, never by a count of CPUs.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/reader.h>
#include "common/internal.h"

/* Far above any kernel's NR_CPUS (8192 today); larger numbers are typos or
 * garbage, and refusing them keeps every count within an int. */
#define PR_CPU_ID_MAX ((1 << 20) - 1)

struct pr_cpu_range {
	int first;
	int last;
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

static int list_error(const char *list, const char *at, const char *what)
{
	return pr_fail(EINVAL, "CPU list \"%.64s\": %s at position %zu", list, what, (size_t)(at - list));
}

/* One decimal CPU id at *pp; digits only (no sign, no base prefix). */
static int parse_id(const char *list, const char **pp, int *id)
{
	const char *p = *pp;
	long v = 0;

	if (*p < '0' || *p > '9')
		return list_error(list, p, "expected a CPU number");
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p - '0');
		if (v > PR_CPU_ID_MAX)
			return pr_fail(EINVAL, "CPU list \"%.64s\": CPU number at position %zu is larger than %d",
				       list, (size_t)(*pp - list), PR_CPU_ID_MAX);
		p++;
	}
	*id = (int)v;
	*pp = p;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pr_cpu_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Parse into ranges (allocated, returned in *out). Returns the range count or -EINVAL. */
static int parse_ranges(const char *list, struct pr_cpu_range **out)
{
	struct pr_cpu_range *ranges = NULL;
	const char *p = list;
	size_t cap = 0;
	int cnt = 0, err;

	*out = NULL;
	p = skip_blanks(p);
	if (!*p)
		return list_error(list, p, "empty list");
	for (;;) {
		struct pr_cpu_range r;

		err = parse_id(list, &p, &r.first);
		if (err)
			goto fail;
		r.last = r.first;
		p = skip_blanks(p);
		if (*p == '-') {
			p = skip_blanks(p + 1);
			err = parse_id(list, &p, &r.last);
			if (err)
				goto fail;
			if (r.last < r.first) {
				err = list_error(list, p, "range ends below its start");
				goto fail;
			}
			p = skip_blanks(p);
		}
		if (pr_grow(&ranges, &cap, (size_t)cnt + 1, sizeof(*ranges))) {
			err = pr_fail(ENOMEM, "CPU list: out of memory");
			goto fail;
		}
		ranges[cnt++] = r;
		if (!*p)
			break;
		if (*p != ',') {
			err = list_error(list, p, "expected ',' or '-'");
			goto fail;
		}
		p = skip_blanks(p + 1);
	}
	*out = ranges;
	return cnt;
fail:
	free(ranges);
	return err;
}

int perfring_parse_cpu_list(const char *list, int *cpus, size_t cnt)
{
	struct pr_cpu_range *ranges;
	int nranges, i, next = 0;
	size_t total = 0;

	if (!list)
		return pr_fail(EINVAL, "CPU list: NULL");
	if (!cpus && cnt)
		return pr_fail(EINVAL, "CPU list: cpus is NULL but cnt is %zu", cnt);
	nranges = parse_ranges(list, &ranges);
	if (nranges < 0)
		return nranges;
	/* sysfs lists are ascending already; sorting and merging overlaps
	 * costs nothing and makes hand-written lists safe too. */
	qsort(ranges, (size_t)nranges, sizeof(*ranges), cmp_range);
	for (i = 0; i < nranges; i++) {
		int id = ranges[i].first > next ? ranges[i].first : next;

		for (; id <= ranges[i].last; id++) {
			if (total < cnt)
				cpus[total] = id;
			total++;
		}
		if (ranges[i].last + 1 > next)
			next = ranges[i].last + 1;
	}
	free(ranges);
	return (int)total;
}

/* Read a small sysfs file whole (NUL-terminated, allocated). */
static int read_sysfs(const char *path, char **out)
{
	size_t len = 0, cap = 256;
	char *buf = malloc(cap);
	int fd, err;

	if (!buf)
		return pr_fail(ENOMEM, "%s: out of memory", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		free(buf);
		return pr_fail(err, "cannot open %s: %s", path, strerror(err));
	}
	for (;;) {
		ssize_t n;

		if (pr_grow(&buf, &cap, len + 2, 1)) {
			close(fd);
			free(buf);
			return pr_fail(ENOMEM, "%s: out of memory", path);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			free(buf);
			return pr_fail(err, "cannot read %s: %s", path, strerror(err));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int cpu_list_file(const char *path, int *cpus, size_t cnt)
{
	char *text = NULL;
	int ret;

	ret = read_sysfs(path, &text);
	if (ret)
		return ret;
	ret = perfring_parse_cpu_list(text, cpus, cnt);
	free(text);
	return ret;
}

int perfring_online_cpus(int *cpus, size_t cnt)
{
	return cpu_list_file("/sys/devices/system/cpu/online", cpus, cnt);
}

int perfring_possible_cpus(int *cpus, size_t cnt)
{
	return cpu_list_file("/sys/devices/system/cpu/possible", cpus, cnt);
}

int pr_cpu_list_alloc(int (*list)(int *cpus, size_t cnt), int **out)
{
	int n = list(NULL, 0), *cpus;

	*out = NULL;
	if (n < 0)
		return n;
	cpus = calloc((size_t)n + 1, sizeof(*cpus));
	if (!cpus)
		return pr_fail(ENOMEM, "out of memory for a CPU list");
	n = list(cpus, (size_t)n);
	if (n < 0) {
		free(cpus);
		return n;
	}
	*out = cpus;
	return n;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Error strings, the per-thread detailed message, and the log callback. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perfring/record.h>

#include "common/internal.h"

static perfring_log_fn log_fn;
static enum perfring_log_level log_max = PERFRING_LOG_WARN;
static void *log_ctx;

/* Large enough for a message naming a sysctl, a capability and a size. */
static __thread char errmsg_buf[512];
static __thread bool log_muted;

const char *perfring_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "Success";
	case PERFRING_ECORRUPT:
		return "Corrupt perf ring: invalid record header";
	case PERFRING_EFLUSHED:
		return "Reader flushed: everything before the flush was delivered";
	case PERFRING_ECLOSED:
		return "Reader closed";
	case PERFRING_EWOKEN:
		return "Interrupted by perfring_reader_wakeup()";
	case PERFRING_ECALLBACK:
		return "Stopped by the record callback";
	case PERFRING_ETRUNC:
		return "Truncated perf record: it ends before a field it must hold";
	case PERFRING_EBADREC:
		return "Invalid perf record: a field holds an impossible value";
	default:
		return strerror(err);
	}
}

const char *perfring_errmsg(void)
{
	return errmsg_buf;
}

void pr_log_mute(bool mute)
{
	log_muted = mute;
}

void perfring_set_log(perfring_log_fn fn, enum perfring_log_level max_level, void *ctx)
{
	log_fn = fn;
	log_max = max_level;
	log_ctx = ctx;
}

const char *perfring_version(void)
{
#define PR_STR2(x) #x
#define PR_STR(x) PR_STR2(x)
	return PR_STR(PERFRING_VERSION_MAJOR) "." PR_STR(PERFRING_VERSION_MINOR) "." PR_STR(PERFRING_VERSION_PATCH);
}

static void emit(enum perfring_log_level level, const char *msg)
{
	perfring_log_fn fn = log_fn;

	if (fn && level <= log_max && !log_muted)
		fn(level, msg, log_ctx);
}

static void set_errmsg(const char *fmt, va_list ap)
{
	vsnprintf(errmsg_buf, sizeof(errmsg_buf), fmt, ap);
	emit(PERFRING_LOG_ERROR, errmsg_buf);
}

int pr_fail(int err, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	set_errmsg(fmt, ap);
	va_end(ap);
	errno = saved;
	return -err;
}

void *pr_fail_null(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_errmsg(fmt, ap);
	va_end(ap);
	errno = err;
	return NULL;
}

void pr_log(enum perfring_log_level level, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!log_fn || level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(level, buf);
}

int pr_opts_check(const void *opts, size_t caller_sz, size_t known_sz, const char *type_name)
{
	const unsigned char *p = opts;
	size_t i;

	if (!opts)
		return 0;
	if (caller_sz < sizeof(size_t))
		return pr_fail(EINVAL, "struct %s: sz is %zu; set it to sizeof(struct %s) (PERFRING_OPTS_INIT)",
			       type_name, caller_sz, type_name);
	for (i = known_sz; i < caller_sz; i++)
		if (p[i])
			return pr_fail(EINVAL,
				       "struct %s: byte %zu is set, but this perfring knows only %zu bytes of it; "
				       "the program was built against a newer perfring",
				       type_name, i, known_sz);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Helpers shared by the subcommands: messages, number parsing, time. */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "shared/tool.h"

static void tool_vmsg(const char *cmd, const char *fmt, va_list ap)
{
	if (cmd)
		fprintf(stderr, "%s %s: ", TOOL_NAME, cmd);
	else
		fprintf(stderr, "%s: ", TOOL_NAME);
	vfprintf(stderr, fmt, ap);
}

int tool_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vmsg(cmd, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '%s%s%s --help')\n", TOOL_NAME, cmd ? " " : "", cmd ? cmd : "");
	return EXIT_USAGE;
}

int tool_option_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return tool_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
	if (optopt && optopt < 256)
		return tool_usage_error(cmd, "unknown option '-%c'", optopt);
	return tool_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int tool_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vmsg(cmd, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_ERROR;
}

bool tool_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* strtoull accepts a sign and leading blanks; a count must not have them. */
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool tool_parse_seconds(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	if (!s || ((*s < '0' || *s > '9') && *s != '.'))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *tool_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	if (bytes < 1024)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else if (bytes < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, len, "%.1f MiB", bytes / (1024.0 * 1024.0));
	return buf;
}

void tool_log_to_stderr(enum perfring_log_level level, const char *msg, void *ctx)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	(void)ctx;
	if (level > PERFRING_LOG_DEBUG)
		level = PERFRING_LOG_DEBUG;
	fprintf(stderr, "libperfring %s: %s\n", names[level], msg);
}

static int libbpf_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static int libbpf_silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void tool_libbpf_messages(bool verbose)
{
	libbpf_set_print(verbose ? libbpf_warnings : libbpf_silent);
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader options trace and pipe share (see reader_opts.h). */
#include <string.h>

#include <perfring/perfring.h>

#include "shared/reader_opts.h"
#include "shared/tool.h"

void tool_reader_opts_init(struct tool_reader_opts *o, uint64_t buffer_pages)
{
	memset(o, 0, sizeof(*o));
	o->buffer_pages = buffer_pages;
	o->max_delay_ms = 100;
}

int tool_cpu_list(const char *cmd, const char *list, int *cpus, int max)
{
	int n = perfring_parse_cpu_list(list, cpus, (size_t)max);

	if (n < 0)
		return -tool_usage_error(cmd, "-C/--cpu wants a CPU list such as 0,2-3, not '%s': %s", list,
					 perfring_errmsg());
	if (n == 0)
		return -tool_usage_error(cmd, "-C/--cpu wants a CPU list such as 0,2-3, not '%s': it lists no CPU",
					 list);
	if (n > max)
		return -tool_usage_error(cmd, "-C/--cpu '%s' lists more than %d CPUs", list, max);
	return n;
}

int tool_cpus_online(const char *cmd, const int *cpus, int n, const char *list)
{
	static int online[TOOL_MAX_CPUS];
	int nonline, i, k;

	nonline = perfring_online_cpus(online, TOOL_MAX_CPUS);
	if (nonline <= 0)
		return tool_error(cmd, "cannot list the online CPUs: %s", perfring_errmsg());
	if (nonline > TOOL_MAX_CPUS)
		nonline = TOOL_MAX_CPUS; /* the rest cannot be listed with -C */
	for (i = 0; i < n; i++) {
		for (k = 0; k < nonline && online[k] != cpus[i]; k++)
			;
		if (k == nonline)
			return tool_error(cmd, "CPU %d of -C %s is not online (see /sys/devices/system/cpu/online)",
					  cpus[i], list);
	}
	return 0;
}

int tool_reader_opt(const char *cmd, int c, const char *arg, struct tool_reader_opts *o)
{
	int n;

	switch (c) {
	case 'b':
		if (!tool_parse_u64(arg, 1, 1u << 20, &o->buffer_pages) || (o->buffer_pages & (o->buffer_pages - 1)))
			return tool_usage_error(cmd, "--buffer-pages wants a power of two up to 2^20, not '%s'", arg);
		return 0;
	case 'C':
		n = tool_cpu_list(cmd, arg, o->cpus, TOOL_MAX_CPUS);
		if (n < 0)
			return -n;
		o->ncpus = n;
		o->cpu_list = arg;
		return 0;
	case TOOL_READER_OPT_WAKEUP_BYTES:
		if (!tool_parse_u64(arg, 1, UINT32_MAX, &o->wakeup_bytes))
			return tool_usage_error(cmd, "--wakeup-bytes wants a number of bytes from 1, not '%s'", arg);
		return 0;
	case TOOL_READER_OPT_WAKEUP_EVENTS:
		if (!tool_parse_u64(arg, 1, UINT32_MAX, &o->wakeup_events))
			return tool_usage_error(cmd, "--wakeup-events wants a number of records from 1, not '%s'", arg);
		return 0;
	case TOOL_READER_OPT_MAX_DELAY:
		if (!tool_parse_u64(arg, 0, 3600 * 1000, &o->max_delay_ms))
			return tool_usage_error(cmd, "--max-delay-ms wants 0 to 3600000 ms, not '%s'", arg);
		return 0;
	default:
		return 1;
	}
}

uint64_t tool_reader_ring_bytes(const struct tool_reader_opts *o)
{
	return o->buffer_pages * perfring_page_size();
}

int tool_reader_opts_check(const char *cmd, const struct tool_reader_opts *o)
{
	if (o->wakeup_bytes && o->wakeup_events)
		return tool_usage_error(cmd, "give --wakeup-bytes or --wakeup-events, not both");
	if (o->wakeup_bytes >= tool_reader_ring_bytes(o))
		return tool_usage_error(cmd, "--wakeup-bytes %llu is not below the ring size (%llu bytes)",
					(unsigned long long)o->wakeup_bytes,
					(unsigned long long)tool_reader_ring_bytes(o));
	return 0;
}

void tool_reader_opts_apply(const struct tool_reader_opts *o, struct perfring_reader_opts *ro,
			    uint32_t default_wakeup_bytes)
{
	ro->data_pages = o->buffer_pages;
	ro->max_delay_ns = o->max_delay_ms * 1000000ull;
	if (o->ncpus > 0) {
		ro->cpus = o->cpus;
		ro->cpu_cnt = (size_t)o->ncpus;
	}
	if (o->wakeup_events)
		ro->wakeup_events = (uint32_t)o->wakeup_events;
	else if (o->wakeup_bytes)
		ro->wakeup_bytes = (uint32_t)o->wakeup_bytes;
	else
		ro->wakeup_bytes = default_wakeup_bytes;
}

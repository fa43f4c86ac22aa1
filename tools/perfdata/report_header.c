// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring report --header-only`: the feature sections of a perf.data file
 * that perfring_perfdata_info() decodes, one "# name : value" line each, in
 * the words and formats of `perf report --header-only`, so that the lines
 * compare with perf's one for one (the clock lines included: perf prints the
 * wall-clock time of CLOCK_DATA to the microsecond and the date in local
 * time, as here; perfring_perfdata_info() has the nanoseconds).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <perfring/perfring.h>

#include "perfdata/pd_common.h"
#include "shared/tool.h"

#define NS 1000000000ULL

static void clock_lines(const struct perfring_perfdata *pd, const struct perfring_perfdata_info *in)
{
	const char *name = pd_clock_name((int32_t)in->clockid);
	time_t sec = (time_t)(in->clock_tod_ns / NS);
	char date[64] = "";
	struct tm tm;

	if (!name)
		name = "unknown";
	/* perf's formula: the resolution (ns) times 1000, "MHz" */
	if (perfring_perfdata_has_feature(pd, 23))
		printf("# clockid frequency: %" PRIu64 " MHz\n", in->clock_res_ns * 1000);
	if (!perfring_perfdata_has_feature(pd, 29) || in->clockid == ~0u)
		return;
	if (localtime_r(&sec, &tm))
		strftime(date, sizeof(date), "%F %T", &tm);
	printf("# clockid: %s (%u)\n", name, in->clockid);
	printf("# reference time: %s.%06u = %lld.%06u (TOD) = %llu.%09u (%s)\n", date,
	       (unsigned)(in->clock_tod_ns % NS / 1000), (long long)sec, (unsigned)(in->clock_tod_ns % NS / 1000),
	       (unsigned long long)(in->clock_ns / NS), (unsigned)(in->clock_ns % NS), name);
}

int report_header(const char *cmd, const char *path)
{
	const struct perfring_perfdata_info *in;
	struct perfring_perfdata *pd = pd_open(cmd, path, false);

	struct perfring_perfdata_record r;
	int ret;

	if (!pd)
		return EXIT_ERROR;
	/* In pipe mode the features come as HEADER_FEATURE records before the
	 * kernel's: read up to the first of those (types below 64). */
	while (perfring_perfdata_is_pipe(pd) && (ret = perfring_perfdata_next(pd, &r)) != 0) {
		if (ret < 0) {
			ret = pd_read_error(cmd, path, pd, ret);
			perfring_perfdata_free(pd);
			return ret;
		}
		if (r.type < 64)
			break;
	}
	in = perfring_perfdata_info(pd);
	if (in->hostname)
		printf("# hostname : %s\n", in->hostname);
	if (in->osrelease)
		printf("# os release : %s\n", in->osrelease);
	if (in->version)
		printf("# perf version : %s\n", in->version);
	if (in->arch)
		printf("# arch : %s\n", in->arch);
	if (in->nr_cpus_online || in->nr_cpus_available) {
		printf("# nrcpus online : %u\n", in->nr_cpus_online);
		printf("# nrcpus avail : %u\n", in->nr_cpus_available);
	}
	if (in->cpudesc)
		printf("# cpudesc : %s\n", in->cpudesc);
	if (in->cpuid)
		printf("# cpuid : %s\n", in->cpuid);
	if (in->total_mem_kb)
		printf("# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	if (in->cmdline)
		printf("# cmdline : %s\n", in->cmdline);
	clock_lines(pd, in);
	if (in->comp_type == 1)
		printf("# compressed : Zstd, level = %u, ratio = %" PRIu64 "\n", in->comp_level, in->comp_ratio);
	perfring_perfdata_free(pd);
	return EXIT_OK;
}

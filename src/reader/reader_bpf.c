// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Readers of BPF perf event arrays: one PERF_COUNT_SW_BPF_OUTPUT event and
 * ring per CPU, its fd stored in the map at key = the real CPU id (online
 * CPUs need not be contiguous, so never at the ring's index).
 *
 * Calls (downward only): reader.c (options, allocation, free), reader_rings.c,
 * reader_bpf_map.c (events, map slots), reader_hotplug.c, reader_arm.c and
 * reader_order.c (their init).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/internal.h"
#include "reader/reader_internal.h"
#include "common/sys.h"

/* The CPUs to open: the caller's (each checked) or every possible one. */
static int select_cpus(const struct pr_rd_config *cfg, uint32_t max_entries, int **out, int *cnt)
{
	int n, i, *online, *sel;
	size_t j, k;

	if (!cfg->cpus) {
		/* Every possible CPU: the offline ones are skipped, and said. */
		n = pr_cpu_list_alloc(perfring_possible_cpus, out);
		if (n < 0)
			return n;
		*cnt = n;
		return 0;
	}
	n = pr_cpu_list_alloc(perfring_online_cpus, &online);
	if (n < 0)
		return n;
	for (j = 0; j < cfg->cpu_cnt; j++) {
		int cpu = cfg->cpus[j];
		bool is_online = false;

		for (i = 0; i < n && !is_online; i++)
			is_online = online[i] == cpu;
		for (k = 0; k < j; k++)
			if (cfg->cpus[k] == cpu) {
				free(online);
				return pr_fail(EINVAL, "opts.cpus lists CPU %d twice", cpu);
			}
		if (!is_online) {
			free(online);
			return pr_fail(EINVAL, "opts.cpus[%zu]: CPU %d is not online (see "
					       "/sys/devices/system/cpu/online)", j, cpu);
		}
		if ((uint32_t)cpu >= max_entries) {
			free(online);
			return pr_fail(EINVAL, "opts.cpus[%zu]: CPU %d is not below the map's max_entries (%u); "
					       "create the map with max_entries > %d", j, cpu, max_entries, cpu);
		}
	}
	free(online);
	sel = calloc(cfg->cpu_cnt, sizeof(*sel));
	if (!sel)
		return pr_fail(ENOMEM, "perfring reader: out of memory");
	memcpy(sel, cfg->cpus, cfg->cpu_cnt * sizeof(*sel));
	*out = sel;
	*cnt = (int)cfg->cpu_cnt;
	return 0;
}

static bool cpu_in(const int *cpus, int cnt, int cpu)
{
	int i;

	for (i = 0; i < cnt; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

static int open_cpu(struct perfring_reader *rd, int cpu, const char *map_name, const int *online, int online_cnt)
{
	int fd, idx;

	if (!cpu_in(online, online_cnt, cpu)) {
		pr_log(PERFRING_LOG_INFO, "CPU %d skipped: it is offline (/sys/devices/system/cpu/online); "
					  "it will have no ring if it comes online later", cpu);
		return pr_rd_skip_cpu(rd, cpu);
	}

	if ((uint32_t)cpu >= rd->map_max_entries) {
		pr_log(PERFRING_LOG_WARN, "CPU %d skipped: the BPF map \"%s\" has max_entries %u, so it has no slot "
					  "for this CPU (its bpf_perf_event_output() calls fail with -E2BIG)",
		       cpu, map_name, rd->map_max_entries);
		return pr_rd_skip_cpu(rd, cpu);
	}
	fd = pr_rd_bpf_open_event(rd, cpu, false);
	if (fd == -ENODEV) {
		pr_log(PERFRING_LOG_WARN, "CPU %d skipped: it is offline (perf_event_open: ENODEV)", cpu);
		return pr_rd_skip_cpu(rd, cpu);
	}
	if (fd < 0)
		return fd;
	idx = pr_rd_add_ring(rd, fd, cpu, true);
	if (idx < 0) {
		close(fd);
		return idx;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return pr_fail(errno, "PERF_EVENT_IOC_ENABLE on the event of CPU %d failed: %s", cpu,
			       strerror(errno));
	return 0;
}

struct perfring_reader *perfring_reader_new_bpf(int map_fd, const struct perfring_reader_opts *opts)
{
	struct perfring_reader *rd = NULL;
	struct pr_rd_config cfg;
	struct bpf_map_info info;
	int err, i, j, cnt = 0, *cpus = NULL, *online = NULL, online_cnt;

	err = pr_rd_parse_opts(opts, true, &cfg);
	if (err)
		goto fail;
	if (map_fd < 0) {
		err = pr_fail(EBADF, "map_fd %d is not a file descriptor", map_fd);
		goto fail;
	}
	err = pr_bpf_map_info(map_fd, &info);
	if (err) {
		err = pr_fail(-err, "map_fd %d: BPF_OBJ_GET_INFO_BY_FD failed: %s; is it a BPF map fd (and may "
				    "this process use bpf(): CAP_BPF or root)?", map_fd, strerror(-err));
		goto fail;
	}
	if (info.type != BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		err = pr_fail(EINVAL, "map_fd %d (\"%s\") is a %s map (type %u); perfring_reader_new_bpf() needs a "
				      "BPF_MAP_TYPE_PERF_EVENT_ARRAY",
			      map_fd, info.name, pr_bpf_map_type_name(info.type), info.type);
		goto fail;
	}
	err = select_cpus(&cfg, info.max_entries, &cpus, &cnt);
	if (err)
		goto fail;
	rd = pr_rd_alloc(&cfg);
	if (!rd) {
		err = -errno;
		goto fail;
	}
	rd->is_bpf = true;
	rd->map_max_entries = info.max_entries;
	err = pr_rd_order_init(rd, opts);
	if (err)
		goto fail;
	/* Closing a map's last fd empties it: keep our own reference. */
	rd->map_fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 0);
	if (rd->map_fd < 0) {
		err = pr_fail(errno, "cannot dup map_fd %d: %s", map_fd, strerror(errno));
		goto fail;
	}
	/* Room for a ring per CPU served, hotplug included: the array never
	 * moves once readers of other threads may look at it. */
	rd->rings = calloc((size_t)(cnt ? cnt : 1), sizeof(*rd->rings));
	if (!rd->rings || pr_rd_owed_reserve(rd, cnt ? cnt : 1)) {
		err = pr_fail(ENOMEM, "perfring reader: out of memory");
		goto fail;
	}
	rd->ring_cap = cnt ? cnt : 1;
	online_cnt = pr_cpu_list_alloc(perfring_online_cpus, &online);
	if (online_cnt < 0) {
		err = online_cnt;
		goto fail;
	}
	for (i = 0; i < cnt; i++) {
		err = open_cpu(rd, cpus[i], info.name, online, online_cnt);
		if (err)
			goto fail;
	}
	if (!rd->ring_cnt) {
		err = pr_fail(ENODEV, "no CPU could be used: each online CPU is offline now or not below the "
				      "map's max_entries (%u)", info.max_entries);
		goto fail;
	}
	err = pr_rd_bpf_set_output(rd, true, false);
	if (err)
		goto fail;
	/* The CPUs hotplug may serve: those with a slot in the map. */
	for (i = j = 0; i < cnt; i++)
		if ((uint32_t)cpus[i] < rd->map_max_entries)
			cpus[j++] = cpus[i];
	err = pr_rd_hp_init(rd, cpus, j);
	if (err)
		goto fail;
	pr_rd_arm_init(rd);
	free(cpus);
	free(online);
	return rd;
fail:
	free(cpus);
	free(online);
	perfring_reader_free(rd);
	errno = -err;
	return NULL;
}

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Thin syscall wrappers (no libc wrappers exist for these). Not installed. */
#ifndef PERFRING_SYS_H
#define PERFRING_SYS_H

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Constants newer than some build machines' kernel headers. */
#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)
#endif
#ifndef PERF_EVENT_IOC_PAUSE_OUTPUT
#define PERF_EVENT_IOC_PAUSE_OUTPUT _IOW('$', 9, __u32)
#endif

/* RLIMIT_MEMLOCK for a message: "64 KiB" or "unlimited". */
static inline void pr_memlock_limit(char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	else
		snprintf(buf, len, "unlimited");
}

/* The kernel's name of a map type, for messages (sys.c). */
const char *pr_bpf_map_type_name(__u32 type);

static inline int pr_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
				     unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static inline int pr_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

/* Type and max_entries of a BPF map fd. Returns 0 or -errno. */
static inline int pr_bpf_map_info(int map_fd, struct bpf_map_info *info)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	memset(info, 0, sizeof(*info));
	attr.info.bpf_fd = (__u32)map_fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (__u64)(unsigned long)info;
	return pr_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)) ? -errno : 0;
}

static inline int pr_bpf_map_update_u32(int map_fd, __u32 key, __u32 value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)map_fd;
	attr.key = (__u64)(unsigned long)&key;
	attr.value = (__u64)(unsigned long)&value;
	attr.flags = BPF_ANY;
	return pr_bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) ? -errno : 0;
}

static inline int pr_bpf_map_delete_u32(int map_fd, __u32 key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (__u32)map_fd;
	attr.key = (__u64)(unsigned long)&key;
	return pr_bpf(BPF_MAP_DELETE_ELEM, &attr, sizeof(attr)) ? -errno : 0;
}

#endif /* PERFRING_SYS_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loading and attaching the demo's BPF program: see demo_load.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "demo.skel.h"
#include "demo_load.h"

#define TRACEFS "/sys/kernel/tracing"

static bool demo_verbose;

/* libbpf prints to stderr by default; the demo prints one line of its own
 * unless asked for libbpf's details. */
static int demo_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!demo_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Attaching a tracepoint needs its id from tracefs (libbpf looks in
 * /sys/kernel/debug/tracing, then /sys/kernel/tracing). Mount tracefs at
 * its usual place when neither is there, as systemd does at boot. */
static int demo_tracefs(bool *mounted)
{
	*mounted = false;
	if (access(TRACEFS "/events", F_OK) == 0 || access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) != 0)
		return -errno;
	*mounted = true;
	return 0;
}

static void demo_load_error(int err, const char *what, char *buf, size_t len)
{
	switch (err) {
	case EPERM:
	case EACCES:
		snprintf(buf, len, "%s: %s: the demo needs root (or CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)",
			 what, strerror(err));
		break;
	case ENOSYS:
		snprintf(buf, len, "%s: this kernel has no BPF support (bpf() is not implemented); "
			 "the demo needs CONFIG_BPF_SYSCALL", what);
		break;
	case ESRCH:
	case ENOENT:
		snprintf(buf, len, "%s: %s: the demo needs a kernel with BTF (/sys/kernel/btf/vmlinux) "
			 "and BPF tracepoint support", what, strerror(err));
		break;
	default:
		snprintf(buf, len, "%s: %s (run with --verbose for libbpf's messages)", what, strerror(err));
	}
}

struct demo_bpf *demo_load(uint32_t target_tgid, bool verbose, bool *mounted_tracefs, char *err, size_t errlen)
{
	struct demo_bpf *skel;
	int ret;

	demo_verbose = verbose;
	libbpf_set_print(demo_libbpf_print);
	*mounted_tracefs = false;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0 && errno == ENOENT) {
		snprintf(err, errlen, "the demo needs a kernel with BTF (/sys/kernel/btf/vmlinux is missing; "
			 "CONFIG_DEBUG_INFO_BTF)");
		return NULL;
	}
	skel = demo_bpf__open();
	if (!skel) {
		demo_load_error(errno, "opening the BPF program failed", err, errlen);
		return NULL;
	}
	skel->rodata->target_tgid = target_tgid;
	ret = demo_bpf__load(skel);
	if (ret) {
		demo_load_error(-ret, "loading the BPF program failed", err, errlen);
		goto fail;
	}
	ret = demo_tracefs(mounted_tracefs);
	if (ret) {
		snprintf(err, errlen, "tracefs is not mounted and mounting it at %s failed: %s "
			 "(mount it with: mount -t tracefs tracefs %s)", TRACEFS, strerror(-ret), TRACEFS);
		goto fail;
	}
	ret = demo_bpf__attach(skel);
	if (ret) {
		demo_load_error(-ret, "attaching to the tracepoints failed", err, errlen);
		goto fail;
	}
	return skel;
fail:
	demo_bpf__destroy(skel);
	return NULL;
}

int demo_events_fd(const struct demo_bpf *skel)
{
	return bpf_map__fd(skel->maps.events);
}

void demo_bpf_counts(const struct demo_bpf *skel, uint64_t *sent, uint64_t *failed)
{
	*sent = __atomic_load_n(&skel->bss->sent, __ATOMIC_RELAXED);
	*failed = __atomic_load_n(&skel->bss->send_failed, __ATOMIC_RELAXED);
}

void demo_unload(struct demo_bpf *skel)
{
	if (skel)
		demo_bpf__destroy(skel);
}

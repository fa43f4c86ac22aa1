/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring event layer: open perf events by name.
 *
 * Names understood by perfring_event_parse() and perfring_event_open():
 *  - software events: cpu-clock, task-clock, page-faults (faults),
 *    context-switches (cs), cpu-migrations (migrations), minor-faults,
 *    major-faults, alignment-faults, emulation-faults, dummy, bpf-output,
 *    cgroup-switches;
 *  - hardware events: cycles (cpu-cycles), instructions, cache-references,
 *    cache-misses, branches (branch-instructions), branch-misses,
 *    bus-cycles, ref-cycles, stalled-cycles-frontend,
 *    stalled-cycles-backend (they need a hardware PMU: a virtual machine
 *    often has none, and opening them then fails);
 *  - tracepoints "SYS:NAME" (e.g. "sched:sched_switch"): the id is read
 *    from <tracefs>/events/SYS/NAME/id;
 *  - raw PMU events "PMU/TERM=VALUE,.../" (e.g. "software/config=0/",
 *    "tracepoint/config=316/", "uprobe/retprobe,config1=.../"): the type
 *    comes from /sys/bus/event_source/devices/PMU/type; the terms config,
 *    config1 and config2 set those fields, any other term is looked up in
 *    the PMU's format/ directory ("config:0-7,32-35" places the value's
 *    bits); a term without a value means 1.
 *  - hardware breakpoints "mem:ADDR[/LEN][:ACCESS]" as perf's (e.g.
 *    "mem:0x404030/8:w"): PERF_TYPE_BREAKPOINT at ADDR, LEN bytes (default
 *    4, 8 for x), ACCESS r, w, x (default rw).
 * Each may end with perf's modifiers ("cycles:u", "sched:sched_switch:k",
 * "cpu/config=0/uk", "mem:0x404030:wu"): u, k, h count in user space, the
 * kernel, the hypervisor (any given: the others are excluded); G, H in the
 * guest, the host; I excludes idle; p, pp, ppp set precise_ip, P the
 * highest that opens; S reads the counter into each sample; D pins the
 * event, e makes it exclusive; W and b are accepted and change nothing.
 * Any other letter, or one given twice, is an error naming it. Without
 * modifiers exclude_guest is set, as perf sets it.
 * A tracepoint glob ("sched:sched_process_*") names several events:
 * perfring_event_expand() lists them.
 *
 * Functions return 0, an fd or a count on success and a negative errno on
 * failure, with perfring_errmsg() saying which event failed and what to do.
 */
#ifndef PERFRING_EVENT_H
#define PERFRING_EVENT_H

#include <linux/perf_event.h>

#include <perfring/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Zero *attr and fill its type, config (config1, config2 for PMU terms;
 * bp_type, bp_addr, bp_len for breakpoints), size and what the modifiers
 * set from an event name. Returns 0, -ENOENT for an unknown event or
 * tracepoint (the message lists valid names or names the tracefs path
 * tried), -EINVAL for a malformed name, PMU term or modifier (or a
 * tracepoint glob), or -EACCES when tracefs cannot be read (see
 * perfring_tracefs_path()).
 */
PERFRING_API int perfring_event_parse(const char *name, struct perf_event_attr *attr);

/* Called by perfring_event_expand() for each event: spec to parse or
 * open, name as perf shows it. A negative return stops the expansion. */
typedef int (*perfring_event_expand_fn)(const char *spec, const char *name, void *ctx);

/*
 * The events an event name stands for, as perf record -e expands it: a
 * tracepoint glob SYS:EVENT[:MODIFIERS] whose SYS or EVENT holds *, ? or
 * [...] (fnmatch(3)), e.g. "sched:sched_process_*", calls fn once per
 * matching tracepoint, in tracefs's directory order (perf's), with spec
 * "SYS:EVENT[:MODIFIERS]"; any other name calls fn once with spec = name.
 * name is what perf record writes into perf.data and perf script prints:
 * SYS:EVENT for a tracepoint (its modifiers dropped), a breakpoint up to
 * its length ("mem:0x404030" for "mem:0x404030/8:w"), the name as given
 * otherwise ("cpu-clock:u"). Neither string outlives the call. Nothing is
 * checked beyond the glob: parse each spec. Returns the number of fn calls,
 * -ENOENT when a glob matches no tracepoint (the message names it), an
 * error of tracefs (perfring_tracefs_path()), -EINVAL for a NULL argument
 * or a name of 512 bytes or more, or fn's negative return.
 */
PERFRING_API int perfring_event_expand(const char *name, perfring_event_expand_fn fn, void *ctx);

struct perfring_event_opts {
	size_t sz; /* sizeof(struct perfring_event_opts) */
	/* Sample every N events, or at about F samples per second (attr.freq);
	 * at most one of the two. Neither: tracepoints and bpf-output sample
	 * every event (period 1), other events only count. */
	uint64_t sample_period;
	uint64_t sample_freq;
	/* PERF_SAMPLE_* bits; the options below add their own. */
	uint64_t sample_type;
	/* Kernel and user call chains (PERF_SAMPLE_CALLCHAIN). */
	bool callchain;
	/* The user registers and stack_user_size bytes of user stack with each
	 * sample (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), for DWARF
	 * unwinding. stack_user_size: a multiple of 8, default 8192; only with
	 * dwarf. */
	bool dwarf;
	uint32_t stack_user_size;
	/* Count child tasks created after the open too. To read samples, open
	 * one such event per CPU (cpu >= 0): the kernel refuses to mmap the
	 * ring of an inherited event with cpu -1. */
	bool inherit;
	/* Start disabled, enabled when the task calls exec() (implies disabled). */
	bool enable_on_exec;
	/* Start disabled (enable with PERF_EVENT_IOC_ENABLE). */
	bool disabled;
	/* The sample_id trailer on non-sample records. */
	bool sample_id_all;
	/* PERF_RECORD_COMM (with exec), MMAP2 and FORK/EXIT records. */
	bool task_events;
	/* Wakeup policy of the event's ring, at most one: every N samples, or
	 * when B bytes wait (watermark). Neither: the kernel wakes the reader
	 * when half the ring is full. */
	uint32_t wakeup_events;
	uint32_t wakeup_bytes;
	/* With task_events: MMAP2 records carry the mapped file's build id
	 * instead of its device and inode (attr.build_id, Linux 5.12+). */
	bool build_id;
	/* PERF_RECORD_SWITCH / SWITCH_CPU_WIDE records at each context switch
	 * (attr.context_switch). */
	bool context_switch;
	/* Timestamps on clock clockid (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
	 * CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI; attr.use_clockid and
	 * attr.clockid, as perf record -k) instead of the kernel's perf clock.
	 * Events sharing a ring (perfring_event_set_output()) use one clock. */
	bool use_clockid;
	int32_t clockid;
	/* With callchain and dwarf: the call chain holds the kernel part only
	 * (attr.exclude_callchain_user), the user part being unwound from the
	 * user stack, as perf record --call-graph dwarf asks. */
	bool exclude_callchain_user;
	/* With task_events: MMAP2 records for data (non-executable) mappings
	 * too (attr.mmap_data). perf's DWARF unwinder reads a library's
	 * .eh_frame_hdr through them: perf record --call-graph dwarf sets it. */
	bool mmap_data;
};

/*
 * Parse name, apply opts (NULL: defaults) and perf_event_open() the event
 * with PERF_FLAG_FD_CLOEXEC for pid/cpu/group_fd as perf_event_open(2).
 * attr_out, if not NULL, receives the attr used (to write perf.data or to
 * build a record parse config). Returns the new fd or a negative errno:
 * EACCES/EPERM: the message names /proc/sys/kernel/perf_event_paranoid and
 * CAP_PERFMON; ENOENT/EOPNOTSUPP/ENODEV for hardware events: the machine has
 * no hardware PMU; EINVAL: the message names the offending option.
 */
PERFRING_API int perfring_event_open(const char *name, int pid, int cpu, int group_fd,
				     const struct perfring_event_opts *opts, struct perf_event_attr *attr_out);

/*
 * PERF_EVENT_IOC_SET_OUTPUT: fd's records go to target_fd's ring (fd must
 * not be mmap'd; both on the same CPU, or both per-task for the same task,
 * with the same clock). Returns 0 or a negative errno.
 */
PERFRING_API int perfring_event_set_output(int fd, int target_fd);

/*
 * Write the tracefs mount point to buf: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing; if neither holds tracefs and the process may
 * mount, tracefs is mounted at /sys/kernel/tracing. Returns 0, -ENOENT
 * (message: the paths tried), -EACCES (tracefs not readable by this user)
 * or -ENAMETOOLONG when len is too small.
 */
PERFRING_API int perfring_tracefs_path(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_EVENT_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Event layer internals shared by src/event_*.c (and unit tests). Not installed. */
#ifndef PERFRING_EVENT_INTERNAL_H
#define PERFRING_EVENT_INTERNAL_H

#include <perfring/event.h>

/* What a name asks for beyond its attr: perf's P modifier (the highest
 * precise_ip the PMU takes: open lowers it until the event opens). */
struct pr_event_extra {
	bool precise_max;
};

/* perfring_event_parse(), with the extra (may be NULL) filled too. */
int pr_event_parse(const char *name, struct perf_event_attr *attr, struct pr_event_extra *x);

/* Parse a "PMU/term=value,.../" name below sysfs_root (normally
 * /sys/bus/event_source/devices) into attr (type, config, config1, config2). */
int pr_event_parse_pmu(const char *name, const char *sysfs_root, struct perf_event_attr *attr);

/* Place value into the attr fields a format/ spec ("config:0-7,32-35") names.
 * Returns 0 or -EINVAL (value too wide, bad spec). */
int pr_event_apply_format(const char *spec, uint64_t value, struct perf_event_attr *attr);

/*
 * The failure message of a perf_event_open() of `name` that failed with err
 * (positive errno), given the attr and the current perf_event_paranoid
 * value (INT_MIN: unknown). Records it as pr_fail() does and returns -err.
 * opt_hint, if not NULL, names the option the kernel rejected (EINVAL).
 */
int pr_event_open_fail(int err, const char *name, const struct perf_event_attr *attr, int pid, int cpu,
		       int paranoid, const char *opt_hint);

#endif /* PERFRING_EVENT_INTERNAL_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `perfring script -F/--fields`: which fields a sample's line shows, chosen
 * as perf script's -F chooses them (builtin-script.c: parse_output_fields()
 * and evsel__check_attr()). Each -F is a list for every event type, or for
 * one (hw:, sw:, trace:, raw:, break:), either replacing its fields or
 * adding (+name) and removing (-name) some of the default ones; later ones
 * override earlier ones. A field the user asks for that an event's samples
 * do not record is an error; a default one is dropped silently.
 */
#ifndef PERFRING_TOOL_FIELDS_H
#define PERFRING_TOOL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;

enum {
	AF_COMM = 1u << 0,
	AF_TID = 1u << 1,
	AF_PID = 1u << 2,
	AF_TIME = 1u << 3,
	AF_CPU = 1u << 4,
	AF_EVENT = 1u << 5,
	AF_TRACE = 1u << 6,
	AF_IP = 1u << 7,
	AF_SYM = 1u << 8,
	AF_SYMOFF = 1u << 9,
	AF_DSO = 1u << 10,
	AF_ADDR = 1u << 11,
	AF_PERIOD = 1u << 12,
	AF_SRCLINE = 1u << 13,
	AF_DATA_SRC = 1u << 14,
	AF_WEIGHT = 1u << 15,
	AF_INS_LAT = 1u << 16,
};

/* perf's output types: the attr types below PERF_TYPE_MAX, and any other PMU. */
#define AF_NTYPES 7

struct script_fields {
	uint32_t set[AF_NTYPES];     /* a whole list given for the type: its fields */
	bool user_set[AF_NTYPES];
	uint32_t add[AF_NTYPES];     /* +name / -name on the default ones */
	uint32_t remove[AF_NTYPES];
	bool given;                  /* any -F at all */
};

/*
 * Apply one -F argument to f (in the order given). 0, or -1 with a one-line
 * reason in err. A field that does not apply to one of the types of a list
 * without a type (trace for hardware events) is ignored for that type, with
 * a warning written to stderr under cmd's name.
 */
int script_fields_parse(struct script_fields *f, const char *arg, const char *cmd, char *err, size_t len);

/*
 * The fields of an event's samples. event_name is for the error: 0, or -1
 * with a one-line reason (a field asked for that its samples do not record).
 */
int script_fields_resolve(const struct script_fields *f, const struct perf_event_attr *attr, const char *event_name,
		       uint32_t *out, char *err, size_t len);

/* Whether any type's fields ask for source lines. */
bool script_fields_want_lines(const struct script_fields *f);

#endif

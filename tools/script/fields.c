// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf script's -F, parsed as builtin-script.c's parse_output_fields()
 * parses it: "[TYPE:]LIST", LIST either names (the type's fields become
 * those) or +name/-name (added to or removed from what the type has); the
 * two kinds do not mix in one argument. A list without a type applies to
 * every type, skipping with a warning the types a field does not apply to
 * (trace outside tracepoints); with a type such a field is an error.
 * "TYPE:" alone hides that type's events; an empty list for all is refused.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/fields.h"

#define AF_OTHER 6

static const struct {
	const char *name;
	uint32_t bit;
} af_names[] = {
	{ "comm", AF_COMM },	 { "tid", AF_TID },	   { "pid", AF_PID },	  { "time", AF_TIME },
	{ "cpu", AF_CPU },	 { "event", AF_EVENT },	   { "trace", AF_TRACE }, { "ip", AF_IP },
	{ "sym", AF_SYM },	 { "symoff", AF_SYMOFF },  { "dso", AF_DSO },	  { "addr", AF_ADDR },
	{ "period", AF_PERIOD }, { "srcline", AF_SRCLINE }, { "data_src", AF_DATA_SRC }, { "weight", AF_WEIGHT },
	{ "ins_lat", AF_INS_LAT },
};

/* The -F type prefixes and the names perf's messages give the types. */
static const char *const af_type_prefix[AF_NTYPES] = { "hw", "sw", "trace", NULL, "raw", "break", NULL };
static const char *const af_type_name[AF_NTYPES] = { "hardware", "software", "tracepoint", "hardware-cache",
						     "raw", "breakpoint", "unknown" };

#define AF_SAMPLE_DEFAULT \
	(AF_COMM | AF_TID | AF_CPU | AF_TIME | AF_EVENT | AF_IP | AF_SYM | AF_SYMOFF | AF_DSO | AF_PERIOD)
#define AF_TRACE_DEFAULT (AF_COMM | AF_TID | AF_CPU | AF_TIME | AF_EVENT | AF_TRACE)

/* A raw PMU event (perf mem's, say) adds its memory fields, where its samples have them. */
#define AF_RAW_DEFAULT (AF_SAMPLE_DEFAULT | AF_ADDR | AF_DATA_SRC | AF_WEIGHT | AF_INS_LAT)

static uint32_t af_default(int t)
{
	return t == PERF_TYPE_TRACEPOINT ? AF_TRACE_DEFAULT : t == PERF_TYPE_RAW ? AF_RAW_DEFAULT : AF_SAMPLE_DEFAULT;
}

/* Fields a type cannot show (perf's invalid_fields): trace data only tracepoints have. */
static uint32_t af_invalid(int t)
{
	return t == PERF_TYPE_HARDWARE || t == PERF_TYPE_SOFTWARE || t == PERF_TYPE_HW_CACHE || t == AF_OTHER
		       ? AF_TRACE
		       : 0;
}

/* The type's fields now: the list given, else the default ones changed by +/-. */
static uint32_t af_current(const struct script_fields *f, int t)
{
	return f->user_set[t] ? f->set[t] : (af_default(t) | f->add[t]) & ~f->remove[t];
}

int script_fields_parse(struct script_fields *f, const char *arg, const char *cmd, char *err, size_t len)
{
	enum { NONE, SET, ADD, REMOVE } change = NONE;
	const char *colon = strchr(arg, ':'), *p;
	int type = -1, t;

	if (colon) {
		for (t = 0; t < AF_NTYPES; t++)
			if (af_type_prefix[t] && strlen(af_type_prefix[t]) == (size_t)(colon - arg) &&
			    !strncmp(arg, af_type_prefix[t], (size_t)(colon - arg)))
				break;
		if (t == AF_NTYPES) {
			snprintf(err, len, "-F '%s': unknown event type '%.*s' (hw, sw, trace, raw or break)", arg,
				 (int)(colon - arg), arg);
			return -1;
		}
		type = t;
		p = colon + 1;
	} else {
		p = arg;
		if (!*p) {
			snprintf(err, len, "-F '': the fields of every event type cannot all be none");
			return -1;
		}
	}
	if (!strpbrk(p, "+-")) {
		/* A list replaces the fields (of one type, or of all). */
		for (t = 0; t < AF_NTYPES; t++) {
			if (type >= 0 && t != type)
				continue;
			if (f->user_set[t] || f->add[t] || f->remove[t])
				fprintf(stderr, "perfring %s: warning: -F '%s' overrides the earlier fields of %s events\n",
					cmd, arg, af_type_name[t]);
			f->user_set[t] = true;
			f->set[t] = 0;
			f->add[t] = f->remove[t] = 0;
		}
	}
	f->given = true;
	while (*p) {
		size_t n = strcspn(p, ",");
		uint32_t bit = 0;
		size_t i;
		int sign = 0;

		if (*p == '+' || *p == '-') {
			if (change == SET)
				goto mixed;
			change = *p == '+' ? ADD : REMOVE;
			sign = *p == '+' ? 1 : -1;
			p++;
			n--;
		} else if (n) {
			if (change == ADD || change == REMOVE)
				goto mixed;
			change = SET;
		}
		for (i = 0; n && i < sizeof(af_names) / sizeof(af_names[0]); i++)
			if (strlen(af_names[i].name) == n && !strncmp(p, af_names[i].name, n))
				bit = af_names[i].bit;
		if (n && !bit) {
			snprintf(err, len, "-F '%s': unknown field '%.*s' (comm, tid, pid, time, cpu, event, trace, ip, "
				 "sym, symoff, dso, addr, period, srcline)", arg, (int)n, p);
			return -1;
		}
		for (t = 0; bit && t < AF_NTYPES; t++) {
			if (type >= 0 && t != type)
				continue;
			if (af_invalid(t) & bit) {
				if (type >= 0) {
					snprintf(err, len, "-F '%s': '%.*s' does not apply to %s events", arg, (int)n, p,
						 af_type_name[t]);
					return -1;
				}
				fprintf(stderr, "perfring %s: warning: -F '%s': '%.*s' does not apply to %s events: "
						"ignored for them\n", cmd, arg, (int)n, p, af_type_name[t]);
				continue;
			}
			if (f->user_set[t]) {
				if (sign < 0)
					f->set[t] &= ~bit;
				else
					f->set[t] |= bit;
			} else if (sign > 0) {
				f->add[t] |= bit;
				f->remove[t] &= ~bit;
			} else {
				f->remove[t] |= bit;
				f->add[t] &= ~bit;
			}
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
mixed:
	snprintf(err, len, "-F '%s': a list of fields and +field/-field do not mix in one -F", arg);
	return -1;
}

/* The first of fields that needs a sample_type bit st lacks (any one of need):
 * its bit, name and the record's field; 0 if none. */
static uint32_t missing(uint32_t fields, uint64_t st, const char **field, const char **what)
{
	static const struct {
		uint32_t bit;
		uint64_t need;
		const char *field, *what;
	} req[] = {
		{ AF_TID, PERF_SAMPLE_TID, "tid", "TID" },	 { AF_PID, PERF_SAMPLE_TID, "pid", "TID" },
		{ AF_TIME, PERF_SAMPLE_TIME, "time", "TIME" },	 { AF_CPU, PERF_SAMPLE_CPU, "cpu", "CPU" },
		{ AF_IP, PERF_SAMPLE_IP, "ip", "IP" },		 { AF_ADDR, PERF_SAMPLE_ADDR, "addr", "ADDR" },
		{ AF_TRACE, PERF_SAMPLE_RAW, "trace", "RAW" },	 { AF_DATA_SRC, PERF_SAMPLE_DATA_SRC, "data_src", "DATA_SRC" },
		{ AF_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "weight", "WEIGHT" },
		{ AF_INS_LAT, PERF_SAMPLE_WEIGHT_STRUCT, "ins_lat", "WEIGHT_STRUCT" },
	};
	size_t i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++)
		if ((fields & req[i].bit) && !(st & req[i].need)) {
			*field = req[i].field;
			*what = req[i].what;
			return req[i].bit;
		}
	return 0;
}

int script_fields_resolve(const struct script_fields *f, const struct perf_event_attr *attr, const char *event_name,
		       uint32_t *out, char *err, size_t len)
{
	int t = attr->type < AF_OTHER ? (int)attr->type : AF_OTHER;
	uint64_t st = attr->sample_type;
	uint32_t fields = af_current(f, t), asked = f->user_set[t] ? f->set[t] : f->add[t], bit;
	const char *what, *field;

	/* A default field the samples cannot fill goes (as the CPU of a file without it). */
	while ((bit = missing(fields & ~asked, st, &field, &what)) != 0)
		fields &= ~bit;
	if (!(fields & AF_SYM) && !(asked & AF_SYMOFF))
		fields &= ~AF_SYMOFF;
	if (missing(fields, st, &field, &what)) {
		snprintf(err, len, "samples of event '%s' do not record %s (PERF_SAMPLE_%s): cannot print field '%s'",
			 event_name, what, what, field);
		return -1;
	}
	if ((fields & (AF_SYM | AF_DSO)) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
		snprintf(err, len, "samples of event '%s' record no address: cannot print a symbol or binary", event_name);
		return -1;
	}
	if ((fields & AF_SYMOFF) && !(fields & AF_SYM)) {
		snprintf(err, len, "field 'symoff' needs 'sym' (event '%s')", event_name);
		return -1;
	}
	if ((fields & AF_SRCLINE) && !(fields & AF_IP)) {
		snprintf(err, len, "field 'srcline' needs 'ip' (event '%s')", event_name);
		return -1;
	}
	/* A tracepoint's call chain is shown unless its fields were chosen (perf script does). */
	if (t == PERF_TYPE_TRACEPOINT && !f->user_set[t] && (st & PERF_SAMPLE_CALLCHAIN))
		fields |= AF_IP | AF_SYM | AF_SYMOFF | AF_DSO;
	*out = fields;
	return 0;
}

bool script_fields_want_lines(const struct script_fields *f)
{
	int t;

	for (t = 0; t < AF_NTYPES; t++)
		if (af_current(f, t) & AF_SRCLINE)
			return true;
	return false;
}

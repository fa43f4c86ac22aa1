// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`'s command line: the options, what they mean together
 * (a target, one sampling rate, perf's -z), and the machine they name
 * (online CPUs, live processes and threads), into struct record_opts.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfring.h>
#include <perfring/event.h>

#include "record/record.h"
#include "shared/pd_common.h"
#include "shared/reader_opts.h"
#include "shared/targets.h"
#include "shared/tool.h"

struct record_events {
	struct record_event *ev;
	int n;
};

/* perfring_event_expand()'s callback: one event of an -e argument. */
static int record_add_event(const char *spec, const char *shown, void *ctx)
{
	struct record_events *re = ctx;
	struct record_event *e;

	if (re->n == RECORD_MAX_EVENTS)
		return -E2BIG;
	e = &re->ev[re->n];
	e->spec = strdup(spec);
	e->shown = strdup(shown);
	if (!e->spec || !e->shown) {
		free(e->spec);
		free(e->shown);
		e->spec = e->shown = NULL;
		return -ENOMEM;
	}
	e->name = e->spec;
	re->n++;
	return 0;
}

/* The events of -e ARG (a tracepoint glob: one per match, as perf); the
 * exit status of the error, or 0. */
static int record_add_events(struct record_event *events, int *nev, const char *arg)
{
	struct record_events re = { events, *nev };
	int err = perfring_event_expand(arg, record_add_event, &re);

	*nev = re.n;
	if (err == -E2BIG)
		return tool_usage_error(CMD, "at most %d events ('%s' names more)", RECORD_MAX_EVENTS, arg);
	if (err == -ENOMEM)
		return tool_error(CMD, "no memory");
	if (err < 0)
		return tool_error(CMD, "%s", perfring_errmsg());
	return 0;
}

/*
 * perf's -z takes its level attached (-z5) or none: in `-z 99 -o x.data
 * -- cmd`, 99 is the first word of the command, and the options after it
 * are its arguments. A number right after a bare -z was meant as the
 * level: refused rather than run.
 */
static bool record_level_taken_for_command(char **argv, int optind_)
{
	const char *prev = argv[optind_ - 1], *word = argv[optind_];

	if (strcmp(prev, "-z") && strcmp(prev, "--compression-level"))
		return false;
	return word[0] && strspn(word, "0123456789") == strlen(word);
}

/* --call-graph MODE: fp or dwarf[,SIZE]. 0 or the usage error's status. */
static int record_call_graph(const char *arg, struct record_opts *o)
{
	enum tool_call_graph mode;
	uint32_t size;
	int err = tool_call_graph_option(CMD, arg, false, &mode, &size);

	if (err)
		return err;
	if (mode == TOOL_CALL_GRAPH_DWARF) {
		o->dwarf = true;
		if (size)
			o->stack_size = size;
	} else {
		o->callchain = true;
	}
	return 0;
}

/* The options alone, as getopt_long() gives them. *all_cpus, *freq_max and
 * *cpu_list: what the checks after need besides o. */
static int record_getopt(int argc, char **argv, struct record_opts *o, bool *all_cpus, bool *freq_max,
			 const char **cpu_list)
{
	enum { OPT_CALL_GRAPH = 256, OPT_SWITCH, OPT_ZLEVEL };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "switch-events", no_argument, NULL, OPT_SWITCH },
		{ "compression-level", optional_argument, NULL, OPT_ZLEVEL },
		{ "clockid", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c, idx, err;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:c:F:gaC:p:t:z::k:o:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'e':
			err = record_add_events(o->events, &o->nev, optarg);
			if (err)
				return err;
			break;
		case 'c':
			if (!tool_parse_u64(optarg, 1, UINT64_MAX, &o->period))
				return tool_usage_error(CMD, "bad period '%s' (a whole number >= 1)", optarg);
			break;
		case 'F':
			if (strcmp(optarg, "max") == 0) {
				*freq_max = true; /* perf's -F max: perf_event_max_sample_rate */
				break;
			}
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &o->freq))
				return tool_usage_error(CMD, "bad frequency '%s' (a whole number of Hz >= 1, or max)", optarg);
			break;
		case 'g':
			o->callchain = true;
			break;
		case OPT_CALL_GRAPH:
			err = record_call_graph(optarg, o);
			if (err)
				return err;
			break;
		case 'a':
			*all_cpus = true;
			break;
		case 'C':
			*cpu_list = optarg;
			break;
		case 'p':
		case 't':
			if (o->ntarget)
				return tool_usage_error(CMD, "give -p or -t once (PID,PID... for several)");
			o->ntarget = tool_id_list(optarg, o->targets, RECORD_MAX_TASKS);
			if (o->ntarget <= 0)
				return tool_usage_error(CMD, "bad %s list '%s' (numbers >= 1, separated by commas)",
							c == 'p' ? "pid" : "tid", optarg);
			o->by_tid = c == 't';
			break;
		case OPT_SWITCH:
			o->switch_events = true;
			break;
		case 'z': /* -z or -zN, as perf */
		case OPT_ZLEVEL:
			o->zlevel = 1;
			if (optarg && (!tool_parse_u64(optarg, 1, 22, &v) || !(o->zlevel = (int)v)))
				return tool_usage_error(CMD, "bad compression level '%s' (1..22)", optarg);
			break;
		case 'k':
			if (o->use_clockid)
				return tool_usage_error(CMD, "give -k once");
			if (!pd_clock_parse(optarg, &o->clockid))
				return tool_usage_error(CMD, "bad clock '%s' (monotonic, monotonic_raw, realtime, boottime, "
							     "tai, mono, raw, real, boot or a number)", optarg);
			o->use_clockid = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'h':
			cmd_record_usage(stdout);
			return -1;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return 0;
}

/* -c or -F (one of them), perf's default rate within the kernel's maximum. */
static int record_rate(struct record_opts *o, bool freq_max)
{
	uint64_t max_rate = tool_max_sample_rate();

	o->rate_given = o->period || o->freq || freq_max;
	if (freq_max && !o->freq)
		o->freq = max_rate ? max_rate : RECORD_DEFAULT_HZ;
	if (o->period && o->freq)
		return tool_usage_error(CMD, "give -c PERIOD or -F HZ, not both");
	if (!o->period && !o->freq)
		o->freq = max_rate && max_rate < RECORD_DEFAULT_HZ ? max_rate : RECORD_DEFAULT_HZ;
	else if (o->freq && max_rate && o->freq > max_rate)
		return tool_usage_error(CMD, "-F %llu is above perf_event_max_sample_rate (%llu)",
					(unsigned long long)o->freq, (unsigned long long)max_rate);
	return 0;
}

/* The CPUs of -C, each online, or every online CPU. */
static int record_cpus(struct record_opts *o, const char *cpu_list)
{
	static int online[RECORD_MAX_CPUS];
	int nonline = perfring_online_cpus(online, RECORD_MAX_CPUS);

	if (nonline <= 0)
		return tool_error(CMD, "cannot list the online CPUs: %s", perfring_errmsg());
	if (nonline > RECORD_MAX_CPUS)
		return tool_error(CMD, "more than %d online CPUs", RECORD_MAX_CPUS);
	if (!cpu_list) {
		o->ncpu = nonline;
		memcpy(o->cpus, online, (size_t)o->ncpu * sizeof(int));
		return 0;
	}
	o->ncpu = tool_cpu_list(CMD, cpu_list, o->cpus, RECORD_MAX_CPUS);
	if (o->ncpu < 0)
		return -o->ncpu;
	return tool_cpus_online(CMD, o->cpus, o->ncpu, cpu_list);
}

/* The tasks to open events for: -1 (every task), the threads of -p's
 * processes (each inherited by the tasks it creates), -t's threads. */
static int record_tasks(struct record_opts *o)
{
	int i, k;

	for (i = 0; i < o->ntarget; i++) {
		if (kill(o->targets[i], 0) && errno == ESRCH)
			return tool_error(CMD, "no %s %d", o->by_tid ? "thread" : "process", o->targets[i]);
		if (o->by_tid) {
			o->tasks[o->ntask++] = o->targets[i];
		} else if ((k = tool_threads_of(o->targets[i], o->tasks, o->ntask, RECORD_MAX_TASKS)) < 0) {
			return tool_error(CMD, "no process %d (/proc/%d/task)", o->targets[i], o->targets[i]);
		} else {
			o->ntask = k;
		}
	}
	/* With -p/-t, a command only sets how long to record (as perf's
	 * `-p PID -- sleep 5`): it is not recorded itself. */
	if (o->system_wide || (o->cmd && !o->ntarget))
		o->tasks[o->ntask++] = -1; /* the command's pid once it is forked */
	return 0;
}

int record_parse(int argc, char **argv, struct record_opts *o)
{
	const char *cpu_list = NULL;
	bool all_cpus = false, freq_max = false;
	int j, err;

	memset(o, 0, sizeof(*o));
	o->output = "perf.data";
	err = record_getopt(argc, argv, o, &all_cpus, &freq_max, &cpu_list);
	if (err)
		return err;
	if (o->cmd && record_level_taken_for_command(argv, optind))
		return tool_usage_error(CMD, "-z takes its level attached (-zN or --compression-level=N, 1..22): "
					     "'%s' would be run as the command", o->cmd[0]);
	o->system_wide = all_cpus || (cpu_list && !o->ntarget);
	if (o->ntarget && all_cpus)
		return tool_usage_error(CMD, "-p/-t go without -a");
	if (!o->system_wide && !o->ntarget && !o->cmd)
		return tool_usage_error(CMD, "give a target: -a, -C CPUS, -p PID, -t TID or -- CMD");
	if (o->period && o->freq)
		return tool_usage_error(CMD, "give -c PERIOD or -F HZ, not both");
	/* perf 6.1 report did not expand COMPRESSED records from a pipe */
	if (o->zlevel && strcmp(o->output, "-") == 0)
		return tool_usage_error(CMD, "-z with -o -: pipe mode is written uncompressed (perf report cannot expand it)");
	if (!o->nev)
		o->events[o->nev++].name = "cpu-clock";
	err = record_rate(o, freq_max);
	if (!err)
		err = record_cpus(o, cpu_list);
	if (err)
		return err;
	for (j = 0; j < o->nev; j++) {
		struct perf_event_attr a;

		if (perfring_event_parse(o->events[j].name, &a))
			return tool_error(CMD, "%s", perfring_errmsg());
		o->events[j].tracepoint = a.type == PERF_TYPE_TRACEPOINT;
		o->events[j].own_period = o->events[j].tracepoint || a.type == PERF_TYPE_BREAKPOINT;
	}
	return record_tasks(o);
}

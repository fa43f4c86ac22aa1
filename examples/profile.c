// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * profile: a CPU profiler in one file, on perfring's public API only.
 *
 *  1. open a cpu-clock event per CPU that samples F times a second with its
 *     call chain (frame pointers, as perf record -g), and the task records
 *     (COMM, MMAP2, FORK/EXIT) that say what each address is;
 *  2. read the rings with a perfring reader and decode each record;
 *  3. name each sample's frames with perfring_stacks (live: a process that
 *     started before us is read from /proc when first seen), as perf names them;
 *  4. count them in a perfring_profile, and write it as folded stacks
 *     ("comm;root;...;leaf COUNT", the input of flamegraph.pl and speedscope)
 *     and, with -P, as a pprof file (go tool pprof, Pyroscope, ...).
 *
 * Build: cc profile.c $(pkg-config --cflags --libs perfring)
 * Run:   profile [-F HZ] [-d SECONDS] [-o FOLDED] [-P PPROF] (-a | -p PID | -- COMMAND [ARG...])
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/wait.h>

#include <perfring/perfring.h>

struct prof {
	struct perfring_parse_config cfg;
	struct perfring_stacks *stacks;
	struct perfring_profile *profile;
	uint64_t samples;
};

static int on_record(const struct perfring_msg *ev, void *ctx)
{
	const struct perfring_ring_record *r = perfring_msg_record(ev);
	struct perfring_profile_sample s = { .sz = sizeof(s) };
	struct perfring_map_hit hit = { .comm = NULL };
	struct perfring_decoded d;
	struct perfring_stack st;
	struct prof *p = ctx;

	if (!r || r->data2 || perfring_record_parse(&p->cfg, r->data, r->size, &d))
		return PERFRING_CONTINUE;
	if (d.type != PERF_RECORD_SAMPLE) {
		perfring_stacks_feed(p->stacks, &d); /* COMM, MMAP2, FORK, EXIT */
		return PERFRING_CONTINUE;
	}
	if (perfring_stacks_sample(p->stacks, &d, &st))
		return PERFRING_CONTINUE;
	/* the process's name: the lookup fills it in even when no mapping holds the ip */
	perfring_procs_lookup(perfring_stacks_procs(p->stacks), d.u.sample.pid, d.u.sample.ip, &hit);
	s.stack = &st;
	s.pid = d.u.sample.pid;
	s.tid = d.u.sample.tid;
	s.comm = hit.comm;
	s.time = d.u.sample.time;
	s.period = d.u.sample.period;
	if (!perfring_profile_add(p->profile, &s))
		p->samples++;
	return PERFRING_CONTINUE;
}

/* A child that runs argv once we say so (its events are open by then). */
static pid_t spawn(char **argv, int *go)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds) || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &c, 1) == 1)
			execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/* p written as fmt to path ('-': stdout). */
static int write_file(const struct perfring_profile *p, enum perfring_profile_format fmt, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int err;

	if (!f)
		return perror(path), -1;
	err = perfring_profile_write(p, fmt, f, NULL);
	if (err)
		fprintf(stderr, "profile: %s: %s\n", path, perfring_errmsg());
	return (f != stdout && fclose(f)) || err ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct perfring_event_opts eo = { .sz = sizeof(eo), .sample_freq = 99, .callchain = true,
					  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							 PERF_SAMPLE_PERIOD,
					  .task_events = true, .sample_id_all = true };
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts, .linearize = true);
	struct perfring_stacks_opts so = PERFRING_OPTS_INIT(perfring_stacks_opts, .live = true);
	const char *events[] = { "cpu-clock" }, *folded = "-", *pprof = NULL;
	struct perfring_profile_opts po = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = events,
							     .nevents = 1);
	struct prof p = { 0 };
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	int cpus[4096], ncpu, i, opt, go = -1, fd, secs = 10, ret;
	pid_t pid = -1, child = -1;
	time_t end;

	while ((opt = getopt(argc, argv, "+F:d:o:P:ap:")) != -1) {
		if (opt == 'F')
			eo.sample_freq = strtoull(optarg, NULL, 10);
		else if (opt == 'd')
			secs = atoi(optarg);
		else if (opt == 'o')
			folded = optarg;
		else if (opt == 'P')
			pprof = optarg;
		else if (opt == 'p')
			pid = atoi(optarg);
		else if (opt != 'a')
			return fprintf(stderr, "usage: %s [-F HZ] [-d SECS] [-o FOLDED] [-P PPROF] (-a | -p PID | -- CMD...)\n",
				       argv[0]), 2;
	}
	eo.inherit = pid != -1 || optind < argc; /* the threads and children it makes too */
	if (optind < argc && (pid = child = spawn(argv + optind, &go)) < 0)
		return perror("fork"), 1;
	ncpu = perfring_online_cpus(cpus, 4096);
	p.stacks = perfring_stacks_new(&so);
	p.profile = perfring_profile_new(&po);
	rd = perfring_reader_new(&ro);
	if (ncpu <= 0 || !p.stacks || !p.profile || !rd)
		return fprintf(stderr, "profile: %s\n", perfring_errmsg()), 1;
	for (i = 0; i < ncpu; i++) { /* one event and ring per CPU, for pid (-1: every process) */
		fd = perfring_event_open("cpu-clock", pid, cpus[i], -1, &eo, &attr);
		if (fd < 0 || perfring_reader_add(rd, fd, cpus[i]) < 0)
			return fprintf(stderr, "profile: cpu %d: %s\n", cpus[i], perfring_errmsg()), 1;
	}
	if (perfring_parse_config_init(&p.cfg, &attr, false))
		return fprintf(stderr, "profile: %s\n", perfring_errmsg()), 1;
	perfring_profile_set_sampling(p.profile, 0, eo.sample_freq, true);
	if (go >= 0 && (write(go, "g", 1) != 1 || close(go)))
		return perror("profile: starting the command"), 1;
	for (end = time(NULL) + secs; time(NULL) < end;) {
		perfring_reader_poll(rd, 100000000, on_record, &p);
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child)
			break; /* the command ended: what it left in the rings is read below */
	}
	perfring_reader_consume(rd, on_record, &p);
	if (child > 0 && kill(child, SIGKILL) == 0)
		waitpid(child, NULL, 0);
	ret = write_file(p.profile, PERFRING_PROFILE_FOLDED, folded) ||
	      (pprof && write_file(p.profile, PERFRING_PROFILE_PPROF, pprof));
	fprintf(stderr, "profile: %llu samples\n", (unsigned long long)p.samples);
	perfring_reader_free(rd);
	perfring_profile_free(p.profile);
	perfring_stacks_free(p.stacks);
	return ret;
}

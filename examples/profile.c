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
 *  4. count the stacks and write them folded ("root;...;leaf COUNT", the input
 *     of flamegraph.pl and speedscope). TODO: pprof through perfring_profile.
 *
 * Build: cc profile.c $(pkg-config --cflags --libs perfring)
 * Run:   profile [-F HZ] [-d SECONDS] [-o FILE] (-a | -p PID | -- COMMAND [ARG...])
 */
#include <errno.h>
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
	struct { char *key; uint64_t n; } *tab; /* the folded stacks: open addressing */
	size_t cap, used;
	uint64_t samples;
};

static uint64_t *count_of(struct prof *p, const char *key)
{
	size_t h = 5381, i;

	for (i = 0; key[i]; i++)
		h = h * 33 + (unsigned char)key[i];
	if ((p->used + 1) * 2 > p->cap) { /* grow: rehash into twice the slots */
		struct prof q = { .cap = p->cap ? p->cap * 2 : 1024 };

		q.tab = calloc(q.cap, sizeof(*q.tab));
		for (i = 0; q.tab && i < p->cap; i++)
			if (p->tab[i].key)
				*count_of(&q, p->tab[i].key) = p->tab[i].n, free(p->tab[i].key);
		if (!q.tab)
			return NULL;
		free(p->tab);
		p->tab = q.tab, p->cap = q.cap;
	}
	for (i = h & (p->cap - 1); p->tab[i].key && strcmp(p->tab[i].key, key); i = (i + 1) & (p->cap - 1))
		;
	if (!p->tab[i].key && (p->tab[i].key = strdup(key)))
		p->used++;
	return p->tab[i].key ? &p->tab[i].n : NULL;
}

/* A sample's stack, root first, as perf script | stackcollapse-perf.pl folds it. */
static void add_sample(struct prof *p, const struct perfring_decoded *d)
{
	struct perfring_stack st;
	char key[8192];
	size_t len = 0, i;
	uint64_t *n;

	if (perfring_stacks_sample(p->stacks, d, &st))
		return;
	for (i = st.nframes; i-- > 0 && len < sizeof(key) - 1;) {
		const struct perfring_frame *f = perfring_stack_frame(&st, i);

		len += snprintf(key + len, sizeof(key) - len, "%s%s", len ? ";" : "", f->name ? f->name : "[unknown]");
	}
	if (len >= sizeof(key))
		len = sizeof(key) - 1;
	key[len] = '\0';
	if ((n = count_of(p, key)))
		(*n)++, p->samples++;
}

static int on_record(const struct perfring_msg *ev, void *ctx)
{
	const struct perfring_ring_record *r = perfring_msg_record(ev);
	struct perfring_decoded d;
	struct prof *p = ctx;

	if (!r || r->data2 || perfring_record_parse(&p->cfg, r->data, r->size, &d))
		return PERFRING_CONTINUE;
	if (d.type == PERF_RECORD_SAMPLE)
		add_sample(p, &d);
	else
		perfring_stacks_feed(p->stacks, &d); /* COMM, MMAP2, FORK, EXIT */
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

int main(int argc, char **argv)
{
	struct perfring_event_opts eo = { .sz = sizeof(eo), .sample_freq = 99, .callchain = true,
					  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
					  .task_events = true, .sample_id_all = true, .inherit = true };
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts, .linearize = true);
	struct perfring_stacks_opts so = { .sz = sizeof(so), .live = true };
	struct prof p = { 0 };
	struct perf_event_attr attr;
	struct perfring_reader *rd;
	int cpus[4096], ncpu, i, opt, go = -1, fd, secs = 10;
	pid_t pid = -1, child = -1;
	const char *out = NULL;
	FILE *f = stdout;
	time_t end;

	while ((opt = getopt(argc, argv, "+F:d:o:ap:")) != -1) {
		if (opt == 'F')
			eo.sample_freq = strtoull(optarg, NULL, 10);
		else if (opt == 'd')
			secs = atoi(optarg);
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'p')
			pid = atoi(optarg);
		else if (opt != 'a')
			return fprintf(stderr, "usage: %s [-F HZ] [-d SECS] [-o FILE] (-a | -p PID | -- CMD...)\n",
				       argv[0]), 2;
	}
	eo.inherit = pid != -1 || optind < argc; /* the threads and children it makes too */
	if (optind < argc && (pid = child = spawn(argv + optind, &go)) < 0)
		return perror("fork"), 1;
	ncpu = perfring_online_cpus(cpus, 4096);
	p.stacks = perfring_stacks_new(&so);
	rd = perfring_reader_new(&ro);
	if (ncpu <= 0 || !p.stacks || !rd)
		return fprintf(stderr, "profile: %s\n", perfring_errmsg()), 1;
	for (i = 0; i < ncpu; i++) { /* one event and ring per CPU, for pid (-1: every process) */
		fd = perfring_event_open("cpu-clock", pid, cpus[i], -1, &eo, &attr);
		if (fd < 0 || perfring_reader_add(rd, fd, cpus[i]) < 0)
			return fprintf(stderr, "profile: cpu %d: %s\n", cpus[i], perfring_errmsg()), 1;
	}
	if (perfring_parse_config_init(&p.cfg, &attr, false))
		return fprintf(stderr, "profile: %s\n", perfring_errmsg()), 1;
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
	if (out && !(f = fopen(out, "w")))
		return perror(out), 1;
	for (i = 0; (size_t)i < p.cap; free(p.tab[i++].key))
		if (p.tab[i].key)
			fprintf(f, "%s %llu\n", p.tab[i].key, (unsigned long long)p.tab[i].n);
	free(p.tab);
	fprintf(stderr, "profile: %llu samples, %zu stacks\n", (unsigned long long)p.samples, p.used);
	perfring_reader_free(rd);
	perfring_stacks_free(p.stacks);
	return f == stdout || !fclose(f) ? 0 : 1;
}

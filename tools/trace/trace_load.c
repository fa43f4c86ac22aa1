// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Loading and attaching `perfring trace`'s BPF program: see trace_load.h. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "shared/tool.h"
#include "trace/trace_load.h" /* first: the skeleton needs tools/trace/trace.h's types */
#include "trace.skel.h"

struct trace_links {
	struct bpf_link **links;
	size_t n;
};

/* The skeleton has no room for our links; keep them beside it. */
static struct trace_links trace_links;

/* libbpf prints to stderr by default; the tool prints one line of its own
 * unless asked for libbpf's details. */
static void load_error(int err, const char *what, char *buf, size_t len)
{
	switch (err) {
	case EPERM:
	case EACCES:
		snprintf(buf, len, "%s: %s: run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN)", what,
			 strerror(err));
		break;
	case ENOSYS:
		snprintf(buf, len, "%s: this kernel has no BPF support (bpf() is not implemented; CONFIG_BPF_SYSCALL)",
			 what);
		break;
	case ESRCH:
	case ENOENT:
		snprintf(buf, len, "%s: %s: this needs a kernel with BTF (/sys/kernel/btf/vmlinux) and BPF tracepoint "
			 "support", what, strerror(err));
		break;
	default:
		snprintf(buf, len, "%s: %s (run with --verbose for libbpf's messages)", what, strerror(err));
	}
}

struct trace_bpf *trace_load(const struct trace_filters *filt, bool verbose, char *err, size_t errlen)
{
	struct trace_bpf *skel;
	uint8_t one = 1;
	size_t i;
	int ret;

	tool_libbpf_messages(verbose);
	if (geteuid() != 0 && access("/sys/kernel/tracing", R_OK | X_OK) != 0 && errno == EACCES) {
		snprintf(err, errlen, "tracing needs root (or CAP_BPF, CAP_PERFMON and read access to tracefs)");
		return NULL;
	}
	skel = trace_bpf__open();
	if (!skel) {
		load_error(errno, "opening the BPF program failed", err, errlen);
		return NULL;
	}
	skel->rodata->filter_flags = filt->flags;
	skel->rodata->use_ringbuf = filt->ringbuf_bytes != 0;
	if (filt->ringbuf_bytes && bpf_map__set_max_entries(skel->maps.events_rb, filt->ringbuf_bytes)) {
		load_error(EINVAL, "sizing the BPF ring buffer failed", err, errlen);
		trace_bpf__destroy(skel);
		return NULL;
	}
	skel->rodata->exclude_tgid = filt->exclude_tgid;
	if (filt->comm)
		strncpy((char *)skel->rodata->filter_comm, filt->comm, TRACE_COMM_LEN - 1);
	/* Without a follow filter the fork and free programs are not needed. */
	if (!(filt->flags & TRACE_FILTER_FOLLOW)) {
		bpf_program__set_autoload(skel->progs.trace_fork, false);
		bpf_program__set_autoload(skel->progs.trace_free, false);
	}
	ret = trace_bpf__load(skel);
	if (ret) {
		load_error(-ret, "loading the BPF program failed", err, errlen);
		goto fail;
	}
	for (i = 0; i < filt->ncpus; i++) {
		uint32_t cpu = (uint32_t)filt->cpus[i];

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.cpus), &cpu, &one, BPF_ANY)) {
			snprintf(err, errlen, "cpu %u: beyond the %u CPUs the program can filter", cpu,
				 bpf_map__max_entries(skel->maps.cpus));
			goto fail;
		}
	}
	return skel;
fail:
	trace_bpf__destroy(skel);
	return NULL;
}

int trace_add_pid(struct trace_bpf *skel, uint32_t tgid)
{
	uint8_t one = 1;

	return bpf_map_update_elem(bpf_map__fd(skel->maps.pids), &tgid, &one, BPF_ANY) ? -errno : 0;
}

static int add_link(struct bpf_link *link)
{
	struct bpf_link **l = realloc(trace_links.links, (trace_links.n + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	trace_links.links = l;
	l[trace_links.n++] = link;
	return 0;
}

int trace_attach(struct trace_bpf *skel, const struct trace_formats *tf, char *err, size_t errlen)
{
	size_t i, n = trace_formats_count(tf);
	struct bpf_link *link;
	char what[300];

	if (n > TRACE_MAX_TPS) {
		snprintf(err, errlen, "%zu tracepoints: at most %d can be traced at once", n, TRACE_MAX_TPS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct trace_tp *tp = trace_formats_get(tf, i);
		struct trace_cfg cfg = tp->cfg;
		uint32_t key = (uint32_t)i; /* the program's index into configs: its cookie */
		LIBBPF_OPTS(bpf_tracepoint_opts, topts, .bpf_cookie = key);

		cfg.id = (uint16_t)tp->id;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.configs), &key, &cfg, BPF_ANY)) {
			load_error(errno, "configuring the BPF program failed", err, errlen);
			return -1;
		}
		link = bpf_program__attach_tracepoint_opts(skel->progs.trace_event, tp->system, tp->name, &topts);
		if (!link || add_link(link)) {
			snprintf(what, sizeof(what), "attaching to tracepoint %s failed", tp->full);
			load_error(link ? ENOMEM : errno, what, err, errlen);
			bpf_link__destroy(link);
			return -1;
		}
	}
	if (bpf_program__autoload(skel->progs.trace_fork)) {
		link = bpf_program__attach(skel->progs.trace_fork);
		if (!link || add_link(link)) {
			load_error(link ? ENOMEM : errno, "attaching to sched_process_fork failed", err, errlen);
			bpf_link__destroy(link);
			return -1;
		}
		link = bpf_program__attach(skel->progs.trace_free);
		if (!link || add_link(link)) {
			load_error(link ? ENOMEM : errno, "attaching to sched_process_free failed", err, errlen);
			bpf_link__destroy(link);
			return -1;
		}
	}
	return 0;
}

int trace_events_fd(const struct trace_bpf *skel)
{
	return bpf_map__fd(skel->maps.events);
}

int trace_events_rb_fd(const struct trace_bpf *skel)
{
	return bpf_map__fd(skel->maps.events_rb);
}

int trace_rb_lost_fd(const struct trace_bpf *skel)
{
	return bpf_map__fd(skel->maps.perfring_rb_lost);
}

int trace_ncpus(void)
{
	return libbpf_num_possible_cpus();
}

int trace_counts_read(const struct trace_bpf *skel, struct trace_counts *c, int ncpus)
{
	uint32_t key = 0;

	/* A per-CPU array gives one value per possible CPU, each padded to 8
	 * bytes: struct trace_counts is made of u64s, so an array of them. */
	if (ncpus != libbpf_num_possible_cpus())
		return -EINVAL;
	return bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &key, c) ? -errno : 0;
}

void trace_counts_total(const struct trace_counts *c, int ncpus, struct trace_counts *sum)
{
	int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < ncpus; i++) {
		sum->seen += c[i].seen;
		sum->sent += c[i].sent;
		sum->ring_full += c[i].ring_full;
		sum->send_error += c[i].send_error;
		sum->unreadable += c[i].unreadable;
		sum->no_config += c[i].no_config;
		sum->truncated += c[i].truncated;
	}
}

uint64_t trace_counts_lost(const struct trace_counts *c)
{
	return c->ring_full + c->send_error + c->unreadable + c->no_config;
}

void trace_quiesce(struct trace_bpf *skel)
{
	__atomic_store_n(&skel->bss->stopping, 1, __ATOMIC_SEQ_CST);
	/* MEMBARRIER_CMD_GLOBAL waits for an RCU grace period
	 * (synchronize_rcu()), and a tracepoint's BPF program runs with
	 * preemption off: a run that read stopping as 0 is over when it
	 * returns. Without it (nohz_full CPUs refuse it) a run in flight
	 * could still count an event after the counters are read. */
	syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
}

/* Detaching a tracepoint program waits for an RCU grace period in the
 * kernel (tens of ms each): hundreds of tracepoints (-e 'syscalls:*') would
 * take half a minute one after another. Threads detaching at once share the
 * grace periods. */
#define TRACE_DETACH_THREADS 32

struct detach_slice {
	struct bpf_link **links;
	size_t n;
};

static void *detach_slice(void *arg)
{
	struct detach_slice *d = arg;
	size_t i;

	for (i = 0; i < d->n; i++)
		bpf_link__destroy(d->links[i]);
	return NULL;
}

static void detach_all(struct bpf_link **links, size_t n)
{
	struct detach_slice slices[TRACE_DETACH_THREADS];
	pthread_t threads[TRACE_DETACH_THREADS];
	bool started[TRACE_DETACH_THREADS] = { false };
	size_t t, nthreads = n < TRACE_DETACH_THREADS ? n : TRACE_DETACH_THREADS, done = 0;

	for (t = 0; t < nthreads; t++) {
		size_t share = (n - done) / (nthreads - t);

		slices[t] = (struct detach_slice){ .links = links + done, .n = share };
		done += share;
		/* Without a thread (none left), the slice is detached here. */
		started[t] = pthread_create(&threads[t], NULL, detach_slice, &slices[t]) == 0;
		if (!started[t])
			detach_slice(&slices[t]);
	}
	for (t = 0; t < nthreads; t++)
		if (started[t])
			pthread_join(threads[t], NULL);
}

void trace_unload(struct trace_bpf *skel)
{
	if (skel)
		__atomic_store_n(&skel->bss->stopping, 1, __ATOMIC_RELAXED);
	if (trace_links.n > 20)
		fprintf(stderr, "detaching from %zu tracepoints (the kernel takes tens of ms for each)...\n",
			trace_links.n);
	detach_all(trace_links.links, trace_links.n);
	free(trace_links.links);
	trace_links.links = NULL;
	trace_links.n = 0;
	if (skel)
		trace_bpf__destroy(skel);
}

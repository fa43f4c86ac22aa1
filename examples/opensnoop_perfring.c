// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * opensnoop, written as libbpf-tools writes its tools: trace openat() calls
 * (examples/opensnoop.bpf.c) and print one line per call, read through a
 * perf event array.
 *
 *   opensnoop_{libbpf,perfring} [-d SECONDS] [-f SUBSTRING]
 *
 * examples/opensnoop_libbpf.c reads the events with libbpf's perf_buffer;
 * examples/opensnoop_perfring.c is the same program ported to perfring. The
 * port changes the include, the reader's type, its constructor, the poll
 * call and the free, nothing else (tests/cli/example_port.sh diffs the two
 * files, and runs both on one workload: they print the same lines).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <perfring/perfring.h>

#include "opensnoop.h"
#include "opensnoop.skel.h"

static volatile sig_atomic_t exiting;
static const char *filter;

static void sig_handler(int sig)
{
	exiting = 1;
}

static void handle_event(void *ctx, int cpu, void *data, __u32 data_sz)
{
	const struct opensnoop_event *e = data;

	if (data_sz < sizeof(*e))
		return;
	if (filter && !strstr(e->fname, filter))
		return;
	printf("%-7u %-5u %-16s %s\n", e->pid, e->uid, e->comm, e->fname);
	fflush(stdout);
}

static void handle_lost(void *ctx, int cpu, __u64 lost_cnt)
{
	fprintf(stderr, "lost %llu events on CPU #%d\n", lost_cnt, cpu);
}

int main(int argc, char **argv)
{
	struct perfring_reader *pb = NULL;
	struct opensnoop_bpf *obj;
	int opt, err, duration = 0;
	time_t end;

	while ((opt = getopt(argc, argv, "d:f:")) != -1) {
		switch (opt) {
		case 'd':
			duration = atoi(optarg);
			break;
		case 'f':
			filter = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d SECONDS] [-f SUBSTRING]\n", argv[0]);
			return 2;
		}
	}

	obj = opensnoop_bpf__open_and_load();
	if (!obj) {
		fprintf(stderr, "failed to open and load BPF object: %s\n", strerror(errno));
		return 1;
	}
	err = opensnoop_bpf__attach(obj);
	if (err) {
		fprintf(stderr, "failed to attach BPF programs: %s\n", strerror(-err));
		goto cleanup;
	}

	pb = perfring_reader_new_perf_buffer(bpf_map__fd(obj->maps.events), 64, handle_event, handle_lost, NULL, NULL);
	if (!pb) {
		err = -errno;
		fprintf(stderr, "failed to open perf buffer: %s\n", strerror(errno));
		goto cleanup;
	}

	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	printf("%-7s %-5s %-16s %s\n", "PID", "UID", "COMM", "PATH");
	fflush(stdout);

	end = time(NULL) + duration;
	while (!exiting) {
		err = perfring_reader_poll_ms(pb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "error polling perf buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		err = 0;
		if (duration && time(NULL) >= end)
			break;
	}

cleanup:
	perfring_reader_free(pb);
	opensnoop_bpf__destroy(obj);
	return err != 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * opensnoop on a BPF ring buffer, written as libbpf tools for kernels with
 * ring buffers are written: trace openat() calls (bpf/opensnoop_rb.bpf.c)
 * and print one line per call.
 *
 *   opensnoop_rb_{libbpf,perfring} [-d SECONDS] [-f SUBSTRING]
 *
 * examples/opensnoop_rb_libbpf.c reads the events with libbpf's
 * ring_buffer; examples/opensnoop_rb_perfring.c is the same program ported
 * to perfring. The port adds the include and renames the reader's type and
 * the ring_buffer__ calls, nothing else (tests/cli/example_port.sh diffs the
 * two files, and runs both on one workload: they print the same lines).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "opensnoop.h"
#include "opensnoop_rb.skel.h"

static volatile sig_atomic_t exiting;
static const char *filter;

static void sig_handler(int sig)
{
	exiting = 1;
}

static int handle_event(void *ctx, void *data, size_t data_sz)
{
	const struct opensnoop_event *e = data;

	if (data_sz < sizeof(*e))
		return 0;
	if (filter && !strstr(e->fname, filter))
		return 0;
	printf("%-7u %-5u %-16s %s\n", e->pid, e->uid, e->comm, e->fname);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct ring_buffer *rb = NULL;
	struct opensnoop_rb_bpf *obj;
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

	obj = opensnoop_rb_bpf__open_and_load();
	if (!obj) {
		fprintf(stderr, "failed to open and load BPF object: %s\n", strerror(errno));
		return 1;
	}
	err = opensnoop_rb_bpf__attach(obj);
	if (err) {
		fprintf(stderr, "failed to attach BPF programs: %s\n", strerror(-err));
		goto cleanup;
	}

	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, NULL, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "failed to create ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}

	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	printf("%-7s %-5s %-16s %s\n", "PID", "UID", "COMM", "PATH");
	fflush(stdout);

	end = time(NULL) + duration;
	while (!exiting) {
		err = ring_buffer__poll(rb, 100 /* ms */);
		/* Ctrl-C ends the wait with -EINTR. */
		if (err == -EINTR) {
			err = 0;
			break;
		}
		if (err < 0) {
			fprintf(stderr, "error polling ring buffer: %s\n", strerror(-err));
			goto cleanup;
		}
		err = 0;
		if (duration && time(NULL) >= end)
			break;
	}
	/* What arrived since the last poll, before leaving. */
	err = ring_buffer__consume(rb);
	err = err < 0 ? err : 0;

cleanup:
	ring_buffer__free(rb);
	opensnoop_rb_bpf__destroy(obj);
	return err != 0;
}

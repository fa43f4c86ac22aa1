// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pin_rb_producer: a BPF ring buffer program "someone else loaded", for the
 * ring buffer case of `perfring pipe` (tests/cli/pipe.sh). It loads
 * tests/bpf/rb_producer.bpf.c (writing through perfring_ringbuf.bpf.h) with a
 * ring buffer of --size bytes, pins it, and pins a bare ring buffer map that
 * no program uses (losses unknown), then runs the producer on command, read
 * line by line from stdin:
 *
 *   pin_rb_producer --rb PATH --bare PATH [--size BYTES]
 *   -> "rb_id ID", "lost_id ID", "ready"      (stdout, line-buffered)
 *   run CPU N LEN     N runs of BPF_PROG_TEST_RUN (repeat 1) on CPU, LEN-byte samples
 *   burst CPU N LEN   the same in one call (repeat N)
 *   -> "ran N ok A fail B"                    (the outcomes of this command)
 *   quit              (or end of input, SIGINT, SIGTERM): unpin and exit 0
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../bpf/producer.h"
#include "rb_producer.skel.h"

static const char *rb_pin, *bare_pin;
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static unsigned int map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static int run(struct rb_producer_bpf *skel, int cpu, unsigned n, unsigned len, int burst)
{
	unsigned char pkt[64] = { [12] = 0x08 };
	cpu_set_t one;
	unsigned done = 0;
	int err = 0;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -errno;
	skel->data->payload_len = len;
	while (done < n) {
		__u32 repeat = burst ? n - done : 1;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = repeat);

		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.produce), &opts);
		if (err)
			break;
		done += repeat;
	}
	return err ? err : (int)done;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "rb", 1, NULL, 'r' }, { "bare", 1, NULL, 'b' },
					    { "size", 1, NULL, 's' }, { NULL, 0, NULL, 0 } };
	static unsigned char pattern[65536];
	struct rb_producer_bpf *skel;
	unsigned long size = 0;
	char line[256], cmd[32];
	int c, i, bare_fd, possible;
	__u32 key;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'r')
			rb_pin = optarg;
		else if (c == 'b')
			bare_pin = optarg;
		else if (c == 's')
			size = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	if (!rb_pin || !bare_pin) {
		fprintf(stderr, "usage: pin_rb_producer --rb PATH --bare PATH [--size BYTES]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = rb_producer_bpf__open();
	if (!skel || (size && bpf_map__set_max_entries(skel->maps.rb, (__u32)size)) || rb_producer_bpf__load(skel)) {
		fprintf(stderr, "pin_rb_producer: loading tests/bpf/rb_producer.bpf.c failed: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = producer_pattern((unsigned)i);
	possible = libbpf_num_possible_cpus();
	for (key = 0; (int)key < possible; key++)
		bpf_map_update_elem(bpf_map__fd(skel->maps.scratch), &key, pattern, BPF_ANY);
	bare_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "bare_rb", 0, 0, 4096, NULL);
	if (bare_fd < 0 || bpf_obj_pin(bpf_map__fd(skel->maps.rb), rb_pin) || bpf_obj_pin(bare_fd, bare_pin)) {
		fprintf(stderr, "pin_rb_producer: pinning failed: %s\n", strerror(errno));
		unlink(rb_pin);
		return 1;
	}
	printf("rb_id %u\n", map_id(bpf_map__fd(skel->maps.rb)));
	printf("lost_id %u\n", map_id(bpf_map__fd(skel->maps.perfring_rb_lost)));
	printf("ready\n");
	while (!got_signal && fgets(line, sizeof(line), stdin)) {
		unsigned cpu, n, len;
		__u64 ok0 = skel->bss->out_ok, fail0 = skel->bss->out_fail;
		int r;

		if (sscanf(line, "%31s %u %u %u", cmd, &cpu, &n, &len) == 4 &&
		    (!strcmp(cmd, "run") || !strcmp(cmd, "burst"))) {
			r = run(skel, (int)cpu, n, len, !strcmp(cmd, "burst"));
			if (r < 0)
				printf("error %s\n", strerror(-r));
			else
				printf("ran %d ok %llu fail %llu\n", r, (unsigned long long)(skel->bss->out_ok - ok0),
				       (unsigned long long)(skel->bss->out_fail - fail0));
		} else if (!strncmp(line, "quit", 4)) {
			break;
		} else {
			printf("error bad command\n");
		}
	}
	unlink(rb_pin);
	unlink(bare_pin);
	close(bare_fd);
	rb_producer_bpf__destroy(skel);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pin_producer: a BPF program "someone else loaded", for the tests of
 * `perfring pipe` (tests/cli/pipe.sh). It loads the deterministic producer
 * (tests/bpf/producer.bpf.c), pins its perf event array `events` (and, on request,
 * its `scratch` array map and its program, which are not perf event arrays),
 * then runs the producer on command, read line by line from stdin:
 *
 *   pin_producer --events PATH [--scratch PATH] [--prog PATH]
 *   -> "events_id ID", "scratch_id ID", "ready"      (stdout, line-buffered)
 *   run CPU N LEN     N runs of BPF_PROG_TEST_RUN (repeat 1) on CPU, LEN-byte samples
 *   burst CPU N LEN   the same in one call (repeat N): as fast as the kernel goes
 *   -> "ran N ok A enospc B enoent C other D"  (the outcomes of this command)
 *   counts
 *   -> "counts seq S ok A enospc B enoent C other D"  (since loading)
 *   quit              (or end of input, SIGINT, SIGTERM): unpin and exit 0
 *
 * A bad command prints "error ..." and the helper goes on. Each sample is
 * {u64 seq; u32 cpu; u32 len; producer_pattern(i) for i in [16, len)}.
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
#include "producer.skel.h"

struct pins {
	const char *events, *scratch, *prog;
};

static struct pins pins;
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void unpin_all(void)
{
	if (pins.events)
		unlink(pins.events);
	if (pins.scratch)
		unlink(pins.scratch);
	if (pins.prog)
		unlink(pins.prog);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static unsigned int obj_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

static int fill_scratch(struct producer_bpf *skel)
{
	static unsigned char pattern[65536];
	int possible = libbpf_num_possible_cpus(), i;
	__u32 key;

	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = producer_pattern((unsigned int)i);
	for (key = 0; (int)key < possible; key++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.scratch), &key, pattern, BPF_ANY))
			return -errno;
	return 0;
}

struct counts {
	__u64 seq, ok, enospc, enoent, other;
};

static struct counts read_counts(const struct producer_bpf *skel)
{
	const volatile struct producer_bpf__bss *b = skel->bss;

	return (struct counts){ b->seq_next, b->out_ok, b->out_enospc, b->out_enoent, b->out_other };
}

/* Run the producer n times on cpu; burst: one BPF_PROG_TEST_RUN with repeat n. */
static int produce(struct producer_bpf *skel, int cpu, unsigned int n, unsigned int len, bool burst)
{
	int prog_fd = bpf_program__fd(skel->progs.produce), err = 0;
	__u64 start = skel->bss->seq_next, done;
	unsigned char pkt[64];
	cpu_set_t old, one;

	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08; /* an IPv4 ethertype, for form's sake */
	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -errno;
	skel->data->payload_len = len;
	/* The sequence counter says how many ran, also after an interruption. */
	while ((done = skel->bss->seq_next - start) < n) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = burst ? (__u32)(n - done) : 1);

		err = bpf_prog_test_run_opts(prog_fd, &opts);
		if (err == -EINTR && !got_signal)
			continue;
		if (err)
			break;
	}
	sched_setaffinity(0, sizeof(old), &old);
	return err;
}

static void command(struct producer_bpf *skel, char *line, bool *quit)
{
	unsigned int cpu, n, len;
	struct counts a, b;
	char word[16];
	int err;

	if (sscanf(line, "%15s", word) != 1)
		return;
	if (strcmp(word, "quit") == 0) {
		*quit = true;
	} else if (strcmp(word, "counts") == 0) {
		a = read_counts(skel);
		printf("counts seq %llu ok %llu enospc %llu enoent %llu other %llu\n", a.seq, a.ok, a.enospc,
		       a.enoent, a.other);
	} else if (strcmp(word, "run") == 0 || strcmp(word, "burst") == 0) {
		if (sscanf(line, "%*s %u %u %u", &cpu, &n, &len) != 3 || cpu >= CPU_SETSIZE || !n ||
		    len < sizeof(struct producer_sample) || len > PRODUCER_MAX_LEN) {
			printf("error usage: %s CPU N LEN (LEN from %zu to %u)\n", word,
			       sizeof(struct producer_sample), PRODUCER_MAX_LEN);
			return;
		}
		b = read_counts(skel);
		err = produce(skel, (int)cpu, n, len, word[0] == 'b');
		a = read_counts(skel);
		if (err)
			printf("error %s on cpu %u: %s\n", word, cpu, strerror(-err));
		else
			printf("ran %llu ok %llu enospc %llu enoent %llu other %llu\n", a.seq - b.seq, a.ok - b.ok,
			       a.enospc - b.enospc, a.enoent - b.enoent, a.other - b.other);
	} else {
		printf("error unknown command '%s' (run, burst, counts, quit)\n", word);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "scratch", required_argument, NULL, 's' },
		{ "prog", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct producer_bpf *skel;
	struct sigaction sa;
	char line[256];
	bool quit = false;
	int c, err, ret = 1;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			pins.events = optarg;
			break;
		case 's':
			pins.scratch = optarg;
			break;
		case 'p':
			pins.prog = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s --events PATH [--scratch PATH] [--prog PATH]\n", argv[0]);
			return 2;
		}
	}
	if (!pins.events || optind < argc) {
		fprintf(stderr, "usage: %s --events PATH [--scratch PATH] [--prog PATH]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read of stdin returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	skel = producer_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "pin_producer: loading the producer failed: %s\n", strerror(errno));
		return 1;
	}
	err = fill_scratch(skel);
	if (err) {
		fprintf(stderr, "pin_producer: filling scratch: %s\n", strerror(-err));
		goto out;
	}
	if (bpf_obj_pin(bpf_map__fd(skel->maps.events), pins.events)) {
		fprintf(stderr, "pin_producer: pinning events at %s: %s\n", pins.events, strerror(errno));
		pins.events = NULL; /* not ours to remove */
		goto out;
	}
	if (pins.scratch && bpf_obj_pin(bpf_map__fd(skel->maps.scratch), pins.scratch)) {
		fprintf(stderr, "pin_producer: pinning scratch at %s: %s\n", pins.scratch, strerror(errno));
		pins.scratch = NULL;
		goto out;
	}
	if (pins.prog && bpf_obj_pin(bpf_program__fd(skel->progs.produce), pins.prog)) {
		fprintf(stderr, "pin_producer: pinning the program at %s: %s\n", pins.prog, strerror(errno));
		pins.prog = NULL;
		goto out;
	}
	printf("events_id %u\n", obj_id(bpf_map__fd(skel->maps.events)));
	printf("scratch_id %u\n", obj_id(bpf_map__fd(skel->maps.scratch)));
	printf("ready\n");

	while (!quit && !got_signal && fgets(line, sizeof(line), stdin))
		command(skel, line, &quit);
	ret = 0;
out:
	unpin_all();
	producer_bpf__destroy(skel);
	return ret;
}

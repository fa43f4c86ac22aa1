// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record fuzz harness as a plain program (gcc, no libFuzzer): runs every
 * file given, and every file of every directory given, through
 * LLVMFuzzerTestOneInput's checks and prints one line per input. A finding
 * aborts with a "record_fuzz: FINDING:" line, as under the fuzzer.
 *
 *   record_replay tests/fuzz/corpus/record crash-0123...
 *
 * Built by make as $(O)/fuzz/record_replay (with -DPERFRING_FUZZ_REPLAY).
 */
#include "record_fuzz.c"

static void print_outcome(const char *path, const struct rf_outcome *o, void *ctx)
{
	char line[160];

	(void)ctx;
	rf_describe(o, line, sizeof(line));
	printf("%s: %s\n", path, line);
}

int main(int argc, char **argv)
{
	int i, n, total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		n = rf_replay(argv[i], print_outcome, NULL);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-n));
			return 1;
		}
		total += n;
	}
	printf("%d inputs, no finding\n", total);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A main() for any fuzz target of tests/fuzz/NAME_fuzz.c, built without
 * libFuzzer (gcc, or a sanitizer build) as $(O)/fuzz/NAME_replay: it runs
 * every file given, and every file of every directory given, through
 * LLVMFuzzerTestOneInput once. The target aborts on a finding (after a
 * "NAME_fuzz: FINDING:" line), so reaching the end means every input held.
 * scripts/run-tests.sh runs each NAME_replay over tests/fuzz/corpus/NAME in
 * every suite (plain, valgrind, ASan+UBSan); a crash file from a long
 * libFuzzer run replays the same way:  build/fuzz/ring_replay crash-0123...
 * Ends with "N passed, 0 failed" (N inputs) for the test runner.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional, as with libFuzzer: a target may define it to set itself up. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	/* A copy of exactly len bytes (at least one, for malloc), so that the
	 * sanitizers see a read past the input's end. */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	printf("%s (%ld bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order, so that runs are reproducible. */
static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int total = 0, r;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		if (asprintf(&names[n++], "%s/%s", dir, e->d_name) < 0)
			abort();
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		r = run_file(names[i]);
		if (r < 0) {
			fprintf(stderr, "%s: %s\n", names[i], strerror(-r));
			total = r;
			break;
		}
		total += r;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return total;
}

int main(int argc, char **argv)
{
	int i, n, total = 0;
	struct stat st;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			printf("0 passed, 1 failed\n");
			return 1;
		}
		n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-n));
			printf("%d passed, 1 failed\n", total);
			return 1;
		}
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "no input files\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	printf("%d passed, 0 failed\n", total);
	return 0;
}

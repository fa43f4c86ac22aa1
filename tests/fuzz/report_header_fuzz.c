// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of `perfring report --header-only` (tools/report/header.c
 * and the files that share report_header.h): the input is a perf.data file,
 * in file or pipe mode, however its offsets, sizes, counts and lengths lie.
 * Nothing may be read outside it (ASan), nothing leak (LeakSanitizer),
 * nothing loop for long (libFuzzer's timeout). It is printed twice: from
 * memory (report_header_mem()), and, when it fits a pipe, read from one as
 * perf's pipe mode is (report_header_out() on /proc/self/fd/N), which takes
 * the stream reading too: a stream is read up to the record that ends its
 * features. The text goes to /dev/null.
 * Seeds: tests/fuzz/corpus/report_header/ (small files perf 6.1 recorded:
 * plain, call chains, a clock, an event group, zstd, pipe mode, big-endian
 * copies; and corpus files with group descriptions, hybrid topology and
 * PMU capabilities, a compressed pipe).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "report/header.h"

static FILE *devnull;

/* The bytes through a pipe: written whole first (the pipe grown to hold
 * them, or the input left out), then read by the printer from its path. */
static void through_pipe(const uint8_t *data, size_t size)
{
	char path[64];
	int fd[2];
	ssize_t n;

	if (pipe2(fd, O_CLOEXEC | O_NONBLOCK))
		return;
	if (size <= 65536 || fcntl(fd[1], F_SETPIPE_SZ, (int)size) >= (int)size) {
		n = size ? write(fd[1], data, size) : 0;
		close(fd[1]);
		fd[1] = -1;
		if (n == (ssize_t)size) {
			/* opened anew (blocking), the pipe reads to its end: no writer is left */
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd[0]);
			report_header_out("report", path, devnull);
		}
	}
	if (fd[1] >= 0)
		close(fd[1]);
	close(fd[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *err = stderr;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		return 0;
	/* The one-line errors (tool_error() writes to stderr) go nowhere too;
	 * the sanitizers and libFuzzer write to fd 2 without this FILE. */
	stderr = devnull;
	report_header_mem("report", "input", data, size, devnull);
	through_pipe(data, size);
	stderr = err;
	return 0;
}

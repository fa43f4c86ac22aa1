// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fuzz target of the perf.data reader on a stream: the input is written to
 * a pipe (by a thread, so that inputs larger than the pipe's buffer work)
 * and read with perfring_perfdata_open_fd, in file order and in time order.
 * Stream reading is its own code (bounded chunks, the stream's buffer
 * compacted as records are consumed, file-mode input slurped). A stream
 * must give what the same bytes in memory give.
 * Seeds: tests/fuzz/corpus/perfdata_pipe/ (pipe-mode files, the hostile
 * pipe files).
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "perfdata_fuzz_common.h"

struct feed {
	int fd;
	const uint8_t *data;
	size_t size;
};

static void *feeder(void *arg)
{
	struct feed *f = arg;
	size_t off = 0;

	while (off < f->size) {
		ssize_t n = write(f->fd, f->data + off, f->size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the reader stopped early (EPIPE) */
		off += (size_t)n;
	}
	close(f->fd);
	return NULL;
}

static long read_stream(const uint8_t *data, size_t size, bool ordered, uint64_t *nrec)
{
	struct perfring_perfdata_opts o = pdf_opts(ordered);
	struct perfring_perfdata *pd;
	struct feed f = { .data = data, .size = size };
	pthread_t t;
	int p[2];
	long n = -2;

	if (pipe2(p, O_CLOEXEC))
		return -2;
	f.fd = p[1];
	if (pthread_create(&t, NULL, feeder, &f)) {
		close(p[0]);
		close(p[1]);
		return -2;
	}
	pd = perfring_perfdata_open_fd(p[0], &o);
	if (pd) {
		n = pdf_read_all(pd, NULL, NULL);
		perfring_perfdata_free(pd);
	}
	close(p[0]); /* the feeder gets EPIPE if the reader stopped early */
	pthread_join(t, NULL);
	*nrec = n > 0 ? (uint64_t)n : 0;
	return n;
}

static long read_mem(const uint8_t *data, size_t size, bool ordered)
{
	struct perfring_perfdata_opts o = pdf_opts(ordered);
	struct perfring_perfdata *pd = perfring_perfdata_open_mem(data, size, &o);
	long n = -2;

	if (pd) {
		n = pdf_read_all(pd, NULL, NULL);
		perfring_perfdata_free(pd);
	}
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int ordered;

	for (ordered = 0; ordered < 2; ordered++) {
		uint64_t nrec;
		long s = read_stream(data, size, ordered, &nrec), m = read_mem(data, size, ordered);

		/* Clean in memory: clean as a stream too, with the same count. */
		if (m >= 0 && s != m)
			pdf_finding("a stream reads otherwise than the same bytes in memory", (unsigned long long)s);
	}
	return 0;
}

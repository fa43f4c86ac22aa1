/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* For the readahead thread's tests: how many of this process's tasks are
 * the reader's threads (named perfring-ra), read from /proc/self/task. */
#ifndef PERFRING_TEST_READAHEAD_THREADS_H
#define PERFRING_TEST_READAHEAD_THREADS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f) {
			n += fgets(comm, sizeof(comm), f) && strcmp(comm, "perfring-ra\n") == 0;
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

#endif

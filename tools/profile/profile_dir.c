// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The output directory: each profile written whole under a temporary name
 * and renamed (a reader never sees half a file), then the directory's
 * profiles ("profile-*" files, named by their interval's UTC time so that
 * names sort by age) kept under a size bound by removing the oldest.
 * Other files in the directory are neither counted nor touched.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile/profile_tool.h"
#include "shared/tool.h"

#define CMD PROFILE_CMD
#define PREFIX "profile-"

int profile_dir_check(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return tool_error(CMD, "cannot make directory '%s': %s", dir, strerror(errno));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return tool_error(CMD, "'%s' is not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return tool_error(CMD, "cannot write to directory '%s': %s", dir, strerror(errno));
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct dent {
	char *name;
	uint64_t size;
};

static int dent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name, ((const struct dent *)b)->name);
}

/* Remove the oldest profiles until the rest fit max_size. */
static void bound(const char *dir, uint64_t max_size, uint64_t *removed)
{
	struct dent *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0;
	char path[4096];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, PREFIX, strlen(PREFIX)) || strstr(d->d_name, ".tmp"))
			continue;
		if (fstatat(dirfd(dp), d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n].name = strdup(d->d_name)))
			break;
		v[n++].size = (uint64_t)st.st_size;
		total += (uint64_t)st.st_size;
	}
	closedir(dp);
	qsort(v, n, sizeof(*v), dent_cmp);
	/* the newest file stays even when it alone is over the bound */
	for (i = 0; i + 1 < n && total > max_size; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		if (unlink(path) == 0) {
			total -= v[i].size;
			(*removed)++;
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int profile_dir_put(const char *dir, const char *name, const void *data, size_t len, uint64_t max_size,
		    uint64_t *removed)
{
	char tmp[4096], path[4096];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		tool_error(CMD, "cannot write '%s': %s", tmp, strerror(-err));
		return err;
	}
	err = write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		tool_error(CMD, "cannot write '%s': %s", path, strerror(-err));
		return err;
	}
	if (max_size)
		bound(dir, max_size, removed);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where tracefs is mounted, mounting it when nothing is and we may. */
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <perfring/event.h>

#include "common/internal.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* A tracefs root is usable when its events/ directory can be read (on old
 * kernels /sys/kernel/debug/tracing is a debugfs automount of tracefs, so
 * checking for events/ covers both). A denial is remembered in *denied. */
static bool tracefs_usable(const char *dir, int *denied)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/events", dir);
	if (access(path, R_OK | X_OK) == 0)
		return true;
	if (errno == EACCES && !*denied)
		*denied = EACCES;
	return false;
}

static int tracefs_copy(const char *dir, char *buf, size_t len)
{
	if (!buf || strlen(dir) >= len)
		return pr_fail(ENAMETOOLONG, "tracefs path %s does not fit in a %zu-byte buffer", dir, len);
	memcpy(buf, dir, strlen(dir) + 1);
	return 0;
}

int perfring_tracefs_path(char *buf, size_t len)
{
	size_t i;
	int err = 0, denied = 0;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		if (tracefs_usable(tracefs_dirs[i], &denied))
			return tracefs_copy(tracefs_dirs[i], buf, len);
	if (denied)
		return pr_fail(EACCES, "tracefs at %s or %s is not readable by this user: run as root, or make "
			       "its events/ directory readable", tracefs_dirs[0], tracefs_dirs[1]);
	/* Nothing mounted: mount it where current kernels expect it. Fails
	 * harmlessly (EPERM) without CAP_SYS_ADMIN. */
	if (mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) == 0) {
		if (tracefs_usable(tracefs_dirs[0], &denied))
			return tracefs_copy(tracefs_dirs[0], buf, len);
	} else {
		err = errno;
	}
	return pr_fail(ENOENT,
		       "tracefs not found at %s or %s%s%s: mount it (mount -t tracefs nodev %s) or run as root "
		       "so that perfring can",
		       tracefs_dirs[0], tracefs_dirs[1], err ? ", and mounting it failed: " : "",
		       err ? strerror(err) : "", tracefs_dirs[0]);
}

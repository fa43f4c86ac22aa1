// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Binaries by their recorded build id (see buildid.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfring/symbol.h>

#include "shared/buildid.h"

const char *build_id_cached_path(const uint8_t *id, size_t size, bool vdso, char *buf, size_t len)
{
	char hex[2 * PERFRING_BUILD_ID_MAX + 1];
	const char *home = getenv("HOME");
	struct stat st;
	size_t i;
	int n;

	if (!home || !size || size > PERFRING_BUILD_ID_MAX)
		return NULL;
	for (i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	n = vdso ? snprintf(buf, len, "%s/.debug/[vdso]/%s/vdso", home, hex)
		 : snprintf(buf, len, "%s/.debug/.build-id/%.2s/%s/elf", home, hex, hex + 2);
	if (n < 0 || (size_t)n >= len)
		return NULL;
	return !stat(buf, &st) && S_ISREG(st.st_mode) ? buf : NULL;
}

bool file_has_build_id(const char *path, const uint8_t *id, size_t size)
{
	uint8_t have[PERFRING_BUILD_ID_MAX];
	int n = perfring_elf_build_id(path, have); /* opens regular files only */

	return n > 0 && (size_t)n == size && !memcmp(have, id, size);
}

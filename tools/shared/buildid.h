/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Binaries by their recorded build id, as perf report finds them: its
 * build-id cache (~/.debug, which perf record fills), else the file at the
 * recorded path when it is still the one recorded (buildid.c).
 */
#ifndef PERFRING_TOOL_BUILDID_H
#define PERFRING_TOOL_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* perf record's copy of the binary with build id id[0..size) in $HOME/.debug
 * ("/.build-id/ab/cdef.../elf"; the vDSO's "/[vdso]/HEX/vdso"), written into
 * buf (len bytes): buf when that is a regular file, else NULL. */
const char *build_id_cached_path(const uint8_t *id, size_t size, bool vdso, char *buf, size_t len);

/* The ELF file at path (a regular file) has the build id id[0..size). */
bool file_has_build_id(const char *path, const uint8_t *id, size_t size);

#endif

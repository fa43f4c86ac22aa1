// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring pipe` on a BPF ring buffer: find the lost-record map of
 * perfring_ringbuf.bpf.h next to it. The program that writes the ring
 * buffer uses both maps, so the programs holding the ring buffer's id are
 * searched for a map named PERFRING_RINGBUF_LOST_MAP (as the kernel keeps
 * it: at most BPF_OBJ_NAME_LEN - 1 characters).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <perfring/ringbuf.h>

#include "pipe/pipe_ringbuf.h"

/* Whether map fd is the lost map: its name, type and sizes. */
static bool is_lost_map(int fd, uint32_t *id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*id = info.id;
	return info.type == BPF_MAP_TYPE_PERCPU_ARRAY && info.key_size == 4 && info.value_size == 8 &&
	       !strncmp(info.name, PERFRING_RINGBUF_LOST_MAP, sizeof(info.name) - 1);
}

/* Among the maps of program prog_id, the lost map: its fd, or -1. */
static int lost_map_of_prog(uint32_t prog_id, uint32_t rb_id, uint32_t *lost_id)
{
	struct bpf_prog_info info;
	uint32_t ids[64];
	__u32 len = sizeof(info), i;
	bool uses_rb = false;
	int pfd, fd, found = -1;

	pfd = bpf_prog_get_fd_by_id(prog_id);
	if (pfd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 64;
	info.map_ids = (__u64)(unsigned long)ids;
	if (bpf_obj_get_info_by_fd(pfd, &info, &len)) {
		close(pfd);
		return -1;
	}
	close(pfd);
	for (i = 0; i < info.nr_map_ids && i < 64; i++)
		uses_rb |= ids[i] == rb_id;
	for (i = 0; uses_rb && found < 0 && i < info.nr_map_ids && i < 64; i++) {
		fd = bpf_map_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		if (is_lost_map(fd, lost_id))
			found = fd;
		else
			close(fd);
	}
	return found;
}

int pipe_find_lost_map(uint32_t rb_id, uint32_t *lost_id)
{
	uint32_t id = 0;
	int fd;

	while (!bpf_prog_get_next_id(id, &id)) {
		fd = lost_map_of_prog(id, rb_id, lost_id);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

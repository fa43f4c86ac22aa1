// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records for tasks that already run when `perfring record -a/-p/-t`
 * starts, as perf record synthesizes them: the kernel only reports mmaps
 * and execs that happen after the events are opened, so without these a
 * sample of a running process has no name and no binary.
 *
 * Per process: PERF_RECORD_COMM of each thread (pid, tid, /proc/PID/task/
 * TID/comm) and PERF_RECORD_MMAP2 of each executable mapping of
 * /proc/PID/maps (perf's default, without --data), "//anon" for an anonymous
 * one (JIT code). Kernel threads get their COMM only. Every record ends
 * with a zeroed sample_id trailer (time 0: before every kernel record; id
 * 0: perf gives it to the first event), as perf writes them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/perfring.h>
#include <perfring/perfdata_write.h>

#include "record/record_synth.h"

#define SYNTH_NAME_MAX 4096

struct synth {
	struct perfring_perfdata_writer *w;
	size_t trailer;
	uint64_t records;
	uint8_t buf[64 + SYNTH_NAME_MAX + 64 + 64];
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Finish the record at s->buf with body bytes after the header: the
 * zeroed trailer, the header, then the write. */
static int synth_emit(struct synth *s, uint32_t type, uint16_t misc, size_t body)
{
	struct perf_event_header h = { type, misc, (uint16_t)(8 + body + s->trailer) };
	int err;

	memset(s->buf + 8 + body, 0, s->trailer);
	memcpy(s->buf, &h, 8);
	err = perfring_perfdata_writer_write(s->w, s->buf, h.size);
	if (!err)
		s->records++;
	return err;
}

static bool read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

static int synth_comm(struct synth *s, uint32_t pid, uint32_t tid)
{
	char path[64], comm[32];
	uint32_t ids[2] = { pid, tid };
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if (!read_line(path, comm, sizeof(comm)))
		return 0; /* gone meanwhile */
	n = strlen(comm) + 1;
	memcpy(s->buf + 8, ids, 8);
	memset(s->buf + 16, 0, pad8(n));
	memcpy(s->buf + 16, comm, n);
	return synth_emit(s, PERF_RECORD_COMM, 0, 8 + pad8(n));
}

/* One /proc/PID/maps line as MMAP2; non-executable mappings are skipped. */
static int synth_map(struct synth *s, uint32_t pid, char *line)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[8];
	const char *name;
	uint32_t u32[2], prot = 0, flags;
	uint64_t u64[3];
	size_t n;
	int pos = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino, &pos) < 7 ||
	    strlen(perms) < 4 || perms[2] != 'x')
		return 0;
	name = line + pos;
	if (!*name)
		name = "//anon";
	n = strlen(name) + 1;
	if (n > SYNTH_NAME_MAX)
		return 0;
	prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	u32[0] = u32[1] = pid;
	memcpy(s->buf + 8, u32, 8);
	u64[0] = start;
	u64[1] = end - start;
	u64[2] = off;
	memcpy(s->buf + 16, u64, 24);
	u32[0] = maj;
	u32[1] = min;
	memcpy(s->buf + 40, u32, 8);
	u64[0] = ino;
	u64[1] = 0; /* ino_generation: not in /proc */
	memcpy(s->buf + 48, u64, 16);
	u32[0] = prot;
	u32[1] = flags;
	memcpy(s->buf + 64, u32, 8);
	memset(s->buf + 72, 0, pad8(n));
	memcpy(s->buf + 72, name, n);
	return synth_emit(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 64 + pad8(n));
}

static int synth_maps(struct synth *s, uint32_t pid)
{
	char path[64], line[SYNTH_NAME_MAX + 256];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f))
		err = synth_map(s, pid, line);
	fclose(f);
	return err;
}

static bool parse_pid(const char *s, uint32_t *pid)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	v = strtoul(s, &end, 10);
	if (*end || v == 0 || v > INT32_MAX)
		return false;
	*pid = (uint32_t)v;
	return true;
}

/* pid's threads (only tid when not 0): COMMs, then pid's maps. */
static int synth_process(struct synth *s, uint32_t pid, uint32_t only_tid)
{
	char path[64];
	struct dirent *d;
	uint32_t tid;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0; /* exited meanwhile */
	/* the main thread first: perf makes it the process's leader */
	if (!only_tid || only_tid == pid)
		err = synth_comm(s, pid, pid);
	while (!err && (d = readdir(dir)))
		if (parse_pid(d->d_name, &tid) && tid != pid && (!only_tid || only_tid == tid))
			err = synth_comm(s, pid, tid);
	closedir(dir);
	return err ?: synth_maps(s, pid);
}

/* The process a thread belongs to (Tgid: in /proc/TID/status). */
static uint32_t tgid_of(uint32_t tid)
{
	char path[64], line[256];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &v) == 1)
			break;
	fclose(f);
	return v;
}

int record_synth(struct perfring_perfdata_writer *w, size_t trailer, const int *pids, int nr_pids, bool tids,
		 uint64_t *records)
{
	struct synth *s = calloc(1, sizeof(*s));
	struct dirent *d;
	uint32_t pid;
	DIR *dir;
	int i, err = 0;

	if (!s)
		return -ENOMEM;
	s->w = w;
	s->trailer = trailer;
	if (nr_pids < 0) {
		dir = opendir("/proc");
		if (!dir) {
			err = -errno;
			free(s);
			return err;
		}
		while (!err && (d = readdir(dir)))
			if (parse_pid(d->d_name, &pid))
				err = synth_process(s, pid, 0);
		closedir(dir);
	}
	for (i = 0; i < nr_pids && !err; i++) {
		if (tids) {
			pid = tgid_of((uint32_t)pids[i]);
			if (pid)
				err = synth_process(s, pid, (uint32_t)pids[i]);
		} else {
			err = synth_process(s, (uint32_t)pids[i], 0);
		}
	}
	if (records)
		*records = s->records;
	free(s);
	return err;
}

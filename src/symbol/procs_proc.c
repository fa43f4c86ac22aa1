// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Processes that existed before recording started: read once from
 * /proc/PID/{comm,maps}, as perf record synthesizes them. Each mapped file's
 * build id is read then (once per file name), so that a file replaced later
 * is noticed by the symbolizer instead of giving wrong names.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "symbol/symbol_internal.h"

static void read_comm(struct perfring_procs *p, struct pr_proc *proc, const char *dir)
{
	char path[PATH_MAX + 16], buf[64];
	const char *comm;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/comm", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	comm = pr_intern_str(&p->strs, buf);
	if (comm)
		proc->comm = comm;
}

/* The file's build id, read once per name: through the process's root
 * first (its mount namespace), then the name as it is. */
static void read_build_id(struct perfring_procs *p, const char *dir, struct pr_map *m)
{
	struct pr_istr *e = pr_istr_of(m->path);
	char path[2 * PATH_MAX + 16];
	int r;

	if (!e->bid_tried && m->path[0] == '/') {
		e->bid_tried = 1;
		snprintf(path, sizeof(path), "%s/root%s", dir, m->path);
		r = pr_elf_file_build_id(path, e->bid);
		if (r == -ENOENT || r == -EACCES)
			r = pr_elf_file_build_id(m->path, e->bid);
		e->bid_size = r > 0 ? (uint8_t)r : 0;
	}
	m->bid_size = e->bid_size;
	memcpy(m->bid, e->bid, e->bid_size);
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode   path". */
static int parse_line(struct perfring_procs *p, char *line, struct pr_map *m)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;
	char *path;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj, &min, &ino, &pos) < 7 ||
	    end <= start)
		return -1;
	path = line + pos;
	path[strcspn(path, "\n")] = '\0';
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	m->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	/* perf's name for anonymous memory. */
	m->path = pr_intern_str(&p->strs, *path ? path : "//anon");
	return m->path ? 0 : -ENOMEM;
}

int perfring_procs_load_proc(struct perfring_procs *p, uint32_t pid)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	char *line = NULL;
	size_t cap = 0;
	struct pr_proc *proc;
	FILE *f;
	int r = 0;

	if (!p)
		return pr_fail(EINVAL, "perfring_procs_load_proc: NULL procs");
	snprintf(dir, sizeof(dir), "%s/%u", p->proc_root, pid);
	snprintf(path, sizeof(path), "%s/maps", dir);
	f = fopen(path, "re");
	if (!f) {
		int err = errno == ENOENT ? ESRCH : errno;

		return pr_fail(err, "perfring_procs_load_proc: %s: %s", path, strerror(errno));
	}
	proc = pr_procs_get(p, pid, true);
	if (!proc) {
		fclose(f);
		return pr_fail(ENOMEM, "perfring_procs_load_proc: out of memory");
	}
	pr_proc_clear_maps(p, proc);
	proc->exited = false;
	read_comm(p, proc, dir);
	while (getline(&line, &cap, f) > 0) {
		struct pr_map m;

		r = parse_line(p, line, &m);
		if (r == -ENOMEM)
			break;
		if (r) {
			r = 0;
			continue;
		}
		if (!p->no_build_ids)
			read_build_id(p, dir, &m);
		r = pr_proc_add_map(p, proc, &m);
		if (r)
			break;
	}
	free(line);
	fclose(f);
	if (r)
		return pr_fail(ENOMEM, "perfring_procs_load_proc: pid %u: out of memory", pid);
	return 0;
}

int perfring_procs_load_all(struct perfring_procs *p)
{
	struct dirent *e;
	DIR *d;
	int n = 0, r;

	if (!p)
		return pr_fail(EINVAL, "perfring_procs_load_all: NULL procs");
	d = opendir(p->proc_root);
	if (!d)
		return pr_fail(errno, "perfring_procs_load_all: %s: %s", p->proc_root, strerror(errno));
	while ((e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (*end || end == e->d_name || pid > UINT32_MAX)
			continue;
		r = perfring_procs_load_proc(p, (uint32_t)pid);
		if (r == -ENOMEM) {
			closedir(d);
			return r;
		}
		if (r == 0)
			n++;
		/* Other failures: the process exited, or is a kernel thread we
		 * may not read; go on. */
	}
	closedir(d);
	return n;
}

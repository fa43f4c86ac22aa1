// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live decode of task side-band records: a dummy event on this process
 * (inherit, task, comm, comm_exec, mmap, mmap2, mmap_data, sample_id_all
 * with TID | TIME | ID | CPU | IDENTIFIER) sees the test fork a child that
 * execs /bin/true. The test knows: FORK {child, us}, COMM "true" with the
 * exec bit, MMAP2 of the image with its path, device, inode and the
 * offsets of its executable segment (read from its ELF program headers),
 * EXIT {child, us}; trailers name the task that emitted each record and
 * carry the event's id. A second test asks for build ids (attr.build_id)
 * and compares the MMAP2's with the image's GNU build-id note.
 */
#include <elf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "rectest.h"

#define TRUE_PATH "/bin/true"

/* What the test knows about the image: the file, and its executable segment. */
struct image {
	char path[PATH_MAX]; /* realpath: what the kernel's d_path gives */
	struct stat st;
	uint64_t x_pgoff, x_len; /* pgoff and length of the PF_X PT_LOAD's mapping */
	uint8_t build_id[20];
	uint32_t build_id_size;
};

static int read_image(struct image *img, char *why, size_t whylen)
{
	static uint8_t file[1 << 20];
	long page = sysconf(_SC_PAGESIZE);
	Elf64_Ehdr eh;
	ssize_t len;
	int fd, i;

	memset(img, 0, sizeof(*img));
	if (!realpath(TRUE_PATH, img->path) || stat(img->path, &img->st)) {
		snprintf(why, whylen, "%s: %s", TRUE_PATH, strerror(errno));
		return -1;
	}
	fd = open(img->path, O_RDONLY | O_CLOEXEC);
	len = fd < 0 ? -1 : read(fd, file, sizeof(file));
	if (fd >= 0)
		close(fd);
	if (len < (ssize_t)sizeof(eh)) {
		snprintf(why, whylen, "cannot read %.200s", img->path);
		return -1;
	}
	memcpy(&eh, file, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > (uint64_t)len) {
		snprintf(why, whylen, "%.200s is not a readable ELF64 file", img->path);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, file + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && !img->x_len) {
			/* binfmt_elf maps [p_vaddr page start, p_vaddr + p_filesz) from
			 * the file offset rounded down alike. */
			uint64_t in_page = ph.p_vaddr & (uint64_t)(page - 1);

			img->x_pgoff = ph.p_offset - in_page;
			img->x_len = (ph.p_filesz + in_page + (uint64_t)page - 1) & ~(uint64_t)(page - 1);
		}
		if (ph.p_type == PT_NOTE && ph.p_offset + ph.p_filesz <= (uint64_t)len) {
			uint64_t off = ph.p_offset, end = ph.p_offset + ph.p_filesz;

			while (off + sizeof(Elf64_Nhdr) <= end) {
				Elf64_Nhdr nh;
				uint64_t name_off = off + sizeof(nh), desc_off;

				memcpy(&nh, file + off, sizeof(nh));
				desc_off = name_off + ((nh.n_namesz + 3) & ~3u);
				if (desc_off + nh.n_descsz > end)
					break;
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp(file + name_off, "GNU", 4) && nh.n_descsz <= 20) {
					memcpy(img->build_id, file + desc_off, nh.n_descsz);
					img->build_id_size = nh.n_descsz;
				}
				off = desc_off + ((nh.n_descsz + 3) & ~3u);
			}
		}
	}
	if (!img->x_len) {
		snprintf(why, whylen, "%.200s has no executable PT_LOAD", img->path);
		return -1;
	}
	return 0;
}

static bool near(uint64_t a, uint64_t b, uint64_t tolerance)
{
	return a > b ? a - b <= tolerance : b - a <= tolerance;
}

/* What was seen, and the checks done on the way. */
struct task_seen {
	int fork, comm_exec, comm_other, mmap2_image, mmap2_image_x, mmap2_other, mmap1, exits, other;
	int build_ids;
	uint64_t t_fork, t_comm, t_image, t_exit; /* for their order */
};

/*
 * Fork a child that execs /bin/true while a dummy event with the given
 * flags watches this process on every CPU (an inherited per-task event
 * cannot be mapped: one event per CPU, as perf record does); returns the
 * records in p's rings, the child's pid and the window of times.
 */
static int run_child(struct perf_event_attr *attr, struct rt_percpu *p, int *child_pid, uint64_t *t0, uint64_t *t1,
		     struct rt_err *e)
{
	int status = 0, ret;
	pid_t child;

	if (rt_percpu_open(p, attr, 0, 64, e))
		return -1;
	*t0 = rt_now_ns();
	ret = rt_percpu_ioctl(p, PERF_EVENT_IOC_ENABLE);
	if (ret) {
		rt_errf(e, "PERF_EVENT_IOC_ENABLE: %s", strerror(-ret));
		return -1;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		execl(TRUE_PATH, "true", (char *)NULL);
		_exit(127);
	}
	if (child < 0) {
		rt_errf(e, "fork: %s", strerror(errno));
		return -1;
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rt_errf(e, "child %d: status %#x", child, status);
	*child_pid = child;
	rt_percpu_ioctl(p, PERF_EVENT_IOC_DISABLE);
	*t1 = rt_now_ns();
	ret = rt_percpu_drain(p);
	if (ret < 0)
		rt_errf(e, "drain: %d %s", ret, perfring_errmsg());
	return 0;
}

static void check_string_field(const char *what, const char *str, const struct perfring_bytes *field,
			       const struct perfring_decoded *d, const struct perfring_parse_config *cfg,
			       struct rt_err *e)
{
	const uint8_t *f = field->data, *rec = d->raw;
	size_t slen, k;

	if (!str || !f || (const void *)str != field->data) {
		rt_errf(e, "%s: string %p, field at %p", what, (const void *)str, field->data);
		return;
	}
	slen = strnlen(str, field->len);
	if (slen == field->len) {
		rt_errf(e, "%s: no NUL inside its %llu-byte field", what, (unsigned long long)field->len);
		return;
	}
	/* The kernel pads with NULs to 8 bytes, and the trailer follows at once. */
	if (field->len != rt_align8(slen + 1))
		rt_errf(e, "%s \"%s\": field of %llu bytes, expected %llu", what, str, (unsigned long long)field->len,
			(unsigned long long)rt_align8(slen + 1));
	for (k = slen; k < field->len; k++)
		if (f[k])
			rt_errf(e, "%s \"%s\": padding byte %zu is %#x", what, str, k, f[k]);
	if (f + field->len + cfg->id_trailer_size != rec + d->size)
		rt_errf(e, "%s \"%s\": field ends at %td, the trailer of %u bytes leaves %u", what, str,
			f + field->len - rec, cfg->id_trailer_size, d->size - cfg->id_trailer_size);
}

/* The records of one CPU's ring (its event's id is id). */
static void check_ring(const struct perf_event_attr *attr, const struct perfring_parse_config *cfg,
		       const struct rt_recs *r, int cpu, uint64_t id, const struct image *img, int child, uint64_t t0,
		       uint64_t t1, struct task_seen *seen, struct rt_err *e)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t last_time = 0;
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct perfring_decoded d;
		const struct perfring_sample_id *sid = &d.sample_id;
		const char *name;

		if (rt_decode(cfg, rt_rec(r, i), rt_rec_size(r, i), &d, e))
			continue;
		name = perfring_record_type_name(d.type) ?: "?";
		if (d.type == PERF_RECORD_SAMPLE) {
			rt_errf(e, "a SAMPLE from a dummy event");
			continue;
		}
		/* Every record carries the id of this CPU's event (an inherited
		 * event reports its parent's) and this CPU. */
		rt_check_trailer(cfg, &d, -1, -1, t0, t1, e);
		if (sid->id != id || sid->identifier != id || sid->cpu != (uint32_t)cpu)
			rt_errf(e, "%s: trailer id %llu identifier %llu cpu %u, in the ring of cpu %d, event id %llu",
				name, (unsigned long long)sid->id, (unsigned long long)sid->identifier, sid->cpu, cpu,
				(unsigned long long)id);
		if (sid->time < last_time)
			rt_errf(e, "%s: time %llu after %llu in the ring of cpu %d", name,
				(unsigned long long)sid->time, (unsigned long long)last_time, cpu);
		last_time = sid->time;
		switch (d.type) {
		case PERF_RECORD_FORK: {
			const struct perfring_rec_fork_exit *f = &d.u.fork_exit;

			if (f->pid != (uint32_t)child)
				break; /* not ours (none expected, but harmless) */
			seen->fork++;
			seen->t_fork = f->time;
			if (f->tid != (uint32_t)child || f->ppid != (uint32_t)getpid() ||
			    f->ptid != (uint32_t)gettid())
				rt_errf(e, "FORK pid %u tid %u ppid %u ptid %u; child %d, we are %d/%d",
					f->pid, f->tid, f->ppid, f->ptid, child, getpid(), gettid());
			/* The body's time and the trailer's are read apart, close together. */
			if (f->time < t0 || f->time > t1 || !near(f->time, sid->time, 1000000))
				rt_errf(e, "FORK time %llu, trailer %llu, window [%llu, %llu]",
					(unsigned long long)f->time, (unsigned long long)sid->time,
					(unsigned long long)t0, (unsigned long long)t1);
			/* Emitted by the parent while it forks. */
			if (sid->pid != (uint32_t)getpid() || sid->tid != (uint32_t)gettid())
				rt_errf(e, "FORK trailer pid/tid %u/%u, the forking thread is %d/%d",
					sid->pid, sid->tid, getpid(), gettid());
			if (perfring_misc_fork_exec(d.misc))
				rt_errf(e, "FORK with the (perf-internal) FORK_EXEC bit");
			if (d.size != 8 + 24 + cfg->id_trailer_size)
				rt_errf(e, "FORK of %u bytes", d.size);
			break;
		}
		case PERF_RECORD_EXIT: {
			const struct perfring_rec_fork_exit *f = &d.u.fork_exit;

			if (f->pid != (uint32_t)child)
				break;
			seen->exits++;
			seen->t_exit = f->time;
			/* EXIT's ppid and ptid are both the parent's pid. */
			if (f->tid != (uint32_t)child || f->ppid != (uint32_t)getpid() ||
			    f->ptid != (uint32_t)getpid())
				rt_errf(e, "EXIT pid %u tid %u ppid %u ptid %u; child %d, parent %d", f->pid, f->tid,
					f->ppid, f->ptid, child, getpid());
			if (!near(f->time, sid->time, 1000000) || f->time < t0 || f->time > t1)
				rt_errf(e, "EXIT time %llu, trailer %llu", (unsigned long long)f->time,
					(unsigned long long)sid->time);
			if (sid->pid != (uint32_t)child || sid->tid != (uint32_t)child)
				rt_errf(e, "EXIT trailer pid/tid %u/%u, child %d", sid->pid, sid->tid, child);
			break;
		}
		case PERF_RECORD_COMM: {
			const struct perfring_rec_comm *c = &d.u.comm;

			if (c->pid != (uint32_t)child)
				break;
			check_string_field("COMM", c->comm, &c->comm_field, &d, cfg, e);
			if (c->tid != (uint32_t)child || sid->pid != (uint32_t)child || sid->tid != (uint32_t)child)
				rt_errf(e, "COMM pid/tid %u/%u trailer %u/%u, child %d", c->pid, c->tid,
					sid->pid, sid->tid, child);
			if (perfring_misc_comm_exec(d.misc)) {
				seen->comm_exec++;
				seen->t_comm = sid->time;
				if (!c->comm || strcmp(c->comm, "true"))
					rt_errf(e, "exec COMM \"%s\", expected \"true\"", c->comm ?: "(null)");
			} else {
				seen->comm_other++;
			}
			break;
		}
		case PERF_RECORD_MMAP2: {
			const struct perfring_rec_mmap *m = &d.u.mmap;
			bool data = perfring_misc_mmap_data(d.misc);

			if (m->pid != (uint32_t)child)
				break;
			check_string_field("MMAP2 filename", m->filename, &m->filename_field, &d, cfg, e);
			if (m->tid != (uint32_t)child || sid->pid != (uint32_t)child || sid->tid != (uint32_t)child)
				rt_errf(e, "MMAP2 pid/tid %u/%u trailer %u/%u, child %d", m->pid, m->tid, sid->pid,
					sid->tid, child);
			if (!m->len || m->addr % (uint64_t)page || m->len % (uint64_t)page ||
			    m->pgoff % (uint64_t)page || m->addr + m->len < m->addr ||
			    m->addr + m->len > 0x800000000000ull)
				rt_errf(e, "MMAP2 %s: addr %#llx len %#llx pgoff %#llx", m->filename ?: "?",
					(unsigned long long)m->addr, (unsigned long long)m->len,
					(unsigned long long)m->pgoff);
			/* MMAP_DATA is set exactly for mappings that are not executable. */
			if (data == !!(m->prot & PROT_EXEC))
				rt_errf(e, "MMAP2 %s: prot %#x with misc %#x", m->filename ?: "?", m->prot, d.misc);
			if (perfring_misc_mmap_build_id(d.misc) != m->has_build_id)
				rt_errf(e, "MMAP2 misc %#x but has_build_id %d", d.misc, m->has_build_id);
			if (m->has_build_id) {
				seen->build_ids++;
				if (!attr->build_id)
					rt_errf(e, "MMAP2 with a build id that was not asked for");
			}
			if (!m->filename || strcmp(m->filename, img->path)) {
				seen->mmap2_other++;
				break;
			}
			seen->mmap2_image++;
			if (!(m->flags & MAP_PRIVATE))
				rt_errf(e, "MMAP2 of the image with flags %#x", m->flags);
			if (m->has_build_id) {
				if (m->build_id_size != img->build_id_size ||
				    memcmp(m->build_id, img->build_id, img->build_id_size))
					rt_errf(e, "MMAP2 of the image: build id of %u bytes, the ELF note has %u",
						m->build_id_size, img->build_id_size);
				if (m->build_id_reserved[0] || m->build_id_reserved[1] || m->build_id_reserved[2])
					rt_errf(e, "MMAP2 build id reserved bytes not zero");
			} else if (m->maj != major(img->st.st_dev) || m->min != minor(img->st.st_dev) ||
				   m->ino != img->st.st_ino) {
				rt_errf(e, "MMAP2 of the image: dev %u:%u ino %llu, stat says %u:%u ino %llu", m->maj,
					m->min, (unsigned long long)m->ino, major(img->st.st_dev),
					minor(img->st.st_dev), (unsigned long long)img->st.st_ino);
			}
			if (m->prot & PROT_EXEC) {
				seen->mmap2_image_x++;
				seen->t_image = sid->time;
				if (m->pgoff != img->x_pgoff || m->len != img->x_len || (m->prot & PROT_WRITE))
					rt_errf(e,
						"executable MMAP2 of the image: pgoff %#llx len %#llx prot "
						"%#x, the "
						"PF_X segment maps pgoff %#llx len %#llx",
						(unsigned long long)m->pgoff, (unsigned long long)m->len,
						m->prot, (unsigned long long)img->x_pgoff,
						(unsigned long long)img->x_len);
			}
			break;
		}
		case PERF_RECORD_MMAP:
			seen->mmap1++;
			break;
		default:
			seen->other++;
			break;
		}
	}
}

static void task_events_test(bool build_id)
{
	struct perf_event_attr attr;
	struct perfring_parse_config cfg;
	struct rt_percpu *pc = calloc(1, sizeof(*pc));
	struct rt_err e = { 0 }, setup = { 0 };
	struct task_seen seen;
	struct image img;
	uint64_t t0 = 0, t1 = 0;
	int child = -1, i;
	size_t nrec = 0;
	char why[256];

	REQUIRE(pc);

	REQUIREF(read_image(&img, why, sizeof(why)) == 0, "%s", why);
	rt_attr_init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_IDENTIFIER;
	attr.sample_id_all = 1;
	attr.inherit = 1;
	attr.task = 1;
	attr.comm = 1;
	attr.comm_exec = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.mmap_data = 1;
	attr.build_id = build_id;
	attr.disabled = 1;
	REQUIRE(perfring_parse_config_init(&cfg, &attr, false) == 0);
	CHECK_EQ_U64(cfg.id_trailer_size, 40); /* tid, time, id, cpu, identifier */

	run_child(&attr, pc, &child, &t0, &t1, &setup);
	RT_CHECK_NO_ERR(&setup, "setup");
	REQUIRE(child > 0);
	memset(&seen, 0, sizeof(seen));
	for (i = 0; i < pc->n; i++) {
		CHECK(pc->id[i] != 0);
		check_ring(&attr, &cfg, &pc->recs[i], pc->cpu[i], pc->id[i], &img, child, t0, t1, &seen, &e);
		nrec += pc->recs[i].n;
	}
	/* fork, then exec (comm, then the image's segments), then exit */
	if (seen.fork == 1 && seen.comm_exec == 1 && seen.mmap2_image_x == 1 && seen.exits == 1 &&
	    !(seen.t_fork < seen.t_comm && seen.t_comm <= seen.t_image && seen.t_image < seen.t_exit))
		rt_errf(&e, "times: FORK %llu, COMM %llu, MMAP2 %llu, EXIT %llu", (unsigned long long)seen.t_fork,
			(unsigned long long)seen.t_comm, (unsigned long long)seen.t_image,
			(unsigned long long)seen.t_exit);
	printf("  %zu records on %d CPUs: %d FORK, %d exec COMM, %d other COMM, %d MMAP2 of %s (%d "
	       "executable), %d other "
	       "MMAP2, %d MMAP, %d EXIT, %d other; %d build ids\n",
	       nrec, pc->n, seen.fork, seen.comm_exec, seen.comm_other, seen.mmap2_image, img.path,
	       seen.mmap2_image_x, seen.mmap2_other, seen.mmap1, seen.exits, seen.other, seen.build_ids);
	RT_CHECK_NO_ERR(&e, "records");
	CHECK_EQ_INT(seen.fork, 1);
	CHECK_EQ_INT(seen.comm_exec, 1);
	CHECK_EQ_INT(seen.exits, 1);
	CHECK_EQ_INT(seen.mmap1, 0); /* mmap2 replaces MMAP */
	CHECKF(seen.mmap2_image_x == 1, "%d executable MMAP2 of %s", seen.mmap2_image_x, img.path);
	CHECKF(seen.mmap2_image >= 2, "%d MMAP2 of %s (mmap_data: its read-only segments too)", seen.mmap2_image,
	       img.path);
	/* The dynamic loader and libc are mapped too. */
	CHECKF(seen.mmap2_other >= 2, "%d MMAP2 of other files", seen.mmap2_other);
	if (build_id) {
		CHECK(img.build_id_size == 20);
		CHECKF(seen.build_ids >= 1, "no MMAP2 with a build id");
	}
	rt_percpu_close(pc);
	free(pc);
}

TEST(task_events_fork_exec_exit)
{
	task_events_test(false);
}

TEST(task_events_build_id)
{
	task_events_test(true);
}

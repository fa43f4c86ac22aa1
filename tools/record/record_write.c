// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring record`'s perf.data file: the writer opened with the command
 * line, the events' attrs and ids and the tasks that run already; every
 * ring record written as it comes, a FINISHED_ROUND after each pass over
 * the rings (perf sorts and flushes what came before the previous round),
 * the rings drained into it at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfring/perfring.h>
#include <perfring/perfdata.h>
#include <perfring/perfdata_write.h>

#include "record/record.h"
#include "record/record_synth.h"
#include "shared/tool.h"

#define RECORD_POLL_NS (100 * 1000 * 1000LL)

static int record_on_event(const struct perfring_msg *ev, void *ctx)
{
	struct record_state *st = ctx;
	const struct perfring_ring_record *r = perfring_msg_record(ev);
	const void *rec = r->data;
	int err;

	if (r->data2 && r->len2) {
		memcpy(st->buf, r->data, r->len);
		memcpy(st->buf + r->len, r->data2, r->len2);
		rec = st->buf;
	}
	err = perfring_perfdata_writer_write(st->writer, rec, r->size);
	if (err) {
		st->error = err;
		return err;
	}
	st->records++;
	st->bytes += r->size;
	if (ev->kind == PERFRING_MSG_LOST)
		st->lost += ev->lost;
	return PERFRING_CONTINUE;
}

void record_progress(const struct record_state *st, bool final)
{
	char b[32];

	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[K%s %s: %llu records (%s), %llu lost", TOOL_NAME, CMD,
		(unsigned long long)st->records, tool_fmt_bytes(st->bytes, b, sizeof(b)),
		(unsigned long long)st->lost);
	fflush(stderr);
}

static char *record_cmdline(int argc, char **argv)
{
	size_t len = strlen(TOOL_NAME) + 1, off;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	off = (size_t)sprintf(s, "%s", TOOL_NAME);
	for (i = 0; i < argc; i++)
		off += (size_t)sprintf(s + off, " %s", argv[i]);
	return s;
}

/* A FINISHED_ROUND after a pass over the rings that wrote records. */
static int record_round(struct record_state *st)
{
	static const struct perf_event_header fr = { PERFRING_RECORD_FINISHED_ROUND, 0, 8 };

	if (st->records == st->round_records)
		return 0;
	st->round_records = st->records;
	return perfring_perfdata_writer_write(st->writer, &fr, sizeof(fr));
}

int record_keep_old(const char *output)
{
	struct stat sb;
	char *old;
	int err = 0;

	if (stat(output, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size)
		return 0;
	if (asprintf(&old, "%s.old", output) < 0)
		return tool_error(CMD, "no memory");
	if (rename(output, old))
		err = tool_error(CMD, "cannot keep %s as %s: %s", output, old, strerror(errno));
	free(old);
	return err;
}

/* Each event's attr with the ids of the fds opened (threads gone meanwhile
 * have none), under the name perf would show. */
static int record_write_attrs(struct record_state *st, const struct record_opts *o)
{
	const struct record_event *e;
	size_t n, i;
	int j, err;

	for (j = 0; j < o->nev; j++) {
		e = &o->events[j];
		n = 0;
		for (i = 0; i < (size_t)o->ntask * (size_t)o->ncpu; i++)
			if (e->fds[i] >= 0)
				e->ids[n++] = e->ids[i];
		err = perfring_perfdata_writer_add_attr(st->writer, &e->attr, e->ids, n,
							e->user_name    ? e->user_name
							: e->clock_name ? e->clock_name
							: e->shown      ? e->shown
									: e->name);
		if (err < 0)
			return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
	}
	return 0;
}

int record_write_start(struct record_state *st, const struct record_opts *o, int pipe_fd, int argc, char **argv)
{
	struct perfring_perfdata_writer_opts wo = { .sz = sizeof(wo) };
	struct perfring_parse_config cfg;
	uint64_t synth = 0;
	char *cmdline;
	int err;

	cmdline = record_cmdline(argc, argv);
	wo.cmdline = cmdline;
	wo.build_ids = true;
	wo.compress_level = o->zlevel;
	wo.pipe = pipe_fd >= 0;
	wo.fd = pipe_fd;
	st->writer = perfring_perfdata_writer_open(pipe_fd >= 0 ? NULL : o->output, &wo);
	free(cmdline);
	if (!st->writer)
		return tool_error(CMD, "%s", perfring_errmsg());
	/* -k: the clock and wall-clock time read together (CLOCK_DATA), as perf
	 * record -k writes them, so that sample times become dates */
	if (o->use_clockid && perfring_perfdata_writer_set_clock(st->writer, o->clockid, 0, 0))
		return tool_error(CMD, "%s", perfring_errmsg());
	err = record_write_attrs(st, o);
	if (err)
		return err;
	/* The tasks that run already, as perf record synthesizes them. */
	if (o->system_wide || o->ntarget) {
		if (perfring_parse_config_init(&cfg, &o->events[0].attr, false))
			return tool_error(CMD, "%s", perfring_errmsg());
		err = record_synth(st->writer, cfg.id_trailer_size, o->targets, o->system_wide ? -1 : o->ntarget,
				   o->by_tid, &synth);
		if (err)
			return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
	}
	return 0;
}

int record_write_poll(struct record_state *st, const struct record_opts *o, struct perfring_reader *rd)
{
	int err = perfring_reader_poll(rd, RECORD_POLL_NS, record_on_event, st);

	if (err < 0 && err != -ETIMEDOUT && err != -EINTR && err != -PERFRING_EWOKEN) {
		if (st->error)
			return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
		return tool_error(CMD, "reading the rings: %s", perfring_errmsg());
	}
	if (record_round(st))
		return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
	return 0;
}

int record_write_finish(struct record_state *st, const struct record_opts *o, struct perfring_reader *rd)
{
	int err;

	do {
		err = perfring_reader_consume(rd, record_on_event, st);
	} while (err > 0);
	if (err < 0)
		return tool_error(CMD, "draining the rings: %s", perfring_errmsg());
	if (record_round(st))
		return tool_error(CMD, "%s: %s", o->output, perfring_errmsg());
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring pipe`: attach a perfring reader to the BPF perf event array of a
 * program someone else loaded (found by map id or by its pin in bpffs) and
 * print every sample its bpf_perf_event_output() calls write, as a hex dump,
 * JSON lines, or binary frames for another program, with the kernel's lost
 * counts in the stream and a summary on stderr. What `bpftool map
 * event_pipe` does, with the reader's ring size, wakeup policy and CPUs.
 * A BPF ring buffer (BPF_MAP_TYPE_RINGBUF) is read the same way, its lost
 * records from the map of perfring_ringbuf.bpf.h when the program uses it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <perfring/perfring.h>

#include "pipe/pipe_out.h"
#include "pipe/pipe_ringbuf.h"
#include "shared/reader_opts.h"
#include "shared/tool.h"

#define CMD "pipe"
/* The longest perfring_reader_poll() blocks: how soon --duration and a
 * signal are noticed (a signal also interrupts the poll: no SA_RESTART). */
#define PIPE_TICK_NS 100000000ull
/* How long the final drain may take before giving up. */
#define PIPE_DRAIN_NS 2000000000ull
#define PIPE_OUT_BUF (256 * 1024)

struct pipe_opts {
	uint64_t map_id;
	const char *pin;
	enum pipe_format fmt;
	bool quiet;
	bool verbose;
	struct tool_reader_opts rd; /* ring size, wakeups, delay bound, CPUs */
	double duration_s;
	uint64_t count;
};

struct pipe_ring_count {
	uint64_t samples, bytes, lost;
};

struct pipe_state {
	const struct pipe_opts *opts;
	struct pipe_out out;
	struct pipe_ring_count *rings;
	int ring_cnt;
	uint64_t samples, bytes, lost, batches;
	bool done; /* --count reached or stdout failed: read no more */
	bool lost_unknown; /* a ring buffer without the lost map */
};

static volatile sig_atomic_t pipe_signal;

static void pipe_on_signal(int sig)
{
	/* A second SIGINT/SIGTERM kills: the way out when a consumer that
	 * stopped reading holds a write of ours blocked. */
	if (pipe_signal) {
		signal(sig, SIG_DFL);
		raise(sig); /* delivered, and fatal, once the handler returns */
		return;
	}
	pipe_signal = sig;
}

void cmd_pipe_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s pipe (--map-id ID | --pin PATH) [--json | --raw] [OPTIONS]\n\n"
		"Attach to the BPF perf event array (BPF_MAP_TYPE_PERF_EVENT_ARRAY) of a program\n"
		"another process loaded, and print every sample its bpf_perf_event_output() calls\n"
		"write, until SIGINT/SIGTERM, --duration or --count. As `bpftool map event_pipe`,\n"
		"this stores perfring's own perf event fds in the map, replacing any other reader's,\n"
		"and removes them at exit. Needs root (or CAP_BPF and CAP_PERFMON; --map-id needs\n"
		"CAP_SYS_ADMIN).\n\n"
		"The map may be a BPF ring buffer (BPF_MAP_TYPE_RINGBUF) instead: its records are\n"
		"printed with cpu -1 and their exact size; the ring's size and wakeups are the\n"
		"map's own (--buffer-pages, --wakeup-* and --cpu do not apply). If the program\n"
		"writes through perfring_ringbuf.bpf.h, its failed writes (map perfring_rb_lost)\n"
		"are printed as lost notices; otherwise losses are unknown and the summary says so.\n\n"
		"Options:\n"
		"      --map-id ID          the map with this id (see `bpftool map list`)\n"
		"      --pin PATH           the map pinned at PATH in a BPF file system\n"
		"  -j, --json               one JSON object per line: {\"cpu\":C,\"size\":S,\"data\":\"HEX\"}\n"
		"                           and {\"cpu\":C,\"lost\":N}\n"
		"      --raw                binary frames for another program (not to a terminal):\n"
		"                           u32 WORD, u32 CPU (little-endian), then the body; WORD\n"
		"                           below 2^31: a sample of WORD bytes; WORD = 2^31 + 8: a\n"
		"                           lost notice, the body the u64 count of records lost\n"
		"  -b, --buffer-pages N     ring size per CPU in pages, a power of two (default 64)\n"
		"      --wakeup-bytes N     wake the reader when N bytes wait in a ring (default\n"
		"                           4096, or half the ring if that is smaller)\n"
		"      --wakeup-events N    wake the reader every N records instead\n"
		"      --max-delay-ms MS    deliver a sample at most MS ms after it was written even\n"
		"                           below the wakeup threshold (default 100; 0: no bound)\n"
		"  -C, --cpu LIST           only these CPUs, e.g. 0,2-3 (default: every online CPU);\n"
		"                           the program's samples on other CPUs are not written\n"
		"  -d, --duration SEC       stop after SEC seconds (then drain the rings)\n"
		"  -c, --count N            stop after N samples\n"
		"  -q, --quiet              print no samples, only the summary\n"
		"  -v, --verbose            show perfring's log messages and libbpf's warnings\n"
		"  -h, --help               show this help\n\n"
		"Text output: per sample a line \"sample N cpu C size S\" and a hex dump (offset,\n"
		"16 bytes, ASCII) as hexdump -C; per lost notice a line \"LOST N cpu C\": the kernel\n"
		"dropped N samples because the ring was full (reported before the next sample that\n"
		"fits). The size is what the kernel delivers: it pads each payload so that its\n"
		"record ends on 8 bytes, so it may exceed what the program passed by up to 7 bytes.\n"
		"Samples dropped after the last one that fitted are counted only in front of the\n"
		"next sample on that CPU: at exit such a count may be missing. Standard output is\n"
		"flushed after each batch the reader delivers.\n\n"
		"On stderr: a line \"attached to ...\" once the rings are in the map (samples written\n"
		"from then on are read), and at the end a summary: samples, bytes, lost, per CPU,\n"
		"rate. SIGINT or SIGTERM stops it after a final drain of the rings; a second one\n"
		"kills it at once.\n\n"
		"Exit status: 0 on success, also after SIGINT/SIGTERM and when standard output is\n"
		"closed early (e.g. by `| head`: reading stops, the summary is printed); 1 when the\n"
		"map cannot be used (no such id or pin, not a perf event array, no privilege, the\n"
		"reader cannot be created) or output fails; 2 for a bad command line.\n",
		TOOL_NAME);
}

enum {
	OPT_MAP_ID = 256,
	OPT_PIN,
	OPT_RAW,
};

static int pipe_parse(int argc, char **argv, struct pipe_opts *o)
{
	static const struct option longopts[] = {
		{ "map-id", required_argument, NULL, OPT_MAP_ID },
		{ "pin", required_argument, NULL, OPT_PIN },
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, OPT_RAW },
		TOOL_READER_LONGOPTS,
		/* the spelling before -C/--cpu, kept so that scripts still run; not in --help */
		{ "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, raw = false, have_id = false;
	int c, idx, err;

	*o = (struct pipe_opts){ .fmt = PIPE_TEXT };
	tool_reader_opts_init(&o->rd, 64); /* the library's default ring */
	opterr = 0; /* our own one-line messages */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":j" TOOL_READER_SHORTOPTS "d:c:qvh", longopts, &idx)) != -1) {
		err = tool_reader_opt(CMD, c, optarg, &o->rd);
		if (err != 1) {
			if (err)
				return err;
			continue;
		}
		switch (c) {
		case OPT_MAP_ID:
			if (!tool_parse_u64(optarg, 1, UINT32_MAX, &o->map_id))
				return tool_usage_error(CMD, "--map-id wants a map id (a number from 1), not '%s'",
							optarg);
			have_id = true;
			break;
		case OPT_PIN:
			if (!*optarg)
				return tool_usage_error(CMD, "--pin wants a path");
			o->pin = optarg;
			break;
		case 'j':
			json = true;
			break;
		case OPT_RAW:
			raw = true;
			break;
		case 'd':
			if (!tool_parse_seconds(optarg, 0.01, 86400 * 365, &o->duration_s))
				return tool_usage_error(CMD, "--duration wants seconds (0.01 or more), not '%s'",
							optarg);
			break;
		case 'c':
			if (!tool_parse_u64(optarg, 1, UINT64_MAX, &o->count))
				return tool_usage_error(CMD, "--count wants a number of samples from 1, not '%s'",
							optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			cmd_pipe_usage(stdout);
			return -1;
		default: /* ':' (a value missing) or '?' (an unknown option) */
			return tool_option_error(CMD, c, argv);
		}
	}
	if (optind < argc)
		return tool_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
	if (have_id == (o->pin != NULL))
		return tool_usage_error(CMD, "give exactly one of --map-id ID and --pin PATH");
	if (json && raw)
		return tool_usage_error(CMD, "give --json or --raw, not both");
	if (o->quiet && (json || raw))
		return tool_usage_error(CMD, "--quiet prints no samples: it goes with neither --json nor --raw");
	err = tool_reader_opts_check(CMD, &o->rd);
	if (err)
		return err;
	if (raw && isatty(STDOUT_FILENO))
		return tool_usage_error(CMD, "--raw writes binary frames: redirect standard output to a file "
					"or a pipe");
	o->fmt = json ? PIPE_JSON : raw ? PIPE_RAW : PIPE_TEXT;
	return 0;
}

static int pipe_no_privilege(const char *what, int err, bool by_id)
{
	return tool_error(CMD, "%s: %s: run as root, or with CAP_BPF and CAP_PERFMON%s", what, strerror(err),
			  by_id ? " (looking a map up by id needs CAP_SYS_ADMIN too; a pin does not)" :
				  " and access to the pin");
}

/* The map's fd by --map-id or --pin, with one line on stderr when it fails. */

/* Nothing at the pin path: say whether that is because no BPF file system is
 * mounted where the path points (a fresh machine has none at /sys/fs/bpf). */
static int pipe_pin_missing(const char *pin, const char *what)
{
	char dir[PATH_MAX];
	struct statfs sfs;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", pin);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (statfs(dir, &sfs) == 0 && (unsigned long)sfs.f_type != BPF_FS_MAGIC)
		return tool_error(CMD, "%s: no such file, and %s is not a BPF file system (is bpffs mounted? "
				  "mount -t bpf bpf %s)", what, dir, dir);
	return tool_error(CMD, "%s: no such file (nothing is pinned there)", what);
}

static int pipe_get_map_fd(const struct pipe_opts *o, const char *what, int *fd_out)
{
	struct statfs sfs;
	char link[64], target[128];
	const char *base;
	ssize_t n;
	int fd, err;

	if (!o->pin) {
		fd = bpf_map_get_fd_by_id((__u32)o->map_id);
		if (fd < 0) {
			err = errno;
			if (err == ENOENT)
				return tool_error(CMD, "no BPF map with id %llu (see `bpftool map list`)",
						  (unsigned long long)o->map_id);
			if (err == EPERM || err == EACCES)
				return pipe_no_privilege(what, err, true);
			return tool_error(CMD, "%s: BPF_MAP_GET_FD_BY_ID failed: %s", what, strerror(err));
		}
		*fd_out = fd;
		return 0;
	}

	fd = bpf_obj_get(o->pin);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT)
			return pipe_pin_missing(o->pin, what);
		/* bpffs refuses to look up names with a dot (reserved): EPERM, even for root. */
		base = strrchr(o->pin, '/');
		if (err == EPERM && strchr(base ? base + 1 : o->pin, '.'))
			return tool_error(CMD, "%s: %s: a BPF file system reserves names with a '.', so nothing "
					  "can be pinned there", what, strerror(err));
		/* A file outside bpffs gives EACCES (or EINVAL, EPERM) too: tell them apart. */
		if ((err == EACCES || err == EPERM || err == EINVAL) && statfs(o->pin, &sfs) == 0 &&
		    (unsigned long)sfs.f_type != BPF_FS_MAGIC)
			return tool_error(CMD, "%s: not in a BPF file system (pins live in bpffs, e.g. under "
					  "/sys/fs/bpf)", what);
		if (err == EPERM || err == EACCES)
			return pipe_no_privilege(what, err, false);
		return tool_error(CMD, "%s: BPF_OBJ_GET failed: %s", what, strerror(err));
	}
	/* A pin may hold a program or a link as well: the fd's inode says which. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	if (n > 0 && strcmp(target, "anon_inode:bpf-map") != 0) {
		const char *kind = strstr(target, "bpf-prog") ? "a BPF program" :
				   strstr(target, "bpf_link") || strstr(target, "bpf-link") ? "a BPF link" :
											     target;

		close(fd);
		return tool_error(CMD, "%s: the pinned object is %s, not a map", what, kind);
	}
	*fd_out = fd;
	return 0;
}

/* "BPF_MAP_TYPE_ARRAY" from libbpf's "array". */
static const char *pipe_map_type(uint32_t type, char *buf, size_t len)
{
	const char *s = libbpf_bpf_map_type_str((enum bpf_map_type)type);
	size_t i, k;

	if (!s) {
		snprintf(buf, len, "map of unknown type %u", type);
		return buf;
	}
	k = (size_t)snprintf(buf, len, "BPF_MAP_TYPE_");
	for (i = 0; s[i] && k + 1 < len; i++)
		buf[k++] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 'a' + 'A' : s[i]);
	buf[k] = '\0';
	return buf;
}

static int pipe_open_map(const struct pipe_opts *o, int *fd_out, struct bpf_map_info *info, char *what,
			 size_t whatlen)
{
	__u32 len = sizeof(*info);
	char type[64];
	int fd = -1, ret;

	if (o->pin)
		snprintf(what, whatlen, "%s", o->pin);
	else
		snprintf(what, whatlen, "map id %llu", (unsigned long long)o->map_id);
	ret = pipe_get_map_fd(o, what, &fd);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len)) {
		ret = errno;
		close(fd);
		return tool_error(CMD, "%s: BPF_OBJ_GET_INFO_BY_FD failed: %s", what, strerror(ret));
	}
	if (info->type != BPF_MAP_TYPE_PERF_EVENT_ARRAY && info->type != BPF_MAP_TYPE_RINGBUF) {
		close(fd);
		pipe_map_type(info->type, type, sizeof(type));
		if (o->pin)
			return tool_error(CMD, "%s (map id %u, \"%s\") is a %s, not a %s", what, info->id,
					  info->name, type, "BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF");
		return tool_error(CMD, "%s (\"%s\") is a %s, not a %s", what, info->name, type,
				  "BPF_MAP_TYPE_PERF_EVENT_ARRAY or BPF_MAP_TYPE_RINGBUF");
	}
	*fd_out = fd;
	return 0;
}

static int pipe_on_event(const struct perfring_msg *ev, void *ctx)
{
	struct pipe_state *st = ctx;
	struct pipe_ring_count *rc = NULL;
	size_t size;

	if (st->done)
		return PERFRING_STOP;
	if (ev->ring_idx >= 0 && ev->ring_idx < st->ring_cnt)
		rc = &st->rings[ev->ring_idx];
	if (ev->kind == PERFRING_MSG_LOST) {
		st->lost += ev->lost;
		if (rc)
			rc->lost += ev->lost;
		if (!st->opts->quiet)
			pipe_out_lost(&st->out, ev->cpu, ev->lost);
	} else if (ev->kind == PERFRING_MSG_SAMPLE) {
		size = ev->size + (ev->data2 ? ev->size2 : 0);
		st->samples++;
		st->bytes += size;
		if (rc) {
			rc->samples++;
			rc->bytes += size;
		}
		if (!st->opts->quiet)
			pipe_out_sample(&st->out, ev->cpu, ev->data, ev->size, ev->data2, ev->size2);
		if (st->opts->count && st->samples >= st->opts->count)
			st->done = true;
	}
	/* Other record types do not occur in a BPF output ring. */
	if (st->out.err)
		st->done = true;
	return st->done ? PERFRING_STOP : PERFRING_CONTINUE;
}

/* A reader of the ring buffer map_fd, with its lost map if the program has one. */
static struct perfring_reader *pipe_ringbuf_reader(int map_fd, const struct bpf_map_info *info,
						   const struct perfring_reader_opts *ro, uint32_t *lost_id)
{
	struct perfring_ringbuf_opts rbo = PERFRING_OPTS_INIT(perfring_ringbuf_opts);
	struct perfring_reader_opts o = PERFRING_OPTS_INIT(perfring_reader_opts, .max_delay_ns = ro->max_delay_ns);
	struct perfring_reader *rd;
	int lost_fd, ret;

	lost_fd = pipe_find_lost_map(info->id, lost_id);
	if (lost_fd < 0)
		*lost_id = 0;
	rbo.lost_map_fd = lost_fd > 0 ? lost_fd : 0;
	rd = perfring_reader_new(&o);
	if (rd) {
		ret = perfring_reader_add_ringbuf(rd, map_fd, &rbo);
		if (ret < 0) {
			perfring_reader_free(rd);
			rd = NULL;
			errno = -ret;
		}
	}
	if (lost_fd >= 0)
		close(lost_fd);
	return rd;
}

static void pipe_print_attached(struct perfring_reader *rd, const struct perfring_reader_opts *ro,
				const struct bpf_map_info *info, const char *pin, uint32_t lost_id)
{
	size_t bytes = perfring_reader_data_size(rd);
	int i, n = perfring_reader_ring_cnt(rd), skipped[64], nskipped;
	char size[32];

	fprintf(stderr, "%s %s: attached to map id %u \"%s\"", TOOL_NAME, CMD, info->id, info->name);
	if (pin)
		fprintf(stderr, " (pinned at %s)", pin);
	if (info->type == BPF_MAP_TYPE_RINGBUF) {
		fprintf(stderr, ", a BPF ring buffer of %s; ", tool_fmt_bytes(info->max_entries, size, sizeof(size)));
		if (lost_id)
			fprintf(stderr, "lost records from map id %u \"%s\"\n", lost_id, PERFRING_RINGBUF_LOST_MAP);
		else
			fprintf(stderr, "lost records unknown (the program does not use perfring_ringbuf.bpf.h)\n");
		return;
	}
	fprintf(stderr, ", %u entries: %d ring%s (cpu", info->max_entries, n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%d", i ? "," : " ", perfring_reader_ring_cpu(rd, i));
	fprintf(stderr, ") of %zu page%s (%s); wake every ", bytes / perfring_page_size(),
		bytes == perfring_page_size() ? "" : "s", tool_fmt_bytes(bytes, size, sizeof(size)));
	if (ro->wakeup_events)
		fprintf(stderr, "%u record%s", ro->wakeup_events, ro->wakeup_events == 1 ? "" : "s");
	else
		fprintf(stderr, "%u bytes", ro->wakeup_bytes);
	if (ro->max_delay_ns)
		fprintf(stderr, " or within %llu ms\n", (unsigned long long)(ro->max_delay_ns / 1000000));
	else
		fprintf(stderr, ", no delay bound\n");
	nskipped = perfring_reader_skipped_cpus(rd, skipped, 64);
	for (i = 0; i < nskipped && i < 64; i++)
		fprintf(stderr, "%s %s: note: cpu %d has no ring (offline, or not below the map's max_entries)\n",
			TOOL_NAME, CMD, skipped[i]);
}

/* Write the batch just delivered; a closed or failing stdout ends the run. */
static void pipe_flush(struct pipe_state *st)
{
	if (pipe_out_flush(&st->out))
		st->done = true;
}

static int pipe_read_error(int ret)
{
	return tool_error(CMD, "reading the rings failed: %s", *perfring_errmsg() ? perfring_errmsg() :
										perfring_strerror(ret));
}

/* Read until a signal, --duration, --count or an output failure. */
static int pipe_run(struct pipe_state *st, struct perfring_reader *rd, uint64_t end_ns)
{
	uint64_t now, wait;
	int ret;

	while (!pipe_signal && !st->done) {
		now = tool_now_ns();
		if (end_ns && now >= end_ns)
			break;
		wait = end_ns && end_ns - now < PIPE_TICK_NS ? end_ns - now : PIPE_TICK_NS;
		ret = perfring_reader_poll(rd, (int64_t)wait, pipe_on_event, st);
		if (ret > 0)
			st->batches++;
		/* Also after an error: the records before it were delivered. */
		pipe_flush(st);
		if (ret < 0 && ret != -ETIMEDOUT && ret != -EINTR && ret != -PERFRING_EWOKEN)
			return pipe_read_error(ret);
	}
	return EXIT_OK;
}

/* Deliver everything written before the stop: flush, then poll until the
 * reader reports the flush complete. */
static int pipe_drain(struct pipe_state *st, struct perfring_reader *rd)
{
	uint64_t deadline = tool_now_ns() + PIPE_DRAIN_NS;
	int ret;

	perfring_reader_flush(rd);
	while (!st->done) {
		ret = perfring_reader_poll(rd, (int64_t)PIPE_TICK_NS, pipe_on_event, st);
		if (ret > 0)
			st->batches++;
		/* The call that reports the flush complete may deliver records too. */
		pipe_flush(st);
		if (ret == -PERFRING_EFLUSHED)
			break;
		if (ret < 0 && ret != -ETIMEDOUT && ret != -EINTR && ret != -PERFRING_EWOKEN)
			return pipe_read_error(ret);
		if (tool_now_ns() > deadline)
			return tool_error(CMD, "draining the rings took more than %llu s",
					  (unsigned long long)(PIPE_DRAIN_NS / 1000000000ull));
	}
	return EXIT_OK;
}

static void pipe_summary(const struct pipe_state *st, struct perfring_reader *rd, double secs, const char *why)
{
	char b[32];
	int r;

	fprintf(stderr, "%s %s: %llu samples (%llu bytes), %llu lost, in %.2f s: %.1f samples/s, %s/s; %s\n",
		TOOL_NAME, CMD, (unsigned long long)st->samples, (unsigned long long)st->bytes,
		(unsigned long long)st->lost, secs, secs > 0 ? st->samples / secs : 0.0,
		tool_fmt_bytes(secs > 0 ? (uint64_t)(st->bytes / secs) : 0, b, sizeof(b)), why);
	for (r = 0; r < st->ring_cnt; r++)
		if (perfring_reader_ring_cpu(rd, r) < 0)
			fprintf(stderr, "  ring buffer: %llu samples (%llu bytes), %llu lost%s\n",
				(unsigned long long)st->rings[r].samples, (unsigned long long)st->rings[r].bytes,
				(unsigned long long)st->rings[r].lost, st->lost_unknown ? " (unknown: no lost map)" : "");
		else
			fprintf(stderr, "  cpu %d: %llu samples (%llu bytes), %llu lost\n",
			perfring_reader_ring_cpu(rd, r), (unsigned long long)st->rings[r].samples,
			(unsigned long long)st->rings[r].bytes, (unsigned long long)st->rings[r].lost);
}

static const char *pipe_stop_reason(const struct pipe_state *st, uint64_t end_ns)
{
	if (st->out.err == EPIPE)
		return "stopped: standard output was closed";
	if (st->opts->count && st->samples >= st->opts->count)
		return "stopped: --count reached";
	if (pipe_signal == SIGINT)
		return "stopped by SIGINT";
	if (pipe_signal == SIGTERM)
		return "stopped by SIGTERM";
	if (end_ns && tool_now_ns() >= end_ns)
		return "stopped: --duration elapsed";
	return "stopped";
}

int cmd_pipe(int argc, char **argv)
{
	struct perfring_reader_opts ro = PERFRING_OPTS_INIT(perfring_reader_opts);
	struct perfring_reader *rd = NULL;
	struct pipe_state st;
	struct bpf_map_info info;
	struct pipe_opts o;
	struct sigaction sa;
	uint64_t start_ns, end_ns = 0, ring_bytes;
	const char *why;
	char what[4200];
	int ret, map_fd = -1, err;
	uint32_t lost_id = 0;

	ret = pipe_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (o.verbose)
		perfring_set_log(tool_log_to_stderr, PERFRING_LOG_INFO, NULL);
	tool_libbpf_messages(o.verbose);

	memset(&st, 0, sizeof(st));
	st.opts = &o;
	if (pipe_out_init(&st.out, o.fmt, STDOUT_FILENO, PIPE_OUT_BUF))
		return tool_error(CMD, "out of memory");

	/* Every -C CPU online, said in the tool's words (the library would
	 * refuse the reader too, naming opts.cpus). */
	ret = o.rd.ncpus ? tool_cpus_online(CMD, o.rd.cpus, o.rd.ncpus, o.rd.cpu_list) : 0;
	if (ret)
		goto out;
	ret = pipe_open_map(&o, &map_fd, &info, what, sizeof(what));
	if (ret)
		goto out;

	ring_bytes = tool_reader_ring_bytes(&o.rd);
	tool_reader_opts_apply(&o.rd, &ro, ring_bytes / 2 < 4096 ? (uint32_t)(ring_bytes / 2) : 4096);

	if (info.type == BPF_MAP_TYPE_RINGBUF) {
		if (o.rd.ncpus) {
			ret = tool_error(CMD, "%s: -C/--cpu applies to perf event arrays; a BPF ring buffer is one ring "
				       "shared by every CPU", what);
			goto out;
		}
		rd = pipe_ringbuf_reader(map_fd, &info, &ro, &lost_id);
		st.lost_unknown = !lost_id;
	} else {
		rd = perfring_reader_new_bpf(map_fd, &ro);
	}
	if (!rd) {
		err = errno;
		ret = tool_error(CMD, "%s: creating the reader failed: %s", what,
				 *perfring_errmsg() ? perfring_errmsg() : strerror(err));
		goto out;
	}
	/* The reader holds its own reference to the map. */
	close(map_fd);
	map_fd = -1;
	st.ring_cnt = perfring_reader_ring_cnt(rd);
	st.rings = calloc((size_t)st.ring_cnt, sizeof(*st.rings));
	if (!st.rings) {
		ret = tool_error(CMD, "out of memory");
		goto out;
	}

	/* Stop on SIGINT/SIGTERM (no SA_RESTART: a blocked poll returns at
	 * once); a closed stdout is an EPIPE from write(), not a signal. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pipe_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	pipe_print_attached(rd, &ro, &info, o.pin, lost_id);
	start_ns = tool_now_ns();
	if (o.duration_s > 0)
		end_ns = start_ns + (uint64_t)(o.duration_s * 1e9);

	ret = pipe_run(&st, rd, end_ns);
	if (ret == EXIT_OK && !st.done)
		ret = pipe_drain(&st, rd);
	why = pipe_stop_reason(&st, end_ns);
	pipe_summary(&st, rd, (tool_now_ns() - start_ns) / 1e9, why);
	if (ret == EXIT_OK && st.out.err && st.out.err != EPIPE)
		ret = tool_error(CMD, "writing to standard output failed: %s", strerror(st.out.err));

out:
	perfring_reader_free(rd);
	if (map_fd >= 0)
		close(map_fd);
	free(st.rings);
	pipe_out_fini(&st.out);
	return ret;
}

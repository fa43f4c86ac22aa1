/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reader's internals, shared by its source files. They call each
 * other downward only, in the order a record's path takes, top to bottom:
 *
 * Set-up and control (any thread):
 *   reader_libbpf.c   libbpf-shaped path: perf_buffer and ring_buffer
 *                     constructors, poll_ms, consume_cb
 *   reader_bpf.c      BPF perf event arrays: map checks, CPUs, a ring per CPU
 *   reader.c          options, construction, free, pause/resume/close, accessors
 *   reader_ringbuf.c  BPF ring buffers (BPF_MAP_TYPE_RINGBUF) among the rings
 * Delivery entry points (the reader thread):
 *   reader_poll.c     poll, consume, consume_ring, wait, read, consume_samples,
 *                     consume_n, consume_ring_n
 * Waiting:
 *   reader_wait.c     epoll + eventfd, timeouts, deadline, flush, wakeup
 *   reader_hotplug.c  BPF readers: CPUs going offline and online (uevents)
 *   reader_arm.c      BPF readers: max_delay_ns without waking while idle
 * Draining:
 *   reader_order.c    records of all rings in time order (k-way merge)
 *   reader_read.c     copy-out pass of read
 *   reader_samples.c  consume_samples' inline loop
 *   reader_drain.c    zero-copy drain loops; records into messages; ring helpers
 *   reader_ringbuf_drain.c  the ring buffers' side of every drain
 * Shared by set-up and hotplug (call nothing of the reader):
 *   reader_rings.c    the ring table: map a ring, add it, skipped CPUs
 *   reader_bpf_map.c  BPF map slots and per-CPU BPF output events
 * Not installed.
 */
#ifndef PERFRING_READER_INTERNAL_H
#define PERFRING_READER_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <perfring/reader.h>
#include <perfring/ringbuf.h>

#include "common/internal.h"

#define PR_RD_DEFAULT_PAGES 64
/* header.size is a u16 and records are 8-byte aligned. */
#define PR_RECORD_MAX 65528u
/* epoll data of the eventfd; ring fds carry their ring index. */
#define PR_RD_EVENTFD_TAG UINT64_MAX
/* epoll data of the uevent socket (reader_hotplug.c). */
#define PR_RD_HOTPLUG_TAG (UINT64_MAX - 1)

/* Copy-out pass state of one ring (perfring_reader_read). */
enum pr_pass_state {
	PR_PASS_NEW = 0, /* not looked at in this pass */
	PR_PASS_ACTIVE,  /* records delivered in this pass, maybe more */
	PR_PASS_DONE,    /* nothing more in this pass */
};

struct pr_rd_ring {
	struct perfring_ring *ring;
	/* A BPF ring buffer instead of a perf ring (ring is then NULL): every
	 * ring-specific step dispatches on it (reader_ringbuf_drain.c). */
	struct perfring_ringbuf *rb;
	int fd;
	int cpu;
	int idx;
	bool own_fd;    /* opened by the reader (BPF readers): closed by free */
	bool overwrite;
	/* Under rd->lock: a drain of this overwrite ring holds it paused, so
	 * that reader-level resume must leave it alone until the drain ends. */
	bool draining;
	/* Overwrite rings: data_head when last drained; data has arrived
	 * since when it moved (there is no tail to compare with). */
	uint64_t ow_seen_head;
	uint64_t ow_pass_head;
	/* BPF ring buffers: our consumer position when the wait last looked
	 * (reader_wait.c, rb_moved()). */
	uint64_t rb_cons_seen;
	/* Copy-out pass (reader thread only). */
	uint8_t pass_state;
	uint64_t pass_end; /* forward rings: head when the pass reached this ring */
	/* epoll reported HUP/ERR (e.g. the task of a per-task event exited):
	 * removed from epoll so that it cannot make every wait return at once. */
	bool hup;
	/* Under rd->lock: paused by perfring_reader_pause_ring(). */
	bool paused;
	/* Reader thread only: the kernel announced this ring (epoll reported
	 * it readable: its wakeup threshold was reached), or a drain stopped
	 * early in it. Its records are due now; cleared once a drain reaches
	 * the head. Records of a ring that is not owed wait for the threshold,
	 * a flush, the deadline or max_delay_ns (reader_wait.c). */
	bool owed;
	/* BPF readers, under rd->lock: the event stored in the map, whose
	 * output goes into this ring: fd, or after its CPU went offline and
	 * came back, an event opened anew with its output set to fd (owned). */
	int wfd;
	/* Reader thread only: its CPU went offline since wfd was opened. */
	bool cpu_gone;
	/* reader_arm.c, under rd->lock: the arming event writing into this
	 * ring (-1: none). */
	int arm_fd;
	/* A ring buffer added by perfring_reader_new_ring_buffer() or
	 * _add_ring_buffer(): libbpf's callback for its records, for poll_ms
	 * and consume_cb (NULL: the reader's perf_buffer callback, if any). */
	perfring_rb_sample_fn rb_sample;
	void *rb_ctx;
};

/* One poll_ms/consume_cb call (reader_libbpf.c): what it counted as libbpf
 * counts (records whose callback returned >= 0), the records it may still
 * deliver (SIZE_MAX: no limit), a ring_buffer callback's negative value. */
struct pr_cb_call {
	int64_t cnt;
	size_t left;
	int cb_err;
};

/* Count one record of a pr_cb_call whose callback returned ret: the
 * perfring_msg_fn value that goes on or stops (the record is consumed
 * either way, as libbpf's). Shared by reader_libbpf.c's adapter and the
 * ring buffers' direct path. */
static inline int pr_cb_call_count(struct pr_cb_call *call, int ret)
{
	if (ret < 0) {
		call->cb_err = ret;
		return PERFRING_STOP;
	}
	call->cnt++;
	return --call->left ? PERFRING_CONTINUE : PERFRING_STOP;
}

enum pr_arm_state {
	PR_ARM_OFF = 0, /* no arming: bounded sleeps */
	PR_ARM_MAIN,    /* the batching events are in the map */
	PR_ARM_CHECK,   /* arming events in the map; one more look at arm_check_ns */
	PR_ARM_ARMED,   /* arming events in the map: sleep without a bound */
};

/* The validated options. */
struct pr_rd_config {
	size_t data_bytes;
	uint32_t wakeup_events;
	uint32_t wakeup_bytes;
	uint64_t max_delay_ns;
	size_t max_sample_size;
	const int *cpus;
	size_t cpu_cnt;
	bool overwrite;
	bool linearize;
	bool no_hotplug;
	void (*on_cpu)(void *ctx, int cpu, int ring_idx, int what);
	void *on_cpu_ctx;
};

struct perfring_reader {
	/* Fixed once the reader is built (rings change only through
	 * perfring_reader_add(), which is not concurrent with reads). */
	struct pr_rd_config cfg;
	bool is_bpf;
	/* perfring_reader_new_perf_buffer(): libbpf's callbacks, for poll_ms. */
	perfring_pb_sample_fn pb_sample;
	perfring_pb_lost_fn pb_lost;
	void *pb_ctx;
	bool is_pb;
	/* Some ring has a ring_buffer callback (reader_libbpf.c). */
	bool has_rb_cb;
	/* Reader thread only: the poll_ms/consume_cb call in progress (NULL
	 * otherwise), so that a ring buffer's drain hands records straight to
	 * its ring_buffer callback (reader_ringbuf_drain.c). */
	struct pr_cb_call *cb_call;
	int map_fd; /* our dup of the BPF map fd, or -1 */
	uint32_t map_max_entries;
	int epoll_fd;
	int event_fd;
	struct pr_rd_ring **rings;
	int ring_cnt;
	int ring_cap;
	int *skipped;
	int skipped_cnt;
	/* CPU hotplug (reader_hotplug.c): the uevent socket (-1: none), put
	 * in the epoll set by the first wait; the CPUs the reader may serve. */
	int hp_fd;
	bool hp_armed;
	unsigned int hp_batches;
	int *hp_cpus;
	int hp_cpu_cnt;
	struct perfring_reader_hotplug hp_stats; /* written with __atomic stores */
	struct pr_order *order; /* time order (reader_order.c), or NULL */
	/* reader_arm.c: written by the reader thread under lock, read under lock. */
	enum pr_arm_state arm_state;
	int arm_empty;          /* consecutive checks that found the rings empty */
	uint64_t arm_check_ns;
	uint64_t arm_last_go_ns;

	/* Written by any thread; accessed only with __atomic builtins. */
	uint64_t deadline_ns; /* absolute CLOCK_MONOTONIC, 0 = none */
	uint64_t flush_req;   /* number of perfring_reader_flush() calls */
	uint64_t wake_req;    /* number of perfring_reader_wakeup() calls */
	int closed;
	int notify_pending;   /* the eventfd was written: read it to re-arm */

	/* pause/resume/close, add, and the pause state of overwrite drains. */
	pthread_mutex_t lock;
	bool paused;

	/* Iteration state of poll/read/wait/consume (one thread at a time). */
	uint64_t flush_done;     /* flush requests whose drain has completed */
	uint64_t flush_reported; /* ... and that were reported (-PERFRING_EFLUSHED) */
	uint64_t wake_seen;
	bool deadline_report;    /* deliveries after the deadline: next call -ETIMEDOUT */
	int drain_start;         /* ring a poll/consume starts with (fairness) */
	/* max_delay_ns: records not yet announced were written after this
	 * time (CLOCK_MONOTONIC ns; 0: unknown, deliver them at once). */
	uint64_t quiet_ns;
	struct {
		bool active;
		bool flush;
		bool deadline;
		uint64_t flush_snap;
		uint64_t t_begin; /* pr_rd_drain_begin() when it started */
		int next;
	} pass;
};

/* reader.c */
int pr_rd_parse_opts(const struct perfring_reader_opts *opts, bool bpf, struct pr_rd_config *cfg);
struct perfring_reader *pr_rd_alloc(const struct pr_rd_config *cfg);

/* reader_rings.c */
int pr_rd_add_ring(struct perfring_reader *rd, int fd, int cpu, bool own_fd);
/* Give r (its ring or rb set, fd, cpu) an index, epoll registration and a
 * slot. Returns the index, or an error (r is then not kept). */
int pr_rd_append_ring(struct perfring_reader *rd, struct pr_rd_ring *r);
int pr_rd_skip_cpu(struct perfring_reader *rd, int cpu);

/* reader_bpf_map.c: store (on) or delete (off) every ring's fd in the map. */
int pr_rd_bpf_set_output(struct perfring_reader *rd, bool on, bool quiet);
/* The same for one ring: store or delete its CPU's map slot. */
int pr_rd_bpf_set_ring_output(struct perfring_reader *rd, struct pr_rd_ring *r, bool on, bool quiet);

/* reader_bpf_map.c: open CPU cpu's BPF output event, disabled, with the
 * reader's wakeup policy (arming: one wakeup per record): the fd, -ENODEV
 * (offline, no message) or another error (message set). */
int pr_rd_bpf_open_event(const struct perfring_reader *rd, int cpu, bool arming);
/* reader_bpf_map.c: the fd a ring's map slot should hold now (the batching
 * event, or reader_arm.c's arming event). Under rd->lock. */
int pr_rd_arm_slot_fd(const struct perfring_reader *rd, const struct pr_rd_ring *r);

/* reader_hotplug.c */
int pr_rd_hp_init(struct perfring_reader *rd, const int *cpus, int cnt);
void pr_rd_hp_arm(struct perfring_reader *rd);
void pr_rd_hp_process(struct perfring_reader *rd, bool reconcile);
void pr_rd_hp_free(struct perfring_reader *rd);
/* Busy readers take uevents every 64 batches (gate passes without sleep). */
static inline void pr_rd_hp_tick(struct perfring_reader *rd)
{
	if (rd->hp_armed && !(++rd->hp_batches & 63))
		pr_rd_hp_process(rd, false);
}

/* reader_arm.c */
int pr_rd_arm_open(struct perfring_reader *rd, struct pr_rd_ring *r);
void pr_rd_arm_init(struct perfring_reader *rd);
/* Nothing is waiting: maybe arm; returns how long the reader may sleep. */
uint64_t pr_rd_arm_idle(struct perfring_reader *rd, uint64_t now, bool checked);
/* Records are due. */
void pr_rd_arm_busy(struct perfring_reader *rd);

/* reader_order.c */
int pr_rd_order_init(struct perfring_reader *rd, const struct perfring_reader_opts *opts);
void pr_rd_order_free(struct perfring_reader *rd);
/* Drain every ring in time order; release_all: a flush. */
int pr_rd_order_drain(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx, bool release_all, bool *stopped);
/* When held records are due: 0 now, UINT64_MAX none held. */
uint64_t pr_rd_order_due(const struct perfring_reader *rd);

/* reader_wait.c */
enum pr_gate_result {
	PR_GO_DATA = 1,  /* some ring has data */
	PR_GO_FLUSH = 2, /* a flush is pending: drain everything, then report */
};

struct pr_wait {
	int64_t timeout_ns;
	uint64_t end_ns;
	bool end_set;
	bool skip_data;      /* the last drain found nothing: do not spin on it */
	uint64_t flush_snap; /* PR_GO_FLUSH: the flush count being served */
};

void pr_wait_init(struct pr_wait *w, int64_t timeout_ns);
int pr_rd_enter(struct perfring_reader *rd);
int pr_rd_gate(struct perfring_reader *rd, struct pr_wait *w);
/* A drain of every ring is starting (max_delay bookkeeping); returns the
 * time to pass to pr_rd_drained() once it completed without an early stop. */
uint64_t pr_rd_drain_begin(const struct perfring_reader *rd);
void pr_rd_drained(struct perfring_reader *rd, uint64_t t);
void pr_rd_note_deadline(struct perfring_reader *rd);
void pr_rd_flush_done(struct perfring_reader *rd, uint64_t snap);
void pr_rd_notify(struct perfring_reader *rd, bool rearm);
/* Tests: force the epoll_wait() fallback (millisecond timeouts). */
extern int pr_rd_no_epoll_pwait2;

/*
 * Behind perfring_msg.src: where perfring_msg_record() and
 * perfring_msg_remaining() find what the drain did not fill per record.
 * Either rec and remaining are set (rec NULL for a ring buffer record), or
 * fast: the record is a BPF sample wholly inside one stretch of the data
 * area with its header at ev->data - 12, its ring offset is header +
 * to_pos and the bytes left after it batch_end - header - size (pointer
 * values, as in msg_stretch(); set once per stretch). scratch holds the
 * record perfring_msg_record() builds in that case.
 */
struct perfring_msg_src {
	const struct perfring_ring_record *rec;
	uint64_t remaining;
	bool fast;
	uintptr_t batch_end;
	uintptr_t to_pos;
	struct perfring_ring_record scratch;
};

/* reader_drain.c: the zero-copy drain of every ring, or of one (to its
 * head, or to an early stop that leaves it owed); returns records
 * delivered or an error. */
int pr_rd_drain_all(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx, bool *stopped);
int pr_rd_drain_ring(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx,
		     bool *stopped);
/* Overwrite rings are read only while their output is paused. */
void pr_rd_ow_pause(struct perfring_reader *rd, struct pr_rd_ring *r);
void pr_rd_ow_resume(struct perfring_reader *rd, struct pr_rd_ring *r);
uint64_t pr_rd_ow_head(const struct pr_rd_ring *r);
/* Unread records in a ring (loads only); the count of rings that have some. */
bool pr_rd_ring_has_data(const struct pr_rd_ring *r);
int pr_rd_rings_with_data(const struct perfring_reader *rd);
/* A SAMPLE event of ring r with no payload yet, its source pointing at src
 * (no record, nothing remaining; fast: see struct perfring_msg_src).
 * Inline: the drains of reader_drain.c and reader_ringbuf_drain.c share it. */
static inline void pr_rd_msg_init(struct perfring_msg *ev, struct perfring_msg_src *src, const struct pr_rd_ring *r,
				   bool fast)
{
	ev->kind = PERFRING_MSG_SAMPLE;
	ev->cpu = r->cpu;
	ev->ring_idx = r->idx;
	ev->data = NULL;
	ev->size = 0;
	ev->data2 = NULL;
	ev->size2 = 0;
	ev->lost = 0;
	ev->src = src;
	src->rec = NULL;
	src->remaining = 0;
	src->fast = fast;
}

/* out's buffer grown (doubling, from 64) to hold n bytes; 0, or -ENOMEM
 * with the message set. Inline: the copy-out reads of perf rings
 * (reader_read.c) and ring buffers (reader_ringbuf_drain.c) share it. */
static inline int pr_rd_msg_buf_reserve(struct perfring_msg_buf *out, size_t n)
{
	size_t cap;
	void *p;

	if (n <= out->capacity)
		return 0;
	cap = out->capacity > 64 ? out->capacity : 64;
	while (cap < n)
		cap *= 2;
	p = realloc(out->data, cap);
	if (!p)
		return pr_fail(ENOMEM, "perfring_reader_read: cannot grow the record buffer to %zu bytes", cap);
	out->data = p;
	out->capacity = cap;
	return 0;
}

/* reader_drain.c: turning ring records into messages, shared by the drains. */
int pr_rd_fill_event(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		     struct perfring_msg *ev, struct perfring_msg_src *src);
int pr_rd_sample_span(struct perfring_reader *rd, struct pr_rd_ring *r, const struct perfring_ring_record *rec,
		      size_t *off, size_t *len);
int pr_rd_lost_count(struct pr_rd_ring *r, const struct perfring_ring_record *rec, uint64_t *lost);
int pr_rd_corrupt(struct pr_rd_ring *r, uint64_t offset, const char *why);

/* reader_read.c: the next record of a copy-out pass (1, 0 at its end, or
 * an error); another kind of call taking over mid-pass. */
int pr_rd_pass_next(struct perfring_reader *rd, struct perfring_msg_buf *out);
void pr_rd_pass_abandon(struct perfring_reader *rd);

/* reader_samples.c: the loop of perfring_reader_consume_samples(). */
int pr_rd_samples_drain(struct perfring_reader *rd, perfring_sample_fn sample_fn, perfring_lost_fn lost_fn,
			void *ctx);

/* reader_ringbuf_drain.c: the ring buffer side of drain, read,
 * consume_samples and the wait's data check. */
int pr_rd_rb_drain(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_msg_fn fn, void *ctx, bool *stopped);
int pr_rd_rb_read(struct perfring_reader *rd, struct pr_rd_ring *r, struct perfring_msg_buf *out);
int pr_rd_rb_samples(struct perfring_reader *rd, struct pr_rd_ring *r, perfring_sample_fn sample_fn,
		     perfring_lost_fn lost_fn, void *ctx, bool *stopped);
bool pr_rd_rb_has_data(const struct pr_rd_ring *r);
bool pr_rd_rb_moved(struct pr_rd_ring *r);

/* The record at pos of a forward batch ending at end, validated and decoded
 * into *ev (not consumed). 0, or a negative error with the message set. */
int pr_rd_event_at(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t pos, uint64_t end,
		   struct perfring_ring_record *rec, struct perfring_msg *ev, struct perfring_msg_src *src);
/* The record at pos that an inline drain loop did not take (a wrapped
 * record, LOST, another type, a bad size), decoded as above and given to fn:
 * the callback's value, or a negative error. Sets *size, and *lost for a
 * LOST record (else 0). The perfring_msg and consume_samples drains share it. */
int pr_rd_deliver_slow(struct perfring_reader *rd, struct pr_rd_ring *r, uint64_t pos, uint64_t end,
		       perfring_msg_fn fn, void *ctx, unsigned int *size, uint64_t *lost);

/* End a forward drain that walked [start, pos): store the tail (release)
 * and add the counters. */
void pr_rd_commit_forward(struct pr_rd_ring *r, uint64_t start, uint64_t pos, int n, uint64_t lost,
			  uint64_t lost_records);

#endif /* PERFRING_READER_INTERNAL_H */

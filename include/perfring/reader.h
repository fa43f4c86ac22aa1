/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perfring reader layer: a set of rings with one poller.
 *
 * Two ways to build one:
 *  - perfring_reader_new_bpf(): for a BPF_MAP_TYPE_PERF_EVENT_ARRAY. One
 *    PERF_COUNT_SW_BPF_OUTPUT event and ring per online CPU, stored in the
 *    map at key = the real CPU id;
 *  - perfring_reader_new() + perfring_reader_add(): any perf event fds the
 *    caller opened itself.
 *
 * After any wakeup every ring is drained to its head: the kernel reports a
 * ring readable only once per wakeup, so a ring left half read would not be
 * reported again (the kernel's perf_poll() clears a ring's readiness as it
 * reports it). Records wait for the wakeup threshold
 * (as cilium's Read does), also those already in a ring when
 * perfring_reader_poll()/_read()/_wait() is called: they come out with the
 * record that reaches it, on a flush, when the deadline passes, or at the
 * latest max_delay_ns after they were written while a thread waits in
 * poll/read. A timeout alone does not release them (-ETIMEDOUT). Records
 * left by an early stop are due at once. _consume() takes whatever is there.
 *
 * Thread-safety contract:
 *  - perfring_reader_poll(), _read(), _consume(), _wait(), and the
 *    libbpf-shaped _poll_ms(), _consume_cb() and _consume_cb_n(): one thread
 *    at a time per reader (they share the iteration state);
 *  - perfring_reader_consume_ring(): concurrently from several threads as
 *    long as each thread serves its own ring index, and not together with
 *    _poll/_read/_consume on the same reader;
 *  - _flush(), _wakeup(), _close(), _set_deadline(), _pause(), _resume(),
 *    _stats() and every accessor: from any thread at any time, including
 *    while another thread is blocked in _poll()/_read()/_wait();
 *  - perfring_reader_add(): during set-up only, before any other thread
 *    uses the reader (it grows the ring array the accessors read);
 *  - _free(): only when no other thread uses the reader.
 *
 * _wakeup(), _flush() and _set_deadline() are async-signal-safe: they take
 * no lock, allocate nothing, set no perfring_errmsg() and only do atomic
 * stores and an eventfd write, so they may be called from a signal
 * handler. A signal that interrupts a blocked call makes it return -EINTR.
 *
 * Errors: every call that fails returns a negative errno or -PERFRING_E*
 * (NULL for the pointer-returning ones, with errno set) and sets
 * perfring_errmsg(). A NULL reader, callback or output pointer, or a ring
 * index outside 0..perfring_reader_ring_cnt()-1, is -EINVAL everywhere; a
 * CPU no ring serves is -ENOENT; a closed reader is -PERFRING_ECLOSED.
 */
#ifndef PERFRING_READER_H
#define PERFRING_READER_H

#include <perfring/common.h>
#include <perfring/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

struct perfring_reader;
struct perfring_msg;
struct perfring_msg_src;

struct perfring_reader_opts {
	size_t sz; /* sizeof(struct perfring_reader_opts) */
	/* Per-CPU data area size in pages (a power of two) or bytes (page size
	 * times a power of two); give at most one. Default 64 pages. */
	size_t data_pages;
	size_t data_bytes;
	/* Wakeup policy, at most one of the two (default: wakeup_events = 1,
	 * one wakeup per record, as libbpf and aya do):
	 *  wakeup_events: wake the reader every N records;
	 *  wakeup_bytes:  wake when B bytes are waiting (watermark); must be
	 *                 smaller than the buffer size. */
	uint32_t wakeup_events;
	uint32_t wakeup_bytes;
	/* Upper bound, in nanoseconds, on how long a record may wait below the
	 * wakeup threshold before a blocked poll/read delivers it anyway.
	 * 0: no bound (records wait for the threshold, a flush or the
	 * deadline). For perfring_reader_new() readers, give the wakeup
	 * fields the values of your events' attrs: the default (1) takes
	 * every record at once. A batching BPF reader keeps the bound while
	 * idle without waking every max_delay_ns: it switches each CPU's map
	 * slot to an "arming" event (one more fd per CPU) that wakes it on the
	 * next record. */
	uint64_t max_delay_ns;
	/* Overwritable rings (write_backward): the kernel overwrites the
	 * oldest records; reads pause output and return newest first. */
	bool overwrite;
	/* The largest sample payload the producer will emit, in bytes. If such
	 * a sample could never fit in one ring the reader is refused with
	 * -E2BIG and a message giving the buffer size needed (a sample that
	 * does not fit is dropped every time and never wakes the reader). */
	size_t max_sample_size;
	/* Only these CPU ids (NULL: every online CPU). */
	const int *cpus;
	size_t cpu_cnt;
	/* Deliver straddling records as one contiguous span (copied into the
	 * ring's scratch buffer) instead of two: the payload and the raw
	 * record (perfring_msg_record()) alike. */
	bool linearize;
	/* CPU hotplug, BPF readers (see perfring_reader_hotplug_stats()):
	 * the reader follows CPUs going offline and online; true turns this
	 * off. on_cpu (may be NULL) is called from the thread in
	 * poll/read/wait with on_cpu_ctx for each change it made. */
	bool no_hotplug;
	void (*on_cpu)(void *ctx, int cpu, int ring_idx, int what); /* what: enum perfring_cpu_change */
	void *on_cpu_ctx;
	/* Time order across rings (see perfring_reader_order_stats()): > 0
	 * makes perfring_reader_poll() and _consume() deliver the records of
	 * all rings oldest first, holding a record back until it is this many
	 * nanoseconds older than the newest time seen (or no record came for
	 * that long). Each record's time is found by order_time_fn(ev,
	 * order_time_ctx) if set (UINT64_MAX: none), else for BPF readers the
	 * u64 at byte order_time_offset of the payload, else (caller-opened
	 * events) by the events' order_sample_type (which must hold
	 * PERF_SAMPLE_TIME) and order_sample_id_all. */
	uint64_t order_window_ns;
	uint32_t order_time_offset;
	uint64_t order_sample_type;
	bool order_sample_id_all;
	uint64_t (*order_time_fn)(const struct perfring_msg *ev, void *ctx);
	void *order_time_ctx;
};

/* What on_cpu reports. */
enum perfring_cpu_change {
	PERFRING_CPU_RING_ADDED = 1, /* a CPU offline at creation came online: new ring ring_idx */
	PERFRING_CPU_REOPENED = 2,   /* a CPU came back online: its event was opened anew into its ring */
	PERFRING_CPU_OFFLINE = 3,    /* a CPU went offline: its ring keeps its records */
	PERFRING_CPU_FAILED = 4,     /* a CPU came online but its event could not be opened (see the log) */
};

/* Hotplug counters of a reader. */
struct perfring_reader_hotplug {
	uint64_t rings_added;  /* PERFRING_CPU_RING_ADDED */
	uint64_t reopened;     /* PERFRING_CPU_REOPENED */
	uint64_t offline;      /* PERFRING_CPU_OFFLINE */
	uint64_t failed;       /* PERFRING_CPU_FAILED */
	bool active;           /* hotplug is followed (BPF reader, not switched off, uevents readable) */
};

enum perfring_msg_kind {
	PERFRING_MSG_SAMPLE = 1, /* a PERF_RECORD_SAMPLE */
	PERFRING_MSG_LOST = 2,   /* a PERF_RECORD_LOST: `lost` records were dropped */
	PERFRING_MSG_OTHER = 3,  /* any other record type: see rec */
};

/* What a zero-copy callback receives. Valid only during the callback. */
struct perfring_msg {
	enum perfring_msg_kind kind;
	int cpu;        /* CPU id of the ring (-1 if the caller gave none) */
	int ring_idx;   /* index of the ring in the reader */
	/* SAMPLE of a BPF reader: the bpf_perf_event_output() payload, as one
	 * or two spans (data2/size2 only when it wraps around the end of the
	 * ring: NULL and 0 otherwise). The kernel pads the payload so that it
	 * ends on an 8-byte boundary: size may exceed what the program passed
	 * by up to 7 bytes. For readers of caller-opened events, and for LOST
	 * and other records, the spans are the record body after the header. */
	const void *data;
	size_t size;
	const void *data2;
	size_t size2;
	uint64_t lost;       /* LOST: number of records lost */
	/* Private to the library: the raw record and the bytes left in the
	 * batch are worked out on demand from it, by perfring_msg_record()
	 * and perfring_msg_remaining() (the drain does not fill them for
	 * every record: most callbacks never look). */
	struct perfring_msg_src *src;
};

/*
 * The raw record of ev (type, misc, size, its one or two spans, its ring
 * offset, and remaining as perfring_msg_remaining()), or NULL for a record
 * of a BPF ring buffer (which has no perf record). Valid only during the
 * callback, until the next call for the same ev.
 */
PERFRING_API const struct perfring_ring_record *perfring_msg_record(const struct perfring_msg *ev);

/*
 * Bytes of this ring's current batch after ev's record: a batch is what
 * the ring held when the reader read its head for this pass, so 0 means
 * the last record of the batch (records written since are not counted).
 * perfring_msg_buf.remaining means the same. 0 in time order
 * (order_window_ns) and for ev NULL.
 */
PERFRING_API uint64_t perfring_msg_remaining(const struct perfring_msg *ev);

typedef int (*perfring_msg_fn)(const struct perfring_msg *ev, void *ctx);

/*
 * A reader for the BPF perf event array map_fd. The reader keeps its own dup
 * of map_fd (the caller may close its own). It serves every possible CPU
 * (or opts.cpus): those that are offline, or whose id is not below the
 * map's max_entries, are skipped and reported through the log and
 * perfring_reader_skipped_cpus(). A CPU that comes online later gets a ring
 * (see perfring_reader_hotplug_stats()). Returns NULL and sets errno:
 * EINVAL for a map of another type or bad options, E2BIG for
 * max_sample_size too large for the buffer, EACCES/EPERM when perf events
 * may not be opened (perfring_errmsg() names perf_event_paranoid and
 * CAP_PERFMON/CAP_BPF), ENOMEM/EPERM from mmap (the message names
 * perf_event_mlock_kb and RLIMIT_MEMLOCK).
 *
 * Limitation: close and free delete the map slots of the reader's CPUs
 * even if another reader (e.g. bpftool map event_pipe) has stored its own
 * fds there since: the kernel deletes by key only, and a perf event array
 * cannot be looked up from user space (the kernel answers ENOTSUPP, 524), so whose fd a slot
 * holds cannot be seen. Run one reader per map at a time.
 */
PERFRING_API struct perfring_reader *perfring_reader_new_bpf(int map_fd, const struct perfring_reader_opts *opts);

/*
 * The libbpf-shaped path: the same reader as perfring_reader_new_bpf(),
 * built and driven as libbpf's perf_buffer__new()/perf_buffer__poll(), with
 * callbacks of libbpf's exact types (a libbpf handler compiles unchanged).
 * page_cnt: per-CPU data pages (a power of two; 0: opts or the default);
 * opts may be NULL. sample_cb gets each SAMPLE's payload as one contiguous
 * span (size includes the kernel's padding, see perfring_msg); lost_cb (may
 * be NULL) each LOST count. Returns NULL with errno set, as new_bpf.
 */
/* libbpf's perf_buffer_sample_fn and perf_buffer_lost_fn: __u32 is unsigned
 * int, __u64 unsigned long long (not uint64_t, which is unsigned long on
 * LP64: a handler taking __u64 would not convert under -Werror). */
typedef void (*perfring_pb_sample_fn)(void *ctx, int cpu, void *data, unsigned int size);
typedef void (*perfring_pb_lost_fn)(void *ctx, int cpu, unsigned long long cnt);

PERFRING_API struct perfring_reader *perfring_reader_new_perf_buffer(int map_fd, size_t page_cnt,
								     perfring_pb_sample_fn sample_cb,
								     perfring_pb_lost_fn lost_cb, void *ctx,
								     const struct perfring_reader_opts *opts);

/*
 * For a reader with libbpf's callbacks (perfring_reader_new_perf_buffer(),
 * perfring_reader_new_ring_buffer() or _add_ring_buffer(), see ringbuf.h),
 * with the semantics of libbpf's perf_buffer__poll() and ring_buffer__poll():
 * wait up to timeout_ms milliseconds (< 0: no timeout; a deadline still
 * applies), then deliver every record to the callbacks. Returns the number
 * of records consumed (at most INT_MAX; libbpf's perf_buffer__poll() counts
 * the rings that were ready), 0 on timeout (or a passed deadline), or a
 * negative error (-PERFRING_EWOKEN, -PERFRING_ECLOSED,
 * -EINTR, -EINVAL for a reader without libbpf callbacks, ...). perf_buffer
 * callbacks return void: every record delivered is consumed. A ring_buffer
 * callback that returns a negative value stops the call, which returns that
 * value: its record is consumed, the rest waits for the next call (as
 * libbpf does); other values go on.
 */
PERFRING_API int perfring_reader_poll_ms(struct perfring_reader *rd, int timeout_ms);

/*
 * The same without waiting, as libbpf's ring_buffer__consume() and
 * ring_buffer__consume_n() (and perf_buffer__consume(), which returns 0
 * where this returns the count): deliver what every ring holds now, at most
 * n records with _n (0: none), to the callbacks. Returns the number of
 * records consumed (at most INT_MAX), or a negative error or callback
 * value, as perfring_reader_poll_ms().
 */
PERFRING_API int perfring_reader_consume_cb(struct perfring_reader *rd);
PERFRING_API int perfring_reader_consume_cb_n(struct perfring_reader *rd, size_t n);

/* An empty reader for caller-opened events; add rings with perfring_reader_add(). */
PERFRING_API struct perfring_reader *perfring_reader_new(const struct perfring_reader_opts *opts);

/*
 * Map the ring of perf event fd and add it to the reader, labelled cpu (-1
 * if not per-CPU). The fd stays the caller's: close it after
 * perfring_reader_free(). The reader's buffer size and overwritable option
 * apply; the wakeup options must already be in the fd's attr. Returns the
 * ring index, or a negative error. Not concurrent with reads.
 */
PERFRING_API int perfring_reader_add(struct perfring_reader *rd, int fd, int cpu);

/*
 * Close (if not yet closed), unmap and free everything. NULL is a no-op.
 */
PERFRING_API void perfring_reader_free(struct perfring_reader *rd);

/*
 * Wait until data is ready, the timeout or the deadline passes, or the
 * reader is flushed, woken or closed, then drain every ring, calling fn for
 * each record. timeout_ns < 0 waits without timeout (but see
 * perfring_reader_set_deadline()); 0 does not block.
 * Returns the number of records delivered (> 0), or:
 *   -ETIMEDOUT         the timeout or deadline passed with nothing to deliver
 *                      (a deadline passed with records pending: they are
 *                      delivered first, the next call reports -ETIMEDOUT);
 *   -PERFRING_EFLUSHED a flush was requested and everything written before
 *                      it has been delivered (by this or earlier calls);
 *   -PERFRING_EWOKEN   perfring_reader_wakeup() was called;
 *   -PERFRING_ECLOSED  the reader is closed;
 *   -PERFRING_ECORRUPT a ring is corrupt (records before it were
 *                      delivered; perfring_ring_discard() it to go on);
 *   or the callback's negative value.
 * fn returning PERFRING_STOP stops early; the rest stays for the next call.
 * The call that reports -PERFRING_EFLUSHED (or a deadline's records) may
 * itself have delivered records first: count records in fn, not from the
 * return value alone.
 */
PERFRING_API int perfring_reader_poll(struct perfring_reader *rd, int64_t timeout_ns, perfring_msg_fn fn,
				      void *ctx);

/* Drain every ring once without blocking or any syscall. Returns the number
 * of records delivered or a negative error, as perfring_reader_poll(). */
PERFRING_API int perfring_reader_consume(struct perfring_reader *rd, perfring_msg_fn fn, void *ctx);

/* Drain ring idx only; see the thread-safety contract above. */
PERFRING_API int perfring_reader_consume_ring(struct perfring_reader *rd, int idx, perfring_msg_fn fn, void *ctx);

/*
 * The fastest drain, shaped like libbpf's perf_buffer callbacks: for each
 * SAMPLE, sample_fn(ctx, cpu, data, size) with the payload as one
 * contiguous span (a sample that straddles the end of the ring is first
 * copied into the ring's scratch buffer; size includes the kernel's padding,
 * see perfring_msg); for each LOST, lost_fn(ctx, cpu, count) (lost_fn may
 * be NULL: the count still goes to the stats); other record types are
 * skipped (counted in the stats as records). No syscall and no wait: call it
 * after perfring_reader_wait() or when your own epoll loop reports the
 * reader's epoll fd. sample_fn returns PERFRING_CONTINUE, PERFRING_STOP or
 * a negative error, as the other callbacks. Returns the number of records
 * consumed, or a negative error as perfring_reader_consume().
 */
typedef int (*perfring_sample_fn)(void *ctx, int cpu, const void *data, size_t size);
typedef void (*perfring_lost_fn)(void *ctx, int cpu, uint64_t lost);

PERFRING_API int perfring_reader_consume_samples(struct perfring_reader *rd, perfring_sample_fn sample_fn,
						 perfring_lost_fn lost_fn, void *ctx);

/*
 * Block until any ring has data or the timeout/deadline passes (or flush,
 * wakeup, close). Returns the number of rings with data (>= 1), or the
 * negative codes of perfring_reader_poll(). Does not consume.
 */
PERFRING_API int perfring_reader_wait(struct perfring_reader *rd, int64_t timeout_ns);

/*
 * A copied-out record, for perfring_reader_read(). The caller owns it:
 * initialise it zeroed, pass it again and again (the buffer is reused and
 * grown with realloc as needed, never shrunk), release it with
 * perfring_msg_buf_release().
 */
struct perfring_msg_buf {
	enum perfring_msg_kind kind;
	int cpu;
	uint32_t type;       /* PERF_RECORD_* of the record */
	void *data;          /* SAMPLE: the payload (padded, see perfring_msg) */
	size_t size;         /* bytes valid at data */
	size_t capacity;     /* bytes allocated at data */
	uint64_t lost;       /* LOST: number of records lost */
	uint64_t remaining;  /* bytes of the ring's batch after this record (see perfring_msg) */
};

PERFRING_API void perfring_msg_buf_release(struct perfring_msg_buf *rec);

/*
 * Read the next record into rec (copy-out), blocking as perfring_reader_poll()
 * does. Returns 0 with rec filled, or the negative codes of
 * perfring_reader_poll(). For a SAMPLE the payload is copied; for
 * other types (non-BPF readers) the whole record including its header.
 * On an overwritable reader a ring stays paused between calls until its
 * batch has been read to the end.
 */
PERFRING_API int perfring_reader_read(struct perfring_reader *rd, struct perfring_msg_buf *rec,
				      int64_t timeout_ns);

/*
 * An absolute deadline on CLOCK_MONOTONIC, in nanoseconds (0 clears it):
 * blocking calls return -ETIMEDOUT once it passes, after delivering what is
 * pending. Takes effect at once, also for a call already blocked. The
 * deadline is sticky: once passed, every later blocking call returns
 * -ETIMEDOUT (after delivering what is pending) until it is cleared with 0
 * or moved. Async-signal-safe.
 */
PERFRING_API void perfring_reader_set_deadline(struct perfring_reader *rd, uint64_t deadline_ns);

/* Make a blocked, or the next, poll/read/wait drain everything and then
 * return -PERFRING_EFLUSHED. Async-signal-safe. */
PERFRING_API void perfring_reader_flush(struct perfring_reader *rd);

/* Interrupt a blocked poll/read/wait: it returns -PERFRING_EWOKEN.
 * Async-signal-safe. */
PERFRING_API void perfring_reader_wakeup(struct perfring_reader *rd);

/*
 * Stop: pause output, wake any blocked call; every later poll/read/wait
 * returns -PERFRING_ECLOSED. Resources are released by perfring_reader_free().
 * Idempotent.
 */
PERFRING_API void perfring_reader_close(struct perfring_reader *rd);

/*
 * Pause: BPF reader: delete the fds from the map by CPU id (the program's
 * bpf_perf_event_output() then returns -ENOENT, not counted as lost); other
 * readers: PERF_EVENT_IOC_PAUSE_OUTPUT. Resume restores them. Both are
 * idempotent. Records already in the rings remain readable. After
 * perfring_reader_close() both return -PERFRING_ECLOSED (output stays
 * paused for good).
 */
PERFRING_API int perfring_reader_pause(struct perfring_reader *rd);
PERFRING_API int perfring_reader_resume(struct perfring_reader *rd);

/*
 * Pause or resume ring idx only, as perfring_reader_pause() does for all:
 * BPF reader: delete/store that CPU's map slot; other readers:
 * PERF_EVENT_IOC_PAUSE_OUTPUT on its event. Idempotent. perfring_reader_resume()
 * resumes every ring, these included; resume_ring also undoes
 * perfring_reader_pause() for that ring. 0, -EINVAL for a NULL reader or an
 * index out of range, -PERFRING_ECLOSED after close, or the map/ioctl error.
 */
PERFRING_API int perfring_reader_pause_ring(struct perfring_reader *rd, int idx);
PERFRING_API int perfring_reader_resume_ring(struct perfring_reader *rd, int idx);

/* For the caller's own event loop: the epoll fd; the number of rings;
 * each ring's perf event fd, CPU id, and the ring itself (-EINVAL, or
 * NULL with errno EINVAL, for a NULL reader or an index out of range).
 * The epoll fd becomes readable once per kernel wakeup of a ring (at the
 * wakeup threshold, not per record), and on flush, wakeup or close (a
 * pending flush or wakeup keeps it readable until a poll/read/wait call
 * reports it; once closed it stays readable). Records below the threshold,
 * or left in a ring after a callback returned PERFRING_STOP, do not make it
 * readable again: an external loop must wait on it with a timeout of at
 * most max_delay and, after every wait, readable or not, call
 * perfring_reader_consume() until perfring_reader_pending() is 0 (or it
 * returns 0, or a budget is spent). */
PERFRING_API int perfring_reader_epoll_fd(const struct perfring_reader *rd);
PERFRING_API int perfring_reader_ring_cnt(const struct perfring_reader *rd);
PERFRING_API int perfring_reader_ring_fd(const struct perfring_reader *rd, int idx);
PERFRING_API int perfring_reader_ring_cpu(const struct perfring_reader *rd, int idx);
PERFRING_API struct perfring_ring *perfring_reader_ring(const struct perfring_reader *rd, int idx);
/* Ring index of a CPU id, or -ENOENT. */
PERFRING_API int perfring_reader_cpu_ring(const struct perfring_reader *rd, int cpu);

/*
 * The number of rings holding unread data (perfring_ring_bytes_available()
 * of each is not 0), without any syscall: 0 means a consume now would
 * deliver nothing. For an external event loop, after a wait: consume while
 * this is not 0 (or up to a budget). -EINVAL for NULL.
 */
PERFRING_API int perfring_reader_pending(const struct perfring_reader *rd);

/* Per-ring counters (records, bytes, lost) of ring idx. 0, or -EINVAL for
 * a NULL reader or stats or an index out of range. */
PERFRING_API int perfring_reader_stats(const struct perfring_reader *rd, int idx, struct perfring_ring_stats *stats);

/* The per-CPU data area size actually used, in bytes. */
PERFRING_API size_t perfring_reader_data_size(const struct perfring_reader *rd);

/*
 * CPU hotplug of a BPF reader. The reader listens to the kernel's uevents
 * (NETLINK_KOBJECT_UEVENT) and, in the thread that waits in
 * poll/read/wait (no thread of its own), follows CPU changes: a CPU that
 * was offline at creation and comes online gets its event and ring (a new
 * ring index; the ring array never moves, so accessors stay safe), stored
 * in the map; a CPU that went offline and comes back gets a new event
 * whose output goes into its existing ring (the kernel leaves the old
 * event dead: re-enabling it does not revive it), so no record is lost or
 * read twice. Records a program writes on a CPU before the reader has
 * reopened it fail in the program (bpf_perf_event_output() returns an
 * error), as for any CPU without a ring. Uevents are taken while a thread
 * sleeps in the reader and, when it never sleeps, every 64 batches; an
 * external event loop that never calls poll/read/wait does not follow
 * hotplug. Writes the counters to *st; -EINVAL for NULL.
 */
PERFRING_API int perfring_reader_hotplug_stats(const struct perfring_reader *rd, struct perfring_reader_hotplug *st);

/* Time order counters of a reader (opts.order_window_ns). */
struct perfring_reader_order {
	uint64_t late;       /* records delivered after a newer one: they came later than the window */
	uint64_t forced;     /* times the held records were all released because a queue was full */
	uint64_t held;       /* records held (copied out) now */
	uint64_t held_bytes; /* their bytes */
	bool active;         /* the reader delivers in time order */
};

/*
 * In time order (opts.order_window_ns > 0), a k-way merge over the rings:
 * a record goes out once it is order_window_ns older than the newest time
 * seen in any ring, in place (zero copy) when it is that old when the
 * reader finds it; a record that must wait is copied out of its ring
 * (queues hold at most the ring size each; beyond that, everything held is
 * released and counted as forced). When no record arrives for a window,
 * everything held goes out, as on a flush or a passed deadline. A record
 * older than one already delivered is delivered anyway and counted late.
 * perfring_reader_read(), _consume_samples() and _consume_ring() return
 * -EINVAL in this mode; perfring_msg_remaining() is 0. Writes the counters to *st.
 */
PERFRING_API int perfring_reader_order_stats(const struct perfring_reader *rd, struct perfring_reader_order *st);

/* CPU ids skipped at creation (offline, or beyond max_entries): writes up
 * to cnt of them to cpus and returns how many there are. A CPU added
 * later by hotplug stays in this list. */
PERFRING_API int perfring_reader_skipped_cpus(const struct perfring_reader *rd, int *cpus, size_t cnt);

/*
 * Parse a sysfs CPU range list ("0-3,8-11\n") into a sorted bitmap-free
 * list of ids: writes up to cnt ids to cpus, returns how many the list
 * holds, or -EINVAL with the offending position in perfring_errmsg().
 */
PERFRING_API int perfring_parse_cpu_list(const char *list, int *cpus, size_t cnt);

/* The online CPU ids of this machine, from /sys/devices/system/cpu/online,
 * and the possible ones (online or not), from .../possible; as
 * perfring_parse_cpu_list(). */
PERFRING_API int perfring_online_cpus(int *cpus, size_t cnt);
PERFRING_API int perfring_possible_cpus(int *cpus, size_t cnt);

#ifdef __cplusplus
}
#endif

#endif /* PERFRING_READER_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `perfring script`: the fields of each kernel record type, in the kernel's
 * order, under the names of the perf_event_open(2) man page. pid/tid pairs
 * are written signed (the kernel's -1 for "none" reads as -1, as perf shows
 * it); everything else as the unsigned value the kernel wrote.
 */
#include <linux/perf_event.h>

#include "script/script_decode.h"

static void pd_emit_pid_tid(struct pd_emit *e, uint32_t pid, uint32_t tid)
{
	pd_emit_i64(e, "pid", (int32_t)pid);
	pd_emit_i64(e, "tid", (int32_t)tid);
}

static void pd_emit_read(struct pd_emit *e, const char *key, const struct perfring_read_values *r)
{
	struct perfring_read_value v;
	uint64_t i;

	pd_emit_obj_begin(e, key);
	if (r->format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		pd_emit_u64(e, "time_enabled", r->time_enabled);
	if (r->format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		pd_emit_u64(e, "time_running", r->time_running);
	pd_emit_arr_begin(e, "values");
	for (i = 0; i < r->nr; i++) {
		perfring_read_value_at(r, i, &v);
		pd_emit_obj_begin(e, NULL);
		pd_emit_u64(e, "value", v.value);
		if (r->format & PERF_FORMAT_ID)
			pd_emit_u64(e, "id", v.id);
		if (r->format & (1u << 4)) /* PERF_FORMAT_LOST */
			pd_emit_u64(e, "lost", v.lost);
		pd_emit_obj_end(e);
	}
	pd_emit_arr_end(e);
	pd_emit_obj_end(e);
}

static void pd_emit_u64s(struct pd_emit *e, const char *key, const struct perfring_u64_array *a)
{
	uint64_t i;

	pd_emit_arr_begin(e, key);
	for (i = 0; i < a->nr; i++)
		pd_emit_x64(e, NULL, perfring_u64_at(a, i));
	pd_emit_arr_end(e);
}

static void pd_emit_regs(struct pd_emit *e, const char *key, const struct perfring_regs *r)
{
	pd_emit_obj_begin(e, key);
	pd_emit_u64(e, "abi", r->abi);
	pd_emit_x64(e, "mask", r->mask);
	pd_emit_u64s(e, "regs", &r->regs);
	pd_emit_obj_end(e);
}

static void pd_emit_branches(struct pd_emit *e, const struct perfring_branch_stack *b)
{
	struct perfring_branch_entry be;
	struct perfring_u64_array counters = { b->counters, b->counters ? b->nr : 0, b->swapped };
	uint64_t i;

	pd_emit_obj_begin(e, "branch_stack");
	pd_emit_u64(e, "nr", b->nr);
	if (b->has_hw_idx)
		pd_emit_u64(e, "hw_idx", b->hw_idx);
	pd_emit_arr_begin(e, "entries");
	for (i = 0; i < b->nr; i++) {
		perfring_branch_at(b, i, &be);
		pd_emit_obj_begin(e, NULL);
		pd_emit_x64(e, "from", be.from);
		pd_emit_x64(e, "to", be.to);
		pd_emit_x64(e, "flags", be.flags_raw);
		pd_emit_bool(e, "mispred", be.mispred);
		pd_emit_bool(e, "predicted", be.predicted);
		pd_emit_bool(e, "in_tx", be.in_tx);
		pd_emit_bool(e, "abort", be.abort);
		pd_emit_u64(e, "cycles", be.cycles);
		pd_emit_u64(e, "type", be.type);
		pd_emit_u64(e, "spec", be.spec);
		pd_emit_u64(e, "new_type", be.new_type);
		pd_emit_u64(e, "priv", be.priv);
		pd_emit_obj_end(e);
	}
	pd_emit_arr_end(e);
	if (b->counters)
		pd_emit_u64s(e, "counters", &counters);
	pd_emit_obj_end(e);
}

static void pd_emit_sample(struct pd_emit *e, const struct perfring_sample *s)
{
	uint64_t t = s->present;

	if (t & PERF_SAMPLE_IDENTIFIER)
		pd_emit_u64(e, "identifier", s->identifier);
	if (t & PERF_SAMPLE_IP)
		pd_emit_x64(e, "ip", s->ip);
	if (t & PERF_SAMPLE_TID)
		pd_emit_pid_tid(e, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		pd_emit_u64(e, "time", s->time);
	if (t & PERF_SAMPLE_ADDR)
		pd_emit_x64(e, "addr", s->addr);
	if (t & PERF_SAMPLE_ID)
		pd_emit_u64(e, "id", s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		pd_emit_u64(e, "stream_id", s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		pd_emit_u64(e, "cpu", s->cpu);
		pd_emit_u64(e, "cpu_res", s->cpu_res);
	}
	if (t & PERF_SAMPLE_PERIOD)
		pd_emit_u64(e, "period", s->period);
	if (t & PERF_SAMPLE_READ)
		pd_emit_read(e, "read", &s->read);
	if (t & PERF_SAMPLE_CALLCHAIN)
		pd_emit_u64s(e, "callchain", &s->callchain);
	if (t & PERF_SAMPLE_RAW)
		pd_emit_hex(e, "raw", s->raw.data, s->raw.len);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		pd_emit_branches(e, &s->branch);
	if (t & PERF_SAMPLE_REGS_USER)
		pd_emit_regs(e, "regs_user", &s->regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		/* The stack copy itself is large and rarely wanted: its sizes only. */
		pd_emit_obj_begin(e, "stack_user");
		pd_emit_u64(e, "size", s->stack_user.size);
		if (s->stack_user.size)
			pd_emit_u64(e, "dyn_size", s->stack_user.dyn_size);
		pd_emit_obj_end(e);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		pd_emit_u64(e, "weight", s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		pd_emit_x64(e, "data_src", s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		pd_emit_x64(e, "transaction", s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		pd_emit_regs(e, "regs_intr", &s->regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		pd_emit_x64(e, "phys_addr", s->phys_addr);
	if (t & PERF_SAMPLE_AUX)
		pd_emit_hex(e, "aux", s->aux.data, s->aux.len);
	if (t & PERF_SAMPLE_CGROUP)
		pd_emit_u64(e, "cgroup", s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		pd_emit_u64(e, "data_page_size", s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		pd_emit_u64(e, "code_page_size", s->code_page_size);
}

static void pd_emit_sample_id(struct pd_emit *e, const struct perfring_sample_id *id)
{
	uint64_t t = id->present;

	if (!t)
		return;
	pd_emit_obj_begin(e, "sample_id");
	if (t & PERF_SAMPLE_TID)
		pd_emit_pid_tid(e, id->pid, id->tid);
	if (t & PERF_SAMPLE_TIME)
		pd_emit_u64(e, "time", id->time);
	if (t & PERF_SAMPLE_ID)
		pd_emit_u64(e, "id", id->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		pd_emit_u64(e, "stream_id", id->stream_id);
	if (t & PERF_SAMPLE_CPU)
		pd_emit_u64(e, "cpu", id->cpu);
	if (t & PERF_SAMPLE_IDENTIFIER)
		pd_emit_u64(e, "identifier", id->identifier);
	pd_emit_obj_end(e);
}

static void pd_emit_mmap(struct pd_emit *e, const struct perfring_decoded *d)
{
	const struct perfring_rec_mmap *m = &d->u.mmap;

	pd_emit_pid_tid(e, m->pid, m->tid);
	pd_emit_x64(e, "addr", m->addr);
	pd_emit_x64(e, "len", m->len);
	pd_emit_x64(e, "pgoff", m->pgoff);
	if (d->type == PERF_RECORD_MMAP2) {
		if (m->has_build_id) {
			pd_emit_hex(e, "build_id", m->build_id, m->build_id_size <= 20 ? m->build_id_size : 20);
		} else {
			pd_emit_u64(e, "maj", m->maj);
			pd_emit_u64(e, "min", m->min);
			pd_emit_u64(e, "ino", m->ino);
			pd_emit_u64(e, "ino_generation", m->ino_generation);
		}
		pd_emit_x64(e, "prot", m->prot);
		pd_emit_x64(e, "flags", m->flags);
	}
	pd_emit_str(e, "filename", m->filename);
}

static void pd_emit_namespaces(struct pd_emit *e, const struct perfring_rec_namespaces *n)
{
	struct perfring_u64_array a = { n->entries, n->nr * 2, n->swapped };
	uint64_t i;

	pd_emit_pid_tid(e, n->pid, n->tid);
	pd_emit_arr_begin(e, "namespaces");
	for (i = 0; i < n->nr; i++) {
		pd_emit_obj_begin(e, NULL);
		pd_emit_u64(e, "dev", perfring_u64_at(&a, 2 * i));
		pd_emit_u64(e, "inode", perfring_u64_at(&a, 2 * i + 1));
		pd_emit_obj_end(e);
	}
	pd_emit_arr_end(e);
}

void pd_emit_decoded(struct pd_emit *e, const struct perfring_decoded *d)
{
	switch (d->type) {
	case PERF_RECORD_SAMPLE:
		pd_emit_sample(e, &d->u.sample);
		return; /* a SAMPLE's id fields are its own, already written */
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		pd_emit_mmap(e, d);
		break;
	case PERF_RECORD_LOST:
		pd_emit_u64(e, "id", d->u.lost.id);
		pd_emit_u64(e, "lost", d->u.lost.lost);
		break;
	case PERF_RECORD_COMM:
		pd_emit_pid_tid(e, d->u.comm.pid, d->u.comm.tid);
		pd_emit_str(e, "comm", d->u.comm.comm);
		pd_emit_bool(e, "exec", perfring_misc_comm_exec(d->misc));
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		pd_emit_i64(e, "pid", (int32_t)d->u.fork_exit.pid);
		pd_emit_i64(e, "ppid", (int32_t)d->u.fork_exit.ppid);
		pd_emit_i64(e, "tid", (int32_t)d->u.fork_exit.tid);
		pd_emit_i64(e, "ptid", (int32_t)d->u.fork_exit.ptid);
		pd_emit_u64(e, "time", d->u.fork_exit.time);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		pd_emit_u64(e, "time", d->u.throttle.time);
		pd_emit_u64(e, "id", d->u.throttle.id);
		pd_emit_u64(e, "stream_id", d->u.throttle.stream_id);
		break;
	case PERF_RECORD_READ:
		pd_emit_pid_tid(e, d->u.read.pid, d->u.read.tid);
		pd_emit_read(e, "values", &d->u.read.values);
		break;
	case PERF_RECORD_AUX:
		pd_emit_x64(e, "aux_offset", d->u.aux.aux_offset);
		pd_emit_x64(e, "aux_size", d->u.aux.aux_size);
		pd_emit_x64(e, "flags", d->u.aux.flags);
		break;
	case PERF_RECORD_ITRACE_START:
		pd_emit_pid_tid(e, d->u.itrace_start.pid, d->u.itrace_start.tid);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		pd_emit_u64(e, "lost", d->u.lost_samples.lost);
		break;
	case PERF_RECORD_SWITCH:
		pd_emit_bool(e, "out", perfring_misc_switch_out(d->misc));
		pd_emit_bool(e, "preempt", perfring_misc_switch_out_preempt(d->misc));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		pd_emit_bool(e, "out", perfring_misc_switch_out(d->misc));
		pd_emit_bool(e, "preempt", perfring_misc_switch_out_preempt(d->misc));
		pd_emit_i64(e, "next_prev_pid", (int32_t)d->u.switch_cpu_wide.next_prev_pid);
		pd_emit_i64(e, "next_prev_tid", (int32_t)d->u.switch_cpu_wide.next_prev_tid);
		break;
	case PERF_RECORD_NAMESPACES:
		pd_emit_namespaces(e, &d->u.namespaces);
		break;
	case PERF_RECORD_KSYMBOL:
		pd_emit_x64(e, "addr", d->u.ksymbol.addr);
		pd_emit_u64(e, "len", d->u.ksymbol.len);
		pd_emit_u64(e, "ksym_type", d->u.ksymbol.ksym_type);
		pd_emit_x64(e, "flags", d->u.ksymbol.flags);
		pd_emit_str(e, "name", d->u.ksymbol.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		pd_emit_u64(e, "bpf_type", d->u.bpf_event.type);
		pd_emit_x64(e, "flags", d->u.bpf_event.flags);
		pd_emit_u64(e, "id", d->u.bpf_event.id);
		pd_emit_hex(e, "tag", d->u.bpf_event.tag, sizeof(d->u.bpf_event.tag));
		break;
	case PERF_RECORD_CGROUP:
		pd_emit_u64(e, "id", d->u.cgroup.id);
		pd_emit_str(e, "path", d->u.cgroup.path);
		break;
	case PERF_RECORD_TEXT_POKE:
		pd_emit_x64(e, "addr", d->u.text_poke.addr);
		pd_emit_hex(e, "old_bytes", d->u.text_poke.bytes, d->u.text_poke.old_len);
		pd_emit_hex(e, "new_bytes", d->u.text_poke.bytes + d->u.text_poke.old_len, d->u.text_poke.new_len);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		pd_emit_u64(e, "hw_id", d->u.aux_output_hw_id.hw_id);
		break;
	case 22: /* PERF_RECORD_CALLCHAIN_DEFERRED, newer than this uapi */
		pd_emit_u64(e, "cookie", d->u.callchain_deferred.cookie);
		pd_emit_u64s(e, "ips", &d->u.callchain_deferred.ips);
		break;
	default:
		break;
	}
	pd_emit_sample_id(e, &d->sample_id);
}

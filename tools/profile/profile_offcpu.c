// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loading offcpu.bpf.c and reading what it summed: every interval the
 * `blocked` map is walked and emptied (each entry deleted after it is
 * read: time added between the read and the delete is lost, at most one
 * switch's worth per entry), and the stacks its entries used are removed
 * from the stack map, except those of threads blocked right now (their
 * start entries still point to them), so that the stack map holds about one
 * interval's stacks and does not fill over hours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile/offcpu.h"
#include "profile/profile_tool.h"
#include "shared/tool.h"
#include "offcpu.skel.h"

#define CMD PROFILE_CMD

struct profile_offcpu {
	struct offcpu_bpf *skel;
	int blocked_fd, stacks_fd, starts_fd, overflow_fd;
	struct offcpu_key *keys;   /* one drain's keys */
	uint64_t kips[OFFCPU_MAX_DEPTH], uips[OFFCPU_MAX_DEPTH];
	__u32 *used;               /* stack ids the drained entries used */
	size_t nused;
};

struct profile_offcpu *profile_offcpu_open(const int *pids, int npids)
{
	struct profile_offcpu *oc = calloc(1, sizeof(*oc));
	__u8 one = 1;
	int i, err;

	if (!oc || !(oc->keys = calloc(OFFCPU_MAX_ENTRIES, sizeof(*oc->keys))) ||
	    !(oc->used = calloc(2 * OFFCPU_MAX_ENTRIES, sizeof(*oc->used)))) {
		tool_error(CMD, "no memory");
		goto fail;
	}
	tool_libbpf_messages(false);
	oc->skel = offcpu_bpf__open();
	if (!oc->skel) {
		tool_error(CMD, "--off-cpu: cannot open the BPF program: %s", strerror(errno));
		goto fail;
	}
	oc->skel->rodata->filter_tgids = npids > 0;
	err = offcpu_bpf__load(oc->skel);
	if (err) {
		tool_error(CMD, "--off-cpu: cannot load the BPF program: %s%s", strerror(-err),
			   err == -EPERM ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		goto fail;
	}
	for (i = 0; i < npids && i < OFFCPU_MAX_TARGETS; i++) {
		__u32 tgid = (__u32)pids[i];

		bpf_map__update_elem(oc->skel->maps.targets, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
	}
	err = offcpu_bpf__attach(oc->skel);
	if (err) {
		tool_error(CMD, "--off-cpu: cannot attach to sched_switch (tp_btf): %s", strerror(-err));
		goto fail;
	}
	oc->blocked_fd = bpf_map__fd(oc->skel->maps.blocked);
	oc->stacks_fd = bpf_map__fd(oc->skel->maps.stacks);
	oc->starts_fd = bpf_map__fd(oc->skel->maps.starts);
	oc->overflow_fd = bpf_map__fd(oc->skel->maps.overflow_ns);
	return oc;
fail:
	profile_offcpu_close(oc);
	return NULL;
}

/* A stack's addresses, leaf first, into ips; the count (0: none or not found). */
static size_t stack_of(struct profile_offcpu *oc, __s32 id, uint64_t *ips)
{
	__u32 key = (__u32)id;
	size_t n = 0;

	if (id < 0)
		return 0;
	memset(ips, 0, OFFCPU_MAX_DEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(oc->stacks_fd, &key, ips))
		return 0;
	while (n < OFFCPU_MAX_DEPTH && ips[n])
		n++;
	return n;
}

static void use(struct profile_offcpu *oc, __s32 id)
{
	if (id >= 0 && oc->nused < 2 * OFFCPU_MAX_ENTRIES)
		oc->used[oc->nused++] = (__u32)id;
}

static int u32_cmp(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Remove the used stacks no blocked thread still points to. */
static void free_stacks(struct profile_offcpu *oc)
{
	__u32 pid, next, *live = NULL, *hit;
	size_t nlive = 0, cap = 0, i;
	struct {
		__u64 ts;
		__s32 ustack, kstack;
		__u32 tgid;
	} st;
	void *prev = NULL;

	while (!bpf_map_get_next_key(oc->starts_fd, prev, &next)) {
		pid = next;
		prev = &pid;
		if (bpf_map_lookup_elem(oc->starts_fd, &pid, &st))
			continue;
		if (nlive + 2 > cap) {
			__u32 *nl = realloc(live, (cap = cap ? cap * 2 : 1024) * sizeof(*live));

			if (!nl)
				break;
			live = nl;
		}
		live[nlive++] = (__u32)st.ustack;
		live[nlive++] = (__u32)st.kstack;
	}
	if (live)
		qsort(live, nlive, sizeof(*live), u32_cmp);
	qsort(oc->used, oc->nused, sizeof(*oc->used), u32_cmp);
	for (i = 0; i < oc->nused; i++) {
		if (i && oc->used[i] == oc->used[i - 1])
			continue;
		hit = live ? bsearch(&oc->used[i], live, nlive, sizeof(*live), u32_cmp) : NULL;
		if (!hit)
			bpf_map_delete_elem(oc->stacks_fd, &oc->used[i]);
	}
	free(live);
	oc->nused = 0;
}

int profile_offcpu_drain(struct profile_offcpu *oc, void (*fn)(void *ctx, const struct profile_offcpu_entry *e),
			 void *ctx)
{
	struct offcpu_key *prev = NULL, next;
	size_t n = 0, i;
	__u32 zero = 0;
	__u64 ns, over = 0;

	/* the keys first: deleting while walking would restart the walk */
	while (n < OFFCPU_MAX_ENTRIES && !bpf_map_get_next_key(oc->blocked_fd, prev, &next)) {
		oc->keys[n] = next;
		prev = &oc->keys[n++];
	}
	for (i = 0; i < n; i++) {
		struct offcpu_key *k = &oc->keys[i];
		struct profile_offcpu_entry e = { k->pid, k->tgid, 0, oc->kips, oc->uips, 0, 0, false };

		if (bpf_map_lookup_elem(oc->blocked_fd, k, &ns))
			continue;
		bpf_map_delete_elem(oc->blocked_fd, k);
		/* tgid is the process; the profile's pid is the process too */
		e.pid = k->tgid;
		e.tid = k->pid;
		e.ns = ns;
		e.nk = stack_of(oc, k->kstack, oc->kips);
		e.nu = stack_of(oc, k->ustack, oc->uips);
		e.lost_stack = !e.nk || (k->ustack != OFFCPU_NO_USER_STACK && !e.nu);
		use(oc, k->kstack);
		use(oc, k->ustack);
		fn(ctx, &e);
	}
	free_stacks(oc);
	/* time the full `blocked` map could not hold: one entry with no stack */
	if (!bpf_map_lookup_elem(oc->overflow_fd, &zero, &over) && over) {
		struct profile_offcpu_entry e = { 0, 0, over, oc->kips, oc->uips, 0, 0, true };
		__u64 z = 0;

		bpf_map_update_elem(oc->overflow_fd, &zero, &z, BPF_ANY);
		fn(ctx, &e);
	}
	return 0;
}

void profile_offcpu_close(struct profile_offcpu *oc)
{
	if (!oc)
		return;
	offcpu_bpf__destroy(oc->skel);
	free(oc->keys);
	free(oc->used);
	free(oc);
}

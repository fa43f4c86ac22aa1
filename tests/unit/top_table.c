// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring top's window of samples (tools/top/top_table.c): shares weighed
 * by period, Children counted once per sample even in a recursive chain,
 * every filter, the window's end dropping old samples and the names only
 * they used (memory stays bounded), the cap counted as dropped, the
 * callers of a function heaviest first.
 */
#include <stdio.h>
#include <string.h>

#include "top/top_table.h"
#include "harness.h"

static const struct top_filter all = { NULL, NULL, -1, -1, false, false };

static const struct top_row *row_of(const struct top_table *t, const struct top_view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nrows; i++)
		if (!strcmp(top_table_name(t, v->rows[i].sym), name))
			return &v->rows[i];
	return NULL;
}

/* A sample of pid on cpu with comm and the frames (leaf first) named by names. */
static void add(struct top_table *t, uint32_t pid, int32_t cpu, const char *comm, uint64_t period, const char *dso,
		const char *const *names, size_t n)
{
	uint32_t frames[16], c = top_table_intern(t, comm, NULL, false);
	struct top_sample s = { period, pid, pid, cpu, c };
	size_t i;

	for (i = 0; i < n; i++)
		frames[i] = top_table_intern(t, names[i], dso, names[i] && names[i][0] == 'k');
	top_table_add(t, &s, frames, n);
	/* the table holds its own references: ours go */
	for (i = 0; i < n; i++)
		top_table_unref(t, frames[i]);
	top_table_unref(t, c);
}

TEST(shares_children_and_sort)
{
	struct top_table *t = top_table_new(4, 1000, 10000);
	static const char *const leaf[] = { "leaf", "mid", "main" };
	static const char *const rec[] = { "mid", "mid", "mid", "main" };
	static const char *const unk[] = { NULL, "main" };
	struct top_view v;
	const struct top_row *r;

	REQUIRE(t);
	add(t, 10, 0, "app", 300, "/bin/app", leaf, 3); /* weighs 3 */
	add(t, 10, 1, "app", 100, "/bin/app", rec, 4);  /* mid called itself */
	add(t, 10, 0, "app", 100, "/bin/app", unk, 2);  /* an address with no name */
	REQUIRE(top_table_view(t, &all, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 500);
	CHECK_EQ_U64(v.nsamples, 3);
	CHECK_EQ_U64(v.unnamed, 100);
	CHECK_EQ_U64(v.procs, 1);
	REQUIRE(v.nrows == 4);
	CHECK(!strcmp(top_table_name(t, v.rows[0].sym), "leaf")); /* self 300 */
	r = row_of(t, &v, "mid");
	REQUIRE(r);
	CHECK_EQ_U64(r->self, 100);
	CHECK_EQ_U64(r->children, 400); /* 300 + 100 once, not three times */
	r = row_of(t, &v, "main");
	REQUIRE(r);
	CHECK_EQ_U64(r->self, 0);
	CHECK_EQ_U64(r->children, 500);
	r = row_of(t, &v, "[unknown]");
	REQUIRE(r);
	CHECK(!strcmp(top_table_dso(t, r->sym), "/bin/app"));
	top_view_free(&v);
	REQUIRE(top_table_view(t, &all, TOP_SORT_CHILDREN, &v) == 0);
	CHECK(!strcmp(top_table_name(t, v.rows[0].sym), "main"));
	top_view_free(&v);
	REQUIRE(top_table_view(t, &all, TOP_SORT_NAME, &v) == 0);
	CHECK(!strcmp(top_table_name(t, v.rows[0].sym), "[unknown]"));
	CHECK(!strcmp(top_table_name(t, v.rows[3].sym), "mid"));
	top_view_free(&v);
	top_table_free(t);
}

TEST(filters)
{
	struct top_table *t = top_table_new(2, 1000, 10000);
	static const char *const a[] = { "fa", "main" };
	static const char *const b[] = { "fb", "main" };
	static const char *const k[] = { "kfunc", "fb" };
	struct top_filter f = all;
	struct top_view v;
	uint32_t fb;

	REQUIRE(t);
	add(t, 1, 0, "alpha", 10, "/usr/bin/alpha", a, 2);
	add(t, 2, 1, "beta", 20, "/opt/beta", b, 2);
	add(t, 2, 1, "beta", 5, "[kernel.kallsyms]", k, 2);
	f.comms = "gamma,beta";
	REQUIRE(top_table_view(t, &f, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 25);
	CHECK(!row_of(t, &v, "fa"));
	top_view_free(&v);
	f = all;
	f.dsos = "alpha"; /* by base name */
	REQUIRE(top_table_view(t, &f, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 10);
	top_view_free(&v);
	f = all;
	f.cpu = 1;
	REQUIRE(top_table_view(t, &f, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 25);
	top_view_free(&v);
	f = all;
	f.pid = 1;
	REQUIRE(top_table_view(t, &f, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 10);
	top_view_free(&v);
	/* hiding kernel rows keeps their samples in the shares */
	f = all;
	f.hide_kernel = true;
	REQUIRE(top_table_view(t, &f, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.total, 35);
	CHECK(!row_of(t, &v, "kfunc"));
	top_view_free(&v);
	fb = top_table_intern(t, "fb", "/opt/beta", false);
	CHECK(top_table_busiest_pid(t, &all, fb) == 2);
	f = all;
	f.pid = 1;
	CHECK(top_table_busiest_pid(t, &f, fb) == -1);
	top_table_unref(t, fb);
	top_table_free(t);
}

TEST(window_forgets_and_cap_counts)
{
	struct top_table *t = top_table_new(2, 3, 100);
	static const char *const a[] = { "old_fn" };
	static const char *const b[] = { "new_fn" };
	struct top_view v;

	REQUIRE(t);
	add(t, 1, 0, "gone", 1, "/bin/gone", a, 1);
	top_table_lost(t, 4);
	top_table_tick(t);
	add(t, 2, 0, "live", 1, "/bin/live", b, 1);
	REQUIRE(top_table_view(t, &all, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.nsamples, 2);
	CHECK_EQ_U64(v.lost, 4);
	top_view_free(&v);
	top_table_tick(t); /* the first interval leaves the window */
	REQUIRE(top_table_view(t, &all, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.nsamples, 1);
	CHECK_EQ_U64(v.lost, 0);
	CHECK(!row_of(t, &v, "old_fn"));
	top_view_free(&v);
	/* the cap: at most 3 samples in the window, the rest counted */
	add(t, 2, 0, "live", 1, "/bin/live", b, 1);
	add(t, 2, 0, "live", 1, "/bin/live", b, 1);
	add(t, 2, 0, "live", 1, "/bin/live", b, 1);
	REQUIRE(top_table_view(t, &all, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.nsamples, 3);
	CHECK_EQ_U64(v.dropped, 1);
	top_view_free(&v);
	top_table_clear(t);
	REQUIRE(top_table_view(t, &all, TOP_SORT_SELF, &v) == 0);
	CHECK_EQ_U64(v.nsamples, 0);
	CHECK_EQ_U64(v.nrows, 0);
	top_view_free(&v);
	top_table_free(t);
}

TEST(callers_heaviest_first)
{
	struct top_table *t = top_table_new(1, 1000, 10000);
	static const char *const x[] = { "leaf", "caller_x", "main" };
	static const char *const y[] = { "leaf", "caller_y", "main" };
	uint32_t chains[3 * 4], leaf;
	uint64_t w[3];
	size_t n;

	REQUIRE(t);
	add(t, 1, 0, "app", 1, "/bin/app", x, 3);
	add(t, 1, 0, "app", 1, "/bin/app", y, 3);
	add(t, 1, 0, "app", 1, "/bin/app", y, 3);
	leaf = top_table_intern(t, "leaf", "/bin/app", false);
	n = top_table_callers(t, &all, leaf, 4, chains, w, 3);
	REQUIRE(n == 2);
	CHECK_EQ_U64(w[0], 2);
	CHECK_EQ_U64(w[1], 1);
	CHECK(!strcmp(top_table_name(t, chains[1]), "caller_y"));
	CHECK(!strcmp(top_table_name(t, chains[4 + 1]), "caller_x"));
	CHECK(chains[3] == TOP_NONE);
	top_table_unref(t, leaf);
	top_table_free(t);
}

TEST(list_match)
{
	CHECK(top_list_has("a,bc,d", "bc", false));
	CHECK(!top_list_has("a,bc,d", "b", false));
	CHECK(!top_list_has("abc", "ab", false));
	CHECK(top_list_has("libc.so.6", "/usr/lib/libc.so.6", true));
	CHECK(!top_list_has("libc.so.6", "/usr/lib/libc.so.6", false));
	CHECK(top_list_has("x,,y", "y", false));
}

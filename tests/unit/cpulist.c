// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_parse_cpu_list() and perfring_online_cpus(): the sysfs range
 * lists that decide which CPU ids a BPF perf event array reader opens.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <perfring/reader.h>
#include "harness.h"

/* Parse list and compare with want[0..n). */
static int parses_to(const char *list, const int *want, int n)
{
	int got[64], ret, i;

	memset(got, 0xff, sizeof(got));
	ret = perfring_parse_cpu_list(list, got, 64);
	if (ret != n) {
		printf("  \"%s\": %d ids, want %d (%s)\n", list, ret, n, perfring_errmsg());
		return 0;
	}
	for (i = 0; i < n; i++)
		if (got[i] != want[i]) {
			printf("  \"%s\": id %d is %d, want %d\n", list, i, got[i], want[i]);
			return 0;
		}
	return 1;
}

TEST(cpulist_single)
{
	CHECK(parses_to("0", (int[]){ 0 }, 1));
	CHECK(parses_to("7\n", (int[]){ 7 }, 1));
	CHECK(parses_to("0-0", (int[]){ 0 }, 1));
}

TEST(cpulist_range)
{
	CHECK(parses_to("0-3", (int[]){ 0, 1, 2, 3 }, 4));
	CHECK(parses_to("2-5\n", (int[]){ 2, 3, 4, 5 }, 4));
}

TEST(cpulist_ranges_with_gap)
{
	CHECK(parses_to("0-3,8-11\n", (int[]){ 0, 1, 2, 3, 8, 9, 10, 11 }, 8));
	CHECK(parses_to("0,2,4", (int[]){ 0, 2, 4 }, 3));
	CHECK(parses_to("1,3-4,6", (int[]){ 1, 3, 4, 6 }, 4));
}

TEST(cpulist_whitespace)
{
	CHECK(parses_to(" 0-1 , 3 \n", (int[]){ 0, 1, 3 }, 3));
	CHECK(parses_to("\t4 - 5\r\n", (int[]){ 4, 5 }, 2));
}

/* sysfs writes ascending lists; hand-written ones are sorted and merged. */
TEST(cpulist_unsorted_and_overlapping_are_normalised)
{
	CHECK(parses_to("8-9,0-1", (int[]){ 0, 1, 8, 9 }, 4));
	CHECK(parses_to("0-3,2-5", (int[]){ 0, 1, 2, 3, 4, 5 }, 6));
	CHECK(parses_to("3,3,1", (int[]){ 1, 3 }, 2));
}

TEST(cpulist_count_only_and_short_buffer)
{
	int two[2] = { -1, -1 };

	CHECK_EQ_INT(perfring_parse_cpu_list("0-3,8-11", NULL, 0), 8);
	CHECK_EQ_INT(perfring_parse_cpu_list("0-3,8-11", two, 2), 8);
	CHECK_EQ_INT(two[0], 0);
	CHECK_EQ_INT(two[1], 1);
	/* cnt without a buffer is a caller bug */
	CHECK_EQ_INT(perfring_parse_cpu_list("0", NULL, 4), -EINVAL);
}

static void check_malformed(const char *list, const char *why)
{
	int cpus[8];
	int ret = perfring_parse_cpu_list(list, cpus, 8);

	CHECKF(ret == -EINVAL, "\"%s\" (%s): got %d, want -EINVAL", list, why, ret);
	CHECKF(strstr(perfring_errmsg(), "position") || strstr(perfring_errmsg(), "larger than"),
	       "\"%s\": message does not locate the error: %s", list, perfring_errmsg());
}

TEST(cpulist_malformed)
{
	check_malformed("3-1", "descending range");
	check_malformed("a", "not a number");
	check_malformed("0-", "open range");
	check_malformed("-1", "negative");
	check_malformed("", "empty");
	check_malformed("\n", "only a newline");
	check_malformed(",", "lone comma");
	check_malformed("0,", "trailing comma");
	check_malformed("0,,1", "empty element");
	check_malformed("1-2-3", "double range");
	check_malformed("0 1", "missing comma");
	check_malformed("+1", "sign");
	check_malformed("0x1", "hex");
	check_malformed("1;2", "wrong separator");
	CHECK_EQ_INT(perfring_parse_cpu_list(NULL, NULL, 0), -EINVAL);
}

TEST(cpulist_huge_numbers)
{
	check_malformed("99999999999999999999", "overflows 64 bits");
	check_malformed("4294967296", "overflows 32 bits");
	check_malformed("2147483648", "overflows int");
	check_malformed("0-2000000", "range too large for a CPU id");
}

TEST(cpulist_error_names_position)
{
	int cpus[4];

	CHECK_EQ_INT(perfring_parse_cpu_list("0-3,x", cpus, 4), -EINVAL);
	CHECKF(strstr(perfring_errmsg(), "position 4"), "message: %s", perfring_errmsg());
}

TEST(cpulist_online_matches_sysconf)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
	int cpus[4096], n, i;

	n = perfring_online_cpus(NULL, 0);
	REQUIREF(n > 0, "perfring_online_cpus: %d (%s)", n, perfring_errmsg());
	CHECK_EQ_INT(n, online);
	CHECK_EQ_INT(perfring_online_cpus(cpus, 4096), n);
	for (i = 0; i < n && i < 4096; i++) {
		CHECKF(cpus[i] >= 0 && cpus[i] < conf, "online CPU %d outside 0..%ld", cpus[i], conf - 1);
		if (i)
			CHECKF(cpus[i] > cpus[i - 1], "not ascending at %d", i);
	}
}

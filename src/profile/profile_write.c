// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfring_profile_write(): one entry for the four writers, so that a caller
 * picks the format as a value (from a command line, a config) and a format
 * added later is a new enum value, not a new symbol. The arguments are
 * checked here; the writers (profile_<format>.c) trust them.
 */
#include <errno.h>
#include <string.h>

#include "profile/profile_internal.h"

int perfring_profile_write(const struct perfring_profile *p, enum perfring_profile_format fmt, FILE *out,
			   const struct perfring_profile_write_opts *opts)
{
	uint32_t event;
	const char *title;
	int err;

	if ((err = pr_opts_check(opts, opts ? opts->sz : 0, sizeof(*opts), "perfring_profile_write_opts")))
		return err;
	if (!p || !out)
		return pr_fail(EINVAL, "perfring_profile_write: %s is NULL", p ? "out" : "the profile");
	event = PR_OPT(opts, event, 0);
	title = PR_OPT(opts, title, NULL);
	if (!title)
		title = "perfring";
	switch (fmt) {
	case PERFRING_PROFILE_FOLDED:
		if (event >= (uint32_t)p->nevents)
			return pr_fail(EINVAL, "perfring_profile_write: no event %u (the profile has %d)", event,
				       p->nevents);
		err = pr_prof_write_folded(p, event, PR_OPT(opts, by_period, false), out);
		break;
	case PERFRING_PROFILE_PPROF:
		err = pr_prof_write_pprof(p, out);
		break;
	case PERFRING_PROFILE_SPEEDSCOPE:
		err = pr_prof_write_speedscope(p, title, out);
		break;
	case PERFRING_PROFILE_FIREFOX:
		if (!p->timeline)
			return pr_fail(EINVAL, "perfring_profile_write: the Firefox format shows every sample at its "
					       "time; the profile keeps no timeline (perfring_profile_opts.timeline)");
		err = pr_prof_write_firefox(p, title, out);
		break;
	default:
		return pr_fail(EOPNOTSUPP, "perfring_profile_write: format %d is unknown to this perfring", (int)fmt);
	}
	if (err)
		return pr_fail(-err, "perfring_profile_write: %s", strerror(-err));
	return 0;
}

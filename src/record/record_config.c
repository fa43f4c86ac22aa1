// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parse config: what the layout of an event's records depends on, taken
 * from its perf_event_attr.
 */
#include <linux/perf_event.h>

#include "common/internal.h"
#include "record/record_internal.h"

/* attr->size 0 means the first published struct (PERF_ATTR_SIZE_VER0). */
#define ATTR_SIZE_VER0 64u

/* Whether an attr of attr_size bytes holds the field at [off, off + len). */
static bool attr_has(uint32_t attr_size, size_t off, size_t len)
{
	return off + len <= attr_size;
}

#define ATTR_HAS(size, field) \
	attr_has(size, offsetof(struct perf_event_attr, field), sizeof(((struct perf_event_attr *)0)->field))

int perfring_parse_config_init(struct perfring_parse_config *cfg, const struct perf_event_attr *attr,
			       bool swapped)
{
	uint32_t size;

	if (!cfg || !attr)
		return pr_fail(EINVAL, "perfring_parse_config_init: %s is NULL", cfg ? "attr" : "cfg");
	memset(cfg, 0, sizeof(*cfg));
	size = attr->size ? attr->size : ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0)
		return pr_fail(EINVAL, "perfring_parse_config_init: attr.size %u is below the first version's %u bytes",
			       size, ATTR_SIZE_VER0);

	/* sample_type, read_format and the flag word are in every version;
	 * later fields are 0 when the attr's version predates them. */
	cfg->sample_type = attr->sample_type;
	cfg->read_format = attr->read_format;
	cfg->sample_id_all = attr->sample_id_all;
	if (ATTR_HAS(size, branch_sample_type))
		cfg->branch_sample_type = attr->branch_sample_type;
	if (ATTR_HAS(size, sample_regs_user))
		cfg->sample_regs_user = attr->sample_regs_user;
	if (ATTR_HAS(size, sample_regs_intr))
		cfg->sample_regs_intr = attr->sample_regs_intr;
	cfg->branch_counters = (cfg->branch_sample_type & PR_REC_SAMPLE_BRANCH_COUNTERS) != 0;
	/* The bit field is in every version (attrs older than 5.12 read 0 there:
	 * no build ids asked, inode data, which is all they could get). */
	cfg->no_build_id = !attr->build_id;
	cfg->swapped = swapped;
	return perfring_parse_config_finish(cfg);
}

int perfring_parse_config_finish(struct perfring_parse_config *cfg)
{
	uint64_t unknown;

	if (!cfg)
		return pr_fail(EINVAL, "perfring_parse_config_finish: cfg is NULL");
	unknown = cfg->sample_type & ~PR_REC_SAMPLE_KNOWN;
	if (unknown)
		return pr_fail(EINVAL,
			       "parse config: sample_type 0x%llx has bits 0x%llx this library does not know "
			       "(beyond PERF_SAMPLE_WEIGHT_STRUCT): its SAMPLE records cannot be decoded",
			       (unsigned long long)cfg->sample_type, (unsigned long long)unknown);
	unknown = cfg->read_format & ~PR_REC_FORMAT_KNOWN;
	if (unknown)
		return pr_fail(EINVAL,
			       "parse config: read_format 0x%llx has bits 0x%llx this library does not know "
			       "(beyond PERF_FORMAT_LOST): its read values cannot be decoded",
			       (unsigned long long)cfg->read_format, (unsigned long long)unknown);
	cfg->nr_regs_user = (uint8_t)pr_rec_popcount(cfg->sample_regs_user);
	cfg->nr_regs_intr = (uint8_t)pr_rec_popcount(cfg->sample_regs_intr);
	cfg->id_trailer_size = (uint16_t)pr_rec_id_trailer_size(cfg->sample_type);
	pr_rec_fast_layout_init(cfg);
	return 0;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record fuzzer's seed corpus, replayed through the fuzz harness on
 * every build (plain, ASan+UBSan, valgrind): every seed must decode, lie
 * within its record, and re-encode to the same bytes (the harness aborts
 * otherwise, naming the seed on the line before). Also checks that the
 * committed corpus (tests/fuzz/corpus/record, relative to the source tree
 * root: the working directory of scripts/run-tests.sh, or
 * PERFRING_SRCDIR) is what tests/fuzz/make_corpus.c generates.
 */
#define PERFRING_FUZZ_REPLAY 1
#include "fuzz/record_fuzz.c"
#define MAKE_CORPUS_NO_MAIN 1
#include "fuzz/make_corpus.c"

#include "harness.h"

static struct seed seeds[SEEDS_MAX];

static const char *corpus_dir(char *buf, size_t cap)
{
	const char *src = getenv("PERFRING_SRCDIR");

	snprintf(buf, cap, "%s/tests/fuzz/corpus/record", src ? src : ".");
	return buf;
}

struct replay_tally {
	int files, decoded, rejected;
};

static void tally(const char *path, const struct rf_outcome *o, void *ctx)
{
	struct replay_tally *t = ctx;
	char line[160];

	rf_describe(o, line, sizeof(line));
	printf("  %s: %s\n", path, line);
	t->files++;
	if (!o->config_rc && !o->parse_rc)
		t->decoded++;
	else
		t->rejected++;
}

/* The seeds, generated in memory: every one decodes and round-trips. */
TEST(generated_seeds_decode_and_reencode)
{
	struct rf_outcome o;
	char line[160];
	bool type_seen[23] = { false };
	int n, i, t;

	n = make_corpus_seeds(seeds, SEEDS_MAX);
	REQUIREF(n > 0, "make_corpus_seeds failed");
	for (i = 0; i < n; i++) {
		fprintf(stderr, "replay seed %s\n", seeds[i].name);
		rf_run(seeds[i].data, seeds[i].len, &o);
		rf_describe(&o, line, sizeof(line));
		printf("  seed %s: %s\n", seeds[i].name, line);
		CHECKF(o.config_rc == 0, "seed %s: config rejected: %d (%s)", seeds[i].name, o.config_rc,
		       perfring_errmsg());
		CHECKF(o.parse_rc == 0, "seed %s: %s", seeds[i].name, line);
		if (!o.config_rc && !o.parse_rc && o.type < 23)
			type_seen[o.type] = true;
	}
	for (t = 1; t <= 22; t++)
		CHECKF(type_seen[t], "no seed of record type %d decoded", t);
}

/* The committed corpus is the generator's output, file for file. */
TEST(committed_corpus_is_current)
{
	char dir[4096], path[4200];
	size_t size;
	uint8_t *buf;
	int n, i;

	n = make_corpus_seeds(seeds, SEEDS_MAX);
	REQUIREF(n > 0, "make_corpus_seeds failed");
	corpus_dir(dir, sizeof(dir));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%.63s", dir, seeds[i].name);
		buf = rf_read_file(path, &size);
		CHECKF(buf, "%s: missing (%s): run make fuzz-corpus from the source tree root", path,
		       strerror(errno));
		if (!buf)
			continue;
		CHECKF(size == seeds[i].len && !memcmp(buf, seeds[i].data, size),
		       "%s differs from what make_corpus generates: run make fuzz-corpus", path);
		free(buf);
	}
}

/* Every file of the committed corpus through the harness, as the fuzzer
 * starts with it. */
TEST(committed_corpus_replays)
{
	struct replay_tally t = { 0 };
	char dir[4096];
	int n, want;

	want = make_corpus_seeds(seeds, SEEDS_MAX);
	REQUIREF(want > 0, "make_corpus_seeds failed");
	n = rf_replay(corpus_dir(dir, sizeof(dir)), tally, &t);
	REQUIREF(n >= 0, "%s: %s (run from the source tree root, or set PERFRING_SRCDIR)", dir, strerror(-n));
	CHECKF(n >= want, "%s: %d inputs, fewer than the %d seeds", dir, n, want);
	CHECK_EQ_INT(t.files, n);
	/* Inputs besides the seeds (regressions) may be rejected: what counts is no finding. */
	printf("  %d inputs, %d decoded and re-encoded, %d rejected\n", t.files, t.decoded, t.rejected);
}

/* A small driver of the exports for the CLI tests: reads a perf.data file with
 * the library's perf.data reader and symbol layer, fills a profile
 * (perfring/profile.h) and writes one export.
 *
 *   export_driver FILE folded|folded-period|pprof|speedscope [OUT]
 *
 * It stands in for `perfring report --folded/--pprof/--speedscope` where
 * those are not there, and checks that the profile interface is enough to
 * carry a real recording: call chains with their context markers, caller
 * addresses looked up at ip - 1 (the call instruction, as perf does), inlined
 * frames from DWARF, the mapping and build id of each user frame, the
 * thread's comm from COMM records. Errors: one line on stderr, exit 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/perfdata.h>
#include <perfring/perfring.h>
#include <perfring/profile.h>
#include <perfring/symbol.h>

#define MAX_FRAMES 1024

struct comm {
	uint32_t tid;
	char name[32];
};

static struct comm *comms;
static size_t ncomms, comms_cap;

static struct comm *comm_of(uint32_t tid, bool add)
{
	for (size_t i = 0; i < ncomms; i++)
		if (comms[i].tid == tid)
			return &comms[i];
	if (!add)
		return NULL;
	if (ncomms == comms_cap) {
		comms_cap = comms_cap ? comms_cap * 2 : 64;
		comms = realloc(comms, comms_cap * sizeof(*comms));
		if (!comms) {
			fprintf(stderr, "export_driver: out of memory\n");
			exit(1);
		}
	}
	comms[ncomms] = (struct comm){ .tid = tid };
	return &comms[ncomms++];
}

static int die(const char *what, const char *why)
{
	fprintf(stderr, "export_driver: %s: %s\n", what, why);
	return 1;
}

int main(int argc, char **argv)
{
	struct perfring_perfdata_opts opts = { .sz = sizeof(opts), .ordered = true };
	struct perfring_symbolizer_opts sopts = { .sz = sizeof(sopts), .lines = true, .inlines = true };
	struct perfring_perfdata_record r;
	struct perfring_decoded d;
	static struct perfring_frame frames[MAX_FRAMES];
	const char *names[64];
	int nevents, ret;

	if (argc < 3)
		return die("usage", "export_driver FILE folded|folded-period|pprof|speedscope [OUT]");
	struct perfring_perfdata *pd = perfring_perfdata_open(argv[1], &opts);

	if (!pd)
		return die(argv[1], perfring_errmsg());
	nevents = perfring_perfdata_attr_cnt(pd);
	if (nevents <= 0 || nevents > 64)
		return die(argv[1], "no events (or more than 64)");
	for (int i = 0; i < nevents; i++) {
		names[i] = perfring_perfdata_attr(pd, i)->name;
		if (!names[i])
			names[i] = "event";
	}
	struct perfring_profile_opts popts = PERFRING_OPTS_INIT(perfring_profile_opts, .event_names = names,
								.nevents = (size_t)nevents);
	struct perfring_profile *p = perfring_profile_new(&popts);
	struct perfring_procs *procs = perfring_procs_new(NULL);
	struct perfring_symbolizer *sym = perfring_symbolizer_new(&sopts);

	FILE *out = NULL;
	int rc = 0;

	if (!p || !procs || !sym) {
		rc = die(argv[1], "out of memory");
		goto done;
	}
	/* Build ids recorded for files (perf's BUILD_ID feature). */
	const struct perfring_perfdata_build_id *bid;

	for (uint32_t i = 0; (bid = perfring_perfdata_build_id(pd, i)); i++)
		perfring_procs_set_build_id(procs, (uint32_t)bid->pid, bid->filename, bid->build_id, bid->size);
	const struct perfring_perfdata_info *info = perfring_perfdata_info(pd);

	if (info && info->clock_tod_ns)
		perfring_profile_set_clock(p, info->clock_ns, info->clock_tod_ns);

	while ((ret = perfring_perfdata_next(pd, &r)) > 0) {
		if (!r.attr || perfring_record_parse(&r.attr->cfg, r.data, r.size, &d) != 0)
			continue;
		if (d.type == PERF_RECORD_COMM) {
			struct comm *c = comm_of(d.u.comm.tid, true);

			snprintf(c->name, sizeof(c->name), "%s", d.u.comm.comm);
		}
		if (d.type != PERF_RECORD_SAMPLE) {
			perfring_procs_feed(procs, &d);
			continue;
		}
		const struct perfring_sample *s = &d.u.sample;
		unsigned cpumode = perfring_misc_cpumode(d.misc);
		size_t n = 0;
		uint64_t nr = s->callchain.nr;
		bool have_chain = (s->present & PERF_SAMPLE_CALLCHAIN) && nr > 0;

		for (uint64_t i = 0; i < (have_chain ? nr : 1) && n < MAX_FRAMES; i++) {
			uint64_t addr = have_chain ? perfring_u64_at(&s->callchain, i) : s->ip;
			struct perfring_sym_result res;
			struct perfring_map_hit hit;
			bool leaf = n == 0;

			if (perfring_callchain_is_context(addr)) {
				if (addr == PERF_CONTEXT_KERNEL)
					cpumode = PERF_RECORD_MISC_KERNEL;
				else if (addr == PERF_CONTEXT_USER)
					cpumode = PERF_RECORD_MISC_USER;
				continue;
			}
			bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
			/* A caller's address is a return address: its call is the byte before. */
			uint64_t look = leaf ? addr : addr - 1;
			int err = perfring_symbolize(sym, procs, s->pid, look, cpumode, &res);
			struct perfring_frame *outer;

			/* Inlined functions first (innermost), the real function last. */
			if (!err && res.nr_frames > 1) {
				for (uint32_t k = 0; k + 1 < res.nr_frames && n < MAX_FRAMES - 1; k++) {
					if (!res.frames[k].function)
						continue;
					frames[n++] = (struct perfring_frame){ .addr = addr, .name = res.frames[k].function,
									       .file = res.frames[k].file,
									       .line = res.frames[k].line, .cpumode = (uint8_t)cpumode,
									       .kernel = kernel, .inlined = true };
				}
			}
			outer = &frames[n++];
			*outer = (struct perfring_frame){ .addr = addr, .dso = "[unknown]", .cpumode = (uint8_t)cpumode,
							  .kernel = kernel };
			if (!err) {
				outer->name = res.name;
				outer->offset = res.offset;
				if (res.nr_frames) {
					outer->file = res.frames[res.nr_frames - 1].file;
					outer->line = res.frames[res.nr_frames - 1].line;
				}
			}
			if (kernel) {
				outer->dso = !err && res.binary ? res.binary : "[kernel.kallsyms]";
			} else if (perfring_procs_lookup(procs, s->pid, look, &hit) == 0) {
				outer->dso = hit.path;
				outer->mapped = true;
				outer->map_start = hit.start;
				outer->map_end = hit.end;
				outer->map_pgoff = hit.pgoff;
				if (hit.build_id_size) {
					/* hit lives on this stack frame; the profile copies it when the sample is added */
					static uint8_t ids[MAX_FRAMES][PERFRING_BUILD_ID_MAX];

					memcpy(ids[n - 1], hit.build_id, hit.build_id_size);
					outer->build_id = ids[n - 1];
					outer->build_id_size = hit.build_id_size;
				}
			}
			/* The inlined frames share the outer one's mapping. */
			for (struct perfring_frame *f = outer; f > frames && f[-1].inlined; f--) {
				f[-1].dso = outer->dso;
				f[-1].build_id = outer->build_id;
				f[-1].build_id_size = outer->build_id_size;
				f[-1].mapped = outer->mapped;
				f[-1].map_start = outer->map_start;
				f[-1].map_end = outer->map_end;
				f[-1].map_pgoff = outer->map_pgoff;
			}
		}
		const struct comm *c = comm_of(s->tid, false);
		int ev = (int)(r.attr - perfring_perfdata_attr(pd, 0));
		struct perfring_stack st = { .nframes = n, .frame_sz = sizeof(frames[0]), .frames = frames };
		struct perfring_profile_sample ps = { .sz = sizeof(ps), .stack = &st, .pid = s->pid, .tid = s->tid,
						      .comm = c ? c->name : "", .time = s->time,
						      .event = ev >= 0 && ev < nevents ? (uint32_t)ev : 0,
						      .period = (s->present & PERF_SAMPLE_PERIOD) ? s->period : 1 };

		if ((ret = perfring_profile_add(p, &ps)) < 0)
			break;
	}
	if (ret < 0) {
		/* the profile's and the reader's messages name what failed */
		rc = die(argv[1], perfring_errmsg());
		goto done;
	}
	out = argc > 3 ? fopen(argv[3], "w") : stdout;
	if (!out) {
		rc = die(argv[3], strerror(errno));
		goto done;
	}
	struct perfring_profile_write_opts wo = PERFRING_OPTS_INIT(perfring_profile_write_opts, .title = argv[1]);

	if (strcmp(argv[2], "folded") == 0) {
		ret = perfring_profile_write(p, PERFRING_PROFILE_FOLDED, out, &wo);
	} else if (strcmp(argv[2], "folded-period") == 0) {
		wo.by_period = true;
		ret = perfring_profile_write(p, PERFRING_PROFILE_FOLDED, out, &wo);
	} else if (strcmp(argv[2], "pprof") == 0) {
		ret = perfring_profile_write(p, PERFRING_PROFILE_PPROF, out, &wo);
	} else if (strcmp(argv[2], "speedscope") == 0) {
		ret = perfring_profile_write(p, PERFRING_PROFILE_SPEEDSCOPE, out, &wo);
	} else {
		ret = -ENOTSUP;
	}
	if (ret == -ENOTSUP)
		rc = die(argv[2], "unknown export (folded, folded-period, pprof, speedscope)");
	else if (ret < 0)
		rc = die(argc > 3 ? argv[3] : "stdout", strerror(-ret));
	if (out != stdout && fclose(out) && !rc)
		rc = die(argv[3], strerror(errno));
done:
	perfring_profile_free(p);
	perfring_symbolizer_free(sym);
	perfring_procs_free(procs);
	perfring_perfdata_free(pd);
	free(comms);
	return rc;
}

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * hello_reader.cpp: perfring from C++ (C++11 is enough).
 *
 * The perfring headers are plain C with extern "C" guards. Two things
 * differ from C: PERFRING_OPTS_INIT uses designated initialisers, which
 * C++11 lacks, so an options struct is zeroed and its sz set by hand; and
 * a callback can be a captureless lambda.
 *
 * This program creates a BPF perf event array with libbpf, puts a perfring
 * reader on it, checks that a non-blocking poll finds nothing, and frees it.
 *
 * Build: g++ -std=c++11 hello_reader.cpp $(pkg-config --cflags --libs perfring libbpf)
 * Run as root.
 */
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include <bpf/bpf.h>
#include <perfring/perfring.h>

int main()
{
	int cpus[1024];
	int ncpus = perfring_online_cpus(cpus, 1024);
	if (ncpus < 1) {
		std::fprintf(stderr, "perfring_online_cpus: %s\n", perfring_errmsg());
		return 1;
	}

	// A perf event array with a slot for every CPU id (the largest online
	// id, not the count: ids need not be contiguous).
	int max_cpu = cpus[ncpus - 1];
	int map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "hello_cxx", sizeof(int), sizeof(int),
				    (unsigned)max_cpu + 1, nullptr);
	if (map_fd < 0) {
		std::fprintf(stderr, "bpf_map_create: %s (run as root)\n", std::strerror(errno));
		return 1;
	}

	perfring_reader_opts opts;
	std::memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.data_pages = 8;
	opts.wakeup_bytes = 4096;
	opts.max_delay_ns = 10 * 1000 * 1000;

	perfring_reader *rd = perfring_reader_new_bpf(map_fd, &opts);
	if (!rd) {
		std::fprintf(stderr, "perfring_reader_new_bpf: %s\n", perfring_errmsg());
		return 1;
	}
	std::printf("libperfring %s: %d rings of %zu bytes\n", perfring_version(), perfring_reader_ring_cnt(rd),
		    perfring_reader_data_size(rd));

	// Nothing writes to the map, so a non-blocking poll delivers nothing.
	int seen = 0;
	int ret = perfring_reader_poll(rd, 0, [](const perfring_msg *, void *ctx) -> int {
		++*static_cast<int *>(ctx);
		return PERFRING_CONTINUE;
	}, &seen);
	std::printf("poll: %s, %d records\n", ret == -ETIMEDOUT ? "nothing to read" : ret < 0 ? perfring_strerror(ret) : "ok", seen);

	perfring_reader_free(rd);
	close(map_fd); // the reader kept its own dup of the map fd
	return ret == -ETIMEDOUT && seen == 0 ? 0 : 1;
}

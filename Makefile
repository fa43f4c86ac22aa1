# perfring build. Everything goes to $(O) (default build/).
#   make            library (shared + static), tool, examples, tests, benches
#   make lib        the library alone; make tool: the library and the tool
#   make demo       build and run the demonstration (README's first command)
#   make check      every test: plain, valgrind, ASan+UBSan (gcc, clang), TSan, fuzz; two lanes
#                   side by side, each suite's wall time printed (scripts/check.sh)
#   make bench      benchmarks side by side with libbpf
#   make install PREFIX=/usr/local DESTDIR=
# Sanitizer builds are the same tree built into another $(O) with SANITIZE set.

O ?= build
CC ?= gcc
CXX ?= g++
CLANG ?= clang
BPFTOOL ?= bpftool
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SANITIZE ?=

VERSION_MAJOR := 0
VERSION := 0.1.0
SONAME := libperfring.so.$(VERSION_MAJOR)

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT ?= -O2 -g
CFLAGS_ALL := $(OPT) -std=gnu11 $(WARN) -Iinclude -D_GNU_SOURCE $(CFLAGS)
ifneq ($(SANITIZE),)
CFLAGS_ALL += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS_SAN := -fsanitize=$(SANITIZE)
endif
# Library sources include their internal headers by layer: "common/sys.h", "ring/ring_internal.h".
LIB_CFLAGS := $(CFLAGS_ALL) -Isrc -fPIC -fvisibility=hidden
LIBBPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
THREAD_LIBS := -lpthread
# The tool alone reads tracepoint formats with libtraceevent and finds (or
# mounts) tracefs with libtracefs, as perf and trace-cmd do; the library does not.
TRACE_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null || echo -I/usr/include/tracefs -I/usr/include/traceevent)
TRACE_LIBS := $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null || echo -ltracefs -ltraceevent)
# What the library itself links against (libzstd expands compressed perf.data records).
LIB_LIBS := $(THREAD_LIBS) -lzstd
# The symbol layer (src/symbol/) reads ELF and DWARF with elfutils' libelf/libdw, as perf does,
# and inflates .gnu_debugdata with liblzma, compressed DWARF with libdeflate.
SYM_LIBS := $(shell pkg-config --libs libdw libelf liblzma libdeflate 2>/dev/null || echo -ldw -lelf -llzma -ldeflate)
LIB_LIBS += $(SYM_LIBS)
# The profile layer (src/profile/) gzips pprof files with zlib, and demangles C++ names with the
# C++ runtime's abi::__cxa_demangle, as perf does.
LIB_LIBS += $(shell pkg-config --libs zlib 2>/dev/null || echo -lz) -lstdc++

LIB_SRCS := $(wildcard src/*/*.c)
LIB_OBJS := $(patsubst src/%.c,$(O)/obj/lib/%.o,$(LIB_SRCS))
LIB_HDRS := $(wildcard include/perfring/*.h) $(wildcard src/*/*.h)
SHARED := $(O)/libperfring.so.$(VERSION)
STATIC := $(O)/libperfring.a

# A BPF program sits beside the code that loads it (docs/DESIGN.md): the tool's in its command's
# folder, the examples' in examples/, the tests' and benchmarks' in tests/bpf/. Every object and
# skeleton is built into $(O)/bpf/ (so program names are unique across the tree).
BPF_SRCS := $(wildcard tools/*/*.bpf.c examples/*.bpf.c tests/bpf/*.bpf.c)
BPF_DIRS := $(sort $(dir $(BPF_SRCS)))
BPF_HDRS := $(wildcard $(addsuffix *.h,$(BPF_DIRS)) include/perfring/bpf/*.h)
BPF_OBJS := $(addprefix $(O)/bpf/,$(notdir $(BPF_SRCS:.bpf.c=.bpf.o)))
BPF_SKELS := $(addprefix $(O)/bpf/,$(notdir $(BPF_SRCS:.bpf.c=.skel.h)))
vpath %.bpf.c $(BPF_DIRS)

# The tool: a folder per command (record, report, script, trace, pipe), as git's builtin/, and
# shared/ for main and what commands share.
TOOL_SRCS := $(filter-out %.bpf.c,$(wildcard tools/*/*.c))
UNIT_SRCS := $(wildcard tests/unit/*.c)
KERNEL_SRCS := $(wildcard tests/kernel/*.c)
# Programs the CLI tests drive (e.g. a BPF producer that pins its map); not tests themselves.
HELPER_SRCS := $(wildcard tests/helpers/*.c)
BENCH_SRCS := $(wildcard bench/*.c)
EXAMPLE_SRCS := $(filter-out %.bpf.c,$(wildcard examples/*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/tests/unit/%,$(UNIT_SRCS))
KERNEL_BINS := $(patsubst tests/kernel/%.c,$(O)/tests/kernel/%,$(KERNEL_SRCS))
HELPER_BINS := $(patsubst tests/helpers/%.c,$(O)/tests/helpers/%,$(HELPER_SRCS)) $(O)/tests/helpers/names_work
BENCH_BINS := $(patsubst bench/%.c,$(O)/bench/%,$(BENCH_SRCS))
EXAMPLE_BINS := $(patsubst examples/%.c,$(O)/examples/%,$(EXAMPLE_SRCS))
TOOL := $(O)/perfring
TEST_SUPPORT := $(wildcard tests/*.h tests/unit/*.h tests/kernel/*.h)

# Missing Debian packages are installed (as root; otherwise named, and the build stops) once per
# checkout and kind, by scripts/install-deps.sh: `make lib` installs what the library links,
# `make`/`make tool`/`make demo` what the programs compile and link against too, and only
# `make check` (and fuzz, abi-*) what the tests run (perf, valgrind, chromium, golang, ...).
# Installing build dependencies from make is kept on purpose: `make` on a fresh Debian as root
# builds; the test packages are never pulled in by a build.
LIB_DEPS_STAMP := build/.deps-lib-ok
BUILD_DEPS_STAMP := build/.deps-build-ok
TEST_DEPS_STAMP := build/.deps-test-ok

.PHONY: soak-profile all lib tool deps test-deps demo check check-plain check-asan check-tsan bench install uninstall clean headers-cxx
.DEFAULT_GOAL := all

all: lib $(TOOL) $(UNIT_BINS) $(KERNEL_BINS) $(HELPER_BINS) $(BENCH_BINS) $(EXAMPLE_BINS) headers-cxx

lib: $(SHARED) $(STATIC) $(O)/libperfring.so

# The library and the tool only (what `make install` installs): no test, bench or example.
tool: lib $(TOOL)

deps: $(BUILD_DEPS_STAMP)
test-deps: $(TEST_DEPS_STAMP)
build/.deps-%-ok: scripts/install-deps.sh
	@bash scripts/install-deps.sh $*
	@mkdir -p $(dir $@) && touch $@

$(O)/obj/lib/%.o: src/%.c $(LIB_HDRS) | $(LIB_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(SHARED): $(LIB_OBJS) src/libperfring.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libperfring.map $(LDFLAGS_SAN) \
		-o $@ $(LIB_OBJS) $(LIB_LIBS)

$(O)/libperfring.so: $(SHARED)
	ln -sf libperfring.so.$(VERSION) $(O)/$(SONAME)
	ln -sf $(SONAME) $@

$(STATIC): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $(LIB_OBJS)

# BPF programs: compiled with clang -target bpf, embedded with a skeleton. The kernel headers'
# asm/ directory is Debian's multiarch one (gcc names it; clang -dumpmachine spells it otherwise).
MULTIARCH ?= $(shell gcc -print-multiarch 2>/dev/null || $(CC) -dumpmachine)
# A program includes its own header by "name.h" (beside it) and the installed BPF-side header as
# users do, <perfring/bpf/perfring_ringbuf.bpf.h> (-Iinclude).
$(O)/bpf/%.bpf.o: %.bpf.c $(BPF_HDRS) | $(BUILD_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -I/usr/include/$(MULTIARCH) -Iinclude -c $< -o $@

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# Every program (the tool too) waits for the build dependencies: libbpf, libtraceevent, g++, ...
$(TOOL) $(UNIT_BINS) $(KERNEL_BINS) $(HELPER_BINS) $(BENCH_BINS) $(EXAMPLE_BINS) $(O)/.headers-ok: | $(BUILD_DEPS_STAMP)

# Programs link the static library so that sanitizer builds instrument it.
PROG_CFLAGS := $(CFLAGS_ALL) -I$(O)/bpf -Itests
PROG_LIBS := $(STATIC) $(LIBBPF_LIBS) $(LIB_LIBS) -lm $(LDFLAGS_SAN)

# perfring top's screen (tools/top/top_ui.c) is drawn with ncurses.
CURSES_LIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
# perfring profile pushes profiles over HTTP with libcurl.
CURL_LIBS := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)
$(TOOL): $(TOOL_SRCS) $(wildcard tools/*/*.h) src/common/alloc.h $(STATIC) $(BPF_SKELS)
	$(CC) $(PROG_CFLAGS) $(TRACE_CFLAGS) -Itools -o $@ $(TOOL_SRCS) $(PROG_LIBS) $(TRACE_LIBS) $(CURSES_LIBS) $(CURL_LIBS)

$(O)/tests/unit/%: tests/unit/%.c $(TEST_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -o $@ $< $(PROG_LIBS)

# The readahead thread's tests build its source in with their own settings
# (the archive's copy is then not linked). Over the corpus, whose files are all
# below the 16 MiB it waits for: no threshold ("len < 0" is then always false,
# which is the point), and the thread retiring after 8 batches whenever the
# caller waited at all, so that both ways are read. The other test keeps it
# from retiring: its files are read ahead to the end.
$(O)/tests/unit/perfdata_readahead_thread_corpus: tests/unit/perfdata_readahead_thread_corpus.c \
		src/perfdata/perfdata_readahead.c $(TEST_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Wno-type-limits -Isrc -DPD_RA_MIN_INPUT=0 -DPD_RA_JUDGE_BATCHES=8 -DPD_RA_RETIRE_PCT=0 \
		-o $@ $< src/perfdata/perfdata_readahead.c $(PROG_LIBS)
$(O)/tests/unit/perfdata_readahead_thread: tests/unit/perfdata_readahead_thread.c \
		src/perfdata/perfdata_readahead.c $(TEST_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -DPD_RA_RETIRE_PCT=101 -o $@ $< src/perfdata/perfdata_readahead.c $(PROG_LIBS)

# Fault-injection tests route the library's allocations and syscalls through
# tests/unit/fault.h (link-time --wrap: works with the static library, ASan
# and valgrind).
FAULT_WRAP := $(foreach f,malloc calloc realloc strdup mmap open read pread write pwrite fstat ioctl \
	syscall epoll_create1 epoll_ctl epoll_wait eventfd fcntl socket bind recvmsg,-Wl,--wrap=$(f))
$(O)/tests/unit/fault_%: tests/unit/fault_%.c $(TEST_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -o $@ $< $(FAULT_WRAP) $(PROG_LIBS)

# Unit tests of the tool's tracepoint decoder build with its sources.
TRACE_DECODER_SRCS := tools/trace/trace_format.c tools/trace/trace_decode.c tools/trace/trace_emit.c tools/shared/pd_emit.c
# The trace fuzz target (tests/fuzz/trace_fuzz.c) builds with the same sources and libraries.
FUZZ_EXTRA_trace = $(TRACE_DECODER_SRCS) $(TRACE_CFLAGS)
FUZZ_LIBS_trace = $(TRACE_LIBS)
# perfring script's tracing data reader (tests/fuzz/tracing_data_fuzz.c) builds with its source and libtraceevent.
FUZZ_EXTRA_tracing_data = tools/shared/tracing.c tools/shared/pd_emit.c $(TRACE_CFLAGS)
FUZZ_LIBS_tracing_data = $(TRACE_LIBS)
# perfring report's event group reader (tests/fuzz/group_desc_fuzz.c) builds with its source.
FUZZ_EXTRA_group_desc = tools/report/groups.c
# perfring report --header-only (tests/fuzz/report_header_fuzz.c) builds with its sources, the
# perf.data helpers and the tool's messages (tools/shared/util.c, which needs libbpf).
FUZZ_EXTRA_report_header = tools/report/header.c $(wildcard tools/report/header_*.c) tools/shared/pd_common.c tools/shared/util.c
FUZZ_LIBS_report_header = $(LIBBPF_LIBS)
$(O)/fuzz/report_header_fuzz $(O)/fuzz/report_header_replay: $(wildcard tools/report/header.h tools/shared/tool.h tools/shared/bytecur.h)
# The demanglers (rust_demangle_fuzz.c) and the DWARF unwinder of recorded user stacks
# (unwind_fuzz.c) are the library's (src/profile/): they need nothing more than it.
$(O)/tests/unit/trace_%: tests/unit/trace_%.c $(TEST_SUPPORT) $(STATIC) $(TRACE_DECODER_SRCS) $(wildcard tools/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $(TRACE_CFLAGS) -Itools -o $@ $< $(TRACE_DECODER_SRCS) $(PROG_LIBS) $(TRACE_LIBS)

# perfring top's window of samples (tests/unit/top_table.c) builds with its source.
$(O)/tests/unit/top_%: tests/unit/top_%.c $(TEST_SUPPORT) $(STATIC) tools/top/top_table.c tools/top/top_table.h
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Itools -o $@ $< tools/top/top_table.c $(PROG_LIBS)

$(O)/tests/kernel/%: tests/kernel/%.c $(TEST_SUPPORT) $(STATIC) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -o $@ $< $(PROG_LIBS)

$(O)/tests/kernel/fault_%: tests/kernel/fault_%.c $(TEST_SUPPORT) $(STATIC) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -o $@ $< $(FAULT_WRAP) $(PROG_LIBS)

$(O)/tests/helpers/%: tests/helpers/%.c $(TEST_SUPPORT) $(STATIC) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -o $@ $< $(PROG_LIBS)

# The symbolizer tests' target program: -g, and -rdynamic so that a stripped copy keeps its global
# functions in .dynsym (tests/helpers/sym_target.c); frame pointers, for the call chains of tests/cli/script_oracle.sh.
$(O)/tests/helpers/sym_target: tests/helpers/sym_target.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -g -rdynamic -fno-omit-frame-pointer -o $@ $< $(LDFLAGS_SAN)

# The breakpoint tests' target (tests/helpers/bp_target.c): -no-pie, so that the address nm gives
# for its global is the one `record -e mem:ADDR` watches at run time; no sanitizer (its own globals).
$(O)/tests/helpers/bp_target: tests/helpers/bp_target.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -no-pie -fno-omit-frame-pointer -o $@ $<

# The export tests' workload (tests/helpers/prof_work.c): frame pointers, so that perf record -g
# (frame-pointer unwinding) gives its whole call chains; -O0: leaf functions set up frames too.
$(O)/tests/helpers/prof_work: tests/helpers/prof_work.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O0 -g -fno-omit-frame-pointer -o $@ $< $(LDFLAGS_SAN)

# The off-CPU test's workload (tests/helpers/offcpu_work.c): frame pointers, so that the user
# stacks bpf_get_stackid() takes reach its block_* functions.
$(O)/tests/helpers/offcpu_work: tests/helpers/offcpu_work.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O0 -g -fno-omit-frame-pointer -o $@ $< -lpthread $(LDFLAGS_SAN)

# The --inline test's workload (tests/helpers/inline_work.c): -O2 so that its always_inline
# functions are inlined, -g for their DWARF inlined subroutines, frame pointers for perf record -g.
$(O)/tests/helpers/inline_work: tests/helpers/inline_work.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -O2 -g -fno-omit-frame-pointer -o $@ $< $(LDFLAGS_SAN)

# The DWARF names test's workload (tests/helpers/names_work.cc, names_asm.S): C++ and assembly,
# -O2 -g so that Mixer::step is inlined and the assembler writes a subprogram per name; -fno-plt:
# no sample lands in a PLT stub, which perf 6.1 names by symbols it makes for some binaries and not
# for others (this one: _init+0x40), a question of its own (tests/cli/script_oracle.sh's PLT part).
$(O)/tests/helpers/names_work: tests/helpers/names_work.cc tests/helpers/names_asm.S
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fno-omit-frame-pointer -fno-plt -o $@ $^

$(O)/bench/%: bench/%.c $(wildcard bench/*.h) $(STATIC) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Ibench -o $@ $< $(PROG_LIBS)

# Examples include their BPF side's shared header from beside them as libbpf-tools do ("opensnoop.h").
$(O)/examples/%: examples/%.c $(STATIC) $(BPF_SKELS) $(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(PROG_LIBS)

# Every public header must compile on its own, as C and as C++.
headers-cxx: $(O)/.headers-ok
$(O)/.headers-ok: $(wildcard include/perfring/*.h)
	@mkdir -p $(O)
	@for h in $^; do \
		printf '#include <perfring/%s>\nint main(void){return 0;}\n' $$(basename $$h) > $(O)/hdr.c; \
		$(CC) -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude -fsyntax-only -x c $(O)/hdr.c || exit 1; \
		$(CXX) -std=c++11 -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ $(O)/hdr.c || exit 1; \
	done; touch $@

# The demo runs the tool alone: the build dependencies are all it needs.
demo: $(TOOL)
	$(TOOL) trace

# make check: the whole suite, then again under sanitizers. Ends with the
# line "N passed, N failed, N skipped" (scripts/run-tests.sh adds them up).
check: $(BUILD_DEPS_STAMP) $(TEST_DEPS_STAMP)
	@bash scripts/check.sh

check-plain: all
	@bash scripts/run-tests.sh --build $(O) --suite plain

bench: all $(O)/tests/helpers/prof_work
	@bash scripts/bench.sh $(O)

# make oracle: the whole differential test against perf (scripts/oracle.sh: every recorder,
# program, call-graph mode, event and output; tests/cli/oracle.sh, in make check, is a part of it).
.PHONY: oracle
oracle: all
	@bash scripts/oracle.sh $(O)

# Regenerated on every install: it records PREFIX, which may differ each time.
# A directory under PREFIX is written relative to it ($${prefix}/lib), so a moved install still works.
under_prefix = $(if $(filter $(PREFIX)/%,$(1)),$(2)$(patsubst $(PREFIX)%,%,$(1)),$(1))
.PHONY: $(O)/perfring.pc
$(O)/perfring.pc: perfring.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call under_prefix,$(LIBDIR),$${exec_prefix})|g' \
		-e 's|@INCLUDEDIR@|$(call under_prefix,$(INCLUDEDIR),$${prefix})|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# CMake package files (find_package(perfring)): paths relative to the file's own directory.
CMAKEDIR ?= $(LIBDIR)/cmake/perfring
.PHONY: $(O)/cmake/perfringConfig.cmake $(O)/cmake/perfringConfigVersion.cmake
CMAKE_SUBST = -e 's|@CMAKE_TO_LIBDIR@|$(shell realpath -m --relative-to=$(CMAKEDIR) $(LIBDIR))|g' \
	-e 's|@CMAKE_TO_INCLUDEDIR@|$(shell realpath -m --relative-to=$(CMAKEDIR) $(INCLUDEDIR))|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' \
	-e 's|@VERSION_MINOR@|$(word 2,$(subst ., ,$(VERSION)))|g'
$(O)/cmake/perfringConfig.cmake: cmake/perfringConfig.cmake.in
	@mkdir -p $(dir $@)
	sed $(CMAKE_SUBST) $< > $@
$(O)/cmake/perfringConfigVersion.cmake: cmake/perfringConfigVersion.cmake.in
	@mkdir -p $(dir $@)
	sed $(CMAKE_SUBST) $< > $@

install: lib $(TOOL) $(O)/perfring.pc $(O)/cmake/perfringConfig.cmake $(O)/cmake/perfringConfigVersion.cmake
	install -d $(DESTDIR)$(INCLUDEDIR)/perfring $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man1
	install -m 644 include/perfring/*.h $(DESTDIR)$(INCLUDEDIR)/perfring/
	install -d $(DESTDIR)$(INCLUDEDIR)/perfring/bpf
	install -m 644 include/perfring/bpf/*.h $(DESTDIR)$(INCLUDEDIR)/perfring/bpf/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libperfring.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libperfring.so
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(O)/perfring.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -d $(DESTDIR)$(CMAKEDIR)
	install -m 644 $(O)/cmake/perfringConfig.cmake $(O)/cmake/perfringConfigVersion.cmake $(DESTDIR)$(CMAKEDIR)/
	install -m 755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/
	for m in man/*.3; do [ -e "$$m" ] && install -m 644 $$m $(DESTDIR)$(MANDIR)/man3/; done; true
	for m in man/*.1; do [ -e "$$m" ] && install -m 644 $$m $(DESTDIR)$(MANDIR)/man1/; done; true

uninstall:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/perfring $(DESTDIR)$(LIBDIR)/libperfring.* \
		$(DESTDIR)$(PKGCONFIGDIR)/perfring.pc $(DESTDIR)$(PREFIX)/bin/perfring $(DESTDIR)$(CMAKEDIR) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/*.3)))

# ---- ABI (abi/libperfring.abi, libabigail) ----
# make abi-baseline   record the ABI of $(O)/libperfring.so (public headers only) as the baseline
# make abi-check      compare $(O)/libperfring.so with it; fails on an incompatible change AND on
#                     an added or removed symbol (an intended change regenerates the baseline in
#                     the same commit). make check runs it (tests/cli/abi.sh).
ABI_BASELINE := abi/libperfring.abi
ABIDW_FLAGS := --headers-dir include/perfring --drop-undefined-syms --no-corpus-path --no-comp-dir-path
.PHONY: abi-baseline abi-check
abi-baseline: $(SHARED) | $(TEST_DEPS_STAMP)
	@mkdir -p abi
	abidw $(ABIDW_FLAGS) --out-file $(ABI_BASELINE) $(SHARED)
	@echo "wrote $(ABI_BASELINE): commit it with the API change"

abi-check: $(SHARED) | $(TEST_DEPS_STAMP)
	@bash tests/cli/abi.sh --build $(O)

clean:
	rm -rf $(O)

.SECONDARY:

# ---- Fuzzing (tests/fuzz/) ----
# Every parser of outside bytes has a target tests/fuzz/NAME_fuzz.c (LLVMFuzzerTestOneInput) and
# seeds in tests/fuzz/corpus/NAME/. For each:
#   $(O)/fuzz/NAME_fuzz     clang, libFuzzer + ASan + UBSan, the library's sources compiled in
#                           (clang's runtime: libclang-rt-14-dev); `make fuzz` builds them all,
#                           make check runs each for FUZZ_SECONDS, `make fuzz-long` for longer
#   $(O)/fuzz/NAME_replay   the same target with $(CC) and tests/fuzz/standalone_main.c (part of
#                           `make`, so of every sanitizer build): scripts/run-tests.sh replays the
#                           seeds in every suite; replay a crash file with it
# The record target (record_fuzz.c) predates the convention: its replay is $(O)/fuzz/record_replay
# (replay_main.c) and tests/unit/fuzz_replay; `make fuzz-corpus` regenerates its seeds.
# A target that needs more than the library (e.g. the tool's sources) sets FUZZ_EXTRA_<NAME>
# (sources) and FUZZ_LIBS_<NAME> (libraries) below.
FUZZ_CC ?= $(CLANG)
FUZZ_FLAGS ?= -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SUPPORT := $(wildcard tests/fuzz/*.h tests/fuzz/*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/%_fuzz.c,%,$(wildcard tests/fuzz/*_fuzz.c))
FUZZ_BINS := $(patsubst %,$(O)/fuzz/%_fuzz,$(FUZZ_NAMES))
REPLAY_BINS := $(patsubst %,$(O)/fuzz/%_replay,$(filter-out record,$(FUZZ_NAMES)))

.PHONY: fuzz fuzz-corpus fuzz-long
all: $(O)/fuzz/record_replay $(O)/fuzz/make_corpus $(REPLAY_BINS)
$(O)/fuzz/record_replay $(REPLAY_BINS): | $(BUILD_DEPS_STAMP)
fuzz: $(FUZZ_BINS)

# make fuzz-long FUZZ_SECONDS=600: every target in turn, from a copy of its seeds.
fuzz-long: fuzz
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-600} bash scripts/fuzz.sh $(O)

# A target's extra sources are its prerequisites too (rules without a recipe add to the pattern's).
$(foreach n,$(FUZZ_NAMES),$(eval $(O)/fuzz/$(n)_fuzz $(O)/fuzz/$(n)_replay: $(filter %.c,$(FUZZ_EXTRA_$(n)))))
# The library is compiled once, instrumented as the targets are (fuzzer-no-link: coverage
# without libFuzzer's main), into an archive every target links: each target compiled the whole
# library before, 3 of make check's minutes on 2 cores.
comma := ,
FUZZ_LIB_FLAGS := $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_FLAGS))
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(O)/fuzz/obj/%.o,$(LIB_SRCS))
FUZZ_LIB := $(O)/fuzz/libperfring-fuzz.a
$(O)/fuzz/obj/%.o: src/%.c $(LIB_HDRS) | $(TEST_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LIB_FLAGS) -std=gnu11 -Iinclude -Isrc -D_GNU_SOURCE -c $< -o $@
$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $(FUZZ_LIB_OBJS)
$(O)/fuzz/%_fuzz: tests/fuzz/%_fuzz.c $(FUZZ_SUPPORT) $(FUZZ_LIB) | $(TEST_DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=gnu11 -Iinclude -Isrc -Itests -Itools -D_GNU_SOURCE -o $@ $< \
		$(FUZZ_EXTRA_$*) $(FUZZ_LIB) $(LIB_LIBS) $(FUZZ_LIBS_$*)

$(O)/fuzz/%_replay: tests/fuzz/%_fuzz.c tests/fuzz/standalone_main.c $(FUZZ_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -Isrc -Itools -o $@ $< tests/fuzz/standalone_main.c $(FUZZ_EXTRA_$*) $(PROG_LIBS) \
		$(FUZZ_LIBS_$*)

$(O)/fuzz/record_replay: $(FUZZ_SUPPORT) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -DPERFRING_FUZZ_REPLAY -o $@ tests/fuzz/replay_main.c $(PROG_LIBS)

$(O)/fuzz/make_corpus: tests/fuzz/make_corpus.c tests/fuzz/record_fuzz.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_SAN)

fuzz-corpus: $(O)/fuzz/make_corpus
	@mkdir -p tests/fuzz/corpus/record
	$(O)/fuzz/make_corpus tests/fuzz/corpus/record

$(O)/tests/unit/fuzz_replay: $(FUZZ_SUPPORT)

# ---- Soak (tests/soak/soak.c; not part of make check) ----
# make soak [SOAK_RECORDS=N] [SOAK_ARGS=...]: a flat-out BPF producer on CPU 0 writes N records
# (default 10^9) with sequence numbers, the reader on CPU 1 drains them; received + reported lost
# must equal produced exactly, and the reader's RSS stay flat (README, Testing).
SOAK_RECORDS ?= 1000000000
SOAK_ARGS ?=
.PHONY: soak
all: $(O)/tests/soak/soak
$(O)/tests/soak/soak: tests/soak/soak.c tests/bpf/producer.h $(STATIC) $(BPF_SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< $(PROG_LIBS)

soak: $(O)/tests/soak/soak
	$(O)/tests/soak/soak --records $(SOAK_RECORDS) $(SOAK_ARGS)

# perfring profile for 30 minutes beside a storm of short-lived processes: RSS under
# --max-memory and no fd growth (scripts/soak_profile.sh; not in make check).
soak-profile: $(TOOL) $(O)/tests/helpers/prof_work
	bash scripts/soak_profile.sh $(O)

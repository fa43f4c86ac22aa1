#!/usr/bin/env bash
# Install the Debian packages one kind of work needs, when they are missing.
#   install-deps.sh lib     the library: a compiler and the libraries it links (make lib)
#   install-deps.sh build   the above, and what the tool, the examples, the benches and the test
#                           programs compile and link against (make, make tool, make demo)
#   install-deps.sh test    what the tests run besides the build: perf (their oracle), valgrind,
#                           sanitizer and fuzzer runtimes, the exports' viewers... (make check)
# As root on Debian it apt-installs the missing packages; otherwise it says which are missing
# and fails. The Makefile calls it once per checkout and kind (stamps build/.deps-KIND-ok), so
# that `make` never installs what only the tests use.
set -euo pipefail

kind=${1:-build}

# package: a file or command whose presence shows it is installed
declare -A lib=(
	[gcc]=/usr/bin/gcc
	[make]=/usr/bin/make
	[pkg-config]=/usr/bin/pkg-config
	# perfring profile pushes profiles to Pyroscope and Parca over HTTP
	[libcurl4-openssl-dev]=/usr/include/x86_64-linux-gnu/curl/curl.h
	[linux-libc-dev]=/usr/include/linux/perf_event.h
	# the symbol layer (src/symbol/): ELF and DWARF, .gnu_debugdata (xz), compressed DWARF
	[libelf-dev]=/usr/include/libelf.h
	[libdw-dev]=/usr/include/elfutils/libdw.h
	[liblzma-dev]=/usr/include/lzma.h
	[libdeflate-dev]=/usr/include/libdeflate.h
	# compressed perf.data records (src/perfdata/)
	[libzstd-dev]=/usr/include/zstd.h
)
declare -A build=(
	# the C++ helpers (tests/helpers/names_work.cc), the headers' C++ check, the tool's demangler
	[g++]=/usr/bin/g++
	# BPF programs (bpf/*.bpf.c): clang -target bpf, then bpftool's skeletons
	[clang]=/usr/bin/clang
	[bpftool]=/usr/sbin/bpftool
	[libbpf-dev]=/usr/include/bpf/libbpf.h
	# the tool: tracepoint formats and tracefs (libtraceevent, libtracefs), pprof's gzip (zlib)
	[libtraceevent-dev]=/usr/include/traceevent/event-parse.h
	[libtracefs-dev]=/usr/include/tracefs/tracefs.h
	# perfring top's screen
	[libncurses-dev]=/usr/include/ncurses.h
)
declare -A test=(
	# perf itself: the oracle of the CLI tests (tests/cli/*oracle*, record_perf, ...)
	[linux-perf]=/usr/bin/perf
	[valgrind]=/usr/bin/valgrind
	# tests/cli/top.sh drives perfring top's screen under tmux
	[tmux]=/usr/bin/tmux
	[python3]=/usr/bin/python3
	[time]=/usr/bin/time
	[util-linux]=/usr/bin/unshare
	[binutils]=/usr/bin/addr2line
	# llvm-addr2line, llvm-strip (tests/cli/oracle.sh, tests/helpers/oracle_lib.sh)
	[llvm]=/usr/bin/llvm-strip
	# tests/cli/abi.sh, make abi-check / abi-baseline
	[abigail-tools]=/usr/bin/abidiff
	# tests/cli/install_cmake.sh; the man pages' check
	[cmake]=/usr/bin/cmake
	[groff]=/usr/bin/groff
	[man-db]=/usr/bin/man
	# tests/cli/names_cxx_rust.sh and oracle.sh build Rust programs (perf demangles their names)
	[rustc]=/usr/bin/rustc
	# the exports' oracles: go tool pprof reads pprof files; speedscope (npm) under headless chromium
	[golang-go]=/usr/bin/go
	[chromium]=/usr/bin/chromium
	[nodejs]=/usr/bin/node
	[npm]=/usr/bin/npm
	# glibc's debug files: its inlined functions in DWARF call graphs (perf and perfring read
	# them by build id), unit/symbol_scopes' glibc comparison
	[libc6-dbg]=/usr/share/doc/libc6-dbg
)

missing=()
want() { # name of a table above
	local -n table=$1
	local pkg
	for pkg in "${!table[@]}"; do
		[ -e "${table[$pkg]}" ] || missing+=("$pkg")
	done
}
case "$kind" in
lib) want lib ;;
build) want lib; want build ;;
test)
	want test
	# clang's libFuzzer runtime (make check's fuzz step), where clang keeps it.
	fuzzer_rt="$(clang -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a"
	[ -e "$fuzzer_rt" ] || missing+=("libclang-rt-14-dev")
	# gcc's sanitizer runtimes (ASan/UBSan/TSan) come with libgcc-*-dev; check them too.
	gcclib=$(gcc -print-file-name=libtsan.so 2>/dev/null || true)
	if [ ! -e "$gcclib" ]; then
		v=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
		missing+=("libtsan2" "libasan8" "libubsan1" "libgcc-${v:-12}-dev")
	fi
	;;
*) echo "usage: install-deps.sh lib|build|test" >&2; exit 2 ;;
esac

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "perfring: missing packages ($kind): ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
	echo "perfring: run as root (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null; then
	echo "perfring: no apt-get here; install the equivalent of: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "perfring: installed ${missing[*]}" >&2

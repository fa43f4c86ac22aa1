#!/usr/bin/env bash
# Install what perfring needs to build and test, when it is missing.
# As root on Debian it apt-installs the missing packages; otherwise it says
# which are missing and fails. Called by the make targets, once per checkout.
set -euo pipefail

# package: a file or command whose presence shows it is installed
declare -A need=(
	[gcc]=/usr/bin/gcc
	[g++]=/usr/bin/g++
	[make]=/usr/bin/make
	[clang]=/usr/bin/clang
	[llvm]=/usr/bin/llvm-strip
	[libbpf-dev]=/usr/include/bpf/libbpf.h
	[bpftool]=/usr/sbin/bpftool
	[libelf-dev]=/usr/include/libelf.h
	[libdw-dev]=/usr/include/elfutils/libdw.h
	[libdeflate-dev]=/usr/include/libdeflate.h
	[zlib1g-dev]=/usr/include/zlib.h
	[pkg-config]=/usr/bin/pkg-config
	# perfring profile pushes profiles to Pyroscope and Parca over HTTP
	[libcurl4-openssl-dev]=/usr/include/x86_64-linux-gnu/curl/curl.h
	[linux-libc-dev]=/usr/include/linux/perf_event.h
	[valgrind]=/usr/bin/valgrind
	[libzstd-dev]=/usr/include/zstd.h
	[libtraceevent-dev]=/usr/include/traceevent/event-parse.h
	[libtracefs-dev]=/usr/include/tracefs/tracefs.h
	[python3]=/usr/bin/python3
	[time]=/usr/bin/time
	[util-linux]=/usr/bin/unshare
	[abigail-tools]=/usr/bin/abidiff
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
	# perf itself: the oracle of the CLI tests (tests/cli/*oracle*, record_perf, ...); the
	# differential test (tests/cli/oracle.sh) also builds a Rust, a Go and a node program (above)
	[linux-perf]=/usr/bin/perf
	# glibc's debug files: its inlined functions in DWARF call graphs (perf and perfring read
	# them by build id), unit/symbol_scopes' glibc comparison
	[libc6-dbg]=/usr/share/doc/libc6-dbg
)

missing=()
for pkg in "${!need[@]}"; do
	[ -e "${need[$pkg]}" ] || missing+=("$pkg")
done
# clang's libFuzzer runtime (make check's fuzz step), where clang keeps it.
fuzzer_rt="$(clang -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-x86_64.a"
[ -e "$fuzzer_rt" ] || missing+=("libclang-rt-14-dev")
# gcc's sanitizer runtimes (ASan/UBSan/TSan) come with libgcc-*-dev; check them too.
gcclib=$(gcc -print-file-name=libtsan.so 2>/dev/null || true)
if [ ! -e "$gcclib" ]; then
	v=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
	missing+=("libtsan2" "libasan8" "libubsan1" "libgcc-${v:-12}-dev")
fi

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "perfring: missing packages: ${missing[*]}" >&2
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

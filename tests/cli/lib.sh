# shellcheck shell=bash
# Helpers for the CLI tests (tests/cli/*.sh), sourced by each of them.
#
# Every test prints "ok NAME", "FAIL NAME: why" or "skip NAME: reason", and
# the script ends with "N passed, N failed, N skipped" (t_finish), the line
# scripts/run-tests.sh adds up. PERFRING_BUILD is the build directory under
# test (set by scripts/run-tests.sh; default build), made absolute here.
set -uo pipefail
# With pipefail, never end a pipeline with `grep -q`: it exits at the first
# match and the writer may die of SIGPIPE, failing the pipeline. Use grep -c.

T_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PERFRING_BUILD=${PERFRING_BUILD:-build}
case "$PERFRING_BUILD" in
/*) ;;
*) PERFRING_BUILD="$T_ROOT/$PERFRING_BUILD" ;;
esac
PERFRING="$PERFRING_BUILD/perfring"
T_PASS=0 T_FAIL=0 T_SKIP=0
T_TMP=$(mktemp -d /tmp/perfring-cli.XXXXXX)
trap 'rm -rf "$T_TMP"' EXIT

ok() { echo "ok $1"; T_PASS=$((T_PASS + 1)); }
fail() { echo "FAIL $1: $2"; T_FAIL=$((T_FAIL + 1)); }
skip() { echo "skip $1: $2"; T_SKIP=$((T_SKIP + 1)); }

# t_check NAME WHY-IF-FALSE COMMAND...: ok when COMMAND succeeds.
t_check() {
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else fail "$name" "$why"; fi
}

# t_run OUT ERR COMMAND...: run COMMAND with stdout and stderr in files, set T_RC.
t_run() {
	local out=$1 err=$2
	shift 2
	"$@" >"$out" 2>"$err"
	T_RC=$?
}

# t_show FILE: indent a file's first lines, to follow a FAIL line.
t_show() { head -n "${2:-15}" "$1" | sed 's/^/     | /'; }

t_need_root() { [ "$(id -u)" -eq 0 ]; }

# t_require_tool: end the test, failed, when the tool was not built.
t_require_tool() {
	if [ ! -x "$PERFRING" ]; then
		fail tool_built "$PERFRING does not exist (build it with make O=...)"
		t_finish
		exit 1
	fi
}

# t_require_perf NAME: end the test, NAME skipped, when perf (linux-perf), the oracle, is missing.
t_require_perf() {
	if ! command -v perf >/dev/null; then
		skip "$1" "perf (linux-perf) is not installed: it is the oracle of these tests"
		t_finish
		exit $?
	fi
}

# t_ensure_fs TYPE DIR: mount a kernel file system (bpf, tracefs, debugfs) at DIR if none of that
# type is there yet, as a fresh machine has none: the suite sets up what it needs itself. It stays
# mounted (as perf and bpftool leave it). Returns 1, with the reason in T_FS_WHY, if it cannot.
t_ensure_fs() {
	local type=$1 dir=$2 magic
	case "$type" in
	bpf) magic=bpf_fs ;;
	tracefs) magic=tracefs ;;
	debugfs) magic=debugfs ;;
	*) T_FS_WHY="t_ensure_fs: unknown type $type"; return 1 ;;
	esac
	[ "$(stat -f -c %T "$dir" 2>/dev/null)" = "$magic" ] && return 0
	if ! mount -t "$type" "$type" "$dir" 2>"$T_TMP/mount.err"; then
		T_FS_WHY="no $type at $dir and mounting it failed: $(head -n 1 "$T_TMP/mount.err")"
		return 1
	fi
}

# t_find_corpus: set T_CORPUS to the perf.data corpus (the folder holding quipper/ and
# linux-perf-data/): PERFRING_PERFDATA_CORPUS, else shared/corpus/perf.data in a folder above
# the checkout (tests/helpers/corpus_dir.sh). Returns 1, with a skip reason in T_CORPUS_WHY,
# when there is none.
t_find_corpus() {
	T_CORPUS=$(bash "$T_ROOT/tests/helpers/corpus_dir.sh" "$T_ROOT")
	[ -n "$T_CORPUS" ] && return 0
	T_CORPUS_WHY="no perf.data corpus (set PERFRING_PERFDATA_CORPUS, or put it at shared/corpus/perf.data in a folder above the checkout)"
	return 1
}

# t_one_line_error NAME TEXT COMMAND...: COMMAND (given 30 s at most) exits 1
# with one line on stderr that contains TEXT, and nothing on stdout.
t_one_line_error() {
	local name=$1 text=$2
	shift 2
	t_run "$T_TMP/error.out" "$T_TMP/error.err" timeout 30 "$@"
	if [ "$T_RC" -ne 1 ] || [ "$(wc -l <"$T_TMP/error.err")" -ne 1 ] || ! grep -qF -- "$text" "$T_TMP/error.err"; then
		fail "$name" "$*: exit $T_RC (want 1), stderr should be one line with '$text'"
		t_show "$T_TMP/error.err"
	elif [ -s "$T_TMP/error.out" ]; then
		fail "$name" "$* printed on stdout"
		t_show "$T_TMP/error.out"
	else
		ok "$name"
	fi
}

# t_usage_error NAME TEXT ARGS...: `perfring ARGS` exits 2 with one line on
# stderr that contains TEXT and a hint to --help, and nothing on stdout.
t_usage_error() {
	local name=$1 text=$2
	shift 2
	t_run "$T_TMP/usage.out" "$T_TMP/usage.err" "$PERFRING" "$@"
	if [ "$T_RC" -ne 2 ]; then
		fail "$name" "perfring $* exited $T_RC, not 2"
		t_show "$T_TMP/usage.err"
	elif [ "$(wc -l <"$T_TMP/usage.err")" -ne 1 ] || ! grep -qF -- "$text" "$T_TMP/usage.err" ||
		! grep -q -- '--help' "$T_TMP/usage.err"; then
		fail "$name" "perfring $*: stderr should be one line with '$text' and a --help hint"
		t_show "$T_TMP/usage.err"
	elif [ -s "$T_TMP/usage.out" ]; then
		fail "$name" "perfring $* printed on stdout"
	else
		ok "$name"
	fi
}

# t_same_output NAME WHAT PERF_OUT OURS_OUT OURS_ERR [PATTERN]: after a t_run of perfring (T_RC),
# ok when perfring exited 0 and printed what perf did, which has a line matching PATTERN (any line
# by default: perf printed something to compare); else the difference's first lines.
t_same_output() {
	local name=$1 what=$2 perf=$3 ours=$4 err=$5 pat=${6:-.}
	if [ "$T_RC" -ne 0 ]; then
		fail "$name" "perfring $what exited $T_RC: $(head -n 1 "$err")"
	elif ! grep -q -- "$pat" "$perf"; then
		fail "$name" "perf $what printed nothing to compare"
	elif cmp -s "$ours" "$perf"; then
		ok "$name"
	else
		fail "$name" "perfring $what differs from perf's (- perf, + perfring)"
		diff "$perf" "$ours" | head -n 6 | sed 's/^/     | /'
	fi
}

# t_npm_package NAME DIR PACKAGE VERSION: PACKAGE@VERSION (pinned) installed from the npm
# registry into DIR/node_modules unless it is there already, then used offline. When npm is
# missing or the install fails, NAME is skipped with the reason and the test ends.
t_npm_package() {
	local name=$1 dir=$2 pkg=$3 version=$4
	grep -qs "\"version\": \"$version\"" "$dir/node_modules/$pkg/package.json" && return 0
	if ! command -v npm >/dev/null; then
		skip "$name" "npm is not installed (scripts/install-deps.sh installs it)"
		t_finish
		exit $?
	fi
	mkdir -p "$dir"
	if ! (cd "$dir" && timeout 300 npm install --no-audit --no-fund --silent "$pkg@$version") >"$T_TMP/npm.log" 2>&1 ||
		! grep -qs "\"version\": \"$version\"" "$dir/node_modules/$pkg/package.json"; then
		skip "$name" "npm install $pkg@$version failed (registry unreachable?): $(grep -m1 -i err "$T_TMP/npm.log")"
		t_finish
		exit $?
	fi
}

t_finish() {
	echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}

# Run directly (scripts/run-tests.sh runs every tests/cli/*.sh, this file
# included), check the helpers themselves.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	t_run "$T_TMP/o" "$T_TMP/e" bash -c 'echo out; echo err >&2; exit 3'
	t_check lib_t_run_status "t_run recorded exit status $T_RC, not 3" [ "$T_RC" -eq 3 ]
	t_check lib_t_run_streams "t_run did not separate stdout and stderr" \
		bash -c "[ \"\$(cat '$T_TMP/o')\" = out ] && [ \"\$(cat '$T_TMP/e')\" = err ]"
	counts=$(bash -c ". '${BASH_SOURCE[0]}'; ok a; fail b why; skip c reason; t_check d x false; t_finish" 2>&1)
	t_check lib_counts "a sourced script counted wrong: $(echo "$counts" | tail -n 1)" \
		bash -c "echo '$counts' | tail -n 1 | grep -qx '1 passed, 2 failed, 1 skipped' &&
			echo '$counts' | grep -qx 'FAIL b: why' && echo '$counts' | grep -qx 'skip c: reason'"
	t_finish
	exit $?
fi

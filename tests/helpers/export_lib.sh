# shellcheck shell=bash
# Sourced by the export tests (tests/cli/export*.sh) after tests/cli/lib.sh.
#
# export_need NAME BIN... : every BIN is built (else a failure) and perf is
# installed (else NAME is skipped); either ends the test.
export_need() {
	local name=$1 b
	shift
	for b in "$@"; do
		if [ ! -x "$b" ]; then
			fail built "$b is not built (make $b)"
			t_finish
			exit 1
		fi
	done
	if ! command -v perf >/dev/null; then
		skip "$name" "perf (linux-perf) is not installed: it records the files and is the oracle"
		t_finish
		exit $?
	fi
}

# export_record NAME FILE PERF-RECORD-ARGS... : perf record -q -o FILE ARGS (once more if it
# fails: perf records running at once can trip over each other's build-id cache updates);
# when it fails twice, NAME is skipped with perf's message and the test ends.
export_record() {
	local name=$1 file=$2
	shift 2
	if ! perf record -q -o "$file" "$@" >"$T_TMP/record.out" 2>&1 &&
		! { sleep 1; perf record -q -o "$file" "$@" >"$T_TMP/record.out" 2>&1; }; then
		skip "$name" "perf record failed here (perf_event_paranoid? no PMU?): $(head -n 1 "$T_TMP/record.out")"
		t_finish
		exit $?
	fi
}

# export_viewer NAME PROFILE FUNCS [SHOW]: speedscope's viewer opens PROFILE under headless
# Chromium and shows every function of FUNCS (one a line; tests/cli/export_speedscope.sh):
# NAME passes, fails, or is skipped with the viewer's reason (no chromium, no npm registry).
# With SHOW, the viewer's log is printed (timings left out).
export_viewer() {
	local name=$1
	PROFILE=$2 FUNCS=$3 bash "$T_ROOT/tests/cli/export_speedscope.sh" >"$T_TMP/viewer.log" 2>&1
	[ -z "${4:-}" ] || sed 's/^/    /' "$T_TMP/viewer.log" | grep -v '^    [0-9.]*m\?s ([0-9.<%]*)$' | tail -n 25
	if grep -q '^skip ' "$T_TMP/viewer.log"; then
		skip "$name" "$(sed -n 's/^skip [^:]*: //p' "$T_TMP/viewer.log" | head -n 1)"
	else
		t_check "$name" "$(grep -m1 '^FAIL' "$T_TMP/viewer.log")" grep -q '^2 passed, 0 failed' "$T_TMP/viewer.log"
	fi
}

# export_firefox_functions NAME PROFILE OUT: the Firefox Profiler's own code (its CLI,
# tests/cli/export_firefox.sh) loads PROFILE; the functions of its first thread (`thread
# functions --json`) go to OUT. NAME passes, fails, or is skipped with the reason (no node, no
# npm registry); OUT is empty unless it passed.
export_firefox_functions() {
	local name=$1
	: >"$3"
	PROFILE=$2 OUT=$3 bash "$T_ROOT/tests/cli/export_firefox.sh" >"$T_TMP/firefox.log" 2>&1
	sed 's/^/    /' "$T_TMP/firefox.log" | tail -n 20
	if grep -q '^skip ' "$T_TMP/firefox.log"; then
		skip "$name" "$(sed -n 's/^skip [^:]*: //p' "$T_TMP/firefox.log" | head -n 1)"
		: >"$3"
	elif grep -q '^2 passed, 0 failed' "$T_TMP/firefox.log"; then
		ok "$name"
	else
		fail "$name" "$(grep -m1 '^FAIL' "$T_TMP/firefox.log")"
		: >"$3"
	fi
}

# export_pprof_tod NAME DATA : on DATA, a perf.data with CLOCK_DATA (perf record -k or perfring
# record -k), the Time of perfring script --pprof's profile (go tool pprof -raw, left in
# $T_TMP/NAME.raw) is the first sample's wall-clock time as perf script -F tod --ns prints it,
# to the nanosecond (pprof drops trailing zeros). NAME is skipped without go.
export_pprof_tod() {
	local name=$1 data=$2 tod
	if ! command -v go >/dev/null; then
		skip "$name" "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
		return
	fi
	"$PERFRING" script -i "$data" --pprof "$T_TMP/$name.pb.gz" >/dev/null 2>&1
	HOME=$T_TMP go tool pprof -symbolize=none -raw "$T_TMP/$name.pb.gz" >"$T_TMP/$name.raw" 2>>"$T_TMP/pprof.err"
	tod=$(perf script -i "$data" -F tod --ns 2>/dev/null | head -n 1 | sed 's/ *$//')
	t_check "$name" "pprof: $(grep '^Time:' "$T_TMP/$name.raw"), perf script -F tod: $tod" \
		bash -c "[ -n '$tod' ] && grep -qx \"Time: \$(echo '$tod' | sed 's/0*\$//') +0000 UTC\" '$T_TMP/$name.raw'"
}

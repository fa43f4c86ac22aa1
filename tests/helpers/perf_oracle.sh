# shellcheck shell=bash
# Sourced by the CLI tests that hold perfring against perf on files perf records
# (tests/cli/script_oracle.sh, tests/cli/report_oracle.sh), after tests/cli/lib.sh:
# checks that the tool and tests/helpers/sym_target are built and that perf and
# python3 are there (else ends the test), sets TARGET, defines perf_record.

TARGET="$PERFRING_BUILD/tests/helpers/sym_target"
for need in "$PERFRING" "$TARGET"; do
	if [ ! -x "$need" ]; then
		fail built "$need does not exist (make O=... build/perfring build/tests/helpers/sym_target)"
		t_finish
		exit 1
	fi
done
if ! command -v perf >/dev/null || ! command -v python3 >/dev/null; then
	skip oracle "perf or python3 is not installed (perf records the files and is the reference)"
	t_finish
	exit $?
fi

# perf record without updating the build-id cache (-N): perf fails when several of them update
# ~/.debug at once ("assertion failed at util/build-id.c"); once more if it fails all the same.
perf_record() {
	perf record -N "$@" || { sleep 1; perf record -N "$@"; }
}

# perf_record_mixed FILE: events of different sample types (sched:sched_switch, which records CPU,
# PERIOD and RAW, beside cpu-clock of a fixed period, which records neither CPU nor PERIOD) of shells,
# ls, sleep and sym_target; tracefs mounted first. Says skip or FAIL record_mixed when it cannot.
perf_record_mixed() {
	if ! t_ensure_fs tracefs /sys/kernel/tracing; then
		skip record_mixed "$T_FS_WHY"
		return 1
	fi
	perf_record -q -e sched:sched_switch -e cpu-clock -c 100000 -o "$1" -- \
		sh -c 'for i in 1 2 3; do ls / >/dev/null; sleep 0.01; done; '"$TARGET"' spin 1' \
		>/dev/null 2>"$T_TMP/rec.err" && return 0
	fail record_mixed "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
	return 1
}

# perf_record_all FILE: perf record -a -g (cpu-clock, 1 s) of the whole machine while sym_target,
# started before the recording, runs (perf synthesizes its mappings). Samples inside the exec of
# sleep have user frames of perf's image: both name them by the mappings from before the exec.
# perf's stderr in $T_TMP/rec.err; returns perf's status.
perf_record_all() {
	local spin rc
	"$TARGET" spin 4 &
	spin=$!
	sleep 0.5
	perf_record -q -a -g -e cpu-clock -o "$1" -- sleep 1 >/dev/null 2>"$T_TMP/rec.err"
	rc=$?
	kill "$spin" 2>/dev/null
	wait "$spin" 2>/dev/null
	return $rc
}

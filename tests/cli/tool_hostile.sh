#!/usr/bin/env bash
# Every reading command of the tool over hostile and odd perf.data files (tests/data/reliability/,
# the perf.data and report_header fuzz seeds): each ends with its output or a clear error (exit 0
# or 1, an error's last line naming perfring), never a crash, a hang or a sanitizer report. make
# check runs this script with the ASan+UBSan build too (PERFRING_BUILD=build/asan, leaks
# detected), which is what finds a leak on an error path: the unit tests under valgrind do not
# run the tool. One check per command, over all the files.
source "$(dirname "$0")/lib.sh"

# Each file once (the seeds hold copies of some hostile files, the zstd bomb among them).
files=()
declare -A seen
for f in "$T_ROOT"/tests/data/reliability/* "$T_ROOT"/tests/fuzz/corpus/perfdata_mem/* \
	"$T_ROOT"/tests/fuzz/corpus/report_header/*; do
	[ -f "$f" ] || continue
	sum=$(cksum <"$f")
	[ -n "${seen[$sum]:-}" ] && continue
	seen[$sum]=1
	files+=("$f")
done
if [ ${#files[@]} -lt 20 ]; then
	fail tool_hostile_files "only ${#files[@]} files found under tests/data/reliability and tests/fuzz/corpus"
	t_finish
	exit 0
fi

# sweep NAME ARGS...: perfring ARGS -i FILE for every file.
sweep() {
	local name=$1 f rc bad=""
	shift
	for f in "${files[@]}"; do
		timeout 120 "$PERFRING" "$@" -i "$f" >/dev/null 2>"$T_TMP/err"
		rc=$?
		if [ "$rc" -gt 1 ] || grep -qE 'Sanitizer|runtime error' "$T_TMP/err" ||
			{ [ "$rc" -eq 1 ] && ! tail -n 1 "$T_TMP/err" | grep -q '^perfring'; }; then
			bad="$(basename "$f") (exit $rc): $(grep -m 1 -E 'ERROR|runtime error|^perfring' "$T_TMP/err" | head -c 200)"
			break
		fi
	done
	t_check "$name" "perfring $* -i $bad" [ -z "$bad" ]
}

sweep tool_hostile_report report
sweep tool_hostile_report_sym report --sort sym -g none
sweep tool_hostile_report_stats report --stats
sweep tool_hostile_header report --header-only
sweep tool_hostile_script script
sweep tool_hostile_script_dump script --dump
sweep tool_hostile_exports report --folded "$T_TMP/x.folded" --pprof "$T_TMP/x.pb.gz" --speedscope "$T_TMP/x.json"
t_finish

#!/usr/bin/env bash
# The hostile perf.data files of tests/data/reliability/ through the tool: each gives one clear
# error line naming the offset (or a bounded, correct reading), exit 1 for errors, in about a second
# and bounded memory (peak RSS from /usr/bin/time). Regression tests of reported faults: 4 GiB and
# 100 GiB payload claims on a pipe, id sections growing with the square of the file, a zstd bomb
# with no FINISHED_ROUND read in time order.
source "$(dirname "$0")/lib.sh"

R="$T_ROOT/tests/data/reliability"
# Peak RSS should measure what the reader holds, not ASan's quarantine of freed blocks (256 MiB).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
if [ ! -x /usr/bin/time ]; then
	skip perfdata_hostile "/usr/bin/time is missing (Debian package time; make deps installs it)"
	t_finish
	exit 0
fi

# hostile NAME HOW WANT-RC WANT-TEXT MAX-KB ARGS...: HOW is "pipe" (cat | perfring) or "file".
hostile() {
	local name=$1 how=$2 want_rc=$3 text=$4 max_kb=$5 file=$6
	shift 6
	if [ "$how" = pipe ]; then
		cat "$R/$file" | /usr/bin/time -f %M -o "$T_TMP/rss" timeout 60 "$PERFRING" "$@" -i - \
			>"$T_TMP/out" 2>"$T_TMP/err"
		T_RC=${PIPESTATUS[1]}
	else
		/usr/bin/time -f %M -o "$T_TMP/rss" timeout 60 "$PERFRING" "$@" -i "$R/$file" >"$T_TMP/out" 2>"$T_TMP/err"
		T_RC=$?
	fi
	local rss
	rss=$(tail -n 1 "$T_TMP/rss")
	if [ "$T_RC" -ne "$want_rc" ]; then
		fail "$name" "exit $T_RC, want $want_rc"
		t_show "$T_TMP/err"
	elif [ "$want_rc" -ne 0 ] && { [ "$(wc -l <"$T_TMP/err")" -ne 1 ] || ! grep -qF -- "$text" "$T_TMP/err" ||
		! grep -q 'at offset [0-9]' "$T_TMP/err"; }; then
		fail "$name" "stderr should be one line with '$text' and the offset"
		t_show "$T_TMP/err"
	elif [ "$want_rc" -eq 0 ] && ! grep -qF -- "$text" "$T_TMP/err"; then
		fail "$name" "stderr should say '$text'"
		t_show "$T_TMP/err"
	elif [ "$rss" -gt "$max_kb" ]; then
		fail "$name" "peak RSS $rss KB, bound $max_kb KB"
	else
		ok "$name"
	fi
}

hostile script_pipe_tracing_data_4g pipe 1 "a record of 4294967304 bytes" 65536 \
	pipe-tracing-data-4g-claim.pipe.data script --dump
hostile script_pipe_auxtrace_100g pipe 1 "a record of 107374182448 bytes" 65536 \
	stdin-auxtrace-100g-payload.pipe.data script --dump
hostile report_pipe_oom_fuzzer pipe 1 "larger than the" 65536 pipe-oom-fuzzer-found.pipe.data report --stats
hostile script_ids_shared_64k file 1 "the sections overlap" 65536 ids-shared-section-64k.data script --dump
hostile report_ids_shared_256k file 1 "the sections overlap" 65536 ids-shared-section-256k.data report --stats
# The bomb reads correctly (4 M samples) in bounded memory, in time order with a warning that
# ordering flushed early (no FINISHED_ROUND).
hostile script_zbomb_ordered file 0 "delivered before their round ended" 262144 zbomb-64MiB-in-5KB.data \
	script --dump --ordered
n=$(grep -c ' SAMPLE ' "$T_TMP/out")
t_check script_zbomb_ordered_all_samples "$n SAMPLE lines, want 4194304" [ "$n" -eq 4194304 ]
# One COMPRESSED record (64950 bytes) expanding to 600 MiB: read whole, in bounded pieces. It was
# expanded at once up to the 512 MiB cap (537 MB peak RSS) and refused; now 13 MB here. The bound
# is the others': far below what it expands to, room for a sanitizer build's allocator.
/usr/bin/time -f %M -o "$T_TMP/rss" timeout 60 "$PERFRING" script --dump \
	-i "$R/zbomb-one-record-600MiB.pipe.data" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
rss=$(tail -n 1 "$T_TMP/rss")
n=$(grep -c 'UNKNOWN type=99 .*from_compressed=1' "$T_TMP/out")
t_check script_zbomb_one_record "exit $rc, $n records of 9600, stderr: $(head -c 300 "$T_TMP/err")" \
	[ "$rc" -eq 0 -a "$n" -eq 9600 -a ! -s "$T_TMP/err" ]
t_check script_zbomb_one_record_rss "peak RSS $rss KB, bound 65536 KB" [ "$rss" -le 65536 ]
t_finish

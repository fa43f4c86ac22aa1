#!/usr/bin/env bash
# perfring profile, the continuous profiler:
# (a) three 1-second intervals of tests/helpers/prof_work: each pprof file
#     decodes with go tool pprof, its totals are the samples the log line
#     says were taken plus the lost ones, and the hottest function's share
#     of the three agrees with perf record + perf report on the same workload;
# (b) --max-dir-size keeps the newest files only;
# (c) the push to a local stand-in of Pyroscope's and Parca's ingest APIs
#     (tests/helpers/ingest_server.py checks method, path, query, content
#     type, body), retried through 500s, dropped and counted when the
#     endpoint refuses connections, while intervals keep closing on time;
# (d) --off-cpu: tests/helpers/offcpu_work's blocked time by function, within
#     5% of what it measured itself;
# (e) bad options: one line, exit 2; no privileges: one line, exit 1.
. "$(dirname "$0")/lib.sh"

t_require_tool
WORK="$PERFRING_BUILD/tests/helpers/prof_work"
OFFWORK="$PERFRING_BUILD/tests/helpers/offcpu_work"
SERVER="$T_ROOT/tests/helpers/ingest_server.py"
export HOME=$T_TMP # go tool pprof keeps its cache under $HOME

# ---- (e) command-line errors, first: they need nothing ----
t_usage_error usage_nowhere "nowhere to put the profiles" profile -d 1
t_usage_error usage_interval "bad interval '0'" profile -o "$T_TMP/x" -d 0
t_usage_error usage_dir_size "bad --max-dir-size '12Q'" profile -o "$T_TMP/x" --max-dir-size 12Q
t_usage_error usage_url "bad URL 'localhost:4040'" profile --pyroscope localhost:4040
t_usage_error usage_folded_alone "--folded and --max-dir-size go with -o DIR" profile --parca http://h --folded
t_usage_error usage_memory "bad --max-memory '1K'" profile -o "$T_TMP/x" --max-memory 1K
t_usage_error usage_unknown "unknown option '--bogus'" profile --bogus
t_usage_error usage_pid_and_cmd "give -p PIDS or -- CMD, not both" profile -o "$T_TMP/x" -p 1 -- true

if ! t_need_root; then
	skip profile_runs "needs root (perf events system-wide, BPF)"
	t_finish
fi
if command -v setpriv >/dev/null; then
	# a push URL, not a directory: $T_TMP is root's alone
	t_one_line_error unprivileged_system_wide "needs CAP_PERFMON" \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$PERFRING" profile --pyroscope http://127.0.0.1:9 -d 1
fi

have_pprof=1
command -v go >/dev/null || have_pprof=0
# pprof_total FILE [INDEX]: the total of FILE's samples (INDEX samples, the default) or values.
pprof_total() {
	go tool pprof -symbolize=none -top -sample_index="${2:-samples}" "$1" 2>/dev/null |
		sed -n 's/.*of \([0-9.]*\)[a-z]* total.*/\1/p' | head -n 1
}

# ---- (a) three intervals of a workload with a known hot function ----
D="$T_TMP/a"
t_run "$T_TMP/a.out" "$T_TMP/a.err" timeout 60 "$PERFRING" profile -F 999 -d 1 --count 3 -o "$D" --folded -- "$WORK" 30000
nfiles=$(ls "$D"/profile-*.pb.gz 2>/dev/null | wc -l)
t_check three_intervals "exit $T_RC, $nfiles pprof files, log: $(head -c 300 "$T_TMP/a.err")" \
	[ "$T_RC" -eq 0 -a "$nfiles" -eq 3 -a "$(grep -c ': interval [0-9]' "$T_TMP/a.err")" -eq 3 ]
if [ $have_pprof = 0 ]; then
	skip pprof_decodes "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
else
	bad=
	while read -r _ _ _ _ stamp taken _ lost _; do
		f="$D/profile-${stamp%:}.pb.gz"
		total=$(pprof_total "$f")
		[ "$total" = $((taken + lost)) ] || bad="$bad ${stamp%:}: pprof $total, log $taken taken + $lost lost;"
	done < <(grep ': interval [0-9]' "$T_TMP/a.err" | sed 's/;//g; s/missing://')
	t_check pprof_totals_are_taken_plus_lost "${bad:-}" [ -z "$bad" ]
	go tool pprof -symbolize=none -top -nodecount=5 -sample_index=samples "$D"/profile-*.pb.gz >"$T_TMP/a.top" 2>/dev/null
	ours_top=$(awk '$2 ~ /%$/ && $1 ~ /^[0-9]/ { print $6; exit }' "$T_TMP/a.top")
	ours_pct=$(awk '$6 == "work_leaf_a" { sub("%", "", $2); print $2; exit }' "$T_TMP/a.top")
	if command -v perf >/dev/null; then
		perf record -q -F 999 -g -o "$T_TMP/perf.data" -- "$WORK" 3000 >/dev/null 2>&1
		perf report -i "$T_TMP/perf.data" --stdio --no-children -s sym 2>/dev/null >"$T_TMP/perf.rep"
		perf_pct=$(awk '/work_leaf_a$/ && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$T_TMP/perf.rep")
		# prof_work's split is fixed by instruction counts: the shares differ by sampling noise,
		# about 1.5 points for ~1000 samples each; 5 points is over 2 sigma of the difference.
		t_check top_function_is_perfs "ours: $ours_top $ours_pct%, perf: work_leaf_a $perf_pct%" \
			awk -v a="${ours_pct:-0}" -v b="${perf_pct:-999}" -v t="$ours_top" \
			'BEGIN { d = a - b; if (d < 0) d = -d; exit !(t == "work_leaf_a" && d <= 5) }'
		echo "     work_leaf_a: perfring profile $ours_pct%, perf report $perf_pct%"
	else
		skip top_function_is_perfs "perf (linux-perf) is not installed"
	fi
fi
t_check folded_has_workload_stack "no main;work_loop;work_mid;work_leaf_a line" \
	grep -q 'main;work_loop;work_mid;work_leaf_a ' "$D"/profile-*.folded

# ---- (b) the directory's bound ----
D="$T_TMP/b"
t_run "$T_TMP/b.out" "$T_TMP/b.err" timeout 60 "$PERFRING" profile -F 999 -d 0.2 --count 15 -o "$D" --max-dir-size 4K -- "$WORK" 30000
written=$(grep -c ': interval [0-9]' "$T_TMP/b.err")
kept=$(ls "$D" | grep -c '^profile-')
size=$(du -cb "$D"/profile-* | tail -n 1 | cut -f1)
newest=$(grep ': interval [0-9]' "$T_TMP/b.err" | awk '{ print $5 }' | tr -d ':' | tail -n "$kept" | sed 's/^/profile-/; s/$/.pb.gz/' | tr '\n' ' ')
have=$(ls "$D" | grep '^profile-' | sort | tr '\n' ' ')
t_check dir_bound_keeps_newest "exit $T_RC, $written written, $kept kept ($size bytes): have '$have' want '$newest'" \
	[ "$T_RC" -eq 0 -a "$written" -eq 15 -a "$kept" -lt 15 -a "$size" -le 4096 -a "$have" = "$newest" ]

# ---- (c) the push ----
# server_start NAME [ARGS]: a stand-in endpoint in $T_TMP/NAME; sets SPID and URL.
server_start() {
	mkdir -p "$T_TMP/$1"
	python3 "$SERVER" "$T_TMP/$1/port" "$T_TMP/$1" "${@:2}" &
	SPID=$!
	for _ in $(seq 50); do [ -s "$T_TMP/$1/port" ] && break; sleep 0.1; done
	URL="http://127.0.0.1:$(cat "$T_TMP/$1/port")"
}
server_start c_ok
t_run "$T_TMP/c.out" "$T_TMP/c.err" timeout 60 "$PERFRING" profile -F 999 -d 1 --count 2 --pyroscope "$URL" --parca "$URL" -- "$WORK" 30000
kill $SPID; wait $SPID 2>/dev/null
t_check push_accepted "exit $T_RC, requests: $(tr '\n' '|' <"$T_TMP/c_ok/requests.log" 2>/dev/null)" \
	[ "$T_RC" -eq 0 -a "$(grep -c '^OK pyroscope' "$T_TMP/c_ok/requests.log")" -eq 2 \
	-a "$(grep -c '^OK parca' "$T_TMP/c_ok/requests.log")" -eq 2 -a "$(grep -vc '^OK' "$T_TMP/c_ok/requests.log")" -eq 0 ]
if [ $have_pprof = 1 ]; then
	bad=
	for f in "$T_TMP"/c_ok/*.pb.gz; do
		go tool pprof -symbolize=none -top "$f" 2>/dev/null | grep -q work_leaf_a || bad="$bad $(basename "$f")"
	done
	t_check pushed_pprof_decodes "no work_leaf_a in:$bad" [ -z "$bad" ]
fi
grep -q 'push: 4 sent, 0 retried, 0 dropped' "$T_TMP/c.err"
t_check push_summary "$(tail -n 1 "$T_TMP/c.err")" [ $? -eq 0 ]

# 500s, then success: retried, nothing dropped
server_start c_fail --fail 3
t_run "$T_TMP/c2.out" "$T_TMP/c2.err" timeout 60 "$PERFRING" profile -d 1 --count 2 --push-retries 5 --pyroscope "$URL" -- "$WORK" 30000
kill $SPID; wait $SPID 2>/dev/null
t_check push_retried_through_500 "$(tail -n 1 "$T_TMP/c2.err"), requests: $(tr '\n' '|' <"$T_TMP/c_fail/requests.log")" \
	grep -q 'push: 2 sent, 3 retried, 0 dropped' "$T_TMP/c2.err"

# a refusing endpoint (the server gone): retried, dropped, counted; intervals close on time
t_run "$T_TMP/c3.out" "$T_TMP/c3.err" timeout 60 "$PERFRING" profile -d 0.5 --count 6 -o "$T_TMP/c3" \
	--push-retries 1 --push-queue 2 --pyroscope "$URL" -- "$WORK" 30000
t_check push_refused_dropped "$(tail -n 1 "$T_TMP/c3.err")" \
	grep -qE 'push: 0 sent, [1-9][0-9]* retried, 6 dropped' "$T_TMP/c3.err"
# intervals_on_time NAME ERRFILE N: the N interval lines' stamps are 0.5 s apart on the
# whole: each within 0.4 s of first + k * 0.5 (intervals are aligned on the start; one
# closed late by a loaded machine does not move the next)
intervals_on_time() {
	local lag
	lag=$(grep ': interval [0-9]' "$2" | awk '{ s = $5; sub(/Z:$/, "", s); t = substr(s, 10, 2) * 3600 + substr(s, 12, 2) * 60 + substr(s, 14)
		if (NR == 1) f = t; printf "%.3f ", t - f - (NR - 1) * 0.5 }')
	t_check "$1" "lag of each interval behind schedule (s): $lag" \
		awk -v g="$lag" -v n="$3" 'BEGIN { k = split(g, a, " "); if (k != n) exit 1; for (i = 1; i <= k; i++) if (a[i] < -0.4 || a[i] > 0.4) exit 1 }'
}
intervals_on_time intervals_on_time_while_push_refused "$T_TMP/c3.err" 6

# a hung endpoint (never answers): requests time out in the push thread, intervals close on time
server_start c_hang --hang
t_run "$T_TMP/c4.out" "$T_TMP/c4.err" timeout 60 "$PERFRING" profile -d 0.5 --count 6 -o "$T_TMP/c4" \
	--push-retries 0 --push-queue 2 --push-timeout 2 --pyroscope "$URL" -- "$WORK" 30000
kill $SPID; wait $SPID 2>/dev/null
intervals_on_time intervals_on_time_while_push_hangs "$T_TMP/c4.err" 6
t_check push_hung_dropped "$(tail -n 1 "$T_TMP/c4.err")" \
	grep -qE 'push: 0 sent, 0 retried, 6 dropped \([1-9]' "$T_TMP/c4.err"

# ---- (d) off-CPU ----
D="$T_TMP/d"
t_run "$T_TMP/d.out" "$T_TMP/d.err" timeout 60 "$PERFRING" profile -d 30 --off-cpu -o "$D" --folded -- "$OFFWORK" 5
if [ "$T_RC" -ne 0 ] && grep -q 'cannot load\|cannot attach' "$T_TMP/d.err"; then
	skip offcpu "$(head -n 1 "$T_TMP/d.err")"
else
	bad=
	for fn in block_sleep block_pipe block_futex; do
		measured=$(awk -v f="$fn" '$1 == f { print $2 }' "$T_TMP/d.out")
		profiled=$(grep "main;$fn;" "$D"/*.off-cpu.folded | awk '{ s += $NF } END { printf "%.3f", s / 1e6 }')
		echo "     $fn: measured $measured ms, profiled $profiled ms"
		awk -v m="${measured:-0}" -v p="$profiled" 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(m > 0 && d <= m * 0.05) }' ||
			bad="$bad $fn: measured $measured ms, profiled $profiled ms;"
	done
	t_check offcpu_blocked_time_by_function "${bad:-}" [ -z "$bad" ]
	if [ $have_pprof = 1 ]; then
		f=$(ls "$D"/profile-*.pb.gz | head -n 1)
		go tool pprof -symbolize=none -raw "$f" 2>/dev/null | grep -q 'off-cpu/nanoseconds'
		t_check offcpu_sample_type "no off-cpu/nanoseconds sample type in $f" [ $? -eq 0 ]
	fi
fi

t_finish

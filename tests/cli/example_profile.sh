#!/usr/bin/env bash
# examples/profile (a CPU profiler on the public API: perf events, perfring
# reader, perfring_stacks, perfring_profile) against perf record -g + perf report on the same
# workload: tests/helpers/prof_work (frame pointers; work_leaf_a about 3/4 of
# its CPU, work_leaf_b 1/4, read_zero under read()), 3 s at 2999 Hz each.
# - the folded stacks hold the workload's whole chain, main to work_leaf_a;
# - the functions perf report --no-children --sort sym shows over 5% have
#   the same self share (their samples as a stack's leaf) within
#   PROFILE_SHARE_DIFF (6) points: two runs of one workload, some 1,100 to
#   1,300 samples each (the workload sleeps between its loops): a 66% share's
#   sampling error is 1.4 points, the difference of two runs' 1.9, and 6 is
#   three of those; three runs here differed by 4.2, 2.8 and 2.8 at most;
# - the hottest function is work_leaf_a in both;
# - the pprof file (-P, written from the same perfring_profile) is what go
#   tool pprof -top reads: the same number of samples as the folded stacks,
#   and the same top function by flat samples;
# - a bad option is a usage error (exit 2).
. "$(dirname "$0")/lib.sh"

PROF="$PERFRING_BUILD/examples/profile"
WORK="$PERFRING_BUILD/tests/helpers/prof_work"
DIFF=${PROFILE_SHARE_DIFF:-6}
t_require_perf example_profile
for f in "$PROF" "$WORK"; do
	if [ ! -x "$f" ]; then
		fail example_profile_built "$f does not exist (make O=$PERFRING_BUILD)"
		t_finish
		exit 1
	fi
done
if ! t_need_root && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ]; then
	skip example_profile "needs root or perf_event_paranoid <= 0 to sample call chains"
	t_finish
	exit $?
fi

t_run "$T_TMP/usage.out" "$T_TMP/usage.err" "$PROF" -x
t_check profile_usage "profile -x: exit $T_RC, not 2 with a usage line" \
	bash -c "[ $T_RC -eq 2 ] && grep -c '^usage:' '$T_TMP/usage.err' >/dev/null"

t_run "$T_TMP/prof.out" "$T_TMP/prof.err" "$PROF" -F 2999 -d 30 -o "$T_TMP/p.folded" -P "$T_TMP/p.pb.gz" -- "$WORK" 3000
t_check profile_runs "profile exit $T_RC: $(tail -n 1 "$T_TMP/prof.err")" [ "$T_RC" -eq 0 ]
t_check profile_workload_stack "no main;work_loop;work_mid;work_leaf_a stack in the folded output" \
	bash -c "grep -cE '(^|;)main;work_loop;work_mid;work_leaf_a [0-9]+$' '$T_TMP/p.folded' >/dev/null"

perf record -q -F 2999 -e cpu-clock -g -o "$T_TMP/perf.data" -- "$WORK" 3000 >/dev/null 2>"$T_TMP/rec.err"
perf report -i "$T_TMP/perf.data" --stdio --no-children --sort sym 2>/dev/null |
	awk '$1 ~ /%$/ && $2 ~ /^\[/ { sub(/%/, "", $1); print $3, $1 }' >"$T_TMP/perf.shares"
# ours: each stack's count to its leaf function, in percent of all samples
awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n; t += n }
	END { for (x in s) printf "%s %.2f\n", x, 100 * s[x] / t }' "$T_TMP/p.folded" | sort >"$T_TMP/our.shares"
echo "perf report (self %):    $(sort -k2 -nr "$T_TMP/perf.shares" | head -n 4 | tr '\n' ' ')"
echo "examples/profile (leaf %): $(sort -k2 -nr "$T_TMP/our.shares" | head -n 4 | tr '\n' ' ') ($(tail -n 1 "$T_TMP/prof.err"))"

top_perf=$(sort -k2 -nr "$T_TMP/perf.shares" | awk 'NR == 1 { print $1 }')
top_ours=$(sort -k2 -nr "$T_TMP/our.shares" | awk 'NR == 1 { print $1 }')
t_check profile_top_function "hottest: perf '$top_perf', profile '$top_ours' (work_leaf_a expected)" \
	bash -c "[ '$top_perf' = work_leaf_a ] && [ '$top_ours' = work_leaf_a ]"
if ! command -v go >/dev/null; then
	skip profile_pprof "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
else
	HOME=$T_TMP go tool pprof -symbolize=none -top -nodecount=5 -sample_index=samples "$T_TMP/p.pb.gz" \
		>"$T_TMP/pprof.top" 2>"$T_TMP/pprof.err"
	# "Showing nodes accounting for N, P% of TOTAL total", then flat flat% sum% cum cum% name
	pp_total=$(sed -n 's/.* of \([0-9]*\) total$/\1/p' "$T_TMP/pprof.top")
	pp_top=$(awk '$1 ~ /^[0-9]/ && $2 ~ /%$/ && $5 ~ /%$/ { print $6; exit }' "$T_TMP/pprof.top")
	folded_total=$(awk '{ t += $NF } END { print t + 0 }' "$T_TMP/p.folded")
	echo "pprof -top: $(sed -n '/flat%/{n;p;}' "$T_TMP/pprof.top"), $pp_total samples (folded: $folded_total)"
	t_check profile_pprof_samples "pprof total '$pp_total' samples, folded $folded_total: $(head -n 1 "$T_TMP/pprof.err")" \
		[ "$pp_total" = "$folded_total" ]
	t_check profile_pprof_top "pprof's top function '$pp_top', the folded stacks' '$top_ours'" \
		[ "$pp_top" = "$top_ours" ]
fi
worst=$(awk 'NR == FNR { ours[$1] = $2; next } $2 >= 5 {
		d = ours[$1] - $2; if (d < 0) d = -d; printf "%s %.2f %.2f %.2f\n", $1, $2, ours[$1] + 0, d }' \
	"$T_TMP/our.shares" "$T_TMP/perf.shares" | sort -k4 -nr)
echo "$worst" | sed 's/^/     | perf ours diff: /'
t_check profile_shares_as_perf "a function's share differs by more than $DIFF points: $(echo "$worst" | head -n 1)" \
	bash -c "[ -n '$worst' ] && echo '$worst' | awk '\$4 > $DIFF { bad = 1 } END { exit bad }'"
t_finish

#!/usr/bin/env bash
# The exports on a file recorded at test time (perf record -g of
# tests/helpers/prof_work, a workload with known call chains), against perf
# itself and the outside readers of each format:
# - folded: the counts sum to the file's samples (perf script) and periods
#   (perf report's event count); per leaf function, the samples equal perf
#   report's self samples (--no-children --sort sym), every named symbol;
# - pprof: go tool pprof reads it; -top's flat samples per function equal
#   perf report's, its flat percentages (by period) agree with perf report's
#   self overhead within rounding; the workload's mapping carries its build id
#   (readelf -n);
# - speedscope: the format's fields and speedscope's schema
#   (tests/helpers/speedscope_check.py), the weights sum to the periods, and
#   speedscope's viewer in headless chromium shows the functions
#   (tests/cli/export_speedscope.sh);
# - a file perfring record wrote: folded sums to perf script's samples, the workload's stack;
# - two events: a sample type pair each, each event's total period as perf report's;
# - perfring report's self percentages (--no-children --sort sym) agree with
#   go tool pprof -top's within rounding;
# - bad or empty files give a one-line error.
# The exporter: perfring report --folded/--pprof/--speedscope when the tool has
# them, else tests/helpers/export_driver (perf.data -> profile -> export with
# the library's reader and symbol layer).
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

DRIVER="$PERFRING_BUILD/tests/helpers/export_driver"
WORK="$PERFRING_BUILD/tests/helpers/prof_work"
export_need export "$DRIVER" "$WORK"

# export_cmd FORMAT FILE OUT sets CMD, the command that writes FILE's export to OUT; FORMAT is
# folded (by samples), folded-period, pprof or speedscope. export_to runs it (its standard
# output, perfring report's table, is not looked at).
# (the help read whole first: grep -q at a pipeline's end can leave perfring a SIGPIPE that
# pipefail makes the pipeline's failure; lib.sh)
if [ -x "$PERFRING" ] && grep -q -- '--pprof' <<<"$("$PERFRING" report --help 2>&1)"; then
	HAVE_REPORT=1
	echo "exporter: $PERFRING report"
	export_cmd() {
		case $1 in
		folded) CMD=("$PERFRING" report -i "$2" --folded "$3") ;;
		folded-period) CMD=("$PERFRING" report -i "$2" --folded "$3" --by-period) ;;
		*) CMD=("$PERFRING" report -i "$2" "--$1" "$3") ;;
		esac
	}
else
	HAVE_REPORT=0
	echo "exporter: $DRIVER (perfring report has no --pprof in this build)"
	export_cmd() { CMD=("$DRIVER" "$2" "$1" "$3"); }
fi
export_to() { export_cmd "$@" && "${CMD[@]}" >/dev/null; }

data="$T_TMP/work.data"
export_record export "$data" -g -F 999 "$WORK" 400

# perf's view: samples, total period, self samples and overhead per symbol.
nsamples=$(perf script -i "$data" -F time 2>/dev/null | grep -c .)
total_period=$(perf report -i "$data" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | head -n 1)
perf report -i "$data" --stdio --no-children -n --sort sym -g none 2>/dev/null |
	awk '$1 ~ /%$/ && $3 ~ /^\[.\]$/ { name = $4; for (i = 5; i <= NF; i++) name = name " " $i;
					  sub(/%$/, "", $1); print $2 "\t" $1 "\t" name }' >"$T_TMP/perf.self"
if [ "$nsamples" -lt 100 ] || [ ! -s "$T_TMP/perf.self" ]; then
	fail perf_report "the recording has $nsamples samples / perf report shows no symbol"
	t_show "$T_TMP/record.out"
	t_finish
	exit 1
fi
echo "recorded $nsamples samples, period $total_period; perf report --no-children --sort sym:"
sed 's/^/    /' "$T_TMP/perf.self" | head -n 12

# The named symbols perf gives (not addresses), with their self samples.
awk -F'\t' '$3 !~ /^0x[0-9a-f]+$/' "$T_TMP/perf.self" >"$T_TMP/perf.named"

# ---- folded ----
if export_to folded "$data" "$T_TMP/f.folded" 2>"$T_TMP/f.err"; then
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/f.folded")
	t_check folded_sum_is_samples "folded sums to $sum, perf script has $nsamples samples" [ "$sum" -eq "$nsamples" ]
	# Self samples per leaf (the last frame) against perf report's, every named symbol.
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
	     END { for (x in s) print x "\t" s[x] }' "$T_TMP/f.folded" >"$T_TMP/f.leaf"
	bad=$(awk -F'\t' 'NR == FNR { ours[$1] = $2; next }
			  { name = $3; sub(/\(.*/, "", name); if (ours[name] + 0 != $1 + 0) print name ": perf " $1 ", folded " ours[name] + 0 }' \
		"$T_TMP/f.leaf" "$T_TMP/perf.named")
	t_check folded_leaves_are_perf_self "${bad:-}" [ -z "$bad" ]
	t_check folded_workload_stack "no prof_work;...;main;work_loop;work_mid;work_leaf_a line" \
		grep -qE '^prof_work;(.*;)?main;work_loop;work_mid;work_leaf_a [0-9]+$' "$T_TMP/f.folded"
else
	fail folded "export failed: $(head -n 1 "$T_TMP/f.err")"
fi
# To standard output ('-'): the folded lines alone, no report table beside them.
if "$PERFRING" report -i "$data" --folded - >"$T_TMP/stdout.folded" 2>"$T_TMP/stdout.err"; then
	t_check folded_stdout_alone "other lines on stdout: $(grep -vE '^.+ [0-9]+$' "$T_TMP/stdout.folded" | head -n 2 | tr '\n' '/')" \
		bash -c "[ -s '$T_TMP/stdout.folded' ] && ! grep -qvE '^.+ [0-9]+\$' '$T_TMP/stdout.folded'"
else
	fail folded_stdout_alone "perfring report --folded - failed: $(head -n 1 "$T_TMP/stdout.err")"
fi
if export_to folded-period "$data" "$T_TMP/p.folded" 2>"$T_TMP/p.err"; then
	sum=$(awk '{ s += $NF } END { printf "%d", s }' "$T_TMP/p.folded")
	t_check folded_period_sum "folded by period sums to $sum, perf report's event count is $total_period" \
		[ "$sum" = "$total_period" ]
else
	fail folded_period "export failed: $(head -n 1 "$T_TMP/p.err")"
fi

# ---- pprof ----
if ! command -v go >/dev/null; then
	skip pprof "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
elif export_to pprof "$data" "$T_TMP/w.pb.gz" 2>"$T_TMP/pp.err"; then
	pprof() { HOME=$T_TMP go tool pprof -symbolize=none "$@" "$T_TMP/w.pb.gz" 2>"$T_TMP/pprof.err"; }
	pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index=samples >"$T_TMP/top.samples"
	pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 >"$T_TMP/top.period"
	sed 's/^/    /' "$T_TMP/top.period" | head -n 12
	# pprof -top lines: flat flat% sum% cum cum% name...
	top_table() { awk '$2 ~ /%$/ && $3 ~ /%$/ && $5 ~ /%$/ { name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
								  print name "\t" $1 "\t" $2 }' "$1"; }
	top_table "$T_TMP/top.samples" >"$T_TMP/pp.samples"
	top_table "$T_TMP/top.period" >"$T_TMP/pp.period"
	bad=$(awk -F'\t' 'NR == FNR { ours[$1] = $2; next }
			  { if (ours[$3] + 0 != $1 + 0) print $3 ": perf " $1 ", pprof " ours[$3] + 0 }' \
		"$T_TMP/pp.samples" "$T_TMP/perf.named")
	t_check pprof_flat_samples_are_perf_self "${bad:-}" [ -z "$bad" ]
	# Self percentages by period, as perf report prints them (2 decimals): within rounding.
	bad=$(awk -F'\t' 'NR == FNR { p = $3; sub(/%$/, "", p); ours[$1] = p; next }
			  { d = ours[$3] - $2; if (d < 0) d = -d; if (!($3 in ours) || d > 0.011) print $3 ": perf " $2 "%, pprof " ours[$3] "%" }' \
		"$T_TMP/pp.period" "$T_TMP/perf.named")
	t_check pprof_self_percent_is_perf "${bad:-}" [ -z "$bad" ]
	# perfring report's own self percentages, every named entry, against pprof's flat ones.
	if [ "$HAVE_REPORT" = 1 ]; then
		"$PERFRING" report -i "$data" --no-children -s sym >"$T_TMP/report.txt" 2>"$T_TMP/report.err"
		awk '$1 ~ /%$/ && $2 ~ /^\[.\]$/ { name = $3; for (i = 4; i <= NF; i++) name = name " " $i;
						    sub(/%$/, "", $1); print $1 "\t" name }' "$T_TMP/report.txt" |
			awk -F'\t' '$2 !~ /^0x[0-9a-f]+$/' >"$T_TMP/report.self"
		bad=$(awk -F'\t' 'NR == FNR { p = $3; sub(/%$/, "", p); ours[$1] = p; next }
				  { d = ours[$2] - $1; if (d < 0) d = -d; if (!($2 in ours) || d > 0.011) print $2 ": report " $1 "%, pprof " ours[$2] "%" }' \
			"$T_TMP/pp.period" "$T_TMP/report.self")
		if [ ! -s "$T_TMP/report.self" ]; then
			fail pprof_top_is_perfring_report "perfring report --no-children -s sym printed no entry: $(head -n 1 "$T_TMP/report.err")"
		else
			t_check pprof_top_is_perfring_report "${bad:-}" [ -z "$bad" ]
		fi
	fi
	# The workload's mapping and its build id (readelf -n).
	bid=$(readelf -n "$WORK" | sed -n 's/.*Build ID: //p')
	pprof -raw >"$T_TMP/raw"
	t_check pprof_mapping_build_id "no mapping of $WORK with build id $bid in pprof -raw" \
		grep -qF " $WORK $bid " "$T_TMP/raw"
else
	fail pprof "export failed: $(head -n 1 "$T_TMP/pp.err")"
fi

# ---- speedscope ----
if export_to speedscope "$data" "$T_TMP/w.json" 2>"$T_TMP/ss.err"; then
	schema="$PERFRING_BUILD/speedscope/node_modules/speedscope/dist/release/file-format-schema.json"
	[ -f "$schema" ] || schema=
	if python3 "$T_ROOT/tests/helpers/speedscope_check.py" "$T_TMP/w.json" $schema >"$T_TMP/ss.txt" 2>&1; then
		sum=$(awk -F'\t' '$1 == "profile" { s += $5 } END { printf "%d", s }' "$T_TMP/ss.txt")
		t_check speedscope_weights "weights sum to $sum, perf report's event count is $total_period" \
			[ "$sum" = "$total_period" ]
	else
		fail speedscope_format "$(head -n 1 "$T_TMP/ss.txt")"
	fi
	export_viewer speedscope_viewer "$T_TMP/w.json" $'work_leaf_a\nwork_leaf_b\nwork_mid\nwork_loop\nmain' show
else
	fail speedscope "export failed: $(head -n 1 "$T_TMP/ss.err")"
fi

# ---- Firefox Profiler ----
# Loaded by the profiler's own code; its first thread is the workload's, and each function's
# self weight (ms) is perf report's period (ns) of that symbol in that thread.
if export_to firefox "$data" "$T_TMP/w.ff.json" 2>"$T_TMP/ff.err"; then
	export_firefox_functions firefox_profiler "$T_TMP/w.ff.json" "$T_TMP/ff.fn.json"
	if [ -s "$T_TMP/ff.fn.json" ]; then
		tid=$(perf script -i "$data" -F comm,tid 2>/dev/null | awk '$1 == "prof_work" { print $2; exit }')
		perf report -i "$data" --stdio --no-children --sort sym --tid "$tid" -F period,sym -g none 2>/dev/null |
			awk '$1 ~ /^[0-9]+$/ && $2 ~ /^\[.\]$/ { n = $3; for (i = 4; i <= NF; i++) n = n " " $i; print $1 "\t" n }' \
			>"$T_TMP/ff.perf"
		python3 "$T_ROOT/tests/helpers/firefox_vs_perf.py" "$T_TMP/ff.fn.json" "$T_TMP/ff.perf" prof_work \
			work_leaf_a work_leaf_b >"$T_TMP/ff.cmp" 2>&1
		rc=$?
		t_check firefox_self_as_perf "$(tail -n 1 "$T_TMP/ff.cmp")" [ "$rc" -eq 0 ]
		head -n 1 "$T_TMP/ff.cmp" | sed 's/^/    /'
	fi
else
	fail firefox "export failed: $(head -n 1 "$T_TMP/ff.err")"
fi

# ---- two events: a sample type pair each, totals as perf's ----
if command -v go >/dev/null && perf record -q -g -e cpu-clock -e task-clock -F 999 -o "$T_TMP/two.data" "$WORK" 300 \
	>"$T_TMP/two.out" 2>&1 && export_to pprof "$T_TMP/two.data" "$T_TMP/two.pb.gz" 2>"$T_TMP/two.err"; then
	HOME=$T_TMP go tool pprof -raw -symbolize=none "$T_TMP/two.pb.gz" >"$T_TMP/two.raw" 2>&1
	t_check pprof_two_events_sample_types "$(sed -n '5p' "$T_TMP/two.raw")" grep -qx \
		'cpu-clock-samples/count cpu-clock/nanoseconds\[dflt\] task-clock-samples/count task-clock/nanoseconds' "$T_TMP/two.raw"
	perf report -i "$T_TMP/two.data" --stdio 2>/dev/null | awk '/^# Samples: .* of event/ { e = $NF; gsub(/\047/, "", e) }
		/^# Event count/ { print e, $NF }' >"$T_TMP/two.perf"
	bad=
	[ "$(wc -l <"$T_TMP/two.perf")" -eq 2 ] || bad="perf report shows $(wc -l <"$T_TMP/two.perf") events, not 2;"
	while read -r ev count; do
		got=$(HOME=$T_TMP go tool pprof -top -symbolize=none -sample_index="$ev" -unit=ns "$T_TMP/two.pb.gz" 2>/dev/null |
			sed -n 's/.*Total samples = \([0-9]*\)ns.*/\1/p')
		[ "$got" = "$count" ] || bad="$bad $ev: perf $count, pprof ${got:-none};"
	done <"$T_TMP/two.perf"
	t_check pprof_two_events_totals "${bad:-}" [ -z "$bad" ]
else
	skip pprof_two_events "go, perf record -e cpu-clock -e task-clock or the export failed: $(head -n 1 "$T_TMP/two.err" 2>/dev/null)"
fi

# ---- a file perfring record wrote: the same checks of sums and leaves against perf ----
if [ -x "$PERFRING" ] && "$PERFRING" record -g -o "$T_TMP/pr.data" -- "$WORK" 300 >"$T_TMP/pr.out" 2>&1 &&
	export_to folded "$T_TMP/pr.data" "$T_TMP/pr.folded" 2>"$T_TMP/pr.err"; then
	n=$(perf script -i "$T_TMP/pr.data" -F time 2>/dev/null | grep -c .)
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/pr.folded")
	t_check perfring_record_folded_sum "folded sums to $sum, perf script has $n samples" test "$n" -gt 0 -a "$sum" -eq "$n"
	t_check perfring_record_folded_stack "no prof_work;...;work_mid;work_leaf_a line" \
		grep -qE '^prof_work;(.*;)?main;work_loop;work_mid;work_leaf_a [0-9]+$' "$T_TMP/pr.folded"
else
	skip perfring_record "perfring record -g or its export failed: $(head -n 1 "$T_TMP/pr.out") $(head -n 1 "$T_TMP/pr.err" 2>/dev/null)"
fi

# ---- bad input ----
: >"$T_TMP/empty.data"
head -c 4096 /dev/urandom >"$T_TMP/random.data"
head -c 2000 "$data" >"$T_TMP/truncated.data"
for fmt in folded pprof speedscope firefox; do
	export_cmd "$fmt" "$T_TMP/empty.data" "$T_TMP/out"
	t_one_line_error "empty_file_$fmt" "empty.data" "${CMD[@]}"
	export_cmd "$fmt" "$T_TMP/random.data" "$T_TMP/out"
	t_one_line_error "random_file_$fmt" "random.data" "${CMD[@]}"
done
export_cmd pprof "$T_TMP/truncated.data" "$T_TMP/out"
t_one_line_error truncated_file "truncated.data" "${CMD[@]}"
export_cmd folded "$T_TMP/nope.data" "$T_TMP/out"
t_one_line_error missing_file "nope.data" "${CMD[@]}"
t_finish

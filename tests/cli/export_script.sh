#!/usr/bin/env bash
# perfring script's exports (--folded, --pprof, --speedscope: report's options,
# every sample of the file) and pprof's time and sampling fields, on files
# recorded at test time by perf record -g of tests/helpers/prof_work:
# - folded: per stack, the samples perf script shows with that stack
#   (collapsed by tests/helpers/perf_collapse.awk, stackcollapse-perf's
#   naming), so the counts sum to the samples; the same bytes as report's
#   --folded (and --by-period);
# - pprof: go tool pprof -top of script's profile is that of report's (whose
#   -top tests/cli/export.sh checks against report's table and perf report);
# - speedscope: the format's check (tests/helpers/speedscope_check.py), the
#   same as report's, and speedscope's viewer shows the functions;
# - an export to '-' is all of standard output; without one script's listing
#   is unchanged; the options that do not go together are usage errors;
# - pprof Time: with perf record -k monotonic (HEADER_CLOCK_DATA) the first
#   sample's wall-clock time as perf script -F tod prints it, to the
#   nanosecond; without, from the file's modification time (the recording's
#   end); from a pipe, its time on perf's clock (perf script -F time) and a
#   comment says so; Duration: last - first sample; PeriodType/Period: the
#   event and its fixed period (-c), a frequency in a comment.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

WORK="$PERFRING_BUILD/tests/helpers/prof_work"
COLLAPSE="$T_ROOT/tests/helpers/perf_collapse.awk"
export_need export_script "$PERFRING" "$WORK"
data="$T_TMP/work.data"
export_record export_script "$data" -g -F 999 "$WORK" 300
nsamples=$(perf script -i "$data" -F time 2>/dev/null | grep -c .)
echo "recorded $nsamples samples"

# ---- folded ----
perf script -i "$data" 2>/dev/null | awk -f "$COLLAPSE" | sort >"$T_TMP/perf.folded"
if "$PERFRING" script -i "$data" --folded "$T_TMP/s.folded" >"$T_TMP/s.listing" 2>"$T_TMP/s.err"; then
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/s.folded")
	t_check script_folded_sum_is_samples "folded sums to $sum, perf script has $nsamples samples" \
		[ "$sum" -eq "$nsamples" -a "$nsamples" -gt 100 ]
	sort "$T_TMP/s.folded" >"$T_TMP/s.sorted"
	t_check script_folded_stacks_are_perf_script "stacks that differ (< perf, > script): $(diff "$T_TMP/perf.folded" "$T_TMP/s.sorted" | grep '^[<>]' | head -n 3 | tr '\n' '|')" \
		cmp -s "$T_TMP/perf.folded" "$T_TMP/s.sorted"
	"$PERFRING" report -i "$data" --folded "$T_TMP/r.folded" >/dev/null 2>&1
	t_check script_folded_is_report_folded "$(diff "$T_TMP/r.folded" "$T_TMP/s.folded" | head -n 3 | tr '\n' '|')" \
		cmp -s "$T_TMP/r.folded" "$T_TMP/s.folded"
	"$PERFRING" script -i "$data" >"$T_TMP/plain.listing" 2>/dev/null
	t_check script_listing_unchanged "script --folded FILE printed another listing than script" \
		cmp -s "$T_TMP/plain.listing" "$T_TMP/s.listing"
else
	fail script_folded "perfring script --folded failed: $(head -n 1 "$T_TMP/s.err")"
fi
"$PERFRING" script -i "$data" --folded - --by-period >"$T_TMP/sp.folded" 2>/dev/null
"$PERFRING" report -i "$data" --folded - --by-period >"$T_TMP/rp.folded" 2>/dev/null
t_check script_folded_by_period_is_report "script and report --folded - --by-period differ" \
	bash -c "[ -s '$T_TMP/sp.folded' ] && cmp -s '$T_TMP/sp.folded' '$T_TMP/rp.folded'"
t_check script_folded_stdout_alone "script --folded - printed other lines: $(grep -vE '^.+ [0-9]+$' "$T_TMP/sp.folded" | head -n 2 | tr '\n' '|')" \
	bash -c "! grep -qvE '^.+ [0-9]+\$' '$T_TMP/sp.folded'"

# ---- pprof ----
pprof() { HOME=$T_TMP go tool pprof -symbolize=none "$@" 2>>"$T_TMP/pprof.err"; }
if ! command -v go >/dev/null; then
	skip script_pprof "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
elif "$PERFRING" script -i "$data" --pprof "$T_TMP/s.pb.gz" >/dev/null 2>"$T_TMP/sp.err" &&
	"$PERFRING" report -i "$data" --pprof "$T_TMP/r.pb.gz" >/dev/null 2>&1; then
	# the event's name as perf gives it (cpu-clock:pppH where perf excludes guests, else :ppp)
	ev=$(perf evlist -i "$data" 2>/dev/null | head -n 1)
	for idx in samples "${ev:-cpu-clock}"; do
		pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index="$idx" "$T_TMP/s.pb.gz" >"$T_TMP/s.top"
		pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -sample_index="$idx" "$T_TMP/r.pb.gz" >"$T_TMP/r.top"
		t_check "script_pprof_top_is_report_${idx%%:*}" "$(diff "$T_TMP/r.top" "$T_TMP/s.top" | head -n 4 | tr '\n' '|')" \
			bash -c "grep -q 'work_leaf_a' '$T_TMP/s.top' && cmp -s '$T_TMP/r.top' '$T_TMP/s.top'"
	done
	sed 's/^/    /' "$T_TMP/s.top" | head -n 14

	# Time without CLOCK_DATA: the last sample tied to the file's modification time (perf writes
	# the header when the recording ends; perf report --header's "captured on"), so the first
	# sample's is mtime - (last - first), not a date in 1970.
	pprof -raw "$T_TMP/s.pb.gz" >"$T_TMP/s.raw"
	perf script -i "$data" -F time --ns 2>/dev/null | tr -d ' :' >"$T_TMP/times"
	t_check pprof_time_file_mtime "pprof: $(grep '^Time:' "$T_TMP/s.raw"), file mtime $(stat -c %y "$data")" python3 -c '
import re, sys
t = [l.strip() for l in open(sys.argv[1]) if l.strip()]
ns = lambda v: int(v.split(".")[0]) * 10**9 + int(v.split(".")[1].ljust(9, "0"))
import os
want = os.stat(sys.argv[2]).st_mtime_ns - (ns(t[-1]) - ns(t[0]))
m = re.search(r"^Time: (\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)(?:\.(\d+))? \+0000 UTC$", open(sys.argv[3]).read(), re.M)
import calendar
got = calendar.timegm(tuple(int(x) for x in m.groups()[:6]) + (0, 0, 0)) * 10**9 + int((m.group(7) or "0").ljust(9, "0"))
sys.exit(0 if abs(got - want) < 1000 else 1)' "$T_TMP/times" "$data" "$T_TMP/s.raw"
	# A pipe has no such time: the first sample's time on perf's clock (a date of 1970), said.
	if perf inject -i "$data" -o - 2>/dev/null | "$PERFRING" script -i - --pprof "$T_TMP/p.pb.gz" >/dev/null 2>&1; then
		pprof -raw "$T_TMP/p.pb.gz" >"$T_TMP/p.raw"
		first=$(head -n 1 "$T_TMP/times")
		want=$(python3 -c 'import sys, datetime; s, ns = sys.argv[1].split("."); print(datetime.datetime.fromtimestamp(int(s), datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S") + "." + ns.rstrip("0"))' "$first")
		t_check pprof_time_perf_clock "pprof: $(grep '^Time:' "$T_TMP/p.raw"), perf's first sample at $first s (want Time: $want)" \
			grep -q "^Time: $want +0000 UTC" "$T_TMP/p.raw"
		t_check pprof_time_comment "no comment on the time: $(grep '^Comment' "$T_TMP/p.raw" | tr '\n' '|')" \
			grep -q "^Comment: time_nanos is the first sample's time on perf's clock" "$T_TMP/p.raw"
	else
		fail pprof_time_pipe "perf inject | perfring script -i - --pprof failed"
	fi
	t_check pprof_frequency_comment "$(grep '^Comment' "$T_TMP/s.raw" | tr '\n' '|')" \
		grep -qxF "Comment: $ev: sampled at 999 Hz" "$T_TMP/s.raw"
	# Duration: the first to the last sample (pprof -top prints it to 10 microseconds).
	want=$(perf script -i "$data" -F time --ns 2>/dev/null | tr -d ' :' | awk 'NR == 1 { f = $1 } { l = $1 } END { printf "%.2f", (l - f) * 1000 }')
	# pprof prints "284.40ms", or "1.61s" from a second on (a busy machine): within one unit of
	# its last digit.
	read -r got tol < <(sed -n 's/^Duration: \([0-9.]*\)\(m\{0,1\}s\),.*/\1 \2/p' "$T_TMP/s.top" |
		awk '{ d = index($1, ".") ? length($1) - index($1, ".") : 0; u = $2 == "s" ? 1000 : 1
		       printf "%.2f %.4f\n", $1 * u, 10 ^ -d * u * 1.1 }')
	t_check pprof_duration "pprof Duration ${got:-none} ms (to ${tol:-?} ms), perf's samples span $want ms" \
		python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > float(sys.argv[3]))' \
		"${got:-0}" "$want" "${tol:-0}"

	# With CLOCK_DATA (-k monotonic) and a fixed period (-c): wall-clock time as perf's tod, period.
	if perf record -q -k monotonic -g -e task-clock -c 200000 -o "$T_TMP/k.data" "$WORK" 200 >"$T_TMP/k.out" 2>&1; then
		export_pprof_tod pprof_time_clock_data "$T_TMP/k.data"
		mv "$T_TMP/pprof_time_clock_data.raw" "$T_TMP/k.raw"
		t_check pprof_period_fixed "$(grep -E '^Period' "$T_TMP/k.raw" | tr '\n' '|')" \
			bash -c "grep -qx 'PeriodType: task-clock nanoseconds' '$T_TMP/k.raw' && grep -qx 'Period: 200000' '$T_TMP/k.raw'"
		t_check pprof_period_comment "$(grep '^Comment' "$T_TMP/k.raw" | tr '\n' '|')" \
			grep -qx 'Comment: task-clock: a sample every 200000 ns' "$T_TMP/k.raw"
	else
		skip pprof_time_clock_data "perf record -k monotonic failed: $(head -n 1 "$T_TMP/k.out")"
	fi
else
	fail script_pprof "perfring script --pprof failed: $(head -n 1 "$T_TMP/sp.err")"
fi

# ---- speedscope ----
if "$PERFRING" script -i "$data" --speedscope "$T_TMP/s.json" >/dev/null 2>"$T_TMP/ss.err"; then
	"$PERFRING" report -i "$data" --speedscope "$T_TMP/r.json" >/dev/null 2>&1
	schema="$PERFRING_BUILD/speedscope/node_modules/speedscope/dist/release/file-format-schema.json"
	[ -f "$schema" ] || schema=
	python3 "$T_ROOT/tests/helpers/speedscope_check.py" "$T_TMP/s.json" $schema >"$T_TMP/ss.txt" 2>&1
	t_check script_speedscope_format "$(grep -m1 error "$T_TMP/ss.txt")" grep -q '^profile' "$T_TMP/ss.txt"
	# The title is the input's path, the same for both.
	t_check script_speedscope_is_report "script's and report's speedscope files differ" cmp -s "$T_TMP/r.json" "$T_TMP/s.json"
	export_viewer script_speedscope_viewer "$T_TMP/s.json" $'work_leaf_a\nwork_leaf_b\nwork_mid\nwork_loop\nmain'
else
	fail script_speedscope "perfring script --speedscope failed: $(head -n 1 "$T_TMP/ss.err")"
fi

# ---- the command line ----
t_usage_error script_export_with_dump "do not go with --dump" script -i "$data" --dump --folded "$T_TMP/x"
t_usage_error script_json_and_export_stdout "--json and --pprof - both want standard output" script -i "$data" --json --pprof -
t_usage_error script_two_exports_stdout "--folded and --speedscope - both want standard output" script -i "$data" --folded - --speedscope -
t_usage_error script_by_period_alone "--by-period goes with an export" script -i "$data" --by-period
t_usage_error report_inline_alone "go with an export" report -i "$data" --inline
t_one_line_error script_export_unwritable "cannot create" "$PERFRING" script -i "$data" --folded /nonexistent/dir/x.folded
# A file that fails to read leaves no export behind.
head -c 2000 "$data" >"$T_TMP/truncated.data"
t_one_line_error script_truncated_file "truncated.data" "$PERFRING" script -i "$T_TMP/truncated.data" --pprof - --folded "$T_TMP/t.folded"
t_check script_truncated_no_export "$T_TMP/t.folded was left behind" test ! -e "$T_TMP/t.folded"
t_finish

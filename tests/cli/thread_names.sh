#!/usr/bin/env bash
# Thread names (comm) as perf names them, on the file recorded: perf script and perf report
# --sort comm against perfring's. First on small files whose records come in the orders a live
# recording makes only now and then (tests/helpers/thread_names_data.py: a thread sampled before
# its first COMM, which perf report then names by that COMM, perf script by ":TID"; a tid a FORK
# reuses from a parent without a name); then on recordings of a program that makes threads and
# processes in known ways (tests/helpers/thread_names_work.py: threads, one renamed by prctl, a
# fork, a fork from a thread, fork and exec), by the command and by the whole machine (-a).
. "$(dirname "$0")/lib.sh"

if ! command -v perf >/dev/null || ! command -v python3 >/dev/null; then
	skip thread_names "perf or python3 is not installed (perf reads the files and is the reference)"
	t_finish
	exit $?
fi

# names_same NAME FILE: perf's and perfring's script comm/pid/tid listings and report --sort comm
# tables of FILE are the same (report rows sorted: equal percentages may come in another order;
# perf pads its last column with blanks).
names_same() {
	local name=$1 file=$2
	perf script -i "$file" -F comm,pid,tid 2>/dev/null >"$T_TMP/p.script"
	t_run "$T_TMP/o.script" "$T_TMP/o.err" "$PERFRING" script -i "$file" -F comm,pid,tid
	t_same_output "$name/script" "script -F comm,pid,tid" "$T_TMP/p.script" "$T_TMP/o.script" "$T_TMP/o.err"
	perf report -i "$file" --stdio --sort comm 2>/dev/null | grep -v '^#' | grep '%' | sed 's/ *$//' | sort >"$T_TMP/p.report"
	t_run "$T_TMP/o.out" "$T_TMP/o.err" "$PERFRING" report -i "$file" --sort comm
	grep -v '^#' "$T_TMP/o.out" | grep '%' | sed 's/ *$//' | sort >"$T_TMP/o.report"
	t_same_output "$name/report" "report --sort comm" "$T_TMP/p.report" "$T_TMP/o.report" "$T_TMP/o.err"
}

for c in late reuse fork_after two thread; do
	if python3 "$T_ROOT/tests/helpers/thread_names_data.py" "$c" "$T_TMP/$c.data"; then
		names_same "$c" "$T_TMP/$c.data"
		cp "$T_TMP/o.report" "$T_TMP/$c.report"
	else
		fail "$c" "tests/helpers/thread_names_data.py could not write the file"
	fi
done
# the crafted file's figures themselves: the sample before the COMM counts for python3 (perf: 100%)
t_check late/figure "report --sort comm: $(tr '\n' ';' <"$T_TMP/late.report")" \
	grep -qx ' *100.00%  python3' "$T_TMP/late.report"

work=(python3 "$T_ROOT/tests/helpers/thread_names_work.py" 20)
if "$PERFRING" record -F 999 -o "$T_TMP/cmd.data" -- "${work[@]}" >"$T_TMP/rec.out" 2>&1; then
	names_same command "$T_TMP/cmd.data"
	t_check command/renamed "no sample of the thread renamed by prctl (tn-renamed)" \
		grep -q '^ *tn-renamed ' "$T_TMP/p.script"
else
	fail command "perfring record -- ${work[*]}: $(head -n 1 "$T_TMP/rec.out")"
fi
if t_need_root; then
	if "$PERFRING" record -a -F 999 -o "$T_TMP/all.data" -- "${work[@]}" >"$T_TMP/rec.out" 2>&1; then
		names_same system "$T_TMP/all.data"
	else
		fail system "perfring record -a -- ${work[*]}: $(head -n 1 "$T_TMP/rec.out")"
	fi
else
	skip system "record -a needs root"
fi
t_finish

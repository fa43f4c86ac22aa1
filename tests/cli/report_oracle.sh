#!/usr/bin/env bash
# `perfring report` against `perf report --stdio` on files perf records here
# (tests/helpers/sym_target spin with call chains; the whole machine with -a
# -g; two events at once): perf's top entries have the same self and children
# percentages in perfring's output (tests/helpers/perf_report_cmp.py), with
# --sort sym and with combinations; --json agrees with the text; the
# percent limit, the exports (when the encoders are built in) and bad files.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"
COMPARE="$T_ROOT/tests/helpers/perf_report_cmp.py"

# agree NAME FILE TOP ARGS...: perf report --stdio ARGS vs perfring report ARGS, TOP entries.
agree() {
	local name=$1 f=$2 top=$3 line
	shift 3
	perf report --stdio -i "$f" "$@" >"$T_TMP/perf.rep" 2>/dev/null
	"$PERFRING" report -i "$f" "$@" >"$T_TMP/pr.rep" 2>"$T_TMP/pr.err"
	T_RC=$?
	python3 "$COMPARE" "$T_TMP/perf.rep" "$T_TMP/pr.rep" "$top" >"$T_TMP/cmp"
	line=$(tail -n 1 "$T_TMP/cmp")
	if [ "$T_RC" -ne 0 ] || ! echo "$line" | grep -qE '^entries=[1-9][0-9]* bad=0$'; then
		fail "$name" "perfring report $* (exit $T_RC): $line"
		t_show "$T_TMP/cmp"
		t_show "$T_TMP/pr.err" 3
	else
		ok "$name"
	fi
}

# graphs_same [--loose] FILE ARGS...: whether the call graphs under perf report --stdio ARGS's
# entries are perfring report ARGS's (tests/helpers/perf_graph_cmp.py, its report in
# $T_TMP/gcmp; --loose for the whole machine: unknown addresses and entries the table tests
# judge are left out); T_RC is perfring's exit status.
graphs_same() {
	local loose=() f
	[ "$1" = --loose ] && loose=(--loose) && shift
	f=$1
	shift
	perf report --stdio -i "$f" "$@" >"$T_TMP/perf.grep" 2>/dev/null
	"$PERFRING" report -i "$f" "$@" >"$T_TMP/pr.grep" 2>"$T_TMP/pr.err"
	T_RC=$?
	python3 "$T_ROOT/tests/helpers/perf_graph_cmp.py" "${loose[@]}" "$T_TMP/perf.grep" "$T_TMP/pr.grep" >"$T_TMP/gcmp"
	[ "$T_RC" -eq 0 ] && tail -n 1 "$T_TMP/gcmp" |
		grep -qE '^entries=[1-9][0-9]* graphs=[1-9][0-9]* compared=[1-9][0-9]* skipped=[0-9]+ bad=0$'
}

# graph_agree [--loose] NAME FILE ARGS...: graphs_same, said as a check.
graph_agree() {
	local loose=() name
	[ "$1" = --loose ] && loose=(--loose) && shift
	name=$1
	shift
	if graphs_same "${loose[@]}" "$@"; then
		ok "$name"
	else
		fail "$name" "perfring report ${*:2} (exit $T_RC): $(tail -n 1 "$T_TMP/gcmp")"
		t_show "$T_TMP/gcmp"
		t_show "$T_TMP/pr.err" 3
	fi
}

A="$T_TMP/prog.data"
if ! perf_record -q -e cpu-clock -F 4000 -g -o "$A" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err"; then
	fail prog_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
else
	agree prog_sym_self "$A" 15 --sort sym --no-children
	agree prog_sym_children "$A" 20 --sort sym --children
	agree prog_default_sort "$A" 15 --no-children
	agree prog_dso_sym "$A" 15 --sort dso,sym --no-children
	agree prog_comm "$A" 5 --sort comm --no-children
	agree prog_dso "$A" 10 --sort dso --no-children
	n=$(grep -cE '^ +[0-9.]+% +[0-9.]+% +\[\.\] symt_alpha$' "$T_TMP/pr.rep" 2>/dev/null)
	"$PERFRING" report -i "$A" --sort sym >"$T_TMP/a.rep"
	t_check prog_names_known_function "symt_alpha not among report's entries" \
		bash -c "grep -qE '^ +[0-9.]+% +[0-9.]+%  \[\.\] symt_alpha$' '$T_TMP/a.rep'"
	# --json: the same entries and percentages as the text.
	"$PERFRING" report -i "$A" --sort dso,sym --json >"$T_TMP/a.json" 2>/dev/null
	"$PERFRING" report -i "$A" --sort dso,sym >"$T_TMP/a.txt" 2>/dev/null
	t_check prog_json "report --json differs from the text, or its self percentages do not add up to 100" \
		python3 -c '
import json, re, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert len(ev) == 1 and ev[0]["event"] == "cpu-clock" and ev[0]["samples"] > 100
ents = ev[0]["entries"]
assert abs(sum(e["self"] for e in ents) - 100) < 0.01, sum(e["self"] for e in ents)
rows = [l.split() for l in open(sys.argv[2]) if re.match(r"^ +[0-9.]+%", l)]
assert len(rows) == len(ents), (len(rows), len(ents))
for r, e in zip(rows, ents):
    assert abs(float(r[0][:-1]) - e["children"]) <= 0.0051 and abs(float(r[1][:-1]) - e["self"]) <= 0.0051, (r, e)
    assert r[2] == e["dso"].split("/")[-1] or r[2] == e["dso"], (r, e)
' "$T_TMP/a.json" "$T_TMP/a.txt"
	# Call graphs (perf's default with call chains): every graph perf draws, line for line.
	graph_agree prog_graph_sym_self "$A" --sort sym --no-children
	graph_agree prog_graph_sym_children "$A" --sort sym --children
	graph_agree prog_graph_default "$A"
	graph_agree prog_graph_min "$A" --sort dso,sym --no-children -g graph,2
	graph_agree prog_graph_percent_limit "$A" --sort sym --percent-limit 3
	"$PERFRING" report -i "$A" --sort sym --no-children -g none >"$T_TMP/g.rep"
	t_check prog_graph_none "report -g none still draws a graph" \
		bash -c "! grep -qE -- '---|--[0-9.]+%--' '$T_TMP/g.rep' && grep -qE '^ +[0-9.]+%' '$T_TMP/g.rep'"
	t_run "$T_TMP/bad.out" "$T_TMP/bad.err" "$PERFRING" report -i "$A" -g fractal
	t_check prog_graph_bad_mode "report -g fractal: exit $T_RC, want 2 and a one-line error naming the mode" \
		bash -c "[ $T_RC -eq 2 ] && [ \$(wc -l <'$T_TMP/bad.err') -eq 1 ] && grep -q \"'fractal'\" '$T_TMP/bad.err'"
	"$PERFRING" report -i "$A" --sort sym --no-children --percent-limit 5 >"$T_TMP/lim.rep"
	t_check prog_percent_limit "--percent-limit 5 shows an entry below 5% or none" \
		bash -c "awk '/^ +[0-9.]+%/ { n++; if (\$1 + 0 < 5) bad = 1 } END { exit !(n > 0 && !bad) }' '$T_TMP/lim.rep'"
	# Exports (the library's profile layer): the folded counts add up to the samples.
	"$PERFRING" report -i "$A" --folded "$T_TMP/a.folded" >/dev/null 2>"$T_TMP/x.err"
	samples=$(perf report --stdio -i "$A" --stats 2>/dev/null | awk '$1 == "SAMPLE" { print $3; exit }')
	sum=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/a.folded")
	t_check prog_folded "folded counts add up to $sum, perf counts $samples samples: $(head -c 200 "$T_TMP/x.err")" \
		[ "$sum" = "$samples" ]
	# pprof: go tool pprof -top reads it and its flat and cum percentages are report's self and children.
	if ! command -v go >/dev/null; then
		skip prog_pprof_top "go is not installed (Debian's golang-go has go tool pprof)"
	else
		"$PERFRING" report -i "$A" --sort sym --pprof "$T_TMP/a.pb.gz" >"$T_TMP/a.sym.rep" 2>"$T_TMP/pp.err"
		HOME=$T_TMP timeout 120 go tool pprof -top -nodecount=12 "$T_TMP/a.pb.gz" >"$T_TMP/a.top" 2>"$T_TMP/pp.err"
		if python3 -c '
import re, sys
rep = {}
for l in open(sys.argv[2]):
    m = re.match(r"^ +([0-9.]+)% +([0-9.]+)%  \[.\] (\S+)$", l)
    if m:
        rep.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
n = 0
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) == 6 and f[1].endswith("%") and f[4].endswith("%") and not f[5].startswith("["):
        flat, cum, name = float(f[1][:-1]), float(f[4][:-1]), f[5]
        assert name in rep, name
        assert abs(rep[name][1] - flat) <= 0.011 and abs(rep[name][0] - cum) <= 0.011, (name, flat, cum, rep[name])
        n += 1
assert n >= 5, n
' "$T_TMP/a.top" "$T_TMP/a.sym.rep" >"$T_TMP/pp.cmp" 2>&1; then
			ok prog_pprof_top
		else
			fail prog_pprof_top "go tool pprof -top disagrees with report: $(tail -n 1 "$T_TMP/pp.cmp") $(head -c 300 "$T_TMP/pp.err")"
			t_show "$T_TMP/a.top" 20
		fi
	fi
fi

if t_need_root; then
	B="$T_TMP/all.data"
	if ! perf_record_all "$B"; then
		fail all_record "perf record -a failed: $(head -c 300 "$T_TMP/rec.err")"
	else
		agree all_sym_self "$B" 20 --sort sym --no-children
		agree all_sym_children "$B" 20 --sort sym --children
		agree all_comm "$B" 5 --sort comm --no-children
		graph_agree --loose all_graph_default "$B"
		graph_agree --loose all_graph_sym_self "$B" --sort sym --no-children
		# Two readers share the samples (one thread each; PERFRING_THREADS=2 for this small file):
		# the output is the same to the byte, tables, graphs and JSON.
		for args in "" "--sort sym --no-children" "--sort pid,dso -n" "--json"; do
			PERFRING_THREADS=1 "$PERFRING" report -i "$B" $args >"$T_TMP/one.rep" 2>&1
			PERFRING_THREADS=2 "$PERFRING" report -i "$B" $args >"$T_TMP/two.rep" 2>&1
			cmp -s "$T_TMP/one.rep" "$T_TMP/two.rep" || break
		done
		t_check all_two_readers_same "report ${args:-(default)} with two readers differs from one: $(diff "$T_TMP/one.rep" "$T_TMP/two.rep" | head -n 3 | tr '\n' ' ')" \
			cmp -s "$T_TMP/one.rep" "$T_TMP/two.rep"
	fi
else
	skip all_sym_self "perf record -a needs root"
fi

# Two events: a section per event, each with perf's sample count.
C="$T_TMP/two.data"
if perf_record -q -e cpu-clock -e task-clock -g -o "$C" -- "$TARGET" spin 0.5 >/dev/null 2>"$T_TMP/rec.err"; then
	perf report --stdio -i "$C" --sort sym 2>/dev/null | grep -E "^# (Samples|Event count)" >"$T_TMP/perf.heads"
	"$PERFRING" report -i "$C" --sort sym | grep -E "^# (Samples|Event count)" >"$T_TMP/pr.heads"
	t_check two_events "per-event headers differ: $(diff "$T_TMP/pr.heads" "$T_TMP/perf.heads" | tr '\n' ' ')" \
		bash -c "cmp -s '$T_TMP/pr.heads' '$T_TMP/perf.heads' && [ \$(wc -l <'$T_TMP/pr.heads') -eq 4 ]"
else
	skip two_events "perf record of two events failed: $(head -c 200 "$T_TMP/rec.err")"
fi

# Samples taken inside an exec: after the exec's COMM, before the new image's MMAPs, the user
# registers and stack are still the old image's, and perf names those frames by the old image's
# mappings (libc's __GI___execve of sh here; an [unknown] address when the process model dropped
# them at the exec). Every entry of the children table is the same; and in the same order, ties
# included: 300 processes named true give many entries of equal children whose order perf's
# comparison (call chain depth, within one thread only) leaves to the red-black tree it inserts
# them into (report_order.c, rb_order()).
E="$T_TMP/exec.data"
if perf_record -q -e cpu-clock -c 100000 -g -o "$E" -- sh -c 'for i in $(seq 300); do /bin/true; done' \
	>/dev/null 2>"$T_TMP/rec.err"; then
	perf report --stdio -i "$E" --sort comm,dso,sym --children 2>/dev/null |
		grep -E '^ +[0-9.]+% +[0-9.]+%' | sed 's/  */ /g' | sort >"$T_TMP/exec.perf"
	"$PERFRING" report -i "$E" --sort comm,dso,sym --children 2>"$T_TMP/exec.err" |
		grep -E '^ +[0-9.]+% +[0-9.]+%' | sed 's/  */ /g' | sort >"$T_TMP/exec.pr"
	t_check exec_frames_children "entries differ from perf's (- perf, + perfring): $(diff "$T_TMP/exec.perf" "$T_TMP/exec.pr" | grep '^[<>]' | head -n 4 | tr '\n' ' ')" \
		bash -c "[ -s '$T_TMP/exec.perf' ] && cmp -s '$T_TMP/exec.perf' '$T_TMP/exec.pr'"
	perf report --stdio -i "$E" --sort comm,dso,sym --children 2>/dev/null | grep -E '^ +[0-9.]+% +[0-9.]+%' >"$T_TMP/exec.perf"
	"$PERFRING" report -i "$E" --sort comm,dso,sym --children 2>>"$T_TMP/exec.err" | grep -E '^ +[0-9.]+% +[0-9.]+%' >"$T_TMP/exec.pr"
	t_check exec_children_order "entries in another order than perf's (- perf, + perfring): $(diff "$T_TMP/exec.perf" "$T_TMP/exec.pr" | grep '^[<>]' | head -n 4 | tr '\n' ' ')" \
		bash -c "[ -s '$T_TMP/exec.perf' ] && cmp -s '$T_TMP/exec.perf' '$T_TMP/exec.pr'"
	# The graphs: perf orders (and may split) the branches of two binaries by the addresses of its
	# dso objects on its heap (match_chain() falls back to comparing the pointers), which perfring
	# follows by the order perf makes them in; one recording of 26 made here had a sample where
	# the two differ (a fresh clone's make check of c0a26e2: one __libc_early_init branch of
	# 1.83% against perf's 1.49%). So a recording whose graphs differ is made once more: the
	# second must agree (a real difference shows in both).
	if ! graphs_same "$E" --sort comm,dso,sym --children; then
		echo "exec_graph: the first recording's graphs differ from perf's; recording again" >&2
		perf_record -q -e cpu-clock -c 100000 -g -o "$E" -- sh -c 'for i in $(seq 300); do /bin/true; done' \
			>/dev/null 2>"$T_TMP/rec.err"
	fi
	graph_agree exec_graph "$E" --sort comm,dso,sym --children
else
	fail exec_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
fi

# Pipe mode (the events arrive as records): perf's columns, symbols named.
# perf report decides on children before it reads, and a pipe's events come
# later: no Children column, whatever the options, but call graphs in the
# caller order children would have given them.
P="$T_TMP/pipe.data"
perf record -q -N -e cpu-clock -g -o - -- "$TARGET" spin 0.3 >"$P" 2>/dev/null
"$PERFRING" report -i - --sort sym <"$P" >"$T_TMP/pipe.rep" 2>"$T_TMP/pipe.err"
t_check pipe_mode "perfring report -i - <pipe.data: not perf's '# Overhead  Symbol' columns, or no symt_alpha: $(head -c 200 "$T_TMP/pipe.err")" \
	bash -c "grep -q '^# Overhead  Symbol' '$T_TMP/pipe.rep' && grep -qE '%  \[\.\] symt_alpha$' '$T_TMP/pipe.rep'"
agree pipe_sym "$P" 10 --sort sym
agree pipe_children_asked "$P" 10 --sort sym --children
graph_agree pipe_graph "$P" --sort sym

# Tracepoints (sched_switch with call chains): perf's "trace" key, the default when every event
# is a tracepoint (a file; a pipe chooses before its events come), its text as the format prints
# it; "N/A" for other events. The whole text compared, headers and graphs too.
same_text() { # NAME FILE ARGS...
	local name=$1 f=$2
	shift 2
	norm() { grep -v '^# To display\|^# perfring report of\|(Tip:\|^#$\|^$' | sed 's/ *$//'; }
	perf report --stdio -i "$f" "$@" 2>/dev/null | norm >"$T_TMP/perf.txt"
	"$PERFRING" report -i "$f" "$@" 2>"$T_TMP/pr.err" | norm >"$T_TMP/pr.txt"
	t_check "$name" "$(wc -l <"$T_TMP/perf.txt") lines; first difference: $(diff "$T_TMP/pr.txt" "$T_TMP/perf.txt" | head -n 4 | tr '\n' ' ')" \
		bash -c "[ \$(grep -c '%' '$T_TMP/perf.txt') -ge 3 ] && cmp -s '$T_TMP/pr.txt' '$T_TMP/perf.txt'"
}
TP="$T_TMP/tp.data"
if ! t_ensure_fs tracefs /sys/kernel/tracing; then
	skip trace_key "$T_FS_WHY"
elif ! perf_record -q -e sched:sched_switch -g -o "$TP" -- \
	sh -c 'for i in 1 2 3 4 5 6; do ls / >/dev/null; sleep 0.01; done' >/dev/null 2>"$T_TMP/rec.err"; then
	fail trace_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
else
	same_text trace_default "$TP"
	t_check trace_default_header "no '# Children      Self  Trace output' header" \
		grep -q '^# Children      Self  Trace output' "$T_TMP/pr.txt"
	same_text trace_comm "$TP" --sort comm,trace --no-children
	same_text trace_g_none "$TP" --sort trace,pid -g none
	"$PERFRING" report -i "$TP" --json >"$T_TMP/tp.json" 2>/dev/null
	t_check trace_json "report --json: no entry with a \"trace\" text naming prev_comm" \
		python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).readline())["entries"]; assert e and all("prev_comm=" in x["trace"] for x in e)' "$T_TMP/tp.json"
	same_text trace_not_tracepoint "$A" --sort trace
fi

# perf record --user-callchains: a sample taken in the kernel (prof_work's read() of /dev/zero)
# has only its user callers in its call chain. perf's entry for it is the sampled ip's (read_zero,
# [k]), the chain its callers: the whole text is perf's (with the chain's first frame as the
# entry, 6% of the samples went to __GI___libc_read); the folded stacks end in read_zero too, as
# many samples as perf gives it.
UC="$T_TMP/user_cc.data"
if ! perf_record -q -e task-clock -F 999 -g --user-callchains -o "$UC" -- \
	"$PERFRING_BUILD/tests/helpers/prof_work" 300 >/dev/null 2>"$T_TMP/rec.err"; then
	fail user_callchains_record "perf record --user-callchains failed: $(head -c 300 "$T_TMP/rec.err")"
else
	same_text user_callchains_default "$UC"
	same_text user_callchains_self "$UC" --sort sym --no-children
	same_text user_callchains_g_none "$UC" --sort dso,sym -g none
	"$PERFRING" report -i "$UC" --folded "$T_TMP/uc.folded" >/dev/null 2>"$T_TMP/uc.err"
	want=$(perf report --stdio -i "$UC" --sort sym --no-children -g none -n 2>/dev/null |
		awk '$NF == "read_zero" && $(NF-1) == "[k]" { print $2; exit }')
	got=$(awk '$1 ~ /;read_zero$/ { s += $2 } END { print s + 0 }' "$T_TMP/uc.folded")
	t_check user_callchains_folded "folded stacks ending in read_zero count $got samples, perf's entry $want" \
		bash -c "[ -n '$want' ] && [ '$want' -gt 0 ] && [ '$got' = '$want' ]"
fi

# A call chain with a context marker perf does not know (tests/helpers/bad_context.py puts one
# into every 5th chain of a prof_work recording): perf drops the chain and counts the sample at
# its ip, with no callers; so does perfring report (the whole text is perf's), and perfring
# script shows no frames for it, as perf script.
BC="$T_TMP/bad_context.data"
if ! perf_record -q -e cpu-clock -F 999 -g -o "$T_TMP/pw.data" -- "$PERFRING_BUILD/tests/helpers/prof_work" 300 \
	>/dev/null 2>"$T_TMP/rec.err"; then
	fail bad_context_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
elif ! n=$(python3 "$T_ROOT/tests/helpers/bad_context.py" "$T_TMP/pw.data" "$BC" 5 2>&1); then
	fail bad_context_file "bad_context.py: $n"
else
	same_text bad_context_default "$BC"
	same_text bad_context_self "$BC" --sort sym --no-children
	same_text bad_context_g_none "$BC" --sort dso,sym -g none
	perf script -i "$BC" >"$T_TMP/bc.perf" 2>/dev/null
	"$PERFRING" script -i "$BC" >"$T_TMP/bc.pr" 2>&1
	t_check bad_context_script "perfring script differs from perf script ($n chains changed): $(diff "$T_TMP/bc.pr" "$T_TMP/bc.perf" | head -n 4 | tr '\n' ' ')" \
		bash -c "[ '$n' -gt 0 ] && [ -s '$T_TMP/bc.perf' ] && cmp -s '$T_TMP/bc.pr' '$T_TMP/bc.perf'"
fi

# A function named in 600 characters (C++ templates make longer ones): perf prints the name
# whole, and sizes the column by it (perfring cut it at 511 bytes before).
LN="$T_TMP/long_name"
fn="long_$(printf 'n%.0s' $(seq 595))"
cat >"$LN.c" <<EOF
volatile unsigned long sink;
__attribute__((noinline)) void $fn(long n)
{
	for (long i = 0; i < n; i++)
		sink += i * i;
}
__attribute__((noinline)) void short_name(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	for (int r = 0; r < 50; r++) {
		$fn(4000000);
		short_name(2000000);
	}
	return 0;
}
EOF
if ! ${CC:-cc} -O1 -fno-omit-frame-pointer -o "$LN" "$LN.c" 2>"$T_TMP/cc.err"; then
	fail long_name_build "cc failed: $(head -c 300 "$T_TMP/cc.err")"
elif ! perf_record -q -e cpu-clock -F 999 -g -o "$LN.data" -- "$LN" >/dev/null 2>"$T_TMP/rec.err"; then
	fail long_name_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
else
	same_text long_name_default "$LN.data"
	same_text long_name_sym "$LN.data" --sort sym -g none
	t_check long_name_whole "the 600-character name is not whole in report's table" grep -q "\[\.\] $fn\$" "$T_TMP/pr.txt"
fi

# Stacks deeper than kernel.perf_event_max_stack (a recursion 150 deep making system calls), and
# --max-stack: perf report keeps a chain's N functions nearest the root when it walks chains
# callers first (children, -g caller), else the N nearest the sample; an unwound stack's user part
# always from the sample (it unwinds N frames), its recorded kernel part as any chain. The whole
# text is perf's, and perf script's listing (the first N) too.
DP="$T_TMP/deep"
cat >"$DP.c" <<'EOF'
#include <sys/syscall.h>
#include <unistd.h>
volatile long sink;
__attribute__((noinline)) void deep_rec(int d)
{
	if (d == 0) {
		for (int i = 0; i < 200; i++)
			sink += syscall(SYS_getppid);
		return;
	}
	deep_rec(d - 1);
	sink++;
}
int main(void)
{
	for (int k = 0; k < 1500; k++)
		deep_rec(150);
	return 0;
}
EOF
if ! ${CC:-cc} -O1 -fno-omit-frame-pointer -o "$DP" "$DP.c" 2>"$T_TMP/cc.err"; then
	fail deep_build "cc failed: $(head -c 300 "$T_TMP/cc.err")"
else
	for mode in fp dwarf; do
		if ! perf_record -q -e cpu-clock -F 2000 --call-graph $mode -o "$DP.$mode" -- "$DP" >/dev/null 2>"$T_TMP/rec.err"; then
			fail deep_${mode}_record "perf record --call-graph $mode failed: $(head -c 300 "$T_TMP/rec.err")"
			continue
		fi
		same_text deep_${mode}_default "$DP.$mode"
		same_text deep_${mode}_max3 "$DP.$mode" --max-stack 3
		same_text deep_${mode}_max1_caller_self "$DP.$mode" --max-stack 1 -g caller --no-children
		same_text deep_${mode}_max5_callee "$DP.$mode" --max-stack 5 --no-children
		perf script -i "$DP.$mode" --max-stack 4 >"$T_TMP/deep.perf" 2>/dev/null
		"$PERFRING" script -i "$DP.$mode" --max-stack 4 >"$T_TMP/deep.pr" 2>&1
		t_check deep_${mode}_script_max4 "perfring script --max-stack 4 differs from perf's: $(diff "$T_TMP/deep.pr" "$T_TMP/deep.perf" | head -n 4 | tr '\n' ' ')" \
			bash -c "[ -s '$T_TMP/deep.perf' ] && cmp -s '$T_TMP/deep.pr' '$T_TMP/deep.perf'"
	done
fi

# perf record --call-graph dwarf: the user stack copied into each sample is unwound with the
# binaries' call frame information (libdwfl, as perf): the self tables are perf's line for line,
# and the unwound callers are there (symt_alpha's caller symt_spin, as perf script shows it).
D="$T_TMP/dwarf.data"
if ! perf_record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$D" -- "$TARGET" spin 0.5 >/dev/null 2>"$T_TMP/rec.err"; then
	fail dwarf_record "perf record --call-graph dwarf failed: $(head -c 300 "$T_TMP/rec.err")"
else
	same_text dwarf_self "$D" --no-children -g none
	same_text dwarf_self_dso_sym "$D" --no-children -g none --sort dso,sym
	perf script -i "$D" 2>/dev/null >"$T_TMP/dwarf.perf"
	"$PERFRING" script -i "$D" 2>"$T_TMP/dwarf.err" >"$T_TMP/dwarf.pr"
	t_check dwarf_unwound_callers "symt_alpha's samples: perf and perfring script do not both show symt_spin as its caller in most of them" \
		python3 - "$T_TMP/dwarf.perf" "$T_TMP/dwarf.pr" <<'PY'
import re, sys
def callers(path):
    n = hit = 0
    for block in open(path, errors="replace").read().split("\n\n"):
        frames = [l.split()[1] for l in block.splitlines()[1:] if l.startswith("\t") and len(l.split()) > 1]
        if frames and frames[0].startswith("symt_alpha+"):
            n += 1
            hit += len(frames) > 1 and frames[1].startswith("symt_spin+")
    return n, hit
(pn, ph), (rn, rh) = callers(sys.argv[1]), callers(sys.argv[2])
assert pn > 20 and pn == rn and ph == rh and rh > rn * 0.9, (pn, ph, rn, rh)
PY
fi

# Bad input.
: >"$T_TMP/empty.data"
t_one_line_error report_empty_file "empty.data" "$PERFRING" report -i "$T_TMP/empty.data"
t_one_line_error report_missing_file "nothere.data" "$PERFRING" report -i "$T_TMP/nothere.data"
if perf_record -q -e dummy -o "$T_TMP/nosamples.data" -- true >/dev/null 2>&1; then
	t_one_line_error report_no_samples "no samples" "$PERFRING" report -i "$T_TMP/nosamples.data"
fi
t_usage_error report_bad_sort "unknown key 'symbl'" report --sort symbl
t_usage_error report_unsupported_sort "unknown key 'parent'" report --sort parent
# perf's key names, and its prefixes of them ("symbol", "Sym", "s": the symbol key), as perf takes them
"$PERFRING" report -i "$A" --sort dso,sym >"$T_TMP/sort.short" 2>/dev/null
"$PERFRING" report -i "$A" --sort Dso,symbol >"$T_TMP/sort.long" 2>/dev/null
t_check report_sort_perf_names "--sort Dso,symbol gives another table than --sort dso,sym" \
	bash -c "[ -s '$T_TMP/sort.short' ] && cmp -s '$T_TMP/sort.short' '$T_TMP/sort.long'"
t_usage_error report_bad_limit "--percent-limit" report --percent-limit lots
t_usage_error report_stats_alone "--stats takes no other option" report --stats --sort sym

t_finish

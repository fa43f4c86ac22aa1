#!/usr/bin/env bash
# `perfring script` against `perf script` on files perf records here:
#  - a program with known functions (tests/helpers/sym_target spin: its own
#    functions with frame pointers, libc's qsort and memset, write(2) into the
#    kernel), cpu-clock with call chains;
#  - the whole machine (-a -g) with sym_target started before the recording
#    (perf synthesizes its mappings);
#  - tracepoints (with and without call chains): the whole output equal.
# Frames are compared with `perf script -F ip,sym,dso` sample by sample
# (tests/helpers/perf_frames.py): >= 99% equal, and every other one in a
# category the helper lists with its reason and checks (PLT stubs, the vDSO,
# frames of the image before an exec, aliases of one address); none
# unexplained. The header lines (comm, tid, cpu, time, period, event) equal
# perf's line for line.
. "$(dirname "$0")/lib.sh"

TARGET="$PERFRING_BUILD/tests/helpers/sym_target"
COMPARE="$T_ROOT/tests/helpers/perf_frames.py"
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

# frames NAME FILE: compare perfring's frames with perf's; ok when >= 99% agree and none is unexplained.
frames() {
	local name=$1 f=$2 line frames agree unexplained
	perf script -i "$f" -F ip,sym,dso >"$f.perf" 2>"$f.perf.err"
	"$PERFRING" script -i "$f" >"$f.pr" 2>"$f.pr.err"
	T_RC=$?
	if [ "$T_RC" -ne 0 ]; then
		fail "$name" "perfring script exited $T_RC: $(head -c 300 "$f.pr.err")"
		return 1
	fi
	python3 "$COMPARE" "$f.perf" "$f.pr" >"$f.cmp"
	sed 's/^/     | /' "$f.cmp"
	line=$(tail -n 1 "$f.cmp")
	frames=$(echo "$line" | sed -n 's/.*frames=\([0-9]*\).*/\1/p')
	agree=$(echo "$line" | sed -n 's/.*agree=\([0-9]*\).*/\1/p')
	unexplained=$(echo "$line" | sed -n 's/.*unexplained=\([0-9]*\).*/\1/p')
	t_check "$name" "$line (want >= 99% agree, 0 unexplained)" \
		[ -n "$frames" ] && [ "$frames" -gt 100 ] && [ $((agree * 100)) -ge $((frames * 99)) ] && [ "$unexplained" -eq 0 ]
}

# --- a program with known functions -------------------------------------------
A="$T_TMP/prog.data"
if ! perf record -q -e cpu-clock -F 4000 -g -o "$A" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err"; then
	fail prog_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
else
	frames prog_frames "$A"
	for fn in symt_alpha symt_cmp symt_spin main; do
		n=$(grep -cE "^	 *[0-9a-f]+ $fn\+0x[0-9a-f]+ \(.*sym_target\)$" "$A.pr")
		t_check "prog_has_$fn" "no frame of $fn named in sym_target" [ "$n" -gt 0 ]
	done
	n=$(grep -cE " \(/.*libc\.so\.6\)$" "$A.pr")
	t_check prog_has_libc "no libc frame" [ "$n" -gt 0 ]
	n=$(grep -cE "^	 *ffff[0-9a-f]+ [a-z_0-9.]+\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$" "$A.pr")
	t_check prog_has_kernel "no kernel frame named" [ "$n" -gt 0 ]
	# The header lines, as perf prints them by default.
	perf script -i "$A" 2>/dev/null | grep -v '^	' >"$T_TMP/perf.heads"
	grep -v '^	' "$A.pr" >"$T_TMP/pr.heads"
	t_check prog_headers "header lines differ from perf script's: $(diff "$T_TMP/pr.heads" "$T_TMP/perf.heads" | head -n 4 | tr '\n' ' ')" \
		cmp -s "$T_TMP/pr.heads" "$T_TMP/perf.heads"
	# --json: one object per sample, the same frames.
	"$PERFRING" script --json -i "$A" >"$T_TMP/a.json" 2>"$T_TMP/a.json.err"
	T_RC=$?
	t_check prog_json "perfring script --json: exit $T_RC, or its samples and frames differ from the text" \
		python3 -c '
import json, re, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
text = [l for l in open(sys.argv[2]) if l.startswith("\t")]
frames = [f for o in objs for f in o["frames"]]
assert sys.argv[3] == "0" and len(frames) == len(text), (len(frames), len(text))
for f, t in zip(frames, text):
    sym = "%s+0x%x" % (f["symbol"], f["offset"]) if f["symbol"] is not None else "[unknown]"
    assert t.strip() == "%x %s (%s)" % (f["shown_addr"], sym, f["dso"]), (t, f)
assert all(o["event"] == "cpu-clock" and o["comm"] == "sym_target" for o in objs if o["pid"] == objs[0]["pid"])
' "$T_TMP/a.json" "$A.pr" "$T_RC"
fi

# --- the whole machine, a process started before ------------------------------
if t_need_root; then
	"$TARGET" spin 4 &
	spin=$!
	sleep 0.5
	B="$T_TMP/all.data"
	if ! perf record -q -a -g -e cpu-clock -o "$B" -- sleep 1 >/dev/null 2>"$T_TMP/rec.err"; then
		fail all_record "perf record -a failed: $(head -c 300 "$T_TMP/rec.err")"
	else
		frames all_frames "$B"
		n=$(grep -cE " symt_alpha\+0x[0-9a-f]+ \(.*sym_target\)$" "$B.pr")
		t_check all_prior_process "sym_target (started before the recording) not named: $n symt_alpha frames" [ "$n" -gt 0 ]
	fi
	kill "$spin" 2>/dev/null
	wait "$spin" 2>/dev/null
else
	skip all_frames "perf record -a needs root"
fi

# --- tracepoints: the whole output ---------------------------------------------
for g in "" "-g"; do
	name=tracepoints${g:+_callchain}
	C="$T_TMP/$name.data"
	# shellcheck disable=SC2086
	if ! perf record -q $g -e sched:sched_process_exec -e sched:sched_process_fork -o "$C" \
		-- sh -c 'ls / >/dev/null; true' >/dev/null 2>"$T_TMP/rec.err"; then
		skip "$name" "perf record of tracepoints failed: $(head -c 200 "$T_TMP/rec.err")"
		continue
	fi
	perf script -i "$C" >"$C.perf" 2>/dev/null
	"$PERFRING" script -i "$C" >"$C.pr" 2>"$C.err"
	n=$(grep -c 'filename=' "$C.pr")
	t_check "$name" "perfring script differs from perf script ($n exec lines): $(diff "$C.pr" "$C.perf" | head -n 4 | tr '\n' ' ')" \
		bash -c "cmp -s '$C.pr' '$C.perf' && [ $n -gt 0 ]"
done

# --- bad input ------------------------------------------------------------------
: >"$T_TMP/empty.data"
t_one_line_error script_empty_file "empty.data" "$PERFRING" script -i "$T_TMP/empty.data"
printf 'not a perf.data file at all, but long enough to hold a header........................................................' >"$T_TMP/text.data"
t_one_line_error script_not_perfdata "text.data" "$PERFRING" script -i "$T_TMP/text.data"
t_usage_error script_ordered_needs_dump "--dump" script --ordered -i "$T_TMP/empty.data"

t_finish

#!/usr/bin/env bash
# `perfring script` against `perf script` on files perf records here:
#  - a program with known functions (tests/helpers/sym_target spin: its own
#    functions with frame pointers, libc's qsort and memset, write(2) into the
#    kernel), cpu-clock with call chains;
#  - the whole machine (-a -g) with sym_target started before the recording
#    (perf synthesizes its mappings);
#  - a file perfring record writes of sym_target;
#  - tracepoints (with and without call chains): the whole output equal.
# Frames are compared with `perf script -F ip,sym,dso` sample by sample
# (tests/helpers/perf_frames.py): >= 99% equal, and every other one in a
# category the helper lists with its reason and checks (PLT stubs of another
# layout, the vDSO, aliases of one address); none
# unexplained for sym_target, at most 1 per mille (each printed) for -a.
# The header lines (comm, tid, cpu, time, period, event) equal
# perf's line for line.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"
COMPARE="$T_ROOT/tests/helpers/perf_frames.py"

# frames NAME FILE MAX [PCT]: compare perfring's frames with perf's; ok when >= PCT% (99) agree
# and at most MAX per mille are unexplained (0 for the program the test controls; -a sees every
# process of the machine, whose binaries the test does not choose: the helper prints each
# unexplained frame).
frames() {
	local name=$1 f=$2 max=$3 pct=${4:-99} line frames agree unexplained
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
	t_check "$name" "$line (want >= $pct% agree, at most $max per mille unexplained)" \
		bash -c "[ -n '$frames' ] && [ '$frames' -gt 100 ] && [ $((agree * 100)) -ge $((frames * pct)) ] &&
			[ $((unexplained * 1000)) -le $((frames * max)) ]"
}

# --- a program with known functions -------------------------------------------
A="$T_TMP/prog.data"
if ! perf_record -q -e cpu-clock -F 4000 -g -o "$A" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err"; then
	fail prog_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
else
	frames prog_frames "$A" 0
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

# --- every byte of sym_target's .init and .plt ----------------------------------
# A real recording of sym_target whose samples are moved, in order, onto every address from .init
# to .text (tests/helpers/retarget_ips.py): the header, every PLT stub and the bytes between, each
# named as perf names it (perf 6.1 shows the first stub as _init, the others as NAME@plt).
P="$T_TMP/plt.data"
offs=$(readelf -SW "$TARGET" | awk '$2 == ".init" { i = $5 } $2 == ".text" { t = $5 } END { if (i && t) print "0x" i, "0x" t }')
if [ -z "$offs" ]; then
	skip plt_every_byte "sym_target has no .init or .text section (linked otherwise)"
elif ! perf_record -q -e cpu-clock -c 20000 -o "$P.orig" -- "$TARGET" spin 0.3 >/dev/null 2>"$T_TMP/rec.err"; then
	fail plt_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
elif ! n=$(python3 "$T_ROOT/tests/helpers/retarget_ips.py" "$P.orig" "$P" "$TARGET" $offs 2>&1); then
	fail plt_every_byte "$n"
else
	perf script -i "$P" -F ip,sym >"$P.perf" 2>/dev/null
	"$PERFRING" script -i "$P" -F ip,sym >"$P.pr" 2>"$P.err"
	T_RC=$?
	t_same_output plt_every_byte "script -F ip,sym ($n samples moved onto .init..text)" "$P.perf" "$P.pr" "$P.err" '@plt'
fi

# --- kernel addresses no recorded map holds -------------------------------------
# A recording of the whole machine whose first kernel samples are moved (tests/helpers/kernel_ips.py)
# onto kernel addresses: a BPF program's JIT code without a KSYMBOL record and the module area's
# start (no map: perf prints [unknown] ([unknown])), the last byte of the [kernel.kallsyms]_text
# MMAP and the first past it, .init.text, the page end of the kernel's last kallsyms symbol and the
# byte before it, the byte before _text. perf's kernel map is the MMAP until it loads kallsyms,
# then the extent of the kernel's own symbols (dso__load_kernel_sym(): map__fixup_start/end).
if t_need_root; then
	K="$T_TMP/kaddr.data"
	kaddrs=$(python3 -c '
f = l = i = 0
for line in open("/proc/kallsyms"):
    w = line.split()
    a = int(w[0], 16)
    if len(w) == 3 and w[1] in "TtWwDdBb" and a:
        f, l = min(f or a, a), max(l, a)
    if w[2] == "_sinittext":
        i = a
if f and l and i:
    e = (l + 8191) // 4096 * 4096
    print("%x %x %x %x" % (i + 16, e - 16, e, f - 16))')
	if [ -z "$kaddrs" ]; then
		skip kaddr_unmapped "kallsyms shows no kernel addresses or no _sinittext"
	elif ! perf_record -q -a -e cpu-clock -c 100000 -o "$K.orig" -- sleep 0.3 >/dev/null 2>"$T_TMP/rec.err"; then
		fail kaddr_record "perf record -a failed: $(head -c 300 "$T_TMP/rec.err")"
	elif ! n=$(python3 "$T_ROOT/tests/helpers/kernel_ips.py" "$K.orig" "$K" ffffffffc002cc92 ffffffffc0000000 \
		etext-1 etext $kaddrs 2>&1); then
		fail kaddr_unmapped "$n"
	else
		perf script -i "$K" -F ip,sym,dso >"$K.perf" 2>/dev/null
		"$PERFRING" script -i "$K" -F ip,sym,dso >"$K.pr" 2>"$K.err"
		T_RC=$?
		t_same_output kaddr_unmapped "script -F ip,sym,dso (kernel samples moved onto $(echo $n))" \
			"$K.perf" "$K.pr" "$K.err" ' ffffffffc002cc92 \[unknown\] (\[unknown\])'
	fi
fi

# --- the whole machine, a process started before ------------------------------
if t_need_root; then
	B="$T_TMP/all.data"
	if ! perf_record_all "$B"; then
		fail all_record "perf record -a failed: $(head -c 300 "$T_TMP/rec.err")"
	else
		# Unexplained frames of the machine's other processes: at most 1 per mille.
		frames all_frames "$B" 1
		n=$(grep -cE " symt_alpha\+0x[0-9a-f]+ \(.*sym_target\)$" "$B.pr")
		t_check all_prior_process "sym_target (started before the recording) not named: $n symt_alpha frames" [ "$n" -gt 0 ]
		# Two readers list the file (blocks of samples, a thread each; PERFRING_THREADS=2 for this small file):
		# the listing is the same to the byte.
		for args in "" "-F comm,tid,time,ip,sym,dso" "--lines"; do
			PERFRING_THREADS=1 "$PERFRING" script -i "$B" $args >"$T_TMP/one.scr" 2>&1
			PERFRING_THREADS=2 "$PERFRING" script -i "$B" $args >"$T_TMP/two.scr" 2>&1
			cmp -s "$T_TMP/one.scr" "$T_TMP/two.scr" || break
		done
		t_check all_two_readers_same "script ${args:-(default)} with two readers differs from one: $(cmp "$T_TMP/one.scr" "$T_TMP/two.scr" 2>&1 | head -c 200)" \
			bash -c "cmp -s '$T_TMP/one.scr' '$T_TMP/two.scr' && [ \$(grep -c '^[^[:space:]]' '$T_TMP/one.scr') -gt $((2 * 1024)) ]"
	fi
else
	skip all_frames "perf record -a needs root"
fi

# --- a file perfring record writes: the same frames as perf script reads them --
R="$T_TMP/perfring-record.data"
if "$PERFRING" record -e cpu-clock -g -o "$R" -- "$TARGET" spin 0.5 >/dev/null 2>"$T_TMP/rec.err"; then
	frames perfring_record_frames "$R" 0
else
	fail perfring_record "perfring record failed: $(head -c 300 "$T_TMP/rec.err")"
fi

# --- the vDSO without perf's build-id cache: the running kernel's -------------
# perf record -N keeps no copy of the vDSO in ~/.debug; with no such cache (an
# empty HOME) perfring names [vdso] frames by the running kernel's vDSO, whose
# build id the symbolizer checks against the recorded one.
V="$T_TMP/vdso.data"
if perf_record -q -e cpu-clock -F 4000 -o "$V" -- "$TARGET" clock 0.5 >/dev/null 2>"$T_TMP/rec.err"; then
	mkdir -p "$T_TMP/nohome"
	HOME="$T_TMP/nohome" "$PERFRING" script -i "$V" >"$V.pr" 2>"$V.err"
	total=$(grep -c ' (\[vdso\])$' "$V.pr")
	named=$(grep -cE ' __vdso_clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)$|clock_gettime\+0x[0-9a-f]+ \(\[vdso\]\)$' "$V.pr")
	t_check vdso_running_kernel "$named of $total [vdso] samples named clock_gettime (want 90% of at least 100)" \
		[ "$total" -ge 100 -a $((named * 10)) -ge $((total * 9)) ]
else
	fail vdso_record "perf record failed: $(head -c 300 "$T_TMP/rec.err")"
fi

# --- tracepoints: the whole output ---------------------------------------------
for g in "" "-g"; do
	name=tracepoints${g:+_callchain}
	C="$T_TMP/$name.data"
	# shellcheck disable=SC2086
	if ! perf_record -q $g -e sched:sched_process_exec -e sched:sched_process_fork -o "$C" \
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

#!/usr/bin/env bash
# The exports' inlined frames (--inline), on a file recorded at test time by
# perf record -g of tests/helpers/inline_work (-O2 -g: inl_step forced inline
# into inl_mix, forced inline into inl_outer; inl_step calls inl_callee):
# - folded: per sample, the inline chains of its frames are what addr2line -f
#   -i (the binutils oracle, reading the same DWARF) gives for the sampled
#   address and for each caller's return address - 1, e.g.
#   "...;inl_outer;inl_mix;inl_step;inl_callee"; without the inlined functions
#   the stacks are those of --no-inline (the default, which has none of them);
# - pprof: go tool pprof -top shows inl_step and inl_mix "(inline)" with the
#   flat samples addr2line gives them, -traces their chain innermost first,
#   -raw one location with three lines; without --inline pprof has none;
# - speedscope: inl_step is a frame of its own under inl_mix;
# - script --inline writes the same as report --inline.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

WORK="$PERFRING_BUILD/tests/helpers/inline_work"
export_need export_inline "$PERFRING" "$WORK"
if ! command -v addr2line >/dev/null; then
	skip export_inline "addr2line (binutils) is not installed: it is the oracle of the inline chains"
	t_finish
	exit $?
fi
data="$T_TMP/inline.data"
export_record export_inline "$data" -g -F 999 "$WORK" 300
if [ "$(readelf --debug-dump=info "$WORK" 2>/dev/null | grep -c DW_TAG_inlined_subroutine)" -eq 0 ]; then
	fail inline_work_dwarf "$WORK has no DW_TAG_inlined_subroutine: the compiler did not inline"
	t_finish
	exit 1
fi

# ---- the oracle: per sample, addr2line's inline chains of its frames in the workload ----
# perf script gives each frame's offset in the file; addr2line wants ELF addresses (the executable
# segment's offset and address may differ) and, for a caller's frame (a return address), the
# call's address: one less, as pprof and addr2line users take it. The chain of the frames from the
# leaf up to inl_outer's, outermost first, is the sample's key; samples whose leaf is elsewhere
# (kernel, libc, the vDSO) are left out.
seg=$(readelf -lW "$WORK" | awk '$1 == "LOAD" && / E / { print $2, $3; exit }')
perf script -i "$data" 2>/dev/null >"$T_TMP/perf.script"
python3 - "$WORK" "$(( ${seg#* } - ${seg% *} ))" "$T_TMP/perf.script" >"$T_TMP/oracle" 2>"$T_TMP/oracle.err" <<'PY'
import collections, subprocess, sys
work, delta, script = sys.argv[1], int(sys.argv[2]), sys.argv[3]
samples = []
for block in open(script).read().split("\n\n"):
    lines = [l.split() for l in block.strip().split("\n")[1:]]
    own = []
    for f in lines:  # the leading frames in the workload, leaf first
        if f[-1] != "(" + work + ")":
            break
        own.append(int(f[0], 16) + delta - (1 if own else 0))
    if lines and own:
        samples.append(own)
addrs = sorted({a for s in samples for a in s})
out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", work], input="".join("0x%x\n" % a for a in addrs),
                     capture_output=True, text=True, check=True).stdout.split("\n")
chains, cur = {}, None
for l in out:
    if l.startswith("0x") and all(c in "0123456789abcdefx" for c in l):
        cur = int(l, 16)
        chains[cur] = []
    elif cur is not None and l and ":" not in l:
        chains[cur].append(l)  # function names; the file:line lines hold a ':'
counts = collections.Counter()
for s in samples:
    names = []
    for a in reversed(s):  # outermost first; each frame's inline chain outermost first
        names += list(reversed(chains[a]))
    if "inl_outer" in names:
        counts[";".join(names[names.index("inl_outer"):])] += 1
for k in sorted(counts):
    print("%s\t%d" % (k, counts[k]))
PY
echo "addr2line's chains (from inl_outer) of the samples' frames in $WORK:"
sed 's/^/    /' "$T_TMP/oracle"
if [ "$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$T_TMP/oracle")" -lt 100 ] ||
	! grep -q '^inl_outer;inl_mix;inl_step	' "$T_TMP/oracle" || ! grep -q '^inl_outer;inl_mix;inl_step;inl_callee	' "$T_TMP/oracle"; then
	fail inline_oracle "too few samples in the workload, or no inl_step or inl_callee under it: $(tr '\n' '|' <"$T_TMP/oracle") $(head -n 2 "$T_TMP/oracle.err")"
	t_finish
	exit 1
fi

# ---- folded ----
"$PERFRING" report -i "$data" --folded "$T_TMP/i.folded" --inline >/dev/null 2>"$T_TMP/i.err"
"$PERFRING" report -i "$data" --folded "$T_TMP/n.folded" >/dev/null 2>>"$T_TMP/i.err"
# Per chain from inl_outer down (the part addr2line sees), summed: the samples whose leaf is in
# the workload (not those with kernel frames above it: an interrupt, as the oracle's).
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); i = index($0, ";inl_outer"); c = substr($0, i + 1)
       if (i && c ~ /^inl_outer(;inl_[a-z]+)*$/) s[c] += n }
     END { for (k in s) print k "\t" s[k] }' "$T_TMP/i.folded" | sort >"$T_TMP/ours"
t_check folded_inline_chains_are_addr2line "differ (< addr2line, > folded): $(diff "$T_TMP/oracle" "$T_TMP/ours" | grep '^[<>]' | tr '\n' '|')" \
	cmp -s "$T_TMP/oracle" "$T_TMP/ours"
t_check folded_inline_stack "no ...;inl_outer;inl_mix;inl_step line" grep -qE ';inl_outer;inl_mix;inl_step [0-9]+$' "$T_TMP/i.folded"
t_check folded_no_inline_default "the default folded output names inlined functions" \
	bash -c "[ -s '$T_TMP/n.folded' ] && ! grep -qE 'inl_mix|inl_step' '$T_TMP/n.folded'"
# Taking the inlined frames out gives the stacks without --inline: those of the workload alone
# (other code has inlined functions too, e.g. a sanitizer's runtime linked in).
workload_only() { grep -E '^inline_work(;(__libc_start_call_main|main|inl_[a-z]+))* [0-9]+$' "$@"; }
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); gsub(/;inl_(mix|step)/, ""); s[$0] += n } END { for (k in s) print k " " s[k] }' \
	"$T_TMP/i.folded" | workload_only | sort >"$T_TMP/i.stripped"
workload_only "$T_TMP/n.folded" | sort >"$T_TMP/n.sorted"
t_check folded_inline_adds_frames_only "$(diff "$T_TMP/n.sorted" "$T_TMP/i.stripped" | grep '^[<>]' | head -n 3 | tr '\n' '|')" \
	cmp -s "$T_TMP/n.sorted" "$T_TMP/i.stripped"
"$PERFRING" script -i "$data" --folded "$T_TMP/s.folded" --inline >/dev/null 2>>"$T_TMP/i.err"
t_check script_inline_is_report "script --inline and report --inline folded outputs differ" cmp -s "$T_TMP/i.folded" "$T_TMP/s.folded"

# ---- pprof ----
pprof() { HOME=$T_TMP go tool pprof -symbolize=none "$@" 2>>"$T_TMP/pprof.err"; }
if ! command -v go >/dev/null; then
	skip pprof_inline "go tool pprof is not installed (scripts/install-deps.sh installs golang-go)"
elif "$PERFRING" report -i "$data" --pprof "$T_TMP/i.pb.gz" --inline >/dev/null 2>>"$T_TMP/i.err"; then
	pprof -top -nodecount=1000 -nodefraction=0 -sample_index=samples "$T_TMP/i.pb.gz" >"$T_TMP/top"
	sed 's/^/    /' "$T_TMP/top" | tail -n 6
	# Flat samples per function against addr2line's innermost function.
	bad=
	for fn in inl_step inl_mix; do
		want=$(awk -F'\t' -v fn="$fn" '{ k = split($1, p, ";"); if (p[k] == fn) s += $2 } END { print s + 0 }' "$T_TMP/oracle")
		got=$(awk -v fn="$fn" '$6 == fn && $7 == "(inline)" { print $1 }' "$T_TMP/top")
		[ "${got:-none}" = "$want" ] || bad="$bad $fn: addr2line $want, pprof -top ${got:-none};"
	done
	t_check pprof_top_inline_flat "${bad:-}" [ -z "$bad" ]
	pprof -traces "$T_TMP/i.pb.gz" >"$T_TMP/traces"
	# Each trace line: the sample's value on the first, then one function a line.
	sed -E 's/^ *([0-9.]+[a-z]*)? +//' "$T_TMP/traces" | tr '\n' '|' >"$T_TMP/traces.flat"
	t_check pprof_traces_inline_chain "no trace with inl_step (inline), inl_mix (inline), inl_outer in a row" \
		grep -qF '|inl_step (inline)|inl_mix (inline)|inl_outer|' "$T_TMP/traces.flat"
	pprof -raw "$T_TMP/i.pb.gz" >"$T_TMP/raw"
	t_check pprof_raw_location_lines "no location with lines inl_step, inl_mix, inl_outer" \
		bash -c "awk '/^Locations/ { on = 1; next } /^Mappings/ { on = 0 } on' '$T_TMP/raw' | awk '{ print \$(NF - 2) }' | tr '\n' ' ' | grep -q 'inl_step inl_mix inl_outer'"
	"$PERFRING" report -i "$data" --pprof "$T_TMP/n.pb.gz" >/dev/null 2>>"$T_TMP/i.err"
	pprof -top -nodecount=1000 -nodefraction=0 "$T_TMP/n.pb.gz" >"$T_TMP/ntop"
	t_check pprof_no_inline_default "the default pprof profile names inlined functions" \
		bash -c "grep -q inl_outer '$T_TMP/ntop' && ! grep -qE 'inl_mix|inl_step' '$T_TMP/ntop'"
else
	fail pprof_inline "perfring report --pprof --inline failed: $(head -n 1 "$T_TMP/i.err")"
fi

# ---- speedscope ----
if "$PERFRING" report -i "$data" --speedscope "$T_TMP/i.json" --inline >/dev/null 2>>"$T_TMP/i.err" &&
	python3 "$T_ROOT/tests/helpers/speedscope_check.py" "$T_TMP/i.json" >"$T_TMP/ss.txt" 2>&1; then
	t_check speedscope_inline_frames "no stack ...;inl_outer;inl_mix;inl_step" \
		grep -qE '	(.*;)?inl_outer;inl_mix;inl_step	' "$T_TMP/ss.txt"
else
	fail speedscope_inline "$(head -n 1 "$T_TMP/ss.txt" 2>/dev/null) $(head -n 1 "$T_TMP/i.err")"
fi
t_finish

#!/usr/bin/env bash
# `perfring script --inline`: the listing and --json show the functions inlined at
# each call-chain frame's address, against `perf script --inline` on files recorded
# here of tests/helpers/inline_work (-O2 -g: inl_step inlined into inl_mix, inlined
# into inl_outer; inl_step calls inl_callee).
#
# perf 6.1 (its stable releases) shows inlined frames only for call chains it
# unwinds from DWARF (perf record --call-graph dwarf), with or without --inline:
# for frame-pointer chains (-g) the inline lookup was reverted (too slow), so its
# --inline output there has none. perfring unwinds DWARF stacks too (its
# callers are checked in report_oracle.sh); here:
# - without --inline, on the DWARF recording, each sample's leaf frame in the
#   workload with the frames inlined at it, as perf script prints it by default;
# - same samples, the leaf: on a --call-graph dwarf recording, each sample's leaf
#   frame with the frames inlined at it is the same text as perf script --inline's
#   (address, NAME+0xOFF (inlined) lines innermost first, then the function with its
#   binary), and with --lines the same source lines (perf prints the file's base
#   name);
# - the callers: on a -g recording, each caller frame in the workload (a return
#   address A) has the inlined functions perf shows at the caller address A - 1 of
#   the DWARF recording (perf's unwinder gives the call's address; perfring looks
#   the inline chain of a return address up at A - 1 too), where perf saw A - 1;
#   inl_step and inl_mix above inl_callee among them;
# - without --inline there is none: the listing is --inline's without its
#   "(inlined)" lines; kernel frames never get any (perf has no DWARF for
#   [kernel.kallsyms] either);
# - --json's frames are the listing's, "inlined": true on exactly its inlined ones;
# - --inline needs no export for script; it does not go with --dump.
. "$(dirname "$0")/lib.sh"
. "$T_ROOT/tests/helpers/export_lib.sh"

WORK="$PERFRING_BUILD/tests/helpers/inline_work"
export_need script_inline "$PERFRING" "$WORK"
if [ "$(readelf --debug-dump=info "$WORK" 2>/dev/null | grep -c DW_TAG_inlined_subroutine)" -eq 0 ]; then
	fail inline_work_dwarf "$WORK has no DW_TAG_inlined_subroutine: the compiler did not inline"
	t_finish
	exit 1
fi
D="$T_TMP/dwarf.data" F="$T_TMP/fp.data"
export_record script_inline "$D" --call-graph dwarf -F 999 "$WORK" 300
export_record script_inline "$F" -g -F 999 "$WORK" 300

# The frames of perf script's (or perfring script's) listing, a sample a line:
# parse.py FILE prints one JSON list per sample of frame groups, each group the
# frames of one address: [[addr, name+off, dso or null, inlined, srcline or null], ...],
# the inlined ones first.
cat >"$T_TMP/parse.py" <<'PY'
import json, re, sys

def samples(path):
    out = []
    for block in open(path).read().split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines or not lines[0].strip():
            continue
        frames = []
        for l in lines[1:]:
            if l.startswith("\t"):
                m = re.match(r"^\t *([0-9a-f]+) (.*)$", l)
                rest, inl = m.group(2), False
                if rest.endswith(" (inlined)"):
                    rest, inl = rest[: -len(" (inlined)")], True
                dso = None
                m2 = re.match(r"^(.*?) \((.*)\)$", rest)
                if m2 and not inl:
                    rest, dso = m2.group(1), m2.group(2)
                frames.append([m.group(1), rest, dso, inl, None])
            elif l.startswith("  ") and frames:
                src = l[2:]
                if src.endswith(" (inlined)"):
                    src, frames[-1][3] = src[: -len(" (inlined)")], True
                frames[-1][4] = src.split("/")[-1]  # perf prints the base name
        groups, cur = [], []
        for f in frames:
            if cur and f[0] != cur[0][0]:
                groups.append(cur)  # inlined frames of another address (perf names a symbol
                cur = []            # its DWARF names otherwise "inlined" on its own)
            cur.append(f)
            if not f[3]:
                groups.append(cur)
                cur = []
        if cur:
            groups.append(cur)
        out.append(groups)
    return out

for s in samples(sys.argv[1]):
    print(json.dumps(s))
PY
parse() { python3 "$T_TMP/parse.py" "$1" >"$1.groups"; }

# ---- the leaf, same samples (the DWARF recording) ----
perf script -i "$D" --inline 2>/dev/null >"$T_TMP/d.perf"
perf script -i "$D" --inline -F +srcline 2>/dev/null >"$T_TMP/d.perf.src"
t_run "$T_TMP/d.pr" "$T_TMP/d.err" "$PERFRING" script -i "$D" --inline
t_check dwarf_script_inline_runs "perfring script --inline exited $T_RC: $(head -n 1 "$T_TMP/d.err")" \
	bash -c "[ $T_RC -eq 0 ] && [ -s '$T_TMP/d.pr' ]"
"$PERFRING" script -i "$D" --inline --lines >"$T_TMP/d.pr.src" 2>>"$T_TMP/d.err"
for f in d.perf d.perf.src d.pr d.pr.src; do parse "$T_TMP/$f"; done
# leaf.py PERF PERFRING: the first group of each sample whose leaf is in the workload, compared.
cat >"$T_TMP/leaf.py" <<'PY'
import json, sys
work = sys.argv[3]
p = [json.loads(l) for l in open(sys.argv[1])]
r = [json.loads(l) for l in open(sys.argv[2])]
if len(p) != len(r):
    print("perf has %d samples, perfring %d" % (len(p), len(r)))
    sys.exit(1)
n = inl = bad = 0
for i, (a, b) in enumerate(zip(p, r)):
    if not a or not b or a[0][-1][2] != work:
        continue
    n += 1
    inl += len(a[0]) > 1
    if a[0] != b[0]:
        bad += 1
        if bad <= 3:
            print("sample %d: perf %s, perfring %s" % (i, a[0], b[0]))
print("leaves=%d with_inlined=%d differ=%d" % (n, inl, bad))
sys.exit(0 if n >= 50 and inl >= 20 and bad == 0 else 1)
PY
python3 "$T_TMP/leaf.py" "$T_TMP/d.perf.groups" "$T_TMP/d.pr.groups" "$WORK" >"$T_TMP/leaf.out" 2>&1
t_check leaf_inline_frames_are_perfs "$(tr '\n' '|' <"$T_TMP/leaf.out")" grep -q ' differ=0$' "$T_TMP/leaf.out"
sed 's/^/    /' "$T_TMP/leaf.out" | tail -n 1
python3 "$T_TMP/leaf.py" "$T_TMP/d.perf.src.groups" "$T_TMP/d.pr.src.groups" "$WORK" >"$T_TMP/leafsrc.out" 2>&1
t_check leaf_inline_lines_are_perfs "$(tr '\n' '|' <"$T_TMP/leafsrc.out")" grep -q ' differ=0$' "$T_TMP/leafsrc.out"
t_check leaf_inline_text_is_perfs "no line 'ADDR inl_step+0xOFF (inlined)' as perf prints it in perfring's listing" \
	grep -qE '^	 +[0-9a-f]+ inl_step\+0x[0-9a-f]+ \(inlined\)$' "$T_TMP/d.pr"

# ---- the same without --inline: perf script shows them by default for unwound stacks ----
perf script -i "$D" 2>/dev/null >"$T_TMP/dd.perf"
"$PERFRING" script -i "$D" >"$T_TMP/dd.pr" 2>>"$T_TMP/d.err"
parse "$T_TMP/dd.perf"
parse "$T_TMP/dd.pr"
python3 "$T_TMP/leaf.py" "$T_TMP/dd.perf.groups" "$T_TMP/dd.pr.groups" "$WORK" >"$T_TMP/leafdef.out" 2>&1
t_check dwarf_default_inline_frames_are_perfs "$(tr '\n' '|' <"$T_TMP/leafdef.out")" grep -q ' differ=0$' "$T_TMP/leafdef.out"

# and --json: those frames "inlined": true, the function's name alone
"$PERFRING" script -i "$D" --json >"$T_TMP/dd.json" 2>>"$T_TMP/d.err"
t_check dwarf_default_inline_json "--json of the DWARF recording: no frame marked inlined, or a name with ' (inlined)' in it" \
	python3 -c '
import json, sys
fr = [f for l in open(sys.argv[1]) for f in json.loads(l)["frames"]]
assert sum(1 for f in fr if f.get("inlined")) > 20, "no inlined frames"
assert not [f for f in fr if "(inlined)" in (f.get("symbol") or "")], "a name with the suffix"' "$T_TMP/dd.json"

# ---- the callers (the -g recording) against perf's DWARF-unwound callers ----
"$PERFRING" script -i "$F" --inline >"$T_TMP/f.pr" 2>"$T_TMP/f.err"
parse "$T_TMP/f.pr"
cat >"$T_TMP/callers.py" <<'PY'
import json, sys
work = sys.argv[3]
names = lambda g: [f[1].rsplit("+0x", 1)[0] for f in g]
# perf: the caller groups (not a sample's first) in the workload, by address (the call's: A - 1)
ref = {}
for l in open(sys.argv[1]):
    for g in json.loads(l)[1:]:
        if g[-1][2] == work:
            ref.setdefault(int(g[-1][0], 16), names(g))
if not ref:
    print("perf script showed no caller frame in the workload for the --call-graph dwarf recording")
    sys.exit(2)
n = bad = above_callee = 0
seen = set()
for l in open(sys.argv[2]):
    s = json.loads(l)
    for k, g in enumerate(s[1:], 1):
        if g[-1][2] != work:
            continue
        a = int(g[-1][0], 16)
        # the inlined lines carry the address and offset of their frame, no binary
        if any(f[0] != g[-1][0] or f[1].rsplit("+0x", 1)[1] != g[-1][1].rsplit("+0x", 1)[1] or f[2] for f in g[:-1]):
            bad += 1
            print("format: %s" % g)
        if a - 1 not in ref:
            continue
        n += 1
        seen.add(a)
        if names(s[k - 1])[-1] == "inl_callee" and names(g) == ["inl_step", "inl_mix", "inl_outer"]:
            above_callee += 1
        if names(g) != ref[a - 1]:
            bad += 1
            if bad <= 3:
                print("caller at %#x: perf (at %#x) %s, perfring %s" % (a, a - 1, ref[a - 1], names(g)))
print("callers=%d addresses=%d above_inl_callee=%d differ=%d" % (n, len(seen), above_callee, bad))
sys.exit(0 if n >= 50 and above_callee > 0 and bad == 0 else 1)
PY
python3 "$T_TMP/callers.py" "$T_TMP/d.perf.groups" "$T_TMP/f.pr.groups" "$WORK" >"$T_TMP/callers.out" 2>&1
if [ $? -eq 2 ]; then
	skip caller_inline_frames_are_perfs "$(cat "$T_TMP/callers.out") (this perf cannot unwind DWARF stacks)"
else
	t_check caller_inline_frames_are_perfs "$(tr '\n' '|' <"$T_TMP/callers.out")" \
		bash -c "grep -q ' differ=0$' '$T_TMP/callers.out' && ! grep -q 'above_inl_callee=0 ' '$T_TMP/callers.out'"
fi
sed 's/^/    /' "$T_TMP/callers.out" | tail -n 1

# ---- without --inline: none, and --inline only adds its lines ----
"$PERFRING" script -i "$F" >"$T_TMP/f.default" 2>>"$T_TMP/f.err"
"$PERFRING" script -i "$F" --no-inline >"$T_TMP/f.no" 2>>"$T_TMP/f.err"
t_check default_no_inlined "perfring script (no --inline) printed inlined frames" \
	bash -c "[ -s '$T_TMP/f.default' ] && ! grep -q 'inlined' '$T_TMP/f.default'"
t_check no_inline_is_default "--no-inline differs from the default" cmp -s "$T_TMP/f.default" "$T_TMP/f.no"
grep -v ' (inlined)$' "$T_TMP/f.pr" >"$T_TMP/f.stripped"
t_check inline_adds_lines_only "--inline without its (inlined) lines differs from the default: $(diff "$T_TMP/f.default" "$T_TMP/f.stripped" | head -n 3 | tr '\n' '|')" \
	cmp -s "$T_TMP/f.default" "$T_TMP/f.stripped"

# ---- kernel frames: none (a workload in the kernel) ----
K="$T_TMP/kernel.data"
export_record script_inline "$K" -g -F 999 dd if=/dev/zero of=/dev/null bs=64k count=30000
"$PERFRING" script -i "$K" --inline >"$T_TMP/k.pr" 2>"$T_TMP/k.err"
parse "$T_TMP/k.pr"
nk=$(grep -c '(\[kernel.kallsyms\])$' "$T_TMP/k.pr")
kin=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) for g in json.loads(l) if g[-1][2] == "[kernel.kallsyms]" and len(g) > 1))' "$T_TMP/k.pr.groups")
t_check kernel_frames_no_inlined "$nk kernel frames, $kin of them with inlined frames (want some, none)" \
	bash -c "[ '$nk' -gt 0 ] && [ '$kin' -eq 0 ]"

# ---- --json: the listing's frames, "inlined" on the inlined ones ----
"$PERFRING" script -i "$F" --inline --json >"$T_TMP/f.json" 2>>"$T_TMP/f.err"
"$PERFRING" script -i "$F" --json >"$T_TMP/f.nojson" 2>>"$T_TMP/f.err"
python3 - "$T_TMP/f.pr.groups" "$T_TMP/f.json" "$T_TMP/f.nojson" >"$T_TMP/json.out" 2>&1 <<'PY'
import json, sys
text = [[(f[0], f[1], f[3]) for g in json.loads(l) for f in g] for l in open(sys.argv[1])]
js = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if len(text) != len(js):
    bad.append("%d samples in the listing, %d in --json" % (len(text), len(js)))
inl = 0
for i, (t, j) in enumerate(zip(text, js)):
    jf = [("%x" % f["shown_addr"], "%s+0x%x" % (f["symbol"], f["offset"]) if f["symbol"] else "[unknown]",
           f.get("inlined", False)) for f in j["frames"]]
    inl += sum(1 for f in jf if f[2])
    if jf != t and len(bad) < 3:
        bad.append("sample %d: listing %s, json %s" % (i, t, jf))
if inl == 0:
    bad.append("no frame with inlined: true")
if any("inlined" in f for l in open(sys.argv[3]) for f in json.loads(l)["frames"]):
    bad.append("--json without --inline has inlined frames")
print("json inlined frames=%d; %s" % (inl, "; ".join(bad) or "same as the listing"))
sys.exit(1 if bad else 0)
PY
t_check json_inline_frames "$(cat "$T_TMP/json.out")" grep -q 'same as the listing$' "$T_TMP/json.out"

# ---- the command line ----
t_usage_error script_inline_with_dump "--inline and --no-inline do not go with --dump" script -i "$F" --dump --inline
t_usage_error report_inline_still_needs_export "go with an export" report -i "$F" --inline

# ---- valgrind: the DWARF chains and the listing, no invalid access, nothing lost ----
if command -v valgrind >/dev/null; then
	t_run "$T_TMP/vg.out" "$T_TMP/vg.err" timeout 300 valgrind --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --suppressions="$T_ROOT/scripts/valgrind.supp" \
		"$PERFRING" script -i "$F" --inline --lines --json
	t_check valgrind_clean "valgrind perfring script --inline: exit $T_RC; $(grep -m1 'ERROR SUMMARY' "$T_TMP/vg.err")" \
		[ "$T_RC" -eq 0 ]
else
	skip valgrind_clean "valgrind is not installed"
fi
t_finish

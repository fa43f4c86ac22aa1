#!/usr/bin/env python3
"""Compare the frames of `perfring script` (default output) with
`perf script -F ip,sym,dso` on the same file (tests/cli/script_oracle.sh).

Both list the samples in time order, one line per frame:
  perf:      "\t<hex ip> <sym> (<dso>)"      (samples separated by blank lines)
  perfring:  "\t<hex ip> <sym>+0x<off> (<dso>)" (each sample after a header line)
Frames are compared sample by sample, position by position: the address
shown, the symbol (perfring's offset removed) and the binary.

A disagreement is allowed only for a reason listed in ALLOWED (each checked
on the frame, not assumed); everything else is "unexplained". Prints one
line per category and the first unexplained frames, then a last line
  frames=N agree=N allowed=N unexplained=N samples_perf=N samples_perfring=N
"""
import os
import re
import subprocess
import sys

FRAME = re.compile(r"^\t\s*([0-9a-f]+) (.*) \((.*)\)$")


def perf_samples(path):
    samples, cur = [], None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = FRAME.match(line)
            if m:
                if cur is None:
                    cur = []
                    samples.append(cur)
                cur.append((m.group(1), m.group(2), m.group(3)))
            elif line.strip() == "":
                cur = None
    return samples


def perfring_samples(path):
    samples = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = FRAME.match(line)
            if m:
                sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
                samples[-1].append((m.group(1), sym, m.group(3)))
            elif line and not line.startswith("\t"):
                samples.append([])
    # perf -F ip,sym,dso prints nothing for a sample without frames
    return [s for s in samples if s]


# Why a frame may differ from perf's, each with its check on (ours, perf's).
_aliases = {}


def alias_sets(dso):
    """Names (demangled without parameters, as perf shows them) by address, from nm of the
    binary and of its debug file (by build id)."""
    if dso in _aliases:
        return _aliases[dso]
    files = [dso]
    try:
        notes = subprocess.run(["readelf", "-n", dso], capture_output=True, text=True).stdout
        m = re.search(r"Build ID: ([0-9a-f]+)", notes)
        if m:
            b = m.group(1)
            for d in ("/usr/lib/debug/.build-id/%s/%s.debug" % (b[:2], b[2:]),):
                if os.path.exists(d):
                    files.append(d)
    except OSError:
        pass
    byaddr = {}
    for f in files:
        for opt in ([], ["-D"]):
            out = subprocess.run(["nm", "--defined-only"] + opt + [f], capture_output=True, text=True).stdout
            rows = [l.split() for l in out.splitlines()]
            rows = [r for r in rows if len(r) == 3]
            names = subprocess.run(["c++filt", "-p"], input="\n".join(r[2] for r in rows), capture_output=True,
                                   text=True).stdout.splitlines()
            for r, n in zip(rows, names):
                byaddr.setdefault(int(r[0], 16), set()).update((r[2], n))
    sets = [v for v in byaddr.values() if len(v) > 1]
    _aliases[dso] = sets
    return sets


def are_aliases(dso, a, b):
    return any(a in s and b in s for s in alias_sets(dso))


# The check gets (ours, perf's, our sample's frames).
ALLOWED = [
    ("plt", "a PLT stub perf names NAME@plt and perfring does not (perfring synthesizes them as perf for "
     "x86-64 .plt/.plt.sec with a sh_entsize; another layout would land here)",
     lambda o, p, s: p[1].endswith("@plt") and o[0] == p[0] and o[2] == p[2]),
    ("vdso", "perf names the vDSO from its copy in ~/.debug only (perf record -N or a fresh home has "
     "none: [unknown]); perfring from that copy or the running kernel's vDSO of the same build id, and "
     "when neither has it, [unknown]",
     lambda o, p, s: o[2] == "[vdso]" and p[2] == "[vdso]" and o[0] == p[0] and
     (o[1] == "[unknown]") != (p[1] == "[unknown]")),
    ("alias", "two names of one address (checked with nm): perf picks among aliases by their demangled "
     "names (e.g. operator new[] over operator new, the longer), perfring by the ELF names",
     lambda o, p, s: o[0] == p[0] and o[2] == p[2] and o[2].startswith("/") and are_aliases(o[2], o[1], p[1])),
]


def main():
    perf, ours = perf_samples(sys.argv[1]), perfring_samples(sys.argv[2])
    frames = agree = allowed = unexplained = 0
    cats, shown = {}, 0
    for i in range(max(len(perf), len(ours))):
        p = perf[i] if i < len(perf) else []
        o = ours[i] if i < len(ours) else []
        for j in range(max(len(p), len(o))):
            frames += 1
            pf = p[j] if j < len(p) else None
            of = o[j] if j < len(o) else None
            if pf == of:
                agree += 1
                continue
            why = None
            if pf and of:
                for name, _, check in ALLOWED:
                    if check(of, pf, o):
                        why = name
                        break
            if why:
                allowed += 1
                cats[why] = cats.get(why, 0) + 1
            else:
                unexplained += 1
                if shown < 15:
                    print("unexplained: sample %d frame %d: perfring %s perf %s" % (i, j, of, pf))
                    shown += 1
    for name, reason, _ in ALLOWED:
        if name in cats:
            print("allowed %s: %d frame(s): %s" % (name, cats[name], reason))
    print("frames=%d agree=%d allowed=%d unexplained=%d samples_perf=%d samples_perfring=%d"
          % (frames, agree, allowed, unexplained, len(perf), len(ours)))


main()

#!/usr/bin/env python3
"""The Firefox Profiler's functions of one thread against perf report's.

    firefox_vs_perf.py FUNCTIONS.json PERF.tsv THREAD NAME...

FUNCTIONS.json: `profiler-cli thread functions --json` of the thread the profiler
shows first; PERF.tsv: "period<TAB>symbol" lines of `perf report --no-children
--sort sym --tid TID -F period,sym` for the same thread. The thread must be
THREAD, every NAME among perf's symbols, and every named symbol's period (ns)
the function's self weight (ms), to the microsecond. Prints the symbols compared; exits 1 with the differences.
"""
import json
import sys

d = json.load(open(sys.argv[1]))
ours = {}
for f in d["functions"]:
    ours[f["name"]] = ours.get(f["name"], 0) + f["selfSamples"]
bad, n = [], 0
for line in open(sys.argv[2]):
    period, name = line.rstrip("\n").split("\t", 1)
    if name.startswith("0x") or name.startswith("["):
        continue  # unknown addresses: perf keys them by address, the export by binary
    n += 1
    if abs(ours.get(name, 0) * 1e6 - int(period)) > 1000:
        bad.append("%s: perf %s ns, Firefox %s ms" % (name, period, ours.get(name)))
print("thread %s: %d symbols compared" % (d["friendlyThreadName"], n))
names = set(l.rstrip("\n").split("\t", 1)[1] for l in open(sys.argv[2]))
bad += ["%s: not in perf report's list" % x for x in sys.argv[4:] if x not in names]
if d["friendlyThreadName"] != sys.argv[3] or bad:
    print("thread %s (want %s), %d symbols; %s" % (d["friendlyThreadName"], sys.argv[3], n, "; ".join(bad[:4])))
    sys.exit(1)

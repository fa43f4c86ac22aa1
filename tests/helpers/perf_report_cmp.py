#!/usr/bin/env python3
"""Compare `perfring report --stdio`-style output with `perf report --stdio`
(tests/cli/report_oracle.sh): for perf's first N entries (N = argv[3]), the
same entry (its key columns, e.g. "[.] symt_alpha") has the same overhead
percentages in perfring's output (within 0.01, perf's rounding), one value
per entry of that name (a symbol of two binaries is two entries in both).

Entries allowed to differ are listed in ALLOWED with their reason. Prints
the disagreements and a last line
  entries=N bad=N
"""
import re
import sys
from collections import defaultdict

ROW = re.compile(r"^\s+([0-9.]+)%\s+(?:([0-9.]+)%\s+)?(\S.*?)\s*$")


def read(path):
    rows = defaultdict(list)
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#") or line.startswith("\t") or not line.strip():
                continue
            m = ROW.match(line)
            if m and not re.match(r"^\s+[0-9.]+%\s+\S+;", line):
                key = re.sub(r"\s+", " ", m.group(3))
                rows[key].append((float(m.group(1)), float(m.group(2) or 0)))
    for k in rows:
        rows[k].sort(reverse=True)
    return rows


# Entries perf and perfring may count differently, with the reason (checked on the entry's text).
ALLOWED = [
    ("address", "an unknown address: perf gives a call-chain frame without a mapping the privilege level "
     "([k] or [.]) of the frame before it and keeps the sampled ip apart; perfring keys it by address",
     lambda k: re.search(r"\] (0x)?[0-9a-f]{16}$", k) is not None),
]

perf, ours = read(sys.argv[1]), read(sys.argv[2])
top, skipped = [], {}
for k in perf:
    why = next((n for n, _, check in ALLOWED if check(k)), None)
    if why:
        skipped[why] = skipped.get(why, 0) + 1
    else:
        top.append(k)
top = top[: int(sys.argv[3])]
bad = 0
for k in top:
    q = ours.get(k, [])
    # perf may split one binary's symbol in two entries (a file mapped before the recording and
    # during it are two dsos for perf): the sum per name is compared, within rounding per entry.
    tol = 0.011 * max(len(q), len(perf[k]))
    if not q or abs(sum(a[0] for a in perf[k]) - sum(b[0] for b in q)) > tol or \
            abs(sum(a[1] for a in perf[k]) - sum(b[1] for b in q)) > tol:
        bad += 1
        print("differs: %s: perf %s perfring %s" % (k, perf[k], q))
for name, reason, _ in ALLOWED:
    if name in skipped:
        print("allowed %s: %d entries not compared: %s" % (name, skipped[name], reason))
print("entries=%d bad=%d" % (len(top), bad))

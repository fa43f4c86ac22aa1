#!/usr/bin/env python3
"""Compare the call graphs of `perfring report` with `perf report --stdio`'s.

    perf_graph_cmp.py [--loose] PERF_OUTPUT PERFRING_OUTPUT

Each output is split into entries: an entry's line (its percentages and
keys, as printed) and the graph lines under it, up to the next entry. Every
entry of perf's output with a graph must be in perfring's (the same keys and
percentages) with the same graph lines, byte for byte (trailing blanks
included). Entry order is not compared here (report's own tests do that).

--loose, for recordings of the whole machine: entries whose key is an
unknown address are not compared (perf_report_cmp.py's "address"
allowance), nor entries whose percentages differ (the table's own tests
judge those) as long as these are at most a tenth of the graphs.

Prints the differing entries and a last line
`entries=N graphs=G compared=C skipped=S bad=B`.
"""
import re
import sys

ENTRY = re.compile(r"^( +[0-9.]+%)+ +(.*)$")
PCTS = re.compile(r"^((?: +[0-9.]+%)+)")
ADDRESS = re.compile(r"\] (0x)?[0-9a-f]{16}$")


def blocks(path):
    """{key: (percentages, [graph lines])}, the first entry of each key."""
    out, cur = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                cur = None
                continue
            m = PCTS.match(line)
            if m and ENTRY.match(line):
                key = re.sub(r"\s+", " ", line[m.end():].strip())
                cur = None if key in out else key
                if cur is not None:
                    out[cur] = (m.group(1).split(), [])
                continue
            if cur is not None:
                out[cur][1].append(line)
    # the blank lines that end the last table are not part of a graph
    for _, v in out.values():
        while v and v[-1] == "":
            v.pop()
    return out


def main():
    args = sys.argv[1:]
    loose = args and args[0] == "--loose"
    if loose:
        args = args[1:]
    perf, mine = blocks(args[0]), blocks(args[1])
    bad = graphs = compared = skipped = table = 0
    for k, (pcts, v) in perf.items():
        if not v:
            continue
        graphs += 1
        w = mine.get(k)
        if loose and ADDRESS.search(k):
            skipped += 1
            continue
        if loose and w is not None and w[0] != pcts:
            skipped += 1
            table += 1
            continue
        if w is None or w[0] != pcts:
            bad += 1
            print("entry %r: perf %s, perfring %s" % (k, " ".join(pcts), " ".join(w[0]) if w else "none"))
            continue
        compared += 1
        if v != w[1]:
            bad += 1
            print("entry %r:" % k)
            for i in range(max(len(v), len(w[1]))):
                a = v[i] if i < len(v) else "<none>"
                b = w[1][i] if i < len(w[1]) else "<none>"
                if a != b:
                    print("  line %d: perf %r\n          perfring %r" % (i + 1, a, b))
                    break
    if loose and table * 10 > graphs:
        bad += 1
        print("%d of %d graphs not compared for their entries' percentages: more than a tenth" % (table, graphs))
    print("entries=%d graphs=%d compared=%d skipped=%d bad=%d" % (len(perf), graphs, compared, skipped, bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())

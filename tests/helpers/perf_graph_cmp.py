#!/usr/bin/env python3
"""Compare the call graphs of `perfring report` with `perf report --stdio`'s.

    perf_graph_cmp.py PERF_OUTPUT PERFRING_OUTPUT

Each output is split into entries: an entry's line (its percentages and
keys, as printed) and the graph lines under it, up to the next entry. Every
entry of perf's output with a graph must be in perfring's with the same
lines, byte for byte (trailing blanks included); entries without a graph on
perf's side must have none on perfring's. Entry order is not compared here
(report's own tests do that). Prints the differing entries and a last line
`entries=N graphs=G bad=B`.
"""
import re
import sys

ENTRY = re.compile(r"^ +[0-9.]+%")


def blocks(path):
    out, cur = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                cur = None
                continue
            if ENTRY.match(line):
                cur = line
                # equal entry lines (ties of unknown addresses) keep the first
                if cur in out:
                    cur = None
                else:
                    out[cur] = []
                continue
            if cur is not None:
                out[cur].append(line)
    # the blank lines that end the last table are not part of a graph
    for k, v in out.items():
        while v and v[-1] == "":
            v.pop()
    return out


def main():
    perf, mine = blocks(sys.argv[1]), blocks(sys.argv[2])
    bad = graphs = 0
    for k, v in perf.items():
        graphs += bool(v)
        w = mine.get(k)
        if w is None:
            if v:
                bad += 1
                print("missing entry with a graph: %r" % k)
            continue
        if v != w:
            bad += 1
            print("entry %r:" % k)
            for i in range(max(len(v), len(w))):
                a = v[i] if i < len(v) else "<none>"
                b = w[i] if i < len(w) else "<none>"
                if a != b:
                    print("  line %d: perf %r\n          perfring %r" % (i + 1, a, b))
                    break
    print("entries=%d graphs=%d bad=%d" % (len(perf), graphs, bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""One cell of the differential test against perf (tests/helpers/oracle_lib.sh):
perf's output against perfring's for the same file and options, with the
differences the project accepts (tests/oracle/accepted.txt) set aside.

    oracle_cmp.py CELL PERF_OUT PERFRING_OUT ACCEPTED_FILE

CELL names what was compared, RECORDER/PROGRAM/MODE/EVENT/OUTPUT (e.g.
perf/c/dwarf/cpu-clock/report-sym-children); an OUTPUT starting with
"report" is read as perf report --stdio's text (its header comments, tips
and blank lines aside), anything else line by line as it is.

ACCEPTED_FILE has one rule a line:  CELL-GLOB KIND /REGEX/ CAUSE
('#' starts a comment; REGEX is Python's, ended by the first "/ "). A rule
applies to the cells its glob matches (fnmatch: * crosses '/'). KIND:
  cell   every difference of the cell (a recording whose reading is known to
         differ as a whole: a pending fix);
  line   a differing line matching REGEX (on either side: perf's or
         perfring's) and the line it stands against on the other side;
  graph  report: the call graph under an entry (not the entry's line) when
         the entry's line or a line of its graph matches REGEX on either side;
  ties   report: entries, or call-graph branches of one parent, of equal
         percentages in another order, when one of those matches REGEX;
  branches  as ties, for call-graph branches alone;
  split  report: an entry perf prints more times (the same text after the
         percentages) than perfring, once at least, each percentage column
         of perf's adding up to perfring's (to the rounding): those entries
         and their graphs, when the entry matches REGEX.
  unwound  script: a sample whose chain in perf's listing ends with frames
         matching REGEX (perf's unwinder giving up: [unknown]) where
         perfring's holds perf's frames before them and goes on: the
         sample (samples are the listing's blank-line-separated blocks,
         compared in order).
Prints "same", or "accepted: N line(s) differ: CAUSE; ..." (exit 0), or
"differs" and the first lines of the difference left (exit 1).
"""
import difflib
import fnmatch
import re
import sys

CAP = 12  # difference lines printed for a failing cell
REPORT_DROP = re.compile(r"^# To display|^# perfring report of|\(Tip:|^#$|^$")
PCTS = re.compile(r"^((?: +[0-9.]+%)+) +\S")
BRANCH = re.compile(r"--([0-9.]+%)--(.*)$")
NEVER = re.compile(r"(?!)")


def read_rules(path, cell):
    rules = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^(\S+)\s+(cell|line|graph|ties|branches|split|unwound)\s+/(.*?)/\s+(\S.*)$", line)
            if not m:
                sys.exit("%s:%d: not 'CELL-GLOB KIND /REGEX/ CAUSE': %s" % (path, n, line))
            if fnmatch.fnmatchcase(cell, m.group(1)):
                rules.append((m.group(2), re.compile(m.group(3)), m.group(4)))
    return rules


def read_output(path, report):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [l.rstrip("\n") for l in f]
    if report:
        lines = [l.rstrip() for l in lines if not REPORT_DROP.search(l)]
    return lines


def blocks(lines):
    """Report text as [(entry line or None, [graph lines])]: an entry and what follows it."""
    out = [(None, [])]
    for l in lines:
        if PCTS.match(l) and not l.startswith("#"):
            out.append((l, []))
        else:
            out[-1][1].append(l)
    return out


def unblocks(bl):
    out = []
    for entry, graph in bl:
        if entry is not None:
            out.append(entry)
        out.extend(graph)
    return out


def drop_graphs(bl_a, bl_b, rx):
    """The graphs of entries (matched by their line) whose line or a graph line matches rx on
    either side."""
    hit = set()
    for bl in (bl_a, bl_b):
        for entry, graph in bl:
            if entry is not None and (rx.search(entry) or any(rx.search(g) for g in graph)):
                hit.add(entry)
    return ([(e, [] if e in hit else g) for e, g in bl] for bl in (bl_a, bl_b))


def entry_key(entry):
    """An entry line's text after its percentages, and the percentages as numbers."""
    m = PCTS.match(entry)
    return entry[m.end(1):].strip(), [float(p.rstrip("%")) for p in m.group(1).split()]


def drop_splits(bl_a, bl_b, rx):
    """Entries (with their graphs) that bl_a (perf's) has more of than bl_b, of one text and
    matching rx, when each percentage column of bl_a's adds up to bl_b's (each of the n entries
    rounded to 0.01: 0.005 * n at most apart)."""
    def by_key(bl):
        out = {}
        for i, (entry, _) in enumerate(bl):
            if entry is not None:
                key, pcts = entry_key(entry)
                out.setdefault(key, []).append((i, pcts))
        return out

    def sums(parts):
        return [sum(p[c] for _, p in parts) for c in range(len(parts[0][1]))]
    ka, kb = by_key(bl_a), by_key(bl_b)
    gone_a, gone_b = set(), set()
    for key, parts in ka.items():
        ours = kb.get(key, [])
        if not 0 < len(ours) < len(parts) or not any(rx.search(bl_b[i][0]) for i, _ in ours):
            continue
        if len({len(p) for _, p in parts + ours}) == 1 and all(
                abs(x - y) <= 0.005 * (len(parts) + len(ours)) + 1e-9
                for x, y in zip(sums(parts), sums(ours))):
            gone_a.update(i for i, _ in parts)
            gone_b.update(i for i, _ in ours)
    return ([x for i, x in enumerate(bl_a) if i not in gone_a],
            [x for i, x in enumerate(bl_b) if i not in gone_b])


def graph_tree(graph):
    """A call graph's text as a tree of branches: [text lines, pct, children]; the '|'
    connectors and blank separator lines, which follow the order, are left out."""
    root = ["", "", []]
    stack = [(-1, root)]
    for l in graph:
        m = BRANCH.search(l)
        if m:
            col = m.start()
            while stack[-1][0] >= col:
                stack.pop()
            node = [m.group(2).strip(), m.group(1), []]
            stack[-1][1][2].append(node)
            stack.append((col, node))
        elif l.strip(" |"):
            stack[-1][1][0] += " / " + l.strip(" |-")
    return root


def tie_sorted(items, pct, text, rx):
    """items in order; runs of equal pct(item) sorted by text(item) when one matches rx."""
    out, i = [], 0
    while i < len(items):
        j = i
        while j < len(items) and pct(items[j]) == pct(items[i]):
            j += 1
        run = items[i:j]
        if len(run) > 1 and any(rx.search(text(x)) for x in run):
            run = sorted(run, key=text)
        out.extend(run)
        i = j
    return out


def tree_text(node, rx, depth=0):
    kids = tie_sorted(node[2], lambda n: n[1], lambda n: "\n".join(tree_text(n, rx, 0)), rx)
    # (the root of an entry's graph: its text, if any, is the graph's first chain)
    out = ["%d %s %s" % (depth, node[1], node[0])] if node[0] or node[1] else []
    for k in kids:
        out.extend(tree_text(k, rx, depth + 1))
    return out


def untie(bl, rx, rx_branches):
    """Blocks with equal-percentage entries (and sibling branches) in a canonical order where
    one of them matches rx (or rx_branches, for branches); graphs as their trees' text."""
    head, rest = bl[0], bl[1:]
    both = re.compile("(?:%s)|(?:%s)" % (rx.pattern, rx_branches.pattern))
    rest = [(e, tree_text(graph_tree(g), both)) for e, g in rest]
    # (equal entries are those of equal first percentage: perf orders a children table's entries
    # of equal children by other means than their self percentage)
    rest = tie_sorted(rest, lambda b: PCTS.match(b[0]).group(1).split()[0],
                      lambda b: b[0] + "\n" + "\n".join(b[1]), rx)
    return [head] + rest


def drop_lines(a, b, rx):
    """Differing lines matching rx, with what they stand against on the other side."""
    keep_a, keep_b = [], []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            keep_a.extend(a[i1:i2])
            keep_b.extend(b[j1:j2])
            continue
        sa, sb = a[i1:i2], b[j1:j2]
        if op == "replace" and len(sa) == len(sb):
            for x, y in zip(sa, sb):
                if not (rx.search(x) or rx.search(y)):
                    keep_a.append(x)
                    keep_b.append(y)
            continue
        keep_a.extend(x for x in sa if not rx.search(x))
        keep_b.extend(y for y in sb if not rx.search(y))
    return keep_a, keep_b


def samples(lines):
    """A script listing as its samples: the blocks between blank lines."""
    out, cur = [], []
    for l in lines:
        cur.append(l)
        if not l.strip():
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def drop_unwound(a, b, rx):
    """Samples whose chain perf ends with frames matching rx, perfring going on past perf's
    other frames: perfring's sample taken as perf's (see 'unwound')."""
    sa, sb = samples(a), samples(b)
    if len(sa) != len(sb):
        return a, b
    out_b = []
    for pa, pb in zip(sa, sb):
        body = [l for l in pa if l.strip()]
        n = len(body)
        while n > 1 and rx.search(body[n - 1]):
            n -= 1
        ours = [l for l in pb if l.strip()]
        if pa != pb and n < len(body) and len(ours) > n and ours[:n] == body[:n]:
            out_b.extend(pa)
        else:
            out_b.extend(pb)
    return a, out_b


def join(rxs):
    """One regex matching where any of rxs does (none: matching nothing)."""
    rxs = list(rxs)
    return re.compile("|".join("(?:%s)" % rx.pattern for rx in rxs)) if rxs else NEVER


def ndiff(a, b):
    return sum(1 for l in difflib.unified_diff(a, b, n=0, lineterm="")
               if l[:1] in "+-" and not l.startswith(("+++", "---")))


def main():
    cell, perf_path, ours_path, accepted = sys.argv[1:5]
    report = cell.rsplit("/", 1)[-1].startswith("report")
    perf, ours = read_output(perf_path, report), read_output(ours_path, report)
    if perf == ours:
        print("same")
        return 0
    total = ndiff(perf, ours)
    rules = read_rules(accepted, cell)
    for kind, rx, cause in rules:
        if kind == "cell":
            print("accepted: %d line(s) differ: %s" % (total, cause))
            return 0
    used = []
    a, b = perf, ours
    # graphs dropped first, then the entries perf split, then ties put in order (all the ties
    # rules in one pass: the graphs are compared as trees from there on), then lines set aside
    for step, drop in (("graph", drop_graphs), ("split", drop_splits)):
        for kind, rx, cause in rules:
            if kind == step and report:
                before = ndiff(a, b)
                a, b = (unblocks(x) for x in drop(blocks(a), blocks(b), rx))
                if ndiff(a, b) < before:
                    used.append(cause)
    for kind, rx, cause in rules:
        if kind == "unwound" and not report and a != b:
            before = ndiff(a, b)
            a, b = drop_unwound(a, b, rx)
            if ndiff(a, b) < before:
                used.append(cause)
    ties = [(kind, rx, cause) for kind, rx, cause in rules if kind in ("ties", "branches")]
    if ties and report and a != b:
        def tied(only):
            rxs = [join(rx for k, rx, _ in only if k == kind) for kind in ("ties", "branches")]
            return unblocks(untie(blocks(a), *rxs)), unblocks(untie(blocks(b), *rxs))
        plain = ndiff(*tied([]))
        used.extend(cause for kind, rx, cause in ties if ndiff(*tied([(kind, rx, cause)])) < plain)
        a, b = tied(ties)
    for kind, rx, cause in rules:
        if kind == "line" and a != b:
            before = ndiff(a, b)
            a, b = drop_lines(a, b, rx)
            if ndiff(a, b) < before:
                used.append(cause)
    if a == b:
        print("accepted: %d line(s) differ: %s" % (total, "; ".join(used)))
        return 0
    print("differs: %d line(s) (- perf, + perfring)%s" % (
        ndiff(a, b), ", after accepting: " + "; ".join(used) if used else ""))
    shown = 0
    for l in difflib.unified_diff(a, b, n=0, lineterm=""):
        if l.startswith(("+++", "---")):
            continue
        print("     | " + l)
        shown += 1
        if shown >= CAP:
            print("     | ...")
            break
    return 1


if __name__ == "__main__":
    sys.exit(main())

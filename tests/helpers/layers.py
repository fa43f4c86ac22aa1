#!/usr/bin/env python3
"""Checks the built objects against the layer order of docs/DESIGN.md (tests/cli/layers.sh).

  layers.py DESIGN OBJDIR [ALLOWED]

DESIGN is the design document: its fenced block ```layers lists the library's layers, one a
line, bottom first (a layer calls only the layers listed before it). OBJDIR is a build's obj/
directory: obj/lib/<layer>/*.o are the library's objects, a layer a folder; obj/tools/<dir>/*.o,
when the build has them, the tool's (above every library layer; tools/shared below the commands,
which may call each other but not in a circle). ALLOWED lists the circles between files of one
layer that stay, one a line: "layer: file file ... | reason" (file names without .o).

Who calls whom comes from nm: a file calls another when one of its undefined symbols is a global
the other defines. Prints one line per problem (nothing when all is well):
  - a library folder that the order does not list;
  - a call from a layer to one above it (or from the library into the tool);
  - a circle between files of different layers;
  - a circle between files of one layer that ALLOWED does not list, and a listed one that is gone.
Exits 2 when it cannot run (no order, no objects, nm failing).
"""
import glob
import os
import re
import subprocess
import sys


def die(msg):
    print("layers.py: " + msg, file=sys.stderr)
    sys.exit(2)


def read_order(design):
    """The ```layers block of the design document: layer names, bottom first."""
    order, inside = [], False
    for line in open(design):
        s = line.strip()
        if not inside and s == "```layers":
            inside = True
        elif inside and s.startswith("```"):
            break
        elif inside:
            name = s.split("#", 1)[0].split()
            if name:
                order.append(name[0])
    if not order:
        die(f"{design} has no ```layers block (the layer order, bottom first)")
    dup = sorted({n for n in order if order.count(n) > 1})
    if dup:
        die(f"{design}'s layer order lists {', '.join(dup)} twice")
    return order


def read_allowed(path):
    """{(layer, frozenset of files): reason} from "layer: f1 f2 | reason" lines."""
    allowed = {}
    if not path:
        return allowed
    for n, line in enumerate(open(path), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = re.match(r"^([\w/]+):\s*([^|]+)\|\s*(\S.*)$", s)
        if not m:
            die(f"{path}:{n}: want 'layer: file file ... | reason', got: {s}")
        allowed[(m.group(1), frozenset(m.group(2).split()))] = m.group(3)
    return allowed


def units(objdir, order):
    """[(object path, layer, rank, source name)]: rank orders the layers, bottom 0."""
    out, problems = [], []
    rank = {name: i for i, name in enumerate(order)}
    for d in sorted(glob.glob(os.path.join(objdir, "lib", "*", ""))):
        layer = os.path.basename(os.path.dirname(d))
        if layer not in rank:
            problems.append(f"src/{layer}/ is a library folder the layer order does not list: "
                            "add it to the ```layers block of docs/DESIGN.md where it belongs")
            continue
        for o in sorted(glob.glob(d + "*.o")):
            out.append((o, layer, rank[layer], f"src/{layer}/{os.path.basename(o)[:-2]}.c"))
    top = len(order)
    for d in sorted(glob.glob(os.path.join(objdir, "tools", "*", ""))):
        sub = os.path.basename(os.path.dirname(d))
        r = top if sub == "shared" else top + 1
        for o in sorted(glob.glob(d + "*.o")):
            out.append((o, "tools/" + sub, r, f"tools/{sub}/{os.path.basename(o)[:-2]}.c"))
    if not any(u[1] in rank for u in out):
        die(f"no library objects under {objdir}/lib/<layer>/ (build first)")
    return out, problems


def symbols(objs):
    """({object: set of undefined}, {global symbol: [defining objects]}) from one nm run."""
    r = subprocess.run(["nm", "-A", "-g"] + objs, capture_output=True, text=True)
    if r.returncode != 0:
        die("nm failed: " + r.stderr.strip().splitlines()[0])
    undef, defs = {o: set() for o in objs}, {}
    for line in r.stdout.splitlines():
        m = re.match(r"^(.*\.o):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        path, kind, sym = m.groups()
        if kind == "U":
            undef[path].add(sym)
        elif kind not in "wvN":  # weak references and debug symbols define nothing to call
            defs.setdefault(sym, []).append(path)
    return undef, defs


def circles(nodes, edges):
    """The strongly connected sets of more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    if len(sys.argv) not in (3, 4):
        die("usage: layers.py DESIGN OBJDIR [ALLOWED]")
    order = read_order(sys.argv[1])
    allowed = read_allowed(sys.argv[3] if len(sys.argv) == 4 else None)
    us, problems = units(sys.argv[2], order)
    info = {u[0]: u for u in us}
    undef, defs = symbols([u[0] for u in us])

    edges = {}
    for o, layer, rank, src in us:
        for sym in sorted(undef[o]):
            for d in defs.get(sym, ()):
                if d == o:
                    continue
                edges.setdefault(o, set()).add(d)
                _, dlayer, drank, dsrc = info[d]
                if drank > rank:
                    where = ("the tool is above the library, tools/shared below the commands"
                             if dlayer.startswith("tools/") else "in docs/DESIGN.md's order")
                    problems.append(f"{src} ({layer}) calls {sym}() of {dsrc} ({dlayer}), a layer above it "
                                    f"({where})")

    seen = set()
    for comp in circles([u[0] for u in us], edges):
        layers = sorted({info[o][1] for o in comp})
        names = " ".join(info[o][3] for o in comp)
        if len(layers) > 1:
            problems.append(f"circle between files of different layers ({', '.join(layers)}): {names}")
            continue
        key = (layers[0], frozenset(os.path.basename(o)[:-2] for o in comp))
        seen.add(key)
        if key not in allowed:
            problems.append(f"circle between files of {layers[0]}: {names}: break it (a file calls "
                            "only the files below it), or list it with its reason in tests/cli/layers.sh")
    for key in sorted(set(allowed) - seen, key=lambda k: (k[0], sorted(k[1]))):
        problems.append(f"tests/cli/layers.sh lists the circle {key[0]}: {' '.join(sorted(key[1]))}, "
                        "which the objects no longer have: remove it from the list")
    for p in problems:
        print(p)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Mutate perf.data corpus files and check how `perfring script` and `perfring report` fail.

Not part of make check (it takes minutes): run it after touching how the readers end.

    scripts/mutate-check.py [--build build] [--runs 300] [--seed 1] [--corpus DIR] [--keep DIR]

Each run copies a corpus file (PERFRING_PERFDATA_CORPUS, or ../shared/corpus/perf.data beside
the checkout, and tests/data by default), changes a few bytes (random bytes, a u16/u32/u64 set to 0, -1 or
a large value, or a truncation), and runs script and report on it. Each must:
  - end by itself: no signal, no sanitizer report, within 60 s;
  - exit 0 or 1 (perfring(1): 1 when the file is corrupt or a sample could not
    be decoded), never 2 (a usage error) or anything else;
  - print at most one error line ("perfring CMD: ..." that is not a warning),
    exactly one when it exits 1 and none when it exits 0.
A failing case is kept (--keep, default /tmp/perfring-mutate) with its
command line. Prints one line per failure and a summary; exits 1 on any.
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpus_files(dirs):
    out = []
    for d in dirs:
        for base, _, names in os.walk(d):
            for n in names:
                p = os.path.join(base, n)
                if n.startswith(("LICENSE", "README")) or n.endswith((".md", ".txt", ".json")):
                    continue
                if os.path.getsize(p) <= (4 << 20):
                    with open(p, "rb") as f:
                        magic = f.read(8)
                    if magic in (b"PERFILE2", b"2ELIFREP"):
                        out.append(p)
    return sorted(out)


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if not b:
            break
        kind = rng.random()
        # most mutations after the header: the records are what the readers walk
        lo = 0 if rng.random() < 0.2 else min(len(b) - 1, 104)
        off = rng.randrange(lo, len(b))
        if kind < 0.35:
            b[off] = rng.randrange(256)
        elif kind < 0.75:
            width = rng.choice((2, 4, 8))
            if off + width > len(b):
                continue
            val = rng.choice((0, (1 << (8 * width)) - 1, 1 << (8 * width - 1), rng.randrange(1 << (8 * width))))
            b[off:off + width] = val.to_bytes(width, "little")
        elif kind < 0.9:
            # a record header's size: the commonest corruption to walk into
            if off + 8 <= len(b):
                struct.pack_into("<H", b, off + 6, rng.choice((0, 1, 8, 0xffff, rng.randrange(65536))))
        else:
            del b[rng.randrange(len(b) // 2, len(b)):]
    return bytes(b)


ERR_RE = re.compile(r"^perfring (script|report): ")


def check(cmd, rc, err, timed_out):
    lines = err.decode("utf-8", "replace").splitlines()
    said = [l for l in lines if ERR_RE.match(l)]
    errors = [l for l in said if not ERR_RE.sub("", l).startswith("warning:")]
    why = []
    if timed_out:
        why.append("did not end in 60 s")
    if any("Sanitizer" in l or "runtime error" in l for l in lines):
        why.append("sanitizer report")
    if rc < 0 or rc > 1:
        why.append("exit status %d" % rc)
    if len(errors) > 1:
        why.append("%d error lines: %s" % (len(errors), " | ".join(errors[:3])))
    if errors and said[-1] != errors[0]:
        why.append("a line after the error: %s" % said[-1])
    if rc == 1 and not errors:
        why.append("exit 1 without an error line")
    if rc == 0 and errors:
        why.append("exit 0 with an error line: %s" % errors[0])
    if rc == 0 and any("could not be decoded" in l for l in said):
        why.append("exit 0 with samples that could not be decoded")
    return why


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", action="append")
    ap.add_argument("--keep", default="/tmp/perfring-mutate")
    a = ap.parse_args()
    tool = os.path.abspath(os.path.join(a.build, "perfring"))
    shared = os.environ.get("PERFRING_PERFDATA_CORPUS") or os.path.join(ROOT, "..", "shared", "corpus", "perf.data")
    dirs = a.corpus or [d for d in (shared, os.path.join(ROOT, "tests/data"))
                        if os.path.isdir(d)]
    files = corpus_files(dirs)
    if not files:
        print("no perf.data files under %s" % ", ".join(dirs))
        return 1
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="perfring-mutate.")
    env = dict(os.environ, PERFRING_THREADS="1", ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
    fails = runs = exits1 = undecoded = 0
    try:
        for i in range(a.runs):
            src = rng.choice(files)
            with open(src, "rb") as f:
                data = mutate(f.read(), rng)
            path = os.path.join(tmp, "m.data")
            with open(path, "wb") as f:
                f.write(data)
            for cmd in (["script", "-i", path], ["report", "-i", path, "--stdio"]):
                runs += 1
                timed_out = False
                try:
                    p = subprocess.run([tool] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       env=env, timeout=60, cwd=tmp)
                    rc, err = p.returncode, p.stderr
                except subprocess.TimeoutExpired as e:
                    rc, err, timed_out = 0, e.stderr or b"", True
                exits1 += rc == 1
                undecoded += b"could not be decoded" in err
                why = check(cmd[0], rc, err, timed_out)
                if why:
                    fails += 1
                    os.makedirs(a.keep, exist_ok=True)
                    kept = os.path.join(a.keep, "case%d-%s.data" % (i, cmd[0]))
                    shutil.copy(path, kept)
                    print("FAIL run %d (%s, from %s): %s; kept as %s (perfring %s)" %
                          (i, cmd[0], os.path.basename(src), "; ".join(why), kept,
                           " ".join(cmd[:1] + ["-i", kept] + cmd[3:])))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d files mutated %d times, %d runs: %d exited 1, %d with undecodable samples, %d failed the rules" %
          (len(files), a.runs, runs, exits1, undecoded, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

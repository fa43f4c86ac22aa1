#!/usr/bin/env python3
# Seeds of the exports' fuzz target (tests/fuzz/export_fuzz.c) in tests/fuzz/corpus/export/:
# scripts of samples in the target's input layout (mode byte, four binaries, a build id,
# then per sample: nframes, pid, tid, comm, time, event, period, with mode bit 4 a label's key and
# value and a byte choosing one or two labels, and per frame: flags, address,
# name, build id size, file (flag 32), line). Names hold what output formats must survive: ';',
# spaces, quotes, backslashes, newlines, control bytes, C++ argument lists, invalid UTF-8.
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "export")
os.makedirs(out, exist_ok=True)


def s(b):
    return bytes([len(b) + 1]) + b if len(b) + 1 < 256 else bytes([255]) + b[:254]


NAMES = [b"main", b"work;leaf", b"ns::f(int, char const*)", b"(anonymous namespace)::g()", b"say \"hi\"\\",
         b"line\nbreak\r", b"\x01\x7f", b"caf\xc3\xa9", b"bad\xff\xc3", b"\xed\xa0\x80surrogate", b"main.(*T).Run",
         b"", b"[unknown]", b"x" * 40]
BINS = [b"/usr/bin/app", b"[kernel.kallsyms]", b"/lib/libc.so.6", b"//anon"]


def seed(rng, nsamples, labels=False):
    b = bytearray([rng.randrange(2) | (16 if labels else 0)])
    for x in BINS:
        b += s(x)
    b += s(bytes(rng.randrange(256) for _ in range(19)))
    for _ in range(nsamples):
        nframes = rng.randrange(12)
        b += bytes([nframes, rng.randrange(4), rng.randrange(4)]) + s(rng.choice([b"app", b"my app", b"", b"a;b"]))
        b += bytes([rng.randrange(256), rng.randrange(2), rng.randrange(1, 256)])
        if labels:
            b += s(rng.choice([b"cgroup", b"host", b"a;b", b""])) + s(rng.choice(NAMES)) + bytes([rng.randrange(2)])
        for _ in range(nframes):
            flags = rng.randrange(256)
            b += bytes([flags, rng.randrange(16)])
            if not flags & 4:
                b += s(rng.choice(NAMES))
            if flags & 16:
                b += bytes([rng.choice([0, 16, 20, 21])])
            if flags & 32:
                b += s(rng.choice([b"a.c", b"dir/b\xffc.c", b""]))
            b += bytes([rng.randrange(256)])
    return bytes(b)


rng = random.Random(13)
for i, n in enumerate([1, 2, 5, 10, 20, 32, 32, 32]):
    with open(os.path.join(out, f"seed-{i:02d}"), "wb") as f:
        f.write(seed(rng, n))
with open(os.path.join(out, "empty"), "wb") as f:
    pass
# Samples with labels (cgroup paths, hosts: any bytes), from their own generator so that the
# seeds above stay as they were.
rng = random.Random(29)
for i, n in enumerate([3, 32], start=8):
    with open(os.path.join(out, f"seed-{i:02d}"), "wb") as f:
        f.write(seed(rng, n, labels=True))

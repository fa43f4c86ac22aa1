#!/usr/bin/env python3
"""Seeds of tests/fuzz/tracing_data_fuzz.c (layout in its opening comment), from perf.data files
that `perf record` writes of tracepoints: the HEADER_TRACING_DATA feature section (feature bit 1)
of each, after a raw sample of one of its tracepoints (its id read from the file's attr).
  make_tracing_data_seeds.py OUTDIR FILE...     (run from the source root)"""
import os
import struct
import sys


def feature(buf, bit):
    # perf_file_header: magic, size, attr_size, attrs{off,size}, data{off,size}, event_types{off,size},
    # adds_features[4 x u64]
    data_off, data_size = struct.unpack_from("<QQ", buf, 40)
    feats = struct.unpack_from("<4Q", buf, 72)
    sec = data_off + data_size
    idx = 0
    for b in range(bit):
        if feats[b // 64] >> (b % 64) & 1:
            idx += 1
    if not feats[bit // 64] >> (bit % 64) & 1:
        return None
    off, size = struct.unpack_from("<QQ", buf, sec + 16 * idx)
    return buf[off:off + size]


def first_tracepoint_id(buf):
    attrs_off, attrs_size = struct.unpack_from("<QQ", buf, 24)
    attr_size = struct.unpack_from("<Q", buf, 16)[0]
    for i in range(attrs_size // attr_size):
        typ, _, config = struct.unpack_from("<IIQ", buf, attrs_off + i * attr_size)
        if typ == 2:  # PERF_TYPE_TRACEPOINT
            return config
    return 0


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for i, path in enumerate(sys.argv[2:]):
    buf = open(path, "rb").read()
    td = feature(buf, 1)
    if not td:
        continue
    tid = first_tracepoint_id(buf)
    raw = struct.pack("<HBBi", tid, 0, 0, 1234) + b"comm\0\0\0\0\0\0\0\0\0\0\0\0" + struct.pack("<iii", 1, 2, 3)
    raw += b"\0" * (64 - len(raw))
    with open(os.path.join(out, "seed-%d" % i), "wb") as f:
        f.write(struct.pack("<H", len(raw)) + raw + td)
    # the tracing data cut short, and with a lying count
    with open(os.path.join(out, "seed-%d-cut" % i), "wb") as f:
        f.write(struct.pack("<H", len(raw)) + raw + td[: len(td) // 3])

#!/usr/bin/env python3
"""Seeds of tests/fuzz/ring_fuzz.c (layout in its opening comment): forward and overwrite
rings, wrapping, straddling and corrupt records, through every API. Writes tests/fuzz/corpus/ring/.
Run from the source root: python3 tests/fuzz/make_ring_seeds.py"""
import os
import struct

OUT = "tests/fuzz/corpus/ring"


def rec(rtype, size, fill=0xAB):
    return struct.pack("<IHH", rtype, 0, size) + bytes([fill]) * (size - 8)


def seed(name, flags, log2, body, head, tail, doff=0, extra=0, stop=0):
    prefix = bytes([flags, log2]) + struct.pack("<HH", doff, extra) + bytes([stop, 0]) \
        + struct.pack("<QQ", head % (1 << 64), tail % (1 << 64))
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(prefix + body)


def main():
    os.makedirs(OUT, exist_ok=True)
    records = rec(9, 32) + rec(9, 64, 0xCD) + rec(2, 24) + struct.pack("<IHHQQ", 2, 0, 24, 1, 5) + rec(9, 16)
    n = 0
    for api in range(5):
        for ow in (0, 1):
            for lin in (0, 2):
                flags = ow | lin | (api << 3)
                size = 4096 if ow == 0 else 256
                if ow:
                    seed("ow-%d-%d" % (api, lin), flags, 8, records * 4, -len(records), 0)
                else:
                    seed("fwd-%d-%d" % (api, lin), flags, 12, records, len(records), 0)
                    # a ring that wrapped: tail near the end, a record straddling
                    seed("wrap-%d-%d" % (api, lin), flags, 7, records * 2, 128 + 96, 96)
                    seed("stop-%d-%d" % (api, lin), flags | 0x40, 12, records, len(records), 0, stop=2)
                    seed("fail-%d-%d" % (api, lin), flags | 0xC0, 12, records, len(records), 0, stop=1)
                n += 1
    # corrupt headers and heads
    seed("bad-size0", 0, 12, struct.pack("<IHH", 9, 0, 0) + b"\0" * 56, 64, 0)
    seed("bad-size12", 0, 12, struct.pack("<IHH", 9, 0, 12) + b"\0" * 56, 64, 0)
    seed("bad-beyond-head", 0, 12, rec(9, 64), 32, 0)
    seed("bad-head-far", 0, 12, records, 1 << 40, 0)
    seed("bad-head-misaligned", 0, 12, records, 35, 0)
    seed("bad-head-behind", 0, 12, records, 0, 64)
    seed("ow-head-misaligned", 1, 8, records, -3, 0)
    seed("ow-head-end", 1, 12, records, 4092, 0)
    # hostile geometry (all refused but the last)
    seed("geo-tiny", 0, 1, records, 8, 0)
    seed("geo-legacy", 4, 12, records, len(records), 0)
    seed("geo-unaligned-off", 0, 12, records, 64, 0, doff=4100)
    seed("geo-over-meta", 0, 12, records, 64, 0, doff=1024)
    seed("geo-past-meta", 0, 12, records, 64, 0, doff=1088, extra=100)


if __name__ == "__main__":
    main()

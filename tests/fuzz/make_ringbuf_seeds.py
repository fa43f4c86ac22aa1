#!/usr/bin/env python3
"""Seeds of tests/fuzz/ringbuf_fuzz.c (layout in its opening comment): BPF ring buffer records
(plain, BUSY, DISCARD, wrapping the end of the data area), corrupt length words and positions,
with budgets, early stops and failures. Writes tests/fuzz/corpus/ringbuf/.
Run from the source root: python3 tests/fuzz/make_ringbuf_seeds.py"""
import os
import struct

OUT = "tests/fuzz/corpus/ringbuf"
BUSY, DISCARD = 1 << 31, 1 << 30


def rec(length, flags=0, fill=0x5A):
    total = (length + 8 + 7) & ~7
    return struct.pack("<II", length | flags, 0) + bytes([fill]) * (total - 8)


def seed(name, flags, log2, body, cons, prod, k=0, behind=0):
    """behind: overwrite rings (flag bit 6): overwrite_pos = prod - behind."""
    prefix = bytes([flags, log2, k, 0]) + struct.pack("<I", behind) + struct.pack("<QQ", cons % (1 << 64), prod % (1 << 64))
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(prefix + body)


def main():
    os.makedirs(OUT, exist_ok=True)
    good = rec(16) + rec(5) + rec(40, DISCARD) + rec(100) + rec(8)
    n = len(good)
    seed("plain", 0, 12, good, 0, n)
    seed("busy", 0, 12, rec(16) + rec(24, BUSY) + rec(8), 0, 64)
    seed("budget2", 2, 12, good, 0, n)
    seed("stop", 8, 12, good, 0, n, 2)
    seed("fail", 16, 12, good, 0, n, 3)
    seed("wrap", 0, 8, good + bytes(256 - n), 256 - 32, 256 - 32 + n)
    seed("too_long", 32, 10, rec(16) + struct.pack("<II", 5000, 0), 0, 64)
    seed("beyond_prod", 32, 10, rec(16) + struct.pack("<II", 64, 0), 0, 40)
    seed("misaligned_cons", 32, 10, good, 4, n)
    seed("misaligned_prod", 32, 10, good, 0, n - 4)
    seed("prod_far_ahead", 32, 10, good, 0, 1 << 40)
    seed("huge_discard", 32, 10, rec(16) + struct.pack("<II", DISCARD | 0x3ffffff8, 0), 0, 64)
    seed("tiny_ring", 0, 3, struct.pack("<II", 0, 0), 0, 8)
    seed("high_positions", 1, 12, good, (1 << 64) - 16, (1 << 64) - 16 + n)
    # Overwrite rings (BPF_F_RB_OVERWRITE): newest first, from max(consumer_pos, overwrite_pos).
    OW = 64
    seed("ow_plain", OW, 12, good, 0, n, behind=n)
    seed("ow_wrapped", OW, 8, good + bytes(256 - n), 0, 3 * 256 + n, behind=n)  # consumer_pos far behind
    seed("ow_wrap_end", OW, 8, good + bytes(256 - n), 256 - 32, 256 - 32 + n, behind=n)
    seed("ow_busy", OW, 12, rec(16) + rec(24, BUSY) + rec(8), 0, 64, behind=64)
    seed("ow_budget_stop", OW | 2 | 8, 12, good, 0, n, 1, behind=n)
    seed("ow_fail", OW | 16, 12, good, 0, n, 2, behind=n)
    seed("ow_seen_ahead", OW, 12, good, 24, n, behind=n)  # consumer_pos newer than overwrite_pos
    seed("ow_too_long", OW | 32, 10, rec(16) + struct.pack("<II", 5000, 0), 0, 64, behind=64)
    seed("ow_misaligned", OW | 32, 10, good, 0, n, behind=n - 4)
    seed("ow_far_behind", OW | 32, 10, good, 0, 1 << 20, behind=1 << 20)
    seed("ow_ahead", OW, 10, good, 0, n, behind=0xfffffff0)  # overwrite_pos past producer_pos
    seed("ow_full", OW, 6, rec(16) + rec(24) + rec(0), 0, 64, behind=64)  # a full ring


if __name__ == "__main__":
    main()

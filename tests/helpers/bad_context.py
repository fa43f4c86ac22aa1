#!/usr/bin/env python3
"""Put a context marker perf does not know into some samples' call chains.

    bad_context.py IN OUT EVERY

Every EVERY-th sample with a call chain of three entries or more gets
0xffffffffffffffff (above PERF_CONTEXT_MAX, no context perf knows) as its
call chain's third entry; the rest of the file is copied as it is. perf
drops such a chain whole (thread__resolve_callchain_sample()) and still
counts the sample at its ip. The file must have one event whose sample_type
has no PERF_SAMPLE_READ (as `perf record -e cpu-clock -g` writes it).
Prints the number of samples changed; exits 1 with a one-line reason when
it cannot.
"""
import struct
import sys

PERF_RECORD_SAMPLE = 9
# The u64 fields a sample has before its call chain, in the kernel's order.
BEFORE_CALLCHAIN = [
    1 << 16,  # IDENTIFIER
    1 << 0,  # IP
    1 << 1,  # TID
    1 << 2,  # TIME
    1 << 3,  # ADDR
    1 << 6,  # ID
    1 << 9,  # STREAM_ID
    1 << 7,  # CPU
    1 << 8,  # PERIOD
]
SAMPLE_READ, SAMPLE_CALLCHAIN = 1 << 4, 1 << 5


def main():
    src, dst, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
    b = bytearray(open(src, "rb").read())
    if b[:8] != b"PERFILE2":
        sys.exit(f"bad_context: {src}: not a perf.data file")
    attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    if attrs_size == 0:
        sys.exit(f"bad_context: {src}: no attrs")
    sample_type = struct.unpack_from("<Q", b, attrs_off + 24)[0]
    if sample_type & SAMPLE_READ or not sample_type & SAMPLE_CALLCHAIN:
        sys.exit(f"bad_context: {src}: sample_type {sample_type:#x}: want CALLCHAIN and no READ")
    skip = 8 * sum(1 for bit in BEFORE_CALLCHAIN if sample_type & bit)
    pos, end, seen, changed = data_off, data_off + data_size, 0, 0
    while pos + 8 <= end:
        rtype, _misc, size = struct.unpack_from("<IHH", b, pos)
        if size < 8:
            sys.exit(f"bad_context: {src}: record of size {size} at {pos}")
        if rtype == PERF_RECORD_SAMPLE:
            nr = struct.unpack_from("<Q", b, pos + 8 + skip)[0]
            if nr >= 3:
                seen += 1
                if seen % every == 0:
                    struct.pack_into("<Q", b, pos + 8 + skip + 8 + 2 * 8, 0xFFFFFFFFFFFFFFFF)
                    changed += 1
        pos += size
    open(dst, "wb").write(b)
    print(changed)
    if not changed:
        sys.exit(f"bad_context: {src}: no sample with a call chain of 3 entries")


if __name__ == "__main__":
    main()

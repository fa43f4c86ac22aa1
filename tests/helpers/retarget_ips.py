#!/usr/bin/env python3
"""Rewrite a perf.data file's sample addresses to walk a range of a binary.

    retarget_ips.py IN OUT BINARY FROM TO

Every user-mode sample whose ip lies in BINARY's executable mapping (its
first MMAP2 with PROT_EXEC) gets, in file order, the address of file offset
FROM, FROM + 1, ... up to TO (exclusive); the rest of the file is copied as
it is. So perf script and perfring script can be asked to name every byte of
a part of a binary (its .init and .plt) from a real recording. The file must
have one event whose samples start with the ip (PERF_SAMPLE_IP, no
IDENTIFIER), as `perf record -e cpu-clock` writes it. Prints the number of
samples rewritten; exits 1 with a one-line reason when it cannot.
"""
import struct
import sys

PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE = 10, 9
SAMPLE_IP, SAMPLE_IDENTIFIER = 1 << 0, 1 << 16
CPUMODE_USER = 2


def main():
    src, dst, binary = sys.argv[1], sys.argv[2], sys.argv[3]
    lo, hi = int(sys.argv[4], 0), int(sys.argv[5], 0)
    b = bytearray(open(src, "rb").read())
    if b[:8] != b"PERFILE2":
        sys.exit(f"retarget_ips: {src}: not a perf.data file")
    attrs_off, attrs_size = struct.unpack_from("<QQ", b, 24)
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    sample_type = struct.unpack_from("<Q", b, attrs_off + 24)[0]
    if not sample_type & SAMPLE_IP or sample_type & SAMPLE_IDENTIFIER:
        sys.exit(f"retarget_ips: {src}: samples do not start with the ip (sample_type {sample_type:#x})")
    mapping, nxt, n = None, lo, 0
    off, end = data_off, data_off + data_size
    while off + 8 <= end and nxt < hi:
        typ, misc, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            sys.exit(f"retarget_ips: {src}: record of size {size} at {off}")
        if typ == PERF_RECORD_MMAP2 and mapping is None:
            pid, _tid, start, length, pgoff = struct.unpack_from("<IIQQQ", b, off + 8)
            prot = struct.unpack_from("<I", b, off + 8 + 32 + 24)[0]
            name = bytes(b[off + 8 + 32 + 32:off + size]).split(b"\0")[0].decode(errors="replace")
            if name == binary and prot & 4:
                mapping = (pid, start, length, pgoff)
        elif typ == PERF_RECORD_SAMPLE and mapping and (misc & 7) == CPUMODE_USER:
            ip, pid = struct.unpack_from("<QI", b, off + 8)
            mpid, start, length, pgoff = mapping
            if pid == mpid and start <= ip < start + length and pgoff <= nxt < pgoff + length:
                struct.pack_into("<Q", b, off + 8, start + nxt - pgoff)
                nxt += 1
                n += 1
        off += size
    if mapping is None:
        sys.exit(f"retarget_ips: {src}: no executable MMAP2 of {binary}")
    if nxt < hi:
        sys.exit(f"retarget_ips: {src}: {n} samples in {binary}, {hi - lo} wanted")
    open(dst, "wb").write(b)
    print(n)


if __name__ == "__main__":
    main()

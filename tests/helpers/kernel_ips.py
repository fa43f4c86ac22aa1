#!/usr/bin/env python3
"""Rewrite a perf.data file's first kernel-mode sample addresses.

    kernel_ips.py IN OUT ADDR...

The first kernel-mode samples get, in file order, the addresses given
(hex); "etext-1" and "etext" stand for the last byte of the file's
[kernel.kallsyms]_text MMAP and the first past it, so a test can ask
perf script and perfring script to name kernel addresses no recorded map
holds (a BPF program's JIT code without a KSYMBOL record, .init.text)
from a real recording. The file must have one event whose samples start
with the ip and carry no call chain (`perf record -a -e cpu-clock`).
Prints the addresses written, one a line; exits 1 with a one-line reason
when it cannot.
"""
import struct
import sys

PERF_RECORD_MMAP, PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE = 1, 10, 9
SAMPLE_IP, SAMPLE_CALLCHAIN, SAMPLE_IDENTIFIER = 1 << 0, 1 << 5, 1 << 16
CPUMODE_KERNEL = 1


def main():
    src, dst, want = sys.argv[1], sys.argv[2], sys.argv[3:]
    b = bytearray(open(src, "rb").read())
    if b[:8] != b"PERFILE2":
        sys.exit(f"kernel_ips: {src}: not a perf.data file")
    attrs_off = struct.unpack_from("<Q", b, 24)[0]
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    sample_type = struct.unpack_from("<Q", b, attrs_off + 24)[0]
    if not sample_type & SAMPLE_IP or sample_type & (SAMPLE_IDENTIFIER | SAMPLE_CALLCHAIN):
        sys.exit(f"kernel_ips: {src}: samples do not start with the ip or have call chains "
                 f"(sample_type {sample_type:#x})")
    kend, addrs, done = None, [], []
    off, end = data_off, data_off + data_size
    while off + 8 <= end and len(done) < len(want):
        typ, misc, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            sys.exit(f"kernel_ips: {src}: record of size {size} at {off}")
        if typ in (PERF_RECORD_MMAP, PERF_RECORD_MMAP2) and kend is None:
            pid, _tid, start, length = struct.unpack_from("<iIQQ", b, off + 8)
            name_off = off + 8 + (32 + 32 if typ == PERF_RECORD_MMAP2 else 32)
            name = bytes(b[name_off:off + size]).split(b"\0")[0]
            if pid == -1 and name.startswith(b"[kernel.kallsyms]"):
                kend = start + length
                addrs = [kend - 1 if a == "etext-1" else kend if a == "etext" else int(a, 16) for a in want]
        elif typ == PERF_RECORD_SAMPLE and kend is not None and (misc & 7) == CPUMODE_KERNEL:
            struct.pack_into("<Q", b, off + 8, addrs[len(done)])
            done.append(addrs[len(done)])
        off += size
    if kend is None:
        sys.exit(f"kernel_ips: {src}: no [kernel.kallsyms] MMAP")
    if len(done) < len(want):
        sys.exit(f"kernel_ips: {src}: {len(done)} kernel samples, {len(want)} wanted")
    open(dst, "wb").write(b)
    for a in done:
        print(f"{a:x}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# Check what `perfring pipe` printed (text, json or raw) against the samples
# tests/helpers/pin_producer writes: {u64 seq; u32 cpu; u32 len; pattern...},
# pattern byte i = (i * 7 + 3) & 0xff (tests/bpf/producer.h), delivered padded so
# that 4 + size is a multiple of 8. With PIPE_CHECK_RINGBUF=1 the samples
# come from a BPF ring buffer (tests/helpers/pin_rb_producer): exact sizes,
# cpu -1 (0xffffffff in raw frames); cpu0 then counts them.
#
#   pipe_check.py FORMAT FILE
# prints one line: samples lost bad cpu0 cpu1 lens sizes dupseq firstbad...
import json
import os
import struct
import sys

RINGBUF = os.environ.get("PIPE_CHECK_RINGBUF") == "1"
from collections import Counter


def padded(n):
    return ((n + 4 + 7) & ~7) - 4


class Check:
    def __init__(self):
        self.samples = 0
        self.lost = 0
        self.bad = 0
        self.why = ""
        self.cpus = Counter()
        self.lens = set()
        self.sizes = set()
        self.seqs = Counter()

    def fail(self, why):
        self.bad += 1
        if not self.why:
            self.why = why

    def sample(self, cpu, size, data):
        self.samples += 1
        self.cpus[cpu] += 1
        self.sizes.add(size)
        if len(data) != size:
            return self.fail("sample %d: size %d but %d bytes" % (self.samples, size, len(data)))
        if size < 16:
            return self.fail("sample %d: %d bytes, shorter than the header" % (self.samples, size))
        seq, scpu, slen = struct.unpack_from("<QII", data)
        self.lens.add(slen)
        self.seqs[seq] += 1
        if RINGBUF:
            if cpu not in (-1, 0xFFFFFFFF):
                self.fail("sample %d: cpu %d from a ring buffer (want -1)" % (self.samples, cpu))
            self.cpus[cpu] -= 1
            self.cpus[0] += 1
            if size != slen:
                self.fail("sample %d: len %d delivered as %d bytes" % (self.samples, slen, size))
        elif scpu != cpu:
            self.fail("sample %d: cpu field %d in the ring of cpu %d" % (self.samples, scpu, cpu))
        if not RINGBUF and size != padded(slen):
            self.fail("sample %d: len %d delivered as %d bytes, want %d" % (self.samples, slen, size, padded(slen)))
        for i in range(16, min(slen, size)):
            if data[i] != (i * 7 + 3) & 0xFF:
                return self.fail("sample %d (seq %d): byte %d is %#x, want %#x"
                                 % (self.samples, seq, i, data[i], (i * 7 + 3) & 0xFF))

    def lost_notice(self, cpu, n):
        if n <= 0:
            self.fail("lost notice of %d" % n)
        self.lost += n

    def line(self):
        dup = sum(c - 1 for c in self.seqs.values() if c > 1)
        return "%d %d %d %d %d %s %s %d %s" % (
            self.samples, self.lost, self.bad, self.cpus[0], self.cpus[1],
            ",".join(str(x) for x in sorted(self.lens)) or "-",
            ",".join(str(x) for x in sorted(self.sizes)) or "-", dup, self.why.replace(" ", "_") or "-")


def parse_text(c, raw):
    cur = None  # [cpu, size, bytearray]
    want_num = 1

    def close():
        if cur is not None:
            c.sample(cur[0], cur[1], bytes(cur[2]))

    for ln in raw.decode("latin-1").split("\n"):
        if not ln:
            continue
        if ln.startswith("sample "):
            close()
            w = ln.split()
            if len(w) != 6 or w[2] != "cpu" or w[4] != "size" or int(w[1]) != want_num:
                c.fail("bad header line %r (sample %d expected)" % (ln, want_num))
            want_num += 1
            cur = [int(w[3]), int(w[5]), bytearray()]
        elif ln.startswith("LOST "):
            close()
            cur = None
            w = ln.split()
            if len(w) != 4 or w[2] != "cpu":
                c.fail("bad LOST line %r" % ln)
                continue
            c.lost_notice(int(w[3]), int(w[1]))
        else:
            # hexdump -C: "%08x", two blanks, 16 x "xx " with a blank after
            # the 8th, then " |ascii|" (the ASCII may hold '|' itself).
            if cur is None or len(ln) < 62 or ln[59:61] != " |" or not ln.endswith("|"):
                c.fail("bad dump line %r" % ln)
                continue
            if int(ln[:8], 16) != len(cur[2]):
                c.fail("dump offset %s after %d bytes" % (ln[:8], len(cur[2])))
            chunk = bytes.fromhex("".join(ln[10:59].split()))
            asc = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
            if ln[61:-1] != asc:
                c.fail("ASCII column %r for bytes %s" % (ln[61:-1], chunk.hex()))
            cur[2] += chunk
    close()


def parse_json(c, raw):
    for n, ln in enumerate(raw.decode("utf-8").split("\n")):
        if not ln:
            continue
        try:
            o = json.loads(ln)
        except ValueError as e:
            c.fail("line %d is not JSON (%s): %r" % (n + 1, e, ln[:80]))
            continue
        if set(o) == {"cpu", "lost"}:
            c.lost_notice(o["cpu"], o["lost"])
        elif set(o) == {"cpu", "size", "data"}:
            c.sample(o["cpu"], o["size"], bytes.fromhex(o["data"]))
        else:
            c.fail("line %d has keys %s" % (n + 1, sorted(o)))


def parse_raw(c, raw):
    off = 0
    while off < len(raw):
        if len(raw) - off < 8:
            c.fail("%d trailing bytes" % (len(raw) - off))
            break
        word, cpu = struct.unpack_from("<II", raw, off)
        n = word & 0x7FFFFFFF
        body = raw[off + 8:off + 8 + n]
        if len(body) != n:
            c.fail("frame at %d: %d bytes of %d" % (off, len(body), n))
            break
        if word & 0x80000000:
            if n != 8:
                c.fail("lost frame with a %d-byte body" % n)
            else:
                c.lost_notice(cpu, struct.unpack("<Q", body)[0])
        else:
            c.sample(cpu, n, body)
        off += 8 + n


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    with open(path, "rb") as f:
        raw = f.read()
    c = Check()
    {"text": parse_text, "json": parse_json, "raw": parse_raw}[fmt](c, raw)
    print(c.line())


main()

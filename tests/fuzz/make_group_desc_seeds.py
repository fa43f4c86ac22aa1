#!/usr/bin/env python3
# Seeds of the group_desc fuzz target (tests/fuzz/group_desc_fuzz.c): the HEADER_GROUP_DESC feature
# of the corpus files that have one (quipper group_desc-4.14, lost_samples-4.4), and two crafted
# descriptions (two groups of four events, in either byte order). Usage: make_group_desc_seeds.py OUTDIR [CORPUS]
import os, struct, sys
out = sys.argv[1]
# The corpus beside the checkout unless given (PERFRING_PERFDATA_CORPUS, as the tests take it).
corpus = os.environ.get("PERFRING_PERFDATA_CORPUS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "corpus", "perf.data")
# The feature section table follows the data section (one (offset, size) per feature bit set).
def feature(path, bit):
    b = open(path, 'rb').read()
    if b[:8] != b'PERFILE2': return None
    hdr_size, attr_size = struct.unpack_from('<QQ', b, 8)
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    feats = b[72:72+32]
    bits = int.from_bytes(feats, 'little')
    if not (bits >> bit) & 1: return None
    idx = bin(bits & ((1 << bit) - 1)).count('1')
    sec = data_off + data_size + idx * 16
    off, size = struct.unpack_from('<QQ', b, sec)
    return b[off:off+size]
n = 0
for f, nattrs in (('perf.data.group_desc-4.14', 2), ('perf.data.lost_samples-4.4', 3)):
    d = feature((sys.argv[2] if len(sys.argv) > 2 else corpus) + '/quipper/' + f, 17)
    if d is None: continue
    open('%s/seed-%d' % (out, n), 'wb').write(bytes([nattrs << 1]) + d); n += 1
def s(name):
    raw = name.encode() + b'\0'
    ln = (len(raw) + 63) // 64 * 64
    return struct.pack('<I', ln) + raw.ljust(ln, b'\0')
# two named groups of 4 events, and the same swapped
g = struct.pack('<I', 2) + s('{anon_group}') + struct.pack('<II', 0, 2) + s('ipc') + struct.pack('<II', 2, 2)
open('%s/seed-%d' % (out, n), 'wb').write(bytes([4 << 1]) + g); n += 1
gs = struct.pack('>I', 2) + struct.pack('>I', 64) + b'{anon_group}'.ljust(64, b'\0') + struct.pack('>II', 0, 2) + struct.pack('>I', 64) + b'ipc'.ljust(64, b'\0') + struct.pack('>II', 2, 2)
open('%s/seed-%d' % (out, n), 'wb').write(bytes([(4 << 1) | 1]) + gs); n += 1
print(n, 'seeds')

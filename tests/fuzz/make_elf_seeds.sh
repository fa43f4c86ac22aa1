#!/usr/bin/env bash
# Seeds of tests/fuzz/elf_fuzz.c: small ELF files built from tests/helpers/sym_target.c (-g, so with
# DWARF lines and an inlined function), a stripped copy (.dynsym only), a MiniDebugInfo copy
# (.gnu_debugdata), a shared object, a copy without section headers, and damaged ones (truncated,
# bytes flipped in the headers, the symbol table and the DWARF). Run by hand; the output is committed.
#   tests/fuzz/make_elf_seeds.sh [OUTDIR]     (default tests/fuzz/corpus/elf)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-tests/fuzz/corpus/elf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
cc=${CC:-gcc}
$cc -O1 -g -rdynamic -o "$tmp/prog" tests/helpers/sym_target.c
$cc -O1 -g -fPIC -shared -o "$tmp/lib.so" tests/helpers/sym_target.c
cp "$tmp/prog" "$out/prog_g"
cp "$tmp/lib.so" "$out/lib_g.so"
objcopy --strip-all "$tmp/prog" "$out/prog_stripped"
objcopy --only-keep-debug "$tmp/prog" "$tmp/full.debug"
objcopy --strip-debug --remove-section .comment "$tmp/full.debug" "$tmp/symtab.elf"
xz -f "$tmp/symtab.elf"
objcopy --strip-all "$tmp/prog" "$tmp/mini"
objcopy --add-section .gnu_debugdata="$tmp/symtab.elf.xz" "$tmp/mini" "$out/prog_minidebuginfo"
python3 - "$tmp/prog" "$out" <<'PY'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
b = bytearray(open(src, 'rb').read())
# No section headers: e_shoff, e_shnum, e_shstrndx zeroed (build id from PT_NOTE only).
nosh = bytearray(b)
struct.pack_into('<Q', nosh, 0x28, 0)
struct.pack_into('<HHH', nosh, 0x3a, 0, 0, 0)
open(out + '/prog_no_sections', 'wb').write(nosh)
open(out + '/prog_trunc_64', 'wb').write(b[:64])
open(out + '/prog_trunc_half', 'wb').write(b[:len(b) // 2])
# Flip bytes in a fixed pseudo-random spread: headers, then everywhere.
seed = 12345
def rnd():
    global seed
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed
for name, lo, hi, n in (('prog_flip_headers', 0, 0x400, 24), ('prog_flip_all', 0, len(b), 200)):
    m = bytearray(b)
    for _ in range(n):
        i = lo + rnd() % (hi - lo)
        m[i] ^= 1 << (rnd() % 8)
    open(out + '/' + name, 'wb').write(m)
# Section sizes and offsets lied about: every section header's sh_size doubled.
shoff, = struct.unpack_from('<Q', b, 0x28)
shentsize, shnum = struct.unpack_from('<HH', b, 0x3a)
m = bytearray(b)
for i in range(shnum):
    off = shoff + i * shentsize + 0x20
    size, = struct.unpack_from('<Q', m, off)
    struct.pack_into('<Q', m, off, size * 2 + 8)
open(out + '/prog_big_sections', 'wb').write(m)
PY
ls -l "$out"

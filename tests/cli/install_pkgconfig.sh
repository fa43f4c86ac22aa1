#!/usr/bin/env bash
# `make install` into a DESTDIR, then build the examples against what was
# installed, as a user of the library would: C with pkg-config and the
# shared library, C++ (g++ -std=c++11), and a static link; run them. Checks
# the installed files, the SONAME, and that only perfring_* is exported.
. "$(dirname "$0")/lib.sh"

B=$PERFRING_BUILD
D="$T_TMP/dest"
cd "$T_ROOT" || exit 1

if ! make -s O="$B" install PREFIX=/usr DESTDIR="$D" >"$T_TMP/install.log" 2>&1; then
	fail make_install "make O=$B install PREFIX=/usr DESTDIR=... failed"
	t_show "$T_TMP/install.log" 30
	t_finish
	exit 1
fi
ok make_install

# --- installed files ---------------------------------------------------------
missing=""
for f in usr/include/perfring/common.h usr/include/perfring/ring.h usr/include/perfring/reader.h \
	usr/include/perfring/perfring.h usr/lib/libperfring.so.0.1.0 usr/lib/libperfring.so.0 usr/lib/libperfring.so \
	usr/lib/libperfring.a usr/lib/pkgconfig/perfring.pc usr/bin/perfring usr/share/man/man1/perfring.1 \
	usr/share/man/man1/perfring-record.1 usr/share/man/man1/perfring-report.1 usr/share/man/man1/perfring-script.1 \
	usr/share/man/man1/perfring-trace.1 usr/share/man/man1/perfring-pipe.1 \
	usr/share/man/man3/perfring.3 usr/share/man/man3/perfring_ring.3 usr/share/man/man3/perfring_reader.3; do
	[ -e "$D/$f" ] || missing="$missing $f"
done
t_check installed_files "missing in DESTDIR:$missing" [ -z "$missing" ]
t_check so_symlinks "libperfring.so -> libperfring.so.0 -> libperfring.so.0.1.0 expected" \
	bash -c "[ \"\$(readlink '$D/usr/lib/libperfring.so')\" = libperfring.so.0 ] && [ \"\$(readlink '$D/usr/lib/libperfring.so.0')\" = libperfring.so.0.1.0 ]"
# include/ holds exactly what is installed, the BPF-side header of perfring/bpf/ too.
(cd include && find perfring -type f | sort) >"$T_TMP/hdr.tree"
(cd "$D/usr/include" && find perfring -type f | sort) >"$T_TMP/hdr.installed"
t_check headers_match_tree "installed headers differ from include/ (< tree, > installed): $(diff "$T_TMP/hdr.tree" "$T_TMP/hdr.installed" | grep '^[<>]' | head -n 4 | tr '\n' ' ')" \
	cmp -s "$T_TMP/hdr.tree" "$T_TMP/hdr.installed"
# The BPF-side header of ring buffer lost counts, under perfring/bpf/: a BPF
# program built against the installed tree gets the lost map the reader reads.
cat >"$T_TMP/rb_user.bpf.c" <<'EOF2'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <perfring/bpf/perfring_ringbuf.bpf.h>
struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 4096); } rb SEC(".maps");
SEC("tracepoint/syscalls/sys_enter_getpid")
int prog(void *ctx)
{
	long v = 5, *p = perfring_ringbuf_reserve(&rb, 8, 0);

	if (p) {
		*p = 1;
		bpf_ringbuf_submit(p, 0);
	}
	return perfring_ringbuf_output(&rb, &v, sizeof(v), 0) ? 1 : 0;
}
char LICENSE[] SEC("license") = "GPL";
EOF2
t_check installed_bpf_header "bpf/perfring_ringbuf.bpf.h missing or a BPF program does not build with it (perfring_rb_lost map): $(head -c 300 "$T_TMP/rb_user.err" 2>/dev/null)" \
	bash -c "[ -f '$D/usr/include/perfring/bpf/perfring_ringbuf.bpf.h' ] &&
		 clang -O2 -g -target bpf -I/usr/include/\$(gcc -print-multiarch) -I'$D/usr/include' -c '$T_TMP/rb_user.bpf.c' \
			-o '$T_TMP/rb_user.bpf.o' 2>'$T_TMP/rb_user.err' && bpftool btf dump file '$T_TMP/rb_user.bpf.o' | grep -q perfring_rb_lost"

so="$D/usr/lib/libperfring.so.0.1.0"
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
t_check soname "SONAME is '$soname', not libperfring.so.0" [ "$soname" = libperfring.so.0 ]
nm -D --defined-only "$so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}' | sort -u >"$T_TMP/syms"
strays=$(grep -v '^perfring_' "$T_TMP/syms" | head -n 5 | tr '\n' ' ')
t_check exports_only_perfring "exported symbols without the perfring_ prefix: $strays" \
	bash -c "[ -s '$T_TMP/syms' ] && [ -z '$strays' ]"
# Every function a public header declares is exported.
grep -ohE 'PERFRING_API [^(]*\(' "$D"/usr/include/perfring/*.h | grep -oE 'perfring_[a-z0-9_]+ *\($' |
	tr -d ' (' | sort -u >"$T_TMP/declared"
unexported=$(comm -23 "$T_TMP/declared" "$T_TMP/syms" | tr '\n' ' ')
t_check exports_every_api "declared but not exported: $unexported" \
	bash -c "[ -s '$T_TMP/declared' ] && [ -z '$unexported' ]"

# --- pkg-config ----------------------------------------------------------------
pc() { PKG_CONFIG_LIBDIR="$D/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D" pkg-config "$@"; }
t_check pc_version "pkg-config --modversion perfring: '$(pc --modversion perfring 2>&1)'" \
	[ "$(pc --modversion perfring 2>/dev/null)" = 0.1.0 ]
t_check pc_prefix "the installed perfring.pc has '$(grep '^prefix=' "$D/usr/lib/pkgconfig/perfring.pc")', not prefix=/usr" \
	grep -qx 'prefix=/usr' "$D/usr/lib/pkgconfig/perfring.pc"
flags=$(pc --cflags --libs perfring 2>&1)
t_check pc_flags "pkg-config --cflags --libs perfring gave '$flags'" \
	bash -c "echo '$flags' | grep -q -- '-I$D/usr/include' && echo '$flags' | grep -q -- '-L$D/usr/lib' && echo '$flags' | grep -q -- '-lperfring'"
bpflibs=$(pkg-config --libs libbpf 2>/dev/null || echo -lbpf)

# --- C example, shared library -------------------------------------------------
run_lib() { LD_LIBRARY_PATH="$D/usr/lib" "$@"; }
if gcc -std=gnu11 -Wall -Wextra -o "$T_TMP/hello_c" examples/hello_reader.c -I"$B/bpf" $flags $bpflibs \
	>"$T_TMP/cc.log" 2>&1; then
	ok build_c_pkgconfig
	t_check c_links_shared "hello_reader does not need libperfring.so.0" \
		bash -c "readelf -d '$T_TMP/hello_c' | grep -q 'NEEDED.*\[libperfring.so.0\]'"
	t_check c_uses_installed_lib "ldd does not resolve libperfring.so.0 into DESTDIR" \
		bash -c "LD_LIBRARY_PATH='$D/usr/lib' ldd '$T_TMP/hello_c' | grep -q 'libperfring.so.0 => $D/usr/lib/libperfring.so.0'"
	if t_need_root; then
		t_run "$T_TMP/c.out" "$T_TMP/c.err" run_lib timeout 30 "$T_TMP/hello_c" 7
		if [ "$T_RC" -eq 0 ] && [ "$(tail -n 1 "$T_TMP/c.out")" = "7 samples" ] &&
			[ "$(grep -c '^sample seq=[0-6] cpu=[0-9]* len=64 (68 bytes with padding): payload intact$' "$T_TMP/c.out")" -eq 7 ]; then
			ok run_c_example
		else
			fail run_c_example "hello_reader 7: exit $T_RC, want 7 intact samples and '7 samples'"
			t_show "$T_TMP/c.out"
			t_show "$T_TMP/c.err"
		fi
	else
		skip run_c_example "needs root to load BPF programs"
	fi
else
	fail build_c_pkgconfig "gcc examples/hello_reader.c \$(pkg-config --cflags --libs perfring) failed"
	t_show "$T_TMP/cc.log" 20
fi

# --- C++ example ---------------------------------------------------------------
if g++ -std=c++11 -Wall -Wextra -pedantic -Werror -o "$T_TMP/hello_cxx" examples/hello_reader.cpp $flags $bpflibs \
	>"$T_TMP/cxx.log" 2>&1; then
	ok build_cxx_pkgconfig
	if t_need_root; then
		ncpu=$(grep -c . <<<"$(awk -F, '{for (i = 1; i <= NF; i++) {n = split($i, r, "-"); if (n == 2) for (c = r[1]; c <= r[2]; c++) print c; else print r[1]}}' /sys/devices/system/cpu/online)")
		ringbytes=$((8 * $(getconf PAGESIZE)))
		t_run "$T_TMP/x.out" "$T_TMP/x.err" run_lib timeout 30 "$T_TMP/hello_cxx"
		if [ "$T_RC" -eq 0 ] && grep -Eq "^libperfring 0\.1\.0: $ncpu rings of $ringbytes bytes$" "$T_TMP/x.out" &&
			grep -q '^poll: .*, 0 records$' "$T_TMP/x.out"; then
			ok run_cxx_example
		else
			fail run_cxx_example "hello_reader.cpp: exit $T_RC, want '$ncpu rings of $ringbytes bytes' and an empty poll"
			t_show "$T_TMP/x.out"
			t_show "$T_TMP/x.err"
		fi
	else
		skip run_cxx_example "needs root to create BPF maps"
	fi
else
	fail build_cxx_pkgconfig "g++ -std=c++11 -pedantic -Werror examples/hello_reader.cpp failed"
	t_show "$T_TMP/cxx.log" 20
fi

# --- static library --------------------------------------------------------------
if gcc -std=gnu11 -o "$T_TMP/hello_static" examples/hello_reader.c -I"$B/bpf" $(pc --cflags perfring) \
	"$D/usr/lib/libperfring.a" $(pc --libs-only-other --static perfring) $bpflibs -lpthread >"$T_TMP/st.log" 2>&1; then
	if ! readelf -d "$T_TMP/hello_static" | grep -c 'NEEDED.*libperfring' >/dev/null; then
		if t_need_root; then
			t_run "$T_TMP/s.out" "$T_TMP/s.err" timeout 30 "$T_TMP/hello_static" 3
			t_check run_static_example "static hello_reader 3: exit $T_RC, last line '$(tail -n 1 "$T_TMP/s.out")'" \
				bash -c "[ $T_RC -eq 0 ] && [ \"\$(tail -n 1 '$T_TMP/s.out')\" = '3 samples' ]"
		else
			skip run_static_example "needs root to load BPF programs"
		fi
	else
		fail run_static_example "linking libperfring.a still made the program need libperfring.so"
	fi
else
	fail run_static_example "linking examples/hello_reader.c with libperfring.a failed"
	t_show "$T_TMP/st.log" 20
fi

# --- the installed tool and man pages ----------------------------------------------
t_run "$T_TMP/v.out" "$T_TMP/v.err" run_lib "$D/usr/bin/perfring" --version
t_check installed_tool "installed perfring --version: exit $T_RC, '$(cat "$T_TMP/v.out")'" \
	bash -c "[ $T_RC -eq 0 ] && grep -q '^perfring 0\.1\.0 ' '$T_TMP/v.out'"
# Looked up by name through MANPATH, as a user would (.so link pages included).
bad_man=""
for m in "$D"/usr/share/man/man[13]/*; do
	sec=${m##*.} name=$(basename "$m" ".${m##*.}")
	MANPATH="$D/usr/share/man" MANWIDTH=80 man -P cat "$sec" "$name" 2>"$T_TMP/man.err" | grep -c '^NAME' >/dev/null &&
		[ ! -s "$T_TMP/man.err" ] || bad_man="$bad_man $name($sec)"
done
t_check installed_man_pages "man SECTION NAME fails or warns for:$bad_man" [ -z "$bad_man" ]

# --- a second install with another prefix: the .pc must follow it ---------------------
if make -s O="$B" install PREFIX=/opt/perfring DESTDIR="$T_TMP/dest2" >"$T_TMP/install2.log" 2>&1; then
	got=$(grep '^prefix=' "$T_TMP/dest2/opt/perfring/lib/pkgconfig/perfring.pc" 2>/dev/null)
	t_check pc_follows_prefix "after installing with PREFIX=/usr, PREFIX=/opt/perfring installed a .pc with '$got'" \
		[ "$got" = prefix=/opt/perfring ]
else
	fail pc_follows_prefix "make install PREFIX=/opt/perfring failed"
	t_show "$T_TMP/install2.log"
fi

# --- a moved install: the .pc's paths follow ${prefix} ----------------------------------
# The PREFIX=/opt/perfring tree is moved; pkg-config must then point into the new place,
# with --define-prefix (prefix from the .pc's location) and with prefix overridden.
if [ -d "$T_TMP/dest2/opt/perfring" ]; then
	M="$T_TMP/moved"
	mv "$T_TMP/dest2/opt/perfring" "$M"
	t_check pc_relative_dirs "the .pc's libdir/includedir are not relative to \${prefix}: $(grep -E '^(libdir|includedir)=' "$M/lib/pkgconfig/perfring.pc" | tr '\n' ' ')" \
		bash -c "grep -qx 'libdir=\${exec_prefix}/lib' '$M/lib/pkgconfig/perfring.pc' && grep -qx 'includedir=\${prefix}/include' '$M/lib/pkgconfig/perfring.pc'"
	f1=$(PKG_CONFIG_PATH="$M/lib/pkgconfig" PKG_CONFIG_LIBDIR= pkg-config --define-prefix --cflags --libs perfring 2>&1)
	f2=$(PKG_CONFIG_PATH="$M/lib/pkgconfig" PKG_CONFIG_LIBDIR= pkg-config --define-variable=prefix="$M" --cflags --libs perfring 2>&1)
	for f in "$f1" "$f2"; do
		[ "$(echo $f)" = "-I$M/include -L$M/lib -lperfring" ] || bad_pc="${bad_pc:-} '$f'"
	done
	t_check pc_relocated "pkg-config on the moved install gave:${bad_pc:-}, want -I$M/include -L$M/lib -lperfring" [ -z "${bad_pc:-}" ]
	if gcc -std=gnu11 -o "$T_TMP/ver" -x c - $f1 >"$T_TMP/ver.log" 2>&1 <<'C'; then
#include <perfring/common.h>
#include <stdio.h>
int main(void) { puts(perfring_version()); return 0; }
C
		t_run "$T_TMP/ver.out" "$T_TMP/ver.err" env LD_LIBRARY_PATH="$M/lib" "$T_TMP/ver"
		t_check pc_relocated_builds "a program built with the moved .pc's flags: exit $T_RC, '$(cat "$T_TMP/ver.out")'" \
			bash -c "[ $T_RC -eq 0 ] && [ \"\$(cat '$T_TMP/ver.out')\" = 0.1.0 ]"
	else
		fail pc_relocated_builds "gcc with the moved .pc's flags ($f1) failed"
		t_show "$T_TMP/ver.log"
	fi
fi

# --- uninstall removes what install put there ----------------------------------------------
make -s O="$B" uninstall PREFIX=/usr DESTDIR="$D" >"$T_TMP/uninstall.log" 2>&1
(cd "$D" && find . -type f -o -type l | sed 's|^\./||' | sort) >"$T_TMP/left"
t_check uninstall_clean "$(wc -l <"$T_TMP/left") files left after make uninstall, e.g. $(head -n 4 "$T_TMP/left" | tr '\n' ' ')" \
	[ ! -s "$T_TMP/left" ]

t_finish

#!/usr/bin/env bash
# find_package(perfring) from an installed tree: `make install` into a
# DESTDIR, MOVE the prefix elsewhere (the config file must compute its paths
# from its own location), configure examples/cmake against it with
# -DCMAKE_PREFIX_PATH, build it with the shared and the static target, run both.
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1
B=$PERFRING_BUILD D="$T_TMP/dest"

if ! command -v cmake >/dev/null; then
	skip cmake_example "cmake is missing (scripts/install-deps.sh installs it)"
	t_finish
	exit 0
fi
if ! make -s O="$B" install PREFIX=/opt/perfring DESTDIR="$D" >"$T_TMP/install.log" 2>&1; then
	fail make_install "make O=$B install PREFIX=/opt/perfring DESTDIR=... failed"
	t_show "$T_TMP/install.log" 30
	t_finish
	exit 1
fi
cfg=opt/perfring/lib/cmake/perfring
t_check cmake_files_installed "missing $cfg/perfringConfig.cmake or perfringConfigVersion.cmake" \
	bash -c "[ -f '$D/$cfg/perfringConfig.cmake' ] && [ -f '$D/$cfg/perfringConfigVersion.cmake' ]"
mv "$D/opt/perfring" "$D/moved"
P="$D/moved"
if cmake -S examples/cmake -B "$T_TMP/b" -DCMAKE_PREFIX_PATH="$P" >"$T_TMP/cmake.log" 2>&1 &&
	cmake --build "$T_TMP/b" >>"$T_TMP/cmake.log" 2>&1; then
	ok cmake_configure_build
	t_run "$T_TMP/s.out" "$T_TMP/s.err" "$T_TMP/b/version_shared"
	t_check cmake_shared_runs "version_shared: exit $T_RC, '$(cat "$T_TMP/s.out" "$T_TMP/s.err")'" \
		bash -c "[ $T_RC -eq 0 ] && grep -qx 'perfring 0.1.0: ring of [0-9]* bytes, 0 available' '$T_TMP/s.out'"
	t_check cmake_shared_uses_moved_lib "version_shared does not load libperfring.so.0 from the moved prefix" \
		bash -c "ldd '$T_TMP/b/version_shared' | grep -q 'libperfring.so.0 => $P/lib/libperfring.so.0'"
	t_run "$T_TMP/t.out" "$T_TMP/t.err" "$T_TMP/b/version_static"
	t_check cmake_static_runs "version_static: exit $T_RC, '$(cat "$T_TMP/t.out" "$T_TMP/t.err")'" \
		bash -c "[ $T_RC -eq 0 ] && grep -qx 'perfring 0.1.0: ring of [0-9]* bytes, 0 available' '$T_TMP/t.out' && ! readelf -d '$T_TMP/b/version_static' | grep -q 'NEEDED.*libperfring'"
else
	fail cmake_configure_build "cmake -S examples/cmake -DCMAKE_PREFIX_PATH=<moved prefix> failed"
	t_show "$T_TMP/cmake.log" 30
fi
# A version the package does not satisfy is refused.
mkdir -p "$T_TMP/v2"
printf 'cmake_minimum_required(VERSION 3.10)\nproject(v C)\nfind_package(perfring 0.2 REQUIRED)\n' >"$T_TMP/v2/CMakeLists.txt"
t_check cmake_version_check "find_package(perfring 0.2) accepted perfring 0.1.0" \
	bash -c "! cmake -S '$T_TMP/v2' -B '$T_TMP/v2b' -DCMAKE_PREFIX_PATH='$P' >/dev/null 2>&1"
t_finish

#!/usr/bin/env bash
# The library's ABI against the committed baseline (abi/libperfring.abi,
# written by `make abi-baseline`). abidiff's exit status is a bit set: 4 = the
# ABI changed (an added or removed symbol, a changed type), 8 = incompatibly;
# both fail here, so an intended change regenerates the baseline in the same
# commit. Also `make abi-check` (tests/cli/abi.sh --build DIR).
[ "${1:-}" = --build ] && PERFRING_BUILD=$2
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1

so="$PERFRING_BUILD/libperfring.so"
base=abi/libperfring.abi
if ! command -v abidiff >/dev/null; then
	skip abi_matches_baseline "abidiff is missing (Debian package abigail-tools; scripts/install-deps.sh installs it)"
elif [ ! -f "$base" ]; then
	fail abi_matches_baseline "no $base: run make abi-baseline and commit it"
elif [ ! -e "$so" ]; then
	fail abi_matches_baseline "$so is not built"
else
	abidiff --headers-dir2 include/perfring --drop-private-types \
		"$base" "$so" >"$T_TMP/abidiff.out" 2>&1
	rc=$?
	why=""
	[ $((rc & 3)) -ne 0 ] && why="abidiff failed to run (exit $rc)"
	[ $((rc & 4)) -ne 0 ] && why="the ABI differs from $base (exit $rc)"
	[ $((rc & 8)) -ne 0 ] && why="the ABI changed INCOMPATIBLY from $base (exit $rc)"
	if [ -z "$why" ]; then
		ok abi_matches_baseline
	else
		fail abi_matches_baseline "$why; if intended, run 'make abi-baseline' and commit $base"
		t_show "$T_TMP/abidiff.out" 40
	fi
fi

# Every exported function carries a PERFRING_0.N version (src/libperfring.map), the newest
# node through its pattern: nothing is unversioned or in an unknown node. A node added by a
# branch while others add theirs carries a suffix (PERFRING_0.9_RINGBUF) until a release
# merges them.
if [ -e "$so" ]; then
	nm -D --defined-only "$so" | awk '$2 != "A" {print $3}' >"$T_TMP/dyn"
	stray=$(grep -vE '^perfring_[a-z0-9_]+@@PERFRING_0\.[0-9]+(_[A-Z0-9]+)?$' "$T_TMP/dyn" | head -n 5 | tr '\n' ' ')
	t_check abi_symbols_versioned "exported symbols without a PERFRING_0.N version: $stray" \
		bash -c "[ -s '$T_TMP/dyn' ] && [ -z '$stray' ]"
fi
t_finish

#!/usr/bin/env bash
# The Firefox Profiler's own code opens perfring's Firefox profile: its command-line
# interface, @firefox-devtools/profiler-cli (the profiler's profile loading, upgrading and
# call-tree code bundled for node; pinned, installed from the npm registry into
# $PERFRING_BUILD/firefox, then run offline), loads PROFILE and lists the functions of its
# first thread (the heaviest of the first event).
#
# Run by tests/cli/export.sh (export_firefox_functions in tests/helpers/export_lib.sh) with
# PROFILE=FILE and OUT=FILE: `thread functions --json` of thread t-0 is written to OUT, and
# `profile info` printed. Alone (no PROFILE), it checks a profile the unit test
# tests/unit/export_profile writes (EXPORT_KEEP) by hand: its functions and weights.
. "$(dirname "$0")/lib.sh"

CLI_VERSION=0.10.0
fx_dir="$PERFRING_BUILD/firefox"
cli="$fx_dir/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js"

if ! command -v node >/dev/null; then
	skip firefox_profiler "node is not installed (scripts/install-deps.sh installs nodejs)"
	t_finish
	exit $?
fi
t_npm_package firefox_profiler "$fx_dir" @firefox-devtools/profiler-cli "$CLI_VERSION"

# The CLI keeps its sessions (a daemon each) under $HOME/.profiler-cli: a home of the test's own.
export HOME="$T_TMP/home"
mkdir -p "$HOME"
session="perfring$$"
pq() { timeout 120 node "$cli" "$@" --session "$session"; }
trap 'timeout 30 node "$cli" stop "$session" >/dev/null 2>&1; rm -rf "$T_TMP"' EXIT

if [ -n "${PROFILE:-}" ]; then
	profile=$PROFILE
else
	unit="$PERFRING_BUILD/tests/unit/export_profile"
	EXPORT_KEEP="$T_TMP/unit" "$unit" firefox_json >"$T_TMP/unit.log" 2>&1
	profile="$T_TMP/unit/profile.firefox.json"
	if [ ! -s "$profile" ]; then
		fail firefox_profile "tests/unit/export_profile wrote no Firefox profile"
		t_show "$T_TMP/unit.log"
		t_finish
		exit 1
	fi
fi

pq load "$profile" >"$T_TMP/load.out" 2>&1
if ! pq profile info >"$T_TMP/info.out" 2>&1 || grep -q 'load failed' "$T_TMP/load.out" "$T_TMP/info.out"; then
	fail firefox_load "the Firefox Profiler did not load $profile: $(grep -m1 -i error "$T_TMP/load.out" "$T_TMP/info.out")"
	t_show "$HOME/.profiler-cli/$session.log" 20
	t_finish
	exit 1
fi
ok firefox_load
sed 's/^/    /' "$T_TMP/info.out" | head -n 12
out=${OUT:-$T_TMP/functions.json}
pq thread functions --thread t-0 --json >"$out" 2>"$T_TMP/fn.err"
t_check firefox_functions "thread functions failed: $(head -n 1 "$T_TMP/fn.err")" \
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["functions"]' "$out"

if [ -z "${PROFILE:-}" ]; then
	# The hand-made profile (tests/unit/export_profile.c): app (pid 100) is the heaviest
	# thread (app, tid 100: 11 ms), compute its leaf in 5 samples of 1 ms.
	t_check firefox_unit_profile "the first thread or its functions are not export_profile's: $(head -c 300 "$out")" \
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["functions"]}
assert d["friendlyThreadName"] == "app", d["friendlyThreadName"]
assert abs(f["compute"]["selfSamples"] - 5) < 1e-9 and abs(f["main"]["totalSamples"] - 11) < 1e-9, f
' "$out"
fi
t_finish

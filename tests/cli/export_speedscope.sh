#!/usr/bin/env bash
# speedscope's own viewer opens perfring's speedscope JSON: speedscope from the
# npm registry (pinned, installed into $PERFRING_BUILD/speedscope, then run
# offline), served with the profile by a python http.server on 127.0.0.1,
# opened by headless Chromium at index.html#profileURL=...&view=sandwich.
# The assertion is the DOM (chromium --dump-dom): the sandwich view's table
# lists every recorded function with its weight. A screenshot of the
# left-heavy flame graph is kept beside the test log
# ($PERFRING_BUILD/test-logs/export/speedscope-*.png; SHOT_SIZE=W,H, default 1280,720).
#
# The profile: PROFILE=FILE.json with FUNCS (the names the page must show, one a
# line: those of the profile speedscope opens first, and the titles of the
# others), or by default the hand-made one of tests/unit/export_profile
# (EXPORT_KEEP writes it).
. "$(dirname "$0")/lib.sh"

SPEEDSCOPE_VERSION=1.25.0
ss_dir="$PERFRING_BUILD/speedscope"
release="$ss_dir/node_modules/speedscope/dist/release"
shots="$PERFRING_BUILD/test-logs/export"
mkdir -p "$shots"

if ! command -v chromium >/dev/null; then
	skip speedscope_viewer "chromium is not installed (scripts/install-deps.sh installs it)"
	t_finish
	exit $?
fi
t_npm_package speedscope_viewer "$ss_dir" speedscope "$SPEEDSCOPE_VERSION"

# The profile to open.
if [ -n "${PROFILE:-}" ]; then
	profile=$PROFILE
	funcs=${FUNCS:?FUNCS: the function names the page must show}
else
	unit="$PERFRING_BUILD/tests/unit/export_profile"
	if [ ! -x "$unit" ]; then
		fail speedscope_profile "$unit is not built"
		t_finish
		exit 1
	fi
	EXPORT_KEEP="$T_TMP/unit" "$unit" speedscope_json >"$T_TMP/unit.log" 2>&1
	profile="$T_TMP/unit/profile.speedscope.json"
	# The first (heaviest) process's functions, and the other profiles in the profile list.
	funcs='compute
memcpy
work
main
[libc.so.6]
std::vector<int>::push_back(int const&)
cpu-clock: app (pid 100)
cpu-clock: my app (pid 200)
cpu-clock: :300 (pid 300)'

	if [ ! -s "$profile" ]; then
		fail speedscope_profile "export_profile wrote no speedscope file"
		t_show "$T_TMP/unit.log"
		t_finish
		exit 1
	fi
fi

# A copy of the viewer and the profile, served on 127.0.0.1 only.
www="$T_TMP/www"
mkdir -p "$www"
cp -r "$release/." "$www/"
cp "$profile" "$www/profile.json"
: >"$T_TMP/http.log"
(cd "$www" && exec python3 -u -m http.server 0 --bind 127.0.0.1) >"$T_TMP/http.log" 2>&1 &
http_pid=$!
trap 'kill "$http_pid" 2>/dev/null; rm -rf "$T_TMP"' EXIT
port=
for _ in $(seq 50); do
	port=$(sed -n 's|.*127\.0\.0\.1 port \([0-9]*\).*|\1|p' "$T_TMP/http.log")
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	fail speedscope_server "python3 -m http.server did not start: $(head -n 1 "$T_TMP/http.log")"
	t_finish
	exit 1
fi
base="http://127.0.0.1:$port"
url_of() { echo "$base/index.html#profileURL=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$base/profile.json")&view=$1"; }

budget=20000
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
		--user-data-dir="$T_TMP/chrome" --virtual-time-budget=$budget "$@" 2>>"$T_TMP/chrome.err"
}

# The DOM of the sandwich view: a table of every function with total and self weight. The table
# fills in after the profile is parsed; under load the dump can come first (an empty table): try
# again, up to 5 times (all five at 20 s each failed once in 12 runs of export.sh beside other load).
dom_missing() {
	missing=()
	while IFS= read -r f; do
		[ -z "$f" ] || grep -qxF -- "$f" "$T_TMP/dom.txt" || missing+=("$f")
	done <<<"$funcs"
	[ ${#missing[@]} -gt 0 ]
}
for attempt in 1 2 3 4 5; do
	# A tall window: the table renders only the rows in view.
	chrome --window-size=1280,8000 --run-all-compositor-stages-before-draw --dump-dom "$(url_of sandwich)" >"$T_TMP/dom.html"
	python3 - "$T_TMP/dom.html" >"$T_TMP/dom.txt" <<'EOF'
import html, re, sys
text = html.unescape(re.sub(r"<[^>]+>", "\n", open(sys.argv[1], encoding="utf-8").read()))
print("\n".join(l.strip() for l in text.split("\n") if l.strip()))
EOF
	dom_missing || break
	# Each retry from a fresh browser profile, with twice the virtual time, after a pause.
	echo "attempt $attempt: the sandwich table is not filled in yet (virtual time $budget ms; missing: ${missing[*]})"
	rm -rf "$T_TMP/chrome"
	budget=$((budget * 2))
	sleep "$attempt"
done
echo "the page's text (sandwich view):"
sed 's/^/    /' "$T_TMP/dom.txt"
if [ ! -s "$T_TMP/dom.txt" ] || ! grep -qx 'Symbol Name' "$T_TMP/dom.txt"; then
	fail speedscope_sandwich "the page shows no sandwich table (chromium: $(grep -m1 -v dbus "$T_TMP/chrome.err"))"
elif [ ${#missing[@]} -gt 0 ]; then
	fail speedscope_sandwich "the page does not show: $(printf '"%s" ' "${missing[@]}")"
else
	ok speedscope_sandwich
fi

# A screenshot of the flame graph (left heavy), kept for people to look at.
shot="$shots/speedscope-$(basename "$profile" .json).png"
rm -f "$shot"
chrome --window-size="${SHOT_SIZE:-1280,720}" --screenshot="$shot" "$(url_of left-heavy)" >/dev/null
if [ -s "$shot" ] && [ "$(head -c 4 "$shot" | od -An -c | tr -d ' ')" = "211PNG" ]; then
	echo "screenshot: $shot"
	ok speedscope_screenshot
else
	fail speedscope_screenshot "chromium wrote no PNG at $shot"
fi
t_finish

#!/usr/bin/env bash
# The README's flame graphs, from a real recording, offline:
#   perf record -g of tests/helpers/prof_work -> perfring report --pprof/--speedscope/--folded
#   -> speedscope's viewer (npm, as tests/cli/export_speedscope.sh installs it) and
#      go tool pprof's web UI (its /ui/flamegraph), each under headless chromium, on 127.0.0.1.
# FlameGraph's flamegraph.pl (for the folded file) is not packaged here; go tool pprof -svg needs
# graphviz. Usage: scripts/readme-flamegraphs.sh [BUILD] (default build); writes docs/export/.
set -euo pipefail

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/docs/export"
tmp=$(mktemp -d /tmp/perfring-flame.XXXXXX)
pprof_pid=
cleanup() {
	[ -n "$pprof_pid" ] && kill "$pprof_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$out"
cd "$root"

perf record -q -g -F 999 -o "$tmp/work.data" "$build/tests/helpers/prof_work" 1000
if grep -q -- --pprof <<<"$("$build/perfring" report --help 2>&1)"; then
	"$build/perfring" report -i "$tmp/work.data" --folded "$out/work.folded" --pprof "$tmp/work.pb.gz" \
		--speedscope "$tmp/work.json" >/dev/null
else # before perfring report had the export options: the same profile code through the test driver
	for f in folded pprof speedscope; do
		"$build/tests/helpers/export_driver" "$tmp/work.data" "$f" "$tmp/work.$f"
	done
	mv "$tmp/work.folded" "$out/work.folded"
	mv "$tmp/work.pprof" "$tmp/work.pb.gz"
	mv "$tmp/work.speedscope" "$tmp/work.json"
fi

# The tables the README quotes, from the same recording.
HOME=$tmp go tool pprof -top -nodecount=6 "$tmp/work.pb.gz" >"$out/work.pprof-top.txt" 2>/dev/null
if [ -x "$build/perfring" ]; then
	"$build/perfring" report -i "$tmp/work.data" --no-children -s sym 2>/dev/null | grep -v '^$' | head -n 14 \
		| sed "s|$tmp/||" >"$out/work.report.txt" || true
fi

# speedscope: the test installs the viewer and keeps a left-heavy screenshot.
SHOT_SIZE=1280,360 PROFILE="$tmp/work.json" FUNCS=work_mid PERFRING_BUILD="$build" bash tests/cli/export_speedscope.sh >"$tmp/ss.log"
cp "$build/test-logs/export/speedscope-work.png" "$out/flamegraph-speedscope.png"

# go tool pprof's flame graph.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The pprof binary itself (go tool would run it as a child, which killing go would leave behind).
HOME=$tmp "$(go tool -n pprof)" -http="127.0.0.1:$port" -no_browser "$tmp/work.pb.gz" >"$tmp/pprof.log" 2>&1 &
pprof_pid=$!
for _ in $(seq 100); do
	grep -qs "Serving web UI" "$tmp/pprof.log" && break
	sleep 0.1
done
chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/chrome" \
	--virtual-time-budget=10000 --window-size=1280,320 --screenshot="$out/flamegraph-pprof.png" \
	"http://127.0.0.1:$port/ui/flamegraph" 2>/dev/null
echo "wrote $out/: flamegraph-speedscope.png flamegraph-pprof.png work.folded work.pprof-top.txt work.report.txt"

#!/usr/bin/env bash
# make soak-profile: perfring profile for SOAK_SECS (1800) system-wide with
# --interval SOAK_INTERVAL (10), beside a long-running CPU-bound process
# (tests/helpers/prof_work) and a storm of short-lived processes (a shell
# loop starting `true`, `sleep 0.01` and `cat` without end). After every interval it
# records perfring's resident memory and open fds; it fails when the RSS
# goes over --max-memory (SOAK_MAX_MEMORY, 32M) or the fds grow past their
# count after the first interval. Not part of make check (it takes the time
# it says).
#   soak_profile.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."

O=${1:-build}
secs=${SOAK_SECS:-1800}
interval=${SOAK_INTERVAL:-10}
maxmem=${SOAK_MAX_MEMORY:-32M}
tmp=$(mktemp -d /tmp/perfring-soak-profile.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
case $maxmem in
*K) limit=$((${maxmem%K})) ;; *M) limit=$((${maxmem%M} * 1024)) ;; *G) limit=$((${maxmem%G} * 1048576)) ;; *) limit=$((maxmem / 1024)) ;;
esac

"$O/tests/helpers/prof_work" 100000000 &
pids+=($!)
(while :; do true; sleep 0.01; echo x | cat >/dev/null; done) &
pids+=($!)
"$O/perfring" profile -q -d "$interval" --duration "$secs" --max-memory "$maxmem" -o "$tmp/out" --max-dir-size 20M 2>"$tmp/err" &
prof=$!
echo "soak-profile: ${secs} s, interval ${interval} s, --max-memory $maxmem, pid $prof"
status=0 first_fds= peak=0 n=0 fdlog=
while kill -0 "$prof" 2>/dev/null; do
	sleep "$interval"
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$prof/status" 2>/dev/null) || break
	[ -n "$rss" ] || break
	fds=$(ls "/proc/$prof/fd" 2>/dev/null | wc -l)
	n=$((n + 1))
	[ -n "$first_fds" ] || first_fds=$fds
	[ "$rss" -gt "$peak" ] && peak=$rss
	echo "soak-profile: interval $n rss ${rss} KiB fds $fds"
	if [ "$rss" -gt "$limit" ]; then
		echo "soak-profile FAILED: RSS ${rss} KiB over --max-memory $maxmem"
		status=1
	fi
	fdlog="$fdlog $fds"
done
# fds: a file being read when looked at is not growth; the fewest of the last three
# intervals against the fewest of the first three
lo_first=$(echo $fdlog | tr ' ' '\n' | head -n 3 | sort -n | head -n 1)
lo_last=$(echo $fdlog | tr ' ' '\n' | tail -n 3 | sort -n | head -n 1)
if [ -n "$lo_first" ] && [ "$lo_last" -gt "$lo_first" ]; then
	echo "soak-profile FAILED: fds grew from $lo_first to $lo_last (every interval:$fdlog)"
	status=1
fi
wait "$prof"
rc=$?
[ $rc -eq 0 ] || { echo "soak-profile FAILED: perfring profile exited $rc: $(tail -n 2 "$tmp/err")"; status=1; }
echo "soak-profile: $n intervals, peak RSS ${peak} KiB, fds ${first_fds:-?}; $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status

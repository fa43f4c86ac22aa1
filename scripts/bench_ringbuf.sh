#!/usr/bin/env bash
# BPF ring buffers, side by side in one run (bench/ringbuf.c): perfring against
# libbpf's ring_buffer on the same BPF producer (tests/bpf/rb_producer.bpf.c), and the
# ring buffer against a perf event array under perfring.
#   bench_ringbuf.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
# Knobs: BENCH_RB_DRAIN_ROUNDS (30), BENCH_RB_SMALL_ROUNDS (100: the 256 and 64 KiB drains),
# BENCH_RB_LIVE_REPS (4: live and back-to-back drains), BENCH_RB_CG_ROUNDS (5),
# BENCH_RB_STREAM_SECONDS (2), BENCH_RB_STREAM_REPS (3). Run the CPU-pinned parts under
# flock -s /tmp/perfring-cpu.lock on a shared machine.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_lib.sh

O=${1:-build}
bin=$O/bench
cgdir=$O/bench-callgrind
status=0
mkdir -p "$cgdir"

echo
echo "== ringbuf drain: consumer cost per record of a filled BPF ring buffer (1 MiB, 64-byte payloads)"
if [ ! -x "$bin/ringbuf" ]; then
	echo "ringbuf FAILED: $bin/ringbuf is missing: build it with make O=$O $bin/ringbuf"
	exit 1
fi
"$bin/ringbuf" drain --rounds "${BENCH_RB_DRAIN_ROUNDS:-30}" || status=1
# The same drain of rings that stay in the cache of the CPU that filled them (L2 is 2 MiB a core
# on the project's VM): short drains, so more rounds.
echo
echo "== ringbuf drain of smaller filled rings: 256 KiB and 64 KiB"
for s in 262144 65536; do
	"$bin/ringbuf" drain --size "$s" --rounds "${BENCH_RB_SMALL_ROUNDS:-100}" || status=1
done
# What the per-batch commit is about: the producer writing on CPU 0 while the consumer drains on
# CPU 1 (the producer reads consumer_pos at every reservation). Batches of half the ring, then the
# back-to-back consumer (draining whatever is there, a record or two at a time).
echo
echo "== ringbuf live drain: producer flat out on CPU 0, consumer on CPU 1 (256 KiB ring)"
"$bin/ringbuf" live --reps "${BENCH_RB_LIVE_REPS:-4}" --duration 0.4 || status=1
echo
echo "== ringbuf back-to-back drain: the consumer takes whatever is there"
"$bin/ringbuf" live --threshold 8 --reps "${BENCH_RB_LIVE_REPS:-4}" --duration 0.4 || status=1
if command -v valgrind >/dev/null; then
	echo
	echo "== ringbuf drain under callgrind: instructions per record"
	for c in perfring_rb_cursor perfring_rb perfring_samples perfring_msg perfring_ring_buffer libbpf perfring_perf_array; do
		if ! valgrind --tool=callgrind --toggle-collect="drain_$c" --callgrind-out-file="$cgdir/callgrind.out.rb_$c" \
			"$bin/ringbuf" drain --callgrind "$c" --rounds "${BENCH_RB_CG_ROUNDS:-5}" >"$cgdir/rb_$c.log" 2>&1; then
			echo "ringbuf_drain_instr_per_record $c FAILED (see $cgdir/rb_$c.log)"
			status=1
			continue
		fi
		ir=$(awk '/^totals:/ {print $2}' "$cgdir/callgrind.out.rb_$c")
		n=$(awk '/^drain_callgrind/ {print $4}' "$cgdir/rb_$c.log")
		awk -v c="$c" -v ir="$ir" -v n="$n" 'BEGIN { printf "ringbuf_drain_instr_per_record %s %.2f\n", c, ir / n }' |
			tee "$cgdir/rb_$c.result"
	done
	lb=$(awk '{print $3}' "$cgdir/rb_libbpf.result" 2>/dev/null)
	# The headline: perfring's fastest drain, the inline cursor (as in the ns figures).
	pr=$(awk '{print $3}' "$cgdir/rb_perfring_rb_cursor.result" 2>/dev/null)
	[[ "$pr" =~ ^[0-9.]+$ && "$lb" =~ ^[0-9.]+$ ]] &&
		awk -v a="$pr" -v b="$lb" \
			'BEGIN { printf "RATIO ringbuf_drain_instr_per_record perfring/libbpf %.3f (perfring_rb_cursor)\n", a / b }'
	for c in perfring_rb perfring_samples perfring_msg perfring_ring_buffer; do
		pr=$(awk '{print $3}' "$cgdir/rb_$c.result" 2>/dev/null)
		[[ "$pr" =~ ^[0-9.]+$ && "$lb" =~ ^[0-9.]+$ ]] || continue
		awk -v a="$pr" -v b="$lb" -v c="$c" \
			'BEGIN { printf "RATIO ringbuf_drain_instr_per_record %s/libbpf %.3f\n", c, a / b }'
	done
else
	echo "ringbuf_drain_instr_per_record SKIPPED: valgrind is not installed"
fi
echo
echo "== ringbuf stream: producer flat out on CPU 0, reader on CPU 1"
"$bin/ringbuf" stream --duration "${BENCH_RB_STREAM_SECONDS:-2}" --reps "${BENCH_RB_STREAM_REPS:-3}" || status=1
# Room for every record (64 MiB, 1 s, 16 runs per test-run call): the rate at 0 lost, where the
# producer's cost is what differs (libbpf's store of consumer_pos per record pulls the cache line
# the producer reads at every reservation; perfring stores it once per batch).
echo
echo "== ringbuf stream at 0 lost: 64 MiB ring"
"$bin/ringbuf" stream --size 67108864 --duration 1 --repeat 16 --reps "${BENCH_RB_STREAM_REPS:-3}" || status=1
exit $status

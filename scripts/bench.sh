#!/usr/bin/env bash
# make bench: perfring side by side with libbpf's perf_buffer, in one run.
#   bench.sh [BUILD_DIR]     (default build; the binaries are BUILD_DIR/bench/*)
# Prints the machine, every bench line and the RATIO lines, and writes the
# same to BUILD_DIR/bench-results.txt. Callgrind profiles of the drain are
# kept in BUILD_DIR/bench-callgrind/ (callgrind_annotate them).
# Knobs (environment): BENCH_DRAIN_ROUNDS (40), BENCH_CG_ROUNDS (10),
# BENCH_STREAM_SECONDS (3), BENCH_STREAM_REPS (3), BENCH_POLICY (perfring's
# policy for the ratio), BENCH_EXTRA_POLICIES (space separated, run once each),
# BENCH_RINGS (2,16,256,1024: ring counts of bench/rings.c), BENCH_RINGS_REPS (5).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_lib.sh

O=${1:-build}
bin=$O/bench
out=$O/bench-results.txt
cgdir=$O/bench-callgrind
drain_rounds=${BENCH_DRAIN_ROUNDS:-40}
cg_rounds=${BENCH_CG_ROUNDS:-10}
stream_s=${BENCH_STREAM_SECONDS:-3}
stream_reps=${BENCH_STREAM_REPS:-3}
# 256 pages (1 MiB) per CPU for both readers: at perfring's rate (about
# 2 us per record) 64 pages fill in 7 ms, less than the scheduling stalls
# of a shared 2-vCPU VM, and records are lost; libbpf, one wakeup per
# record, is unaffected by the size. The extra policies show the rest.
stream_pages=${BENCH_STREAM_PAGES:-256}
# Watermark at a quarter of the ring: three quarters stay free for the
# producer while the reader wakes up; 5 ms bounds a lone record's wait.
policy=${BENCH_POLICY:-bytes=1/4,delay_us=5000}
extra=${BENCH_EXTRA_POLICIES:-bytes=1/4,delay_us=5000,pages=64 events=1 bytes=1/2,delay_us=5000 bytes=1/16,delay_us=5000 events=256,delay_us=1000}
status=0

for b in drain stream rings; do
	if [ ! -x "$bin/$b" ]; then
		echo "bench.sh: $bin/$b is missing: build it with make O=$O $bin/$b" >&2
		exit 1
	fi
done
mkdir -p "$cgdir"

# Instructions per drained record under callgrind, counting only the
# drain_<contender> function (and what it calls).
callgrind_drain() { # contender
	local c=$1 cg=$cgdir/callgrind.out.$1 log=$cgdir/$1.log ir recs
	if ! valgrind --tool=callgrind --toggle-collect="drain_$c" --callgrind-out-file="$cg" \
		"$bin/drain" --callgrind "$c" --rounds "$cg_rounds" >"$log" 2>&1; then
		echo "drain_instr_per_record $c FAILED (see $log)"
		return 1
	fi
	ir=$(awk '/^totals:/ {print $2}' "$cg")
	recs=$(awk '/^drain_callgrind/ {print $4}' "$log")
	if [ -z "$ir" ] || [ -z "$recs" ] || [ "$recs" -eq 0 ]; then
		echo "drain_instr_per_record $c FAILED (no totals in $cg)"
		return 1
	fi
	awk -v c="$c" -v ir="$ir" -v n="$recs" \
		'BEGIN { printf "drain_instr_per_record %s %.2f (%d instructions, %d records)\n", c, ir / n, ir, n }'
}

# Record decoding (bench/decode.c): perfring_record_parse over an in-memory
# `perf record -g` stream, then instructions per record under callgrind for
# the whole loop, the decoder call alone, and a hand-written reference.
# Knobs: BENCH_DECODE_RECORDS (40000), BENCH_DECODE_REPS (15),
# BENCH_DECODE_CG_RECORDS (20000).
decode_bench() {
	local st=0 f ir recs
	echo
	echo "== decode: perfring_record_parse over a perf record -g stream in memory"
	if [ ! -x "$bin/decode" ]; then
		echo "decode FAILED: $bin/decode is missing: build it with make O=$O $bin/decode"
		return 1
	fi
	"$bin/decode" --records "${BENCH_DECODE_RECORDS:-40000}" --reps "${BENCH_DECODE_REPS:-15}" || st=1
	if ! command -v valgrind >/dev/null; then
		echo "decode_instr_per_record SKIPPED: valgrind is not installed"
		return $st
	fi
	for f in decode_perfring perfring_record_parse decode_handrolled; do
		if ! valgrind --tool=callgrind --toggle-collect="$f" --callgrind-out-file="$cgdir/callgrind.out.$f" \
			"$bin/decode" --callgrind --records "${BENCH_DECODE_CG_RECORDS:-20000}" \
			>"$cgdir/$f.log" 2>&1; then
			echo "decode_instr_per_record $f FAILED (see $cgdir/$f.log)"
			st=1
			continue
		fi
		ir=$(awk '/^totals:/ {print $2}' "$cgdir/callgrind.out.$f")
		recs=$(awk '/^decode_callgrind/ {print $3}' "$cgdir/$f.log")
		if [ -z "$ir" ] || [ -z "$recs" ] || [ "$recs" -eq 0 ]; then
			echo "decode_instr_per_record $f FAILED (no totals)"
			st=1
			continue
		fi
		awk -v f="$f" -v ir="$ir" -v n="$recs" 'BEGIN {
			if (f == "decode_perfring") { name = "perfring"; what = "decode + touch the fields" }
			else if (f == "decode_handrolled") { name = "handrolled"; what = "reference, decode + touch" }
			else { name = f; what = "the decoder call alone" }
			printf "decode_instr_per_record %s %.1f (%s; %d instructions, %d records)\n", name, ir / n, what, ir, n
		}' || st=1
	done
	return $st
}

run() {
	echo "machine: $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), kernel $(uname -r)," \
		"libbpf $(pkg-config --modversion libbpf 2>/dev/null || echo '?'), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "threads pinned: producer CPU 0, stream reader CPU 1"
	echo
	echo "== drain: consumer cost per record of a filled ring"
	"$bin/drain" --rounds "$drain_rounds" || status=1
	echo
	if command -v valgrind >/dev/null; then
		echo "== drain under callgrind: instructions per record ($cg_rounds drains of a full ring each)"
		local pr lb
		for c in perfring_cursor perfring_samples perfring_msg libbpf perfring_ring; do
			callgrind_drain "$c" | tee "$cgdir/$c.result" || status=1
		done
		lb=$(awk '{print $3; exit}' "$cgdir/libbpf.result" 2>/dev/null)
		for c in perfring_cursor perfring_samples perfring_ring; do
			pr=$(awk '{print $3; exit}' "$cgdir/$c.result" 2>/dev/null)
			[[ "$pr" =~ ^[0-9.]+$ && "$lb" =~ ^[0-9.]+$ ]] || continue
			name=$c
			[ "$c" = perfring_cursor ] && name=perfring # the headline: the fastest drain
			awk -v a="$pr" -v b="$lb" -v n="$name" -v c="$c" \
				'BEGIN { printf "RATIO drain_instr_per_record %s/libbpf %.3f%s\n", n, a / b, n == c ? "" : " (" c ")" }'
		done
		# The perfring_msg callback (the README's first example) under its own name.
		pr=$(awk '{print $3; exit}' "$cgdir/perfring_msg.result" 2>/dev/null)
		[[ "$pr" =~ ^[0-9.]+$ && "$lb" =~ ^[0-9.]+$ ]] &&
			awk -v a="$pr" -v b="$lb" \
				'BEGIN { printf "RATIO drain_msg_instr_per_record perfring/libbpf %.3f (perfring_msg)\n", a / b }'
		for c in perfring_cursor perfring_samples perfring_msg libbpf perfring_ring; do
			n=$(awk '{print $6; exit}' "$cgdir/$c.result" 2>/dev/null)
			[ -n "$n" ] && callgrind_top "$cgdir/callgrind.out.$c" drain_profile "$c" "$n" 2
		done
	else
		echo "drain_instr_per_record SKIPPED: valgrind is not installed"
	fi
	echo
	echo "== stream: producer flat out on CPU 0, reader on CPU 1"
	local args=(--duration "$stream_s" --reps "$stream_reps" --pages "$stream_pages" --policy "$policy")
	for p in $extra; do
		args+=(--policy "$p")
	done
	"$bin/stream" "${args[@]}" || status=1
	echo
	echo "== idle: the cost of a 2 ms delay bound with one record every 10 ms (bench/idle.c)"
	"$bin/idle" --seconds "${BENCH_IDLE_S:-3}" || status=1
	echo
	echo "== rings: reader CPU per wakeup against the number of rings, one of them written (bench/rings.c)"
	"$bin/rings" --rings "${BENCH_RINGS:-2,16,256,1024}" --reps "${BENCH_RINGS_REPS:-5}" || status=1
	decode_bench || status=1
	scripts/bench_perfdata.sh "$O" || status=1
	scripts/bench_report_script.sh "$O" || status=1
	scripts/bench_dwarf.sh "$O" || status=1
	scripts/bench_trace.sh "$O" || status=1
	scripts/bench_top.sh "$O" || status=1
	scripts/bench_ringbuf.sh "$O" || status=1
	scripts/bench_profile.sh "$O" || status=1
	return $status
}

run 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
echo "results written to $out"
exit "$rc"

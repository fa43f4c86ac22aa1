#!/usr/bin/env bash
# perf.data decoding, side by side in one run: perfring (bench/perfdata_decode.c)
# against the Rust crate linux-perf-data (bench/rust, built offline from
# Debian's cargo registry) and `perf report --stats`, on one file of
# cpu-clock samples with call chains.
#   bench_perfdata.sh [BUILD_DIR]     (default build; called by scripts/bench.sh)
# The file is recorded once (about 40 s, 100+ MB) and reused:
#   BENCH_PERFDATA_FILE (build/bench/big.perf.data), BENCH_PERFDATA_RECORD_S (36).
# BENCH_PERFDATA_REPS (3) passes each; the figures are medians. Instructions per
# record under callgrind unless BENCH_PERFDATA_CALLGRIND=0 (about a minute).
# The Rust build (cargo home, copied sources, target dir) goes to
# BUILD_DIR/perfdata-rust/; nothing is written under bench/rust.
# Needs (Debian): linux-perf, librust-linux-perf-data-dev, cargo (any cargo on
# PATH will do); run as root, the script installs the missing ones with apt-get.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/bench_lib.sh

O=${1:-build}
bin=$O/bench
file=${BENCH_PERFDATA_FILE:-build/bench/big.perf.data}
record_s=${BENCH_PERFDATA_RECORD_S:-36}
reps=${BENCH_PERFDATA_REPS:-3}
rdir=$O/perfdata-rust
registry=${BENCH_PERFDATA_REGISTRY:-/usr/share/cargo/registry} # Debian's crates
cgdir=$O/bench-callgrind
status=0

echo
echo "== perfdata_decode: a perf.data of cpu-clock samples with call chains, perfring vs linux-perf-data vs perf report --stats"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# apt packages the bench needs, installed when missing and we are root.
ensure_packages() {
	local missing=()
	command -v perf >/dev/null || missing+=(linux-perf)
	ls -d $registry/linux-perf-data-* >/dev/null 2>&1 || missing+=(librust-linux-perf-data-dev)
	command -v cargo >/dev/null || missing+=(cargo)
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "perfdata_decode: missing ${missing[*]} (apt-get install them as root)"
		return 1
	fi
	echo "perfdata_decode: installing ${missing[*]} with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$O/perfdata-apt.log" 2>&1 ||
		{ echo "perfdata_decode: apt-get install ${missing[*]} FAILED (see $O/perfdata-apt.log)"; return 1; }
}

# Record the input once: every CPU, 10 kHz cpu-clock, call chains, while
# perf's own scheduler benchmark keeps both CPUs busy in and out of the kernel.
make_input() {
	[ -s "$file" ] && return 0
	mkdir -p "$(dirname "$file")"
	echo "perfdata_decode: recording $file (${record_s}s of perf bench sched messaging)"
	if ! perf record -e cpu-clock -g -F 10000 -a -o "$file.tmp" -- bash -c \
		"end=\$((SECONDS + $record_s)); while [ \$SECONDS -lt \$end ]; do perf bench sched messaging -g 4 -l 500 >/dev/null; done" \
		>"$O/perfdata-record.log" 2>&1; then
		echo "perfdata_decode: perf record FAILED (see $O/perfdata-record.log)"
		rm -f "$file.tmp"
		return 1
	fi
	mv "$file.tmp" "$file"
}

# Build bench/rust offline against Debian's registry; sets rust_bin.
rust_bin=
build_rust() {
	local ver
	ver=$(ls -d $registry/linux-perf-data-* 2>/dev/null | sed 's/.*linux-perf-data-//' | sort -V | tail -1)
	echo "perfdata_decode: linux-perf-data $ver from $registry (librust-linux-perf-data-dev" \
		"$(dpkg-query -W -f='${Version}' librust-linux-perf-data-dev 2>/dev/null)), $(cargo --version 2>&1)"
	mkdir -p "$rdir/cargo-home" "$rdir/src"
	cat >"$rdir/cargo-home/config.toml" <<-EOF
	[source.crates-io]
	replace-with = "debian"
	[source.debian]
	directory = "$registry"
	[net]
	offline = true
	EOF
	# A copy, so that Cargo.lock is written under build/, not into the tree.
	cp bench/rust/Cargo.toml "$rdir/src/" && rm -rf "$rdir/src/src" && cp -r bench/rust/src "$rdir/src/src" || return 1
	if ! (cd "$rdir/src" && CARGO_HOME="$PWD/../cargo-home" cargo build --release --offline \
		--target-dir "$PWD/../target") >"$rdir/build.log" 2>&1; then
		echo "perfdata_decode linux-perf-data FAILED to build offline: (cd $rdir/src &&" \
			"CARGO_HOME=../cargo-home cargo build --release --offline --target-dir ../target):"
		tail -15 "$rdir/build.log" | sed 's/^/    /'
		return 1
	fi
	rust_bin=$rdir/target/release/perfdata-decode-rust
}

# Instructions per record under callgrind: total instructions of the
# toggled function (or the whole program), over the file's records.
callgrind_ir() { # name records toggle|- cmd...
	local name=$1 n=$2 toggle=$3 cg=$cgdir/callgrind.out.perfdata_$1 ir
	shift 3
	local args=(--tool=callgrind --callgrind-out-file="$cg")
	[ "$toggle" != - ] && args+=(--toggle-collect="$toggle")
	if ! valgrind "${args[@]}" "$@" >"$cgdir/perfdata_$name.log" 2>&1; then
		echo "perfdata_decode_instr_per_record $name FAILED (see $cgdir/perfdata_$name.log)"
		return 1
	fi
	ir=$(awk '/^totals:/ {print $2}' "$cg")
	[ -n "$ir" ] || { echo "perfdata_decode_instr_per_record $name FAILED (no totals in $cg)"; return 1; }
	awk -v c="$name" -v ir="$ir" -v n="$n" -v w="$([ "$toggle" = - ] && echo 'whole process' || echo "$toggle")" \
		'BEGIN { printf "perfdata_decode_instr_per_record %s %.0f (%s; %d instructions, %d records)\n", c, ir / n, w, ir, n }'
}

ensure_packages || status=1
if [ ! -x "$bin/perfdata_decode" ]; then
	echo "perfdata_decode FAILED: $bin/perfdata_decode is missing: build it with make O=$O $bin/perfdata_decode"
	exit 1
fi
make_input || exit 1
build_rust || status=1
echo "perfdata_decode file: $file, $(stat -c %s "$file") bytes; $reps passes each, median; page cache warm"

# Warm the file the same way before every round: out of the page cache,
# then read whole with cat. This VM pages out file pages nobody used for a
# minute (a DAMON pageout scheme of the host's: thp_split_pmd and
# workingset_refault_file climb between runs); read back by page faults they
# return in 4 KiB folios, read by cat in 2 MiB ones, and mapping the former
# took twice as long (the floor went from 6.5 to 11 ms from one run to the
# next), which moved every mapped reader's figure, perf's too.
warm() {
	dd if="$file" iflag=nocache count=0 status=none 2>/dev/null
	cat "$file" >/dev/null
}

# Passes interleave (one of each reader per round), so that a neighbour's
# load on this shared machine weighs on every reader alike. perfring in file
# order and in time order (linux-perf-data 0.6 and perf report sort by time),
# the peers, and the floor. perfring reads with one thread, as the tool does;
# the same passes with the readahead thread (perfring_perfdata_opts.readahead_thread:
# a second CPU reads and orders the records ahead) are measured alongside
# (pass names: perfring and perfring-ordered with the thread, -1thread without).
# perf report --stats' own job (count the records) is measured both ways too.
pr_out= pro_out= rs_out= ps_times= fl_out= flp_out= flh_out= st_out= pr1_out= pro1_out= st1_out= flc_out=
for i in $(seq "$reps"); do
	warm
	pr_out+=$("$bin/perfdata_decode" "$file" --reps 1 --readahead-thread)$'\n' || status=1
	pro_out+=$("$bin/perfdata_decode" "$file" --reps 1 --ordered --readahead-thread)$'\n' || status=1
	pr1_out+=$("$bin/perfdata_decode" "$file" --reps 1)$'\n' || status=1
	pro1_out+=$("$bin/perfdata_decode" "$file" --reps 1 --ordered)$'\n' || status=1
	[ -n "$rust_bin" ] && { rs_out+=$("$rust_bin" "$file" 1)$'\n' || status=1; }
	st_out+=$("$bin/perfdata_decode" "$file" --stats --reps 1 --readahead-thread)$'\n' || status=1
	st1_out+=$("$bin/perfdata_decode" "$file" --stats --reps 1)$'\n' || status=1
	t0=$(date +%s%N)
	perf report --stats -i "$file" >"$O/perfdata-perf-stats.txt" 2>&1 || { echo "perf report --stats -i $file FAILED"; status=1; }
	t=$(awk -v ns="$(( $(date +%s%N) - t0 ))" 'BEGIN { printf "%.6f", ns / 1e9 }')
	ps_times+="perfdata_decode_pass perf-report-stats seconds $t"$'\n'
	fl_out+=$("$bin/perfdata_decode" "$file" --floor --reps 1)$'\n' || status=1
	flp_out+=$("$bin/perfdata_decode" "$file" --floor-pread --reps 1)$'\n' || status=1
	flh_out+=$("$bin/perfdata_decode" "$file" --floor-headers --reps 1)$'\n' || status=1
	flc_out+=$("$bin/perfdata_decode" "$file" --floor-consumer --reps 1)$'\n' || status=1
done
grep '^perfdata_decode_pass' <<<"$pr_out$pro_out$pr1_out$pro1_out$rs_out$ps_times$fl_out$flp_out$flh_out$flc_out"
records=$(awk '/^perfdata_decode perfring / {print $4; exit}' <<<"$pr_out")
t_pr=$(awk '/^perfdata_decode_pass/ {print $10}' <<<"$pr_out" | median)
t_pro=$(awk '/^perfdata_decode_pass/ {print $10}' <<<"$pro_out" | median)
t_pr1=$(awk '/^perfdata_decode_pass/ {print $10}' <<<"$pr1_out" | median)
t_pro1=$(awk '/^perfdata_decode_pass/ {print $10}' <<<"$pro1_out" | median)
sum_pr1=$(awk '/^perfdata_decode_pass/ {print $12; exit}' <<<"$pr1_out")
sum_pr=$(awk '/^perfdata_decode_pass/ {print $12; exit}' <<<"$pr_out")
line() { # name seconds note
	awk -v c="$1" -v t="$2" -v n="$records" -v note="$3" 'BEGIN { if (t > 0) printf "perfdata_decode %s records %d seconds %.6f records_per_s %.0f ns_per_record %.1f (median%s)\n", c, n, t, n / t, t * 1e9 / n, note }'
}
line perfring "$t_pr" " of $reps, readahead thread"
line perfring-ordered "$t_pro" " of $reps, readahead thread"
line perfring-1thread "$t_pr1" " of $reps"
line perfring-ordered-1thread "$t_pro1" " of $reps"
if [ "$sum_pr1" != "$sum_pr" ]; then
	echo "perfdata_decode MISMATCH: the sample field sums differ with and without the readahead thread ($sum_pr, $sum_pr1)"
	status=1
fi

t_rs=
if [ -n "$rust_bin" ]; then
	t_rs=$(awk '/^perfdata_decode_pass/ {print $8}' <<<"$rs_out" | median)
	sum_rs=$(awk '/^perfdata_decode_pass/ {print $10; exit}' <<<"$rs_out")
	if [ "$sum_rs" != "$sum_pr" ]; then
		echo "perfdata_decode MISMATCH: the sample field sums differ (perfring $sum_pr, linux-perf-data $sum_rs)"
		status=1
	fi
	line linux-perf-data "$t_rs" " of $reps"
fi
t_ps=$(awk '{print $4}' <<<"$ps_times" | median)
line perf-report-stats "$t_ps" " of $reps, wall, perf report --stats -i FILE"
t_fl=$(awk '/^perfdata_decode_pass floor/ {print $4}' <<<"$fl_out" | median)
echo "perfdata_decode floor seconds $t_fl (median of $reps: the file mapped and its words added up)"
t_flp=$(awk '/^perfdata_decode_pass floor-pread/ {print $4}' <<<"$flp_out" | median)
echo "perfdata_decode floor-pread seconds $t_flp (median of $reps: the file read with pread into a reused 4 MiB buffer, words added up)"
t_flh=$(awk '/^perfdata_decode_pass floor-headers/ {print $4}' <<<"$flh_out" | median)
echo "perfdata_decode floor-headers seconds $t_flh (median of $reps: the file mapped and its record headers walked, each line prefetched ahead)"
t_flc=$(awk '/^perfdata_decode_pass floor-consumer/ {print $10}' <<<"$flc_out" | median)
sum_flc=$(awk '/^perfdata_decode_pass floor-consumer/ {print $12; exit}' <<<"$flc_out")
echo "perfdata_decode floor-consumer seconds $t_flc (median of $reps: the decoding pass's consumer alone, its records copied in time order into one buffer beforehand)"
if [ "$sum_flc" != "$sum_pr" ]; then
	echo "perfdata_decode MISMATCH: the consumer's floor summed $sum_flc, the decoding pass $sum_pr"
	status=1
fi

ratio() { # name a b note
	[[ "$2" =~ ^[0-9.]+$ && "$3" =~ ^[0-9.]+$ ]] || return 0
	awk -v n="$1" -v a="$2" -v b="$3" -v note="$4" 'BEGIN { printf "RATIO perfdata_decode %s %.3f%s\n", n, a / b, note }'
}
# perfring/* is time order (what the peers do); perfring-fileorder/* the same reading in file order.
ratio perfring/linux-perf-data "$t_pro1" "$t_rs" " (time order, as linux-perf-data)"
ratio perfring/perf-report-stats "$t_pro1" "$t_ps" " (time order, as perf report)"
ratio perfring-fileorder/linux-perf-data "$t_pr1" "$t_rs" " (file order)"
ratio perfring-fileorder/perf-report-stats "$t_pr1" "$t_ps" " (file order)"
# The same with perfring_perfdata_opts.readahead_thread, side by side: slower than one thread
# on this 2-CPU host in every order (0.675 against 0.601 of perf report in time order on an idle
# machine, 1.105 against 0.629 on a busy one), which is why neither the tool nor these headline
# lines use it.
ratio perfring-readahead-thread/perf-report-stats "$t_pro" "$t_ps" " (time order, with the readahead thread)"
ratio perfring-fileorder-readahead-thread/perf-report-stats "$t_pr" "$t_ps" " (file order, with the readahead thread)"
ratio perfring-readahead-thread/perfring "$t_pro" "$t_pro1" " (time order: above 1, the thread is slower than one thread)"

# perf report --stats's own job (time order, records counted by type and
# samples by event, nothing else decoded), checked against perf's counts.
t_st=$(awk '/^perfdata_stats_pass/ {print $10}' <<<"$st_out" | median)
t_st1=$(awk '/^perfdata_stats_pass/ {print $10}' <<<"$st1_out" | median)
st_total=$(awk '/^perfdata_stats_pass/ {print $6; exit}' <<<"$st_out")
st_samples=$(awk '/^perfdata_stats_pass/ {print $8; exit}' <<<"$st_out")
ps_total=$(awk '/TOTAL events:/ {print $3; exit}' "$O/perfdata-perf-stats.txt")
ps_samples=$(awk '/ SAMPLE events:/ {print $3; exit}' "$O/perfdata-perf-stats.txt")
echo "perfdata_stats perfring seconds $t_st1 (as the perfring tool reads for report --stats: no readahead thread; $t_st with one) total $st_total samples $st_samples; perf report --stats: total $ps_total samples $ps_samples"
if [ "$st_total" != "$ps_total" ] || [ "$st_samples" != "$ps_samples" ]; then
	echo "perfdata_stats MISMATCH: perfring counted $st_total records, $st_samples samples; perf report --stats $ps_total, $ps_samples"
	status=1
else
	awk -v a="$t_st1" -v b="$t_ps" 'BEGIN { if (a > 0 && b > 0) printf "RATIO perfdata_stats perfring/perf-report-stats %.3f (time order, records counted as perf report --stats counts them, nothing else decoded)\n", a / b }'
	awk -v a="$t_st" -v b="$t_ps" 'BEGIN { if (a > 0 && b > 0) printf "RATIO perfdata_stats perfring-readahead-thread/perf-report-stats %.3f (the same with the readahead thread: slower, the caller has too little to do)\n", a / b }'
fi

# The floor: no reader touches every byte of the file in less than this.
ratio perfring/floor "$t_pro1" "$t_fl" " (time order over the time to map the file and add up its words)"
ratio perfring-fileorder/floor "$t_pr1" "$t_fl" " (file order)"
ratio floor/perf-report-stats "$t_fl" "$t_ps" " (the least any reader of every byte can take, against perf report)"
ratio floor-pread/floor "$t_flp" "$t_fl" " (copying the file through a reused 4 MiB buffer against walking a mapping of it)"
ratio floor-pread/perf-report-stats "$t_flp" "$t_ps" " (the copying floor against perf report)"
# What perf report --stats needs of a record is its header: the least a
# reader that finds every header (to order or count) can take.
ratio floor-headers/perf-report-stats "$t_flh" "$t_ps" " (only the record headers walked, against perf report)"
# The decoding pass's own consumer (parse each record, add up the sample
# fields and every call chain entry) with no reading at all: what a
# time-ordered decoding pass cannot go below on one CPU, whatever reads.
ratio floor-consumer/perf-report-stats "$t_flc" "$t_ps" " (the decoding pass's consumer alone, no reading, against perf report)"
ratio perfring/floor-consumer "$t_pro1" "$t_flc" " (time order over its consumer alone)"
awk -v a="$t_st1" -v b="$t_flh" 'BEGIN { if (a > 0 && b > 0) printf "RATIO perfdata_stats perfring/floor-headers %.3f (perf report --stats'"'"' job over walking the headers alone)\n", a / b }'

# Peak memory of one pass each (max RSS, /usr/bin/time): time ordering holds
# about a round and a window of the mapping, not the file.
maxrss() { # name cmd...
	local name=$1 kb
	shift
	/usr/bin/time -f %M -o "$O/perfdata-maxrss" "$@" >/dev/null 2>&1
	kb=$(tail -n 1 "$O/perfdata-maxrss" 2>/dev/null)
	[[ "$kb" =~ ^[0-9]+$ ]] && echo "perfdata_decode_maxrss $name $kb KB"
}
if [ -x /usr/bin/time ]; then
	maxrss perfring "$bin/perfdata_decode" "$file" --reps 1 --readahead-thread
	maxrss perfring-ordered "$bin/perfdata_decode" "$file" --reps 1 --ordered --readahead-thread
	maxrss perfring-ordered-1thread "$bin/perfdata_decode" "$file" --reps 1 --ordered
	[ -n "$rust_bin" ] && maxrss linux-perf-data "$rust_bin" "$file" 1
	maxrss perf-report-stats perf report --stats -i "$file"
fi
[ -z "$t_rs" ] && echo "RATIO perfdata_decode perfring/linux-perf-data SKIPPED: the Rust peer did not build"

if [ "${BENCH_PERFDATA_CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
	mkdir -p "$cgdir"
	callgrind_ir perfring "$records" decode_file "$bin/perfdata_decode" "$file" --callgrind || status=1
	callgrind_ir perfring-ordered "$records" decode_file "$bin/perfdata_decode" "$file" --callgrind --ordered ||
		status=1
	[ -n "$rust_bin" ] && { callgrind_ir linux-perf-data "$records" - "$rust_bin" "$file" 1 || status=1; }
	callgrind_ir perf-report-stats "$records" - perf report --stats -i "$file" || status=1
	# Where perfring's instructions go (self cost, top 5 functions).
	for c in perfring perfring-ordered; do
		callgrind_top "$cgdir/callgrind.out.perfdata_$c" perfdata_decode_profile "$c" "$records" 0
	done
fi
exit $status

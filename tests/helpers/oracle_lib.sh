# shellcheck shell=bash
# The differential test against perf, sourced after tests/cli/lib.sh by tests/cli/oracle.sh (a
# matrix that fits make check) and scripts/oracle.sh (make oracle: every cell). A cell is one
# file recorded by perf or perfring (RECORDER), of one program (PROGRAM: tests/oracle/'s sources,
# built here), with frame-pointer or DWARF call graphs (MODE: fp, dwarf), of one event (EVENT:
# cpu-clock, page-faults, tracepoint, group), read by perf and by perfring (OUTPUT: script, report
# with --sort sym, dso,sym, comm,dso,sym, with and without --children; folded and pprof totals).
# Each output is compared on the file recorded (tests/helpers/oracle_cmp.py): the same text, or
# the differences tests/oracle/accepted.txt lists with their cause; a cell prints what differs.
# Nothing compared depends on which samples a recording happened to take.

O_SRC="$T_ROOT/tests/oracle"
O_ACCEPTED="$O_SRC/accepted.txt"
O_BIN="$T_TMP/oracle-bin"
declare -A O_CMD # PROGRAM -> its command line (words, run as they are)
declare -A O_SH  # PROGRAM -> a shell script run with sh -c instead
O_REPORTS=(sym 'dso,sym' 'comm,dso,sym')

# oracle_need: perf, python3 and the tool, else the test ends (skipped without perf).
oracle_need() {
	if [ ! -x "$PERFRING" ]; then
		fail built "$PERFRING is not built (make)"
		t_finish
		exit 1
	fi
	if ! command -v perf >/dev/null || ! command -v python3 >/dev/null; then
		skip oracle "perf or python3 is not installed (perf records the files and is the reference)"
		t_finish
		exit $?
	fi
}

# oracle_build PROGRAM...: build (or find) each program; one that cannot be built here is skipped
# with the reason, one that should build and does not is a failure. Sets O_CMD[PROGRAM]. Each
# runs a number of rounds, not a time: the same work on a busy machine.
oracle_build() {
	local p
	mkdir -p "$O_BIN"
	for p in "$@"; do
		case "$p" in
		c)
			# a shared library calling back into the program; -O2 -g, frame pointers
			if ${CC:-cc} -O2 -g -fno-omit-frame-pointer -shared -fPIC -o "$O_BIN/liboracle.so" "$O_SRC/c_lib.c" &&
				${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$O_BIN/c_main" "$O_SRC/c_main.c" \
					-L"$O_BIN" -loracle -Wl,-rpath,"$O_BIN"; then
				O_CMD[c]="$O_BIN/c_main 60"
			else
				fail build_c "${CC:-cc} could not build tests/oracle/c_main.c"
			fi
			;;
		cxx)
			if ${CXX:-c++} -O2 -g -fno-omit-frame-pointer -o "$O_BIN/cxx" "$O_SRC/cxx.cc"; then
				O_CMD[cxx]="$O_BIN/cxx 30"
			else
				fail build_cxx "${CXX:-c++} could not build tests/oracle/cxx.cc"
			fi
			;;
		rust)
			if ! command -v rustc >/dev/null; then
				skip rust "rustc is not installed (scripts/install-deps.sh installs it)"
			elif rustc -O -g -C force-frame-pointers=yes -o "$O_BIN/rust" "$O_SRC/rust.rs" 2>"$T_TMP/rustc.err"; then
				O_CMD[rust]="$O_BIN/rust 40"
			else
				fail build_rust "rustc could not build tests/oracle/rust.rs: $(head -n 1 "$T_TMP/rustc.err")"
			fi
			;;
		go)
			if ! command -v go >/dev/null; then
				skip go "go is not installed (scripts/install-deps.sh installs golang-go)"
			elif (cd "$O_SRC" && HOME=$T_TMP GOCACHE=$T_TMP/gocache GO111MODULE=off GOFLAGS='' \
				go build -o "$O_BIN/go" go.go) 2>"$T_TMP/go.err"; then
				O_CMD[go]="$O_BIN/go 20"
			else
				fail build_go "go could not build tests/oracle/go.go: $(head -n 1 "$T_TMP/go.err")"
			fi
			;;
		node)
			# V8 writes /tmp/perf-PID.map for the code it compiles
			if command -v node >/dev/null; then
				O_CMD[node]="node --perf-basic-prof $O_SRC/jit.js 20"
			else
				skip node "node is not installed (scripts/install-deps.sh installs nodejs)"
			fi
			;;
		tool)
			# a real multi-file program built from source: this project's own tool (src/, tools/;
			# -O2 -g, libdw, libelf, libzstd), reading a file the C program's run gave perf
			[ -n "${O_CMD[c]:-}" ] || oracle_build c
			# shellcheck disable=SC2086 # the command's words
			if perf record -N -q -g -F 999 -o "$O_BIN/input.data" -- ${O_CMD[c]} >/dev/null 2>&1; then
				O_CMD[tool]='sh'
				O_SH[tool]="for i in 1 2 3 4 5 6; do $PERFRING report -i $O_BIN/input.data --sort sym >/dev/null; $PERFRING script -i $O_BIN/input.data >/dev/null; done"
			else
				fail build_tool "perf record of the C program (the tool's input) failed"
			fi
			;;
		system)
			# the whole machine (-a) while short-lived processes come and go, and the C program
			[ -n "${O_CMD[c]:-}" ] || oracle_build c
			O_CMD[system]='sh'
			O_SH[system]="for i in \$(seq 30); do /bin/true; ls / >/dev/null; done; ${O_CMD[c]% *} 10"
			;;
		esac
	done
}

# oracle_record RECORDER PROGRAM MODE EVENT FILE: record PROGRAM's run into FILE (perf record -N:
# perf fails when several update the build-id cache at once; once more when it fails all the
# same). Returns 1 when it could not (and says FAIL or skip CELL-PREFIX).
oracle_record() {
	local rec=$1 prog=$2 mode=$3 ev=$4 file=$5 cell="$1/$2/$3/$4"
	local args=() cmd=()
	case "$mode" in
	fp) args+=(-g) ;;
	dwarf) args+=(--call-graph dwarf) ;;
	esac
	case "$ev" in
	cpu-clock) args+=(-e cpu-clock -F 999) ;;
	page-faults) args+=(-e page-faults -c 10) ;;
	tracepoint)
		if ! t_ensure_fs tracefs /sys/kernel/tracing; then
			skip "$cell" "$T_FS_WHY"
			return 1
		fi
		args+=(-e sched:sched_switch -c 1)
		;;
	group) args+=(-e '{cpu-clock,page-faults}' -F 999) ;;
	esac
	[ "$prog" = system ] && args+=(-a)
	# The program itself, not under a shell: in one recording of five of `sh -c 'c_main'`, perf's
	# libunwind unwound no frame past the sampled one in the forked program's libc (perfring read
	# the whole chains); a direct run gave no such file in five. Shell scripts (the whole machine,
	# the tool's loop) run under sh. In $T_TMP: node leaves a v8 log where it runs.
	# shellcheck disable=SC2206 # the command's words, split
	if [ -n "${O_SH[$prog]:-}" ]; then
		cmd=(sh -c "${O_SH[$prog]}")
	else
		cmd=(${O_CMD[$prog]})
	fi
	if [ "$rec" = perf ]; then
		(cd "$T_TMP" && perf record -N -q -o "$file" "${args[@]}" -- "${cmd[@]}") >"$T_TMP/rec.out" 2>&1 ||
			{ sleep 1; (cd "$T_TMP" && perf record -N -q -o "$file" "${args[@]}" -- "${cmd[@]}") >"$T_TMP/rec.out" 2>&1; }
	else
		(cd "$T_TMP" && "$PERFRING" record -o "$file" "${args[@]}" -- "${cmd[@]}") >"$T_TMP/rec.out" 2>&1
	fi
	local rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$file" ]; then
		fail "$cell" "$rec record ${args[*]} -- ${cmd[*]}: exit $rc"
		t_show "$T_TMP/rec.out" 4
		return 1
	fi
	return 0
}

# oracle_output CELL PERF_OUT OURS_OUT: one output compared; ok or FAIL CELL, with what differs.
oracle_output() {
	local cell=$1
	if python3 "$T_ROOT/tests/helpers/oracle_cmp.py" "$cell" "$2" "$3" "$O_ACCEPTED" >"$T_TMP/cmp.out" 2>&1; then
		ok "$cell"
		grep '^accepted' "$T_TMP/cmp.out" | sed 's/^/    /'
	else
		fail "$cell" "$(head -n 1 "$T_TMP/cmp.out")"
		tail -n +2 "$T_TMP/cmp.out"
	fi
}

# oracle_totals CELL FILE: perfring report's folded stacks add up to the samples perf script
# lists of the file's first event, and go tool pprof's total of samples too.
oracle_totals() {
	local cell=$1 file=$2 first n sum
	# the file's first event (perf evlist: in the file's order), its samples as perf script lists them
	first=$(perf evlist -i "$file" 2>/dev/null | head -n 1 | sed 's/:.*//')
	n=$(perf script -i "$file" -F event 2>/dev/null | sed 's/^ *//; s/:.*//' | grep -cxF -- "$first")
	if [ "$n" -eq 0 ]; then
		fail "$cell/totals" "perf script lists no sample of the file's first event '$first'"
		return
	fi
	if "$PERFRING" report -i "$file" --folded "$T_TMP/f.folded" >/dev/null 2>"$T_TMP/f.err"; then
		sum=$(awk '{ s += $NF } END { print s + 0 }' "$T_TMP/f.folded")
		t_check "$cell/folded" "folded stacks sum to $sum, perf script lists $n samples of $first" [ "$sum" -eq "$n" ]
	else
		fail "$cell/folded" "perfring report --folded: $(head -n 1 "$T_TMP/f.err")"
	fi
	command -v go >/dev/null || return 0
	if "$PERFRING" report -i "$file" --pprof "$T_TMP/p.pb.gz" >/dev/null 2>"$T_TMP/p.err"; then
		sum=$(HOME=$T_TMP go tool pprof -symbolize=none -raw -sample_index=0 "$T_TMP/p.pb.gz" 2>/dev/null |
			awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }')
		t_check "$cell/pprof" "pprof's samples sum to $sum, perf script lists $n of $first" [ "$sum" -eq "$n" ]
	else
		fail "$cell/pprof" "perfring report --pprof: $(head -n 1 "$T_TMP/p.err")"
	fi
}

# oracle_inlined CELL LISTING BINARY: every frame of a static BINARY that perfring's script
# LISTING shows "(inlined)" names a function llvm-addr2line finds inlined at that address (in its
# inline chain, not the outermost function; skipped without llvm-addr2line: package llvm). For the cells perf cannot read (Go by DWARF: perf's
# libunwind unwinds no Go frame, accepted.txt takes the cell whole): the goroutine's last frame,
# at runtime.goexit's first byte, was shown "runtime.goexit+0x0 (inlined)", a real function
# named inlined by its DWARF name.
oracle_inlined() {
	local cell=$1 listing=$2 bin=$3 bad
	if ! command -v llvm-addr2line >/dev/null; then
		skip "$cell/inlined" "llvm-addr2line is not installed (scripts/install-deps.sh installs llvm)"
		return
	fi
	bad=$(python3 - "$listing" "$bin" <<'PY'
import re, subprocess, sys
listing, binary = sys.argv[1:3]
# the listing's addresses are offsets in the file; addr2line takes virtual ones (the text segment's)
seg = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True).stdout
load = next(l.split() for l in seg.splitlines() if l.split()[:1] == ["LOAD"] and " R E " in l)
base = int(load[2], 16) - int(load[1], 16)
frames = set()
for line in open(listing, errors="replace"):
    m = re.match(r"\s+([0-9a-f]+) (.+?)(\+0x[0-9a-f]+)? \(inlined\)$", line)
    if m and not m.group(1).startswith("ffff"):
        frames.add((int(m.group(1), 16) + base, m.group(2)))
if frames:
    # -a -f -i: per address a line "0x...", then function and place pairs, innermost first
    # (llvm's: binutils' addr2line names the innermost function by its line table, sort.median_func
    # where DWARF has sort.order2_func inlined)
    out = subprocess.run(["llvm-addr2line", "-a", "-f", "-i", "-e", binary] + ["%#x" % a for a, _ in sorted(frames)],
                         capture_output=True, text=True).stdout.splitlines()
    chains, cur = {}, None
    for i, line in enumerate(out):
        if re.match(r"0x[0-9a-f]+$", line):
            cur = int(line, 16)
            chains[cur], k = [], 0
        elif cur is not None:
            if k % 2 == 0:
                chains[cur].append(line)
            k += 1
    for addr, name in sorted(frames):
        if name not in chains.get(addr, [])[:-1]:
            print("%#x %s (inlined): addr2line says %s" % (addr, name, " <- ".join(chains.get(addr, [])) or "nothing"))
PY
)
	t_check "$cell/inlined" "a function shown (inlined) where it is not: $(printf '%s' "$bad" | head -n 3 | tr '\n' ';')" [ -z "$bad" ]
}

# oracle_comms: a script listing's samples (a paragraph each) of the commands in O_COMMS (blank-
# separated; all when unset): a whole machine's recording, compared on the test's own processes.
oracle_comms() {
	if [ -z "${O_COMMS:-}" ]; then
		cat
	else
		awk -v comms=" $O_COMMS " 'BEGIN { RS = ""; ORS = "\n\n" } index(comms, " " $1 " ")'
	fi
}

# oracle_cell RECORDER PROGRAM MODE EVENT [OUTPUT...]: record, then compare every OUTPUT (default:
# script, the reports, the totals; "script", "report", "report-self" (without children alone),
# "totals" choose).
oracle_cell() {
	local rec=$1 prog=$2 mode=$3 ev=$4 cell="$1/$2/$3/$4" file s c o outs
	shift 4
	outs=("$@")
	[ ${#outs[@]} -gt 0 ] || outs=(script report totals)
	if [ -z "${O_CMD[$prog]:-}" ]; then
		return 0 # skipped (or failed) when built
	fi
	file="$T_TMP/${cell//\//_}.data"
	oracle_record "$rec" "$prog" "$mode" "$ev" "$file" || return 0
	for o in "${outs[@]}"; do
		case "$o" in
		script)
			perf script -i "$file" 2>/dev/null | oracle_comms >"$T_TMP/perf.out"
			"$PERFRING" script -i "$file" 2>"$T_TMP/ours.err" | oracle_comms >"$T_TMP/ours.out"
			oracle_output "$cell/script" "$T_TMP/perf.out" "$T_TMP/ours.out"
			[ "$prog/$mode" = go/dwarf ] && oracle_inlined "$cell/script" "$T_TMP/ours.out" "$O_BIN/go"
			;;
		report | report-self)
			local modes=(children no-children)
			[ "$o" = report-self ] && modes=(no-children)
			for s in "${O_REPORTS[@]}"; do
				for c in "${modes[@]}"; do
					perf report -i "$file" --stdio --sort "$s" "--$c" >"$T_TMP/perf.out" 2>/dev/null
					"$PERFRING" report -i "$file" --sort "$s" "--$c" >"$T_TMP/ours.out" 2>"$T_TMP/ours.err"
					oracle_output "$cell/report-${s//,/_}-$c" "$T_TMP/perf.out" "$T_TMP/ours.out"
				done
			done
			;;
		totals) oracle_totals "$cell" "$file" ;;
		esac
	done
	# the perf maps node wrote, read by now
	if [ "$prog" = node ]; then
		perf script -i "$file" -F pid 2>/dev/null | sort -u | while read -r pid; do
			rm -f "/tmp/perf-$pid.map"
		done
	fi
	rm -f "$file"
}

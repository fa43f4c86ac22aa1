#!/usr/bin/env bash
# `perfring report --header-only` against `perf report --header-only` (perf 6.1): the whole
# text, line for line, on files perf records here (call chains and a clock, a group with a
# tracepoint, compression and context switches, two events machine-wide, dwarf call chains
# and a quoted argument, perf stat record, pipe mode from a file, a FIFO and a pipe, a
# --threads directory), on perfring's own recordings, on the corpus of files from other
# kernels and perf versions, and on big-endian copies of some; hostile files give one line
# of error.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"

# same NAME FILE [ARGS...]: perf's and perfring's whole --header-only text of FILE.
same() {
	local name=$1 f=$2
	shift 2
	perf report --header-only -i "$f" "$@" >"$T_TMP/h.perf" 2>/dev/null
	t_run "$T_TMP/h.pr" "$T_TMP/h.err" "$PERFRING" report --header-only -i "$f" "$@"
	t_same_output "$name" "report --header-only -i $(basename "$f")" "$T_TMP/h.perf" "$T_TMP/h.pr" "$T_TMP/h.err" \
		'^# ========$'
}

# record NAME FILE PERF-RECORD-ARGS...: perf record into FILE, then same NAME FILE.
record() {
	local name=$1 f=$2
	shift 2
	if perf_record -q -o "$f" "$@" >/dev/null 2>"$T_TMP/rec.err"; then
		same "$name" "$f"
	else
		fail "$name" "perf record $*: $(head -c 300 "$T_TMP/rec.err")"
	fi
}

# --- files perf records here -----------------------------------------------------

tp=()
if t_ensure_fs tracefs /sys/kernel/tracing; then
	tp=(-e sched:sched_switch)
else
	skip header_tracepoint "$T_FS_WHY"
fi
record header_callchain_clock "$T_TMP/g.data" -g -k CLOCK_MONOTONIC -- sleep 0.1
record header_group_zstd_switch "$T_TMP/grp.data" -e '{cpu-clock,task-clock}' "${tp[@]}" -z --switch-events -- sleep 0.1
record header_two_events_all "$T_TMP/a.data" -a -e cpu-clock,task-clock -- sleep 0.1
record header_dwarf_quote "$T_TMP/dw.data" --call-graph dwarf,1024 -e cpu-clock:u -- sh -c "echo 'it''s' >/dev/null"
# --header (perf's: the header's features, then the report; --header used to be taken as an
# abbreviation of --header-only): perf's own --header text starts with its --header-only text,
# and perfring's is its --header-only text (checked equal to perf's above) followed by its
# report without the title line perf leaves out too.
if [ -s "$T_TMP/g.data" ]; then
	perf report --header --stdio -i "$T_TMP/g.data" >"$T_TMP/hh.perf" 2>/dev/null
	perf report --header-only -i "$T_TMP/g.data" >"$T_TMP/ho.perf" 2>/dev/null
	"$PERFRING" report --header-only -i "$T_TMP/g.data" >"$T_TMP/ho.pr" 2>/dev/null
	"$PERFRING" report -i "$T_TMP/g.data" 2>/dev/null | tail -n +3 >>"$T_TMP/ho.pr"
	t_run "$T_TMP/hh.pr" "$T_TMP/hh.err" "$PERFRING" report --header -i "$T_TMP/g.data"
	t_check header_then_report_perf "perf's --header does not start with its --header-only text" \
		cmp -s -n "$(wc -c <"$T_TMP/ho.perf")" "$T_TMP/ho.perf" "$T_TMP/hh.perf"
	t_same_output header_then_report "report --header" "$T_TMP/ho.pr" "$T_TMP/hh.pr" "$T_TMP/hh.err" '^# Total Lost'
	t_run "$T_TMP/x.out" "$T_TMP/x.err" "$PERFRING" report --header --json -i "$T_TMP/g.data"
	t_check header_json_refused "report --header --json: exit $T_RC, $(head -n 1 "$T_TMP/x.err")" \
		[ "$T_RC" -eq 2 -a "$(wc -l <"$T_TMP/x.err")" -eq 1 ]
fi
if perf stat record -o "$T_TMP/st.data" -e task-clock,context-switches -- sleep 0.1 >/dev/null 2>&1; then
	same header_stat "$T_TMP/st.data"
else
	skip header_stat "perf stat record failed"
fi
# perf record --threads writes a directory: its header is the file "data"
if perf_record -q --threads -o "$T_TMP/th.data" -- sleep 0.1 >/dev/null 2>&1 && [ -f "$T_TMP/th.data/data" ]; then
	same header_threads_dir "$T_TMP/th.data"
	same header_threads_dir_data "$T_TMP/th.data/data"
else
	skip header_threads_dir "perf record --threads failed"
fi

# Pipe mode: the features after the header's closing lines, from a file, from standard input
# redirected from it, and through a pipe (perf takes the pipe's time as the capture time).
P="$T_TMP/p.data"
if perf record -N -q -o - -e '{cpu-clock,task-clock}' -k mono -z -- sleep 0.1 2>"$T_TMP/rec.err" >"$P"; then
	same header_pipe_file "$P"
	perf report --header-only -i - <"$P" >"$T_TMP/h.perf" 2>/dev/null
	t_run "$T_TMP/h.pr" "$T_TMP/h.err" bash -c "'$PERFRING' report --header-only -i - <'$P'"
	t_same_output header_pipe_stdin "report --header-only -i - <p.data" "$T_TMP/h.perf" "$T_TMP/h.pr" "$T_TMP/h.err" '^# event'
	# shellcheck disable=SC2002 # a pipe, not a file, on standard input
	cat "$P" | perf report --header-only -i - 2>/dev/null | sed 2d >"$T_TMP/h.perf"
	t_run "$T_TMP/h.pr" "$T_TMP/h.err" bash -c "cat '$P' | '$PERFRING' report --header-only -i - | sed 2d"
	t_same_output header_pipe_pipe "report --header-only -i - from a pipe" "$T_TMP/h.perf" "$T_TMP/h.pr" "$T_TMP/h.err" '^# event'
else
	fail header_pipe_file "perf record -o -: $(head -c 300 "$T_TMP/rec.err")"
fi
# A live stream: perfring stops at the record that ends the features, as perf does, long
# before the recording ends (from a FIFO path).
mkfifo "$T_TMP/fifo"
perf record -N -q -o - -e cpu-clock -- sleep 4 >"$T_TMP/fifo" 2>/dev/null &
rec=$!
start=$(date +%s%N)
t_run "$T_TMP/h.pr" "$T_TMP/h.err" timeout 10 "$PERFRING" report --header-only -i "$T_TMP/fifo"
ms=$((($(date +%s%N) - start) / 1000000))
kill "$rec" 2>/dev/null
wait "$rec" 2>/dev/null
t_check header_live_stream "from a FIFO: exit $T_RC after $ms ms (the recording takes 4 s), stderr: $(head -c 200 "$T_TMP/h.err")" \
	bash -c "[ $T_RC -eq 0 ] && [ $ms -lt 3500 ] && grep -q '^# event : name = cpu-clock' '$T_TMP/h.pr'"

# perfring's own recordings
if "$PERFRING" record -k mono -z -g -e task-clock -o "$T_TMP/pr1.data" -- sleep 0.1 >/dev/null 2>"$T_TMP/rec.err"; then
	same header_perfring_record "$T_TMP/pr1.data"
else
	fail header_perfring_record "perfring record: $(head -c 300 "$T_TMP/rec.err")"
fi

# --- the corpus: files of other kernels and perf versions ---------------------------

# Files perfring reads with an error after the same text: why.
declare -A expect_error=(
	[perf.data.piped.corrupted.zero_size_sample-3.2]="a record of size 0 after the header: perf stops silently"
)
if t_find_corpus; then
	equal=0 unread=0 bad=""
	for f in "$T_CORPUS"/quipper/perf.data.* "$T_CORPUS"/linux-perf-data/*.data; do
		b=$(basename "$f")
		if ! perf report --header-only -i "$f" >"$T_TMP/c.perf" 2>/dev/null || ! grep -q '^# ========$' "$T_TMP/c.perf"; then
			# perf 6.1 cannot read it (attrs of 136 bytes): perfring reads it all the same
			unread=$((unread + 1))
			"$PERFRING" report --header-only -i "$f" >"$T_TMP/c.pr" 2>&1 && grep -q '^# missing features: ' "$T_TMP/c.pr" ||
				bad="$bad $b(perf cannot read it; perfring failed)"
			continue
		fi
		t_run "$T_TMP/c.pr" "$T_TMP/c.err" "$PERFRING" report --header-only -i "$f"
		if ! cmp -s "$T_TMP/c.perf" "$T_TMP/c.pr"; then
			bad="$bad $b"
			diff "$T_TMP/c.perf" "$T_TMP/c.pr" | head -n 4 | sed "s/^/     | $b: /"
		elif [ -n "${expect_error[$b]:-}" ]; then
			[ "$T_RC" -eq 1 ] && [ "$(wc -l <"$T_TMP/c.err")" -eq 1 ] || bad="$bad $b(exit $T_RC, not one line of error)"
			equal=$((equal + 1))
		elif [ "$T_RC" -ne 0 ]; then
			bad="$bad $b(exit $T_RC: $(head -c 200 "$T_TMP/c.err"))"
		else
			equal=$((equal + 1))
		fi
	done
	t_check header_corpus "corpus: $equal equal to perf's, $unread perf cannot read, differ:$bad" \
		bash -c "[ -z '$bad' ] && [ $equal -ge 50 ]"
	echo "     | corpus: $equal files equal to perf's; $unread perf 6.1 cannot read"
else
	skip header_corpus "$T_CORPUS_WHY"
fi

# --- big-endian copies --------------------------------------------------------------

# A little-endian perf.data rewritten as a big-endian perf writes it, as far as the header is
# read: file mode: the header, attrs, ids, feature table and sections (the data section stays
# as it was); pipe mode: the records up to the end of the features. BPF sections stay: perf
# does not read them from a file of the other byte order.
cat >"$T_TMP/to_be.py" <<'EOF'
import struct, sys

src = bytearray(open(sys.argv[1], 'rb').read())
out = bytearray(src)
u = lambda f, o: struct.unpack_from('<' + f, src, o)[0]
def sw(f, o):
    struct.pack_into('>' + f, out, o, u(f, o))

def attr(o, avail):
    for off, f in ((0, 'I'), (4, 'I'), (8, 'Q'), (16, 'Q'), (24, 'Q'), (32, 'Q'), (48, 'I'), (52, 'I'), (56, 'Q'),
                   (64, 'Q'), (72, 'Q'), (80, 'Q'), (88, 'I'), (92, 'i'), (96, 'Q'), (104, 'I'), (108, 'H'),
                   (110, 'H'), (112, 'I'), (116, 'I'), (120, 'Q'), (128, 'Q')):
        if off + struct.calcsize(f) <= avail:
            sw(f, o + off)
    if avail >= 48:  # flag k at byte k/8 from the top bit; precise_ip's high bit first
        v, b = u('Q', o + 40), bytearray(8)
        p = v >> 15 & 3
        v = v & ~(3 << 15) | ((p >> 1) | (p & 1) << 1) << 15
        for k in range(64):
            if v >> k & 1:
                b[k // 8] |= 0x80 >> (k % 8)
        out[o + 40:o + 48] = b

class Cur:
    def __init__(self, o): self.p = o
    def n(self, f):
        v = u(f, self.p); sw(f, self.p); self.p += struct.calcsize(f); return v
    def s(self, k=1):
        for _ in range(k):
            n = self.n('I')
            self.p += n

nr_cpus = 0
def feature(f, o, size):
    global nr_cpus
    c, end = Cur(o), o + size
    if f in (3, 4, 5, 6, 8, 9): c.s()
    elif f == 7: nr_cpus = c.n('I'); c.n('I')
    elif f in (10, 23): c.n('Q')
    elif f == 11: c.s(c.n('I'))
    elif f in (28, 30): c.s(2 * c.n('I'))
    elif f == 12:
        nre, sz = c.n('I'), c.n('I')
        for _ in range(nre):
            attr(c.p, sz); c.p += sz
            nr = c.n('I'); c.s()
            for _ in range(nr): c.n('Q')
    elif f == 13:
        c.s(c.n('I')); c.s(c.n('I'))
        if c.p < end:
            for _ in range(2 * nr_cpus): c.n('I')
        if c.p < end:
            c.s(c.n('I'))
            for _ in range(nr_cpus): c.n('I')
    elif f == 14:
        for _ in range(c.n('I')): c.n('I'); c.n('Q'); c.n('Q'); c.s()
    elif f == 16:
        for _ in range(c.n('I')): c.n('I'); c.s()
    elif f == 17:
        for _ in range(c.n('I')): c.s(); c.n('I'); c.n('I')
    elif f == 18:
        for _ in range(2 * c.n('Q')): c.n('Q')
    elif f == 20:
        c.n('I')
        for _ in range(c.n('I')):
            for _ in range(4): c.n('I')
            c.s(3)
    elif f == 21: c.n('Q'); c.n('Q')
    elif f == 22:
        c.n('Q'); c.n('Q')
        for _ in range(c.n('Q')):
            c.n('Q'); c.n('Q')
            for _ in range((c.n('Q') + 63) // 64): c.n('Q')
    elif f == 27:
        for _ in range(5): c.n('I')
    elif f == 29: c.n('I'); c.n('I'); c.n('Q'); c.n('Q')
    elif f == 31:
        for _ in range(c.n('I')): c.s(2 * c.n('I')); c.s()
    elif f == 2:
        while c.p < end:
            rec = u('H', c.p + 6)
            sw('I', c.p); sw('H', c.p + 4); sw('H', c.p + 6); sw('i', c.p + 8)
            c.p += rec

out[0:8] = struct.pack('>Q', 0x32454c4946524550)
sw('Q', 8)
if u('Q', 8) == 16:
    p = 16
    while p + 8 <= len(src):
        t, size = u('I', p), u('H', p + 6)
        sw('I', p); sw('H', p + 4); sw('H', p + 6)
        if t == 64:  # HEADER_ATTR: the attr, then its ids
            asz = u('I', p + 12) or 64
            attr(p + 8, asz)
            for q in range(p + 8 + asz, p + size, 8): sw('Q', q)
        elif t == 80:  # HEADER_FEATURE
            f = u('Q', p + 8); sw('Q', p + 8)
            if f >= 32:
                out = out[:p + size]
                break
            feature(f, p + 16, size - 16)
        elif t == 78:  # EVENT_UPDATE
            sw('Q', p + 8); sw('Q', p + 16)
        p += size
else:
    for o in range(16, 104, 8): sw('Q', o)
    attr_size, aoff, asz, doff, dsz = (u('Q', o) for o in (16, 24, 32, 40, 48))
    for a in range(aoff, aoff + asz - attr_size + 1, attr_size):
        attr(a, attr_size - 16)
        ioff, isz = u('Q', a + attr_size - 16), u('Q', a + attr_size - 8)
        sw('Q', a + attr_size - 16); sw('Q', a + attr_size - 8)
        for q in range(ioff, ioff + isz, 8): sw('Q', q)
    bits = sum(u('Q', 72 + 8 * k) << (64 * k) for k in range(4))
    secs = []
    for n, f in enumerate(f for f in range(256) if bits >> f & 1):
        t = doff + dsz + 16 * n
        secs.append((f, u('Q', t), u('Q', t + 8)))
        sw('Q', t); sw('Q', t + 8)
    for s in secs:
        feature(*s)
open(sys.argv[2], 'wb').write(out)
EOF
be=() equal=0 bad=""
for f in "$T_TMP/g.data" "$T_TMP/grp.data" "$T_TMP/dw.data"; do
	[ -f "$f" ] && be+=("$f")
done
if [ -n "${T_CORPUS:-}" ]; then
	for f in group_desc-4.14 hybrid_topology branch_stack_spec armv7-3.4 intel_pt-4.14 numatopology-3.2; do
		be+=("$T_CORPUS/quipper/perf.data.$f")
	done
fi
for f in "${be[@]}"; do
	b="$T_TMP/$(basename "$f").be"
	if ! python3 "$T_TMP/to_be.py" "$f" "$b" 2>"$T_TMP/be.err"; then
		bad="$bad $(basename "$f")(conversion: $(tail -n 1 "$T_TMP/be.err"))"
		continue
	fi
	perf report --header-only -i "$b" >"$T_TMP/b.perf" 2>/dev/null
	"$PERFRING" report --header-only -i "$b" >"$T_TMP/b.pr" 2>"$T_TMP/b.err"
	if cmp -s "$T_TMP/b.perf" "$T_TMP/b.pr" && grep -q '^# event : ' "$T_TMP/b.pr"; then
		equal=$((equal + 1))
	else
		bad="$bad $(basename "$f")"
		diff "$T_TMP/b.perf" "$T_TMP/b.pr" | head -n 4 | sed "s/^/     | $(basename "$f"): /"
	fi
done
t_check header_big_endian "big-endian copies: $equal of ${#be[@]} equal to perf's, differ:$bad" \
	bash -c "[ -z '$bad' ] && [ $equal -gt 0 ]"
# perf 6.1 cannot read a big-endian pipe (it takes the first feature's id unswapped and
# stops): perfring prints what perf prints of the little-endian one (but the attrs' clock id,
# which perf would not swap, and the capture time).
if [ -s "$P" ] && python3 "$T_TMP/to_be.py" "$P" "$T_TMP/p.be" 2>"$T_TMP/be.err"; then
	perf report --header-only -i "$P" 2>/dev/null | grep -v -e '^# captured on' -e '^# event :' >"$T_TMP/h.perf"
	t_run "$T_TMP/h.pr" "$T_TMP/h.err" bash -c "'$PERFRING' report --header-only -i '$T_TMP/p.be' | grep -v -e '^# captured on' -e '^# event :'"
	t_same_output header_big_endian_pipe "report --header-only of a big-endian pipe" "$T_TMP/h.perf" "$T_TMP/h.pr" "$T_TMP/h.err" \
		'^# group: '
fi

# --- bad and hostile files: one line of error, or the header ---------------------------

echo "not a perf.data file" >"$T_TMP/junk.data"
t_one_line_error header_junk "junk.data" "$PERFRING" report --header-only -i "$T_TMP/junk.data"
t_one_line_error header_missing "no-such.data" "$PERFRING" report --header-only -i "$T_TMP/no-such.data"
head -c 60 "$T_TMP/g.data" >"$T_TMP/short.data" 2>/dev/null
t_one_line_error header_short "short.data" "$PERFRING" report --header-only -i "$T_TMP/short.data"
# The hostile files beside the corpus (../shared/reliability/): see their README.
hostile="" nhostile=0
for f in ${T_CORPUS:+"$T_CORPUS"/../../reliability/*.data}; do
	[ -f "$f" ] || continue
	nhostile=$((nhostile + 1))
	for how in file pipe; do
		if [ $how = file ]; then
			t_run "$T_TMP/x.out" "$T_TMP/x.err" timeout 30 "$PERFRING" report --header-only -i "$f"
		else
			t_run "$T_TMP/x.out" "$T_TMP/x.err" timeout 30 bash -c "cat '$f' | '$PERFRING' report --header-only -i -"
		fi
		if ! { [ "$T_RC" -eq 0 ] && [ ! -s "$T_TMP/x.err" ]; } &&
			! { [ "$T_RC" -eq 1 ] && [ "$(wc -l <"$T_TMP/x.err")" -eq 1 ]; }; then
			hostile="$hostile $(basename "$f")($how: exit $T_RC, $(wc -l <"$T_TMP/x.err") lines on stderr)"
		fi
	done
done
if [ "$nhostile" -gt 0 ]; then
	t_check header_hostile "hostile files:$hostile" [ -z "$hostile" ]
else
	skip header_hostile "no hostile files beside the corpus"
fi

t_finish

#!/usr/bin/env bash
# How script and report end on a file with a sample they cannot decode, as perfring(1) says:
# the other samples are listed (counted), one line says how many were skipped, exit 1; after a
# fatal error (a record the reader cannot walk past) that line alone, no second one (issue 27,
# point 9: mutated corpus files printed the fatal error and then "N sample(s) could not be
# decoded", and exited 0 with samples skipped). The files are quipper's perf.data.callgraph-3.8
# with one SAMPLE's call chain emptied (its fields then end 64 bytes before the record), and
# that plus a later record's header.size set to 0. scripts/mutate-check.py finds such cases
# at random; this pins two of them.
source "$(dirname "$0")/lib.sh"

if ! t_find_corpus; then
	skip decode_errors "$T_CORPUS_WHY"
	t_finish
	exit 0
fi
src="$T_CORPUS/quipper/perf.data.callgraph-3.8"
# the SAMPLE at 0x384c8 (sample_type IP|TID|TIME|CPU|PERIOD|CALLCHAIN): its callchain nr at +48
bad_sample=0x384c8
t_run "$T_TMP/dump" "$T_TMP/dump.err" "$PERFRING" script --dump -i "$src"
if ! grep -q "^$bad_sample \[0x78\] SAMPLE " "$T_TMP/dump"; then
	fail decode_errors_file "no 0x78-byte SAMPLE at $bad_sample in $src"
	t_finish
	exit 0
fi
# a record well after it, whose header.size becomes 0: the reader stops there (its offset printed)
fatal_at=$(python3 - "$src" "$T_TMP/one_bad.data" "$T_TMP/bad_then_fatal.data" "$bad_sample" "$T_TMP/dump" <<'EOF'
import struct, sys
src, one, fatal, at, dump = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 16), sys.argv[5]
offs = [int(l.split()[0], 16) for l in open(dump) if l.startswith("0x")]
fat = min(o for o in offs if o > at + 0x10000)
print(hex(fat))
b = bytearray(open(src, "rb").read())
struct.pack_into("<Q", b, at + 48, 0)
open(one, "wb").write(b)
struct.pack_into("<H", b, fat + 6, 0)
open(fatal, "wb").write(b)
EOF
)
all=$(grep -c ' SAMPLE ' "$T_TMP/dump")

# one_error NAME CMD FILE TEXT: perfring CMD -i FILE exits 1 with one line on stderr holding TEXT
# (a grep pattern)
one_error() {
	local name=$1 cmd=$2 file=$3 text=$4 lines
	t_run "$T_TMP/out" "$T_TMP/err" timeout 60 "$PERFRING" "$cmd" -i "$file"
	lines=$(wc -l <"$T_TMP/err")
	t_check "${name}_exit_1" "exit $T_RC, stderr $lines line(s): $(head -c 400 "$T_TMP/err")" \
		[ "$T_RC" -eq 1 -a "$lines" -eq 1 ]
	t_check "${name}_said" "stderr: $(head -c 300 "$T_TMP/err")" grep -q -- "$text" "$T_TMP/err"
}

for cmd in script report; do
	one_error ${cmd}_skipped_sample $cmd "$T_TMP/one_bad.data" \
		"^perfring $cmd: $T_TMP/one_bad.data: 1 sample(s) could not be decoded and were skipped\$"
	t_check ${cmd}_skipped_sample_rest_printed "nothing on stdout" [ -s "$T_TMP/out" ]
	one_error ${cmd}_fatal $cmd "$T_TMP/bad_then_fatal.data" "at offset $fatal_at: record: header.size 0 is below 8"
done
# the listing lacks that sample alone
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" script -i "$T_TMP/one_bad.data"
n=$(grep -c . "$T_TMP/out")
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" script -i "$src"
t_check script_skipped_sample_others_listed "$n lines with the bad sample, $(grep -c . "$T_TMP/out") without" \
	[ "$n" -gt 0 -a "$n" -lt "$(grep -c . "$T_TMP/out")" ]
# --dump prints the record with its error: one line says so, exit 1 (as before)
t_run "$T_TMP/out" "$T_TMP/err" "$PERFRING" script --dump -i "$T_TMP/one_bad.data"
t_check script_dump_bad_record "exit $T_RC, stderr: $(head -c 300 "$T_TMP/err")" \
	[ "$T_RC" -eq 1 -a "$(wc -l <"$T_TMP/err")" -eq 1 -a "$(grep -c ' SAMPLE ' "$T_TMP/out")" -eq "$all" ]
t_finish

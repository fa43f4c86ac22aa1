# shellcheck shell=bash
# Helpers shared by the bench scripts (sourced).

# callgrind_top FILE LABEL NAME RECORDS DECIMALS: the five functions that cost
# the most instructions (self cost) in callgrind output FILE, per record, as
# "LABEL NAME N instr/record FUNCTION" lines.
callgrind_top() {
	callgrind_annotate --inclusive=no --auto=no "$1" 2>/dev/null |
		awk -v label="$2" -v c="$3" -v n="$4" -v d="$5" '
			/file:function/ { getline; on = 1; next }
			on && /^ *$/ { exit }
			on && shown++ < 5 {
				ir = $1; gsub(",", "", ir)
				name = $0
				sub(/^ *[0-9,]+ +\([^)]*\) +/, "", name)
				gsub(/[^ \[]*\//, "", name)
				printf "%s %s %." d "f instr/record %s\n", label, c, ir / n, name
			}'
}

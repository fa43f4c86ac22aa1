#!/usr/bin/env bash
# The man pages: they render without warnings (groff -wall), link pages point
# to a page, every symbol libperfring.so exports and every public inline
# function and function-like macro has `man 3 NAME` (a page, or a .so link to a
# page whose NAME section names it), every SYNOPSIS prototype is the header's
# declaration (whitespace aside; tests/cli/man_check.py), and every option a
# command's --help lists is in that command's page, perfring-COMMAND(1).
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1

pages=0 bad="" links_bad=""
for m in man/*.[13]; do
	[ -e "$m" ] || continue
	if head -n 1 "$m" | grep -q '^\.so '; then
		target=$(sed -n 's/^\.so man[0-9]\///p' "$m")
		[ -f "man/$target" ] || links_bad="$links_bad $(basename "$m")"
		continue
	fi
	pages=$((pages + 1))
	warn=$(groff -man -Tutf8 -wall -z "$m" 2>&1)
	if [ -n "$warn" ] || ! MANWIDTH=80 man -l "$m" 2>/dev/null | grep -c '^NAME' >/dev/null; then
		bad="$bad $(basename "$m")"
		echo "$warn" | head -n 5 | sed 's/^/     | /'
	fi
done
# The tool's commands, each with its page as git's and perf's have (perfring(1) lists them).
COMMANDS="record report script top trace pipe profile"
want="perfring.1 perfring.3 perfring_ring.3 perfring_reader.3"
for c in $COMMANDS; do want="$want perfring-$c.1"; done
absent=""
for f in $want; do [ -f "man/$f" ] || absent="$absent $f"; done
t_check man_pages_exist "found $pages man pages; missing:$absent" [ -z "$absent" ]
t_check man_pages_render "groff warnings or no NAME section in:$bad" [ -z "$bad" ]
t_check man_links_resolve ".so link pages whose target is missing:$links_bad" [ -z "$links_bad" ]

# Every function of a public header has a synopsis line "... name(" in a man3 page.
undocumented=""
for f in $(grep -ohE 'PERFRING_API [^(]*\(' include/perfring/*.h | grep -oE 'perfring_[a-z0-9_]+ *\($' | tr -d ' ('); do
	grep -qE "^\.BI? .*[ *]$f\(" man/*.3 || undocumented="$undocumented $f"
done
t_check man_every_function "public functions without a synopsis line in man/*.3:$undocumented" [ -z "$undocumented" ]

# Every exported symbol and public inline function/macro has `man 3 NAME`.
so="$PERFRING_BUILD/libperfring.so"
if [ -e "$so" ]; then
	names=$( { nm -D --defined-only "$so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}'
		python3 tests/cli/man_check.py public; } | sort -u)
	python3 tests/cli/man_check.py covered $names >"$T_TMP/covered" 2>&1
	t_check man_every_symbol "$(wc -l <"$T_TMP/covered") of $(echo "$names" | wc -l) names lack a man page: $(cut -d: -f1 "$T_TMP/covered" | head -n 12 | tr '\n' ' ')" \
		bash -c "[ -n '$names' ] && [ ! -s '$T_TMP/covered' ]"
	[ -s "$T_TMP/covered" ] && t_show "$T_TMP/covered" 12
else
	fail man_every_symbol "$so is not built"
fi
python3 tests/cli/man_check.py synopsis >"$T_TMP/synopsis" 2>&1
t_check man_synopsis_matches_headers "$(wc -l <"$T_TMP/synopsis") SYNOPSIS prototypes differ from include/perfring/*.h" \
	[ ! -s "$T_TMP/synopsis" ]
[ -s "$T_TMP/synopsis" ] && t_show "$T_TMP/synopsis" 12

# Every function page has the sections of a library man page (perfring(3), the overview,
# keeps its return values and errors as subsections of DESCRIPTION).
unstructured=""
for m in man/*.3; do
	head -n 1 "$m" | grep -q '^\.so ' && continue
	want="NAME SYNOPSIS DESCRIPTION SEE_ALSO"
	[ "$m" = man/perfring.3 ] || want="$want RETURN_VALUE ERRORS"
	for sec in $want; do
		grep -qx "\.SH ${sec//_/ }" "$m" || unstructured="$unstructured $(basename "$m"):${sec}"
	done
done
t_check man_sections "pages lacking a section:$unstructured" [ -z "$unstructured" ]

# Every PERFRING_E* error code is described in perfring(3).
codes=$(grep -oE 'PERFRING_E[A-Z]+ =' include/perfring/common.h | grep -v ERR_ | tr -d ' =')
missing=""
for c in $codes; do grep -q "^\.B $c\$" man/perfring.3 || missing="$missing $c"; done
t_check man_every_error ".TP entries missing in perfring.3 for:$missing" [ -z "$missing" ]

# Every option a command's --help lists (long, and short at a line's start) is in its page;
# the tool's own --help in perfring(1). A wrapped or globbed name (--wakeup-*) is not an option.
if [ -x "$PERFRING" ]; then
	missing="" nopts=0
	for c in "" $COMMANDS; do
		page=man/perfring${c:+-$c}.1
		sed 's/\\-/-/g' "$page" >"$T_TMP/page.txt"
		"$PERFRING" $c --help >"$T_TMP/help.txt" 2>&1
		opts=$({ grep -oE -- '--[a-z][a-z-]+' "$T_TMP/help.txt" | grep -v -- '-$'; grep -oE -- '^ +-[a-zA-Z0-9]\b' "$T_TMP/help.txt" | tr -d ' '; } | sort -u)
		for o in $opts; do
			nopts=$((nopts + 1))
			grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" "$T_TMP/page.txt" || missing="$missing $(basename "$page"):$o"
		done
	done
	t_check man_every_option "options of perfring not in their command's page (of $nopts):$missing" \
		bash -c "[ $nopts -gt 50 ] && [ -z '$missing' ]"
else
	fail man_every_option "$PERFRING is not built"
fi

t_finish

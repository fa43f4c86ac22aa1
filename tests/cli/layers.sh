#!/usr/bin/env bash
# The layer order of docs/DESIGN.md (its ```layers block, bottom first), checked on the built
# objects: no layer calls one above it, no circle between files of different layers, and no
# circle between files of one layer but those listed below with their reason
# (tests/helpers/layers.py reads who calls whom with nm: $PERFRING_BUILD/obj/lib/<layer>/*.o,
# and obj/tools/<dir>/*.o when the build has them).
# shellcheck disable=SC2016 # the backquotes are Markdown's code fences, not expansions
. "$(dirname "$0")/lib.sh"
cd "$T_ROOT" || exit 1

# Circles between files of one layer that stay, one a line: "layer: files | reason".
cat >"$T_TMP/allowed" <<'EOF'
perfdata: perfdata_next perfdata_readahead | the readahead thread runs the reader's own step (pd_next_step) ahead of the caller, and perfring_perfdata_next() takes the records from that thread while it runs: a thread and the work it is given
EOF

check=tests/helpers/layers.py
objs="$PERFRING_BUILD/obj"
if [ ! -d "$objs/lib" ]; then
	fail layers_objects_built "$objs/lib does not exist (build the library with make O=...)"
	t_finish
	exit 1
fi

# The checker finds a wrong call, in a library of two tiny layers compiled here: `low`, listed
# first, calls `high` (so the test can fail), then the same objects with the order turned round.
mkdir -p "$T_TMP/fake/lib/low" "$T_TMP/fake/lib/high"
echo 'int high_fn(void); int low_fn(void) { return high_fn(); }' >"$T_TMP/low.c"
echo 'int high_fn(void) { return 1; }' >"$T_TMP/high.c"
printf '```layers\nlow\nhigh\n```\n' >"$T_TMP/order_bad.md"
printf '```layers\nhigh # a comment\nlow\n```\n' >"$T_TMP/order_good.md"
if ! cc -c -o "$T_TMP/fake/lib/low/low.o" "$T_TMP/low.c" || ! cc -c -o "$T_TMP/fake/lib/high/high.o" "$T_TMP/high.c"; then
	fail layers_finds_a_violation "cc could not build the two test objects"
else
	python3 "$check" "$T_TMP/order_bad.md" "$T_TMP/fake" >"$T_TMP/bad.out" 2>&1
	python3 "$check" "$T_TMP/order_good.md" "$T_TMP/fake" >"$T_TMP/good.out" 2>&1
	t_check layers_finds_a_violation "the checker did not name low_fn's call of high_fn() (or saw one where there is none): $(head -c 300 "$T_TMP/bad.out") / $(head -c 300 "$T_TMP/good.out")" \
		bash -c "grep -c 'src/low/low.c (low) calls high_fn() of src/high/high.c (high), a layer above' '$T_TMP/bad.out' >/dev/null &&
			[ ! -s '$T_TMP/good.out' ]"
	# A circle between the two files: high now calls low too.
	echo 'int low_fn(void); int high_fn(void) { return low_fn(); }' >"$T_TMP/high.c"
	cc -c -o "$T_TMP/fake/lib/high/high.o" "$T_TMP/high.c"
	python3 "$check" "$T_TMP/order_good.md" "$T_TMP/fake" >"$T_TMP/circle.out" 2>&1
	t_check layers_finds_a_circle "the checker did not report the circle low <-> high: $(head -c 300 "$T_TMP/circle.out")" \
		grep -q 'circle between files of different layers (high, low)' "$T_TMP/circle.out"
fi

# The library itself.
python3 "$check" docs/DESIGN.md "$objs" "$T_TMP/allowed" >"$T_TMP/layers.out" 2>"$T_TMP/layers.err"
rc=$?
nlayers=$(sed -n '/^```layers$/,/^```$/p' docs/DESIGN.md | grep -vc '^```\|^ *#\|^ *$')
nobjs=$(find "$objs/lib" -name '*.o' | wc -l)
if [ "$rc" -ne 0 ]; then
	fail layers_in_order "tests/helpers/layers.py could not run (exit $rc): $(head -n 1 "$T_TMP/layers.err")"
elif [ -s "$T_TMP/layers.out" ]; then
	fail layers_in_order "$(wc -l <"$T_TMP/layers.out") problems in $nobjs objects against docs/DESIGN.md's $nlayers layers:"
	t_show "$T_TMP/layers.out" 20
else
	echo "     $nobjs objects, $nlayers layers in docs/DESIGN.md's order, $(grep -vc '^$' "$T_TMP/allowed") circles inside a layer listed"
	ok layers_in_order
fi
t_finish

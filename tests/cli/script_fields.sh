#!/usr/bin/env bash
# `perfring script -F/--fields` against `perf script -F` on files perf records
# here: the listing byte for byte for each field choice (lists, +field and
# -field on the defaults, per event type, repeated -F, a type hidden), on
#  - cpu-clock with call chains (-g),
#  - a tracepoint beside cpu-clock of a fixed period (events of different
#    sample types: cpu-clock records neither CPU nor PERIOD),
#  - page faults with their data addresses (-d: the addr field names them),
#  - kmem and hrtimer tracepoints, whose formats print kernel functions
#    (call_site=%pS; report --sort trace on it too);
# the srcline field's file:line lines equal perf's; and the bad choices
# (unknown field or type, a list mixed with +/-, a field the samples do not
# record, with --json or --dump) end in one clear line.
. "$(dirname "$0")/lib.sh"

. "$T_ROOT/tests/helpers/perf_oracle.sh"

G="$T_TMP/g.data" M="$T_TMP/mixed.data" P="$T_TMP/pf.data"
perf_record -q -e cpu-clock -F 4000 -g -o "$G" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err" ||
	fail record_g "perf record -g failed: $(head -c 300 "$T_TMP/rec.err")"
perf_record_mixed "$M"
perf_record -q -e page-faults -c 1 -d -o "$P" -- "$TARGET" spin 1 >/dev/null 2>"$T_TMP/rec.err" ||
	fail record_pf "perf record -d failed: $(head -c 300 "$T_TMP/rec.err")"

# same NAME FILE -F SPEC [-F SPEC...]: perfring's listing equals perf's.
same() {
	local name=$1 f=$2
	shift 2
	[ -s "$f" ] || return 0
	perf script -i "$f" "$@" >"$T_TMP/perf.out" 2>/dev/null
	t_run "$T_TMP/pr.out" "$T_TMP/pr.err" "$PERFRING" script -i "$f" "$@"
	t_same_output "$name" "script $*" "$T_TMP/perf.out" "$T_TMP/pr.out" "$T_TMP/pr.err"
}

for f in G M P; do
	file=${!f}
	same "${f}_default" "$file"
	same "${f}_comm_tid" "$file" -F comm,tid
	same "${f}_pid_tid" "$file" -F comm,pid,tid,time,event
	same "${f}_pid" "$file" -F pid,event
	same "${f}_ip" "$file" -F ip
	same "${f}_ip_sym" "$file" -F comm,ip,sym
	same "${f}_ip_dso" "$file" -F comm,ip,dso
	same "${f}_sym_no_ip" "$file" -F comm,sym
	same "${f}_all" "$file" -F comm,tid,time,period,event,ip,sym,symoff,dso
	same "${f}_add_pid" "$file" -F +pid
	same "${f}_remove" "$file" -F -tid,-period
	same "${f}_period" "$file" -F comm,period
done
same G_trace_ignored "$G" -F comm,trace
same M_sw_only "$M" -F sw:comm,tid
same M_sw_remove "$M" -F sw:-period
same M_trace_fields "$M" -F trace:cpu,trace
same M_trace_hidden "$M" -F trace:
same M_override "$M" -F comm,event -F trace:time
same M_override_all "$M" -F trace:time -F comm,event
same P_addr "$P" -F comm,addr,ip
# Tracepoint formats that print kernel addresses as functions (kmem's call_site=%pS,
# hrtimer's function=%ps): named from the kernel's symbols, as perf registers its
# kernel map with libtraceevent ("call_site=getname_flags+0x24", not a number).
K="$T_TMP/kmem.data"
if perf_record -q -e kmem:kmalloc -e kmem:kfree -e timer:hrtimer_expire_entry -o "$K" -- \
	sh -c 'ls -R /usr/share/doc >/dev/null' >/dev/null 2>"$T_TMP/rec.err"; then
	same K_functions "$K"
	same K_functions_trace "$K" -F event,trace
	t_check K_named "no call_site named in perfring's listing" grep -q 'call_site=[a-z_].*+0x' "$T_TMP/pr.out"
	# report --sort trace groups by the same text (its entries' lines equal perf's).
	perf report -i "$K" --stdio --sort trace 2>/dev/null | grep -E '^ +[0-9.]+%' | sed 's/ *$//' >"$T_TMP/perf.out"
	t_run "$T_TMP/pr.raw" "$T_TMP/pr.err" "$PERFRING" report -i "$K" --sort trace
	grep -E '^ +[0-9.]+%' "$T_TMP/pr.raw" | sed 's/ *$//' >"$T_TMP/pr.out"
	t_same_output K_report_sort_trace "report --sort trace" "$T_TMP/perf.out" "$T_TMP/pr.out" "$T_TMP/pr.err" '%'
else
	fail record_kmem "perf record -e kmem:kmalloc failed: $(head -c 300 "$T_TMP/rec.err")"
fi
# perf record -d records the data source too (all N/A for a page fault): asked for, it is in words.
same P_data_src "$P" -F +data_src
# A memory event recorded elsewhere (perf mem, PERF_SAMPLE_DATA_SRC and WEIGHT_STRUCT; the
# corpus beside the repository): its memory fields by default and by name, the data source in
# words, each padded to the longest so far, as perf prints them.
if t_find_corpus && [ -s "$T_CORPUS/quipper/perf.data.weight_struct" ]; then
	W=$T_CORPUS/quipper/perf.data.weight_struct
	same W_default "$W"
	same W_data_src "$W" -F data_src
	same W_weights "$W" -F ip,weight,ins_lat
	same W_mem_fields "$W" -F comm,addr,data_src,weight
	same W_remove_weight "$W" -F -weight
	same W_raw_data_src "$W" -F raw:time,data_src
	# --json carries them too: each sample's data_src_text and weight are perf's words and weight.
	perf script -i "$W" -F data_src,weight 2>/dev/null | sed -E 's/^ *[0-9a-f]+ //; s/ +([0-9]+)$/\t\1/' >"$T_TMP/w.perf"
	"$PERFRING" script -i "$W" --json 2>/dev/null |
		sed -E 's/.*"data_src_text":"([^"]*)".*"weight":([0-9]+).*/\1\t\2/' >"$T_TMP/w.pr"
	sed -i -E 's/ +\t/\t/' "$T_TMP/w.perf"
	t_check W_json_mem "perf's words and weights against --json's: $(diff "$T_TMP/w.perf" "$T_TMP/w.pr" | head -n 3 | tr '\n' ' ')" \
		bash -c "[ \$(wc -l <'$T_TMP/w.pr') -gt 5 ] && cmp -s '$T_TMP/w.perf' '$T_TMP/w.pr'"
else
	skip mem_fields "${T_CORPUS_WHY:-no perf.data.weight_struct in the corpus}"
fi
# A page fault's data address named by its binary (perf also names data symbols,
# _edata and the like; perfring's symbols are functions: compared without them).
if [ -s "$P" ]; then
	strip_sym() { sed -E 's/ [^ ]+ \(/ (/'; } # the first symbol: the data address's
	perf script -i "$P" -F comm,addr,ip,sym,dso 2>/dev/null | strip_sym >"$T_TMP/perf.addr"
	"$PERFRING" script -i "$P" -F comm,addr,ip,sym,dso 2>/dev/null | strip_sym >"$T_TMP/pr.addr"
	n=$(grep -c ' (/' "$T_TMP/perf.addr")
	t_check P_addr_dso "$n data addresses in a binary; first difference: $(diff "$T_TMP/perf.addr" "$T_TMP/pr.addr" | head -n 3 | tr '\n' ' ')" \
		bash -c "[ $n -gt 0 ] && cmp -s '$T_TMP/perf.addr' '$T_TMP/pr.addr'"
fi

# srcline: the line numbers perf prints, in order. Not compared: its fallbacks
# for frames without a line ("BINARY[ADDR]", ":0": addr2line's), and the file of
# a function defined in an included file (perf: the compile unit's, libc-start.c
# for __libc_start_call_main; perfring: the line table's, libc_start_call_main.h).
if [ -s "$G" ]; then
	perf script -i "$G" -F ip,sym,srcline 2>/dev/null | grep -E '^  [^ ]+:[1-9][0-9]*$' | sed 's/^  .*:/  :/' >"$T_TMP/perf.src"
	"$PERFRING" script -i "$G" -F ip,sym,srcline 2>/dev/null | grep -E '^  [^ ]+:[1-9][0-9]*$' >"$T_TMP/pr.full"
	sed 's/^  .*:/  :/' "$T_TMP/pr.full" >"$T_TMP/pr.src"
	n=$(wc -l <"$T_TMP/perf.src")
	t_check srcline_lines "$n file:line lines from perf; first difference: $(diff "$T_TMP/perf.src" "$T_TMP/pr.src" | head -n 3 | tr '\n' ' ')" \
		bash -c "[ $n -gt 10 ] && cmp -s '$T_TMP/perf.src' '$T_TMP/pr.src'"
	n=$(grep -c 'sym_target.c:' "$T_TMP/pr.full")
	t_check srcline_target "no line of sym_target.c" [ "$n" -gt 0 ]
fi

# Bad choices: a usage error (exit 2) or, for what the file cannot give, exit 1.
if [ -s "$G" ]; then
	t_usage_error bad_field "unknown field 'bogus'" script -i "$G" -F comm,bogus
	t_usage_error bad_type "unknown event type 'xx'" script -i "$G" -F xx:comm
	t_usage_error empty_all "cannot all be none" script -i "$G" -F ''
	t_usage_error mixed_list "do not mix" script -i "$G" -F comm,-tid
	t_usage_error trace_for_sw "'trace' does not apply to software events" script -i "$G" -F sw:comm,trace
	t_usage_error with_json "--json" script -i "$G" -F comm --json
	t_usage_error with_dump "--dump" script -i "$G" -F comm --dump
	t_one_line_error no_cpu "do not record CPU (PERF_SAMPLE_CPU): cannot print field 'cpu'" \
		"$PERFRING" script -i "$G" -F time,cpu
	t_one_line_error no_addr "cannot print field 'addr'" "$PERFRING" script -i "$G" -F +addr
	t_one_line_error no_data_src "cannot print field 'data_src'" "$PERFRING" script -i "$G" -F +data_src
	t_one_line_error no_weight "cannot print field 'weight'" "$PERFRING" script -i "$G" -F ip,weight
	t_one_line_error symoff_alone "'symoff' needs 'sym'" "$PERFRING" script -i "$G" -F ip,symoff
	# valgrind: the field choices and the per-event resolution leak and overrun nothing.
	if command -v valgrind >/dev/null; then
		valgrind -q --error-exitcode=99 --leak-check=full "$PERFRING" script -i "$G" -F comm,tid,ip,sym -F +srcline \
			>/dev/null 2>"$T_TMP/vg.err"
		rc=$?
		t_check valgrind "valgrind exited $rc: $(grep -m1 -E '==[0-9]+==' "$T_TMP/vg.err")" test "$rc" -eq 0
	else
		skip valgrind "valgrind is not installed"
	fi
fi
t_finish

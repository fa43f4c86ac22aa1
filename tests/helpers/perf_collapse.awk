# perf script's default output (-g recordings) to folded stacks, as
# FlameGraph's stackcollapse-perf.pl names frames: "comm;root;...;leaf COUNT",
# the function without its +offset, an unknown one as [the binary's base name].
# An outside oracle for perfring's --folded (tests/cli/export_script.sh).
#   perf script -i FILE | awk -f perf_collapse.awk | sort
function flush(   s, i) {
	if (have) {
		s = comm
		for (i = n; i >= 1; i--)
			s = s ";" f[i]
		c[s]++
	}
	have = 0
	n = 0
}
/^[^ \t]/ { flush(); comm = $1; have = 1; next }
/^[ \t]*$/ { flush(); next }
{
	sym = $2
	for (i = 3; i < NF; i++)
		sym = sym " " $i
	dso = $NF
	gsub(/^\(|\)$/, "", dso)
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if (sym == "[unknown]" && dso != "[unknown]") {
		k = split(dso, p, "/")
		sym = "[" p[k] "]"
	}
	f[++n] = sym
}
END {
	flush()
	for (s in c)
		print s " " c[s]
}

#!/usr/bin/env bash
# plots.sh: the PNG plots of docs/benchmarks.md, from the tables of a suite
# report and a hunt report (the Markdown scripts/bench.sh writes).
#
# usage: scripts/plots.sh [-h|--help] [SUITE.md HUNT.md OUTDIR [NAME]]
#   default: docs/reports/bench-2026-11-30-floor.md
#            docs/reports/hunt-2026-11-30-floor.md docs/plots suite
#
# Writes OUTDIR/NAME-ratio.png (every ratio column of the suite's job
# table: raid5x / raid456, / raid456t, / the best safe raid456, / raid0,
# the same per bitmap group, and the bitmap's cost x@bm/x, 456@bm/456),
# OUTDIR/NAME-member-reads.png (member MiB read per job, each array),
# OUTDIR/hunt-ratio.png (heat map of raid5x / raid456
# per hunt cell: geometry x job) and OUTDIR/hunt-member-reads.png (member
# MiB read per GiB written, raid5x, per hunt cell). Needs gnuplot
# (gnuplot-nox).
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
-*) echo "plots.sh: unknown option '$1' (try --help)" >&2; exit 64 ;;
esac
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# = 0 ]; then
	set -- "$top/docs/reports/bench-2026-11-30-floor.md" \
		"$top/docs/reports/hunt-2026-11-30-floor.md" "$top/docs/plots"
fi
[ $# = 3 ] || [ $# = 4 ] || { echo "plots.sh: want SUITE.md HUNT.md OUTDIR [NAME] (try --help)" >&2; exit 64; }
suite=$1 hunt=$2 out=$3 name=${4:-suite}
[[ $name =~ ^[a-z0-9-]+$ ]] || { echo "plots.sh: NAME wants lower-case letters, digits and -" >&2; exit 64; }
for f in "$suite" "$hunt"; do
	[ -r "$f" ] || { echo "plots.sh: cannot read $f" >&2; exit 1; }
done
command -v gnuplot >/dev/null || { echo "plots.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
term="pngcairo size 900,480 font 'sans,10'"
gnuplot -e "set terminal" 2>&1 | grep -q pngcairo || term="png size 900,480"

# The suite's first table: | job | A MiB/s ... | x/456 ... (ratio columns:
# titles x/BASE, xVARIANT/BASE, x@G/x, 456@G/456) | p99 | member rd MiB
# A/B/... | member wr |, its columns found by their titles (the arrays are
# those the suite ran) -> suite.dat: job, each ratio, then member MiB read
# of each array ("?" = missing); suite.cols: the ratio columns ("ratio
# COL TITLE") and the arrays ("array COL NAME")
awk -F'|' -v cols="$tmp/suite.cols" '
	function val(s) { gsub(/ /, "", s); return (s == "" || s == "-") ? "?" : s + 0 }
	!t && /^\| job \| [a-z0-9]+ MiB\/s/ {
		t = 1
		nr = 0
		for (i = 2; i < NF; i++) {
			h = $i
			gsub(/^ +| +$/, "", h)
			if (h ~ /^(x|456)[^ ]*\/[^ ]+$/) { rc[++nr] = i; rt[nr] = h }
			else if (h ~ /^member rd MiB /) { crd = i; sub(/^member rd MiB /, "", h); na = split(h, an, "/") }
		}
		for (k = 1; k <= nr; k++) print "ratio", k + 1, rt[k] >cols
		for (k = 1; k <= na; k++) print "array", k + 1 + nr, an[k] >cols
		next
	}
	t && /^\|---/ { next }
	t && /^\|/ {
		gsub(/ /, "", $2)
		line = $2
		for (k = 1; k <= nr; k++) line = line " " val($(rc[k]))
		n = split(crd ? $crd : "", rd, "/")
		for (k = 1; k <= na; k++) line = line " " (k <= n ? val(rd[k]) : "?")
		print line
		next
	}
	t { exit }' "$suite" >"$tmp/suite.dat"
[ -s "$tmp/suite.dat" ] || { echo "plots.sh: no job table in $suite" >&2; exit 1; }
# the gnuplot series of the two suite plots
# series SOFAR COL TITLE: SOFAR plus one series of suite.dat (the first
# one also labels the x axis)
series() {
	if [ -z "$1" ]; then
		echo "\"$tmp/suite.dat\" using $2:xtic(1) title \"$3\""
	else
		echo "$1, \"\" using $2 title \"$3\""
	fi
}
rplot="" mplot=""
while read -r kind col title; do
	if [ "$kind" = ratio ]; then
		rplot=$(series "$rplot" "$col" "$title")
	else
		mplot=$(series "$mplot" "$col" "$title")
	fi
done <"$tmp/suite.cols"
if [ -z "$rplot" ] || [ -z "$mplot" ]; then
	echo "plots.sh: the job table of $suite has no ratio or member read column" >&2
	exit 1
fi

# The hunt's cell table: | members | chunk | rw | bs | qd | 456 | x | x/456 | verdict | rd 456 / x |
# -> row "Nm CHUNKk" column "rw bs qd" ratio rd_x
awk -F'|' '
	/^\| members \| chunk KiB/ { t = 1; next }
	t && /^\|---/ { next }
	t && /^\|/ {
		for (i = 2; i <= 11; i++) gsub(/^ +| +$/, "", $i)
		bs = $5; sub(/^fs=.*/, "stripe", bs)
		split($11, rd, " / ")
		r = $9; if (r == "-") r = "NaN"
		printf "%s_members_%sK\t%s_%s_qd%s\t%s\t%s\n", $2, $3, $4, bs, $6, r, rd[2] + 0
		next
	}
	t { exit }' "$hunt" >"$tmp/hunt.tsv"
[ -s "$tmp/hunt.tsv" ] || { echo "plots.sh: no cell table in $hunt" >&2; exit 1; }
# matrix files for the heat maps: rows = geometries, columns = jobs
cols=(rand_4k_qd1 rand_4k_qd32 rand_64k_qd8 seq_4k_qd32 seq_64k_qd32 seq_1m_qd1 seq_1m_qd8 seq_stripe_qd1)
mapfile -t rows < <(cut -f1 "$tmp/hunt.tsv" | awk '!seen[$0]++')
for k in 3 4; do
	for g in "${rows[@]}"; do
		line=""
		for c in "${cols[@]}"; do
			v=$(awk -F'\t' -v g="$g" -v c="$c" -v k="$k" '$1 == g && $2 == c { print $k }' "$tmp/hunt.tsv")
			line+="${v:-NaN} "
		done
		echo "$line"
	done >"$tmp/hunt$k.mat"
done
xtics=$(for i in "${!cols[@]}"; do printf '"%s" %d,' "${cols[$i]//_/ }" "$i"; done)
ytics=$(for i in "${!rows[@]}"; do printf '"%s" %d,' "${rows[$i]//_/ }" "$i"; done)
src="${suite##*/}, ${hunt##*/}"

gnuplot <<EOF
set terminal $term
set datafile separator whitespace
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -30 noenhanced
set key top right noenhanced

set output "$out/$name-ratio.png"
set title "throughput ratios of medians per job (x = raid5x; source ${suite##*/})" noenhanced
set ylabel "ratio of medians"
set yrange [0:*]
plot $rplot, 1 with lines lc rgb "black" dt 2 notitle

set output "$out/$name-member-reads.png"
set title "member MiB read per run (source ${suite##*/})" noenhanced
set ylabel "MiB read from the members"
plot $mplot

unset style
set style fill solid
unset grid
set xtics rotate by -30 noenhanced ($xtics)
set ytics noenhanced ($ytics)
set xrange [-0.5:${#cols[@]}-0.5]
set yrange [-0.5:${#rows[@]}-0.5] reverse
set view map

set output "$out/hunt-ratio.png"
set title "hunt: raid5x / raid456 throughput per cell (median of 2 runs; source ${hunt##*/})" noenhanced
unset ylabel
set palette defined (0.5 "#b2182b", 1.0 "#f7f7f7", 2.0 "#2166ac")
set cbrange [0.5:2.0]
set cblabel "raid5x / raid456"
plot "$tmp/hunt3.mat" matrix with image notitle, \
     "$tmp/hunt3.mat" matrix using 1:2:(sprintf("%.2f", \$3)) with labels notitle

set output "$out/hunt-member-reads.png"
set title "hunt: raid5x member MiB read per GiB written (source ${hunt##*/})" noenhanced
set palette defined (0 "#f7f7f7", 2100 "#b2182b")
set cbrange [0:2100]
set cblabel "MiB read per GiB"
plot "$tmp/hunt4.mat" matrix with image notitle, \
     "$tmp/hunt4.mat" matrix using 1:2:(sprintf("%.0f", \$3)) with labels notitle
EOF
echo "plots.sh: $out/{$name-ratio,$name-member-reads,hunt-ratio,hunt-member-reads}.png from $src"

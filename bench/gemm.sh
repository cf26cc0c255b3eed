#!/usr/bin/env bash
# Times square products of sizes 64 to 2048 in the four layouts, float64
# and float32, on rtn's Gemm (package internal/gemm's kernels) and on the
# system OpenBLAS in one run (go test -tags openblas -bench GemmShapes
# ./graph), one thread each, the two alternating call by call (each first
# in every other pair), and prints
# GFLOP/s and the ratio rtn / OpenBLAS (in speed) as a Markdown table.
# Each row is the run with the best ratio of -count runs.
#
#   bench/gemm.sh [-count 3] [-benchtime 0.3s] [-sizes 64,128,256,512,1024,2048]
#   bench/gemm.sh -doc docs/speed.md   # the table between <!-- gemm:begin --> and <!-- gemm:end -->
#
# Needs cgo and the system OpenBLAS (apt-get install libopenblas-dev).
# Timings are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."

count=3 benchtime=0.3s sizes=64,128,256,512,1024,2048 doc=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "gemm.sh: flag $1 needs a value" >&2; exit 2; }
	case "$1" in
	-count) count=$2 ;;
	-benchtime) benchtime=$2 ;;
	-sizes) sizes=$2 ;;
	-doc) doc=$2 ;;
	*) echo "gemm.sh: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
marker=gemm
if [ -n "$doc" ] && ! { grep -q "^<!-- $marker:begin" "$doc" && grep -q "^<!-- $marker:end" "$doc"; }; then
	echo "gemm.sh: $doc has no <!-- $marker:begin --> and <!-- $marker:end --> lines" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pattern="GemmShapes/($(echo "$sizes" | tr , '|'))/"
OPENBLAS_NUM_THREADS=1 GOMAXPROCS=1 go test -tags openblas -run X -bench "$pattern" \
	-benchtime "$benchtime" -count "$count" ./graph >"$tmp/raw.txt"
cpu=$(awk -F': ' '/^cpu:/ {print $2; exit}' "$tmp/raw.txt")

# per size, layout and type: the run with the best ratio, and its figures
awk '/^BenchmarkGemmShapes/ {
	split($1, p, "/"); sub(/-[0-9]+$/, "", p[4])
	key = p[2] " " p[3] " " p[4]
	r = o = q = 0
	for (i = 2; i < NF; i++) {
		if ($(i+1) == "rtn-GFLOP/s") r = $i
		if ($(i+1) == "blas-GFLOP/s") o = $i
		if ($(i+1) == "rtn/blas") q = $i
	}
	if (!(key in best) || q > best[key]) { best[key] = q; line[key] = r " " o " " q }
}
END {
	for (k in line) print k, line[k]
}' "$tmp/raw.txt" | sort -k1,1n -k2,2 >"$tmp/best.txt"

{
	echo "\`bench/gemm.sh -count $count -benchtime $benchtime\`: square products (m = n = k), GFLOP/s, one thread, rtn and OpenBLAS (cgo, \`-tags openblas\`) alternating call by call, each first in every other pair; per row the best of $count runs${cpu:+; $cpu}."
	echo
	echo "| size | layout | float64 rtn | float64 OpenBLAS | ratio | float32 rtn | float32 OpenBLAS | ratio |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|"
	awk '{ v[$1 " " $2 " " $3] = sprintf("%.1f | %.1f | %.2f", $4, $5, $6); if (!seen[$1 " " $2]++) order[++n] = $1 " " $2 }
	END {
		for (i = 1; i <= n; i++) {
			split(order[i], s, " ")
			f64 = v[order[i] " float64"]; f32 = v[order[i] " float32"]
			print "| " s[1] " | " s[2] " | " (f64 == "" ? "- | - | -" : f64) " | " (f32 == "" ? "- | - | -" : f32) " |"
		}
	}' "$tmp/best.txt"
} >"$tmp/table.md"
cat "$tmp/table.md"

if [ -n "$doc" ]; then
	awk -v tablefile="$tmp/table.md" -v begin="^<!-- $marker:begin" -v end="^<!-- $marker:end" '
	$0 ~ begin { print; print ""; while ((getline l < tablefile) > 0) print l; print ""; skip = 1; next }
	$0 ~ end { skip = 0 }
	!skip { print }' "$doc" >"$tmp/doc" && cp "$tmp/doc" "$doc"
fi

#!/usr/bin/env bash
# Times one training step of rtn's recurrent models and of the same models in
# PyTorch (one thread, same sizes, same dtype) in one run and prints the ratio.
#
#   bench/compare.sh [-batch 32 -in 88 -hidden 100 -steps 100 -reps 5]
#   RTN_TAGS=openblas bench/compare.sh      # rtn built with the system OpenBLAS
#
# PyTorch is optional (apt-get install python3-torch libopenblas0-pthread):
# without it only rtn's figures are printed. Timings are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."

batch=32 in=88 hidden=100 steps=100 reps=5
while [ $# -gt 0 ]; do
	case "$1" in
	-batch) batch=$2 ;;
	-in) in=$2 ;;
	-hidden) hidden=$2 ;;
	-steps) steps=$2 ;;
	-reps) reps=$2 ;;
	*) echo "compare.sh: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build ${RTN_TAGS:+-tags "$RTN_TAGS"} -o "$tmp/rtn" ./cmd/rtn
"$tmp/rtn" bench -batch "$batch" -in "$in" -hidden "$hidden" -steps "$steps" -reps "$reps" -json >"$tmp/rtn.json"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	"$py" bench/torch_step.py --batch "$batch" --in "$in" --hidden "$hidden" --steps "$steps" --reps "$reps" >"$tmp/torch.json" || true
"$py" - "$tmp/rtn.json" "$tmp/torch.json" "batch $batch, in/out $in, hidden $hidden, $steps steps, float64" <<'PY'
import json, sys
rtn = json.load(open(sys.argv[1]))
try:
    torch = json.load(open(sys.argv[2]))
except (OSError, ValueError):
    torch = None
ref = {r["name"]: r["ms_per_step"] for r in (torch or {}).get("results", [])}
print("one training step (forward, BPTT, Adam),", sys.argv[3])
print("rtn BLAS: %s; PyTorch: %s" % (rtn["backend"], "%s, %d thread" % (torch["torch"], torch["threads"]) if torch else "not installed"))
print("%-10s %12s %12s %8s" % ("model", "rtn ms", "PyTorch ms", "ratio"))
for r in rtn["results"]:
    t = ref.get(r["name"])
    print("%-10s %12.1f %12s %8s" % (r["name"], r["ms_per_step"], "%.1f" % t if t else "-", "%.2f" % (r["ms_per_step"] / t) if t else "-"))
PY

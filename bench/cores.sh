#!/usr/bin/env bash
# Times one training step of rtn's models (rtn bench) at GOMAXPROCS 1 and
# at GOMAXPROCS P (every core, by default), and the same step in PyTorch
# (bench/torch_step.py) on P threads, back to back in rounds, and prints
# the speed-up of rtn on P cores and the ratio to PyTorch on P threads as
# Markdown.
#
#   bench/cores.sh [-procs 2 -steps 100 -reps 2 -rounds 5 -batch 64 -in 88 -hidden 512 -only lstm-step,gru-step,rnn-step -dtypes float64,float32]
#   bench/cores.sh -doc docs/speed.md   # the table between <!-- cores:begin --> and <!-- cores:end -->
#
# Each round runs rtn at GOMAXPROCS 1, rtn at GOMAXPROCS P, then PyTorch;
# the table gives the medians over the rounds of each round's ratios, with
# their range. The speed-up is of the wall clock (the figure several cores
# are for). PyTorch is optional (apt-get install python3-torch
# libopenblas0-pthread): without it the PyTorch columns are empty.
# RTN_PYTHON names the Python interpreter (default /usr/bin/python3).
# Timings are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."

procs=$(nproc 2>/dev/null || echo 2) batch=64 in=88 hidden=512 steps=100 reps=2 rounds=5 only=lstm-step,gru-step,rnn-step dtypes=float64,float32 doc=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "cores.sh: flag $1 needs a value" >&2; exit 2; }
	case "$1" in
	-procs) procs=$2 ;;
	-batch) batch=$2 ;;
	-in) in=$2 ;;
	-hidden) hidden=$2 ;;
	-steps) steps=$2 ;;
	-reps) reps=$2 ;;
	-rounds) rounds=$2 ;;
	-only) only=$2 ;;
	-dtypes) dtypes=$2 ;;
	-doc) doc=$2 ;;
	*) echo "cores.sh: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
for v in "$procs" "$batch" "$in" "$hidden" "$steps" "$reps" "$rounds"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "cores.sh: $v is not a positive integer (-procs, -batch, -in, -hidden, -steps, -reps and -rounds take one each)" >&2; exit 2; }
done
[ "$procs" -ge 2 ] || { echo "cores.sh: -procs $procs: the speed-up needs at least 2" >&2; exit 2; }
if [ -n "$doc" ] && ! { grep -q '^<!-- cores:begin' "$doc" && grep -q '^<!-- cores:end' "$doc"; }; then
	echo "cores.sh: $doc has no <!-- cores:begin --> and <!-- cores:end --> lines" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rtn" ./cmd/rtn
py=${RTN_PYTHON:-/usr/bin/python3}
torch=yes
command -v "$py" >/dev/null && "$py" -c 'import torch' 2>/dev/null || torch=no
sizes=(-batch "$batch" -in "$in" -hidden "$hidden" -steps "$steps" -reps "$reps")
for n in ${only//,/ }; do
	for d in ${dtypes//,/ }; do
		for r in $(seq "$rounds"); do
			for p in 1 "$procs"; do
				GOMAXPROCS=$p OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
					"$tmp/rtn" bench "${sizes[@]}" -only "$n" -dtype "$d" -json >"$tmp/rtn-$n-$d-$r-$p.json"
			done
			[ "$torch" = yes ] || continue
			OMP_NUM_THREADS=$procs OPENBLAS_NUM_THREADS=$procs MKL_NUM_THREADS=$procs \
				"$py" bench/torch_step.py --batch "$batch" --in "$in" --hidden "$hidden" --threads "$procs" \
				--steps "$steps" --reps "$reps" --only "$n" --dtype "$d" >"$tmp/torch-$n-$d-$r.json"
		done
	done
done
cmd="bench/cores.sh -procs $procs -steps $steps -reps $reps -rounds $rounds -batch $batch -in $in -hidden $hidden -only $only -dtypes $dtypes"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
"$py" - "$tmp" "$only" "$dtypes" "$rounds" "$procs" "$torch" "$cmd" "${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') cores" >"$tmp/table.md" <<'PY'
import json, os, statistics, sys
tmp, names, dtypes, rounds, procs, torch, cmd, machine = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "yes", sys.argv[7], sys.argv[8]
def one(path):
    return json.load(open(path))["results"][0]
def med(xs):
    return "%.2f (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs)) if len(xs) > 1 else "%.2f" % xs[0]
tv = None
print("`%s` on %s: one training step (forward, full BPTT, Adam), wall clock; rtn at GOMAXPROCS 1 and %d%s." % (
    cmd, machine, procs, ", PyTorch on %d threads" % procs if torch else " (PyTorch not installed)"))
print()
print("| model | batch | hidden | T | dtype | rtn ms/step, 1 core | rtn ms/step, %d cores | speed-up | PyTorch ms/step, %d threads | rtn / PyTorch, %d each |" % (procs, procs, procs))
print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
for n in names:
    for d in dtypes:
        one_c, many, tt = [], [], []
        for r in range(1, rounds + 1):
            path = os.path.join(tmp, "rtn-%s-%s-%d-1.json" % (n, d, r))
            one_c.append(one(path)); many.append(one(os.path.join(tmp, "rtn-%s-%s-%d-%d.json" % (n, d, r, procs))))
            if torch:
                t = json.load(open(os.path.join(tmp, "torch-%s-%s-%d.json" % (n, d, r))))
                tv = t["torch"]
                tt.append(t["results"][0])
        a = one_c[0]
        speed = [x["ms_per_step"] / y["ms_per_step"] for x, y in zip(one_c, many)]
        row = [a["model"], str(a["batch"]), str(a["hidden"]), str(a["steps"]), d,
               "%.1f" % statistics.median(x["ms_per_step"] for x in one_c),
               "%.1f" % statistics.median(x["ms_per_step"] for x in many), med(speed)]
        if tt:
            row += ["%.1f" % statistics.median(x["ms_per_step"] for x in tt), med([y["ms_per_step"] / z["ms_per_step"] for y, z in zip(many, tt)])]
        else:
            row += ["-", "-"]
        print("| " + " | ".join(row) + " |")
print()
print("Medians over %d rounds (each: rtn on 1 core, rtn on %d, then PyTorch, back to back) of the round's figures and ratios, their range in brackets%s." % (
    rounds, procs, "; PyTorch %s" % tv if tv else ""))
PY
cat "$tmp/table.md"
if [ -n "$doc" ]; then
	if [ "$torch" != yes ]; then
		echo "cores.sh: PyTorch is not installed: $doc left unchanged" >&2
		exit 0
	fi
	awk -v table="$tmp/table.md" '
		/^<!-- cores:begin/ { print; print ""; while ((getline l < table) > 0) print l; print ""; skip = 1; next }
		/^<!-- cores:end/ { skip = 0 }
		!skip { print }' "$doc" >"$tmp/out"
	cat "$tmp/out" >"$doc"
	echo "cores.sh: wrote the table into $doc" >&2
fi

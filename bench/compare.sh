#!/usr/bin/env bash
# Times one training step of rtn's models (rtn bench) and of the same models
# in PyTorch (bench/torch_step.py: same sizes), in float64 and in float32
# (-dtype; the u-MPS in float64 only), both on one thread (GOMAXPROCS=1, one
# OpenBLAS thread), model by model and dtype by dtype back to back, and
# prints the ratio table as Markdown, the float32 ratios beside the
# float64 ones.
#
#   bench/compare.sh [-steps 50,100,1000 -reps 5 -batch 32 -in 88 -hidden 100 -only NAMES -dtypes float64,float32]
#   bench/compare.sh -steps 100 -hidden 100,256,512,1024 -batch 32,128 -only rnn-step,lstm-step
#   RTN_THREADS=2 bench/compare.sh ...   # GOMAXPROCS 2 against PyTorch on 2 threads
#   bench/compare.sh -steps 100 -rounds 5 -only mirnn-step   # medians of 5 alternating rounds
#   bench/compare.sh -readme README.md -doc docs/speed.md
#   RTN_TAGS=openblas bench/compare.sh -doc docs/speed.md   # rtn on the system OpenBLAS
#   bench/compare.sh -steps 100 -only cp2rnn-step,mirnn-step -marker speed-tensor -doc docs/speed.md
#
# -rounds N runs each model N times, rtn then PyTorch, and prints the
# medians of the rounds' ratios (steadier on a busy machine).
# -hidden and -batch take lists: every model -hidden sizes runs at each
# hidden size and batch size, the others at each batch size.
# -doc writes the full table, -readme a short one (the ratios per model and
# length), each between the lines <!-- speed:begin --> and
# <!-- speed:end --> of its file (<!-- speed-openblas:begin --> ... with
# RTN_TAGS=openblas; -marker NAME: <!-- NAME:begin --> ..., for a table of
# some models only). PyTorch is optional (apt-get install
# python3-torch libopenblas0-pthread): without it only rtn's figures are
# printed, the file is left alone, and the exit status is 0.
# RTN_PYTHON names the Python interpreter (default /usr/bin/python3).
# Timings are never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."

batch=32 in=88 hidden=100 steps=50,100,1000 reps=5 rounds=1 only="" readme="" doc="" dtypes=float64,float32 marker=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || { echo "compare.sh: flag $1 needs a value" >&2; exit 2; }
	case "$1" in
	-batch) batch=$2 ;;
	-in) in=$2 ;;
	-hidden) hidden=$2 ;;
	-steps) steps=$2 ;;
	-reps) reps=$2 ;;
	-rounds) rounds=$2 ;;
	-only) only=$2 ;;
	-dtypes) dtypes=$2 ;;
	-readme) readme=$2 ;;
	-doc) doc=$2 ;;
	-marker) marker=$2 ;;
	*) echo "compare.sh: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
marker=${marker:-speed${RTN_TAGS:+-$RTN_TAGS}}
for f in "$readme" "$doc"; do
	if [ -n "$f" ] && ! { grep -q "^<!-- $marker:begin" "$f" && grep -q "^<!-- $marker:end" "$f"; }; then
		echo "compare.sh: $f has no <!-- $marker:begin --> and <!-- $marker:end --> lines" >&2
		exit 2
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
threads=${RTN_THREADS:-1}
go build ${RTN_TAGS:+-tags "$RTN_TAGS"} -o "$tmp/rtn" ./cmd/rtn
sizes=(-batch "$batch" -in "$in" -hidden "$hidden" -steps "$steps" -reps "$reps")
names=${only:-$("$tmp/rtn" bench -h 2>&1 | sed -n 's/.*(known: \(.*\)).*/\1/p' | tr -d ' ')}
f64only=$("$tmp/rtn" bench -h 2>&1 | sed -n 's/.*float64 only: \([^)]*\)).*/\1/p' | tr -d ' ')
py=${RTN_PYTHON:-/usr/bin/python3}
if ! command -v "$py" >/dev/null; then
	echo "compare.sh: no Python at $py; PyTorch comparison skipped" >&2
	for d in ${dtypes//,/ }; do
		"$tmp/rtn" bench "${sizes[@]}" ${only:+-only "$only"} -dtype "$d"
	done
	exit 0
fi
torch=yes
for n in ${names//,/ }; do
	for d in ${dtypes//,/ }; do
		if [ "$d" != float64 ] && [[ ",$f64only," == *",$n,"* ]]; then
			continue
		fi
		for r in $(seq "$rounds"); do
			GOMAXPROCS=$threads OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
				"$tmp/rtn" bench "${sizes[@]}" -only "$n" -dtype "$d" -json >"$tmp/rtn-$n-$d-$r.json"
			[ "$torch" = yes ] || continue
			: >"$tmp/torch-$n-$d-$r.jsonl"
			for b in ${batch//,/ }; do
				for h in ${hidden//,/ }; do
					OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads MKL_NUM_THREADS=$threads \
						"$py" bench/torch_step.py --batch "$b" --in "$in" --hidden "$h" --threads "$threads" \
						--steps "$steps" --reps "$reps" --only "$n" --dtype "$d" >>"$tmp/torch-$n-$d-$r.jsonl" || { torch=no; break 2; }
				done
			done
			[ -s "$tmp/torch-$n-$d-$r.jsonl" ] || torch=no
		done
	done
done
cmd="${RTN_TAGS:+RTN_TAGS=$RTN_TAGS }bench/compare.sh -steps $steps -reps $reps"
[ "$rounds" = 1 ] || cmd="$cmd -rounds $rounds"
[ "$batch/$in/$hidden" = 32/88/100 ] || cmd="$cmd -batch $batch -in $in -hidden $hidden"
[ "$threads" = 1 ] || cmd="RTN_THREADS=$threads $cmd"
[ "$dtypes" = float64,float32 ] || cmd="$cmd -dtypes $dtypes"
[ -z "$only" ] || cmd="$cmd -only $only"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
"$py" - "$tmp" "$names" "$dtypes" "$torch" "$cmd" "${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') cores" "$rounds" >"$tmp/table.md" <<'PY'
import json, os, statistics, sys
tmp, names, dtypes, have_torch, cmd, machine = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), sys.argv[4] == "yes", sys.argv[5], sys.argv[6]
rounds = int(sys.argv[7])
def key(r):
    return (r["name"], r["steps"], r["dtype"], r["batch"], r["hidden"])
def median_record(rs):
    m = dict(rs[0])
    for k in ("ms_per_step", "ms_per_time_step", "cpu_ms_per_step", "setup_seconds"):
        m[k] = statistics.median(r[k] for r in rs)
    m["rounds"] = rs
    return m
rtn_by, torch_by, info, notes, rep = {}, {}, None, [], None
for n in names:
    for d in dtypes:
        for rd in range(1, rounds + 1):
            path = os.path.join(tmp, "rtn-%s-%s-%d.json" % (n, d, rd))
            if not os.path.exists(path):
                continue  # a benchmark that runs in float64 only
            rep = json.load(open(path))
            for r in rep["results"]:
                rtn_by.setdefault(key(r), []).append(r)
                note = "%s, %s: %s" % (n, d, r["note"])
                if note not in notes:
                    notes.append(note)
            if have_torch:
                for line in open(os.path.join(tmp, "torch-%s-%s-%d.jsonl" % (n, d, rd))):
                    t = json.loads(line)
                    info = t
                    for r in t["results"]:
                        r["dtype"] = t["dtype"]
                        torch_by.setdefault(key(r), []).append(r)
rows = [median_record(v) for v in rtn_by.values()]
ref = {k: median_record(v) for k, v in torch_by.items()}
def ratio_of(r, t, field, spread=False):
    """The median over rounds of rtn's figure over PyTorch's, round by round,
    with the range when asked and there is more than one round."""
    qs = [a[field] / b[field] for a, b in zip(r["rounds"], t["rounds"]) if a[field] > 0 and b[field] > 0]
    if not qs:
        return "-"
    out = "%.2f" % statistics.median(qs)
    if spread and len(qs) > 1:
        out += " (%.2f-%.2f)" % (min(qs), max(qs))
    return out
b = rows[0]
print("`%s` on %s: one training step (forward, full BPTT, Adam), %s, rtn BLAS %s, GOMAXPROCS %d; PyTorch %s."
      % (cmd, machine, " and ".join(dtypes), b["backend"], rep["gomaxprocs"],
         "%s, %d thread%s" % (info["torch"], info["threads"], "s" if info["threads"] > 1 else "") if info else "not installed"))
print()
print("| model | batch | hidden | T | dtype | rtn ms/step | PyTorch ms/step | rtn / PyTorch | CPU time rtn / PyTorch | rtn ms per time step | rtn setup (s) | allocs/step | MB/step |")
print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
rows.sort(key=lambda r: (names.index(r["name"]), r["batch"], r["hidden"], r["steps"], dtypes.index(r["dtype"])))
for r in rows:
    t = ref.get(key(r))
    print("| %s | %d | %s | %d | %s | %.1f | %s | %s | %s | %.3f | %.2f | %d | %.1f |" % (
        r["model"], r["batch"], r["hidden"] or "-", r["steps"], r["dtype"], r["ms_per_step"], "%.1f" % t["ms_per_step"] if t else "-",
        ratio_of(r, t, "ms_per_step") if t else "-",
        ratio_of(r, t, "cpu_ms_per_step", True) if t else "-", r["ms_per_time_step"],
        r["setup_seconds"], r["allocs_per_step"], r["bytes_per_step"] / 1e6))
print()
print(("Medians over %d rounds, each rtn then PyTorch back to back, of the round's ratio (the CPU-time ratio's range in brackets); " % rounds if rounds > 1 else "") +
      "Wall-clock ratios of runs taken back to back; on a machine shared with other work the CPU-time ratio is the steadier one. "
      "float32: states, caches, activations and matrix products in float32, parameters, gradients and Adam in float64 "
      "(PyTorch: the whole model in float32).")
print()
for n in notes:
    print("- " + n)
if have_torch:
    steps = sorted({r["steps"] for r in rows})
    with open(os.path.join(tmp, "short.md"), "w") as f:
        f.write("`%s`: rtn / PyTorch time per training step, wall clock (CPU time), %s, rtn BLAS %s.\n\n"
                % (cmd, "one thread" if info["threads"] == 1 else "%d threads" % info["threads"], b["backend"]))
        f.write("| model | " + " | ".join("T = %d, %s" % (t, d) for t in steps for d in dtypes) + " |\n")
        f.write("|---|" + "---:|" * (len(steps) * len(dtypes)) + "\n")
        sized = len({(r["batch"], r["hidden"]) for r in rows}) > 1
        for m, bt, h in dict.fromkeys((r["model"], r["batch"], r["hidden"]) for r in rows):
            cells = []
            for t in steps:
                for d in dtypes:
                    r = next((r for r in rows if (r["model"], r["batch"], r["hidden"], r["steps"], r["dtype"]) == (m, bt, h, t, d)), None)
                    p = ref.get(key(r)) if r else None
                    cells.append("%s (%s)" % (ratio_of(r, p, "ms_per_step"), ratio_of(r, p, "cpu_ms_per_step")) if p else "-")
            label = m
            if sized:
                label = "%s, batch %d" % (m, bt) + (", hidden %d" % h if h else "")
            f.write("| %s | %s |\n" % (label, " | ".join(cells)))
PY
cat "$tmp/table.md"
# put FILE TABLE: replaces the lines between the markers of FILE by TABLE.
put() {
	awk -v table="$2" -v begin="^<!-- $marker:begin" -v end="^<!-- $marker:end" '
		$0 ~ begin { print; print ""; while ((getline l < table) > 0) print l; print ""; skip = 1; next }
		$0 ~ end { skip = 0 }
		!skip { print }' "$1" >"$tmp/out"
	cat "$tmp/out" >"$1"
	echo "compare.sh: wrote the table into $1" >&2
}
if [ -n "$readme$doc" ] && [ "$torch" != yes ]; then
	echo "compare.sh: PyTorch is not installed: $readme $doc left unchanged" >&2
	exit 0
fi
[ -z "$doc" ] || put "$doc" "$tmp/table.md"
[ -z "$readme" ] || put "$readme" "$tmp/short.md"

#!/usr/bin/env bash
# slurm-e2e.sh: runs docs/compare.md's Slurm array job on a real, one-node
# Slurm cluster started on this machine, and checks that the merged shards
# give the same comparison as a single process, byte for byte.
#
# Usage (as root, from anywhere in the repository, on Debian or Ubuntu):
#
#   scripts/slurm-e2e.sh [--keep] [--purge] 2>&1 | tee slurm-e2e.log
#
# What it does:
#   1. installs Slurm and munge from the distribution's packages
#      (apt-get install --no-install-recommends slurm-wlm munge), unless
#      they are already there;
#   2. in a fresh directory under /tmp: makes a munge key, starts munged on
#      a socket of its own, writes a slurm.conf for one node (this host,
#      `nproc` CPUs, partition e2e, no accounting database: sacct reads the
#      job completion file) and starts slurmctld and slurmd, all under
#      `nice -n 10` so that the jobs run niced too; SLURM_CONF points every
#      Slurm command at that file, /etc/slurm is not touched;
#   3. builds rtn into that directory and puts it first on PATH (sbatch
#      hands PATH to the jobs);
#   4. takes the array job script and the merge command from the "On a
#      cluster" section of docs/compare.md and changes only what a small
#      run needs: 4 array tasks instead of 8, 1 CPU per task instead of 4,
#      the output directory, and the comparison's flags (a few seconds per
#      task); the diff against the docs is printed;
#   5. submits the array job, then the merge job with --dependency=afterok
#      as the docs do, and polls squeue until both have left the queue
#      (SLURM_E2E_TIMEOUT seconds, default 600; then scancel and failure);
#      prints sacct's lines and fails unless every task COMPLETED with
#      exit code 0;
#   6. runs the same comparison in a single process and compares it with
#      the merged one using cmp: table.txt, grid.csv, loss_vs_epoch.png and
#      loss_vs_lr.png as they are; runs.csv and summary.json with their
#      wall-time fields (runs.csv's last column, summary.json's "seconds")
#      blanked first, the only fields that depend on the machine's speed.
#      Any difference exits 1;
#   7. on exit, however it exits: cancels its jobs, stops the daemons it
#      started (by the PIDs in its pid files) and removes its directory.
#
# Options:
#   --keep    keep the work directory (logs, slurm.conf, outputs) and say where
#   --purge   at the end, purge the packages this run installed
#             (apt-get purge; packages already there before are kept)
#
# What it leaves: without --purge, the installed packages (slurm-wlm,
# munge and their dependencies, with the munge key the munge package made
# in /etc/munge, the "slurm" and "munge" system users and systemd unit
# links that no service manager here starts). With --purge their purge
# scripts remove all of that; what stays is apt's refreshed package lists.
# It uses Slurm's default ports 6817 and 6818 and refuses to start when
# either is already in use.
#
# It needs root and starts daemons, so it is not part of CI or go test.
set -euo pipefail

# The comparison: 5 optimizers x 2 rates x 2 seeds, 3 epochs of the LSTM
# on the automaton task; 20 runs, a few seconds per array task.
readonly SMALL=(-task pfa -model lstm -optimizers "sgd,momentum,adam,rmsprop,adagrad" -lr-grid 1e-2:1e-1:2 -seeds 2 -epochs 3)
readonly SMALL_COMPARE="${SMALL[*]}"
readonly TASKS=4
# shellcheck disable=SC2016 # the docs' text, not expanded here
readonly DOC_OUT='$HOME/rtn-compare/lstm-pfa'
readonly TIMEOUT=${SLURM_E2E_TIMEOUT:-600}

keep=0
purge=0
for arg in "$@"; do
	case $arg in
	--keep) keep=1 ;;
	--purge) purge=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "slurm-e2e.sh: unknown argument $arg (known: --keep, --purge, --help)" >&2
		exit 2
		;;
	esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
start_ns=$(date +%s%N)

# log prints a line prefixed by the seconds since the start.
log() {
	local now
	now=$(date +%s%N)
	printf '[%6.1fs] %s\n' "$(((now - start_ns) / 1000000))e-3" "$*"
}

die() {
	log "FAIL: $*"
	exit 1
}

# run logs a command, then runs it.
run() {
	log "\$ $*"
	"$@"
}

# seconds_since prints the seconds since the date +%s%N value $1.
seconds_since() {
	local now
	now=$(date +%s%N)
	printf '%.1f' "$(((now - $1) / 1000000))e-3"
}

[[ $(id -u) -eq 0 ]] || die "needs root (it installs packages and starts munged, slurmctld and slurmd)"
command -v apt-get >/dev/null || die "needs apt-get (Debian or Ubuntu)"
command -v go >/dev/null || die "needs go to build rtn"
[[ -f $repo/docs/compare.md && -d $repo/cmd/rtn ]] || die "$repo is not the rtn repository"

# port_in_use reports whether something listens on TCP port $1 of this host.
port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
for port in 6817 6818; do
	if port_in_use "$port"; then
		die "port $port is in use (another Slurm?); stop it first"
	fi
done

# --- 1. packages -------------------------------------------------------------
installed_packages() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" {print $2}' | sort
}
before_pkgs=$(installed_packages)
new_pkgs=""
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null &&
	command -v munged >/dev/null && command -v mungekey >/dev/null; then
	log "Slurm and munge already installed: $(slurmctld -V), $(munged -V 2>&1 | head -n1)"
else
	t=$(date +%s%N)
	run apt-get update -qq
	# Start no service while installing: the daemons started below are ours.
	own_policy=0
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		own_policy=1
	fi
	log "\$ apt-get install -y --no-install-recommends slurm-wlm munge"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >/tmp/slurm-e2e-apt.log 2>&1; then
		tail -n 20 /tmp/slurm-e2e-apt.log
		die "apt-get install failed (log: /tmp/slurm-e2e-apt.log)"
	fi
	rm -f /tmp/slurm-e2e-apt.log
	if [[ $own_policy -eq 1 ]]; then
		rm -f /usr/sbin/policy-rc.d
	fi
	new_pkgs=$(comm -13 <(echo "$before_pkgs") <(installed_packages) | tr '\n' ' ')
	log "installed in $(seconds_since "$t") s: $new_pkgs"
	log "$(slurmctld -V), $(munged -V 2>&1 | head -n1)"
fi

# --- 2. the cluster ----------------------------------------------------------
work=$(mktemp -d /tmp/rtn-slurm-e2e.XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf
jobs_ids=""

# cleanup cancels the jobs, stops the daemons this script started and
# removes its directory (or says where it is kept), then purges the
# packages when asked.
cleanup() {
	local rc=$? pid ids
	trap - EXIT
	cd /
	if [[ -n $jobs_ids ]]; then
		IFS=, read -ra ids <<<"$jobs_ids"
		scancel "${ids[@]}" 2>/dev/null || true
	fi
	for d in slurmd slurmctld munged; do
		if [[ -s $work/run/$d.pid ]]; then
			pid=$(cat "$work/run/$d.pid")
			if kill "$pid" 2>/dev/null; then
				for _ in $(seq 50); do
					kill -0 "$pid" 2>/dev/null || break
					sleep 0.2
				done
				log "stopped $d (pid $pid)"
			fi
		fi
	done
	if [[ $keep -eq 1 ]]; then
		log "kept $work (slurm.conf, log/, submit/, out/, single/)"
	else
		rm -rf "$work"
	fi
	if [[ $purge -eq 1 && -z $new_pkgs ]]; then
		log "--purge: this run installed no package"
	elif [[ $purge -eq 1 ]]; then
		log "\$ apt-get purge -y $new_pkgs"
		# shellcheck disable=SC2086 # one word per package
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $new_pkgs >/dev/null 2>&1 || log "apt-get purge failed"
	fi
	log "exit $rc"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$work"/{munge,run,log,state,spool,submit,bin}
chmod 700 "$work/munge"
host=$(hostname -s)
cpus=$(nproc)

t=$(date +%s%N)
run mungekey -c -k "$work/munge/munge.key"
run nice -n 10 munged -S "$work/run/munge.socket" --key-file="$work/munge/munge.key" \
	--log-file="$work/log/munged.log" --pid-file="$work/run/munged.pid" --seed-file="$work/munge/munged.seed"
munge -S "$work/run/munge.socket" -n | unmunge -S "$work/run/munge.socket" >/dev/null || die "munge credential round trip failed"

cat >"$SLURM_CONF" <<EOF
# One-node cluster of scripts/slurm-e2e.sh.
ClusterName=rtn-e2e
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/run/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/log/jobcomp.txt
MinJobAge=3600
# A merge job whose array failed is cancelled, not left pending.
DependencyParameters=kill_invalid_depend
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
log "slurm.conf: node $host with $cpus CPUs, partition e2e"
run nice -n 10 slurmctld -f "$SLURM_CONF"
run nice -n 10 slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
	[[ $state == idle ]] && break
	sleep 1
done
[[ $state == idle ]] || {
	tail -n 20 "$work/log/slurmctld.log" "$work/log/slurmd.log"
	die "node $host is not idle after 60 s (state: ${state:-none})"
}
log "cluster up in $(seconds_since "$t") s:"
sinfo

# --- 3. rtn ------------------------------------------------------------------
t=$(date +%s%N)
(cd "$repo" && run nice -n 10 go build -o "$work/bin/rtn" ./cmd/rtn)
export PATH=$work/bin:$PATH
log "built rtn in $(seconds_since "$t") s"

# --- 4. the job script of the docs -------------------------------------------
# doc_block prints the fenced block that follows the line starting with $1.
doc_block() {
	awk -v start="$1" 'f == 0 && index($0, start) == 1 {f = 1; next}
		f == 1 && /^```/ {f = 2; next}
		f == 2 && /^```/ {exit}
		f == 2 {print}' "$repo/docs/compare.md"
}
out=$work/out
doc_job=$(doc_block "Slurm array job")
[[ -n $doc_job ]] || die "docs/compare.md has no block after a line starting \"Slurm array job\""
echo "$doc_job" | awk -v small="$SMALL_COMPARE" '
	/^srun rtn compare / {print "srun rtn compare " small " \\"; skip = 1; next}
	skip && /^ *-jobs / {skip = 0}
	!skip {print}' |
	sed -e "s/^#SBATCH --array=1-8\$/#SBATCH --array=1-$TASKS/" \
		-e 's/^#SBATCH --cpus-per-task=4$/#SBATCH --cpus-per-task=1/' \
		-e "s|$(printf '%s' "$DOC_OUT" | sed 's/\$/\\$/')|$out|g" >"$work/submit/compare.sbatch"
# shellcheck disable=SC2016 # lines of the job script, not expanded here
for want in "#SBATCH --array=1-$TASKS" "#SBATCH --cpus-per-task=1" "OUT=$out" \
	"srun rtn compare $SMALL_COMPARE \\" \
	'    -shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" -out "$OUT/shard$SLURM_ARRAY_TASK_ID"'; do
	grep -qxF -- "$want" "$work/submit/compare.sbatch" ||
		die "docs/compare.md's array job no longer has the line this script edits or needs: $want"
done
merge_line=$(grep -m1 -F -- "--wrap 'rtn compare merge" "$repo/docs/compare.md" || true)
[[ -n $merge_line ]] || die "docs/compare.md has no merge job (--wrap 'rtn compare merge ...')"
merge_cmd=${merge_line#*--wrap \'}
merge_cmd=${merge_cmd%\'*}
merge_cmd=${merge_cmd//"$DOC_OUT"/$out}
log "the array job of docs/compare.md, as run (diff against the docs):"
diff -u --label docs/compare.md --label compare.sbatch <(echo "$doc_job") "$work/submit/compare.sbatch" || true
log "the merge job's command: $merge_cmd"

# --- 5. submit, wait ---------------------------------------------------------
cd "$work/submit"
t=$(date +%s%N)
log "\$ sbatch --parsable compare.sbatch"
jid=$(sbatch --parsable compare.sbatch)
jobs_ids=$jid
log "array job $jid"
log "\$ sbatch --parsable --dependency=afterok:$jid --wrap '$merge_cmd'"
mid=$(sbatch --parsable --dependency="afterok:$jid" --wrap "$merge_cmd")
jobs_ids=$jid,$mid
log "merge job $mid"
fmt='%.10i %.9P %.12j %.8T %.6M %R'
active=PENDING,CONFIGURING,RUNNING,COMPLETING,SUSPENDED
last=""
deadline=$((SECONDS + TIMEOUT))
# A squeue listing is logged whenever a job or task changes state.
while :; do
	states=$(squeue -h -j "$jobs_ids" -t "$active" -o '%i %T %R' 2>/dev/null || true)
	if [[ $states != "$last" ]]; then
		log "\$ squeue -j $jobs_ids"
		squeue -j "$jobs_ids" -t "$active" -o "$fmt" 2>/dev/null | sed 's/^/    /' || true
		last=$states
	fi
	[[ -z $states ]] && break
	if ((SECONDS > deadline)); then
		die "jobs $jobs_ids still queued after $TIMEOUT s"
	fi
	sleep 1
done
jobs_ids=""
wall=$(seconds_since "$t")
log "array and merge jobs left the queue $wall s after the submission"
# sacct reads the job completion file (no accounting database): it knows
# each array task by its own job ID, and without array fields.
log "\$ sacct -c -o JobIDRaw,JobName,State,ExitCode,Start,End,Elapsed"
sacct -c -o JobIDRaw,JobName%12,State,ExitCode,Start,End,Elapsed 2>/dev/null | sed 's/^/    /'
# The controller still holds the finished jobs (MinJobAge): their states
# and exit codes decide.
log "\$ scontrol -o show job $jid,$mid (array task, state, exit code)"
ends=$(scontrol -o show job "$jid" 2>/dev/null
	scontrol -o show job "$mid" 2>/dev/null)
ends=$(awk '{
	for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
	print f["JobId"], (f["ArrayTaskId"] == "" ? "-" : f["ArrayJobId"] "_" f["ArrayTaskId"]), f["JobState"], f["ExitCode"], f["RunTime"]
	delete f }' <<<"$ends")
printf '%s\n' "$ends" | sed 's/^/    /'
for f in slurm-*.out; do
	echo "    --- $f"
	sed 's/^/    /' "$f"
done
done_tasks=$(awk -v j="$jid" '$2 ~ "^" j "_[0-9]+$" && $3 == "COMPLETED" && $4 == "0:0"' <<<"$ends" | wc -l)
merged_ok=$(awk -v j="$mid" '$1 == j && $3 == "COMPLETED" && $4 == "0:0"' <<<"$ends" | wc -l)
[[ $done_tasks -eq $TASKS ]] || die "$done_tasks of $TASKS array tasks COMPLETED with exit code 0"
[[ $merged_ok -eq 1 ]] || die "the merge job did not complete with exit code 0"
[[ -f $out/table.txt ]] || die "the merge job wrote no $out/table.txt"

# --- 6. one process, cmp -----------------------------------------------------
single=$work/single
t=$(date +%s%N)
log "\$ nice -n 10 rtn compare $SMALL_COMPARE -jobs 1 -quiet -out $single"
nice -n 10 rtn compare "${SMALL[@]}" -jobs 1 -quiet -out "$single" >"$work/single.txt"
log "single process: $(seconds_since "$t") s"
sed 's/^/    /' "$out/table.txt"
diffs=0
for f in table.txt grid.csv loss_vs_epoch.png loss_vs_lr.png; do
	if cmp "$single/$f" "$out/$f"; then
		log "cmp $f: identical"
	else
		diffs=$((diffs + 1))
	fi
done
mkdir -p "$work/masked"
for f in runs.csv summary.json; do
	for d in single out; do
		case $f in
		runs.csv) sed 's/,[^,]*$/,-/' "$work/$d/$f" ;;
		summary.json) sed -E 's/("seconds": ?)[^,}]*/\1-/g' "$work/$d/$f" ;;
		esac >"$work/masked/$d.$f"
	done
	if cmp "$work/masked/single.$f" "$work/masked/out.$f"; then
		log "cmp $f (wall time blanked): identical"
	else
		diffs=$((diffs + 1))
	fi
done
[[ $diffs -eq 0 ]] || die "$diffs files of the merged shards differ from the single process"
log "PASS: $TASKS array tasks merged by a dependent job equal the single-process comparison (array and merge $wall s)"

#!/usr/bin/env bash
# `sailor run --launcher slurm` of a plan on two pools: a heterogeneous Slurm job, one component
# per pool, on the cluster of scripts/slurm-cluster (its nodes NODE, partition debug, and NODE-2,
# partition second; tests/data/runtime/slurm-localhost-two-pools.json maps us-central1-a/A100-40
# to debug and us-central1-a/V100-16 to second). The plan (pp2-dp2-two-pools.json, 2 stages x 2
# replicas) puts ranks 0, 2 and 3 on the A100 pool and rank 1 on the V100 pool: the pools'
# ranks interleave and their components differ in size (3 tasks and 1).
#  1. to completion: every iteration reaches the run store and the losses equal those of the
#     same plan and seed run with the local launcher (float64, the runtime's 1e-9); Slurm kept
#     the job as two components (scontrol show job: HetJobOffset 0 on debug and NODE with 3
#     tasks, 1 on second and NODE-2 with 1), both COMPLETED;
#  2. while a run runs: squeue shows the two components running, each on its node, and each
#     worker runs on its pool's node with the rank the plan gives it (ranks 0, 2, 3 on NODE, rank
#     1 on NODE-2: SLURMD_NODENAME and --rank of the live sailor-worker processes); then Stop:
#     both components leave squeue, no worker is left, the run is recorded stopped;
#  3. a partition the cluster does not have for the second pool only: refused before
#     submission (one line naming it, exit 2, nothing recorded or submitted).
# Usage: test_slurm_hetjob.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: test_slurm_hetjob.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scancel scontrol sinfo sqlite3 jq

slurm_work_on_cluster sailor-slurm-hetjob

node=$(sinfo -h -p debug -o %N)
node2=$(sinfo -h -p second -o %N)
[[ -n $node && -n $node2 && $node != "$node2" ]] ||
  fail "the cluster has no second node (partitions debug: '$node', second: '$node2')"

store=$work/runs.sqlite
data=$src/tests/data/runtime
common=(--plan "$data/pp2-dp2-two-pools.json" --scenario "$src/resources/scenarios/default.json"
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store")
slurm=(--launcher slurm --cluster "$data/slurm-localhost-two-pools.json")

# components JOB: "offset partition nodes tasks state" per component, from scontrol.
components() {
  scontrol -o show job "$1" | sed -E 's/.*HetJobOffset=([0-9]+).*JobState=([A-Z_]+).* Partition=([^ ]+).* NodeList=([^ ]+).* NumTasks=([0-9]+).*/\1 \3 \4 \5 \2/' | sort
}

echo "== 1. two pools to completion, against the local launcher"
"$bin/sailor" run "${common[@]}" --iterations 8 >"$work/local.jsonl" || fail "local run failed"
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --iterations 8 >"$work/slurm.jsonl" ||
  fail "the slurm run exited $?: $(tail -n 3 "$work/slurm.jsonl")"
run=$(last_run)
job=$(job_of "$run")
[[ $(q "SELECT launcher || ' ' || status FROM runs WHERE id = $run") == "slurm finished" ]] ||
  fail "run $run is not a finished slurm run"
[[ $(iterations "$run") == 8 ]] || fail "run $run stored $(iterations "$run") of 8 iterations"
jq -rs '[.[] | select(.event == "iteration") | .loss]' "$work/local.jsonl" >"$work/local.loss"
jq -rs '[.[] | select(.event == "iteration") | .loss]' "$work/slurm.jsonl" >"$work/slurm.loss"
jq -ne --slurpfile a "$work/local.loss" --slurpfile b "$work/slurm.loss" \
  '($a[0] | length) == 8 and ($b[0] | length) == 8 and ([range(8)] | all(($a[0][.] - $b[0][.]) | fabs <= 1e-9 * ($a[0][.] | fabs)))' \
  >/dev/null || fail "losses differ: local $(tr -d ' \n' <"$work/local.loss") slurm $(tr -d ' \n' <"$work/slurm.loss")"
# A finished job stays visible to scontrol for MinJobAge (300 s) seconds.
expected="0 debug $node 3 COMPLETED
1 second $node2 1 COMPLETED"
got=$(components "$job")
[[ $got == "$expected" ]] || fail "job $job's components: got '$got', expected '$expected'"
[[ $(scontrol -o show job "$job" | grep -c "HetJobId=$job ") == 2 ]] ||
  fail "job $job is not one heterogeneous job of two components"
echo "8 iterations stored, losses equal to the local run's (1e-9); job $job: $(echo "$got" | tr '\n' ';')"

echo "== 2. while it runs: the components in squeue, each rank on its pool's node; then Stop"
prev=$(last_run)
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --iterations 400 >"$work/stop.jsonl" &
pid=$!
wait_for "two stored iterations of a new run" 120 new_run_iterations "$prev" 2
run=$(last_run)
job=$(job_of "$run")
rundir=$(q "SELECT run_dir FROM runs WHERE id = $run")
expected="$job+0 debug RUNNING $node
$job+1 second RUNNING $node2"
got=$(squeue -h -j "$job" -o '%i %P %T %N' | sort)
[[ $got == "$expected" ]] || fail "squeue for job $job: got '$got', expected '$expected'"
got=$(components "$job")
[[ $got == "0 debug $node 3 RUNNING"$'\n'"1 second $node2 1 RUNNING" ]] ||
  fail "scontrol show job $job while it runs: got '$got'"
# Every worker: its rank (the command line) and the node Slurm started it on (its environment).
placement=""
for w in $(workers_of "$rundir"); do
  r=$(tr '\0' '\n' <"/proc/$w/cmdline" | sed -n '/^--rank$/{n;p}')
  n=$(tr '\0' '\n' <"/proc/$w/environ" | sed -n 's/^SLURMD_NODENAME=//p')
  placement+="$r $n"$'\n'
done
expected="0 $node
1 $node2
2 $node
3 $node"
got=$(echo -n "$placement" | sort -n)
[[ $got == "$expected" ]] || fail "ranks and their nodes: got '$got', expected '$expected'"
echo "job $job in squeue as two components; ranks 0 2 3 on $node, rank 1 on $node2"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc == 130 ]] || fail "stopped run exited $rc, expected 130"
[[ -z $(squeue -h -j "$job" -o %i 2>/dev/null) ]] || fail "job $job still in squeue after the stop"
[[ -z $(workers_of "$rundir") ]] || fail "workers left after the stop: $(workers_of "$rundir")"
[[ $(q "SELECT status FROM runs WHERE id = $run") == stopped ]] || fail "run $run not recorded stopped"
got=$(components "$job" | cut -d' ' -f5 | sort -u)
[[ $got == CANCELLED ]] || fail "job $job's components ended '$got', expected CANCELLED"
echo "stopped: both components of job $job cancelled, no worker left, run $run stopped with $(iterations "$run") iterations"

echo "== 3. the second pool on a partition the cluster does not have"
sed 's/"second"/"nosuch"/' "$data/slurm-localhost-two-pools.json" >"$work/nosuch.json"
runs_before=$(q "SELECT COUNT(*) FROM runs")
jobs_before=$(our_jobs)
rc=0
"$bin/sailor" run "${common[@]}" --launcher slurm --cluster "$work/nosuch.json" \
  >"$work/nosuch.out" 2>"$work/nosuch.err" || rc=$?
[[ $rc == 2 ]] || fail "a component on partition nosuch exited $rc, expected 2"
[[ $(wc -l <"$work/nosuch.err") == 1 ]] || fail "expected one line of error, got: $(cat "$work/nosuch.err")"
grep -q "invalid partition specified: nosuch" "$work/nosuch.err" ||
  fail "the error does not name the partition: $(cat "$work/nosuch.err")"
[[ ! -s $work/nosuch.out ]] || fail "events printed for a refused job"
[[ $(q "SELECT COUNT(*) FROM runs") == "$runs_before" ]] || fail "a run was recorded"
[[ $(our_jobs) == "$jobs_before" ]] || fail "a job was submitted"
echo "refused: $(cat "$work/nosuch.err")"
echo "PASS"

#!/usr/bin/env bash
# `sailor run --launcher slurm` on the one-node Slurm cluster of scripts/slurm-cluster:
#  1. a 4-process plan (2 stages x 2 replicas) runs to completion as one batch job: the job is in
#     squeue while it runs, every iteration reaches the run store, and the losses equal those of
#     the same plan and seed run with the local launcher (float64, the runtime's 1e-9);
#  2. Stop (SIGTERM to sailor run) mid-run: scancel, the job leaves squeue, no worker is left,
#     the run is recorded stopped with its iterations;
#  3. the controller SIGKILLed mid-run: the job keeps training; `sailor runs attach` follows it to
#     the end and the store holds every iteration exactly once;
#  4. --partition nosuch: one line naming the cause, exit 2, no run recorded, no job submitted;
#  5. more than the partition has (4 nodes asked of a 1-node partition): the same;
#  6. a controller that does not answer (SLURM_CONF with its port closed): the same, and nothing
#     left beside a fresh store.
# Usage: test_slurm_run.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: test_slurm_run.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scancel scontrol sqlite3 jq

slurm_work_on_cluster sailor-slurm-run

store=$work/runs.sqlite
data=$src/tests/data/runtime
common=(--plan "$data/pp2-dp2.json" --scenario "$src/resources/scenarios/default.json"
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store")
slurm=(--launcher slurm --cluster "$data/slurm-localhost.json")

echo "== 1. a run to completion, against the local launcher"
"$bin/sailor" run "${common[@]}" --iterations 8 >"$work/local.jsonl" || fail "local run failed"
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --iterations 8 >"$work/slurm.jsonl" &
pid=$!
wait_for "the run's job id in the store" 60 bash -c "[[ -n \$(sqlite3 '$store' \"SELECT job_id FROM runs WHERE launcher = 'slurm'\") ]]"
run=$(last_run)
job=$(job_of "$run")
in_squeue "$job" || fail "job $job of run $run is not in squeue while the run is running"
# The refusal checks below count the jobs submitted from $work: they must see this one.
[[ $(our_jobs) == 1 ]] || fail "our_jobs does not see job $job (its work directory under $work)"
echo "job $job in squeue while run $run runs"
wait "$pid" || fail "the slurm run exited $?"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
[[ $(iterations "$run") == 8 ]] || fail "run $run stored $(iterations "$run") of 8 iterations"
jq -rs '[.[] | select(.event == "iteration") | .loss]' "$work/local.jsonl" >"$work/local.loss"
jq -rs '[.[] | select(.event == "iteration") | .loss]' "$work/slurm.jsonl" >"$work/slurm.loss"
jq -ne --slurpfile a "$work/local.loss" --slurpfile b "$work/slurm.loss" \
  '($a[0] | length) == 8 and ([range(8)] | all(($a[0][.] - $b[0][.]) | fabs <= 1e-9 * ($a[0][.] | fabs)))' \
  >/dev/null || fail "losses differ: local $(tr -d ' \n' <"$work/local.loss") slurm $(tr -d ' \n' <"$work/slurm.loss")"
echo "8 iterations stored, losses equal to the local run's (1e-9)"

echo "== 2. Stop mid-run"
prev=$(last_run)
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --iterations 400 >"$work/stop.jsonl" &
pid=$!
wait_for "two stored iterations of a new run" 120 new_run_iterations "$prev" 2
run=$(last_run)
job=$(job_of "$run")
rundir=$(q "SELECT run_dir FROM runs WHERE id = $run")
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc == 130 ]] || fail "stopped run exited $rc, expected 130"
in_squeue "$job" && fail "job $job still in squeue after the stop"
[[ -z $(workers_of "$rundir") ]] || fail "workers left after the stop: $(workers_of "$rundir")"
[[ $(q "SELECT status FROM runs WHERE id = $run") == stopped ]] || fail "run $run not recorded stopped"
done_its=$(iterations "$run")
((done_its >= 2 && done_its < 400)) || fail "stopped run kept $done_its iterations"
echo "stopped: job $job gone from squeue, no worker left, run $run stopped with $done_its iterations"

echo "== 3. controller SIGKILLed, then sailor runs attach"
prev=$(last_run)
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --iterations 30 >"$work/killed.jsonl" &
pid=$!
wait_for "two stored iterations of a new run" 120 new_run_iterations "$prev" 2
run=$(last_run)
job=$(job_of "$run")
# sailor run became sailor-run (exec): the same pid.
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
before=$(iterations "$run")
in_squeue "$job" || fail "job $job ended with its controller"
"$bin/sailor" runs list --store "$store" >/dev/null
"$bin/sailor" runs attach "$run" --store "$store" >"$work/attach.jsonl" || fail "attach exited $?"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "attached run $run not finished"
[[ $(iterations "$run") == 30 ]] || fail "run $run has $(iterations "$run") of 30 iterations"
[[ $(q "SELECT COUNT(DISTINCT iteration) || ' ' || MIN(iteration) || ' ' || MAX(iteration) FROM iterations WHERE run_id = $run") == "30 0 29" ]] ||
  fail "iterations of run $run are not 0..29 once each"
[[ $(q "SELECT COUNT(*) FROM events WHERE run_id = $run AND kind = 'iteration'") == 30 ]] ||
  fail "iteration events of run $run are not 30"
echo "attached after $before iterations: run $run finished with iterations 0..29 once each"

echo "== 4. a partition the cluster does not have"
runs_before=$(q "SELECT COUNT(*) FROM runs")
jobs_before=$(our_jobs)
rc=0
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --partition nosuch >"$work/nosuch.out" 2>"$work/nosuch.err" || rc=$?
[[ $rc == 2 ]] || fail "--partition nosuch exited $rc, expected 2"
[[ $(wc -l <"$work/nosuch.err") == 1 ]] || fail "expected one line of error, got: $(cat "$work/nosuch.err")"
grep -q "nosuch" "$work/nosuch.err" || fail "the error does not name the partition: $(cat "$work/nosuch.err")"
[[ ! -s $work/nosuch.out ]] || fail "events printed for a refused job"
[[ $(q "SELECT COUNT(*) FROM runs") == "$runs_before" ]] || fail "a run was recorded"
[[ $(our_jobs) == "$jobs_before" ]] || fail "a job was submitted"
echo "refused: $(cat "$work/nosuch.err")"

# refused_before_submission NAME CAUSE ARGS...: exit 2, one line naming CAUSE, nothing printed,
# recorded, submitted, or left in the run directories' parent.
refused_before_submission() {
  local name=$1 cause=$2 rc=0
  shift 2
  runs_before=$(q "SELECT COUNT(*) FROM runs")
  jobs_before=$(our_jobs)
  "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  [[ $rc == 2 ]] || fail "$name exited $rc, expected 2: $(cat "$work/$name.err")"
  [[ $(wc -l <"$work/$name.err") == 1 ]] || fail "$name: expected one line, got: $(cat "$work/$name.err")"
  grep -q "$cause" "$work/$name.err" || fail "$name: the error does not say '$cause': $(cat "$work/$name.err")"
  [[ ! -s $work/$name.out ]] || fail "$name: events printed for a refused job"
  [[ $(q "SELECT COUNT(*) FROM runs") == "$runs_before" ]] || fail "$name: a run was recorded"
  [[ $(our_jobs) == "$jobs_before" ]] || fail "$name: a job was submitted"
  echo "refused ($name): $(cat "$work/$name.err")"
}

echo "== 5. more than the partition has: one GPU per node, so 4 nodes of a 1-node partition"
sed 's/"gpus_per_node": 8/"gpus_per_node": 1/' "$src/tests/data/runtime/slurm-localhost.json" \
  >"$work/four-nodes.json"
refused_before_submission four-nodes "More processors requested than permitted" \
  "$bin/sailor" run "${common[@]}" --launcher slurm --cluster "$work/four-nodes.json"

echo "== 6. a controller that does not answer (its port closed)"
sed 's/^SlurmctldPort=.*/SlurmctldPort=1/' "$SLURM_CONF" >"$work/silent.conf"
fresh_store=$work/silent-store/runs.sqlite
mkdir -p "$work/silent-store"
# A store of its own: neither it nor the run directories' parent beside it may be left behind.
refused_before_submission silent "no answer from the Slurm controller" \
  env SLURM_CONF="$work/silent.conf" "$bin/sailor" run --plan "$data/pp2-dp2.json" \
  --scenario "$src/resources/scenarios/default.json" --job "$data/job.json" --hidden 64 \
  --seq-len 16 --dtype float64 --store "$fresh_store" "${slurm[@]}"
[[ -z $(ls -A "$work/silent-store") ]] || fail "files left beside the store: $(ls -A "$work/silent-store")"
echo "PASS"

#!/usr/bin/env bash
# `sailor run --launcher slurm --elastic` on the test Slurm cluster (scripts/slurm-cluster):
#  1. a 4-worker run (2 stages x 2 replicas) shrinks to 2 GPUs and grows back to 4 on `sailor runs
#     resize`: the workers are paused and told their new places through the run's token-checked
#     store (no pipe reaches them), the two that leave hand their state over and exit 0, the two
#     that join start as job steps of the run's job (squeue -s lists them); no iteration is lost
#     and every loss equals an uninterrupted local run's (float64, 1e-9);
#  2. while it runs, a peer with a wrong token is refused by the store and changes nothing (no
#     pause, no reconfiguration beyond the two asked for);
#  3. bad resizes leave the run untouched: beyond the job's allocation, to zero GPUs, to GPUs the
#     cluster description does not map; and a resize of the finished run is refused;
#  4. a preemption notice: `scancel --signal=TERM` to a joining worker's job step; the worker
#     reports it, the run re-plans without its GPU and the worker hands its state over and ends
#     within a grace of 10 s (Slurm's KillWait, shortened), no iteration lost;
#  5. a run that shrank and grew back (two of its workers now job steps that joined) loses its
#     controller (SIGKILL): `sailor runs attach` follows the workers of its last world to the
#     end, every iteration stored once with the uninterrupted run's loss.
# Usage: test_slurm_elastic.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR STORE_PROBE
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 5 ]] || { echo "usage: test_slurm_elastic.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR PROBE" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4
probe=$5

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scancel scontrol sqlite3 jq

slurm_work_on_cluster sailor-slurm-elastic

store=$work/runs.sqlite
data=$src/tests/data/runtime
iterations=400
# A worker silent for 20 s (not the default 5) counts as lost: this test's reconfigurations are
# asked for, and a worker lost in the middle of one fails the run; on a loaded 2-core machine
# (CI runs the GUI tests beside this one) a heartbeat may come late.
base=(--plan "$data/pp2-dp2.json" --scenario "$src/resources/scenarios/default.json"
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store"
  --heartbeat-timeout 20)
common=("${base[@]}" --iterations "$iterations")
site=A100-40@us-central1-a

# resize EXPECTED_EXIT NEEDLE ARGS...: `sailor runs resize RUN ARGS...` exits EXPECTED_EXIT and
# says NEEDLE.
resize() {
  local want=$1 needle=$2 rc=0
  shift 2
  "$bin/sailor" runs resize "$run" "$@" --store "$store" >"$work/resize.out" 2>&1 || rc=$?
  [[ $rc == "$want" ]] || fail "runs resize $*: exit $rc, expected $want: $(cat "$work/resize.out")"
  grep -qF -- "$needle" "$work/resize.out" || fail "runs resize $*: no \"$needle\" in: $(cat "$work/resize.out")"
}
count() { grep -c "\"event\":\"$1\"" "$work/slurm.jsonl" || true; }

echo "== 1. shrink to 2 and grow back to 4 through the store (and, beside it, the reference)"
# The reference: the same plan, seed and iterations, uninterrupted, local; run meanwhile.
"$bin/sailor" run "${common[@]}" --name reference >"$work/local.jsonl" 2>&1 &
ref_pid=$!
"$bin/sailor" run "${common[@]}" --launcher slurm --cluster "$data/slurm-localhost.json" --elastic \
  >"$work/slurm.jsonl" 2>"$work/slurm.err" &
pid=$!
wait_for "the Slurm run's third iteration" 120 grep -q '"iteration":3,' "$work/slurm.jsonl"
run=$(q "SELECT id FROM runs WHERE launcher = 'slurm'")
job=$(job_of "$run")
rundir=$(q "SELECT run_dir FROM runs WHERE id = $run")

resize 0 "re-planning on 2 A100-40" --gpus "$site=2"
wait_for "the shrink's reconfigured event" 120 grep -q '"generation":1,' "$work/slurm.jsonl"
grep '"event":"reconfigured"' "$work/slurm.jsonl" | jq -e 'select(.generation == 1) | .new_world_size == 2 and .old_world_size == 4 and .iterations_lost == 0 and .state_source == "peers"' >/dev/null ||
  fail "the shrink: $(grep '"event":"reconfigured"' "$work/slurm.jsonl")"
from=$(grep '"event":"reconfigured"' "$work/slurm.jsonl" | jq -r 'select(.generation == 1) | .from_iteration')
wait_for "two iterations on 2 workers" 120 grep -q "\"iteration\":$((from + 2))," "$work/slurm.jsonl"
left=$(cat "$rundir"/events/rank-*.exit 2>/dev/null | grep -c '^0$' || true)
[[ $left == 2 ]] || fail "expected the 2 leaving workers to exit 0, found $left exit files"
echo "shrunk at iteration $from; 2 workers left with exit 0"

echo "== 2. a peer without the token"
"$probe" "@$rundir/rendezvous.address" wrong-token >"$work/probe.out" || fail "the store let a wrong token in: $(cat "$work/probe.out")"
echo "refused: $(cat "$work/probe.out")"

echo "== 3. bad resizes leave the run untouched"
resize 2 "beyond the 4 its Slurm job holds" --gpus "$site=8"
resize 2 "at least one GPU" --gpus "$site=0"
resize 2 "no component for V100-16@us-central1-a" --gpus "V100-16@us-central1-a=2"
[[ $(count paused) == 0 && $(count reconfigured) == 1 ]] || fail "a refused resize or the hostile peer changed the run"
[[ $(q "SELECT status FROM runs WHERE id = $run") == running ]] ||
  fail "the run ended before it could grow back (a machine too loaded for $iterations iterations)"

resize 0 "re-planning on 4 A100-40" --gpus "$site=4"
wait_for "the growth's reconfigured event" 120 grep -q '"generation":2,' "$work/slurm.jsonl"
steps=$(squeue -h -s -j "$job" -o %i | grep -cv 'batch' || true)
((steps >= 3)) || fail "expected the first step and two joining steps of job $job, squeue -s: $(squeue -s -j "$job")"
grep '"event":"reconfigured"' "$work/slurm.jsonl" | jq -e 'select(.generation == 2) | .new_world_size == 4 and .iterations_lost == 0' >/dev/null ||
  fail "the growth: $(grep '"event":"reconfigured"' "$work/slurm.jsonl" | tail -1)"
echo "grew back: $steps job steps of job $job"

echo "== 4. a preemption notice: SIGTERM to a joining worker's job step, SIGKILL after a 10 s grace"
step=$(squeue -h -s -j "$job" -o %i | grep -v -e batch -e '\.0$' | head -n1)
[[ -n $step ]] || fail "no joining job step of job $job to preempt"
scancel --signal=TERM "$step" || fail "scancel --signal=TERM $step failed"
wait_for "the notice's reconfigured event" 120 grep -q '"generation":3,' "$work/slurm.jsonl"
end=$((SECONDS + 10))
while ((SECONDS < end)) && squeue -h -s -o %i | grep -qx "$step"; do sleep 0.2; done
if squeue -h -s -o %i | grep -qx "$step"; then
  scancel "$step"
  fail "job step $step was still running when its 10 s grace ended"
fi
grep '"event":"reconfigured"' "$work/slurm.jsonl" | jq -e 'select(.generation == 3) | .cause == "preemption" and .iterations_lost == 0 and .state_source == "peers" and (.detail | contains("preemption notice (SIGTERM)"))' >/dev/null ||
  fail "the notice: $(grep '"event":"reconfigured"' "$work/slurm.jsonl" | tail -1)"
echo "job step $step handed its state over and ended within the grace"

wait "$pid" || fail "the elastic Slurm run exited $?: $(tail -3 "$work/slurm.jsonl")"
wait "$ref_pid" || fail "the reference run failed: $(tail -3 "$work/local.jsonl")"
run_local=$(q "SELECT id FROM runs WHERE name = 'reference'")
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
if [[ $(iterations "$run") != "$iterations" ]]; then
  missing=$(comm -23 <(seq 0 $((iterations - 1)) | sort) <(q "SELECT iteration FROM iterations WHERE run_id = $run" | sort) | sort -n | tr '\n' ' ')
  fail "run $run stored $(iterations "$run") of $iterations iterations (missing: $missing); $(jq -c 'select(.event == "reconfigured" or .event == "warning" or .event == "finished") | {event, generation, from_iteration, iterations_lost, message, iterations_done}' "$work/slurm.jsonl" | tr '\n' ' ')"
fi
[[ $(count reconfigured) == 3 && $(count paused) == 0 ]] || fail "expected exactly the three reconfigurations asked for"
same_losses "$run_local" "$run" "$iterations"
echo "$iterations iterations, each loss equal to the uninterrupted run's (1e-9)"
jq -c 'select(.event == "reconfigured") | {generation, phases}' "$work/slurm.jsonl"

resize 2 "which is finished" --gpus "$site=2"

echo "== 5. attach to a run that reconfigured, after its controller was killed"
short=200
# Its reference: as many iterations (the learning-rate schedule spans the run's iterations).
"$bin/sailor" run "${base[@]}" --iterations "$short" --name reference-short >"$work/local-short.jsonl" 2>&1 &
ref_pid=$!
"$bin/sailor" run "${base[@]}" --iterations "$short" --launcher slurm --cluster "$data/slurm-localhost.json" --elastic --name reattached \
  >"$work/killed.jsonl" 2>"$work/killed.err" &
pid=$!
wait_for "the fifth run's third iteration" 120 grep -q '"iteration":3,' "$work/killed.jsonl"
run=$(q "SELECT id FROM runs WHERE name = 'reattached'")
resize 0 "re-planning on 2 A100-40" --gpus "$site=2"
wait_for "its shrink" 120 grep -q '"generation":1,' "$work/killed.jsonl"
resize 0 "re-planning on 4 A100-40" --gpus "$site=4"
wait_for "its growth" 120 grep -q '"generation":2,' "$work/killed.jsonl"
from=$(grep '"event":"reconfigured"' "$work/killed.jsonl" | jq -r 'select(.generation == 2) | .from_iteration')
wait_for "two iterations of the last world" 120 grep -q "\"iteration\":$((from + 2))," "$work/killed.jsonl"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
stored=$(iterations "$run")
((stored < short)) || fail "the run finished before its controller was killed"
"$bin/sailor" runs attach "$run" --store "$store" >"$work/attach.jsonl" 2>"$work/attach.err" ||
  fail "runs attach exited $?: $(tail -3 "$work/attach.err") $(tail -3 "$work/attach.jsonl")"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished after the attach"
wait "$ref_pid" || fail "the second reference run failed: $(tail -3 "$work/local-short.jsonl")"
same_losses "$(q "SELECT id FROM runs WHERE name = 'reference-short'")" "$run" "$short"
echo "killed after $stored iterations in world 2; the attached controller stored the other $((short - stored)), each loss equal to the uninterrupted run's (1e-9)"
echo "PASS"

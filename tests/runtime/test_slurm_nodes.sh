#!/usr/bin/env bash
# An elastic Slurm run on two nodes of one pool (dp4, two workers a node, partition `both` of
# scripts/slurm-cluster) and what the scheduler says about its nodes (docs/elasticity.md, "Slurm
# runs"):
#  1. a node drained (`scontrol update state=drain`): its two workers get a notice, hand their
#     state over and leave, and the run goes on on the other node; the node returned to service
#     (`state=resume`): the run grows back to 4 workers;
#  2. a node lost mid-run: its slurmd stopped and its workers killed (a node that dies takes its
#     processes along): the run re-plans on the other node, its state from the workers there;
# in both, no iteration is lost and every loss equals an uninterrupted local run's (float64, 1e-9),
# but, when the killed workers got through an iteration's last collective without reporting it,
# that iteration's (the state's): its loss is the survivors' share, and a warning says so;
#  3. a node lost that held the only copy of two stages (pp4, checkpoints every 4 iterations in
#     the run's directory): the run re-plans on the other node from the last complete checkpoint,
#     loses the iterations since (at most 2 x 4 - 1), trains them again and stores each once, with
#     the uninterrupted run's losses.
# The node is returned to service after each case, for the tests after this one.
# Usage: test_slurm_nodes.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: test_slurm_nodes.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scancel scontrol sinfo sqlite3 jq

slurm_work_on_cluster sailor-slurm-nodes
node2=$(awk '{print $2}' "$dir/nodes")
[[ -n $node2 ]] || fail "no second node in $dir/nodes"
restore() {  # the second node back in service, whatever happened to it
  "$cluster" node-start --node "$node2" --dir "$dir" --timeout 60 >/dev/null || echo "could not return $node2 to service" >&2
}
trap 'rc=$?; restore; (exit "$rc"); slurm_cleanup' EXIT

store=$work/runs.sqlite
data=$src/tests/data/runtime
iterations=300
base=(--plan "$data/dp4.json" --scenario "$src/resources/scenarios/default.json"
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store")
common=("${base[@]}" --iterations "$iterations")
slurm=(--launcher slurm --cluster "$data/slurm-localhost-two-nodes.json" --elastic)

# lose_node2 EVENTS: the second node lost under a run: its slurmd stopped and its two workers
# killed (a node that dies takes its processes along); waits for the run's reconfigured event.
lose_node2() {
  "$cluster" node-stop --node "$node2" --dir "$dir" >/dev/null
  local victims
  victims=$(workers_on "$node2")
  [[ $(wc -w <<<"$victims") == 2 ]] || fail "expected 2 workers on $node2, found: ${victims:-none}"
  # shellcheck disable=SC2086  # one pid a word
  kill -KILL $victims
  wait_for "the loss's reconfigured event" 120 grep -q '"generation":1,' "$1"
}
reconfigured() { grep '"event":"reconfigured"' "$1" | jq -c "select(.generation == $2)"; }
# Worker processes running as node $1 of the test cluster (SLURMD_NODENAME in their environment).
workers_on() {
  local pid
  for pid in $(pgrep -f "sailor-worker" || true); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURMD_NODENAME=$1" && echo "$pid"
  done
  return 0
}

echo "== the reference: dp4, uninterrupted, local (beside the first Slurm run)"
"$bin/sailor" run "${common[@]}" --name reference >"$work/local.jsonl" 2>&1 &
ref_pid=$!

echo "== 1. $node2 drained, then returned to service"
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --name drained >"$work/drain.jsonl" 2>"$work/drain.err" &
pid=$!
wait_for "the first run's third iteration" 120 grep -q '"iteration":3,' "$work/drain.jsonl"
[[ $(squeue -h -j "$(job_of "$(q "SELECT id FROM runs WHERE name = 'drained'")")" -o %N) == *"$node2"* ]] ||
  fail "the job does not run on $node2: $(squeue -h -o '%i %N')"
scontrol update nodename="$node2" state=drain reason=sailor-test
wait_for "the drain's reconfigured event" 120 grep -q '"generation":1,' "$work/drain.jsonl"
r=$(reconfigured "$work/drain.jsonl" 1)
jq -e '.cause == "node" and .new_world_size == 2 and .iterations_lost == 0 and .state_source == "peers"' <<<"$r" >/dev/null ||
  fail "the drain: $r"
jq -e --arg n "$node2" '.detail | contains("node " + $n + " drain")' <<<"$r" >/dev/null || fail "the drain's detail: $r"
echo "drained: $(jq -r .detail <<<"$r")"
"$cluster" node-start --node "$node2" --dir "$dir" --timeout 60 >/dev/null || fail "$node2 did not return to service"
wait_for "the return's reconfigured event" 120 grep -q '"generation":2,' "$work/drain.jsonl"
r=$(reconfigured "$work/drain.jsonl" 2)
jq -e '.cause == "node" and .new_world_size == 4 and .iterations_lost == 0' <<<"$r" >/dev/null || fail "the return: $r"
echo "back: $(jq -r .detail <<<"$r")"
wait "$pid" || fail "the drained run exited $?: $(tail -3 "$work/drain.jsonl")"
wait "$ref_pid" || fail "the reference run failed: $(tail -3 "$work/local.jsonl")"
reference=$(q "SELECT id FROM runs WHERE name = 'reference'")
run=$(q "SELECT id FROM runs WHERE name = 'drained'")
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
same_losses "$reference" "$run" "$iterations"
echo "$iterations iterations, each loss equal to the uninterrupted run's (1e-9)"

echo "== 2. $node2 lost: its slurmd stopped, its workers killed"
"$bin/sailor" run "${common[@]}" "${slurm[@]}" --name lost >"$work/lost.jsonl" 2>"$work/lost.err" &
pid=$!
wait_for "the second run's third iteration" 120 grep -q '"iteration":3,' "$work/lost.jsonl"
lose_node2 "$work/lost.jsonl"
r=$(reconfigured "$work/lost.jsonl" 1)
jq -e '.cause == "worker_lost" and .new_world_size <= 2 and .iterations_lost == 0 and .state_source == "peers"' <<<"$r" >/dev/null ||
  fail "the loss: $r"
echo "lost: $(jq -r .detail <<<"$r")"
wait "$pid" || fail "the run that lost a node exited $?: $(tail -3 "$work/lost.jsonl")"
run=$(q "SELECT id FROM runs WHERE name = 'lost'")
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
# Workers killed after an iteration's last collective but before their report: the survivors'
# state has that iteration's update, its loss only their share, which a warning says.
partial=$(jq -r 'select(.event == "warning") | .message | capture("^iteration (?<i>[0-9]+): its loss is that of the ranks").i // empty' "$work/lost.jsonl")
if [[ -n $partial ]]; then
  from=$(jq -r '.from_iteration' <<<"$r")
  [[ $partial == $((from - 1)) ]] || fail "iteration $partial's loss is partial, not the state's ($((from - 1)))"
  echo "iteration $partial: the loss of the surviving ranks (the lost ones had not reported it)"
fi
same_losses "$reference" "$run" "$iterations" "${partial:--1}"
echo "$iterations iterations, each loss equal to the uninterrupted run's (1e-9)"
restore

echo "== 3. $node2 lost with the only copy of stages 2 and 3: the state from the last checkpoint"
short=120
pp4=(--plan "$data/pp4.json" --scenario "$src/resources/scenarios/default.json" --job "$data/job.json"
  --hidden 64 --seq-len 16 --dtype float64 --store "$store" --iterations "$short")
# Its reference: as many iterations (the learning-rate schedule spans the run's iterations).
"$bin/sailor" run "${pp4[@]}" --name reference-short >"$work/local-short.jsonl" 2>&1 &
ref_pid=$!
"$bin/sailor" run "${pp4[@]}" "${slurm[@]}" --checkpoint-every 4 --name checkpointed \
  >"$work/ckpt.jsonl" 2>"$work/ckpt.err" &
pid=$!
checkpointed() { jq -e -s "any(.[]; .event == \"checkpoint\" and .iteration $1)" "$work/ckpt.jsonl" >/dev/null; }
wait_for "a checkpoint at iteration 7 or later" 180 checkpointed ">= 7"
lose_node2 "$work/ckpt.jsonl"
r=$(reconfigured "$work/ckpt.jsonl" 1)
jq -e '.state_source == "checkpoint" and .new_world_size <= 2 and .iterations_lost >= 0 and .iterations_lost <= 7' <<<"$r" >/dev/null ||
  fail "the loss: $r"
from=$(jq -r .from_iteration <<<"$r")
run=$(q "SELECT id FROM runs WHERE name = 'checkpointed'")
checkpointed "== $((from - 1))" || fail "no checkpoint event of iteration $((from - 1)) before the loss"
run_dir=$(q "SELECT run_dir FROM runs WHERE id = $run")
jq -e -s --arg d "$run_dir/checkpoints/" 'map(select(.event == "checkpoint")) | length > 0 and all(.directory | startswith($d))' \
  "$work/ckpt.jsonl" >/dev/null || fail "checkpoints not in the run's directory $run_dir"
echo "lost: $(jq -r .detail <<<"$r"); from the checkpoint of iteration $((from - 1)), $(jq -r .iterations_lost <<<"$r") iterations lost"
wait "$pid" || fail "the run that lost two stages exited $?: $(tail -3 "$work/ckpt.jsonl")"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
wait "$ref_pid" || fail "the second reference run failed: $(tail -3 "$work/local-short.jsonl")"
same_losses "$(q "SELECT id FROM runs WHERE name = 'reference-short'")" "$run" "$short"
echo "$short iterations, each stored once, each loss equal to the uninterrupted run's (1e-9)"
echo "PASS"

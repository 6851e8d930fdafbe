#!/usr/bin/env bash
# A flood of unproven connections to a Slurm run's rendezvous store from the moment rank 0
# publishes its address, on the one-node Slurm cluster of scripts/slurm-cluster:
#  1. store_probe waits for rendezvous.address (every 2 ms) and holds 80 connections that never
#     prove the token (more than the 64 the store keeps unproven), reconnecting every one the
#     store closes, from before the other ranks connect until the run's first iteration;
#  2. the ranks still get in: the run reaches its first iteration under the flood, and the store's
#     evictions of the oldest unproven connections are recorded as warning events;
#  3. with the flood gone the run finishes every iteration (exit 0, status finished).
# Usage: test_slurm_store_flood.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR PROBE
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 5 ]] || { echo "usage: test_slurm_store_flood.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR PROBE" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4
probe=$5

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scontrol sqlite3 jq

slurm_work_on_cluster sailor-slurm-flood

store=$work/runs.sqlite
data=$src/tests/data/runtime
n_iterations=20
"$bin/sailor" run --plan "$data/pp2-dp2.json" --scenario "$src/resources/scenarios/default.json" \
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store" \
  --launcher slurm --cluster "$data/slurm-localhost.json" --iterations "$n_iterations" >"$work/run.jsonl" &
pid=$!

# The run directory is recorded before the job is submitted; rank 0 publishes the address there
# once the job runs and its store listens.
wait_for "the run's directory in the store" 60 \
  bash -c "[[ -n \$(sqlite3 '$store' 'SELECT run_dir FROM runs' 2>/dev/null) ]]"
run=$(last_run)
rundir=$(q "SELECT run_dir FROM runs WHERE id = $run")
[[ ! -e $rundir/rendezvous.address ]] || fail "rendezvous.address exists before the flood could start"
"$probe" "@$rundir/rendezvous.address" flood 80 >"$work/flood" &
flood=$!
# The flood ends with the test, whatever its outcome.
trap 'rc=$?; kill "$flood" 2>/dev/null || true; (exit "$rc"); slurm_cleanup' EXIT

echo "== 1. 80 unproven connections from the moment the address appears"
wait_for "the flood holding 80 connections" 120 grep -q "^holding 80" "$work/flood"
held_at=$(iterations "$run")
cat "$work/flood"
[[ $held_at == 0 ]] || fail "the flood held its 80 connections only after $held_at iterations"

echo "== 2. the ranks get in: the first iteration under the flood"
deadline=$((SECONDS + 300))
until has_iterations "$run" 1; do
  if ! kill -0 "$pid" 2>/dev/null; then
    rc=0
    wait "$pid" || rc=$?
    fail "the run exited $rc before its first iteration under the flood: $(jq -c 'select(.event == "finished")' "$work/run.jsonl")"
  fi
  ((SECONDS < deadline)) || fail "no first iteration within 300 s under the flood"
  sleep 0.2
done
kill -0 "$flood" 2>/dev/null || fail "the flood stopped before the first iteration: $(cat "$work/flood")"
kill -TERM "$flood"
wait "$flood" || fail "the flood never held 80 connections: $(cat "$work/flood")"
tail -n 1 "$work/flood"
evictions=$(q "SELECT COUNT(*) FROM events WHERE run_id = $run AND kind = 'warning' AND json_extract(payload, '$.message') LIKE 'rendezvous store: refused%the oldest of 64 connections without a token proof%'")
((evictions > 0)) || fail "no eviction recorded: the store never had to make room for a rank"
echo "run $run reached its first iteration; $evictions evictions recorded (the first 20, then every 100th)"

echo "== 3. the run finishes"
wait "$pid" || fail "the run exited $?"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
[[ $(iterations "$run") == "$n_iterations" ]] ||
  fail "run $run stored $(iterations "$run") of $n_iterations iterations"
echo "run $run finished its $n_iterations iterations"

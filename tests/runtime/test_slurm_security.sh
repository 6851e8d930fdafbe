#!/usr/bin/env bash
# The control channel of a Slurm run: rank 0's token-checked rendezvous store on the
# one-node Slurm cluster of scripts/slurm-cluster, attacked while the run trains.
#  1. the store listens on the cluster's interface (the machine's first interface with a global
#     IPv4 address; lo when it has none), on that address only, never on 0.0.0.0;
#  2. store_probe connects without a token (silent), with a wrong token, with 4 KiB of garbage
#     and with a 100 MB frame: each is refused; a probe proving the run's token is let in;
#  3. the run still finishes every iteration (exit 0, status finished), and the store of runs
#     holds one warning event per refusal, naming the cause;
#  4. the token is on no process's command line.
# Usage: test_slurm_security.sh SLURM_CLUSTER_SCRIPT STATE_DIR SAILOR_BIN_DIR SOURCE_DIR PROBE
# Exits 77 (skip) when not root or Slurm and munge are not installed.
set -euo pipefail

[[ $# -eq 5 ]] || { echo "usage: test_slurm_security.sh SCRIPT STATE_DIR BIN_DIR SOURCE_DIR PROBE" >&2; exit 2; }
cluster=$1
dir=$2
bin=$3
src=$4
probe=$5

# shellcheck source=tests/runtime/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

slurm_require munged slurmctld slurmd sbatch srun squeue scontrol sqlite3 jq ss ip

slurm_work_on_cluster sailor-slurm-security

read -r ifname ifaddr < <(ip -4 -o addr show scope global | awk 'NR == 1 { split($4, a, "/"); print $2, a[1] }') || true
if [[ -z ${ifname:-} ]]; then
  ifname=lo ifaddr=127.0.0.1
  echo "no interface with a global IPv4 address: the store binds lo"
fi
jq --arg i "$ifname" '.network_interface = $i' "$src/tests/data/runtime/slurm-localhost.json" >"$work/cluster.json"

store=$work/runs.sqlite
data=$src/tests/data/runtime
n_iterations=200
"$bin/sailor" run --plan "$data/pp2-dp2.json" --scenario "$src/resources/scenarios/default.json" \
  --job "$data/job.json" --hidden 64 --seq-len 16 --dtype float64 --store "$store" \
  --launcher slurm --cluster "$work/cluster.json" --iterations "$n_iterations" >"$work/run.jsonl" &
pid=$!

# The store may not exist yet while the run starts: no error then.
q_quiet() { sqlite3 "$store" "$1" 2>/dev/null || true; }
deadline=$((SECONDS + 120))
address=
until [[ -n $address ]]; do
  ((SECONDS < deadline)) || fail "no rendezvous address within 120 s"
  rundir=$(q_quiet "SELECT run_dir FROM runs ORDER BY id DESC LIMIT 1")
  [[ -n $rundir && -s $rundir/rendezvous.address ]] && address=$(cat "$rundir/rendezvous.address")
  sleep 0.2
done
run=$(q "SELECT MAX(id) FROM runs")
port=${address##*:}
echo "== 1. run $run: rank 0's store at $address ($ifname)"
[[ ${address%:*} == "$ifaddr" ]] || fail "the store is at $address, not on $ifname ($ifaddr)"
listening=$(ss -Hltn "sport = :$port" | awk '{print $4}')
[[ $listening == "$ifaddr:$port" ]] || fail "port $port listens on '$listening', expected $ifaddr:$port only"
echo "listening on $listening only"

echo "== 2. hostile peers"
"$probe" "$address" silent >"$work/silent" &
silent=$!
for mode in wrong-token garbage huge; do
  "$probe" "$address" "$mode" || fail "$mode was not refused"
done
wait "$silent" || fail "a silent peer was not refused: $(cat "$work/silent")"
cat "$work/silent"
"$probe" "$address" good "$rundir/token" || fail "a peer with the run's token was refused"
kill -0 "$pid" 2>/dev/null || fail "the run ended before the probes were done: raise the iterations"

echo "== 4. the token on no command line"
token=$(cat "$rundir/token")
if pgrep -f -- "$token" >/dev/null; then fail "the token is on a command line: $(pgrep -af -- "$token")"; fi
echo "not on any command line"

echo "== 3. the run goes on"
wait "$pid" || fail "the run exited $?"
[[ $(q "SELECT status FROM runs WHERE id = $run") == finished ]] || fail "run $run not finished"
[[ $(iterations "$run") == "$n_iterations" ]] ||
  fail "run $run stored $(iterations "$run") of $n_iterations iterations"
refusals=$(q "SELECT json_extract(payload, '$.message') FROM events WHERE run_id = $run AND kind = 'warning' AND json_extract(payload, '$.message') LIKE 'rendezvous store: refused%'")
echo "$refusals"
for why in "no token proof within" "wrong token proof" "expected a 64-byte token proof" "a first frame of 100 MiB"; do
  grep -qF "$why" <<<"$refusals" || fail "no warning event says '$why'"
done
[[ $(wc -l <<<"$refusals") == 4 ]] || fail "expected 4 refusals, got: $refusals"
echo "run $run finished its $n_iterations iterations; 4 refusals recorded as warning events"

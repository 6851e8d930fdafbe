#!/usr/bin/env bash
# `sailor run --emulate-zones` (docs/emulated-zones.md):
#  1. a two-stage plan with a stage per zone (tests/data/runtime/zones-pp2.json, zones joined at
#     200 Mbit/s by zones-scenario.json) runs to completion; while it runs there is one namespace
#     per zone holding that zone's worker, and each zone's link end has a tbf qdisc at the
#     scenario's rate (wire rate: 0.025 GB/s x 8 x 1514/1448 bits/s) that the boundary traffic
#     goes through; afterwards no namespace of the run is left;
#  2. the controller SIGTERMed mid-run: exit 130, namespaces gone;
#  3. a step of the controller failing mid-run (SAILOR_TEST_FAULT=pump): exit 4, namespaces gone;
#  4. the controller SIGKILLed mid-run: its namespaces stay (nothing of it runs to remove them),
#     and the next `sailor run` sweeps them;
#  5. bad input: without root's capabilities (setpriv to nobody), without `tc` in PATH, with
#     --launcher slurm: one line naming the cause, exit 2, no run store written, no namespace.
# Usage: test_zones.sh SAILOR_BIN_DIR SOURCE_DIR
# Exits 77 (skip) when not root, without iproute2, or where network namespaces cannot be made.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: test_zones.sh BIN_DIR SOURCE_DIR" >&2; exit 2; }
bin=$1
src=$2

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "emulated zones need root (this test runs as $(id -un))"
command -v ip >/dev/null && command -v tc >/dev/null || skip "iproute2 (ip, tc) not installed"
probe=sailor-zones-probe-$$
ip netns add "$probe" 2>/dev/null || skip "this machine refuses network namespaces (ip netns add)"
ip netns del "$probe"

work=$(mktemp -d /tmp/sailor-zones-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SAILOR_RESOURCES=$src/resources
data=$src/tests/data/runtime
store=$work/runs.sqlite
common=(--scenario "$data/zones-scenario.json" --job "$data/job.json" --hidden 64 --seq-len 16
  --store "$store")

# Namespaces of the controller with pid $1 (sailor-z<pid>-<start ticks>-<zone index>), and the one
# of zone index $2.
namespaces_of() { ip netns list | awk '{print $1}' | grep "^sailor-z$1-" || true; }
zone_ns() { namespaces_of "$1" | grep -- "-$2\$"; }
# Waits up to 60 s for file $1 to hold an event $2.
wait_event() {
  for _ in $(seq 600); do
    grep -q "\"event\":\"$2\"" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "no $2 event in $1: $(tail -3 "$1")"
}

echo "== 1. a two-zone run: namespaces, rates, traffic; nothing left"
"$bin/sailor-run" run --plan "$data/zones-pp2.json" "${common[@]}" --iterations 40 --emulate-zones \
  >"$work/run1.jsonl" 2>"$work/run1.err" &
pid=$!
wait_event "$work/run1.jsonl" iteration
mapfile -t nss < <(namespaces_of "$pid")
[[ ${#nss[@]} -eq 2 ]] || fail "expected 2 namespaces of controller $pid, got: ${nss[*]:-none}"
# 0.025 GB/s of payload as tc counts frames: 25e6 x 8 x 1514 / 1448 bits/s, in bytes/s for tc -j.
want=$(python3 -c 'print(round(25e6 * 1514 / 1448))')
for i in 0 1; do
  ns=$(zone_ns "$pid" "$i")
  [[ -e /run/netns/$ns ]] || fail "no namespace of zone $i"
  other=$((1 - i))
  rate=$(tc -n "$ns" -j qdisc show dev "zone$other" | jq '.[] | select(.kind == "tbf") | .options.rate')
  # tc keeps the rate in its own units: within 0.1% of the asked rate.
  python3 -c "import sys; r, w = $rate, $want; sys.exit(abs(r - w) > w * 1e-3)" ||
    fail "$ns: tbf rate $rate bytes/s, expected $want"
  addr=$(ip -n "$ns" -4 addr show dev lo | awk '/10\.200\./ {print $2}')
  [[ $addr == "10.200.0.$((i + 1))/32" ]] || fail "$ns: zone address $addr"
done
# Each zone's namespace holds its worker: rank 0 (stage 0) in zone-a, rank 1 in zone-b.
wait_event "$work/run1.jsonl" workers_started
for r in 0 1; do
  wpid=$(jq -r "select(.event == \"workers_started\") | .workers[$r].pid" "$work/run1.jsonl")
  ns=$(zone_ns "$pid" "$r")
  ip netns pids "$ns" | grep -qx "$wpid" ||
    fail "rank $r (pid $wpid) is not in namespace $ns: $(ip netns pids "$ns" | tr '\n' ' ')"
done
wait "$pid" || fail "the two-zone run failed ($?): $(tail -3 "$work/run1.err")"
[[ $(jq -r 'select(.event == "finished") | .status' "$work/run1.jsonl") == finished ]] ||
  fail "run 1 did not finish"
[[ $(grep -c '"event":"iteration"' "$work/run1.jsonl") -eq 40 ]] || fail "run 1: not 40 iterations"
[[ -z $(namespaces_of "$pid") ]] || fail "namespaces left after run 1: $(namespaces_of "$pid")"

echo "== 1b. the boundary traffic crosses the shaped link"
"$bin/sailor-run" run --plan "$data/zones-pp2.json" "${common[@]}" --iterations 200 --emulate-zones \
  >"$work/run1b.jsonl" 2>&1 &
pid=$!
wait_event "$work/run1b.jsonl" iteration
sleep 1
sent=$(tc -n "$(zone_ns "$pid" 0)" -j -s qdisc show dev zone1 | jq '.[] | select(.kind == "tbf") | .bytes')
# Four microbatches of 2 x 16 x 64 float32 activations (8 KiB each) per iteration at least.
[[ $sent -gt 32768 ]] || fail "the zone link carried $sent bytes"
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
[[ $code -eq 130 ]] || fail "SIGTERM: exit $code, expected 130"

echo "== 2. SIGTERM: exit 130 (above), nothing left"
[[ -z $(namespaces_of "$pid") ]] || fail "namespaces left after SIGTERM: $(namespaces_of "$pid")"

echo "== 3. a failing controller step: exit 4, nothing left"
code=0
SAILOR_TEST_FAULT=pump "$bin/sailor-run" run --plan "$data/zones-pp2.json" "${common[@]}" \
  --iterations 40 --emulate-zones >"$work/run3.jsonl" 2>&1 &
pid=$!
wait "$pid" || code=$?
[[ $code -eq 4 ]] || fail "injected failure: exit $code, expected 4"
grep -q '"event":"workers_started"' "$work/run3.jsonl" || fail "run 3 never started its workers"
[[ -z $(namespaces_of "$pid") ]] || fail "namespaces left after a failure: $(namespaces_of "$pid")"

echo "== 4. SIGKILL: namespaces stay, the next run sweeps them"
"$bin/sailor-run" run --plan "$data/zones-pp2.json" "${common[@]}" --iterations 200 --emulate-zones \
  >"$work/run4.jsonl" 2>&1 &
pid=$!
wait_event "$work/run4.jsonl" iteration
kill -KILL "$pid"
wait "$pid" || true
sleep 0.5  # the workers die with their controller (PR_SET_PDEATHSIG)
[[ $(namespaces_of "$pid" | wc -l) -eq 2 ]] || fail "expected the killed controller's 2 namespaces"
"$bin/sailor-run" run --plan "$data/zones-pp2-one-zone.json" "${common[@]}" --iterations 1 \
  >"$work/run4b.jsonl" 2>&1 || fail "the sweeping run failed: $(tail -3 "$work/run4b.jsonl")"
[[ -z $(namespaces_of "$pid") ]] || fail "the next run did not sweep: $(namespaces_of "$pid")"

echo "== 5. bad input: no privileges, no tc, a Slurm run"
bad=$work/bad
mkdir -m 0777 "$bad"
before=$(ip netns list | wc -l)
check_refused() {  # $1: what the message must name; the command's stderr in $bad/err
  local code=$2
  [[ $code -eq 2 ]] || fail "$1: exit $code, expected 2"
  [[ $(wc -l <"$bad/err") -eq 1 ]] || fail "$1: expected one line, got: $(cat "$bad/err")"
  grep -q -- "$1" "$bad/err" || fail "message does not name $1: $(cat "$bad/err")"
  [[ ! -e $bad/runs.sqlite ]] || fail "$1: a run store was written"
  [[ $(ip netns list | wc -l) -eq $before ]] || fail "$1: a namespace was made"
}
args=(run --plan "$data/zones-pp2.json" --scenario "$data/zones-scenario.json" --job "$data/job.json"
  --store "$bad/runs.sqlite" --emulate-zones)
code=0
# An unprivileged user (nobody) must reach the binaries: a checkout under a private directory
# (mktemp -d) does not let it; then this case cannot be run and says so.
if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$bin/sailor-run"; then
  setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
    env HOME="$bad" "$bin/sailor-run" "${args[@]}" >"$bad/out" 2>"$bad/err" || code=$?
  check_refused CAP_NET_ADMIN "$code"
else
  echo "skipped the unprivileged case: user nobody cannot execute $bin/sailor-run"
fi
code=0
SAILOR_TEST_ZONES_PATH=/nonexistent "$bin/sailor-run" "${args[@]}" >"$bad/out" 2>"$bad/err" || code=$?
check_refused '`ip`' "$code"
code=0
"$bin/sailor-run" "${args[@]}" --launcher slurm >"$bad/out" 2>"$bad/err" || code=$?
check_refused 'a local run' "$code"

echo "PASS"
